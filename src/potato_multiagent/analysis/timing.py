"""Minutes per run: how long each annotator worked on each item, by Potato's own clock.

Potato's page posts interaction events (item loads, saves, navigation, and a content-free activity
mark at most every 15 s while the page is in use) and keeps them per user and item in
``user_state.json``. Its ``active_time_ms`` sums the gaps between events, each capped at five
minutes, so a tab left open over lunch does not count as work. This module reads that figure
(:meth:`Task.item_times`); it measures nothing itself.
"""

from __future__ import annotations

from statistics import median
from typing import Iterable, List, Set, Tuple

import pandas as pd

from ..task import ItemTime
from ..types._base.adapter import INSTANCE
from ..types._base.statistics import USER, Figure

TABLE = "minutes_per_run"
COLUMNS = (INSTANCE, USER, "minutes", "answered")
MEASURE = "minutes per run (median)"


def time_frame(times: Iterable[ItemTime], answered: Set[Tuple[str, str]], order: List[str]) -> pd.DataFrame:
    """One row per (run, annotator) Potato timed: ``minutes`` (two decimals) and ``answered``, whether
    the annotator saved an answer for the run (a run only opened took time but judged nothing)."""
    position = {instance: at for at, instance in enumerate(order)}
    rows = [{INSTANCE: time.instance_id, USER: time.user, "minutes": round(time.active_ms / 60000, 2),
             "answered": (time.instance_id, time.user) in answered}
            for time in times]
    rows.sort(key=lambda row: (position.get(row[INSTANCE], len(position)), row[USER]))
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame.astype({"minutes": "Float64", "answered": "boolean"})


def time_figures(frame: pd.DataFrame) -> List[Figure]:
    """The median minutes per answered run, over everyone and per annotator (``items``: the runs)."""
    answered = frame[frame["answered"].fillna(False).astype(bool)]
    if answered.empty:
        return []
    figures = [Figure(MEASURE, float(median(answered["minutes"])), len(answered), answered[USER].nunique())]
    for user, mine in answered.groupby(USER, sort=True):
        figures.append(Figure(MEASURE, float(median(mine["minutes"])), len(mine), 1, annotator=str(user)))
    return figures
