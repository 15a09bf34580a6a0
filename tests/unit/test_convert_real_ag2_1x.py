"""ag2 1.x runs the real framework wrote (tests/fixtures/real/ag2-1x/, scripts/fixtures/ag2_beta_runs.py).

Every expected value is written by hand from the scripted runs (the README's table). Read from
ag2's TelemetryMiddleware spans (``otel-genai``) and from its stream events (``autogen``).
"""

from pathlib import Path

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import convert_inputs

from .framework_runs import handoffs, span_calls
from .framework_runs import one_record as read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "ag2-1x"
FINAL = "Snow at 3C and jazz night on Saturday; the table could not be booked."


def one_record(fmt, name):
    return read(fmt, FIXTURES / name)


@pytest.mark.parametrize("name", ["team.otlp.jsonl", "team.console.json"])
def test_team_from_spans(name):
    record = one_record("otel-genai", name)
    derivation = derive(record)
    assert derivation.agents == ["planner", "researcher"]
    assert not any(step["span"].startswith("record_usage") for step in record["steps"])  # token accounting
    assert handoffs(derivation) == [
        ("planner", "researcher", "delegation"), ("researcher", "planner", "return")]
    assert span_calls(record) == [
        ("planner", "ask_researcher", "call_p1", {"objective": "What is on in Oslo this weekend?"}, "Jazz night on Saturday.", None),
        ("planner", "get_weather", "call_p2", {"city": "Oslo"}, "Oslo: 3C, snow", None),
        ("researcher", "search", "call_r1", {"query": "Oslo events"}, "Jazz night at Blue Note on Saturday", None),
        ("planner", "book_table", "call_p3", {"venue": "Blue Note"}, None, "booking service unreachable")]
    assert [step["error"] for step in record["steps"] if "error" in step] == ["booking service unreachable"]
    assert derivation.steps[-1].agent == "planner" and derivation.steps[-1].text == FINAL
    assert all(step.text or "tool_call" in record["steps"][step.index] or record["steps"][step.index]["span"].startswith("invoke_agent")
               for step in derivation.steps)  # no empty step besides the agents' own spans


def test_crash_from_spans():
    record = one_record("otel-genai", "crash.otlp.jsonl")
    assert [(step["agent"], step["span"], step["error"]) for step in record["steps"] if "error" in step] == [
        ("planner", "chat scripted", "RuntimeError: model service unreachable")]
    assert record["error"] == "RuntimeError: model service unreachable"


def test_team_from_stream_events():
    conversion = convert_inputs("autogen", [FIXTURES / "team.events.jsonl"])
    [record] = conversion.records
    derivation = derive(record)
    assert derivation.agents == ["user", "assistant", "researcher"]  # the stream does not name its own agent
    assert handoffs(derivation) == [
        ("user", "assistant", "implicit"), ("assistant", "researcher", "delegation"), ("researcher", "assistant", "return")]
    assert [(c["agent"], c["tool"], c["id"], c["arguments"], c["error"]) for c in derivation.tool_calls] == [
        ("assistant", "ask_researcher", "call_p1", {"objective": "What is on in Oslo this weekend?"}, None),
        ("assistant", "get_weather", "call_p2", {"city": "Oslo"}, None),
        ("assistant", "book_table", "call_p3", {"venue": "Blue Note"}, "ConnectionError: booking service unreachable")]
    assert [derivation.steps[c["result_step"]].text for c in derivation.tool_calls] == [
        "ask_researcher: Jazz night on Saturday.", "get_weather: Oslo: 3C, snow",
        "book_table (error): ConnectionError: booking service unreachable"]
    assert [(step.agent, step.text) for step in derivation.steps if step.agent == "researcher"] == [
        ("researcher", "What is on in Oslo this weekend?"), ("researcher", "Jazz night on Saturday.")]
    assert [step["type"] for step in record["steps"]] == [
        "ModelRequest", "ModelResponse", "TaskStarted", "ToolResultEvent", "TaskCompleted", "ToolResultEvent",
        "ModelResponse", "ToolErrorEvent", "ModelResponse"]  # no container repeats, no UsageEvent
    assert derivation.steps[-1].text == FINAL


def test_crash_stream_events():
    record = one_record("autogen", "crash.events.jsonl")
    assert [(c["tool"], c["arguments"], c["error"]) for c in derive(record).tool_calls] == [
        ("get_weather", {"city": "Oslo"}, None)]
    assert [step["type"] for step in record["steps"]] == ["ModelRequest", "ModelResponse", "ToolResultEvent"]
