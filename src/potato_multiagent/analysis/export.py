"""``potato-multiagent export CONFIG --format csv|jsonl|parquet --out DIR``.

One tidy table per scheme (``DIR/<scheme>.<ext>``), one row per judged item, and ``report.json``
beside them: the files written, every invalid value with its problems (never in a table), the
values left out because ``display_logic`` hid their scheme, and schemes that could not be
exported. Each file is written to a temporary name and renamed, so none is ever half-written.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Callable, Dict, List

import pandas as pd

from ..files import PathError, why_not, write_whole
from .collect import Collection
from .timing import TABLE as TIME_TABLE

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
    _make_folder(out_dir)
    frames = [(name, table, table_name, frame) for name, table in collection.tables.items()
              for table_name, frame in table.frames().items()]
    names = file_names([table_name for _, _, table_name, _ in frames] + [TIME_TABLE])
    written = []
    for name, table, table_name, frame in frames:
        path = out_dir / f"{names[table_name]}.{fmt}"
        write_whole(path, lambda target, frame=frame: WRITERS[fmt](frame, target))
        written.append({"scheme": name, "table": table_name, "type": table.type_name, "file": path.name,
                        "rows": len(frame), **_bulk_count(table.adapter.bulk_column, frame)})
    if collection.times is not None:
        path = out_dir / f"{names[TIME_TABLE]}.{fmt}"
        write_whole(path, lambda target: WRITERS[fmt](collection.times, target))
        written.append({"scheme": None, "table": TIME_TABLE, "type": "time", "file": path.name,
                        "rows": len(collection.times)})
    report = {"format": fmt, "tables": written, "invalid": collection.invalid,
              "stale": {"count": len(collection.stale)},
              "hidden": {"count": len(collection.hidden), "values": collection.hidden},
              "skipped": collection.skipped}
    write_whole(out_dir / REPORT_FILE, lambda target: target.write_text(
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


LIST_SEPARATOR = ";"


def csv_cell(cell):
    """A list is its items joined with ``;`` (a CSV cell holds no JSON); anything else as it is."""
    if isinstance(cell, (list, tuple)):
        return LIST_SEPARATOR.join("" if item is None else str(item) for item in cell)
    return cell


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    frame.astype(object).map(csv_cell).to_csv(path, index=False)


def _write_jsonl(frame: pd.DataFrame, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for row in frame.astype(object).where(frame.notna(), None).to_dict("records"):
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    frame.to_parquet(path, index=False)


WRITERS: Dict[str, Callable[[pd.DataFrame, Path], None]] = {
    "csv": _write_csv, "jsonl": _write_jsonl, "parquet": _write_parquet}


def _bulk_count(column, frame: pd.DataFrame) -> dict:
    """``{"bulk": N}``: how many rows an annotator set in bulk, for a type that has a bulk action."""
    return {} if column is None else {"bulk": int(frame[column].fillna(False).astype(bool).sum())}


def _make_folder(out_dir: Path) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise PathError(out_dir, "is a file; --out names a folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise PathError(out_dir, why_not(error)) from None


def _require_pyarrow() -> None:
    if importlib.util.find_spec("pyarrow") is None:
        raise ExportError("--format parquet needs pyarrow: pip install 'potato-multiagent[parquet]' (or export --format csv / jsonl)")
