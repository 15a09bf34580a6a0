"""HyperAgent: its log lines, ``HyperAgent_<instance> - INFO - <label>: text`` (MAD keeps them as a
JSON list of lines, joined here before splitting; a line without the prefix continues a message).

- ``Planner's Response``: a turn of the Planner. ``Intern Name: <intern>`` with ``Subgoal: ...`` in it
  is an explicit delegation: the step is addressed (``to``) to that intern (``Codebase Navigator`` is
  the Navigator) and keeps ``intern`` and ``subgoal``.
- ``Inner-<X>-Assistant's Response``: a turn of agent X working on the subgoal; ``<X>->Planner``: X's
  report to the Planner (``to``). The intern's turns between two Planner turns are one thread of
  work (``thread`` X, numbered when X is called again), so the derivation reads the subgoal as a
  delegation and the report as its return.
- ``Action:`` followed by a code block in an intern's turn is its tool call: each ``<tool>._run(...)``
  in Python is a call of ``<tool>`` with its keyword arguments; other code is a call of ``python``
  (``code``) or of the block's language (``bash``: ``command``). The log holds no results.
- ``Initialized HyperAgent instance ...`` and ``Initialized tools``: a run (re)starting, one step
  with no agent per group of such lines.
- The same message logged several times in a row (HyperAgent adds a log handler per run, so the
  n-th run logs every message n times) is one step; ``log_copies`` says how many times it was
  written.
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import Dict, List, Optional, Tuple

from .common import LogSplit, body_text, call_arguments, dotted_name, parse_python, system_step

NAMES = ("hyperagent",)

ENTRY = re.compile(r"(?P<logger>HyperAgent_\S*) - (?P<level>[A-Z]+) - (?P<message>.*)")
PLANNER = re.compile(r"Planner's Response: ?(?P<text>.*)")
INNER = re.compile(r"Inner-(?P<agent>[\w ]+?)-Assistant's Response: ?(?P<text>.*)")
REPORT = re.compile(r"(?P<agent>[\w ]+?)->(?P<to>[\w ]+?): ?(?P<text>.*)")
RESPONSE = re.compile(r"(?P<agent>[\w ]+?)'s Response: ?(?P<text>.*)")
INITIALIZED = re.compile(r"Initialized .*")
INTERN = re.compile(r"^Intern Name: *(?P<intern>.+?)\s*$", re.MULTILINE)
SUBGOAL = re.compile(r"^Subgoal: *(?P<subgoal>[\s\S]*)", re.MULTILINE)
ACTION = re.compile(r"^Action:\s*\n```(?P<language>\w*)[^\n]*\n(?P<code>[\s\S]*?)^```", re.MULTILINE)


def split(text: str) -> Optional[LogSplit]:
    entries = _entries(text)
    if not entries or not any(PLANNER.fullmatch(message.split("\n", 1)[0]) for message, _, _ in entries):
        return None
    result = LogSplit(layout="HyperAgent log", steps=[])
    agents = {match["agent"] for message, _, _ in entries
              for match in [INNER.fullmatch(message.split("\n", 1)[0]) or REPORT.fullmatch(message.split("\n", 1)[0])]
              if match}
    threads: Dict[str, int] = {}
    thread: Optional[str] = None
    thread_agent: Optional[str] = None
    for message, level, copies in entries:
        head, _, rest = message.partition("\n")
        planner, inner, report, response = (PLANNER.fullmatch(head), INNER.fullmatch(head),
                                            REPORT.fullmatch(head), RESPONSE.fullmatch(head))
        if INITIALIZED.fullmatch(head):
            if result.steps and result.steps[-1].get("event") == "initialized":
                result.steps[-1]["content"] += "\n" + message
            else:
                result.steps.append(system_step("initialized", message))
                thread = thread_agent = None
            continue
        if planner:
            thread = thread_agent = None
            step = _planner_step(planner["text"], rest, agents)
        elif inner or report:
            match = inner or report
            agent = match["agent"]
            if agent != thread_agent:
                threads[agent] = threads.get(agent, 0) + 1
                thread, thread_agent = (agent if threads[agent] == 1 else f"{agent} #{threads[agent]}"), agent
            step = {"agent": agent, "content": body_text([match["text"]] + rest.split("\n")), "thread": thread}
            if report:
                step["to"] = report["to"]
            else:
                calls = _calls(step["content"])
                if calls:
                    step["tool_calls"] = calls
        elif response:
            step = {"agent": response["agent"], "content": body_text([response["text"]] + rest.split("\n"))}
        else:
            step = system_step("log", message)
        if level == "ERROR":
            step["error"] = message
        if copies > 1:
            step["log_copies"] = copies
        result.steps.append(step)
    return result


def _entries(text: str) -> List[Tuple[str, str, int]]:
    """``(message, level, copies)``: each log entry with its continuation lines, the same entry
    logged again right after it counted in ``copies``."""
    raw: List[List[str]] = []
    for line in text.split("\n"):
        match = ENTRY.fullmatch(line.rstrip("\r"))
        if match:
            raw.append([match["level"], match["message"]])
        elif raw:
            raw[-1][1] += "\n" + line.rstrip("\r")
    entries: List[Tuple[str, str, int]] = []
    for level, message in raw:
        message = message.rstrip("\n")
        if entries and entries[-1][0] == message and entries[-1][1] == level:
            entries[-1] = (message, level, entries[-1][2] + 1)
        else:
            entries.append((message, level, 1))
    return entries


def _planner_step(first: str, rest: str, agents: set) -> dict:
    text = body_text([first] + rest.split("\n"))
    step = {"agent": "Planner", "content": text}
    intern = INTERN.search(text)
    if intern:
        name = intern["intern"]
        step["intern"] = name
        step["to"] = next((agent for agent in sorted(agents) if name == agent or name.endswith(" " + agent)), name)
        subgoal = SUBGOAL.search(text)
        if subgoal:
            step["subgoal"] = subgoal["subgoal"].strip()
    return step


def _calls(text: str) -> List[dict]:
    """The tool calls of an intern's ``Action:`` code blocks."""
    calls: List[dict] = []
    for action in ACTION.finditer(text):
        code = textwrap.dedent(action["code"]).rstrip()
        language = action["language"].lower() or "python"
        tools = _tool_runs(code) if language == "python" else []
        if tools:
            calls.extend(tools)
        elif language in ("bash", "sh", "shell"):
            calls.append({"name": "bash", "arguments": {"command": code}})
        else:
            calls.append({"name": language, "arguments": {"code": code}})
    return calls


def _tool_runs(code: str) -> List[dict]:
    """Every ``<tool>._run(...)`` call of the code, in order: HyperAgent's tools are called so."""
    tree = parse_python(code)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "_run":
            tool = dotted_name(node.func.value)
            if tool:
                found.append((node.lineno, node.col_offset, {"name": tool, "arguments": call_arguments(node, code)}))
    return [call for _, _, call in sorted(found, key=lambda entry: entry[:2])]
