"""Google ADK runs the real framework wrote (tests/fixtures/real/adk/, scripts/fixtures/adk_runs.py).

Every expected value is written by hand from the scripted runs (the README's table). Each run is
read from ADK's own spans (``otel-genai``), from OpenInference's (``openinference``) and from the
saved session (``adk``).
"""

from pathlib import Path

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import convert_inputs

from .framework_runs import errors, handoffs, span_calls
from .framework_runs import one_record as read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "adk"
NOT_AGENTS = {"invoke_workflow coordinator", "transfer_to_agent", "(merged tools)", "get_weather", "get_forecast",
              "events_agent_tool", "search_events", "book_table", None}


def one_record(fmt, name):
    return read(fmt, FIXTURES / name)


TEAM_CALLS = [
    ("weather_agent", "get_weather", "call_w1", {"city": "Oslo"}, '{"city": "Oslo", "weather": "3C, snow"}', None),
    ("weather_agent", "get_forecast", "call_w2", {"city": "Oslo"}, '{"error": "RuntimeError: forecast service down"}',
     "RuntimeError: forecast service down"),
    ("coordinator", "events_agent", "call_c2", {"request": "Events in Oslo this weekend"}, "Jazz night on Saturday.", None),
    ("events_agent", "search_events", "call_e1", {"city": "Oslo"}, '{"events": ["Jazz night"]}', None)]
TEAM_HANDOFFS = [("coordinator", "weather_agent", "explicit"), ("weather_agent", "coordinator", "explicit"),
                 ("coordinator", "events_agent", "delegation"), ("events_agent", "coordinator", "return")]


@pytest.mark.parametrize("name", ["team.otlp.jsonl", "team.console.json"])
def test_team_from_adks_own_spans(name):
    record = one_record("otel-genai", name)
    derivation = derive(record)
    assert derivation.agents == ["coordinator", "weather_agent", "events_agent"]
    assert handoffs(derivation) == TEAM_HANDOFFS
    assert span_calls(record) == TEAM_CALLS
    assert errors(record) == [("weather_agent", "RuntimeError: forecast service down")]
    spans = [step["span"] for step in record["steps"]]
    assert "execute_tool (merged)" not in spans and not any(s.startswith("invoke_workflow") for s in spans)
    assert record["workflow"] == "coordinator" and record["session"] == "team" and "error" not in record
    said = [(step.agent, step.text) for step in derivation.steps if record["steps"][step.index]["span"].startswith("generate_content")]
    assert said == [("coordinator", 'transfer_to_agent({"agent_name": "weather_agent"})'),
                    ("weather_agent", 'get_weather({"city": "Oslo"})\nget_forecast({"city": "Oslo"})'),
                    ("weather_agent", 'Oslo: 3C and snow; the forecast service is down.\n'
                                      'transfer_to_agent({"agent_name": "coordinator"})'),
                    ("coordinator", 'events_agent({"request": "Events in Oslo this weekend"})'),
                    ("events_agent", 'search_events({"city": "Oslo"})'),
                    ("events_agent", "Jazz night on Saturday."),
                    ("coordinator", "Snow at 3C; jazz night on Saturday.")]
    weather, forecast = (step for step in record["steps"] if step.get("tool_call", {}).get("name") in ("get_weather", "get_forecast"))
    assert weather["started_at"] < forecast["ended_at"] and forecast["started_at"] < weather["ended_at"]  # in parallel


def test_team_without_content_capture_is_read_and_warned_about():
    conversion = convert_inputs("otel-genai", [FIXTURES / "team.no_content.otlp.jsonl"])
    [record] = conversion.records
    derivation = derive(record)
    assert derivation.agents == ["coordinator", "weather_agent", "events_agent"]
    assert handoffs(derivation) == TEAM_HANDOFFS  # the transfers' targets are the agents that ran next
    assert [(c["agent"], c["tool"], c["arguments"]) for c in derivation.tool_calls] == [
        ("weather_agent", "get_weather", None), ("weather_agent", "get_forecast", None),
        ("coordinator", "events_agent", None), ("events_agent", "search_events", None)]
    assert errors(record) == [("weather_agent", "TOOL_ERROR")]
    [warning] = conversion.warnings
    assert "holds no message content" in warning
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in warning
    assert convert_inputs("otel-genai", [FIXTURES / "team.otlp.jsonl"]).warnings == []


def test_crash_from_adks_own_spans():
    record = one_record("otel-genai", "crash.otlp.jsonl")
    derivation = derive(record)
    assert derivation.agents == ["front_desk", "booking_agent"]
    assert handoffs(derivation) == [("front_desk", "booking_agent", "explicit")]
    [call] = span_calls(record)
    assert call[:4] == ("booking_agent", "book_table", call[2], {"venue": "Blue Note"})
    assert call[4:] == (None, "ConnectionError: booking service unreachable")
    assert errors(record) == [("booking_agent", "ConnectionError: booking service unreachable")]  # once, where it arose
    assert record["error"] == "ConnectionError: booking service unreachable"
    assert all(step["span"] != "invoke_workflow front_desk" for step in record["steps"])


def test_team_over_openinference_shows_the_events_text():
    record = one_record("openinference", "team.openinference.otlp.jsonl")
    derivation = derive(record)
    assert derivation.agents == ["coordinator", "weather_agent", "events_agent"]
    assert not set(derivation.agents) & NOT_AGENTS
    assert handoffs(derivation) == TEAM_HANDOFFS
    assert span_calls(record) == TEAM_CALLS
    assert errors(record) == [("weather_agent", "RuntimeError: forecast service down")]
    assert [(step.agent, step.text) for step in derivation.steps if "tool_call" not in record["steps"][step.index]
            and step.kind != "handoff"] == [("events_agent", "Jazz night on Saturday."),
                                            ("coordinator", "Snow at 3C; jazz night on Saturday.")]
    assert not any('"invocation_id"' in step.text for step in derivation.steps)  # no Event JSON


def test_crash_over_openinference():
    record = one_record("openinference", "crash.openinference.otlp.jsonl")
    assert derive(record).agents == ["front_desk", "booking_agent"]
    assert errors(record) == [("booking_agent", "ConnectionError: booking service unreachable")]
    assert record["error"] == "ConnectionError: booking service unreachable"


def test_team_session():
    record = one_record("adk", "team.session.json")
    derivation = derive(record)
    assert record["id"] == "team" and record["app_name"] == "weekend"
    assert derivation.agents == ["user", "coordinator", "weather_agent"]  # events_agent ran inside its tool
    assert handoffs(derivation) == [("user", "coordinator", "implicit"), ("coordinator", "weather_agent", "explicit"),
                                    ("weather_agent", "coordinator", "explicit")]
    calls = [(c["agent"], c["tool"], c["id"], c["arguments"], c["error"]) for c in derivation.tool_calls]
    assert calls == [("weather_agent", "get_weather", "call_w1", {"city": "Oslo"}, None),
                     ("weather_agent", "get_forecast", "call_w2", {"city": "Oslo"}, "RuntimeError: forecast service down"),
                     ("coordinator", "events_agent", "call_c2", {"request": "Events in Oslo this weekend"}, None)]
    results = [derivation.steps[c["result_step"]].text for c in derivation.tool_calls]
    assert results == ['{"city": "Oslo", "weather": "3C, snow"}\nRuntimeError: forecast service down'] * 2 + \
        ["Jazz night on Saturday."]
    assert derivation.steps[-1].agent == "coordinator" and derivation.steps[-1].text == "Snow at 3C; jazz night on Saturday."
    assert errors(record) == []  # one of the two parallel results failed: the call is marked, not the step
    assert len(record["steps"]) == 10  # one step per event


def test_crash_session_ends_with_the_error_event():
    record = one_record("adk", "crash.session.json")
    derivation = derive(record)
    assert derivation.agents == ["user", "front_desk", "booking_agent"]
    assert [(c["agent"], c["tool"], c["arguments"]) for c in derivation.tool_calls] == [
        ("booking_agent", "book_table", {"venue": "Blue Note"})]
    assert errors(record) == [("booking_agent", "ConnectionError: booking service unreachable")]
    assert record["steps"][-1]["error"] == "ConnectionError: booking service unreachable"
