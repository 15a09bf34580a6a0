"""CrewAI: a crew's own task log (``output_log_file``), and CrewAI traces over OpenInference.

**Native** (``--from crewai``): ``Crew(output_log_file="run.json")`` writes a JSON array of task
events, ``{"timestamp", "task_name", "task", "agent", "status": "started" | "completed",
"output"}``, one record per file (id: the file stem). Each event is one step, in order: the agent
(its role), ``task_name``, ``status``, ``time`` (the timestamp), and ``content``: the output of a
completed task, the description of a started one. The log is task-level only: no model turns, no
tool calls, no delegation inside a task (the hierarchical crew's manager is the only agent it
names). A task that started and never completed is where the crew stopped.

**Over OpenInference** (``--from openinference``, :func:`read_trace`; a trace whose agent spans
carry ``crew_key``/``crew_id``): each task's ``AGENT`` span (``<role>.<task>._execute_core``,
``graph.node.id`` the role) names the agent of the model and tool calls below it and is not a
step itself (its output repeats the agent's last answer), nor is the crew's ``kickoff`` root (its
name is the ``workflow``). A delegated coworker runs inside the manager's ``Delegate work to
coworker`` / ``Ask question to coworker`` tool span with only model and tool spans of its own: the
spans below such a tool span are the coworker's (the tool input's ``coworker``, spelled as the
coworker's own system prompt names it, "You are <role>."), in a thread of their own, so the
delegation and the return are seen; the tool call stays the manager's, its result the
coworker's answer.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .sources import Converted, ConvertError, Item, json_kind
from .model_calls import match_calls
from .spans import AGENT, TOOL, Span, agent_of_each, decoded, name_or_none

SUMMARY = "CrewAI output_log_file (task-level: which agent started and completed which task, with its output)"

LOG_FIELDS = {"timestamp", "task_name", "task", "agent", "status", "output"}
"""What ``FileHandler.log`` writes for a task (its other keyword fields are named on stderr)."""
DELEGATION_TOOLS = ("Delegate work to coworker", "Ask question to coworker")
ROLE_IN_PROMPT = re.compile(r"You are (.+?)\.(?:\s|$)")
"""CrewAI's system prompt starts "You are <role>. <backstory>"."""


# --- native task log -------------------------------------------------------------------------------

def is_log_entry(value: Any) -> bool:
    """One entry of a crew's ``output_log_file``: a task event by an agent."""
    return isinstance(value, dict) and {"timestamp", "task", "agent", "status"} <= set(value) \
        and value.get("status") in ("started", "completed") and set(value) <= LOG_FIELDS | {
            "input", "message", "level", "crew", "flow", "tool", "error", "duration", "metadata"}


def convert_file(path: Path, items: List[Item]) -> Iterator[Converted]:
    if not items:
        raise ConvertError(path, None, "input", "the file holds no log entry")
    steps = []
    left_out = set()
    for item in items:
        if not is_log_entry(item.value):
            raise item.error("item", f"expected an output_log_file entry ({{timestamp, task_name, task, agent, "
                                     f"status: started|completed, output}}), found {_described(item.value)}")
        entry = item.value
        step: Dict[str, Any] = {"agent": entry["agent"], "task_name": entry.get("task_name"),
                                "status": entry["status"], "time": entry["timestamp"]}
        step["content"] = entry.get("output") if entry["status"] == "completed" else entry.get("task")
        if entry.get("error"):
            step["error"] = entry["error"]
        steps.append(step)
        left_out.update(key for key in entry if key not in LOG_FIELDS | {"error"})
    if left_out:
        print(f"note: {path}: left out of the records: {', '.join(sorted(left_out))}", file=sys.stderr)
    completed = {(step["task_name"], step["agent"]) for step in steps if step["status"] == "completed"}
    warnings = tuple(f"{path}:{item.line}: status: task {step['task_name']!r} of {step['agent']!r} started and never "
                     f"completed: the crew stopped there" for step, item in zip(steps, items)
                     if step["status"] == "started" and (step["task_name"], step["agent"]) not in completed)
    yield Converted(record={"id": path.stem, "steps": steps}, gold=None, item=items[0], warnings=warnings)


def _described(value: Any) -> str:
    if isinstance(value, dict):
        return "an object with keys " + ", ".join(sorted(map(str, value))[:6])
    return json_kind(value)


# --- CrewAI traces over OpenInference --------------------------------------------------------------

def is_trace(members: List[tuple]) -> bool:
    """A CrewAI trace: its task spans carry the crew's key or id."""
    return any("crew_key" in flat["attributes"] or "crew_id" in flat["attributes"] for _, flat, _ in members)


def read_trace(members: List[tuple]) -> Tuple[dict, List[Span]]:
    """The spans of one CrewAI trace reread as its agents' steps, and the record's context."""
    spans = [span for _, _, span in members]
    attributes = {span.span_id: flat["attributes"] for _, flat, span in members}
    context: Dict[str, Any] = {}
    for span in spans:
        given = attributes[span.span_id]
        if span.kind == AGENT and ("crew_key" in given or "task_key" in given or "task_id" in given):
            span.agent = span.agent or name_or_none(given.get("graph.node.id"))
            span.bookkeeping, span.text = True, None  # the task's output repeats the agent's last answer
        elif span.parent_id is None and span.name.endswith(".kickoff"):
            span.bookkeeping, span.text = True, None
            context["workflow"] = span.name[:-len(".kickoff")]
    children: Dict[str, List[Span]] = {}
    for span in spans:
        children.setdefault(span.parent_id, []).append(span)
    for span in list(spans):
        if span.kind == TOOL and span.tool in DELEGATION_TOOLS and children.get(span.span_id):
            coworker = _coworker(span, children[span.span_id], attributes)
            if coworker:
                spans.append(_coworker_span(span, coworker, children[span.span_id]))
    agents = agent_of_each(spans)
    for span in spans:
        span.owner = agents.get(span.span_id)
    match_calls(members)
    return context, spans


def _coworker(tool: Span, inside: List[Span], attributes: Dict[str, dict]) -> Optional[str]:
    """The coworker a delegation tool ran: its input's ``coworker``, spelled as the coworker's own
    system prompt names its role (CrewAI matches the name without regard to case)."""
    given = decoded(tool.arguments)
    named = given.get("coworker") if isinstance(given, dict) else None
    roles = [match.group(1) for span in inside
             for match in [ROLE_IN_PROMPT.match(str(attributes[span.span_id].get("llm.input_messages.0.message.content")
                                                    or ""))] if match]
    if isinstance(named, str) and named.strip():
        return next((role for role in roles if role.casefold() == named.strip().casefold()), named.strip())
    return roles[0] if roles else None


def _coworker_span(tool: Span, coworker: str, inside: List[Span]) -> Span:
    """An agent span (no step) for the coworker, between the tool span and what ran inside it."""
    span = Span(span_id=f"{tool.span_id}:coworker", parent_id=tool.span_id, name=f"{coworker} (coworker)",
                kind=AGENT, start=tool.start, end=tool.end, agent=coworker, bookkeeping=True)
    for child in inside:
        child.parent_id = span.span_id
    return span
