"""pydantic-ai runs the real framework wrote (tests/fixtures/real/pydantic-ai/, scripts/fixtures/pydantic_ai_runs.py).

Every expected value is written by hand from the scripted runs (the README's table). Each run is
read from pydantic-ai's own spans (``otel-genai``), with OpenInference's attributes
(``openinference``), and from the saved messages (``pydantic-ai``).
"""

from pathlib import Path

import pytest

from potato_multiagent import derive

from .framework_runs import handoffs, span_calls
from .framework_runs import one_record as read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "pydantic-ai"
SPAN_FILES = [("otel-genai", "team.otlp.jsonl"), ("otel-genai", "team.console.json"),
              ("openinference", "team.openinference.otlp.jsonl")]


def one_record(fmt, name):
    return read(fmt, FIXTURES / name)


@pytest.mark.parametrize("fmt, name", SPAN_FILES, ids=[name for _, name in SPAN_FILES])
def test_team_from_spans(fmt, name):
    record = one_record(fmt, name)
    derivation = derive(record)
    assert derivation.agents == ["planner", "researcher"]  # not "invoke_agent planner"
    assert handoffs(derivation) == [("planner", "researcher", "delegation"), ("researcher", "planner", "return")]
    assert span_calls(record) == [
        ("planner", "ask_researcher", "call_p1", {"question": "What is on in Oslo this weekend?"},
         "Jazz night on Saturday.", None),
        ("planner", "get_weather", "call_p2", {"city": "Oslo"}, "Oslo: 3C, snow", None),
        ("researcher", "search", "call_r1", {"query": "Oslo events"}, "Jazz night at Blue Note on Saturday", None),
        ("planner", "book_table", "call_p3", {"venue": "Blue Note"}, "booking service down, try later",
         "ToolRetryError: booking service down, try later")]
    assert [step["error"] for step in record["steps"] if "error" in step] == [
        "ToolRetryError: booking service down, try later"]
    texts = [(step.agent, step.text) for step in derivation.steps if step.text]
    final = "Snow at 3C and jazz night on Saturday; the table could not be booked."
    assert [agent for agent, text in texts if text == final] == ["planner"]  # said once: no repeated answer
    assert texts[-1] == ("planner", final)
    assert ("researcher", "Jazz night on Saturday.") in texts
    asks = {step["tool_call"]["name"]: step for step in record["steps"] if "tool_call" in step}
    ask, weather = asks["ask_researcher"], asks["get_weather"]
    assert ask["started_at"] < weather["ended_at"] and weather["started_at"] < ask["ended_at"]  # in parallel


@pytest.mark.parametrize("fmt, name", [("otel-genai", "crash.otlp.jsonl"), ("openinference", "crash.openinference.otlp.jsonl")])
def test_crash_from_spans(fmt, name):
    record = one_record(fmt, name)
    assert derive(record).agents == ["planner"]
    assert span_calls(record) == [("planner", "get_weather", "call_x1", {"city": "Oslo"}, "Oslo: 3C, snow", None)]
    failed = [step for step in record["steps"] if "error" in step]
    assert [(step["agent"], step["span"], step["error"]) for step in failed] == [
        ("planner", "chat scripted", "RuntimeError: model service unreachable")]


def test_team_messages():
    record = one_record("pydantic-ai", "team.messages.json")
    derivation = derive(record)
    assert derivation.agents == ["user", "assistant"]  # pydantic-ai's messages name no agent
    calls = [(c["agent"], c["tool"], c["id"], c["arguments"], c["error"]) for c in derivation.tool_calls]
    assert calls == [("assistant", "ask_researcher", "call_p1", {"question": "What is on in Oslo this weekend?"}, None),
                     ("assistant", "get_weather", "call_p2", {"city": "Oslo"}, None),
                     ("assistant", "book_table", "call_p3", {"venue": "Blue Note"}, "booking service down, try later")]
    assert [derivation.steps[c["result_step"]].kind for c in derivation.tool_calls] == ["tool_result"] * 3
    assert derivation.steps[derivation.tool_calls[0]["result_step"]].text == "Jazz night on Saturday.\nOslo: 3C, snow"
    assert [step.text for step in derivation.steps if step.agent == "user"] == ["Plan my weekend in Oslo and book a table."]
    assert derivation.steps[-1].text == "Snow at 3C and jazz night on Saturday; the table could not be booked."
    assert len(record["steps"]) == 6  # one step per message


def test_crash_messages_hold_what_came_before_the_crash():
    record = one_record("pydantic-ai", "crash.messages.json")
    derivation = derive(record)
    assert [(c["tool"], c["arguments"], c["error"]) for c in derivation.tool_calls] == [
        ("get_weather", {"city": "Oslo"}, None)]
    assert derivation.steps[-1].text == "Oslo: 3C, snow"
