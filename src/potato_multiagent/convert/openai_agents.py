"""OpenAI Agents SDK traces: the exported trace and span objects, one record per trace.

Items are what ``Trace.export()`` and ``Span.export()`` give (``{"object": "trace", "id",
"workflow_name", ...}`` and ``{"object": "trace.span", "id", "trace_id", "parent_id",
"started_at", "ended_at", "span_data": {"type", ...}, "error"}``), in a JSON array, JSON Lines, or
the exporter's batch ``{"data": [...]}``. Spans are grouped by ``trace_id`` across every input
file (a trace's spans may sit in several exporter batches); the record's id is the trace id and
its ``workflow`` the trace's ``workflow_name``. ``span_data`` types map to steps (see
:mod:`.spans`): ``agent`` (its ``name`` is the agent), ``handoff`` (``from_agent`` ->
``to_agent``), ``function`` (a tool call: ``name``, ``input``, ``output``, with its times a timed
call on that tool), ``generation``/``response`` (the output messages' text and tool calls),
``guardrail`` and ``custom``; the SDK's bookkeeping spans (``custom`` spans whose data's ``sdk_span_type``
is ``task`` or ``turn``) add no step. A span's ``error`` (``message`` and ``data``) is the step's error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .sources import Converted, Item, json_kind
from .spans import AGENT, HANDOFF, OTHER, TOOL, Span, Unshown, iso_time, messages_text, trace_record

SUMMARY = "OpenAI Agents SDK exported traces/spans: agent, handoff, function (timed tool calls), generation"

SHOWN = {"agent": {"type", "name"}, "handoff": {"type", "from_agent", "to_agent"},
         "function": {"type", "name", "input", "output"}, "generation": {"type", "output"},
         "guardrail": {"type", "name", "triggered"}, "custom": {"type", "name", "data"}}
"""``span_data`` fields each type shows; the others are named on stderr."""
BOOKKEEPING = ("task", "turn")


def convert_file(path: Path, items: List[Item]) -> List[Converted]:
    return convert_files([(path, items)])


def convert_files(files: List[Tuple[Path, List[Item]]]) -> List[Converted]:
    """One record per trace id, its spans gathered from every file."""
    workflows: Dict[str, str] = {}
    spans: Dict[str, List[Span]] = {}
    first_item: Dict[str, Item] = {}
    unshown = Unshown()
    for _, items in files:
        for item in _flatten(items):
            if not isinstance(item.value, dict):
                raise item.error("item", f"expected a trace or span object, found {json_kind(item.value)}")
            if item.value.get("object") == "trace":
                workflows[item.require("id", str, "the trace id")] = item.value.get("workflow_name")
                unshown.add(item, (f"trace {key}" for key, value in item.value.items()
                                   if key not in ("object", "id", "workflow_name") and value not in (None, {}, [])))
                continue
            if not isinstance(item.value.get("span_data"), dict):
                raise item.error("span_data", "expected the span's data (an object); "
                                              "this is neither an exported span nor a trace")
            trace_id = item.require("trace_id", str, "the trace id")
            spans.setdefault(trace_id, []).append(_span(item, unshown))
            first_item.setdefault(trace_id, item)
    unshown.report()
    return [Converted(record=trace_record(trace_id, trace_spans,
                                          {"workflow": workflows[trace_id]} if isinstance(workflows.get(trace_id), str)
                                          else {}),
                      gold=None, item=first_item[trace_id])
            for trace_id, trace_spans in spans.items()]


def _flatten(items: List[Item]) -> Iterator[Item]:
    """The items, with an exporter batch ``{"data": [...]}`` standing for its elements."""
    for item in items:
        if isinstance(item.value, dict) and isinstance(item.value.get("data"), list) and "span_data" not in item.value:
            yield from (Item(entry, item.path, item.line) for entry in item.value["data"])
        else:
            yield item


def _span(item: Item, unshown: Unshown) -> Span:
    data = item.value["span_data"]
    kind = data.get("type")
    span = Span(span_id=item.require("id", str, "the span id"), parent_id=_string(item.value.get("parent_id")),
                name=_string(data.get("name")) or str(kind), kind=OTHER,
                start=iso_time(item.value.get("started_at"), item, "started_at"),
                end=iso_time(item.value.get("ended_at"), item, "ended_at"),
                error=_error_text(item.value.get("error")))
    if kind == "agent":
        span.kind, span.agent = AGENT, _string(data.get("name"))
    elif kind == "handoff":
        span.kind, span.from_agent, span.to_agent = HANDOFF, _string(data.get("from_agent")), _string(data.get("to_agent"))
    elif kind == "function":
        span.kind, span.tool = TOOL, _string(data.get("name"))
        span.arguments, span.output = data.get("input"), data.get("output")
    elif kind == "generation":
        span.text = messages_text(data.get("output"))
    elif kind == "guardrail":
        span.text = "triggered" if data.get("triggered") else "passed"
    elif kind == "custom" and _is_bookkeeping(data):
        span.bookkeeping = True
        unshown.add(item, [f"{data.get('name')} span data (usage)"])
    elif kind == "custom" and data.get("data") is not None:
        span.text = json.dumps(data["data"], ensure_ascii=False)
    shown = SHOWN.get(kind, {"type", "name"})
    unshown.add(item, (f"{kind} span {key}" for key, value in data.items()
                       if key not in shown and value not in (None, {}, [])))
    return span


def _is_bookkeeping(data: dict) -> bool:
    """The SDK's own ``task`` (a run) and ``turn`` (one model turn) spans: they group the steps that
    matter and carry only usage totals."""
    inner = data.get("data")
    return isinstance(inner, dict) and inner.get("sdk_span_type") in BOOKKEEPING


def _error_text(error: Any) -> Optional[str]:
    """The SDK's span error ``{"message", "data"}`` as one line: the message, then the data's ``error``."""
    if isinstance(error, str):
        return error or None
    if not isinstance(error, dict):
        return None
    message = error.get("message") if isinstance(error.get("message"), str) else "error"
    data = error.get("data")
    detail = data.get("error") if isinstance(data, dict) else data
    if detail is None:
        return message
    return f"{message}: {detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)}"


def _string(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value else None
