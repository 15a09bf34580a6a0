"""MAST / MAD (Cemri et al., "Why Do Multi-Agent LLM Systems Fail?"): human-labelled traces.

A MAD record is ``{mas_name, benchmark_name, trace_id, trace, annotations}``. Only traces whose
``trace`` holds a structured trajectory convert: a JSON object with a ``trajectory`` list of
``{name, role, content}`` messages (AG2 runs). Raw-text logs (MetaGPT, ChatDev, ...) are refused
with a message saying so: their turns would have to be guessed from log lines.

The record keeps each trajectory message as one step, as it is (a ``content`` list of lines is
shown joined, by the derivation's text rule). The task is the ``problem_statement``. The trace's ``note`` (the labellers' comments) and ``other_data`` (the
answer and whether it was correct) are ground truth and go to gold, with the failure modes:
``failure_modes`` lists the modes a majority of annotators marked, by name (MAD renumbers its
codes between taxonomy versions, so the code is dropped), and ``failure_mode_votes`` each
annotator's mark per mode.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, Iterator, List, Union

from .sources import Converted, ConvertError, Item, each_item

SUMMARY = "MAST/MAD records with a structured trajectory (AG2); raw-text logs are refused"

_MODE_CODE = re.compile(r"^\d+(?:\.\d+)*\s+")


def convert_file(path: Path, items: List[Item]) -> Iterator[Union[Converted, ConvertError]]:
    def convert_one(item: Item, position: int) -> Converted:
        return convert_record(item, path.stem if len(items) == 1 else f"{path.stem}-{position}")
    return each_item(items, convert_one)


def convert_record(item: Item, default_id: str) -> Converted:
    trace = _structured_trace(item)
    record = {"id": _record_id(item.value, default_id)}
    for key in ("mas_name", "benchmark_name"):
        if isinstance(item.value.get(key), str):
            record[key] = item.value[key]
    if isinstance(trace.get("instance_id"), str):
        record["instance_id"] = trace["instance_id"]
    statement = trace.get("problem_statement")
    if statement is not None:
        record["task"] = "\n".join(statement) if isinstance(statement, list) else statement
    record["steps"] = trace["trajectory"]
    return Converted(record=record, gold=_gold(item, trace), item=item)


def _structured_trace(item: Item) -> dict:
    raw = item.require("trace", (str, dict), "the trace (a string or an object)")
    system = item.value.get("mas_name") or "this system"
    refusal = (f"a raw-text log ({system}), not a structured trajectory: only traces holding a "
               f"'trajectory' list of messages (as AG2 runs do) can be converted")
    trace = raw
    if isinstance(raw, str):
        try:
            trace = json.loads(raw)
        except ValueError:
            raise item.error("trace", refusal) from None
    if not isinstance(trace, dict) or not isinstance(trace.get("trajectory"), list):
        raise item.error("trace", refusal)
    return trace


def _record_id(value: dict, default_id: str) -> str:
    parts = [value.get("mas_name"), value.get("benchmark_name"), value.get("trace_id")]
    if all(isinstance(part, (str, int)) and not isinstance(part, bool) for part in parts):
        return "-".join(str(part) for part in parts)
    return default_id


def _gold(item: Item, trace: dict) -> dict:
    votes: Dict[str, Dict[str, bool]] = {}
    for entry in item.value.get("annotations") or []:
        if isinstance(entry, dict) and isinstance(entry.get("failure mode"), str):
            name = _MODE_CODE.sub("", entry["failure mode"].strip().splitlines()[0], count=1).strip()
            votes[name] = {key: value for key, value in entry.items() if isinstance(value, bool)}
    majority = [name for name, marks in votes.items() if marks and sum(marks.values()) * 2 > len(marks)]
    gold = {"failure_modes": majority, "failure_mode_votes": votes}
    for key in ("note", "other_data"):
        if key in trace:
            gold[key] = trace[key]
    return gold
