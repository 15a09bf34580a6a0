"""MAST / MAD (Cemri et al., "Why Do Multi-Agent LLM Systems Fail?"): labelled multi-agent traces.

Record layouts, one record each:

- ``MAD_human_labelled_dataset.json``: ``{round, mas_name, benchmark_name, trace_id, trace,
  annotations}``; ``trace`` is JSON text (an object) or the log text itself; ``annotations`` list
  each failure mode (``"1.5 Unaware of stopping conditions\\n\\n<definition>"``) with every
  annotator's mark; ``round`` says which taxonomy version (mode names and codes) they use.
- ``MAD_full_dataset.json``: ``{mas_name, llm_name, benchmark_name, trace_id, trace: {key, index,
  trajectory}, mast_annotation: {code: 1|0|null}}``, ``trajectory`` being text (a system's log, the
  MAST authors' YAML-like flattening of a JSON trace, or AG2 messages).
- a bare log (a ``.log``/``.txt`` file, one record named after the file): its system is found
  from its markers.

The steps: a ``trajectory`` list of messages is one step per message, as it is; a list of log
lines is joined; text is split at the markers of its system (:mod:`.mast_logs`, one module per
system: AG2, MetaGPT, ChatDev, HyperAgent, AppWorld, Magentic-One, OpenManus), the systems the
record names first. A text no system's layout matches is one step, with a warning naming the
record and the system, never split line by line.

Ground truth goes to gold, never into the record: the MAST labels under ``mast`` (:func:`mast_gold`,
by the final taxonomy's codes: MAD renumbers its codes between rounds, so the modes of the human
file are matched by name), the ``round``, the labellers' ``note``, ``other_data`` (the answer and
whether it was correct), AppWorld's ``evaluation``, and every source field this converter does not
place (``other_fields``), so nothing is dropped.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from .mast_logs import SYSTEMS, LogSplit, named_systems, split_log
from .mast_logs.yaml_text import parse as parse_flattened
from .sources import Converted, ConvertError, Item, each_item, json_kind

SUMMARY = ("MAST/MAD records (human-labelled, full, bare logs): each system's log split at its own "
           "markers; MAST labels -> gold")
TEXT_SUFFIXES = (".log", ".txt")
"""A log file is one record (a bare log: its system found from its markers)."""

RECORD_CONTEXT = ("mas_name", "benchmark_name", "llm_name", "trace_id")
"""Record fields copied as they are (they say what ran, not how it went)."""
RECORD_GOLD = ("round",)
TRACE_CONTEXT = ("instance_id", "key", "index", "run_id", "timestamp", "cost", "log_file")
TRACE_GOLD = ("note", "other_data")
TRACE_TASK = ("problem_statement", "prompt")
TRACE_STEPS = ("trajectory", "content")

MAST_MODES = {
    "1.1": "Disobey Task Specification", "1.2": "Disobey Role Specification", "1.3": "Step Repetition",
    "1.4": "Loss of Conversation History", "1.5": "Unaware of Termination Conditions",
    "2.1": "Conversation Reset", "2.2": "Fail to Ask for Clarification", "2.3": "Task Derailment",
    "2.4": "Information Withholding", "2.5": "Ignored Other Agent's Input", "2.6": "Reasoning-Action Mismatch",
    "3.1": "Premature Termination", "3.2": "No or Incomplete Verification", "3.3": "Incorrect Verification",
}
"""MAST's 14 failure modes by code, as the human file's last round ("Generlazability") names them."""
MODE_BY_NAME = {
    # the final taxonomy, as written in the human file's last round (its spelling too)
    **{name: code for code, name in MAST_MODES.items()},
    "Information Witholding": "2.4", "Ignored Other Agents' Input": "2.5",
    # rounds 1 and 2 (18 and 17 modes), by the final mode each one became
    "Poor task constraint compliance": "1.1",
    "Disobey role specification": "1.2",
    "Step repetition": "1.3",
    "Unaware of stopping conditions": "1.5",
    "Conversation reset": "2.1",
    "Fail to elicit clarification": "2.2",
    "Derailment from task": "2.3",
    "Withholding relevant information": "2.4",
    "Ignoring suggestions from agents": "2.5",
    "Inconsistency between reasoning and action": "2.6",
    "Ill specified termination condition leading to premature termination": "3.1",
    "Lack of result verification": "3.2",
    "Lack of critical verification": "3.3",
}
"""MAD's mode names, every round, to the final code. Rounds 1 and 2 had five modes the final
taxonomy dropped (``Undetected conversation ambiguities and contradictions``, ``Unbatched
repetitive execution``, ``Backtracking interruption``, ``Disagreement induced inaction``,
``Waiting for known information``): they stay in gold under ``unmapped``. The verification pair is
matched by definition: a result never checked is "no or incomplete verification", a check that is
not critical "incorrect verification"."""
_MODE_KEY = {re.sub(r"[^a-z0-9]", "", name.lower()): code for name, code in MODE_BY_NAME.items()}
_CODE_PREFIX = re.compile(r"^\d+(?:\.\d+)*\s+")


def convert_file(path: Path, items: List[Item]) -> Iterator[Union[Converted, ConvertError]]:
    def convert_one(item: Item, position: int) -> Converted:
        return convert_record(item, path.stem if len(items) == 1 else f"{path.stem}-{position}")
    return each_item(items, convert_one)


def convert_record(item: Item, default_id: str) -> Converted:
    value = item.value if isinstance(item.value, dict) else {"trace": item.value}
    if not isinstance(item.value, (dict, str)):
        item.require("trace", dict, "a MAD record (an object) or a log")
    trace = _trace(item, value)
    record: Dict[str, Any] = {"id": _record_id(value, default_id)}
    record.update({key: value[key] for key in RECORD_CONTEXT if key in value})
    record.update({key: trace[key] for key in TRACE_CONTEXT if key in trace})
    task = next((trace[key] for key in TRACE_TASK if key in trace), None)
    if task is not None:
        record["task"] = "\n".join(map(str, task)) if isinstance(task, list) else task
    named = named_systems([value.get("mas_name"), value.get("benchmark_name")])
    steps, split, system = _steps(item, trace, named)
    gold = _gold(value, trace)
    warnings: Tuple[str, ...] = ()
    fallback = None
    if split is not None:
        record["system"] = system
        for key, field_value in split.context.items():
            record.setdefault(key, field_value)
        gold.update(split.gold)
        if split.note():
            print(f"note: {item.path}:{item.line}: {record['id']}: not steps, left out: {split.note()}",
                  file=sys.stderr)
    elif system is not None:
        record["system"] = system
    if steps is None:
        if named:
            what = f"no {' or '.join(named)} layout found in its text"
        elif isinstance(value.get("mas_name"), str):
            what = f"{value['mas_name']!r} is no system this converter knows, and no known layout is in its text"
        else:
            what = "no known layout found in its text"
        fallback = f"{what} (tried: {', '.join(SYSTEMS)})"
        steps = [{"content": trace[next(key for key in TRACE_STEPS if key in trace)]}]
        warnings = (f"{item.path}:{item.line}: trace: {record['id']}: {fallback}: the whole log is one step",)
    record["steps"] = steps
    return Converted(record=record, gold=gold or None, item=item, warnings=warnings,
                     layout=split.layout if split is not None else None, fallback=fallback)


def _trace(item: Item, value: dict) -> dict:
    """The trace as an object: JSON text is read, the YAML-like flattening too; any other text is
    the log itself (``content``)."""
    raw = value.get("trace")
    if not isinstance(raw, (str, dict)):
        item.require("trace", (str, dict), "the trace (a string or an object)")
    if isinstance(raw, dict):
        return _unflattened(raw)
    try:
        parsed = json.loads(raw)
    except ValueError:
        return parse_flattened(raw) or {"content": raw}
    if isinstance(parsed, dict):
        return _unflattened(parsed)
    return {"trajectory": parsed} if isinstance(parsed, list) else {"content": raw}


def _unflattened(trace: dict) -> dict:
    """A full-dataset trace whose ``trajectory`` text is the YAML-like flattening: its fields."""
    text = trace.get("trajectory")
    flattened = parse_flattened(text) if isinstance(text, str) else None
    if flattened is None:
        return trace
    return {**{key: field for key, field in trace.items() if key != "trajectory"}, **flattened}


def _steps(item: Item, trace: dict, named: List[str]) -> Tuple[Optional[List[Any]], Optional[LogSplit], Optional[str]]:
    """``(steps, split, system)``: the trace's steps (None when its text matched no layout); a list
    of messages is its own split (``AG2 messages``)."""
    source = next((key for key in TRACE_STEPS if key in trace), None)
    if source is None:
        raise item.error("trace", "holds no trajectory: expected 'trajectory' (messages or log text) "
                                  "or 'content' (log text)")
    steps = trace[source]
    if isinstance(steps, list) and steps and all(isinstance(line, str) for line in steps):
        steps = "\n".join(line.rstrip("\r") for line in steps)  # a log kept as a list of lines
    if isinstance(steps, list):
        system = named[0] if named else None
        return steps, LogSplit(layout=f"{system or 'a list of'} messages", steps=steps), system
    if not isinstance(steps, str):
        raise item.error(f"trace.{source}", f"expected a list of messages or log text, found {json_kind(steps)}")
    system, split = split_log(steps, named)
    if split is None:
        return None, None, None
    return split.steps, split, system


def _record_id(value: dict, default_id: str) -> str:
    names = ["mas_name", "benchmark_name", "llm_name", "trace_id"]
    parts = [value.get(name) for name in names if name != "llm_name" or value.get("llm_name") is not None]
    if all(isinstance(part, (str, int)) and not isinstance(part, bool) for part in parts):
        return "-".join(str(part) for part in parts)
    return default_id


def _gold(value: dict, trace: dict) -> dict:
    gold: Dict[str, Any] = {}
    labels = mast_gold(value)
    if labels is not None:
        gold["mast"] = labels
    gold.update({key: value[key] for key in RECORD_GOLD if key in value})
    gold.update({key: trace[key] for key in TRACE_GOLD if key in trace})
    others = _other_fields(value, trace)
    if others:
        gold["other_fields"] = others
    return gold


def mast_gold(value: dict) -> Optional[dict]:
    """A MAD record's MAST labels, by the final taxonomy's codes (:data:`MAST_MODES`).

    ``{"marked": [codes], "votes": {code: {annotator: bool}}, "written": {code: the source's own
    "1.5 Unaware of stopping conditions"}, "unmapped": [{"written", "votes", "marked"}]}`` for the
    human file, where a mode is marked when a majority of the annotators who marked it either way
    did (a vote that is not true or false, such as NaN, is no vote); ``{"marked": [codes],
    "annotation": {code: 1|0|null}}`` for the full file (whose codes are the final taxonomy's).
    None when the record carries neither.
    """
    if isinstance(value.get("annotations"), list):
        return _human_labels(value["annotations"])
    if isinstance(value.get("mast_annotation"), dict):
        marks = value["mast_annotation"]
        return {"marked": sorted(code for code, mark in marks.items() if mark == 1), "annotation": marks}
    return None


def _human_labels(annotations: List[Any]) -> dict:
    labels: Dict[str, Any] = {"marked": [], "votes": {}, "written": {}, "unmapped": []}
    for entry in annotations:
        if not (isinstance(entry, dict) and isinstance(entry.get("failure mode"), str)):
            continue
        written = entry["failure mode"].strip().splitlines()[0].strip()
        votes = {key: mark for key, mark in entry.items() if isinstance(mark, bool)}
        marked = bool(votes) and sum(votes.values()) * 2 > len(votes)
        code = _MODE_KEY.get(re.sub(r"[^a-z0-9]", "", _CODE_PREFIX.sub("", written, count=1).lower()))
        if code is None or code in labels["votes"]:
            labels["unmapped"].append({"written": written, "votes": votes, "marked": marked})
            continue
        labels["votes"][code], labels["written"][code] = votes, written
        if marked:
            labels["marked"].append(code)
    labels["marked"].sort()
    return labels


def _other_fields(value: dict, trace: dict) -> dict:
    """Source fields placed nowhere else, so that nothing is dropped without a word."""
    placed = set(RECORD_CONTEXT + RECORD_GOLD) | {"trace", "annotations", "mast_annotation"}
    others = {key: field for key, field in value.items() if key not in placed}
    in_trace = set(TRACE_CONTEXT + TRACE_GOLD + TRACE_TASK + TRACE_STEPS)
    steps_from = next((key for key in TRACE_STEPS if key in trace), None)
    task_from = next((key for key in TRACE_TASK if key in trace), None)
    for key, field in trace.items():
        if key not in in_trace or (key in TRACE_STEPS and key != steps_from) or (key in TRACE_TASK and key != task_from):
            others[f"trace.{key}"] = field
    return others
