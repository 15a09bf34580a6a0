"""LangGraph runs the real framework wrote (tests/fixtures/real/langgraph/, scripts/fixtures/langgraph_runs.py).

Every expected value is written by hand from the scripted runs (the README's table): who ran, who
handed off to whom, which tool each agent called with what, what it returned, which failed. Each
run is read over OpenInference (the Collector's OTLP/JSON lines, the console exporter) and from
LangChain's own message lists (``messages_to_dict``, ``model_dump``).
"""

import json
from pathlib import Path

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import convert_inputs

from .framework_runs import handoffs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "langgraph"
GRAPH_NAMES = {"agent", "call_agent", "call_model", "tools", "should_continue", "RunnableSequence", "Prompt",
               "route_to_active_agent", "__start__", "LangGraph", "transfer_to_flight_agent",
               "transfer_to_hotel_agent", "transfer_to_bob", "search_flights", "seat_map", "search_hotels",
               "add", "book_flight", "user", "tool"}


def spans(run):
    files = [FIXTURES / f"{run}.otlp.jsonl"]
    if (FIXTURES / f"{run}.console.json").exists():
        files.append(FIXTURES / f"{run}.console.json")
    return [pytest.param(path, id=path.name) for path in files]


def records(path, fmt="openinference"):
    return convert_inputs(fmt, [path]).records


def span_calls(record):
    """``(agent, tool, arguments, result, error)`` of each tool-call step, in step order."""
    return [(step["agent"], step["tool_call"]["name"], json.loads(step["tool_call"]["arguments"]),
             step["result"], step["tool_call"].get("error")) for step in record["steps"] if "tool_call" in step]


def errors(record):
    return [(index, step["error"]) for index, step in enumerate(record["steps"]) if "error" in step]


# --- over OpenInference ----------------------------------------------------------------------------

@pytest.mark.parametrize("path", spans("supervisor"))
def test_supervisor_over_openinference(path):
    [record] = records(path)
    derivation = derive(record)
    assert derivation.agents == ["supervisor", "flight_agent", "hotel_agent"]
    assert not set(derivation.agents) & GRAPH_NAMES
    assert handoffs(derivation) == [("supervisor", "flight_agent", "explicit"), ("flight_agent", "supervisor", "implicit"),
                                    ("supervisor", "hotel_agent", "explicit"), ("hotel_agent", "supervisor", "implicit")]
    assert sorted(span_calls(record)) == sorted([
        ("flight_agent", "search_flights", {"to": "OSL"}, "TP123, SK456", None),
        ("flight_agent", "seat_map", {"flight": "TP123"}, "seat map unavailable for TP123",
         "seat map unavailable for TP123"),
        ("hotel_agent", "search_hotels", {"city": "Oslo"}, "Hotel Bristol", None)])
    assert {step["tool_call"]["id"] for step in record["steps"] if "tool_call" in step} == {"call_f1", "call_f2", "call_h1"}
    # the one real failure is the handled seat_map error; ParentCommand on every transfer is no error
    assert [error for _, error in errors(record)] == ["seat map unavailable for TP123"]
    assert "error" not in record
    said = [(step.agent, step.text) for step in derivation.steps if step.kind == "turn" and "tool_call" not in
            record["steps"][step.index]]
    assert said == [("supervisor", "transfer_to_flight_agent()"),
                    ("flight_agent", 'search_flights({"to": "OSL"})\nseat_map({"flight": "TP123"})'),
                    ("flight_agent", "TP123 and SK456 fly to Oslo; the seat map of TP123 is unavailable."),
                    ("supervisor", "transfer_to_hotel_agent()"),
                    ("hotel_agent", 'search_hotels({"city": "Oslo"})'),
                    ("hotel_agent", "Hotel Bristol has rooms."),
                    ("supervisor", "Fly TP123 to Oslo and stay at Hotel Bristol.")]
    assert not any('"messages"' in (step.text or "") for step in derivation.steps)  # no LangChain state JSON
    assert record["session"] == "supervisor"


@pytest.mark.parametrize("path", spans("swarm"))
def test_swarm_over_openinference_two_turns_two_traces(path):
    first, second = records(path)
    assert derive(first).agents == ["alice"]
    assert [step.get("content") for step in first["steps"]] == ["Hi, I am Alice. Bob does the maths."]
    derivation = derive(second)
    assert derivation.agents == ["alice", "bob"]
    assert handoffs(derivation) == [("alice", "bob", "explicit")]
    assert span_calls(second) == [("bob", "add", {"a": 3, "b": 5}, "8", None)]
    assert second["steps"][-1]["agent"] == "bob" and second["steps"][-1]["content"] == "3 + 5 = 8."
    assert errors(first) == errors(second) == []
    assert first["session"] == second["session"] == "swarm"


@pytest.mark.parametrize("path", spans("crash"))
def test_crash_over_openinference_marks_the_failing_tool_with_its_message(path):
    [record] = records(path)
    derivation = derive(record)
    assert derivation.agents == ["supervisor", "flight_agent"]
    assert handoffs(derivation) == [("supervisor", "flight_agent", "explicit")]
    assert span_calls(record) == [("flight_agent", "book_flight", {"flight": "TP123"}, None,
                                   "ConnectionError: booking service unreachable")]
    [(index, error)] = errors(record)
    assert error == "ConnectionError: booking service unreachable"
    assert record["steps"][index]["tool_call"]["id"] == "call_c2"
    details = record["steps"][index]["error_details"]
    assert details.startswith("Traceback (most recent call last)") and 'raise ConnectionError' in details
    assert record["error"] == "ConnectionError: booking service unreachable"  # the run ended with it


# --- LangChain's own message lists -----------------------------------------------------------------

NATIVE = ("messages", "model_dump")


@pytest.mark.parametrize("form", NATIVE)
def test_supervisor_message_list(form):
    [record] = records(FIXTURES / f"supervisor.{form}.json", "langgraph")
    derivation = derive(record)
    assert derivation.agents == ["user", "supervisor", "flight_agent", "hotel_agent"]
    assert handoffs(derivation) == [("user", "supervisor", "implicit"),
                                    ("supervisor", "flight_agent", "explicit"), ("flight_agent", "supervisor", "explicit"),
                                    ("supervisor", "hotel_agent", "explicit"), ("hotel_agent", "supervisor", "explicit")]
    calls = [(c["agent"], c["tool"], c["arguments"], c["id"], c["error"]) for c in derivation.tool_calls]
    assert calls == [("flight_agent", "search_flights", {"to": "OSL"}, "call_f1", None),
                     ("flight_agent", "seat_map", {"flight": "TP123"}, "call_f2", "seat map unavailable for TP123"),
                     ("hotel_agent", "search_hotels", {"city": "Oslo"}, "call_h1", None)]
    results = [derivation.steps[c["result_step"]].text for c in derivation.tool_calls]
    assert results == ["TP123, SK456", "seat map unavailable for TP123", "Hotel Bristol"]
    assert [step.kind for step in derivation.steps].count("tool_result") == 3
    assert [error for _, error in errors(record)] == ["seat map unavailable for TP123"]
    assert derivation.steps[-1].agent == "supervisor"
    assert derivation.steps[-1].text == "Fly TP123 to Oslo and stay at Hotel Bristol."
    assert len(record["steps"]) == 17  # one step per message, nothing dropped or merged


@pytest.mark.parametrize("form", NATIVE)
def test_swarm_message_list(form):
    [record] = records(FIXTURES / f"swarm.{form}.json", "langgraph")
    derivation = derive(record)
    assert derivation.agents == ["user", "alice", "bob"]
    assert [h for h in handoffs(derivation) if h[2] == "explicit"] == [("alice", "bob", "explicit")]
    assert [(c["agent"], c["tool"], c["arguments"], c["error"]) for c in derivation.tool_calls] == [
        ("bob", "add", {"a": 3, "b": 5}, None)]
    assert [step.text for step in derivation.steps if step.agent == "user"] == [
        "Hello, who are you?", "Ask Bob: what is 3 + 5?"]


@pytest.mark.parametrize("form", NATIVE)
def test_crash_message_list_holds_what_reached_the_state(form):
    [record] = records(FIXTURES / f"crash.{form}.json", "langgraph")
    derivation = derive(record)
    assert derivation.agents == ["user", "supervisor", "flight_agent"]
    assert handoffs(derivation)[-1] == ("supervisor", "flight_agent", "explicit")
    assert derivation.tool_calls == [] and errors(record) == []
