"""pydantic-ai: a run's messages as pydantic-ai saves them (``result.all_messages_json()``).

One record per file (id: the file stem): a JSON array of ``ModelRequest`` (``kind: "request"``)
and ``ModelResponse`` (``kind: "response"``) messages, each with its ``parts``. Every message is
one step, in order:

- a request of tool returns (``tool-return``, ``retry-prompt`` parts) is the tools' answer
  (``role: tool``): each part a ``tool_result`` block (``tool_use_id``, ``name``, ``content``,
  ``is_error``), linked to its call by the derivation. A return whose ``outcome`` is ``failed`` or
  ``retried`` (the tool raised, or asked the model to retry with ``ModelRetry``), and a
  ``retry-prompt``, is a failed call: the call's ``error`` is its content, and the step's too when
  every part failed;
- any other request is the user's (``user-prompt`` parts, and ``system-prompt`` parts, as text);
- a response is the agent's: its ``text`` parts are the ``content`` (``thinking`` parts are left
  out), its ``tool-call`` parts the ``tool_calls`` (``id``, ``name``, ``arguments``).

pydantic-ai's messages do not name their agent: a response is the ``assistant``'s. An agent run
by another agent's tool (pydantic-ai's delegation) keeps its own history; its calls and answer are
the tool's result here (its OpenTelemetry spans show both agents).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List

from .sources import Converted, ConvertError, Item, json_kind

SUMMARY = "pydantic-ai messages (result.all_messages_json()): prompts, responses, tool calls and returns, retries"

FAILED_OUTCOMES = ("failed", "retried")
RESULT_PARTS = ("tool-return", "retry-prompt")


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and value.get("kind") in ("request", "response") \
        and isinstance(value.get("parts"), list)


def convert_file(path: Path, items: List[Item]) -> Iterator[Converted]:
    if not items:
        raise ConvertError(path, None, "input", "the file holds no message")
    left_out = set()
    for item in items:
        if not is_message(item.value):
            raise item.error("item", f"expected a pydantic-ai message ({{kind: request|response, parts: [...]}}), "
                                     f"found {json_kind(item.value)}")
        for k, part in enumerate(item.value["parts"]):
            if not isinstance(part, dict):
                raise item.error(f"parts[{k}]", f"expected a message part, found {json_kind(part)}")
        left_out.update(key for key, value in item.value.items()
                        if key not in ("kind", "parts", "timestamp") and value not in (None, {}, [], ""))
    failures = {part.get("tool_call_id"): _result_block(part)["text"] for item in items
                for part in item.value["parts"] if _result_block(part)["is_error"]}
    steps = [_step(item.value, failures) for item in items]
    if left_out:
        print(f"note: {path}: left out of the records: {', '.join(sorted(left_out))}", file=sys.stderr)
    yield Converted(record={"id": path.stem, "steps": steps}, gold=None, item=items[0])


def _step(message: dict, failures: Dict[Any, str]) -> Dict[str, Any]:
    parts = message["parts"]
    step: Dict[str, Any] = {}
    if message["kind"] == "response":
        step["agent"] = "assistant"
        step["content"] = "\n".join(part["content"] for part in parts
                                    if part.get("part_kind") == "text" and isinstance(part.get("content"), str))
        calls = [{"id": part.get("tool_call_id"), "name": part.get("tool_name"), "arguments": part.get("args")}
                 for part in parts if part.get("part_kind") == "tool-call"]
        for call in calls:
            if call["id"] in failures:
                call["error"] = failures[call["id"]]
        if calls:
            step["tool_calls"] = calls
    elif parts and all(part.get("part_kind") in RESULT_PARTS for part in parts):
        blocks = [_result_block(part) for part in parts]
        step.update({"role": "tool", "content": blocks})
        if all(block["is_error"] for block in blocks):
            step["error"] = "\n".join(block["text"] for block in blocks)
    else:
        step["agent"] = "user"
        step["content"] = "\n".join(_text(part.get("content")) for part in parts
                                    if part.get("part_kind") in ("user-prompt", "system-prompt"))
    if isinstance(message.get("timestamp"), str):
        step["time"] = message["timestamp"]
    return step


def _result_block(part: dict) -> dict:
    failed = part.get("part_kind") == "retry-prompt" or \
        part.get("part_kind") == "tool-return" and part.get("outcome") in FAILED_OUTCOMES
    text = _text(part.get("content"))
    return {"type": "tool_result", "tool_use_id": part.get("tool_call_id"), "name": part.get("tool_name"),
            "is_error": failed, "content": text, "text": text}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(entry, str) for entry in content):
        return "\n".join(content)
    return json.dumps(content, ensure_ascii=False)
