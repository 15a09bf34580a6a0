"""Gold files: ``{"id": ..., "gold": {...}}`` lines, as ``potato-multiagent convert --gold`` writes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

from ..files import read_text


class GoldError(Exception):
    """A gold file that cannot be read; the message names file, line and field."""


def read_gold(path: Path) -> Dict[str, dict]:
    """Gold objects by record id."""
    lines = read_text(path).splitlines()
    gold: Dict[str, dict] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError as error:
            raise GoldError(f"{path}:{number}: not a JSON line ({error})") from None
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), (str, int)) or isinstance(entry.get("id"), bool):
            raise GoldError(f"{path}:{number}: id: expected the record's id (a string)")
        if not isinstance(entry.get("gold"), dict):
            raise GoldError(f"{path}:{number}: gold: expected an object")
        gold[str(entry["id"])] = entry["gold"]
    return gold
