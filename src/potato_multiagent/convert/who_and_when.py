"""Who&When (Zhang et al., ICML 2025): failed AG2 and Magentic-One runs with failure attribution.

A run is ``{question, ground_truth, history: [...], mistake_agent, mistake_step, mistake_reason,
...}``. ``history`` becomes ``steps`` unchanged (AG2 steps name their agent in ``name``,
Magentic-One steps in ``role`` with qualifiers; the derivation reads both), so ``mistake_step``,
a 0-based index into ``history``, stays a valid step index. The attribution and the question's
``ground_truth`` answer go to gold, never into the record. The record's id is
``<folder>-<file stem>`` (``Hand-Crafted-12``), since both subsets number their files from 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, List, Union

from .sources import Converted, ConvertError, Item, each_item

SUMMARY = "Who&When runs (both subsets): history -> steps; mistake_agent/step/reason -> gold"

CONTEXT_FIELDS = ("question", "question_ID", "level", "system_prompt")
"""Run fields copied into the record; everything else is ground truth or bookkeeping."""


def convert_file(path: Path, items: List[Item]) -> Iterator[Union[Converted, ConvertError]]:
    def convert_one(item: Item, position: int) -> Converted:
        single = f"{path.parent.name}-{path.stem}"
        return convert_run(item, single if len(items) == 1 else f"{single}-{position}")
    return each_item(items, convert_one)


def convert_run(item: Item, record_id: str) -> Converted:
    history = item.require("history", list, "the run's steps (a list)")
    record = {"id": record_id, **{key: item.value[key] for key in CONTEXT_FIELDS if key in item.value}}
    record["steps"] = history
    return Converted(record=record, gold=_gold(item, len(history)), item=item)


def _gold(item: Item, step_count: int) -> dict:
    agent = item.require("mistake_agent", str, "the responsible agent's name")
    reason = item.require("mistake_reason", str, "the reason (a string)")
    gold = {"mistake_agent": agent, "mistake_step": _step_index(item, step_count), "mistake_reason": reason}
    if "ground_truth" in item.value:
        gold["ground_truth"] = item.value["ground_truth"]
    return gold


def _step_index(item: Item, step_count: int) -> int:
    """``mistake_step`` as an int: Who&When stores it as a string (``"12"``)."""
    raw = item.value.get("mistake_step")
    digits = str(raw) if isinstance(raw, int) and not isinstance(raw, bool) else raw
    if not (isinstance(digits, str) and digits.isascii() and digits.isdigit()):
        raise item.error("mistake_step", f"expected a step index, found {raw!r}")
    step = int(digits)
    if not 0 <= step < step_count:
        raise item.error("mistake_step", f"{step} is not a step of this run (history has {step_count} steps)")
    return step
