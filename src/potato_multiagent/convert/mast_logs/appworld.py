"""AppWorld (the MAST authors' supervisor with one agent per app): its console text.

Each block starts with a header line, its body indented under it; a block inside an app agent's
message loop is indented once more.

- ``**** Task i/n (<task id>) ****`` and the lines up to the first block: the record's ``task_id``
  and ``task``.
- ``Response from Supervisor Agent``: a turn of the Supervisor (its code). The code's calls of
  ``apis.<app>.<api>(...)``, ``send_message(...)`` and ``reply(...)`` are its tool calls
  (``<app>.<api>``, keyword arguments by name, positional ones under ``args``).
- ``Code Execution Output``: the result of the turn's calls (``error``: the last line of an
  ``Execution failed`` traceback). When it only echoes the ``send_message`` extension call
  (``# CallExtension``) it is no step: the message loop that follows is that call.
- ``Entering <App> Agent message loop`` ... ``Exiting <App> Agent message loop``: the app agent's
  thread of work (``thread`` <App>, numbered when it is entered again). Inside it,
  ``Response from <App> Agent`` is a turn of the app agent, ``Message to <App> Agent`` after it the
  result of its code, and ``Reply from <App> Agent to Supervisor`` its reply (``to``). The loop's
  first ``Message to <App> Agent`` repeats the ``send_message`` message and is no step.
- ``Response from send_message API``: the result of the Supervisor's ``send_message`` call.
- ``Message to Supervisor Agent``: the output just shown, passed back as the Supervisor's next
  message; no step when it repeats that output (a step addressed to the Supervisor otherwise).
- ``Evaluation`` and its JSON: AppWorld's verdict on the run, to gold (``evaluation``), never shown.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from typing import Dict, List, Optional, Tuple

from .common import LogSplit, body_text, call_arguments, dotted_name, parse_python

NAMES = ("appworld",)

EXCEPTION_LINE = re.compile(r"(?:[A-Za-z_][\w.]*)?(?:Error|Exception|Exit|Interrupt)\b[^:]*:")
TASK = re.compile(r"\*{5,} Task (?P<number>\d+)/(?P<of>\d+) \((?P<id>[^()]+)\)\s*\*{5,}")
HEADERS = [
    ("response", re.compile(r"Response from (?P<agent>.+?) Agent")),
    ("output", re.compile(r"Code Execution Output")),
    ("enter", re.compile(r"Entering (?P<agent>.+?) Agent message loop")),
    ("exit", re.compile(r"Exiting (?P<agent>.+?) Agent message loop")),
    ("message", re.compile(r"Message to (?P<agent>.+?) Agent")),
    ("reply", re.compile(r"Reply from (?P<agent>.+?) Agent to (?P<to>.+)")),
    ("api", re.compile(r"Response from (?P<api>\w+) API")),
    ("evaluation", re.compile(r"Evaluation")),
]


def split(text: str) -> Optional[LogSplit]:
    blocks = _blocks(text)
    kinds = {kind for kind, _, _ in blocks}
    if not {"response", "output"} <= kinds:
        return None
    result = LogSplit(layout="AppWorld console", steps=[])
    state = _State()
    for kind, match, lines in blocks:
        body = body_text(lines, dedent=True)
        if kind == "task":
            result.context["task_id"] = match["id"]
            if body:
                result.context["task"] = body
        elif kind == "evaluation":
            _evaluation(result, body)
        else:
            state.read(kind, match, body, result)
    return result


class _State:
    """Where the console is: inside which app agent's loop, and what was last shown."""

    def __init__(self):
        self.thread: Optional[str] = None
        self.loops: Dict[str, int] = {}
        self.first_message = False
        self.last_output: Optional[str] = None

    def read(self, kind: str, match: re.Match, body: str, result: LogSplit) -> None:
        steps = result.steps
        if kind == "enter":
            agent = match["agent"]
            self.loops[agent] = self.loops.get(agent, 0) + 1
            self.thread = agent if self.loops[agent] == 1 else f"{agent} #{self.loops[agent]}"
            self.first_message = True
            return
        if kind == "exit":
            self.thread = None
            return
        if kind == "message" and self.thread is not None and self.first_message:
            self.first_message = False  # the send_message message, already in the Supervisor's call
            result.left_out["loop message(s) repeating send_message's message"] += 1
            return
        if kind == "message" and self.thread is None and body == self.last_output:
            result.left_out["message(s) repeating the output just shown"] += 1
            return
        if kind == "output" and body.lstrip().startswith("# CallExtension"):
            result.left_out["send_message extension echo(es)"] += 1
            return
        if kind == "response":
            step = {"agent": match["agent"], "content": body}
            calls = code_calls(body)
            if calls:
                step["tool_calls"] = calls
        elif kind == "reply":
            step = {"agent": match["agent"], "to": match["to"].strip(), "content": body}
        elif kind in ("output", "message", "api"):
            step = {"role": "tool", "content": body}
            if kind == "message" and self.thread is None:
                step = {"to": match["agent"], "content": body}
            error = failure(body)
            if error:
                step["error"] = error
            self.last_output = body
        else:
            return
        if self.thread is not None:
            step["thread"] = self.thread
        steps.append(step)


def _blocks(text: str) -> List[Tuple[str, Optional[re.Match], List[str]]]:
    """``(kind, header match, body lines)`` in order; ``task`` for the task header."""
    blocks: List[Tuple[str, Optional[re.Match], List[str]]] = []
    for line in text.split("\n"):
        bare = line.rstrip("\r")
        stripped = bare.strip()
        task = TASK.fullmatch(stripped)
        header = None if task else next(((kind, match) for kind, pattern in HEADERS
                                         for match in [pattern.fullmatch(stripped)] if match), None)
        if task:
            blocks.append(("task", task, []))
        elif header and (header[0] != "evaluation" or bare == stripped):
            blocks.append((header[0], header[1], []))
        elif blocks:
            blocks[-1][2].append(bare)
    return blocks


def _evaluation(result: LogSplit, body: str) -> None:
    try:
        result.gold["evaluation"] = json.loads(body)
    except ValueError:
        result.gold["evaluation"] = body


def failure(output: str) -> Optional[str]:
    """An ``Execution failed`` output's error: the traceback's exception line and what follows it
    (``Exception: Response status code is 401: {"message": ...}``)."""
    if not output.startswith("Execution failed"):
        return None
    lines = [line.strip() for line in output.split("\n") if line.strip()]
    raised = [k for k, line in enumerate(lines) if EXCEPTION_LINE.match(line)]
    return " ".join(lines[raised[-1]:]) if raised else lines[-1]


def code_calls(code: str) -> List[dict]:
    """The calls an AppWorld agent's code makes: ``apis.<app>.<api>``, ``send_message``, ``reply``."""
    source = textwrap.dedent(code)
    tree = parse_python(source)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = dotted_name(node.func)
        if name in ("send_message", "reply"):
            tool = name
        elif name and name.startswith("apis."):
            tool = name[len("apis."):]
        else:
            continue
        found.append((node.lineno, node.col_offset, {"name": tool, "arguments": call_arguments(node, source)}))
    return [call for _, _, call in sorted(found, key=lambda entry: entry[:2])]
