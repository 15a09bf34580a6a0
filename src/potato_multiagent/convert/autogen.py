"""AutoGen: AgentChat messages (``TaskResult.messages``) and AG2 chats (``name``/``role`` messages).

A conversation is an object with ``messages`` (AgentChat ``TaskResult``) or ``chat_history`` (AG2
``ChatResult``), or a whole file of messages (a JSON array or JSON Lines, one message each).
Every message becomes one step, in order:

- AgentChat messages keep their fields (``type``, ``source``, ``content``, ...). A
  ``HandoffMessage`` keeps ``source`` and ``target``, so the derivation reads it as an explicit
  handoff event; its ``context`` (the model context handed over, a copy of earlier messages) and
  every ``models_usage`` are left out.
- ``ToolCallRequestEvent``: its ``FunctionCall`` list becomes ``tool_calls`` (``id``, ``name``,
  ``arguments``) and ``content`` a readable line per call.
- ``ToolCallExecutionEvent``: its results become ``content`` blocks ``{type: "tool_result",
  tool_use_id, name, is_error, content, text}`` (the derivation links each to its call by id and
  shows ``text``, a line per result).
- ``MultiModalMessage``: ``content`` keeps the text parts and says ``[image]`` for each image.
- AG2 messages are kept as they are (``name`` before ``role`` names the agent; OpenAI
  ``tool_calls`` are read by the derivation).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, List, Optional

from .sources import Converted, ConvertError, Item, json_kind

SUMMARY = "AutoGen AgentChat messages (HandoffMessage, tool call events) and AG2 name/role chats"

CONVERSATION_KEYS = ("messages", "chat_history")
DROPPED_FIELDS = ("models_usage", "context")


def convert_file(path: Path, items: List[Item]) -> Iterator[Converted]:
    if items and all(_is_conversation(item.value) for item in items):
        for position, item in enumerate(items, start=1):
            default_id = path.stem if len(items) == 1 else f"{path.stem}-{position}"
            yield _conversation(item, default_id)
        return
    for item in items:
        if not _is_message(item.value):
            raise item.error("item", "neither an AutoGen conversation (an object with 'messages' or "
                                     "'chat_history') nor a message (AgentChat {type, source, ...} or AG2 "
                                     "{name, role, content})")
    if not items:
        raise ConvertError(path, None, "input", "the file holds no message")
    steps = [_step(item.value, item, f"[{position}]") for position, item in enumerate(items)]
    yield Converted(record={"id": path.stem, "steps": steps}, gold=None, item=items[0])


def _is_conversation(value: Any) -> bool:
    return isinstance(value, dict) and any(isinstance(value.get(key), list) for key in CONVERSATION_KEYS)


def _is_message(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    agentchat = isinstance(value.get("type"), str) and "source" in value
    ag2 = "content" in value and ("name" in value or "role" in value)
    return agentchat or ag2


def _conversation(item: Item, default_id: str) -> Converted:
    key = next(key for key in CONVERSATION_KEYS if isinstance(item.value.get(key), list))
    record_id = item.value.get("id")
    record = {"id": record_id if isinstance(record_id, str) and record_id else default_id}
    if isinstance(item.value.get("task"), str):
        record["task"] = item.value["task"]
    record["steps"] = [_step(message, item, f"{key}[{k}]") for k, message in enumerate(item.value[key])]
    return Converted(record=record, gold=None, item=item)


def _step(message: Any, item: Item, field: str) -> Any:
    """One message as a step: AgentChat events reshaped so the derivation reads them; the rest as is."""
    if not isinstance(message, dict):
        raise item.error(field, f"expected a message object, found {json_kind(message)}")
    kind = message.get("type")
    step = {key: value for key, value in message.items() if key not in DROPPED_FIELDS}
    if kind == "ToolCallRequestEvent":
        calls = _list_of_objects(message.get("content"), item, f"{field}.content")
        step["tool_calls"] = [{key: call.get(key) for key in ("id", "name", "arguments")} for call in calls]
        step["content"] = "\n".join(f"{call.get('name')}({_text(call.get('arguments'))})" for call in calls)
    elif kind == "ToolCallExecutionEvent":
        results = _list_of_objects(message.get("content"), item, f"{field}.content")
        step["content"] = [_result_block(result) for result in results]
    elif kind == "MultiModalMessage" and isinstance(message.get("content"), list):
        step["content"] = "\n".join(part if isinstance(part, str) else "[image]" for part in message["content"])
    return step


def _list_of_objects(value: Any, item: Item, field: str) -> List[dict]:
    if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
        raise item.error(field, f"expected a list of objects, found {json_kind(value)}")
    return value


def _result_block(result: dict) -> dict:
    marker = " (error)" if result.get("is_error") else ""
    text = f"{result.get('name') or result.get('call_id')}{marker}: {_text(result.get('content'))}"
    return {"type": "tool_result", "tool_use_id": result.get("call_id"), "name": result.get("name"),
            "is_error": result.get("is_error"), "content": result.get("content"), "text": text}


def _text(value: Optional[Any]) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
