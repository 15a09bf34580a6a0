"""Reading one step: who acted, whom they addressed, whether it was a handoff event, its text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from .jsjson import js_stringify
from .names import NON_WS, WS, first_name, is_name, name_of

AGENT_FIELDS = ("agent", "sender", "source", "speaker", "name", "role")
ADDRESSEE_FIELDS = ("receiver", "recipient", "to", "target", "addressee")
HANDOFF_SOURCE_FIELDS = ("from_agent", "source", "from")
HANDOFF_TARGET_FIELDS = ("to_agent", "target", "to")
HANDOFF_TYPES = ("handoff", "handoffmessage")
TEXT_FIELDS = ("content", "text", "message", "thought", "action", "result")
SOURCE_ID_FIELDS = ("span_id", "message_id", "id")
"""Where a step carries the id its source gave it (an OpenTelemetry span, a chat message)."""

TURN = "turn"
HANDOFF = "handoff"
TOOL_RESULT = "tool_result"

_QUALIFIED = re.compile(rf"([\s\S]*{NON_WS}){WS}+\(([^()]*)\)")
_LEADING_WS = re.compile(f"^{WS}+")
_ARROW_TARGET = re.compile(rf"(?:->|→)({WS}*)([\s\S]*?)({WS}*)")


@dataclass(slots=True)
class Step:
    """One step as the derivation sees it (the ``steps`` entries of the output).

    Read-only by convention: a frozen dataclass costs four times as much to build, and a trace
    has tens of thousands of steps (bench/derive_timing.py).
    """

    index: int
    agent: Optional[str]
    qualifier: Optional[str]
    to: Optional[str]
    kind: str
    text: str
    thread: Optional[str] = None
    parent_thread: Optional[str] = None
    error: Optional[str] = None
    source_id: Optional[str] = None

    def to_dict(self) -> dict:
        return {"index": self.index, "agent": self.agent, "qualifier": self.qualifier,
                "to": self.to, "kind": self.kind, "text": self.text, "thread": self.thread,
                "parent_thread": self.parent_thread, "error": self.error, "source_id": self.source_id}


@lru_cache(maxsize=64)
def agent_fields(agent_key: str) -> tuple:
    """The agent fallback chain, with the configured key first."""
    return (agent_key,) + tuple(field for field in AGENT_FIELDS if field != agent_key)


def split_qualifier(name: str) -> tuple[str, Optional[str], Optional[str]]:
    """``(agent, qualifier, target)`` for a name such as ``Orchestrator (-> WebSurfer)``.

    >>> split_qualifier("Orchestrator (-> WebSurfer)")
    ('Orchestrator', '-> WebSurfer', 'WebSurfer')
    >>> split_qualifier("Orchestrator(thought)")
    ('Orchestrator(thought)', None, None)
    """
    if name[-1:] != ")":  # the grammar ends with ")": most names are settled without the regex
        return name, None, None
    match = _QUALIFIED.fullmatch(name)
    if match is None:
        return name, None, None
    agent, qualifier = match.group(1), match.group(2)
    arrow = _ARROW_TARGET.fullmatch(_LEADING_WS.sub("", qualifier))
    target = arrow.group(2) if arrow and is_name(arrow.group(2)) else None
    return agent, qualifier, target


def step_text(step: Any) -> str:
    """What a widget shows for a step: the first present text field, flattened to one string."""
    if isinstance(step, dict):
        for field in TEXT_FIELDS:
            value = step.get(field)
            if value is not None:
                return value if isinstance(value, str) else _as_text(value)  # most texts are strings
        return ""
    return "" if step is None else _as_text(step)


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []  # one pass; an item that is neither a string nor a block makes it plain JSON
        for item in value:
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, dict):
                text = _block_text(item)
                if text is not None:
                    parts.append(text)
            else:
                return js_stringify(value)
        return "\n".join(parts)
    return js_stringify(value)


def _block_text(block: dict) -> Optional[str]:
    """A content block's text; an Anthropic ``tool_result`` block lends its content's text."""
    if isinstance(block.get("text"), str):
        return block["text"]
    if block.get("type") != "tool_result":
        return None
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [inner["text"] for inner in content if isinstance(inner, dict) and isinstance(inner.get("text"), str)]
        return "\n".join(texts) if texts else None
    return None


def error_text(value: Any) -> Optional[str]:
    """What failed, as the record says it: a name, or an object's ``message`` when that is one.

    >>> error_text("HTTP 500"), error_text({"message": "timeout"}), error_text({"code": 1}), error_text(" ")
    ('HTTP 500', 'timeout', None, None)
    """
    if is_name(value):
        return value
    if isinstance(value, dict) and is_name(value.get("message")):
        return value["message"]
    return None


def source_id(step: dict) -> Optional[str]:
    """The step's own id in its source: the first of ``SOURCE_ID_FIELDS`` that is a (string) name."""
    if step.keys().isdisjoint(SOURCE_ID_FIELDS):   # most steps carry none: one C-level test
        return None
    return next((step[field] for field in SOURCE_ID_FIELDS
                 if field in step and isinstance(step[field], str) and is_name(step[field])), None)


def _is_handoff_event(step: dict) -> bool:
    kind = step.get("type")
    if isinstance(kind, str) and kind.lower() in HANDOFF_TYPES and kind.isascii():
        return True
    return "to_agent" in step and name_of(step["to_agent"]) is not None


def read_step(index: int, step: Any, agent_fields: tuple, qualifiers: bool) -> Step:
    """Read one raw step into a :class:`Step` by the rules of docs/derivation.md.

    ``agent_fields`` is :func:`agent_fields` of the configured agent key, looked up once per
    derivation rather than once per step.
    """
    text = step_text(step)
    if not isinstance(step, dict):
        return Step(index, None, None, None, TURN, text)
    thread = step.get("thread")
    if thread is not None and not is_name(thread):
        thread = None
    error = error_text(step["error"]) if "error" in step else None
    own_id = source_id(step)
    if _is_handoff_event(step):
        source = first_name(step, HANDOFF_SOURCE_FIELDS + agent_fields)
        target = first_name(step, HANDOFF_TARGET_FIELDS)
        if source is not None and target is not None and source != target:
            return Step(index, source, None, target, HANDOFF, text, thread, None, error, own_id)
    agent = first_name(step, agent_fields)
    qualifier = target = None
    if qualifiers and agent is not None and agent[-1] == ")":  # the qualifier grammar ends with ")"
        agent, qualifier, target = split_qualifier(agent)
    # most steps name no addressee: one C-level test of the keys instead of five lookups
    addressee = None if step.keys().isdisjoint(ADDRESSEE_FIELDS) else first_name(step, ADDRESSEE_FIELDS)
    if addressee is None:
        addressee = target
    if addressee == agent:
        addressee = None
    return Step(index, agent, qualifier, addressee, TURN, text, thread, None, error, own_id)
