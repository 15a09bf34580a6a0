"""CrewAI crews the real framework ran (tests/fixtures/real/crewai/, scripts/fixtures/crewai_runs.py).

Every expected value is written by hand from the scripted runs (the README's table). Each run is
read over OpenInference (the Collector's OTLP/JSON lines, the console exporter for the sequential
crew) and from the crew's own ``output_log_file``.
"""

from pathlib import Path

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import convert_inputs

from .framework_runs import handoffs, one_record as read, span_calls

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "crewai"
NOT_AGENTS = {"Delegate work to coworker", "Ask question to coworker", "get_weather", "get_events",
              "search_venues", "ChatCompletion", "crew", None}


def one_record(path, fmt="openinference"):
    return read(fmt, path)


tool_calls = span_calls


def errors(record):
    return [step["error"] for step in record["steps"] if "error" in step]


def said(derivation, record):
    """``(agent, text)`` of every step that is no tool call: what the agents' models said."""
    return [(step.agent, step.text) for step in derivation.steps if "tool_call" not in record["steps"][step.index]]


def test_hierarchical_crew_shows_the_coworkers_inside_the_delegation_tools():
    record = one_record(FIXTURES / "hierarchical.otlp.jsonl")
    derivation = derive(record)
    assert derivation.agents == ["Crew Manager", "Researcher", "Writer"]
    assert not set(derivation.agents) & NOT_AGENTS
    assert handoffs(derivation) == [("Crew Manager", "Researcher", "delegation"), ("Researcher", "Crew Manager", "return"),
                                    ("Crew Manager", "Writer", "delegation"), ("Writer", "Crew Manager", "return")]
    assert tool_calls(record) == [
        ("Crew Manager", "Delegate work to coworker", "call_m1",
         {"task": "Find the weather and the events in Oslo this weekend",
          "context": "The user wants a weekend brief for Oslo.", "coworker": "Researcher"},
         "Oslo: 3C and snow. The events service was down.", None),
        ("Researcher", "get_weather", "call_r1", {"city": "Oslo"}, "Oslo: 3C, snow", None),
        ("Researcher", "get_events", "call_r2", {"city": "Oslo"}, None, "events service down"),
        ("Crew Manager", "Ask question to coworker", "call_m2",
         {"question": "Write one sentence from these facts: Oslo 3C and snow; the events service was down.",
          "context": "Weekend brief for Oslo.", "coworker": "Writer"},
         "Oslo this weekend: snow at 3C; events unknown.", None)]
    assert errors(record) == ["events service down"]
    assert said(derivation, record) == [
        ("Crew Manager", 'delegate_work_to_coworker({"task": "Find the weather and the events in Oslo this weekend", '
                         '"context": "The user wants a weekend brief for Oslo.", "coworker": "Researcher"})'),
        ("Researcher", 'get_weather({"city": "Oslo"})\nget_events({"city": "Oslo"})'),
        ("Researcher", "Oslo: 3C and snow. The events service was down."),
        ("Crew Manager", 'ask_question_to_coworker({"question": "Write one sentence from these facts: Oslo 3C and '
                         'snow; the events service was down.", "context": "Weekend brief for Oslo.", '
                         '"coworker": "Writer"})'),
        ("Writer", "Oslo this weekend: snow at 3C; events unknown."),
        ("Crew Manager", "Weekend brief: Oslo this weekend: snow at 3C; events unknown.")]
    threads = {step["agent"]: step.get("thread") for step in record["steps"]}
    assert threads == {"Crew Manager": None, "Researcher": "Researcher", "Writer": "Writer"}
    weather, events = (step for step in record["steps"] if step.get("tool_call", {}).get("name") in ("get_weather", "get_events"))
    assert weather["started_at"] < events["ended_at"] and events["started_at"] < weather["ended_at"]  # in parallel
    assert "error" not in record


@pytest.mark.parametrize("path", [FIXTURES / "sequential.otlp.jsonl", FIXTURES / "sequential.console.json"],
                         ids=["otlp", "console"])
def test_sequential_crew(path):
    record = one_record(path)
    derivation = derive(record)
    assert derivation.agents == ["Researcher", "Writer"]
    assert handoffs(derivation) == [("Researcher", "Writer", "implicit")]
    assert tool_calls(record) == [("Researcher", "search_venues", "call_s1", {"city": "Oslo"}, "Blue Note, Victoria", None)]
    assert said(derivation, record) == [("Researcher", 'search_venues({"city": "Oslo"})'),
                                        ("Researcher", "Venues in Oslo: Blue Note, Victoria."),
                                        ("Writer", "Catch jazz at Blue Note or Victoria in Oslo.")]
    assert errors(record) == [] and all("thread" not in step for step in record["steps"])


def test_crash_marks_the_failing_model_call_and_the_run():
    record = one_record(FIXTURES / "crash.otlp.jsonl")
    derivation = derive(record)
    assert derivation.agents == ["Researcher", "Writer"]
    assert tool_calls(record) == [("Researcher", "search_venues", "call_x1", {"city": "Oslo"}, "Blue Note, Victoria", None)]
    failed = [step for step in record["steps"] if "error" in step]
    assert [(step["agent"], step["span"]) for step in failed] == [("Writer", "ChatCompletion")]
    assert failed[0]["error"].startswith("BadRequestError: Error code: 400")
    assert "scripted failure" in record["error"]


def test_task_logs(capsys):
    hierarchical = derive(one_record(FIXTURES / "hierarchical.log.json", "crewai"))
    assert hierarchical.agents == ["Crew Manager"]  # the log is task-level: no delegation inside a task
    assert [step.text for step in hierarchical.steps] == [
        "Write a one-sentence weekend brief for Oslo.", "Weekend brief: Oslo this weekend: snow at 3C; events unknown."]
    sequential = one_record(FIXTURES / "sequential.log.json", "crewai")
    assert [(step["agent"], step["task_name"], step["status"], step["content"]) for step in sequential["steps"]] == [
        ("Researcher", "find_venues", "started", "Find jazz venues in Oslo."),
        ("Researcher", "find_venues", "completed", "Venues in Oslo: Blue Note, Victoria."),
        ("Writer", "recommend", "started", "Recommend a venue in one sentence."),
        ("Writer", "recommend", "completed", "Catch jazz at Blue Note or Victoria in Oslo.")]
    assert handoffs(derive(sequential)) == [("Researcher", "Writer", "implicit")]
    crashed = convert_inputs("crewai", [FIXTURES / "crash.log.json"])
    assert [step["status"] for step in crashed.records[0]["steps"]] == ["started", "completed", "started"]
    [warning] = crashed.warnings
    assert "'recommend' of 'Writer' started and never completed" in warning
