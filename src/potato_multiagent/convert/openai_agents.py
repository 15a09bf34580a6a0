"""OpenAI Agents SDK traces: the exported trace and span objects, one record per trace.

Items are what ``Trace.export()`` and ``Span.export()`` give (``{"object": "trace", "id",
"workflow_name", ...}`` and ``{"object": "trace.span", "id", "trace_id", "parent_id",
"started_at", "ended_at", "span_data": {"type", ...}}``), in a JSON array, JSON Lines, or the
exporter's batch ``{"data": [...]}``. Spans are grouped by ``trace_id``; the record's id is the
trace id and its ``workflow`` the trace's ``workflow_name``. ``span_data`` types map to steps
(see :mod:`.spans`): ``agent`` (its ``name`` is the agent), ``handoff`` (``from_agent`` ->
``to_agent``), ``function`` (a tool call: ``name``, ``input``, ``output``, with its times a timed
call on that tool), ``generation`` (the output messages' text), ``guardrail`` and ``custom``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

from .sources import Converted, Item, json_kind
from .spans import AGENT, HANDOFF, OTHER, TOOL, Span, iso_time, trace_record

SUMMARY = "OpenAI Agents SDK exported traces/spans: agent, handoff, function (timed tool calls), generation"


def convert_file(path: Path, items: List[Item]) -> Iterator[Converted]:
    workflows: Dict[str, str] = {}
    spans: Dict[str, List[Span]] = {}
    first_item: Dict[str, Item] = {}
    for item in _flatten(items):
        if not isinstance(item.value, dict):
            raise item.error("item", f"expected a trace or span object, found {json_kind(item.value)}")
        if item.value.get("object") == "trace":
            workflows[item.require("id", str, "the trace id")] = item.value.get("workflow_name")
            continue
        if not isinstance(item.value.get("span_data"), dict):
            raise item.error("span_data", "expected the span's data (an object); "
                                          "this is neither an exported span nor a trace")
        trace_id = item.require("trace_id", str, "the trace id")
        spans.setdefault(trace_id, []).append(_span(item))
        first_item.setdefault(trace_id, item)
    for trace_id, trace_spans in spans.items():
        context = {"workflow": workflows[trace_id]} if isinstance(workflows.get(trace_id), str) else {}
        yield Converted(record=trace_record(trace_id, trace_spans, context), gold=None, item=first_item[trace_id])


def _flatten(items: List[Item]) -> Iterator[Item]:
    """The items, with an exporter batch ``{"data": [...]}`` standing for its elements."""
    for item in items:
        if isinstance(item.value, dict) and isinstance(item.value.get("data"), list) and "span_data" not in item.value:
            yield from (Item(entry, item.path, item.line) for entry in item.value["data"])
        else:
            yield item


def _span(item: Item) -> Span:
    data = item.value["span_data"]
    kind = data.get("type")
    span = Span(span_id=item.require("id", str, "the span id"), parent_id=_string(item.value.get("parent_id")),
                name=_string(data.get("name")) or str(kind), kind=OTHER,
                start=iso_time(item.value.get("started_at"), item, "started_at"),
                end=iso_time(item.value.get("ended_at"), item, "ended_at"))
    if kind == "agent":
        span.kind, span.agent = AGENT, _string(data.get("name"))
    elif kind == "handoff":
        span.kind, span.from_agent, span.to_agent = HANDOFF, _string(data.get("from_agent")), _string(data.get("to_agent"))
    elif kind == "function":
        span.kind, span.tool = TOOL, _string(data.get("name"))
        span.arguments, span.output = data.get("input"), data.get("output")
    elif kind == "generation":
        span.text = _messages_text(data.get("output"))
    elif kind == "guardrail":
        span.text = "triggered" if data.get("triggered") else "passed"
    elif kind == "custom" and data.get("data") is not None:
        span.text = json.dumps(data["data"], ensure_ascii=False)
    return span


def _messages_text(output: Any) -> Optional[str]:
    """The text of a generation's output messages (``[{"role", "content"}]``), one per line."""
    if not isinstance(output, list):
        return output if isinstance(output, str) else None
    parts = [message.get("content") for message in output if isinstance(message, dict)]
    return "\n".join(part for part in parts if isinstance(part, str)) or None


def _string(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value else None
