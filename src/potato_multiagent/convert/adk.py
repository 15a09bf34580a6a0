"""Google ADK: a session as ADK saves it, and what ADK's spans need (natively and over OpenInference).

**Native** (``--from adk``): ``Session.model_dump_json()`` (``{"id", "app_name", "user_id",
"state", "events": [...]}``), one record per session (id: the session's ``id``). Every event is
one step, in order, by its ``author`` (``user`` or an agent):

- text parts are the step's ``content`` (joined by newlines);
- ``function_call`` parts are its ``tool_calls`` (``id``, ``name``, ``arguments``), except the
  ``transfer_to_agent`` call, which the content says as ``transfer_to_agent({...})``;
- ``function_response`` parts are ``tool_result`` blocks (``tool_use_id``, ``name``, ``content``
  the response, ``is_error`` when the response holds ``error``), linked to their calls by the
  derivation; a response with an error marks its call, and the step when every response failed;
- an event whose ``actions.transfer_to_agent`` names an agent is an explicit handoff from its
  author to that agent;
- ``error_code`` / ``error_message`` (a run that ended in an exception) are the step's ``error``.

**ADK's spans** (read by :mod:`.otel_genai`, and by :mod:`.openinference` through
:func:`read_trace`): ``invoke_workflow`` (the run, its ``gen_ai.workflow.name`` the record's
``workflow``; also the inner run of an agent called as a tool) and ``execute_tool (merged)``
(bookkeeping ADK adds beside the calls of one parallel batch) add no step; ``transfer_to_agent``
is an explicit handoff; a tool response ``{"error": ...}`` is the failed call's error text (ADK's
status description says only ``TOOL_ERROR``), and ``{"result": x}`` (how ADK wraps a value that is
not an object) shows ``x``. Over OpenInference ADK's ``agent_run [<agent>]`` span holds the run's
last event: its ``content.parts[].text`` is shown, placed where that event happened (the end of
the run), and the ``invocation [<app>]`` span adds no step.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .sources import Converted, Item, json_kind
from .spans import AGENT, HANDOFF, TOOL, Span, call_line, decoded, name_or_none

SUMMARY = "Google ADK sessions (Session.model_dump_json()): events by author, function calls, transfers, errors"

TRANSFER_TOOL = "transfer_to_agent"
MERGED_TOOLS = "(merged tools)"
"""``gen_ai.tool.name`` of ADK's ``execute_tool (merged)`` span."""
NO_CALL_ID = "<not specified>"
"""What ADK writes as a call's id on the span of a call that never answered (it raised)."""
ATTRIBUTE_PREFIX = "gcp.vertex.agent."
"""ADK's own span attributes (``gcp.vertex.agent.event_id``, ...): a span ADK wrote."""
SESSION_FIELDS = {"id", "app_name", "user_id", "events"}


# --- native sessions -------------------------------------------------------------------------------

def is_session(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("events"), list) and "app_name" in value


def convert_file(path: Path, items: List[Item]) -> Iterator[Converted]:
    left_out = set()
    for position, item in enumerate(items, start=1):
        if not is_session(item.value):
            raise item.error("item", f"expected an ADK session (Session.model_dump_json(): id, app_name, events), "
                                     f"found {json_kind(item.value)}")
        session = item.value
        events = session["events"]
        for k, event in enumerate(events):
            if not isinstance(event, dict):
                raise item.error(f"events[{k}]", f"expected an event object, found {json_kind(event)}")
        record_id = session.get("id") if isinstance(session.get("id"), str) and session.get("id") else \
            (path.stem if len(items) == 1 else f"{path.stem}-{position}")
        record: Dict[str, Any] = {"id": record_id}
        record.update({key: session[key] for key in ("app_name", "user_id") if isinstance(session.get(key), str)})
        record["steps"] = _steps(events)
        left_out.update(f"session {key}" for key, value in session.items()
                        if key not in SESSION_FIELDS and value not in (None, {}, []))
        yield Converted(record=record, gold=None, item=item)
    if left_out:
        print(f"note: {path}: left out of the records: {', '.join(sorted(left_out))} (and each event's "
              f"bookkeeping: invocation ids, usage, state deltas)", file=sys.stderr)


def _steps(events: List[dict]) -> List[dict]:
    responses: Dict[str, Any] = {}
    for event in events:
        for part in _parts(event):
            response = part.get("function_response")
            if isinstance(response, dict) and isinstance(response.get("id"), str):
                responses[response["id"]] = response.get("response")
    return [_step(event, responses) for event in events]


def _parts(event: dict) -> List[dict]:
    content = event.get("content") if isinstance(event.get("content"), dict) else {}
    return [part for part in content.get("parts") or [] if isinstance(part, dict)]


def _step(event: dict, responses: Dict[str, Any]) -> dict:
    step: Dict[str, Any] = {"agent": event.get("author")}
    if isinstance(event.get("id"), str):
        step["id"] = event["id"]
    if isinstance(event.get("timestamp"), (int, float)):
        step["time"] = event["timestamp"]
    parts = _parts(event)
    texts = [part["text"] for part in parts if isinstance(part.get("text"), str) and not part.get("thought")]
    calls = [part["function_call"] for part in parts if isinstance(part.get("function_call"), dict)]
    results = [part["function_response"] for part in parts if isinstance(part.get("function_response"), dict)
               and part["function_response"].get("name") != TRANSFER_TOOL]
    transfers = [call for call in calls if call.get("name") == TRANSFER_TOOL]
    lines = texts + [call_line(call["name"], call.get("args") or {}) for call in transfers]
    if results:
        blocks = [_result_block(result) for result in results]
        step["content"] = blocks
        if all(block["is_error"] for block in blocks):
            step["error"] = "\n".join(block["text"] for block in blocks)
    else:
        step["content"] = "\n".join(lines)
    tool_calls = [{"id": call.get("id"), "name": call.get("name"), "arguments": call.get("args")}
                  for call in calls if call not in transfers]
    for call in tool_calls:
        error = response_error(responses.get(call["id"]))
        if error:
            call["error"] = error
    if tool_calls:
        step["tool_calls"] = tool_calls
    actions = event.get("actions") if isinstance(event.get("actions"), dict) else {}
    target = actions.get("transfer_to_agent")
    if isinstance(target, str) and target and target != event.get("author"):
        step = {"type": "handoff", "from_agent": event.get("author"), "to_agent": target,
                **{key: value for key, value in step.items() if key != "agent"}}
    if event.get("error_code") or event.get("error_message"):
        step["error"] = ": ".join(str(part) for part in (event.get("error_code"), event.get("error_message")) if part)
    return step


def _result_block(result: dict) -> dict:
    response = result.get("response")
    error = response_error(response)
    text = error or shown_response(response)
    return {"type": "tool_result", "tool_use_id": result.get("id"), "name": result.get("name"),
            "is_error": error is not None, "content": text, "text": text}


# --- ADK's spans -----------------------------------------------------------------------------------

def response_error(response: Any) -> Optional[str]:
    """The error a tool response reports (``{"error": "..."}``), or None."""
    value = decoded(response)
    error = value.get("error") if isinstance(value, dict) else None
    return error if isinstance(error, str) and error else None


def shown_response(response: Any) -> str:
    """A tool response as shown: ``{"result": x}`` (ADK's wrapping of a value that is not an object)
    shows ``x``; any other value is shown as JSON."""
    value = decoded(response)
    if isinstance(value, dict) and set(value) == {"result"}:
        value = value["result"]
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def transfer_target(arguments: Any) -> Optional[str]:
    value = decoded(arguments)
    target = value.get("agent_name") if isinstance(value, dict) else None
    return target if isinstance(target, str) and target else None


def resolve_transfers(spans: List[Span]) -> None:
    """A transfer recorded without its arguments (content capture off) hands over to the agent
    whose run starts next."""
    ordered = sorted((span for span in spans if span.start), key=lambda span: span.start)
    for span in spans:
        if span.kind == HANDOFF and span.to_agent is None and span.start:
            span.to_agent = next((later.agent for later in ordered if later.kind == AGENT and later.agent
                                  and later.start > span.start), None)


def is_trace(members: List[tuple]) -> bool:
    """An ADK trace over OpenInference: ADK's ``agent_run [...]`` / ``invocation [...]`` spans."""
    return any(span.name.startswith(("agent_run [", "invocation [")) for _, _, span in members)


def read_trace(members: List[tuple]) -> Tuple[dict, List[Span]]:
    context: Dict[str, Any] = {}
    for _, flat, span in members:
        attributes = flat["attributes"]
        operation = attributes.get("gen_ai.operation.name")
        if span.name.startswith("invocation [") or operation == "invoke_workflow" or \
                attributes.get("gen_ai.tool.name") == MERGED_TOOLS:
            span.bookkeeping, span.text = True, None
            if operation == "invoke_workflow" and not attributes.get("gen_ai.workflow.nested") \
                    and isinstance(attributes.get("gen_ai.workflow.name"), str):
                context.setdefault("workflow", attributes["gen_ai.workflow.name"])
        elif span.kind == AGENT:
            span.text = _event_text(attributes.get("output.value"))
            span.order_at = span.end or span.start  # the run's last event, shown where it happened
            span.bookkeeping = span.text is None  # a run that ended in a transfer says nothing
        elif span.kind == TOOL and span.tool == TRANSFER_TOOL:
            span.kind, span.from_agent, span.text = HANDOFF, None, None
            span.to_agent = transfer_target(attributes.get("input.value") or attributes.get("tool.parameters"))
        elif span.kind == TOOL:
            call_id = name_or_none(attributes.get("tool.id")) or name_or_none(attributes.get("gen_ai.tool.call.id"))
            span.call_id = call_id if call_id != NO_CALL_ID else None
            output = decoded(attributes.get("output.value"))
            response = output.get("response") if isinstance(output, dict) and "response" in output else output
            if response is not None:
                span.output = shown_response(response)
                error = response_error(response)
                if error and span.error:
                    span.error = error
    spans = [span for _, _, span in members]
    resolve_transfers(spans)
    return context, spans


def _event_text(value: Any) -> Optional[str]:
    """The text parts of an ADK event (``content.parts[].text``), one per line."""
    event = decoded(value)
    content = event.get("content") if isinstance(event, dict) else None
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        return value if isinstance(value, str) and not isinstance(event, dict) else None
    texts = [part["text"] for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str)
             and not part.get("thought")]
    return "\n".join(texts) or None
