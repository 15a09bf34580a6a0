"""OpenManus: its loguru log, ``2025-03-31 20:33:34.369 | INFO | module:function:line - message``
(lines without the prefix continue a message).

- ``Executing step i/N`` (``app.agent.base``) starts a turn of the executing agent, named by the
  ``<Name>'s thoughts:`` line that follows (its text is the step's text). ``Tools being prepared:
  [...]`` names the turn's tool calls; ``Tool arguments: {json}`` are the first call's arguments
  (OpenManus logs no others).
- ``Tool '<name>' completed its mission! Result: ...``: the result of that call, a step of its own;
  a result reporting ``'success': False`` is an ``error``. The tool's own log lines while it ran
  (``app.tool...``, ``Special tool ... has completed the task!``) are kept with it in ``log``.
- ``app.flow.planning`` lines (the plan created, ``Marked step k as completed``): turns of the
  ``PlanningFlow`` that hands each plan step to the agent; lines of it in a row are one step.
- ``__main__`` lines (the request being processed, the final result), and text that follows a
  left-out line: steps with no agent. An ``| ERROR |`` line is its step's ``error``.
- Left out and counted: token counts (``app.llm``), the ``Activating tool`` and ``selected N tools``
  lines (the turn's calls say both), and browser-use's own ``INFO [browser_use]`` lines.
"""

from __future__ import annotations

import ast
import json
import re
from typing import List, Optional

from .common import LogSplit, body_text, system_step

NAMES = ("openmanus", "manus")

LOG = re.compile(r"(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) \| (?P<level>[A-Z]+)\s*\| (?P<where>[\w.]+):(?P<function>[\w<>]+):\d+ - (?P<message>.*)")
THIRD_PARTY = re.compile(r"(?:INFO|DEBUG|WARNING|ERROR)\s+\[[\w.]+\] .*")
EXECUTING = re.compile(r"Executing step (?P<step>\d+)/(?P<of>\d+)")
THOUGHTS = re.compile(r"\W*(?P<agent>\S.*?)'s thoughts: ?(?P<text>.*)")
SELECTED = re.compile(r"\W*.+? selected \d+ tools to use")
PREPARED = re.compile(r"\W*Tools being prepared: (?P<tools>.*)")
ARGUMENTS = re.compile(r"\W*Tool arguments: (?P<arguments>.*)")
ACTIVATING = re.compile(r"\W*Activating tool: .*")
COMPLETED = re.compile(r"\W*Tool '(?P<tool>.+?)' completed its mission! Result: ?(?P<text>.*)")
PLANNING = "app.flow.planning"


def split(text: str) -> Optional[LogSplit]:
    entries = _entries(text)
    if not any(EXECUTING.fullmatch(match["message"]) for match, _ in entries if match is not None):
        return None
    result = LogSplit(layout="OpenManus log (loguru)", steps=[])
    turn: Optional[dict] = None
    pending_log: List[str] = []
    for match, lines in entries:
        if match is None:  # text after a left-out line, or before the first log line
            if body_text(lines):
                result.steps.append(system_step("log", body_text(lines)))
                turn = None
            continue
        message = "\n".join([match["message"]] + lines)
        where, level = match["where"], match["level"]
        executing, thoughts, prepared, arguments, completed = (
            EXECUTING.fullmatch(match["message"]), THOUGHTS.fullmatch(match["message"]),
            PREPARED.fullmatch(match["message"]), ARGUMENTS.fullmatch(match["message"]),
            COMPLETED.fullmatch(match["message"]))
        if where == "app.llm":
            result.left_out["token count line(s)"] += 1
            continue
        if SELECTED.fullmatch(match["message"]) or ACTIVATING.fullmatch(match["message"]):
            result.left_out["tool selection/activation line(s)"] += 1
            continue
        if executing:
            turn = {"time": match["time"], "agent_step": int(executing["step"]), "max_steps": int(executing["of"])}
            result.steps.append(turn)
        elif thoughts and turn is not None:
            turn["agent"] = thoughts["agent"]
            turn["content"] = body_text([thoughts["text"]] + lines)
        elif prepared and turn is not None:
            turn["tool_calls"] = [{"name": name, "arguments": None} for name in _names(prepared["tools"])]
        elif arguments and turn is not None and turn.get("tool_calls"):
            turn["tool_calls"][0]["arguments"] = _arguments(body_text([arguments["arguments"]] + lines))
        elif completed:
            step = {"role": "tool", "tool_name": completed["tool"], "time": match["time"],
                    "content": body_text([completed["text"]] + lines)}
            error = _failed(step["content"])
            if error:
                step["error"] = error
            if pending_log:
                step["log"] = "\n".join(pending_log)
                pending_log = []
            result.steps.append(step)
        elif where.startswith("app.tool") or "Special tool" in match["message"]:
            pending_log.append(message)
        elif where == PLANNING:
            turn = None
            last = result.steps[-1] if result.steps else None
            if last is not None and last.get("agent") == "PlanningFlow":
                last["content"] += "\n" + body_text([match["message"]] + lines)
            else:
                result.steps.append({"agent": "PlanningFlow", "time": match["time"],
                                     "content": body_text([match["message"]] + lines)})
        elif level == "ERROR" and turn is not None:
            turn["error"] = body_text([match["message"]] + lines)
            continue
        else:
            turn = None
            result.steps.append(system_step("log", body_text([match["message"]] + lines), time=match["time"],
                                            logger=where))
        if level == "ERROR":
            result.steps[-1]["error"] = body_text([match["message"]] + lines)
    for step in result.steps:
        step.setdefault("content", "")
    result.left_out.update(_third_party(text))
    return result


def _entries(text: str):
    """``(match, continuation lines)`` per log line; ``(None, lines)`` for text that follows a
    left-out line or comes before the first log line."""
    entries = [(None, [])]
    for line in text.split("\n"):
        bare = line.rstrip("\r")
        match = LOG.search(bare)
        if match:
            entries.append((match, []))
        elif THIRD_PARTY.fullmatch(bare):
            continue
        elif entries[-1][0] is not None and entries[-1][0]["where"] == "app.llm":
            entries.append((None, [bare]))
        else:
            entries[-1][1].append(bare)
    return entries


def _third_party(text: str) -> dict:
    count = sum(1 for line in text.split("\n") if THIRD_PARTY.fullmatch(line.rstrip("\r")))
    return {"third-party (browser-use) log line(s)": count} if count else {}


def _names(text: str) -> List[str]:
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return [text.strip()]
    return [str(name) for name in value] if isinstance(value, (list, tuple)) else [str(value)]


def _arguments(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text


def _failed(output: str) -> Optional[str]:
    """A python tool's ``{'observation': ..., 'success': False}`` result: its observation."""
    start = output.find("{'observation'")
    if start < 0:
        return None
    try:
        value = ast.literal_eval(output[start:].strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, dict) and value.get("success") is False:
        return str(value.get("observation") or "failed")
    return None
