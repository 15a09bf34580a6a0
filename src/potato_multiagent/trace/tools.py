"""Tool calls in every shape a framework writes them: OpenAI ``tool_calls``, a flat ``tool_call``,
Anthropic ``tool_use`` content blocks and ReAct ``action`` objects or strings; and the step that
holds each call's result."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .jsjson import StrictJSONError, strict_loads
from .names import WS, first_name, first_string_name, is_name
from .problems import problem
from .steps import TOOL_RESULT, TURN, error_text

ID_FIELDS = ("id", "call_id")
TOOL_FIELDS = ("name", "tool")
ARGUMENT_FIELDS = ("arguments", "args", "input", "tool_input")
RESULT_ID_FIELDS = ("tool_call_id", "call_id")
RESULT_ROLES = ("tool", "function")
RESULT_AGENTS = ("tool", "function", "Computer_terminal")
AGENTLESS_RESULT_AGENTS = (None, "tool", "function")

_ACTION_CALL = re.compile(rf"{WS}*([A-Za-z_][A-Za-z0-9_.\-]*){WS}*[(\[]([\s\S]*)[)\]]{WS}*")
_ACTION_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_OPENS_CONTAINER = re.compile(r"[ \t\n\r]*[{\[]")
"""JSON whitespace, then ``{`` or ``[``: matched in place, where stripping would copy the text."""
_OPENERS = ("{", "[")
"""What almost every JSON argument string starts with: tested before the regex."""


def parse_arguments(value: Any) -> Tuple[Any, bool]:
    """``(arguments, invalid)``: a JSON string becomes its object or array; broken JSON is kept.

    >>> parse_arguments('{"q": 1}'), parse_arguments("42"), parse_arguments("{bad")
    (({'q': 1}, False), ('42', False), ('{bad', True))
    """
    if not isinstance(value, str):
        return value, False
    if value[:1] not in _OPENERS and _OPENS_CONTAINER.match(value) is None:
        return value, False  # only text opening with { or [ can parse to an object or an array
    try:
        parsed = strict_loads(value)
    except StrictJSONError:
        return value, value[:1] in _OPENERS
    return (parsed, False) if isinstance(parsed, (dict, list)) else (value, False)


def _action_string(action: str) -> Optional[Tuple[str, Any]]:
    """``(tool, raw arguments)`` of a ReAct action string, or None when it is not a call."""
    match = _ACTION_CALL.fullmatch(action)
    if match:
        return match.group(1), (match.group(2) or None)
    if _ACTION_BARE.fullmatch(action):
        return action, None
    return None


def call_path(step_index: int, shape: str, position: Optional[int]) -> str:
    """The problem path of a call: ``steps[i].tool_calls[k]``, ``steps[i].action``, ..."""
    field = "action" if shape == "action_string" else shape
    suffix = field if position is None else f"{field}[{position}]"
    return f"steps[{step_index}].{suffix}"


def collect_tool_calls(step_index: int, step: Any, agent: Optional[str], calls: List[dict],
                       problems: List[dict]) -> None:
    """Append the calls of one step to ``calls`` as output entries (numbered on from its
    length) and their problems to ``problems``, in the contract's order: ``tool_calls``,
    ``tool_call``, ``tool_use`` content blocks, ``action`` (an object, or a string read as a
    ReAct call). ``collectToolCalls`` in derive.js; each shape is tested for None first, as
    most steps hold one shape or none."""
    if not isinstance(step, dict):
        return
    listed = step.get("tool_calls")
    if listed is not None and isinstance(listed, list):
        for position, call in enumerate(listed):
            _add_object_call(step_index, agent, calls, problems, "tool_calls", position, call)
    single = step.get("tool_call")
    if single is not None and isinstance(single, dict):
        _add_object_call(step_index, agent, calls, problems, "tool_call", None, single)
    content = step.get("content")
    if content is not None and isinstance(content, list):
        for position, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                _add_object_call(step_index, agent, calls, problems, "content", position, block)
    action = step.get("action")
    if action is None:
        return
    if isinstance(action, dict):
        _add_object_call(step_index, agent, calls, problems, "action", None, action)
    elif isinstance(action, str):
        parsed = _action_string(action)
        if parsed is not None:
            _add_call(step_index, agent, calls, problems, "action_string", None, parsed[0], None, parsed[1], None)


def _add_object_call(step_index: int, agent: Optional[str], calls: List[dict], problems: List[dict],
                     shape: str, position: Optional[int], call: Any) -> None:
    """One call object, in the OpenAI shape (name and arguments under ``function``, the id on
    the call) or the flat one; a non-object keeps its place with nothing read."""
    tool = call_id = raw = error = None
    if isinstance(call, dict):
        body = call.get("function")
        if body is None or not isinstance(body, dict):
            body = call
        tool = first_string_name(body, TOOL_FIELDS)
        call_id = first_name(call, ID_FIELDS)
        for key in ARGUMENT_FIELDS:  # the first present (not null) argument field
            raw = body.get(key)
            if raw is not None:
                break
        if "error" in call:
            error = error_text(call["error"])
    _add_call(step_index, agent, calls, problems, shape, position, tool, call_id, raw, error)


def _add_call(step_index: int, agent: Optional[str], calls: List[dict], problems: List[dict], shape: str,
              position: Optional[int], tool: Optional[str], call_id: Optional[str], raw: Any,
              error: Optional[str]) -> None:
    """Append one call's entry, and its problems in the contract's order (name, then arguments)."""
    arguments, invalid = parse_arguments(raw)
    if tool is None:
        problems.append(problem(call_path(step_index, shape, position), "tool_name_missing",
                                "the call has no tool name (name or tool)"))
    if invalid:
        problems.append(problem(call_path(step_index, shape, position), "arguments_invalid",
                                "the arguments look like JSON but do not parse"))
    calls.append({"index": len(calls), "step": step_index, "id": call_id, "agent": agent,
                  "tool": tool, "arguments": arguments, "arguments_invalid": invalid, "result_step": None,
                  "error": error})


def named_call_ids(step: Any) -> Tuple[str, ...]:
    """The call ids a step says it answers: its ``tool_call_id`` and ``call_id``, and the
    ``tool_use_id`` of each ``tool_result`` block in its ``content`` (string names only)."""
    if not isinstance(step, dict):
        return ()
    ids: Tuple[str, ...] = ()  # the empty tuple is shared: most steps name no id
    if not step.keys().isdisjoint(RESULT_ID_FIELDS):  # one C-level test for the common case
        for key in RESULT_ID_FIELDS:
            if key in step and is_name(step[key]):
                ids += (step[key],)
    content = step.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result" and is_name(block.get("tool_use_id")):
                ids += (block["tool_use_id"],)
    return ids


def is_result_step(step: Any, agent: Optional[str]) -> bool:
    """A step that answers the call before it: role ``tool``/``function``, or a tool-like agent."""
    if not isinstance(step, dict):
        return False
    return step.get("role") in RESULT_ROLES or agent in RESULT_AGENTS


def link_results(calls: List[dict], raw_steps: Sequence[Any], steps: Sequence[Any],
                 following: Sequence[Optional[int]]) -> None:
    """Set each call's ``result_step``: the first later step naming its id, else the next step of
    its thread (``following``) when that is a result step naming no id; and each call's ``error``:
    its result step's, else its own (docs/derivation.md#call-results)."""
    if not calls:
        return
    naming: Dict[str, List[int]] = {}
    naming_steps = set()
    for index, step in enumerate(raw_steps):
        for call_id in named_call_ids(step):
            naming.setdefault(call_id, []).append(index)
            naming_steps.add(index)
    for call in calls:
        step = call["step"]
        named = naming.get(call["id"]) if naming else None
        result = _first_after(named, step) if named else None
        if result is None:
            after = following[step]
            if after is not None and after not in naming_steps \
                    and is_result_step(raw_steps[after], steps[after].agent):
                result = after
        if result is not None:
            call["result_step"] = result
            error = steps[result].error
            if error is not None:
                call["error"] = error


def attribute_results(steps: List[Any], calls: List[dict]) -> List[Any]:
    """Give each tool result with no agent of its own to its caller (SPEC §3 "Tool results").

    A ``turn`` that is a call's ``result_step`` and whose agent is null, ``tool`` or ``function``
    becomes ``kind: "tool_result"`` with the agent of the first call it answers, so that
    ``assistant -> tool -> assistant`` is one agent using a tool, not two handoffs. Steps are
    settled in index order; a call always precedes its result, so the caller's agent is final
    when it is read. Each call then takes its step's final agent.
    """
    answered: Dict[int, dict] = {}
    for call in calls:
        if call["result_step"] is not None:
            answered.setdefault(call["result_step"], call)
    if not answered:
        return steps
    settled = list(steps)
    for index, step in enumerate(settled):
        call = answered.get(index)
        if call is not None and step.kind == TURN and step.agent in AGENTLESS_RESULT_AGENTS:
            settled[index] = replace(step, agent=settled[call["step"]].agent, qualifier=None, to=None,
                                     kind=TOOL_RESULT)
    for call in calls:
        call["agent"] = settled[call["step"]].agent
    return settled


def _first_after(ascending: List[int], step: int) -> Optional[int]:
    position = bisect_right(ascending, step)
    return ascending[position] if position < len(ascending) else None
