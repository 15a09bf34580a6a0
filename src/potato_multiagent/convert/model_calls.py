"""The tool calls models made, as OpenInference records them on ``LLM`` spans, and the tool spans
that ran them: instrumentations of LangGraph and CrewAI write no call id on the tool span."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from .spans import TOOL, name_or_none


def match_calls(members: List[tuple]) -> None:
    """Give each tool span (``owner`` set) the call its agent's model made: the call's id and its
    arguments as the model wrote them (LangGraph's span records a one-argument tool's input as the
    bare value). A tool span that knows its call id (LangGraph's ``ToolMessage``) is paired by it;
    any other with the first call of its tool (names compared without case, spaces or
    underscores: CrewAI sends ``Delegate work to coworker`` as ``delegate_work_to_coworker``) that
    its agent's model made before it started and no other span answered."""
    calls: List[dict] = []
    for _, flat, span in sorted(members, key=lambda member: member[2].start or ""):
        if flat["attributes"].get("openinference.span.kind") == "LLM":
            calls.extend({**call, "owner": span.owner, "at": span.start or ""}
                         for call in output_calls(flat["attributes"]))
    by_id = {call["id"]: call for call in calls}
    tools = sorted((span for _, _, span in members if span.kind == TOOL), key=lambda span: span.start or "")
    answered = {span.call_id for span in tools if span.call_id in by_id}
    for span in tools:
        call = by_id.get(span.call_id)
        if call is None:
            call = next((call for call in calls if call["id"] not in answered and _same_tool(call["name"], span.tool)
                         and call["owner"] == span.owner and call["at"] <= (span.start or "")), None)
            if call is None:
                continue
            answered.add(call["id"])
            span.call_id = call["id"]
        span.arguments = call["arguments"]


def output_calls(attributes: dict) -> List[dict]:
    """The tool calls of an LLM span's output messages (``id``, ``name``, ``arguments``), in order."""
    pattern = re.compile(r"^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\."
                         r"(id|function\.name|function\.arguments)$")
    calls: Dict[tuple, dict] = {}
    for key, value in attributes.items():
        match = pattern.match(key)
        if match:
            calls.setdefault((int(match.group(1)), int(match.group(2))), {})[match.group(3)] = value
    return [{"id": call["id"], "name": call.get("function.name"), "arguments": call.get("function.arguments") or "{}"}
            for _, call in sorted(calls.items()) if name_or_none(call.get("id"))]


def _same_tool(called: Any, ran: Optional[str]) -> bool:
    return isinstance(called, str) and isinstance(ran, str) and _normal(called) == _normal(ran)


def _normal(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name).casefold()
