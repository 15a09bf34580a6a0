"""``potato-multiagent agreement CONFIG [--gold FILE] [--within K]``: figures per scheme.

Every figure carries the number of items and of annotators behind it, so a reader can tell an
alpha over 3 items from one over 300. A figure that cannot be computed has no value (printed
n/a) and a note saying why (no item judged twice, one item for a chance-corrected figure, every
judgement the same value). Values an annotator set in bulk are counted per scheme, and left out
with ``exclude_bulk``.
"""

from __future__ import annotations

from typing import List, Mapping, Optional, Tuple

import pandas as pd

from ..types._base.adapter import Judgements
from .collect import Collection, SchemeTable
from .timing import time_figures

COLUMNS = ("scheme", "type", "measure", "annotator", "value", "items", "annotators", "note", "bulk",
           "bulk_left_out")


def agreement_frame(collection: Collection, gold: Optional[Mapping[str, dict]] = None,
                    within: int = 1, exclude_bulk: bool = False) -> pd.DataFrame:
    """One row per figure, schemes in config order. ``bulk`` is how many of the scheme's values
    were set in bulk (empty for a type without a bulk action); with ``exclude_bulk`` they are left
    out of its figures (``bulk_left_out``)."""
    rows = []
    for name, table in collection.tables.items():
        judgements, bulk = _judgements(table, exclude_bulk)
        for figure in table.adapter.agreement(judgements, table.config, gold, within):
            rows.append({"scheme": name, "type": table.type_name, "measure": figure.measure,
                         "annotator": figure.annotator, "value": figure.value, "items": figure.items,
                         "annotators": figure.annotators, "note": figure.note, "bulk": bulk,
                         "bulk_left_out": None if bulk is None else bool(exclude_bulk and bulk)})
    if collection.times is not None:
        for figure in time_figures(collection.times):
            rows.append({"scheme": None, "type": "time", "measure": figure.measure, "annotator": figure.annotator,
                         "value": figure.value, "items": figure.items, "annotators": figure.annotators,
                         "note": figure.note, "bulk": None, "bulk_left_out": None})
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame["bulk"] = frame["bulk"].astype("Int64")
    return frame


def _judgements(table: SchemeTable, exclude_bulk: bool) -> Tuple[Judgements, Optional[int]]:
    """The table's judgements (without bulk-set rows when asked) and how many rows were set in bulk."""
    judgements = table.judgements()
    column = table.adapter.bulk_column
    if column is None:
        return judgements, None
    in_bulk = judgements.rows[column].fillna(False).astype(bool)
    if exclude_bulk:
        judgements = Judgements(rows=judgements.rows[~in_bulk].reset_index(drop=True), judges=judgements.judges)
    return judgements, int(in_bulk.sum())


def agreement_lines(frame: pd.DataFrame, collection: Collection) -> List[str]:
    """The figures as text: a heading per scheme, one line per figure, then what was left out."""
    lines: List[str] = []
    for scheme, figures in frame.groupby("scheme", sort=False, dropna=False):
        if pd.isna(scheme):
            lines.extend(time_lines(figures))
            continue
        lines.append(f"{scheme} ({figures['type'].iloc[0]})")
        bulk, total = figures["bulk"].iloc[0], len(collection.tables[scheme].rows)
        if not pd.isna(bulk) and total:
            lines.append(f"  {int(bulk)} of {total} value(s) were set in bulk: "
                         + ("left out (--exclude-bulk)" if figures["bulk_left_out"].iloc[0]
                            else "kept (--exclude-bulk leaves them out)"))
        for figure in figures.itertuples():
            label = figure.measure if pd.isna(figure.annotator) else f"{figure.measure} [{figure.annotator}]"
            value = "n/a" if pd.isna(figure.value) else f"{figure.value:.3f}"
            note = f"  ({figure.note})" if figure.note else ""
            lines.append(f"  {label:<44} {value:>6}   items {figure.items}, annotators {figure.annotators}{note}")
    lines.extend(left_out_lines(collection))
    return lines


def time_lines(figures: pd.DataFrame) -> List[str]:
    """The minutes per run: a summary line over everyone, then one line per annotator."""
    lines = ["time per run, median minutes (Potato's active time: the gaps between page events, each at most 5 minutes)"]
    for figure in figures.itertuples():
        who = "everyone" if pd.isna(figure.annotator) else figure.annotator
        value = "   n/a" if pd.isna(figure.value) else f"{figure.value:6.1f}"
        whom = f", annotators {figure.annotators}" if pd.isna(figure.annotator) else ""
        note = f"  ({figure.note})" if figure.note else ""
        lines.append(f"  {who:<44} {value} min   runs {figure.items}{whom}{note}")
    return lines


def left_out_lines(collection: Collection) -> List[str]:
    lines = [f"skipped {reason}" for reason in collection.skipped]
    if collection.hidden:
        lines.append(f"left out: {len(collection.hidden)} value(s) saved while display_logic hid their scheme")
    stale = len(collection.stale)
    if stale:
        lines.append(f"left out: {stale} value(s) with stale step references (potato-multiagent check lists them; "
                     "migrate-values --rebase or the page's Re-point mends them)")
    if len(collection.invalid) > stale:
        lines.append(f"left out: {len(collection.invalid) - stale} invalid value(s) (potato-multiagent check lists them)")
    return lines
