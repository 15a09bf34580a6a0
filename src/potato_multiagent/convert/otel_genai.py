"""OpenTelemetry GenAI spans (semantic conventions for agents and tools), one record per trace.

Input: OTLP JSON (``{"resourceSpans": [...]}``, a file or one export per JSON line, as the
collector's file exporter writes) or flat span objects (``trace_id``/``span_id``/
``parent_span_id`` or the same under ``context``, ``attributes`` as a map, times as
``start_time_unix_nano`` or ISO ``start_time``). OTLP is flattened by Potato's own OTEL converter.

By ``gen_ai.operation.name``: ``invoke_agent`` is an agent span named by ``gen_ai.agent.name``
(any span carrying ``gen_ai.agent.name`` belongs to that agent); ``execute_tool`` is a tool call
(``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``,
``gen_ai.tool.call.result``) and, with its times, a timed call on that tool; a span with
``gen_ai.handoff.to_agent`` (and ``gen_ai.handoff.from_agent``) is an explicit handoff; chat spans
show ``gen_ai.output.messages`` (or the older ``gen_ai.completion``). Nanosecond times become ISO
UTC strings with microseconds: the derivation's integers stop at 2^53, below today's nanoseconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

from potato.trace_converter.converters.otel_converter import OTELConverter

from .sources import Converted, Item, json_kind
from .spans import AGENT, HANDOFF, OTHER, TOOL, Span, iso_from_nanoseconds, iso_time, trace_record

SUMMARY = "OpenTelemetry GenAI spans (OTLP JSON or flat): invoke_agent, execute_tool, handoff attributes"

TEXT_ATTRIBUTES = ("gen_ai.output.messages", "gen_ai.completion")


def convert_file(path: Path, items: List[Item]) -> Iterator[Converted]:
    spans: Dict[str, List[Span]] = {}
    first_item: Dict[str, Item] = {}
    for item, flat in _flat_spans(items):
        trace_id = _first_string(flat, ("trace_id", "traceId"), ("context", "trace_id"))
        if trace_id is None:
            raise item.error("trace_id", "every span needs its trace id (trace_id, traceId or context.trace_id)")
        spans.setdefault(trace_id, []).append(_span(flat, item))
        first_item.setdefault(trace_id, item)
    for trace_id, trace_spans in spans.items():
        yield Converted(record=trace_record(trace_id, trace_spans, {}), gold=None, item=first_item[trace_id])


def _flat_spans(items: List[Item]) -> Iterator[tuple]:
    """``(item, flat span)`` pairs: OTLP exports flattened by Potato, flat spans as they are."""
    for item in items:
        if isinstance(item.value, dict) and "resourceSpans" in item.value:
            for flat in OTELConverter()._extract_otlp_spans(item.value):
                yield item, flat
        elif isinstance(item.value, dict) and isinstance(item.value.get("attributes", {}), dict):
            yield item, item.value
        else:
            raise item.error("item", f"expected an OTLP export (resourceSpans) or a span with an attributes "
                                     f"map, found {json_kind(item.value)}")


def _span(flat: dict, item: Item) -> Span:
    attributes = flat.get("attributes") or {}
    span_id = _first_string(flat, ("span_id", "spanId"), ("context", "span_id"))
    if span_id is None:
        raise item.error("span_id", "every span needs its id (span_id, spanId or context.span_id)")
    operation = attributes.get("gen_ai.operation.name")
    span = Span(span_id=span_id, parent_id=_first_string(flat, ("parent_span_id", "parentSpanId", "parent_id")),
                name=_string(flat.get("name")) or str(operation or "span"), kind=OTHER,
                start=_time(flat, "start", item), end=_time(flat, "end", item),
                agent=_string(attributes.get("gen_ai.agent.name")))
    if _string(attributes.get("gen_ai.handoff.to_agent")):
        span.kind = HANDOFF
        span.from_agent = _string(attributes.get("gen_ai.handoff.from_agent"))
        span.to_agent = attributes["gen_ai.handoff.to_agent"]
        span.agent = None  # the handoff's source is from_agent, or the enclosing agent
    elif operation == "invoke_agent":
        span.kind = AGENT
    elif operation == "execute_tool":
        span.kind, span.tool = TOOL, _string(attributes.get("gen_ai.tool.name"))
        span.call_id = _string(attributes.get("gen_ai.tool.call.id"))
        span.arguments = attributes.get("gen_ai.tool.call.arguments")
        span.output = attributes.get("gen_ai.tool.call.result")
    span.text = next((attributes[key] for key in TEXT_ATTRIBUTES if isinstance(attributes.get(key), str)), None)
    return span


def _time(flat: dict, which: str, item: Item) -> Optional[str]:
    """A span's start or end: OTLP ``*_time_nano`` (from Potato's flattening), ``*_time_unix_nano``,
    ``*TimeUnixNano`` (nanoseconds) or an ISO ``*_time``."""
    for key in (f"{which}_time_nano", f"{which}_time_unix_nano", f"{which}TimeUnixNano"):
        if key in flat:
            return iso_from_nanoseconds(flat[key], item, key)
    return iso_time(flat.get(f"{which}_time"), item, f"{which}_time")


def _first_string(flat: dict, keys: tuple, nested: tuple = ()) -> Optional[str]:
    for key in keys:
        if _string(flat.get(key)):
            return flat[key]
    if nested and isinstance(flat.get(nested[0]), dict):
        return _string(flat[nested[0]].get(nested[1]))
    return None


def _string(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value else None
