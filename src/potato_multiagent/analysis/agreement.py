"""``potato-multiagent agreement CONFIG [--gold FILE] [--within K]``: figures per scheme.

Every figure carries the number of items and of annotators behind it, so a reader can tell an
alpha over 3 items from one over 300. A figure that cannot be computed has no value and a note
saying why (no item judged twice, one annotator, every judgement the same value).
"""

from __future__ import annotations

from typing import List, Mapping, Optional

import pandas as pd

from .collect import Collection
from .turn_tags import turn_tag_figures

COLUMNS = ("scheme", "type", "measure", "annotator", "value", "items", "annotators", "note")


def agreement_frame(collection: Collection, gold: Optional[Mapping[str, dict]] = None,
                    within: int = 1) -> pd.DataFrame:
    """One row per figure, schemes in config order."""
    rows = []
    for name, table in collection.tables.items():
        for figure in table.adapter.agreement(table.judgements(), table.config, gold, within):
            rows.append({"scheme": name, "type": table.scheme.type_name(), "measure": figure.measure,
                         "annotator": figure.annotator, "value": figure.value, "items": figure.items,
                         "annotators": figure.annotators, "note": figure.note})
    for name, table in collection.turn_tags.items():   # per mode and overall (analysis/turn_tags.py)
        for _, figure in turn_tag_figures(table):
            rows.append({"scheme": name, "type": table.type_name(), "measure": figure.measure, "annotator": None,
                         "value": figure.value, "items": figure.items, "annotators": figure.annotators,
                         "note": figure.note})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def agreement_lines(frame: pd.DataFrame, collection: Collection) -> List[str]:
    """The figures as text: a heading per scheme, one line per figure, then what was left out."""
    lines: List[str] = []
    for scheme, figures in frame.groupby("scheme", sort=False):
        lines.append(f"{scheme} ({figures['type'].iloc[0]})")
        for figure in figures.itertuples():
            label = figure.measure if pd.isna(figure.annotator) else f"{figure.measure} [{figure.annotator}]"
            value = "n/a" if pd.isna(figure.value) else f"{figure.value:.3f}"
            note = f"  ({figure.note})" if figure.note else ""
            lines.append(f"  {label:<44} {value:>6}   items {figure.items}, annotators {figure.annotators}{note}")
    lines.extend(left_out_lines(collection))
    return lines


def left_out_lines(collection: Collection) -> List[str]:
    lines = [f"skipped {reason}" for reason in collection.skipped]
    if collection.hidden:
        lines.append(f"left out: {len(collection.hidden)} value(s) saved while display_logic hid their scheme")
    if collection.invalid:
        lines.append(f"left out: {len(collection.invalid)} invalid value(s) (potato-multiagent check lists them)")
    return lines
