"""Span trees (OpenAI Agents SDK traces, OpenTelemetry GenAI, OpenInference) into one record per trace.

Each format reads its spans into :class:`Span`; the record is then built the same way:

- every span is one step (``span``: its name, ``span_id``: its id, so labels located by span
  find it), in order of start time (ties, and spans without a start, keep input order), except the framework's bookkeeping spans (``Span.bookkeeping``: the SDK's ``task`` and
  ``turn`` spans, a workflow's root span), which add no step;
- a step's agent is that of its nearest agent span (itself or an ancestor); a non-agent span's own
  agent hint (OpenTelemetry's ``gen_ai.agent.name``, which instrumentations fill with a default
  such as "OpenAI Agent") counts only when no agent span encloses it;
- a handoff span is an explicit handoff event (``type: handoff``, ``from_agent``, ``to_agent``);
- a tool span is a step with one ``tool_call`` (``id``, ``name``, ``arguments``) and its output as
  ``result``, and, when it has an agent, a start and an end, one timed entry of ``calls`` whose
  resource is the tool: two agents using one tool at once is a contention region;
- a span's error is the step's ``error`` (and its tool call's): its message, what more it says (a
  stack trace) in ``error_details``;
- threads of work: an agent span started inside another agent's span (agents-as-tools, a managed
  agent: the outer agent ran it) is a delegated thread, and runs under one trace that overlap in
  time (a fan-out) are concurrent threads: their steps carry ``thread`` (the first agent's name,
  numbered when it recurs) and ``parent_thread`` (the thread of the agent that ran it; absent for
  the root thread), see docs/derivation.md.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import re
import sys
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional

from ..trace import is_name, parse_time
from .sources import Item

AGENT = "agent"
TOOL = "tool"
HANDOFF = "handoff"
OTHER = "other"


@dataclass
class Span:
    """One span as the span formats read it."""

    span_id: str
    parent_id: Optional[str]
    name: str
    kind: str
    start: Optional[str] = None
    end: Optional[str] = None
    agent: Optional[str] = None
    agent_hint: Optional[str] = None
    tool: Optional[str] = None
    call_id: Optional[str] = None
    arguments: Any = None
    output: Any = None
    from_agent: Optional[str] = None
    to_agent: Optional[str] = None
    text: Optional[str] = None
    error: Optional[str] = None
    error_details: Optional[str] = None
    """What the error says beyond its message (the exception's stack trace), kept in the step."""
    bookkeeping: bool = False
    order_at: Optional[str] = None
    """Where the step goes among the others when not at its start (ADK's ``agent_run`` shows the
    run's last event: it goes where that happened, at the end)."""
    owner: Optional[str] = None
    """The agent a framework's own reading gives the span (LangGraph's checkpoint namespace, a
    CrewAI coworker): it wins over agent spans, which such frameworks misname."""


def iso_time(value: Any, item: Item, field_name: str) -> Optional[str]:
    """An ISO time string as it is, or None when absent; anything our time grammar rejects is an error."""
    if value is None:
        return None
    kind, _ = parse_time(value) if isinstance(value, str) else (None, None)
    if kind is None:
        raise item.error(field_name, f"expected an ISO 8601 time, found {value!r}")
    return value


def iso_from_nanoseconds(value: Any, item: Item, field_name: str) -> Optional[str]:
    """OpenTelemetry's ``*UnixNano`` (a number or a decimal string) as an ISO UTC time (microseconds)."""
    if value is None or value == "" or value == 0 or value == "0":
        return None
    digits = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not (isinstance(digits, str) and digits.isascii() and digits.isdigit()):
        raise item.error(field_name, f"expected nanoseconds since the epoch, found {value!r}")
    micros = int(digits) // 1000
    moment = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=micros)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def trace_record(record_id: str, spans: List[Span], context: Dict[str, Any]) -> dict:
    """The record of one trace: ``id``, the ``context`` fields, ``steps`` and (when timed) ``calls``."""
    agents = agent_of_each(spans)
    threads = _threads_of_each(spans)
    context = {**_run_error(spans), **context}
    _keep_where_errors_arise(spans)
    _drop_errors_from_below(spans)
    steps, calls = [], []
    for span in _in_start_order([span for span in spans if not span.bookkeeping], placed=True):
        agent = agents.get(span.span_id)
        steps.append(_step(span, agent, threads.get(span.span_id)))
        if span.kind == TOOL and agent and span.tool and span.start and span.end:
            calls.append({"agent": agent, "tool": span.tool, "resource": span.tool,
                          "start": span.start, "end": span.end, "step": len(steps) - 1})
    record = {"id": record_id, **context, "steps": steps}
    if calls:
        record["calls"] = calls
    return record


def _run_error(spans: List[Span]) -> dict:
    """A root span (the workflow's, the graph's, the first agent's) that failed: the run ended with
    that error, which the record keeps as its ``error``."""
    failed = [span for span in spans if span.parent_id is None and span.error]
    return {"error": failed[0].error} if failed else {}


def _keep_where_errors_arise(spans: List[Span]) -> None:
    """A bookkeeping span that failed while none of the spans below it did is where the error arose
    (a graph node's own code): it stays a step, so the error is shown where it happened. A root
    span never does: its error is the record's."""
    failed_below = set()
    by_id = {span.span_id: span for span in spans}
    for span in spans:
        if span.error:
            failed_below.update(ancestor.span_id for ancestor in ancestors(span, by_id))
    for span in spans:
        if span.bookkeeping and span.error and span.parent_id is not None and span.span_id not in failed_below:
            span.bookkeeping = False


def _drop_errors_from_below(spans: List[Span]) -> None:
    """An exception passes up through every span around the one that raised it: a span whose error
    is the same as a span's below it only passes it on, and shows none (the error is shown once,
    where it arose)."""
    by_id = {span.span_id: span for span in spans}
    passed_on = {ancestor.span_id for span in spans if span.error
                 for ancestor in ancestors(span, by_id) if ancestor.error == span.error}
    for span in spans:
        if span.span_id in passed_on:
            span.error = span.error_details = None


def _in_start_order(spans: List[Span], placed: bool = False) -> List[Span]:
    """By start time (``placed``: by ``order_at`` where a span has one), ties in input order."""
    def key(position_and_span):
        position, span = position_and_span
        moment = (span.order_at if placed else None) or span.start
        _, seconds = parse_time(moment) if moment else (None, None)
        return (seconds is None, seconds or 0.0, position)

    return [span for _, span in sorted(enumerate(spans), key=key)]


def ancestors(span: Span, by_id: Dict[str, Span]) -> Iterable[Span]:
    """The span's ancestors, nearest first (a cycle in bad input stops the walk)."""
    seen = {span.span_id}
    current = by_id.get(span.parent_id) if span.parent_id else None
    while current is not None and current.span_id not in seen:
        yield current
        seen.add(current.span_id)
        current = by_id.get(current.parent_id) if current.parent_id else None


def agent_of_each(spans: Iterable[Span]) -> Dict[str, Optional[str]]:
    """Each span's agent: its owner, else its nearest agent span's (itself or an ancestor), else its own hint."""
    by_id = {span.span_id: span for span in spans}
    found: Dict[str, Optional[str]] = {}
    for span in by_id.values():
        if span.owner:
            found[span.span_id] = span.owner
            continue
        if span.kind == AGENT and span.agent:
            found[span.span_id] = span.agent
            continue
        enclosing = next((a for a in ancestors(span, by_id) if a.kind == AGENT and a.agent), None)
        found[span.span_id] = enclosing.agent if enclosing else span.agent_hint
    return found


def _threads_of_each(spans: List[Span]) -> Dict[str, tuple]:
    """``(thread, parent_thread)`` of each span of a thread (none: the root thread)."""
    by_id = {span.span_id: span for span in spans}
    named: Dict[str, str] = {}  # agent span id -> the name of the thread it starts or continues
    used: Dict[str, int] = {}
    for members in _thread_starters(spans, by_id):
        agent = members[0].agent
        used[agent] = used.get(agent, 0) + 1
        for member in members:
            named[member.span_id] = agent if used[agent] == 1 else f"{agent} #{used[agent]}"
    parent_of: Dict[str, Optional[str]] = {}
    for span_id, name in named.items():  # a thread's parent: the thread of the agent that ran it
        caller = next((a for a in ancestors(by_id[span_id], by_id) if a.span_id in named), None)
        parent_of.setdefault(name, named[caller.span_id] if caller else None)
    threads: Dict[str, tuple] = {}
    for span in spans:
        own = span if span.span_id in named else next((a for a in ancestors(span, by_id) if a.span_id in named), None)
        if own is not None:
            threads[span.span_id] = (named[own.span_id], parent_of[named[own.span_id]])
    return threads


def _thread_starters(spans: List[Span], by_id: Dict[str, Span]) -> List[List[Span]]:
    """The agent spans of each thread, threads in start order: every agent span inside another
    agent's span (that agent ran it: as a tool, as a managed agent), and every run that overlaps
    another run in time (a fan-out: runs started together under one trace). A run is the agent
    spans that share one parent outside any agent (the SDK's task span), so a handoff chain within
    one run stays one thread."""
    agents = [span for span in _in_start_order(spans) if span.kind == AGENT and span.agent]
    delegated = [[span] for span in agents if _inside_agent(span, by_id)]
    runs: Dict[Optional[str], List[Span]] = {}
    for span in agents:
        if not _inside_agent(span, by_id):
            runs.setdefault(span.parent_id, []).append(span)
    concurrent = [run for key, run in runs.items()
                  if any(_overlap(run, other) for other_key, other in runs.items() if other_key != key)]
    return sorted(delegated + concurrent, key=lambda members: agents.index(members[0]))


def _inside_agent(span: Span, by_id: Dict[str, Span]) -> bool:
    """Handoffs never nest (the SDKs start the next agent's span beside the previous one), so an
    agent span inside another agent's span was run by that agent."""
    return any(ancestor.kind == AGENT and ancestor.agent for ancestor in ancestors(span, by_id))


def _overlap(run: List[Span], other: List[Span]) -> bool:
    """Two runs overlap when their agent spans' time ranges do (runs without times never do)."""
    first, second = _time_range(run), _time_range(other)
    return first is not None and second is not None and first[0] < second[1] and second[0] < first[1]


def _time_range(run: List[Span]) -> Optional[tuple]:
    starts = [parse_time(span.start)[1] for span in run if span.start]
    ends = [parse_time(span.end)[1] for span in run if span.end]
    if len(starts) != len(run) or len(ends) != len(run) or None in starts + ends:
        return None
    return min(starts), max(ends)


def _step(span: Span, agent: Optional[str], thread: Optional[tuple]) -> dict:
    step: Dict[str, Any] = {"span": span.name, "span_id": span.span_id}
    if span.kind == HANDOFF and is_name(span.to_agent):
        step.update({"type": "handoff", "from_agent": span.from_agent or agent, "to_agent": span.to_agent})
    elif agent:
        step["agent"] = agent
    if span.kind == TOOL:
        step["tool_call"] = {"id": span.call_id or span.span_id, "name": span.tool, "arguments": span.arguments}
        if span.error:
            step["tool_call"]["error"] = span.error
        step["result"] = span.output
    elif span.text is not None:
        step["content"] = span.text
    if span.error:
        step["error"] = span.error
        if span.error_details:
            step["error_details"] = span.error_details
    if thread is not None:
        step["thread"] = thread[0]
        if thread[1] is not None:
            step["parent_thread"] = thread[1]
    if span.start:
        step["started_at"] = span.start
    if span.end:
        step["ended_at"] = span.end
    return step


# --- message text, shared by the span formats ---------------------------------------------------

def messages_text(messages: Any) -> Optional[str]:
    """The text of chat messages, one part per line: GenAI ``parts`` (text, tool calls), OpenAI
    ``content``/``tool_calls``; a JSON string holding such messages is read first."""
    if isinstance(messages, str):
        decoded = _json_or_none(messages)
        if isinstance(decoded, (list, dict)):
            messages = decoded
        else:
            return messages or None
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list):
        return None
    lines = [line for message in messages if isinstance(message, dict) for line in _message_lines(message)]
    return "\n".join(lines) or None


def _message_lines(message: dict) -> List[str]:
    lines: List[str] = []
    for part in message.get("parts") or []:
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("content"), str):
            lines.append(_python_message_text(part["content"]))
        elif isinstance(part, dict) and part.get("type") == "tool_call" and isinstance(part.get("name"), str):
            lines.append(call_line(part["name"], part.get("arguments")))
    if isinstance(message.get("content"), str):
        lines.append(message["content"])
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            lines.append(call_line(function["name"], function.get("arguments")))
    return [line for line in lines if line]


def _python_message_text(text: str) -> str:
    """OpenTelemetry's OpenAI-Agents instrumentation (0.1.0) writes a message with tool calls as the
    Python ``repr`` of the message dict; its text and calls are read back, anything else is kept."""
    if not (text.startswith("{'") and "'role'" in text):
        return text
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    if not isinstance(value, dict):
        return text
    return "\n".join(_message_lines({key: value.get(key) for key in ("content", "tool_calls")})) or text


def decoded(value: Any) -> Any:
    """JSON text decoded; anything else (and text that is not JSON) as it is. Instrumentations
    write objects into attributes as JSON text."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def name_or_none(value: Any) -> Optional[str]:
    """A string that says something, else None."""
    return value if isinstance(value, str) and value else None


def call_line(name: str, arguments: Any) -> str:
    shown = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return f"{name}({shown})"


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


# --- fields not shown ---------------------------------------------------------------------------

class Unshown:
    """Source fields a converter does not show, named once per input file on stderr."""

    def __init__(self):
        self.names: Dict[str, set] = {}

    def add(self, item: Item, names: Iterable[str]) -> None:
        self.names.setdefault(str(item.path), set()).update(re.sub(r"\.\d+(?=\.|$)", ".*", name) for name in names)

    def report(self) -> None:
        for path, names in self.names.items():
            if names:
                print(f"note: {path}: not shown in the records (kept only in the source): "
                      f"{', '.join(sorted(names))}", file=sys.stderr)
