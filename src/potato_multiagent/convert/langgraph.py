"""LangGraph: a run's message list as LangChain saves it, and LangGraph traces over OpenInference.

**Native** (``--from langgraph``): ``messages_to_dict(state["messages"])`` (``[{"type": "ai",
"data": {...}}]``), ``[m.model_dump() for m in state["messages"]]`` (``[{"type": "ai", "content",
"name", "tool_calls", ...}]``), LangChain's ``dumpd`` form (``{"lc": 1, "type": "constructor",
"id": [..., "AIMessage"], "kwargs": {...}}``), or an object holding such a list under
``messages`` (a saved state). One conversation (one record) per file, or per state object; every
message is one step, in order:

- ``human`` / ``system``: the user's or the system's turn (``agent`` ``user`` / ``system``);
- ``ai``: a turn of the agent its ``name`` names (``create_react_agent(name=...)`` writes it on
  every message; without one the step is the ``assistant``'s); its ``tool_calls`` (``id``,
  ``name``, ``args``) are the step's calls, except handoff tools, which the step says as
  ``name(arguments)`` lines after its text;
- ``tool``: the result of the call its ``tool_call_id`` names (``role: "tool"``, the tool in
  ``tool_name``; ``status: "error"`` is a failed call: the step's ``error`` is the result); a
  handoff tool's result (``transfer_to_<agent>``,
  ``transfer_back_to_<agent>``, as langgraph-supervisor and langgraph-swarm name them) is an
  explicit handoff from the agent that called it to the agent it names.

**Over OpenInference** (``--from openinference``, :func:`read_trace`): the instrumentation marks
as ``AGENT`` every span whose name contains "agent" (graph nodes, handoff tools) while the real
agents are sub-graphs of kind ``CHAIN``. The agent of a span is the sub-graph it ran in: the
deepest segment of its ``langgraph_checkpoint_ns`` (``alice:<uuid>|agent:<uuid>`` -> ``alice``)
that is itself a graph (some other span runs below it). Steps are what the agents did: the model
calls (``LLM``: what the model said, its calls as ``name(arguments)``) and the tool calls (spans
with ``tool.name``; a handoff tool is an explicit handoff); graph nodes, routers and runnables are
bookkeeping (their input and output are LangGraph's state, not something an agent said).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .sources import Converted, ConvertError, Item, json_kind
from .model_calls import match_calls
from .spans import HANDOFF, OTHER, TOOL, Span, call_line, decoded, name_or_none

SUMMARY = ("LangGraph/LangChain message lists (messages_to_dict, model_dump, dumpd, a saved state's messages): "
           "agents by message name, tool calls, transfer_to_<agent> handoffs")

MESSAGE_TYPES = {"human": "HumanMessage", "ai": "AIMessage", "tool": "ToolMessage", "system": "SystemMessage",
                 "function": "FunctionMessage", "chat": "ChatMessage"}
"""LangChain's message ``type`` and class name (``AIMessageChunk`` and the like read as their type)."""
HANDOFF_TOOL = re.compile(r"transfer_(?:back_)?to_(.+)")
"""langgraph-supervisor's and langgraph-swarm's handoff tools: ``transfer_to_<agent>``, ``transfer_back_to_<agent>``."""
HANDOFF_DESTINATION = "__handoff_destination"
"""Where langgraph-supervisor and langgraph-swarm write a handoff tool's target (tool and message metadata)."""
SHOWN_FIELDS = {"type", "content", "name", "id", "tool_calls", "tool_call_id", "status"}
QUIET_FIELDS = {"additional_kwargs": {}, "response_metadata": {}, "invalid_tool_calls": [], "usage_metadata": None,
                "artifact": None, "example": False}
"""Fields LangChain writes on every message: named on stderr only when they hold something."""


# --- native message lists -------------------------------------------------------------------------

def is_message(value: Any) -> bool:
    """A LangChain message in one of its saved forms."""
    return _message_fields(value) is not None


def is_state(value: Any) -> bool:
    """A saved state: an object whose ``messages`` is a list of LangChain messages."""
    return isinstance(value, dict) and isinstance(value.get("messages"), list) and bool(value["messages"]) \
        and all(is_message(message) for message in value["messages"])


def _message_fields(value: Any) -> Optional[dict]:
    """The message's fields with its ``type`` (human, ai, tool, ...), whatever the saved form."""
    if not isinstance(value, dict):
        return None
    if value.get("lc") == 1 and value.get("type") == "constructor" and isinstance(value.get("kwargs"), dict):
        name = value.get("id")[-1] if isinstance(value.get("id"), list) and value.get("id") else None
        kind = next((kind for kind, cls in MESSAGE_TYPES.items() if isinstance(name, str) and name.startswith(cls)),
                    None)
        return {**value["kwargs"], "type": kind} if kind else None
    kind = value.get("type")
    if kind not in MESSAGE_TYPES:
        return None
    data = value.get("data")
    if isinstance(data, dict) and "content" in data and set(value) == {"type", "data"}:
        return {**data, "type": kind}
    if "content" in value and ("additional_kwargs" in value or "response_metadata" in value):
        return value
    return None


def convert_file(path: Path, items: List[Item]) -> Iterator[Converted]:
    notes: Counter = Counter()
    if items and all(is_state(item.value) for item in items):
        for position, item in enumerate(items, start=1):
            record_id = path.stem if len(items) == 1 else f"{path.stem}-{position}"
            located = [(message, item, f"messages[{k}]") for k, message in enumerate(item.value["messages"])]
            for field in item.value:
                if field != "messages":
                    notes[f"{field} (a state field other than messages)"] += 1
            yield Converted(record={"id": record_id, "steps": _steps(located, notes)}, gold=None, item=item)
    else:
        for item in items:
            if not is_message(item.value):
                raise item.error("item", f"expected a LangChain message (messages_to_dict's {{type, data}}, "
                                         f"model_dump's {{type, content, ...}} or dumpd's constructor), "
                                         f"found {_described(item.value)}")
        if not items:
            raise ConvertError(path, None, "input", "the file holds no message")
        located = [(item.value, item, "item") for item in items]
        yield Converted(record={"id": path.stem, "steps": _steps(located, notes)}, gold=None, item=items[0])
    for note, count in sorted(notes.items()):
        print(f"note: {path}: left out of the records: {note} ({count}x)", file=sys.stderr)


def _described(value: Any) -> str:
    if isinstance(value, dict):
        return "an object with keys " + ", ".join(sorted(map(str, value))[:6])
    return json_kind(value)


def _steps(located: List[Tuple[Any, Item, str]], notes: Counter) -> List[dict]:
    messages = []
    for value, item, field in located:
        fields = _message_fields(value)
        if fields is None:
            raise item.error(field, f"expected a LangChain message, found {_described(value)}")
        messages.append(fields)
    callers = {}  # call id -> (agent, tool name)
    agents = []
    for message in messages:
        if message["type"] == "ai":
            agent = name_or_none(message.get("name")) or "assistant"
            agents.append(agent)
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict) and name_or_none(call.get("id")):
                    callers[call["id"]] = (agent, call.get("name"))
    steps = []
    for message in messages:
        for key, value in message.items():
            if key not in SHOWN_FIELDS and QUIET_FIELDS.get(key, object()) != value:
                notes[f"message {key}"] += 1
        steps.append(_step(message, callers, agents))
    return steps


def _step(message: dict, callers: Dict[str, tuple], agents: List[str]) -> dict:
    kind = message["type"]
    step: Dict[str, Any] = {}
    if name_or_none(message.get("id")):
        step["id"] = message["id"]
    if kind == "ai":
        step["agent"] = name_or_none(message.get("name")) or "assistant"
        requested = [call for call in message.get("tool_calls") or [] if isinstance(call, dict)]
        handoffs = [call for call in requested if _handoff_target(call.get("name"), None, agents)]
        step["content"] = "\n".join([_text(message.get("content"))] * bool(_text(message.get("content"))) +
                                     [call_line(call["name"], call.get("args") or {}) for call in handoffs])
        calls = [{"id": call.get("id"), "name": call.get("name"), "arguments": call.get("args")}
                 for call in requested if call not in handoffs]
        if calls:
            step["tool_calls"] = calls
        return step
    if kind == "tool":
        call_id = name_or_none(message.get("tool_call_id"))
        caller, called = callers.get(call_id, (None, None))
        name = name_or_none(message.get("name")) or called
        target = _handoff_target(name, message.get("response_metadata"), agents)
        if target is not None and caller is not None:
            return {**step, "type": "handoff", "from_agent": caller, "to_agent": target,
                    "content": _text(message.get("content"))}
        step.update({"role": "tool", "tool_name": name, "tool_call_id": call_id,
                     "content": _text(message.get("content"))})
        if message.get("status") == "error":
            step["error"] = _text(message.get("content")) or "the tool failed"
        return step
    step["agent"] = {"human": "user", "system": "system"}.get(kind) or name_or_none(message.get("name")) or kind
    step["content"] = _text(message.get("content"))
    return step


def _handoff_target(tool_name: Any, metadata: Any, agents: List[str]) -> Optional[str]:
    """The agent a handoff tool hands to: its metadata's destination, else the tool name's agent
    (written back in the spelling the run's agents use: the tool name is lower-cased)."""
    if isinstance(metadata, dict) and name_or_none(metadata.get(HANDOFF_DESTINATION)):
        return metadata[HANDOFF_DESTINATION]
    match = HANDOFF_TOOL.fullmatch(tool_name) if isinstance(tool_name, str) else None
    if match is None:
        return None
    return next((agent for agent in agents if re.sub(r"\s+", "_", agent.strip()).lower() == match.group(1)),
                match.group(1))


def _text(content: Any) -> str:
    """A message's content: a string as it is; content blocks give their text, one per line."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(block if isinstance(block, str) else block.get("text", "")
                         for block in content if isinstance(block, str) or
                         (isinstance(block, dict) and isinstance(block.get("text"), str)))
    return "" if content is None else json.dumps(content, ensure_ascii=False)



# --- LangGraph traces over OpenInference ---------------------------------------------------------

def metadata_of(attributes: dict) -> dict:
    """The span's LangChain ``metadata`` attribute (a JSON string), or ``{}``."""
    value = attributes.get("metadata")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def is_trace(members: List[tuple]) -> bool:
    """A LangGraph trace: some span ran in a graph node (``langgraph_node`` in its metadata)."""
    return any("langgraph_node" in metadata_of(flat["attributes"]) for _, flat, _ in members)


def read_trace(members: List[tuple]) -> Tuple[dict, List[Span]]:
    """The spans of one LangGraph trace (``(item, flat, span)``) reread as its agents' steps, and the
    record's context (``workflow``: the root span's name)."""
    namespaces = {span.span_id: _namespace(flat["attributes"]) for _, flat, span in members}
    graphs = {path[:depth] for path in namespaces.values() for depth in range(1, len(path))}
    context: Dict[str, Any] = {}
    for _, flat, span in members:
        attributes = flat["attributes"]
        path = namespaces[span.span_id]
        span.owner = next((path[depth - 1].split(":", 1)[0] for depth in range(len(path), 0, -1)
                           if path[:depth] in graphs and not path[depth - 1].startswith("__")), None)
        span.agent = None
        if name_or_none(attributes.get("tool.name")):
            _tool_span(span, attributes, metadata_of(attributes))
        elif attributes.get("openinference.span.kind") != "LLM":
            span.kind, span.bookkeeping, span.text = OTHER, True, None
        if span.parent_id is None and "workflow" not in context:
            context["workflow"] = span.name
    match_calls(members)
    return context, [span for _, _, span in members]


def _namespace(attributes: dict) -> tuple:
    value = metadata_of(attributes).get("langgraph_checkpoint_ns")
    return tuple(segment for segment in value.split("|") if segment) if isinstance(value, str) else ()


def _tool_span(span: Span, attributes: dict, metadata: dict) -> None:
    """A tool span: a handoff when the tool is a transfer tool, else a call whose id, result and
    failure come from the ``ToolMessage`` it returned."""
    name = attributes["tool.name"]
    output = decoded(attributes.get("output.value"))
    goto = output.get("goto") if isinstance(output, dict) else None
    target = name_or_none(metadata.get(HANDOFF_DESTINATION)) or (goto if name_or_none(goto) else None)
    if target is None and HANDOFF_TOOL.fullmatch(name):
        target = HANDOFF_TOOL.fullmatch(name).group(1)
    if target is not None:
        span.kind, span.to_agent, span.from_agent, span.text = HANDOFF, target, None, None
        return
    message = _tool_message(output)
    span.kind, span.tool, span.text = TOOL, name, None
    if message is not None:
        span.call_id = name_or_none(message.get("tool_call_id"))
        span.output = _text(message.get("content"))
        if message.get("status") == "error" and not span.error:
            span.error = span.output or "the tool failed"


def _tool_message(output: Any) -> Optional[dict]:
    fields = _message_fields(output)
    return fields if fields is not None and fields["type"] == "tool" else None
