"""``potato-multiagent export CONFIG --format csv|jsonl|parquet --out DIR``.

One tidy table per scheme (``DIR/<scheme>.<ext>``), one row per judged item, and ``report.json``
beside them: the files written, every invalid value with its problems (never in a table), the
values left out because ``display_logic`` hid their scheme, and schemes that could not be
exported. Each file is written to a temporary name and renamed, so none is ever half-written.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import uuid
from pathlib import Path
from typing import Callable, Dict, List

from .collect import Collection, SchemeTable

FORMATS = ("csv", "jsonl", "parquet")
REPORT_FILE = "report.json"


class ExportError(Exception):
    """The export cannot be written (the message says what to do)."""


def export_collection(collection: Collection, out_dir: Path, fmt: str) -> dict:
    """Write every table and the report; return the report."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if fmt == "parquet":
        _require_pyarrow()
    out_dir.mkdir(parents=True, exist_ok=True)
    names = file_names(list(collection.tables))
    written = []
    for name, table in collection.tables.items():
        path = out_dir / f"{names[name]}.{fmt}"
        _write_atomically(path, lambda target, table=table: WRITERS[fmt](table, target))
        written.append({"scheme": name, "type": table.scheme.type_name(), "file": path.name, "rows": len(table.rows)})
    turn_names = file_names(list(collection.tables) + list(collection.turn_tags))
    for name, table in collection.turn_tags.items():   # one row per (item, step, mode, annotator)
        path = out_dir / f"{turn_names[name]}.{fmt}"
        _write_atomically(path, lambda target, table=table: WRITERS[fmt](table, target))
        written.append({"scheme": name, "type": table.type_name(), "file": path.name, "rows": len(table.rows)})
    report = {"format": fmt, "tables": written, "invalid": collection.invalid,
              "hidden": {"count": len(collection.hidden), "values": collection.hidden},
              "skipped": collection.skipped}
    _write_atomically(out_dir / REPORT_FILE, lambda target: target.write_text(
        json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"))
    return report


def file_names(schemes: List[str]) -> Dict[str, str]:
    """A file name per scheme: unsafe characters become ``_``; a clash gets ``-2``, ``-3``, ..."""
    names: Dict[str, str] = {}
    used = set()
    for scheme in schemes:
        base = re.sub(r"[^\w.-]", "_", scheme).lstrip(".") or "scheme"
        name, counter = base, 2
        while name.lower() in used:
            name, counter = f"{base}-{counter}", counter + 1
        used.add(name.lower())
        names[scheme] = name
    return names


def _write_csv(table: SchemeTable, path: Path) -> None:
    frame = table.frame().astype(object)
    frame = frame.map(lambda cell: json.dumps(cell, ensure_ascii=False) if isinstance(cell, (list, dict)) else cell)
    frame.to_csv(path, index=False)


def _write_jsonl(table: SchemeTable, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for row in table.rows:
            handle.write(json.dumps({column: row.get(column) for column in table.columns}, ensure_ascii=False) + "\n")


def _write_parquet(table: SchemeTable, path: Path) -> None:
    table.frame().to_parquet(path, index=False)


WRITERS: Dict[str, Callable[[SchemeTable, Path], None]] = {
    "csv": _write_csv, "jsonl": _write_jsonl, "parquet": _write_parquet}


def _write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    staged = path.parent / f".{path.name}.{uuid.uuid4().hex}.tmp"
    try:
        write(staged)
        os.replace(staged, path)
    finally:
        staged.unlink(missing_ok=True)


def _require_pyarrow() -> None:
    if importlib.util.find_spec("pyarrow") is None:
        raise ExportError("--format parquet needs pyarrow: pip install pyarrow (or export --format csv / jsonl)")
