"""Loading the conformance corpus (shared by the pytest runners)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator, Tuple

HERE = Path(__file__).parent


def cases() -> Iterator[Tuple[str, dict]]:
    """``(id, case)`` for every case of every ``*.json`` topic file, in file order."""
    for path in sorted(HERE.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            yield f"{path.stem} / {case['name']}", case


def comparable(derivation: dict) -> dict:
    """A derivation with problem messages dropped: the corpus compares path and code only."""
    result = dict(derivation)
    result["problems"] = [{"path": p["path"], "code": p["code"]} for p in derivation["problems"]]
    return result
