"""What an input file looks like: which framework wrote it, and which ``--from`` reads it.

Two uses, one table of shapes (:func:`recognise`):

- **Refusal.** A converter given another framework's file would misread it silently (``--from
  autogen`` took a LangGraph message list's tool names for agents). Before converting, every file
  is recognised; a file whose shape another format reads stops the conversion with one error
  naming what the file looks like and the ``--from`` that reads it (:class:`WrongFormat`, a
  :class:`PathError`: fatal, nothing written, whatever ``--strict`` says). A file this table does
  not recognise is left to the converter (its own errors name the field), and formats the table
  does not know are never refused.
- **``--from auto``** (and ``init`` without ``--from``): each file is read by the format its
  shape names; a file of no known shape is refused, naming what it holds.

A shape is recognised from every item of the file, so one odd line does not decide it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, List, Optional, Tuple

from ..files import PathError
from . import autogen, crewai, langgraph
from .sources import ConvertError, Item

AUTO = "auto"


@dataclass(frozen=True)
class Shape:
    formats: Tuple[str, ...]
    """The ``--from`` names that read this shape, the one to suggest first."""
    what: str
    """What the file looks like, for messages: ``a LangGraph/LangChain message list``."""


class WrongFormat(PathError):
    """A file of another format than the one asked for, or (``auto``) of no known format."""


def check(format_name: str, path: Path, items: List[Item]) -> None:
    """Refuse a file that ``format_name`` would misread (see the module's docstring)."""
    if format_name not in KNOWN or not items:
        return
    shape = recognise(items)
    if shape is not None and format_name not in shape.formats:
        raise WrongFormat(path, f"this file looks like {shape.what}, which --from {shape.formats[0]} reads, "
                                f"not --from {format_name}")


def choose(path: Path, items: List[Item]) -> Shape:
    """The shape ``--from auto`` reads a file as; a file of no known shape is refused."""
    shape = recognise(items) if items else None
    if shape is None:
        raise WrongFormat(path, f"not a trace format potato-multiagent recognises ({_held(items)}); "
                                f"name one with --from (see: potato-multiagent convert --help)")
    return shape


def recognise(items: List[Item]) -> Optional[Shape]:
    values = [item.value for item in items]
    for test in SHAPES:
        shape = test(values, items)
        if shape is not None:
            return shape
    return None


def _held(items: List[Item]) -> str:
    if not items:
        return "no item"
    first = items[0].value
    if isinstance(first, dict):
        keys = sorted(map(str, first))
        return "objects with keys " + ", ".join(keys[:8]) + (", ..." if len(keys) > 8 else "")
    from .sources import json_kind
    return f"{json_kind(first)} first"


def _all(values: List[Any], test: Callable[[Any], bool]) -> bool:
    return bool(values) and all(test(value) for value in values)


# --- spans ------------------------------------------------------------------------------------------

def _spans(values: List[Any], items: List[Item]) -> Optional[Shape]:
    if not _all(values, _is_span_container):
        return None
    from .otel_genai import otel_spans
    try:
        flats = [flat for _, flat in otel_spans(items)]
    except ConvertError:
        return None
    keys = {key for flat in flats for key in flat["attributes"]}
    names = [flat["name"] for flat in flats]
    framework = _span_framework(flats, keys, names)
    openinference = "openinference.span.kind" in keys
    genai = any(key.startswith("gen_ai.") for key in keys)
    if openinference:
        formats = ("openinference", "otel-genai") if genai else ("openinference",)
        return Shape(formats, f"OpenTelemetry spans with OpenInference attributes{framework}")
    if genai:
        return Shape(("otel-genai",), f"OpenTelemetry spans with GenAI attributes{framework}")
    return Shape(("otel-genai", "openinference"), "OpenTelemetry spans with neither GenAI nor OpenInference "
                                                  f"attributes{framework}")


def _is_span_container(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if "resourceSpans" in value:
        return True
    ids = ("trace_id" in value or "traceId" in value or isinstance(value.get("context"), dict))
    return ids and isinstance(value.get("attributes", {}), dict) and "name" in value


def _span_framework(flats: List[dict], keys: set, names: List[str]) -> str:
    """`` from <framework>`` when the spans say who wrote them, for the message."""
    metadata = [flat["attributes"].get("metadata") for flat in flats]
    if any(isinstance(value, str) and "langgraph_node" in value for value in metadata):
        return " from LangGraph"
    if "crew_key" in keys or "crew_id" in keys:
        return " from CrewAI"
    if any(key.startswith("gcp.vertex.agent.") for key in keys):
        return " from Google ADK"
    if any(key.startswith("smolagents.") for key in keys):
        return " from smolagents"
    if any(name.startswith("autogen ") for name in names):
        return " from AutoGen"
    if any(key.startswith("ag2.") for key in keys):
        return " from AG2"
    if any(name == "agent run" or key.startswith("logfire.") for name in names for key in keys):
        return " from pydantic-ai"
    return ""


# --- native saves -----------------------------------------------------------------------------------

def _openai_agents(values: List[Any], items: List[Item]) -> Optional[Shape]:
    def exported(value):
        if isinstance(value, dict) and isinstance(value.get("data"), list) and "span_data" not in value:
            return bool(value["data"]) and all(exported(entry) for entry in value["data"])
        return isinstance(value, dict) and (value.get("object") in ("trace", "trace.span") or
                                            isinstance(value.get("span_data"), dict))
    if _all(values, exported):
        return Shape(("openai-agents",), "the OpenAI Agents SDK's exported traces and spans")
    return None


def _langgraph(values: List[Any], items: List[Item]) -> Optional[Shape]:
    if _all(values, langgraph.is_message) or _all(values, langgraph.is_state):
        return Shape(("langgraph",), "a LangGraph/LangChain message list (messages_to_dict, model_dump or dumpd)")
    return None


def _pydantic_ai(values: List[Any], items: List[Item]) -> Optional[Shape]:
    def message(value):
        return isinstance(value, dict) and value.get("kind") in ("request", "response") \
            and isinstance(value.get("parts"), list)
    if _all(values, message):
        return Shape(("pydantic-ai",), "pydantic-ai messages (all_messages_json)")
    return None


def _adk(values: List[Any], items: List[Item]) -> Optional[Shape]:
    def session(value):
        return isinstance(value, dict) and isinstance(value.get("events"), list) \
            and any(key in value for key in ("app_name", "appName"))
    if _all(values, session):
        return Shape(("adk",), "a Google ADK session (Session.model_dump_json)")
    return None


def _crewai(values: List[Any], items: List[Item]) -> Optional[Shape]:
    if _all(values, crewai.is_log_entry):
        return Shape(("crewai",), "a CrewAI task log (output_log_file)")
    return None


def _autogen(values: List[Any], items: List[Item]) -> Optional[Shape]:
    if values and any(autogen.is_runtime_log_entry(v) for v in values):
        return Shape(("autogen",), "an AG2 Classic runtime_logging file")
    if _all(values, autogen.is_ag2_event):
        return Shape(("autogen",), "ag2 1.x stream events (serialize_value)")
    if _all(values, lambda v: isinstance(v, dict) and v.get("type") == "TeamState"):
        return Shape(("autogen",), "an AutoGen AgentChat team.save_state()")
    if _all(values, lambda v: isinstance(v, dict) and isinstance(v.get("chat_history"), list)):
        return Shape(("autogen",), "an AG2 ChatResult")
    if _all(values, lambda v: isinstance(v, dict) and isinstance(v.get("messages"), list)
            and all(_agentchat_message(m) for m in v["messages"])):
        return Shape(("autogen",), "an AutoGen AgentChat TaskResult")
    if _all(values, lambda v: _agentchat_message(v) or _magentic_one_line(v)):
        return Shape(("autogen",), "AutoGen AgentChat messages or a Magentic-One log")
    if _all(values, _ag2_message):
        return Shape(("autogen",), "AG2 chat messages ({name, role, content})")
    return None


def _agentchat_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("type"), str) and "source" in value


def _magentic_one_line(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "LLMCallEvent"


def _ag2_message(value: Any) -> bool:
    return isinstance(value, dict) and "content" in value and ("name" in value or "role" in value) \
        and not langgraph.is_message(value)


def _who_and_when(values: List[Any], items: List[Item]) -> Optional[Shape]:
    if _all(values, lambda v: isinstance(v, dict) and isinstance(v.get("history"), list)
            and any(key in v for key in ("mistake_agent", "mistake_step", "question"))):
        return Shape(("who-and-when",), "Who&When runs (history, mistake_agent)")
    return None


def _mast(values: List[Any], items: List[Item]) -> Optional[Shape]:
    if _all(values, lambda v: isinstance(v, dict) and "trace" in v
            and any(key in v for key in ("mas_name", "mast_annotation", "annotations"))):
        return Shape(("mast",), "MAST/MAD records (mas_name, trace)")
    return None


def _dpbench(values: List[Any], items: List[Item]) -> Optional[Shape]:
    if _all(values, lambda v: isinstance(v, dict) and v.get("type") in ("header", "timestep", "episode_end")) \
            and any(v.get("type") == "timestep" for v in values):
        return Shape(("dpbench",), "a DPBench episode log (header, timestep, episode_end lines)")
    return None


SHAPES: Tuple[Callable[[List[Any], List[Item]], Optional[Shape]], ...] = (
    _spans, _openai_agents, _langgraph, _pydantic_ai, _adk, _crewai, _who_and_when, _mast, _dpbench, _autogen)
"""In order: the first that recognises a file decides (LangGraph messages before AG2's, whose
``{name, content}`` they also have)."""

KNOWN = {"otel-genai", "openinference", "openai-agents", "langgraph", "pydantic-ai", "adk", "crewai", "autogen",
         "who-and-when", "mast", "dpbench"}
"""The formats this table speaks for: only they are ever refused a file."""


def formats_in(shapes: Iterable[Shape]) -> List[str]:
    found: List[str] = []
    for shape in shapes:
        if shape.formats[0] not in found:
            found.append(shape.formats[0])
    return found
