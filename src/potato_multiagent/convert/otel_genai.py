"""OpenTelemetry GenAI spans (semantic conventions for agents and tools), one record per trace.

Input, in any mix across files (a trace's spans may sit in several files, e.g. two export batches):
OTLP JSON (``{"resourceSpans": [...]}``, one export per file or per JSON line as the collector's
file exporter writes, ids in hex or in protobuf JSON's base64), the OpenTelemetry SDK's
``ConsoleSpanExporter`` output (``ReadableSpan.to_json()``: pretty-printed spans back to back by
default, or one per line; ids under ``context``, ``0x`` hex) and flat spans (``trace_id``/
``span_id``/``parent_span_id``, ``attributes`` a map, times as ``start_time_unix_nano`` or ISO).

By ``gen_ai.operation.name``: ``invoke_agent`` with ``gen_ai.agent.name`` is an agent span (it
names the agent of every span below it; a span's own ``gen_ai.agent.name`` counts only without
one: the OpenAI-Agents instrumentation writes its default "OpenAI Agent" on every span);
``invoke_agent`` without a name (the workflow's root span, its name the record's ``workflow``) and
``unknown`` (the SDK's task/turn spans) add no step; ``execute_tool`` is a tool call
(``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``,
``gen_ai.tool.call.result``) and, with its times, a timed call on that tool; a span with
``gen_ai.handoff.to_agent`` (and ``gen_ai.handoff.from_agent``) is an explicit handoff; other spans
show the text parts of ``gen_ai.output.messages`` (a list or its JSON string; or the older
``gen_ai.completion``). A span with an error status gives the step its ``error`` (its exception
event's type and message, the stack trace in ``error_details``); an exception recorded on a span
that did not fail is control flow the framework caught, not an error. Traces tied by span links
(AutoGen links a run's spans rather than parenting them) are one record. Nanosecond times become
ISO UTC strings with microseconds.
"""

from __future__ import annotations

import base64
import binascii
import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import adk
from .sources import Converted, Item, json_kind
from .spans import AGENT, HANDOFF, OTHER, TOOL, Span, Unshown, agent_of_each, iso_from_nanoseconds, iso_time, \
    messages_text, trace_record

SUMMARY = "OpenTelemetry GenAI spans (OTLP JSON, console exporter, flat): invoke_agent, execute_tool, handoffs"

TEXT_ATTRIBUTES = ("gen_ai.output.messages", "gen_ai.completion")
BOOKKEEPING_OPERATIONS = ("unknown", "create_agent")
"""``unknown``: the OpenAI-Agents instrumentation's task/turn spans; ``create_agent``: AutoGen's."""
AUTOGEN_RUNTIME = "autogen "
"""autogen-core's runtime spans (``autogen create|publish|process|send|ack <topic or agent>``): the
message passing between agents, which ties a team run together by span links."""
AG2_USAGE = "usage"
"""``ag2.span.type`` of ag2 1.x's ``record_usage <kind>`` spans: token accounting, not a step."""
TRACEBACK = "Traceback (most recent call last)"
SHOWN_ATTRIBUTES = {"gen_ai.operation.name", "gen_ai.workflow.name", "gen_ai.conversation.id", "error.type",
                    "gen_ai.agent.name", "gen_ai.tool.name", "gen_ai.tool.call.id",
                    "gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "gen_ai.handoff.to_agent",
                    "gen_ai.handoff.from_agent", *TEXT_ATTRIBUTES}


def convert_file(path: Path, items: List[Item]) -> List[Converted]:
    return convert_files([(path, items)])


def convert_files(files: List[Tuple[Path, List[Item]]]) -> List[Converted]:
    """One record per trace (traces tied by links merged), its spans gathered from every file."""
    unshown = Unshown()
    flats = [(item, flat) for _, items in files for item, flat in otel_spans(items)]
    spans = [(item, flat, _span(flat, item, unshown)) for item, flat in flats]
    unshown.report()
    converted = []
    for trace_id, members in group_traces(spans).items():
        if not has_steps(trace_id, members):
            continue
        trace_spans = [span for _, _, span in members]
        adk.resolve_transfers(trace_spans)
        context = {**_workflow(members), **_conversation(members), **_ag2(members)}
        _credit_tools_to_callers(members)
        record = trace_record(trace_id, trace_spans, context)
        converted.append(Converted(record=record, gold=None, item=members[0][0],
                                   warnings=_no_content_warning(record, members[0][0])))
    return converted


def _credit_tools_to_callers(members: List[tuple]) -> None:
    """A tool call is the agent's whose model asked for it (a ``tool_call`` part with its id in a
    span's ``gen_ai.output.messages``), not the executing agent's: AG2 runs a tool in the turn of
    the agent that executes it (a user proxy)."""
    spans = [span for _, _, span in members]
    agents = agent_of_each(spans)
    callers: Dict[str, str] = {}
    for _, flat, span in members:
        for call_id in _requested_call_ids(flat["attributes"].get("gen_ai.output.messages")):
            if agents.get(span.span_id):
                callers.setdefault(call_id, agents[span.span_id])
    for span in spans:
        if span.kind == TOOL and span.call_id in callers and callers[span.call_id] != agents.get(span.span_id):
            span.owner = callers[span.call_id]


def _requested_call_ids(messages: Any) -> List[str]:
    if isinstance(messages, str):
        try:
            messages = json.loads(messages)
        except ValueError:
            return []
    if not isinstance(messages, list):
        return []
    return [part["id"] for message in messages if isinstance(message, dict)
            for part in message.get("parts") or [] if isinstance(part, dict)
            and part.get("type") == "tool_call" and isinstance(part.get("id"), str)]


def _ag2(members: List[tuple]) -> dict:
    """AG2 Classic's spans (``ag2.span.type``): the ``conversation`` span holds a copy of the whole
    chat (no step; its first input message is the record's ``task``); a group chat manager's
    ``invoke_agent`` (no output of its own, the speakers' ``invoke_agent`` spans right below it)
    only passes the turn, so it is no step and no agent the speakers work for; an ``invoke_agent``
    whose output its own ``chat`` span says again adds no step (AG2 writes every turn on both)."""
    if not any("ag2.span.type" in flat["attributes"] for _, flat, _ in members):
        return {}
    context: Dict[str, Any] = {}
    by_id = {span.span_id: span for _, _, span in members}
    children: Dict[str, List[Span]] = {}
    for span in by_id.values():
        children.setdefault(span.parent_id, []).append(span)
    for _, flat, span in members:
        attributes = flat["attributes"]
        if attributes.get("gen_ai.operation.name") == "conversation":
            span.bookkeeping, span.text = True, None
            task = messages_text(attributes.get("gen_ai.input.messages"))
            if task and span.parent_id is None:
                context.setdefault("task", task)
        elif span.kind == AGENT and span.text is None and \
                any(child.kind == AGENT for child in children.get(span.span_id, [])):
            span.kind, span.bookkeeping = OTHER, True
            span.agent_hint = None
        elif span.kind == AGENT and span.text and any(
                child.text == span.text for child in children.get(span.span_id, []) if child.kind != AGENT):
            span.bookkeeping = True
    return context


def _conversation(members: List[tuple]) -> dict:
    """The conversation (``gen_ai.conversation.id``, ADK's session) of the trace's root spans."""
    found = {flat["attributes"].get("gen_ai.conversation.id") for _, flat, span in members
             if span.parent_id is None} - {None, ""}
    return {"session": found.pop()} if len(found) == 1 and isinstance(next(iter(found)), str) else {}


def _no_content_warning(record: dict, item: Item) -> tuple:
    """A run whose steps hold no text and whose tool calls no arguments or results was recorded
    without message content (ADK's default): say how to record it."""
    steps = record["steps"]
    calls = [step["tool_call"] for step in steps if "tool_call" in step]
    if any(step.get("content") for step in steps) or any(call.get("arguments") is not None for call in calls) \
            or any(step.get("result") is not None for step in steps if "tool_call" in step):
        return ()
    return (f"{item.path}:{item.line}: steps: trace {record['id']} holds no message content (no text, no tool "
            f"arguments or results): the instrumentation recorded none. Google ADK records content only with "
            f"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY set when the run is traced",)


def has_steps(trace_id: str, members: List[tuple]) -> bool:
    """A trace of bookkeeping spans only (AutoGen's ``create_agent``) gives no record, with a note."""
    if any(not span.bookkeeping for _, _, span in members):
        return True
    names = sorted({span.name for _, _, span in members})
    print(f"note: {members[0][0].path}: trace {trace_id} holds only bookkeeping spans ({', '.join(names)}): "
          f"no record", file=sys.stderr)
    return False


def _workflow(members: List[tuple]) -> dict:
    """The workflow of the trace's root span: an unnamed ``invoke_agent`` (its span name), ADK's
    ``invoke_workflow`` (``gen_ai.workflow.name``)."""
    for _, flat, span in members:
        operation = flat["attributes"].get("gen_ai.operation.name")
        if span.bookkeeping and span.parent_id is None and operation in ("invoke_agent", "invoke_workflow"):
            name = flat["attributes"].get("gen_ai.workflow.name")
            return {"workflow": name if isinstance(name, str) and name else span.name}
    return {}


# --- reading OpenTelemetry spans, shared with openinference ---------------------------------------

def otel_spans(items: List[Item]) -> Iterator[Tuple[Item, dict]]:
    """``(item, span)`` pairs, each span normalised: ``trace_id``, ``span_id``, ``parent_id`` (lowercase
    hex), ``name``, ``start``/``end`` (ISO), ``attributes`` (a map), ``error`` and ``links``."""
    for item in items:
        value = item.value
        if isinstance(value, dict) and "resourceSpans" in value:
            for resource in _list(value, "resourceSpans", item):
                around = [f"resource attribute {key}" for key in
                          _otlp_attributes((resource.get("resource") or {}).get("attributes") or [])]
                for scope in _list(resource, "scopeSpans", item):
                    for span in _list(scope, "spans", item):
                        flat = _from_otlp(span, item)
                        flat["unshown"] += around + (["instrumentation scope"] if scope.get("scope") else [])
                        yield item, flat
        elif isinstance(value, dict) and isinstance(value.get("attributes", {}), dict):
            yield item, _from_flat(value, item)
        else:
            raise item.error("item", f"expected an OTLP export (resourceSpans) or a span with an attributes "
                                     f"map, found {json_kind(value)}")


def group_traces(spans: List[Tuple[Item, dict, Span]]) -> Dict[str, List[tuple]]:
    """Spans by trace, traces tied by a span link (either way) joined under the first one's id."""
    owner: Dict[str, str] = {}

    def find(trace_id: str) -> str:
        while owner.setdefault(trace_id, trace_id) != trace_id:
            trace_id = owner[trace_id]
        return trace_id

    for _, flat, _ in spans:
        find(flat["trace_id"])
        for linked_trace in flat["link_traces"]:
            first, second = find(flat["trace_id"]), find(linked_trace)
            if first != second:
                owner[second] = first
    groups: Dict[str, List[tuple]] = {}
    for member in spans:
        groups.setdefault(find(member[1]["trace_id"]), []).append(member)
    return groups


def _from_otlp(span: Any, item: Item) -> dict:
    if not isinstance(span, dict):
        raise item.error("spans", f"expected a span object, found {json_kind(span)}")
    status = span.get("status") or {}
    code = status.get("code")
    failed = code in (2, "2", "STATUS_CODE_ERROR", "ERROR")
    return {"trace_id": _otlp_id(span.get("traceId"), item, "traceId"),
            "span_id": _otlp_id(span.get("spanId"), item, "spanId"),
            "parent_id": _otlp_id(span.get("parentSpanId"), item, "parentSpanId", optional=True),
            "name": span.get("name") if isinstance(span.get("name"), str) else "",
            "start": iso_from_nanoseconds(span.get("startTimeUnixNano"), item, "startTimeUnixNano"),
            "end": iso_from_nanoseconds(span.get("endTimeUnixNano"), item, "endTimeUnixNano"),
            "attributes": _otlp_attributes(span.get("attributes") or []),
            **_errors(failed, status.get("message"),
                      [(e.get("name"), _otlp_attributes(e.get("attributes") or []))
                       for e in span.get("events") or [] if isinstance(e, dict)]),
            "link_traces": [_otlp_id(link.get("traceId"), item, "links.traceId")
                            for link in span.get("links") or [] if isinstance(link, dict) and link.get("traceId")],
            "unshown": _unshown_structure(span, span.get("events"), failed)}


def _from_flat(span: dict, item: Item) -> dict:
    context = span.get("context") if isinstance(span.get("context"), dict) else {}
    trace_id = _first(span, "trace_id", "traceId") or context.get("trace_id")
    span_id = _first(span, "span_id", "spanId") or context.get("span_id")
    if not isinstance(trace_id, str) or not trace_id:
        raise item.error("trace_id", "every span needs its trace id (trace_id, traceId or context.trace_id)")
    if not isinstance(span_id, str) or not span_id:
        raise item.error("span_id", "every span needs its id (span_id, spanId or context.span_id)")
    status = span.get("status") if isinstance(span.get("status"), dict) else {}
    code = status.get("status_code", status.get("code"))
    failed = code in ("ERROR", "STATUS_CODE_ERROR", 2)
    links = [link.get("context", link) for link in span.get("links") or [] if isinstance(link, dict)]
    return {"trace_id": _flat_id(trace_id), "span_id": _flat_id(span_id),
            "parent_id": _flat_id(_first(span, "parent_id", "parent_span_id", "parentSpanId")),
            "name": span.get("name") if isinstance(span.get("name"), str) else "",
            "start": _flat_time(span, "start", item), "end": _flat_time(span, "end", item),
            "attributes": span.get("attributes") or {},
            **_errors(failed, status.get("description"),
                      [(e.get("name"), e.get("attributes") or {})
                       for e in span.get("events") or [] if isinstance(e, dict)]),
            "link_traces": [_flat_id(link.get("trace_id") or link.get("traceId")) for link in links
                            if isinstance(link, dict) and (link.get("trace_id") or link.get("traceId"))],
            "unshown": _unshown_structure(span, span.get("events"), failed) + [
                f"resource attribute {key}" for key in ((span.get("resource") or {}).get("attributes") or {})]}


def _unshown_structure(span: dict, events: Any, failed: bool) -> List[str]:
    """A span's fields besides ids, times, status, attributes and links: its kind and its events
    (a failed span's ``exception`` event is shown as the error)."""
    names = ["span kind"] if span.get("kind") not in (None, "", 0, "SPAN_KIND_UNSPECIFIED") else []
    for event in events or []:
        name = event.get("name") if isinstance(event, dict) else None
        if name != "exception":
            names.append(f"event {name}")
        elif not failed:
            names.append("event exception on a span that did not fail (control flow the framework caught)")
    return names


def _errors(failed: bool, description: Any, events: List[tuple]) -> dict:
    error, details = _error_text(failed, description, events)
    return {"error": error, "error_details": details}


def _error_text(failed: bool, description: Any, events: List[tuple]) -> Tuple[Optional[str], Optional[str]]:
    """A failed span's error and what more it says (kept apart, in the step's ``error_details``).

    The error is the status description, unless that holds a traceback (LangGraph's instrumentation
    writes the exception's repr and the whole traceback there): then it is the exception event's
    type (without its module) and message. The details are the event's stack trace (else the
    description, when the error is not all of it). Only a failed status is an error: an
    ``exception`` event on a span whose status is not ERROR is control flow the framework caught
    (LangGraph raises ``ParentCommand`` on every handoff)."""
    if not failed:
        return None, None
    exception = next((attributes for name, attributes in reversed(events)
                      if name == "exception" and isinstance(attributes, dict)), None) or {}
    kind, message = exception.get("exception.type"), exception.get("exception.message")
    trace = exception.get("exception.stacktrace") if isinstance(exception.get("exception.stacktrace"), str) else None
    described = description if isinstance(description, str) and description.strip() else None
    if described and TRACEBACK not in described:
        return described, trace
    if kind or message:
        short_kind = str(kind).rsplit(".", 1)[-1] if kind else None
        return ": ".join(str(part) for part in (short_kind, message) if part), trace or described
    if described:
        return described.strip().split("\n", 1)[0], described
    return "error (no description)", None


def _otlp_id(value: Any, item: Item, field_name: str, optional: bool = False) -> Optional[str]:
    """An OTLP id as lowercase hex: hex as the OTLP/JSON specification writes it, or base64 as
    protobuf's JSON mapping does (so hex and base64 exports of one trace meet); other strings are
    kept as opaque ids."""
    if value in (None, "") and optional:
        return None
    if not isinstance(value, str) or not value:
        raise item.error(field_name, f"expected the id (hex or base64), found {json_kind(value)}")
    if len(value) in (16, 32) and all(c in "0123456789abcdefABCDEF" for c in value):
        return value.lower()
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        decoded = b""
    return decoded.hex() if len(decoded) in (8, 16) else value  # anything else: an opaque id, as it is


def _flat_id(value: Any) -> Optional[str]:
    """A flat span's id as written (the console exporter's ``0x`` hex is kept: it is the record id)."""
    return value if isinstance(value, str) and value else None


def _otlp_attributes(attributes: Any) -> dict:
    """OTLP's ``[{"key", "value": {"stringValue": ...}}]`` as a map of plain values."""
    found = {}
    for attribute in attributes if isinstance(attributes, list) else []:
        if isinstance(attribute, dict) and isinstance(attribute.get("key"), str):
            found[attribute["key"]] = _otlp_value(attribute.get("value"))
    return found


def _otlp_value(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_otlp_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return _otlp_attributes((value["kvlistValue"] or {}).get("values", []))
    return None


def _flat_time(span: dict, which: str, item: Item) -> Optional[str]:
    """A flat span's start or end: ``*_time_unix_nano``/``*TimeUnixNano`` (nanoseconds) or ISO ``*_time``."""
    for key in (f"{which}_time_nano", f"{which}_time_unix_nano", f"{which}TimeUnixNano"):
        if key in span:
            return iso_from_nanoseconds(span[key], item, key)
    return iso_time(span.get(f"{which}_time"), item, f"{which}_time")


def _list(value: Any, key: str, item: Item) -> list:
    found = value.get(key, []) if isinstance(value, dict) else None
    if not isinstance(found, list):
        raise item.error(key, f"expected an array, found {json_kind(found)}")
    return found


def _first(span: dict, *keys: str) -> Any:
    return next((span[key] for key in keys if isinstance(span.get(key), str) and span[key]), None)


# --- GenAI semantic conventions ---------------------------------------------------------------------

def _span(flat: dict, item: Item, unshown: Unshown) -> Span:
    attributes = flat["attributes"]
    operation = attributes.get("gen_ai.operation.name")
    span = Span(span_id=flat["span_id"], parent_id=flat["parent_id"], name=flat["name"] or str(operation or "span"),
                kind=OTHER, start=flat["start"], end=flat["end"], error=flat["error"],
                error_details=flat["error_details"],
                agent_hint=_string(attributes.get("gen_ai.agent.name")))
    if _string(attributes.get("gen_ai.handoff.to_agent")):
        span.kind = HANDOFF
        span.from_agent = _string(attributes.get("gen_ai.handoff.from_agent"))
        span.to_agent = attributes["gen_ai.handoff.to_agent"]
    elif operation == "invoke_agent":
        span.kind, span.agent, span.agent_hint = AGENT, span.agent_hint, None
        span.bookkeeping = span.agent is None
    elif operation == "invoke_workflow":  # ADK's run (and the inner run of an agent called as a tool)
        span.bookkeeping = True
    elif operation == "execute_tool" and attributes.get("gen_ai.tool.name") == adk.MERGED_TOOLS:
        span.bookkeeping = True
    elif operation == "execute_tool" and attributes.get("gen_ai.tool.name") == adk.TRANSFER_TOOL:
        span.kind, span.to_agent = HANDOFF, adk.transfer_target(attributes.get("gen_ai.tool.call.arguments"))
    elif operation == "execute_tool":
        span.kind, span.tool = TOOL, _string(attributes.get("gen_ai.tool.name"))
        call_id = _string(attributes.get("gen_ai.tool.call.id"))
        span.call_id = call_id if call_id != adk.NO_CALL_ID else None
        span.arguments = attributes.get("gen_ai.tool.call.arguments")
        span.output = attributes.get("gen_ai.tool.call.result")
        if span.output is not None and any(key.startswith(adk.ATTRIBUTE_PREFIX) for key in attributes):
            span.output = adk.shown_response(span.output)
        failure = _string(attributes.get("error.type"))
        if failure or span.error:  # error.type marks a failure (GenAI conventions), even without an ERROR status
            span.error = adk.response_error(span.output) or span.error or failure
    elif operation in BOOKKEEPING_OPERATIONS and not any(key in attributes for key in TEXT_ATTRIBUTES):
        span.bookkeeping = True
    elif operation is None and span.name.startswith(AUTOGEN_RUNTIME):
        span.bookkeeping = True
    elif attributes.get("ag2.span.type") == AG2_USAGE:
        span.bookkeeping = True
    if span.kind not in (TOOL,) and not span.bookkeeping:
        span.text = next((messages_text(attributes[key]) for key in TEXT_ATTRIBUTES if attributes.get(key)), None)
    unshown.add(item, [f"attribute {key}" for key in attributes if key not in SHOWN_ATTRIBUTES] + flat["unshown"])
    return span


def _string(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value else None
