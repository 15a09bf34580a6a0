"""Magentic-One run by the AutoGen AgentChat testbed: the console of one GAIA scenario.

Everything before ``SCENARIO.PY STARTING !#!#`` is the testbed installing packages (left out, and
counted). Each message then starts with a line ``---------- <source> ----------`` (newer AgentChat
consoles write ``---------- <MessageType> (<source>) ----------``): one step of agent ``<source>``
whose text runs to the next such line. The orchestrator names the next speaker in its text, so its
instructions read as implicit handoffs to whoever speaks next, as for the other Magentic-One
formats. The testbed's own ``... !#!#`` lines after the start frame the run and are no step.
"""

from __future__ import annotations

import re
from typing import List, Optional

from .common import LogSplit, body_text

NAMES = ("magentic", "magentic-one", "magenticone", "magentic_one")

START = "SCENARIO.PY STARTING !#!#"
HEADER = re.compile(r"---------- (?:(?P<kind>\w+) \((?P<typed_source>[^()]+)\)|(?P<source>.+?)) ----------")
TESTBED = re.compile(r".*!#!#\s*")


def split(text: str) -> Optional[LogSplit]:
    lines = text.split("\n")
    if not any(HEADER.fullmatch(line.rstrip("\r")) for line in lines):
        return None
    result = LogSplit(layout="Magentic-One console (AgentChat testbed)", steps=[])
    starts = [k for k, line in enumerate(lines) if line.rstrip("\r") == START]
    begin = starts[0] + 1 if starts else 0
    if starts:
        result.left_out["line(s) of testbed setup before SCENARIO.PY STARTING"] += begin
    before_first: List[str] = []
    for line in lines[begin:]:
        bare = line.rstrip("\r")
        header = HEADER.fullmatch(bare)
        if header:
            step = {"agent": header["typed_source"] or header["source"], "lines": []}
            if header["kind"]:
                step["message_type"] = header["kind"]
            result.steps.append(step)
        elif TESTBED.fullmatch(bare):
            result.left_out["testbed line(s) (!#!#)"] += 1
        elif result.steps:
            result.steps[-1]["lines"].append(line)
        else:
            before_first.append(line)
    if body_text(before_first):
        result.steps.insert(0, {"event": "console", "lines": before_first})
    for step in result.steps:
        step["content"] = body_text(step.pop("lines"))
    return result
