"""Who&When (Zhang et al., ICML 2025): failed AG2 and Magentic-One runs with failure attribution.

A run is ``{question, ground_truth, history: [...], mistake_agent, mistake_step, mistake_reason,
...}``. ``history`` becomes ``steps`` unchanged (AG2 steps name their agent in ``name``,
Magentic-One steps in ``role`` with qualifiers; the derivation reads both), so ``mistake_step``,
a 0-based index into ``history``, stays a valid step index. The attribution, the question's
``ground_truth`` answer and every other field not copied into the record (``is_correct``,
``mistake_type``, ``labels``, ...) go to gold as they are, never into the record and never
dropped. The record's id is ``<folder>-<file stem>`` (``Hand-Crafted-12``), since both subsets
number their files from 1.

Who&When's labels are judgements, not lookups: in a few runs the agent acting at
``mistake_step`` is not ``mistake_agent``. Such a run converts, with a warning naming it, so a
task author knows the label convention before comparing annotators with gold.

Labels are optional: a user's own runs dumped in this shape without ``mistake_*`` fields (runs
nobody has labelled yet) convert with no gold; a label that is there must be well formed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, List, Optional, Union

from ..trace import derive
from .sources import Converted, ConvertError, Item, each_item

SUMMARY = "Who&When runs (both subsets): history -> steps; mistake_agent/step/reason -> gold"

CONTEXT_FIELDS = ("question", "question_ID", "level", "system_prompt")
"""Run fields copied into the record; every other field but ``history`` goes to gold."""
ATTRIBUTION_FIELDS = ("mistake_agent", "mistake_step", "mistake_reason")


def convert_file(path: Path, items: List[Item]) -> Iterator[Union[Converted, ConvertError]]:
    def convert_one(item: Item, position: int) -> Converted:
        single = f"{path.parent.name}-{path.stem}"
        return convert_run(item, single if len(items) == 1 else f"{single}-{position}")
    return each_item(items, convert_one)


def convert_run(item: Item, record_id: str) -> Converted:
    history = item.require("history", list, "the run's steps (a list)")
    record = {"id": record_id, **{key: item.value[key] for key in CONTEXT_FIELDS if key in item.value}}
    record["steps"] = history
    gold = _gold(item, len(history))
    return Converted(record=record, gold=gold, item=item, warnings=_label_warnings(item, record, gold))


def _gold(item: Item, step_count: int) -> Optional[dict]:
    """The attribution and every field not copied into the record; None when there is neither."""
    gold: dict = {}
    if "mistake_agent" in item.value:
        gold["mistake_agent"] = item.require("mistake_agent", str, "the responsible agent's name")
    if "mistake_step" in item.value:
        gold["mistake_step"] = _step_index(item, step_count)
    if "mistake_reason" in item.value:
        gold["mistake_reason"] = item.require("mistake_reason", str, "the reason (a string)")
    placed = set(CONTEXT_FIELDS) | set(ATTRIBUTION_FIELDS) | {"history"}
    gold.update({key: value for key, value in item.value.items() if key not in placed})
    return gold or None


def _label_warnings(item: Item, record: dict, gold: Optional[dict]) -> tuple:
    """A warning when the gold step is taken by another agent than the gold agent (as the derivation reads it)."""
    if not gold or "mistake_step" not in gold or "mistake_agent" not in gold:
        return ()
    step = gold["mistake_step"]
    acting = derive(record).steps[step].agent
    if acting == gold["mistake_agent"]:
        return ()
    return (f"{item.path}:{item.line}: mistake_agent: {record['id']} names {gold['mistake_agent']!r} but gold "
            f"step {step} (#{step + 1}) is taken by {acting!r}: Who&When labels the responsible agent, "
            f"which need not be the one acting at the decisive step",)


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
