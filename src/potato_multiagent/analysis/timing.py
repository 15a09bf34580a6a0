"""Minutes per run: how long each annotator worked on each item, by Potato's own clock.

Potato's page posts interaction events (item loads, saves, navigation, and a content-free activity
mark at most every 15 s while the page is in use) every 5 s and on leaving; Potato keeps them per
user and item and writes them to ``user_state.json`` with the user's next save, so the run an
annotator saved last may have none on disk yet. Its ``active_time_ms`` sums the gaps between
events, each capped at five minutes, so a tab left open over lunch does not count as work. This
module reads that figure (:meth:`Task.item_times`); it measures nothing itself, and a run without
a time is a blank with the reason, never a zero.
"""

from __future__ import annotations

from statistics import median
from typing import Iterable, List, Optional, Set, Tuple

import pandas as pd

from ..task import ItemTime
from ..types._base.adapter import INSTANCE
from ..types._base.statistics import USER, Figure

TABLE = "minutes_per_run"
COLUMNS = (INSTANCE, USER, "minutes", "answered", "note")
MEASURE = "minutes per run (median)"
NO_EVENTS = ("no page events saved for this run yet (Potato writes them with the annotator's next save; "
             "a value written without the page has none)")
NO_SPAN = ("the page events saved for this run span no time yet (Potato writes them with the annotator's "
           "next save)")


def time_frame(times: Iterable[ItemTime], answered: Set[Tuple[str, str]], order: List[str]) -> pd.DataFrame:
    """One row per (run, annotator) that Potato timed or that the annotator answered: ``minutes`` (two
    decimals), ``answered`` (whether they saved an answer: a run only opened took time but judged
    nothing) and ``note``, why ``minutes`` is blank. A run only opened with no time to show has no row."""
    position = {instance: at for at, instance in enumerate(order)}
    rows = []
    timed = set()
    for time in times:
        key = (time.instance_id, time.user)
        timed.add(key)
        note = time.problem if time.active_ms is None else "" if time.active_ms else NO_SPAN
        if note and key not in answered and time.active_ms is not None:
            continue   # opened, no time, nothing answered: nothing to report
        rows.append(_row(time.instance_id, time.user, time.active_ms, key in answered, note))
    rows.extend(_row(instance, user, None, True, NO_EVENTS) for instance, user in answered - timed)
    rows.sort(key=lambda row: (position.get(row[INSTANCE], len(position)), row[USER]))
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame.astype({"minutes": "Float64", "answered": "boolean"})


def _row(instance: str, user: str, active_ms: Optional[int], answered: bool, note: str) -> dict:
    return {INSTANCE: instance, USER: user, "minutes": round(active_ms / 60000, 2) if active_ms else None,
            "answered": answered, "note": note}


def time_figures(frame: pd.DataFrame) -> List[Figure]:
    """The median minutes per answered run, over everyone and per annotator (``items``: the runs with
    a time). Answered runs without one are left out and counted in the figure's note; when none has a
    time, the figure has no value and the note says why."""
    answered = frame[frame["answered"].fillna(False).astype(bool)]
    if answered.empty:
        return []
    figures = [_median(answered)]
    for user, mine in answered.groupby(USER, sort=True):
        figures.append(_median(mine, annotator=str(user)))
    return figures


def _median(rows: pd.DataFrame, annotator: Optional[str] = None) -> Figure:
    timed = rows[rows["minutes"].notna()]
    untimed = len(rows) - len(timed)
    note = "" if not untimed else (f"{untimed} answered run(s) without a time left out: "
                                   + "; ".join(sorted(set(rows.loc[rows["minutes"].isna(), "note"]))))
    value = float(median(timed["minutes"])) if len(timed) else None
    return Figure(MEASURE, value, len(timed), timed[USER].nunique(), annotator=annotator, note=note)
