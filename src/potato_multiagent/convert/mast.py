"""MAST / MAD (Cemri et al., "Why Do Multi-Agent LLM Systems Fail?"): labelled multi-agent traces.

Two record layouts, one record each:

- ``MAD_human_labelled_dataset.json``: ``{round, mas_name, benchmark_name, trace_id, trace,
  annotations}``; ``trace`` is JSON text (an object) or the log text itself; ``annotations`` list
  each failure mode (``"1.5 Unaware of stopping conditions\\n\\n<definition>"``) with every
  annotator's mark; ``round`` says which taxonomy version (mode names and codes) they use.
- ``MAD_full_dataset.json``: ``{mas_name, llm_name, benchmark_name, trace_id, trace: {key, index,
  trajectory}, mast_annotation: {code: 1|0|null}}``, ``trajectory`` being text.

What a trace holds becomes the steps:

- a ``trajectory`` list of ``{name, role, content}`` messages (AG2), or text holding such a list as
  JSON or as Python dict literals one after the other: each message is one step, as it is;
- a text log: split at the speaker markers its system writes. MetaGPT writes one log line per
  action, ``2025-01-17 11:40:27.872 | INFO     | module:func:line - Alice(SimpleCoder): to do ...``;
  each such line starts a step of ``agent`` Alice (``agent_role`` SimpleCoder, ``time``), whose
  text runs to the next log line. Other log lines start a step with no agent.
- a text log with no marker this converter knows: one step holding the whole text, with a warning.

Ground truth goes to gold, never into the record: the failure modes (``failure_modes``: the modes
a majority marked, by name without the code, which MAD renumbers between rounds;
``failure_mode_votes``; or ``mast_annotation`` as it is with ``failure_modes`` its codes marked 1),
the ``round``, the labellers' ``note``, ``other_data`` (the answer and whether it was correct), and
every source field this converter does not place (``other_fields``), so nothing is dropped.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from .sources import Converted, ConvertError, Item, each_item, json_kind

SUMMARY = "MAST/MAD records (human-labelled and full): AG2 trajectories and MetaGPT logs -> steps; labels -> gold"

_MODE_CODE = re.compile(r"^\d+(?:\.\d+)*\s+")
RECORD_CONTEXT = ("mas_name", "benchmark_name", "llm_name", "trace_id")
"""Record fields copied as they are (they say what ran, not how it went)."""
RECORD_GOLD = ("round",)
TRACE_CONTEXT = ("instance_id", "key", "index", "run_id", "timestamp", "cost", "log_file")
TRACE_GOLD = ("note", "other_data")
TRACE_TASK = ("problem_statement", "prompt")
TRACE_STEPS = ("trajectory", "content")

METAGPT_LINE = re.compile(
    r"(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) \| (?P<level>[A-Z]+)\s*\| (?P<where>\S+) - "
    r"(?:(?P<name>[^\s()|:]+)\((?P<role>[^()\n]*)\): )?(?P<text>.*)")
"""One MetaGPT (loguru) log line; a speaker's line names ``Name(Role):`` after the location."""


def convert_file(path: Path, items: List[Item]) -> Iterator[Union[Converted, ConvertError]]:
    def convert_one(item: Item, position: int) -> Converted:
        return convert_record(item, path.stem if len(items) == 1 else f"{path.stem}-{position}")
    return each_item(items, convert_one)


def convert_record(item: Item, default_id: str) -> Converted:
    value = item.value
    if not isinstance(value, dict):
        item.require("trace", dict, "a MAD record (an object)")
    trace = _trace(item)
    record: Dict[str, Any] = {"id": _record_id(value, default_id)}
    record.update({key: value[key] for key in RECORD_CONTEXT if key in value})
    record.update({key: trace[key] for key in TRACE_CONTEXT if key in trace})
    task = next((trace[key] for key in TRACE_TASK if key in trace), None)
    if task is not None:
        record["task"] = "\n".join(map(str, task)) if isinstance(task, list) else task
    steps, warning = _steps(item, trace)
    record["steps"] = steps
    warnings = (f"{item.path}:{item.line}: trace: {warning}",) if warning else ()
    return Converted(record=record, gold=_gold(item, trace), item=item, warnings=warnings)


def _trace(item: Item) -> dict:
    """The trace as an object: JSON text is read; any other text is the log itself (``content``)."""
    raw = item.require("trace", (str, dict), "the trace (a string or an object)")
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw)
    except ValueError:
        return {"content": raw}
    if isinstance(parsed, dict):
        return parsed
    return {"trajectory": parsed} if isinstance(parsed, list) else {"content": raw}


def _steps(item: Item, trace: dict) -> Tuple[List[Any], Optional[str]]:
    """The trace's steps, and a warning when the text could only be kept as one step."""
    source = next((key for key in TRACE_STEPS if key in trace), None)
    if source is None:
        raise item.error("trace", "holds no trajectory: expected 'trajectory' (messages or log text) "
                                  "or 'content' (log text)")
    steps = trace[source]
    if isinstance(steps, list):
        return steps, None
    if not isinstance(steps, str):
        raise item.error(f"trace.{source}", f"expected a list of messages or log text, found {json_kind(steps)}")
    messages = _messages_in_text(steps)
    if messages is not None:
        return messages, None
    logged = _metagpt_steps(steps)
    if logged is not None:
        return logged, None
    system = item.value.get("mas_name") or "this system"
    return [{"content": steps}], (f"no speaker marker known for a {system} log: the whole log is one step "
                                  f"(known: AG2 messages, MetaGPT log lines)")


def _messages_in_text(text: str) -> Optional[List[dict]]:
    """Messages written as a JSON list, or as Python dict literals one after another (MAD's AG2 text)."""
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            return None
        return parsed if isinstance(parsed, list) and all(isinstance(m, dict) for m in parsed) and parsed else None
    if stripped.startswith("{"):
        return _dict_literals(stripped)
    return None


def _dict_literals(text: str) -> Optional[List[dict]]:
    """``{...}{...}`` read with Python's own tokenizer (braces inside strings do not count)."""
    offsets = _line_offsets(text)
    messages, depth, start = [], 0, None
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.OP or token.string not in "{}":
                continue
            position = offsets[token.start[0] - 1] + token.start[1]
            if token.string == "{":
                start = position if depth == 0 else start
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    message = ast.literal_eval(text[start:position + 1])
                    if not isinstance(message, dict) or not ({"content", "name", "role"} & set(message)):
                        return None
                    messages.append(message)
    except (tokenize.TokenError, SyntaxError, ValueError, IndentationError):
        return None
    return messages or None


def _line_offsets(text: str) -> List[int]:
    offsets, total = [], 0
    for line in io.StringIO(text):
        offsets.append(total)
        total += len(line)
    return offsets + [total]


def _metagpt_steps(text: str) -> Optional[List[dict]]:
    """A MetaGPT log split at its log lines; None unless some line names a speaker."""
    steps: List[dict] = []
    lines: List[str] = []
    for line in text.split("\n"):
        match = METAGPT_LINE.fullmatch(line.rstrip("\r"))
        if match is None:
            lines.append(line)
            continue
        _close(steps, lines)
        step = {"time": match["time"]}
        if match["name"]:
            step.update({"agent": match["name"], "agent_role": match["role"]})
        steps.append(step)
        lines = [match["text"]]
    _close(steps, lines)
    if not any("agent" in step for step in steps):
        return None
    return steps


def _close(steps: List[dict], lines: List[str]) -> None:
    """The text gathered so far ends the open step (or, before any log line, is a step of its own)."""
    text = "\n".join(lines).strip("\n")
    if not steps:
        if text.strip():
            steps.append({"content": text})
        return
    steps[-1]["content"] = text


def _record_id(value: dict, default_id: str) -> str:
    names = ["mas_name", "benchmark_name", "llm_name", "trace_id"]
    parts = [value.get(name) for name in names if name != "llm_name" or value.get("llm_name") is not None]
    if all(isinstance(part, (str, int)) and not isinstance(part, bool) for part in parts):
        return "-".join(str(part) for part in parts)
    return default_id


def _gold(item: Item, trace: dict) -> dict:
    value = item.value
    gold: Dict[str, Any] = {}
    if isinstance(value.get("annotations"), list):
        gold.update(_votes(value["annotations"]))
    if isinstance(value.get("mast_annotation"), dict):
        marks = value["mast_annotation"]
        gold["failure_modes"] = [code for code, mark in marks.items() if mark == 1]
        gold["mast_annotation"] = marks
    gold.update({key: value[key] for key in RECORD_GOLD if key in value})
    gold.update({key: trace[key] for key in TRACE_GOLD if key in trace})
    others = _other_fields(value, trace)
    if others:
        gold["other_fields"] = others
    return gold


def _votes(annotations: List[Any]) -> dict:
    """Per mode (by name, its code dropped), every annotator's mark; the modes a majority marked."""
    votes: Dict[str, Dict[str, bool]] = {}
    for entry in annotations:
        if isinstance(entry, dict) and isinstance(entry.get("failure mode"), str):
            name = _MODE_CODE.sub("", entry["failure mode"].strip().splitlines()[0], count=1).strip()
            votes[name] = {key: mark for key, mark in entry.items() if isinstance(mark, bool)}
    majority = [name for name, marks in votes.items() if marks and sum(marks.values()) * 2 > len(marks)]
    return {"failure_modes": majority, "failure_mode_votes": votes}


def _other_fields(value: dict, trace: dict) -> dict:
    """Source fields placed nowhere else, so that nothing is dropped without a word."""
    placed = set(RECORD_CONTEXT + RECORD_GOLD) | {"trace", "annotations", "mast_annotation"}
    others = {key: field for key, field in value.items() if key not in placed}
    in_trace = set(TRACE_CONTEXT + TRACE_GOLD + TRACE_TASK + TRACE_STEPS)
    steps_from = next((key for key in TRACE_STEPS if key in trace), None)
    for key, field in trace.items():
        if key not in in_trace or (key in TRACE_STEPS and key != steps_from) or \
                (key in TRACE_TASK and key != next(k for k in TRACE_TASK if k in trace)):
            others[f"trace.{key}"] = field
    return others
