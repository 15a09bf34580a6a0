"""OpenInference spans (Arize Phoenix and the openinference-instrumentation-* packages), one record per trace.

The spans are OpenTelemetry spans (read as :mod:`.otel_genai` reads them: OTLP JSON with hex or
base64 ids, the console exporter's output, flat spans; a trace across several files) whose
attributes follow the OpenInference conventions. By ``openinference.span.kind``:

- ``AGENT``: an agent span, named by ``agent.name`` (else ``gen_ai.agent.name``, pydantic-ai's;
  else ``graph.node.id``, else the span's name without smolagents' ``.run`` suffix); an ``AGENT``
  span with no ``agent.name``, no input and no output that encloses other ``AGENT`` spans is the
  workflow's wrapper (its name the record's ``workflow``) and adds no step;
- ``TOOL``: a tool call (``tool.name``, ``tool.call.id`` or ``tool_call.id``, arguments
  ``input.value``, or its ``kwargs`` in smolagents' call record; result ``output.value``); a
  ``TOOL`` span without
  ``tool.name`` named ``handoff to X`` whose ``output.value`` is X is the OpenAI-Agents
  instrumentation's handoff (from ``input.value``, else the enclosing agent);
- ``LLM``: the text of ``llm.output_messages.*`` (content and tool calls), else ``output.value``;
- ``CHAIN`` and the others: bookkeeping when they carry neither input nor output (the SDK's
  ``turn`` and ``Agent workflow`` spans), else a step showing ``output.value`` (smolagents'
  ``Step N`` spans: the step's observations).

Agent steps show their ``output.value``, unless a model call below says it (the agent's last
answer, shown once). ``input.value`` is shown only as a tool's arguments or a
handoff's source: elsewhere (an agent's task, a step's memory record, an LLM's prompt) it repeats
earlier steps and is named on stderr with the other attributes not shown.

An error status gives the step its ``error`` (as in :mod:`.otel_genai`: an exception on a span that
did not fail is control flow, such as LangGraph's ``ParentCommand`` on every handoff).
``session.id`` is the record's ``session`` when the trace's spans agree on it.

LangGraph, CrewAI and Google ADK traces are shaped by their instrumentations so that these rules
would misread them: each has its own reading (``FRAMEWORKS``), in its framework's module.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from . import adk, crewai, langgraph, trail
from .otel_genai import group_traces, has_steps, otel_spans
from .sources import Converted, Item
from .spans import AGENT, HANDOFF, OTHER, TOOL, Span, Unshown, ancestors, call_line, messages_text, trace_record

SUMMARY = "OpenInference spans (Phoenix, openinference-instrumentation-*): AGENT, TOOL, LLM, CHAIN"

KIND = "openinference.span.kind"
SHOWN = {KIND, "session.id", "agent.name", "gen_ai.agent.name", "graph.node.id", "tool.name", "tool.call.id",
         "tool_call.id", "input.value", "output.value"}
FRAMEWORKS = (langgraph, crewai, adk)
"""Frameworks whose traces the instrumentation shapes so that they need their own reading: each
module's ``is_trace(members)`` and ``read_trace(members) -> (context, spans)``."""
_OUTPUT_MESSAGE = re.compile(r"^llm\.output_messages\.(\d+)\.message\.(.+)$")


def convert_file(path: Path, items: List[Item]) -> List[Converted]:
    return convert_files([(path, items)])


def convert_files(files: List[Tuple[Path, List[Item]]]) -> List[Converted]:
    """One record per trace (traces tied by links merged), its spans gathered from every file."""
    files, labels = trail.unnest(files)  # TRAIL's nested span trees, flat; their rows' labels
    unshown = Unshown()
    members = [(item, flat, _span(flat, item, unshown)) for _, items in files for item, flat in otel_spans(items)]
    unshown.report()
    records = []
    for trace_id, trace_members in group_traces(members).items():
        framework = next((reader for reader in FRAMEWORKS if reader.is_trace(trace_members)), None)
        if framework is not None:
            context, spans = framework.read_trace(trace_members)
        else:
            spans = [span for _, _, span in trace_members]
            silent = {flat["span_id"] for _, flat, _ in trace_members
                      if "input.value" not in flat["attributes"] and "output.value" not in flat["attributes"]}
            context = _mark_wrappers(spans, silent)
        context.update(_session(trace_members))
        _drop_repeated_answers(spans, {flat["span_id"] for _, flat, _ in trace_members
                                       if flat["attributes"].get(KIND) == "LLM"})
        if not has_steps(trace_id, trace_members):
            continue
        records.append(trail.located(Converted(record=trace_record(trace_id, spans, context), gold=None,
                                               item=trace_members[0][0]), spans, labels))
    return records


def _drop_repeated_answers(spans: List[Span], model_calls: set) -> None:
    """An agent span's output is its last answer, which a model call below it already says: the
    agent's step shows it once, there, not again at the agent's start (pydantic-ai's
    ``invoke_agent``, LangChain agents)."""
    by_id = {span.span_id: span for span in spans}
    said: Dict[str, set] = {}
    for span in spans:
        if span.span_id in model_calls and span.text:
            for ancestor in ancestors(span, by_id):
                said.setdefault(ancestor.span_id, set()).add(span.text)
    for span in spans:
        if span.kind == AGENT and span.text and span.text in said.get(span.span_id, ()):
            span.text = None


def _session(members: List[tuple]) -> dict:
    """The conversation the trace belongs to (``session.id``, LangGraph's thread id), when its spans agree."""
    sessions = {flat["attributes"].get("session.id") for _, flat, _ in members} - {None, ""}
    return {"session": sessions.pop()} if len(sessions) == 1 and isinstance(next(iter(sessions)), str) else {}


def _span(flat: dict, item: Item, unshown: Unshown) -> Span:
    attributes = flat["attributes"]
    kind = attributes.get(KIND)
    span = Span(span_id=flat["span_id"], parent_id=flat["parent_id"], name=flat["name"] or str(kind or "span"),
                kind=OTHER, start=flat["start"], end=flat["end"], error=flat["error"],
                error_details=flat["error_details"])
    output, given = attributes.get("output.value"), attributes.get("input.value")
    shown = SHOWN - {"input.value"}
    if kind == "AGENT":
        span.kind = AGENT
        span.agent = _string(attributes.get("agent.name")) or _string(attributes.get("gen_ai.agent.name")) \
            or _string(attributes.get("graph.node.id"))
        span.text = output if isinstance(output, str) else None
    elif kind == "TOOL" and not attributes.get("tool.name") and isinstance(output, str) \
            and span.name == f"handoff to {output}":
        span.kind, span.to_agent, span.from_agent = HANDOFF, output, _string(given)
        shown.add("input.value")
    elif kind == "TOOL":
        span.kind, span.tool = TOOL, _string(attributes.get("tool.name")) or span.name
        span.call_id = _string(attributes.get("tool.call.id")) or _string(attributes.get("tool_call.id"))
        span.arguments, span.output = _tool_arguments(given), output
        shown.add("input.value")
    elif kind == "LLM":
        span.text, used = _output_messages_text(attributes)
        shown |= used
        if span.text is None:
            span.text = messages_text(output) if output is not None else None
    elif given is None and output is None:
        span.bookkeeping = True
    else:
        span.text = output if isinstance(output, str) else None
    unshown.add(item, [f"attribute {key}" for key in attributes if key not in shown] + flat["unshown"])
    return span


def _tool_arguments(given: Any) -> Any:
    """A tool's arguments: ``input.value``, or its ``kwargs`` when it is the smolagents call record
    ``{"args": [], "sanitize_inputs_outputs": ..., "kwargs": {...}}``."""
    decoded = _json_or_none(given) if isinstance(given, str) else None
    if isinstance(decoded, dict) and isinstance(decoded.get("kwargs"), dict) and not decoded.get("args") \
            and set(decoded) <= {"args", "kwargs", "sanitize_inputs_outputs"}:
        return json.dumps(decoded["kwargs"], ensure_ascii=False)
    return given


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _output_messages_text(attributes: dict) -> Tuple[Optional[str], set]:
    """The text of the flattened ``llm.output_messages.<i>.message.*`` attributes: content, tool calls."""
    messages: Dict[int, dict] = {}
    used = set()
    for key, value in attributes.items():
        match = _OUTPUT_MESSAGE.match(key)
        if match:
            used.add(key)
            messages.setdefault(int(match.group(1)), {})[match.group(2)] = value
    lines: List[str] = []
    for _, fields in sorted(messages.items()):
        if isinstance(fields.get("content"), str) and fields["content"]:
            lines.append(fields["content"])
        calls: Dict[int, dict] = {}
        for name, value in fields.items():
            call = re.match(r"^tool_calls\.(\d+)\.tool_call\.(.+)$", name)
            if call:
                calls.setdefault(int(call.group(1)), {})[call.group(2)] = value
        for _, call in sorted(calls.items()):
            if isinstance(call.get("function.name"), str):
                lines.append(call_line(call["function.name"], call.get("function.arguments", "")))
    return ("\n".join(lines) or None), used


def _mark_wrappers(spans: List[Span], silent: set) -> dict:
    """An ``AGENT`` span with no agent name of its own, no input and no output that encloses other
    agent spans (the OpenAI-Agents workflow span) is the workflow's wrapper: no step, its name the
    ``workflow``. Other unnamed ``AGENT`` spans are named by the span (smolagents writes
    ``<agent name>.run``: the agent is ``<agent name>``)."""
    by_id = {span.span_id: span for span in spans}
    enclosing_agents = set()
    for span in spans:
        if span.kind == AGENT:
            parent, seen = by_id.get(span.parent_id), set()
            while parent is not None and parent.span_id not in seen:
                seen.add(parent.span_id)
                enclosing_agents.add(parent.span_id)
                parent = by_id.get(parent.parent_id)
    context: Dict[str, Any] = {}
    for span in spans:
        if span.kind == AGENT and span.agent is None:
            if span.span_id in enclosing_agents and span.span_id in silent:
                span.bookkeeping = True
                if span.parent_id is None:
                    context["workflow"] = span.name
            else:
                span.agent = span.name[:-len(".run")] if span.name.endswith(".run") else span.name
    return context


def _string(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value else None
