"""Span trees (OpenAI Agents SDK traces, OpenTelemetry GenAI) into one record per trace.

Both formats describe a run as spans with a parent, a start and an end. Once each format has read
its spans into :class:`Span`, the record is built the same way:

- every span is one step, in order of start time (ties, and spans without a start, keep input
  order), so step k is the k-th span of the trace;
- a step's agent is the span's own agent (an agent span) or that of its nearest agent ancestor;
- a handoff span is an explicit handoff event (``type: handoff``, ``from_agent``, ``to_agent``);
- a tool span is a step with one ``tool_call`` (``id``, ``name``, ``arguments``) and its output as
  ``result``, and, when it has an agent, a start and an end, one timed entry of ``calls`` whose
  resource is the tool: two agents using one tool at once is a contention region.
"""

from __future__ import annotations

import datetime as dt
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
    """One span as both formats read it; ``item`` and ``field`` say where it came from."""

    span_id: str
    parent_id: Optional[str]
    name: str
    kind: str
    start: Optional[str] = None
    end: Optional[str] = None
    agent: Optional[str] = None
    tool: Optional[str] = None
    call_id: Optional[str] = None
    arguments: Any = None
    output: Any = None
    from_agent: Optional[str] = None
    to_agent: Optional[str] = None
    text: Optional[str] = None


def iso_time(value: Any, item: Item, field: str) -> Optional[str]:
    """An ISO time string as it is, or None when absent; anything our time grammar rejects is an error."""
    if value is None:
        return None
    kind, _ = parse_time(value) if isinstance(value, str) else (None, None)
    if kind is None:
        raise item.error(field, f"expected an ISO 8601 time, found {value!r}")
    return value


def iso_from_nanoseconds(value: Any, item: Item, field: str) -> Optional[str]:
    """OpenTelemetry's ``*UnixNano`` (a number or a decimal string) as an ISO UTC time (microseconds)."""
    if value is None or value == "" or value == 0 or value == "0":
        return None
    digits = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not (isinstance(digits, str) and digits.isascii() and digits.isdigit()):
        raise item.error(field, f"expected nanoseconds since the epoch, found {value!r}")
    micros = int(digits) // 1000
    moment = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=micros)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def trace_record(record_id: str, spans: List[Span], context: Dict[str, Any]) -> dict:
    """The record of one trace: ``id``, the ``context`` fields, ``steps`` and (when timed) ``calls``."""
    ordered = _in_start_order(spans)
    agents = _agent_of_each(spans)
    steps, calls = [], []
    for index, span in enumerate(ordered):
        agent = agents.get(span.span_id)
        steps.append(_step(span, agent))
        if span.kind == TOOL and agent and span.tool and span.start and span.end:
            calls.append({"agent": agent, "tool": span.tool, "resource": span.tool,
                          "start": span.start, "end": span.end, "step": index})
    record = {"id": record_id, **context, "steps": steps}
    if calls:
        record["calls"] = calls
    return record


def _in_start_order(spans: List[Span]) -> List[Span]:
    def key(position_and_span):
        position, span = position_and_span
        _, seconds = parse_time(span.start) if span.start else (None, None)
        return (seconds is None, seconds or 0.0, position)

    return [span for _, span in sorted(enumerate(spans), key=key)]


def _agent_of_each(spans: Iterable[Span]) -> Dict[str, Optional[str]]:
    """Each span's agent: its own (agent spans) or its nearest agent ancestor's."""
    by_id = {span.span_id: span for span in spans}
    found: Dict[str, Optional[str]] = {}
    for span in by_id.values():
        seen, current = set(), span
        while current is not None and current.span_id not in seen:
            if current.agent:
                break
            seen.add(current.span_id)
            current = by_id.get(current.parent_id) if current.parent_id else None
        found[span.span_id] = current.agent if current is not None else None
    return found


def _step(span: Span, agent: Optional[str]) -> dict:
    step: Dict[str, Any] = {"span": span.name}
    if span.kind == HANDOFF and is_name(span.to_agent):
        step.update({"type": "handoff", "from_agent": span.from_agent or agent, "to_agent": span.to_agent})
    elif agent:
        step["agent"] = agent
    if span.kind == TOOL:
        step["tool_call"] = {"id": span.call_id or span.span_id, "name": span.tool, "arguments": span.arguments}
        step["result"] = span.output
    elif span.text is not None:
        step["content"] = span.text
    if span.start:
        step["started_at"] = span.start
    if span.end:
        step["ended_at"] = span.end
    return step
