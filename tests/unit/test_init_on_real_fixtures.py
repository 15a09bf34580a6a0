"""`init` on each set of fixtures the real frameworks wrote (tests/fixtures/real/): the task it
writes passes `potato validate --strict` and `check`, and offers what the runs contain.

The browser half (a task `init` wrote, served by `potato start` and annotated) is
tests/e2e/test_init.py, on a corpus set; this proves every framework's set gets that far.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from potato_multiagent import derive

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
POTATO = Path(sys.executable).with_name("potato")

# One file kind per set: several kinds of one scenario would be the same trace twice.
FIXTURE_SETS = {
    "openai-agents": ("openai-agents", sorted((REAL / "openai-agents").glob("*.json"))),
    "otel-genai": ("otel-genai", sorted((REAL / "otel").glob("*.otlp.json"))),
    "otel-genai console": ("otel-genai", sorted((REAL / "otel").glob("*.console.json"))),
    "openinference": ("openinference", sorted((REAL / "openinference").glob("*.otlp.json"))),
    "autogen": ("autogen", sorted((REAL / "autogen").glob("*.task_result.json"))),
    "ag2": ("autogen", [REAL / "ag2" / "groupchat_messages.json", REAL / "ag2" / "two_agent_chat_result.json"]),
}


def run(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([*map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.mark.parametrize("name", sorted(FIXTURE_SETS))
def test_init_on_a_real_fixture_set_writes_a_task_potato_and_check_accept(tmp_path, name):
    fmt, files = FIXTURE_SETS[name]
    assert files, f"no fixture files for {name}"
    task = tmp_path / "task"
    made = run(sys.executable, "-m", "potato_multiagent.cli", "init", "--from", fmt, *files, "-o", task)
    assert made.returncode == 0, made.stderr
    assert not [line for line in made.stderr.splitlines() if line.startswith("skipped:")], made.stderr
    config = yaml.safe_load((task / "config.yaml").read_text(encoding="utf-8"))
    schemes = [scheme["name"] for scheme in config["annotation_schemes"]]
    records = [json.loads(line) for line in (task / "data" / "runs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert records
    derivations = [derive(record) for record in records]
    assert ("tool_calls" in schemes) == any(d.tool_calls for d in derivations), schemes
    assert ("handoffs" in schemes) == any(d.handoffs for d in derivations), schemes
    assert ("contention" in schemes) == any(d.contentions for d in derivations), schemes
    validated = run(POTATO, "validate", "--strict", "config.yaml", cwd=task)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    checked = run(sys.executable, "-m", "potato_multiagent.cli", "check", task / "config.yaml")
    assert checked.returncode == 0, checked.stdout + checked.stderr


# Sets of issue 30's frameworks: the agents each set's runs really had (written from the generators'
# scripts) and the schemes those runs call for. `init` without --from recognises the format itself.
FRAMEWORK_SETS = {
    "langgraph spans": ([REAL / "langgraph" / f"{run}.otlp.jsonl" for run in ("supervisor", "swarm", "crash")],
                        {"supervisor", "flight_agent", "hotel_agent", "alice", "bob"},
                        {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "langgraph messages": (sorted((REAL / "langgraph").glob("*.messages.json")),
                           {"user", "supervisor", "flight_agent", "hotel_agent", "alice", "bob"},
                           {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "crewai spans": (sorted((REAL / "crewai").glob("*.otlp.jsonl")), {"Crew Manager", "Researcher", "Writer"},
                     {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "crewai task logs": (sorted((REAL / "crewai").glob("*.log.json")), {"Crew Manager", "Researcher", "Writer"},
                         {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "mast"}),
    "adk spans": ([REAL / "adk" / "team.otlp.jsonl", REAL / "adk" / "crash.otlp.jsonl"],
                  {"coordinator", "weather_agent", "events_agent", "front_desk", "booking_agent"},
                  {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "adk openinference": (sorted((REAL / "adk").glob("*.openinference.otlp.jsonl")),
                          {"coordinator", "weather_agent", "events_agent", "front_desk", "booking_agent"},
                          {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "pydantic-ai spans": ([REAL / "pydantic-ai" / "team.otlp.jsonl", REAL / "pydantic-ai" / "crash.otlp.jsonl"],
                          {"planner", "researcher"},
                          {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "pydantic-ai openinference": (sorted((REAL / "pydantic-ai").glob("*.openinference.otlp.jsonl")),
                                  {"planner", "researcher"},
                                  {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls",
                                   "mast"}),
    "pydantic-ai messages": (sorted((REAL / "pydantic-ai").glob("*.messages.json")), {"user", "assistant"},
                             {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "ag2 classic spans": (sorted((REAL / "ag2-classic").glob("*.otlp.jsonl")), {"planner", "analyst", "user_proxy"},
                          {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "ag2 classic runtime logs": (sorted((REAL / "ag2-classic").glob("*.runtime_log.jsonl")),
                                 {"planner", "analyst", "user_proxy"},
                                 {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "ag2 1.x spans": (sorted((REAL / "ag2-1x").glob("*.otlp.jsonl")), {"planner", "researcher"},
                      {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "ag2 1.x events": (sorted((REAL / "ag2-1x").glob("*.events.jsonl")), {"user", "assistant", "researcher"},
                       {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
    "adk sessions": (sorted((REAL / "adk").glob("*.session.json")),
                     {"user", "coordinator", "weather_agent", "front_desk", "booking_agent"},
                     {"outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"}),
}


@pytest.mark.parametrize("name", sorted(FRAMEWORK_SETS))
def test_init_on_a_framework_set_chooses_from_the_real_agents(tmp_path, name):
    files, agents, schemes = FRAMEWORK_SETS[name]
    assert files, f"no fixture files for {name}"
    task = tmp_path / "task"
    made = run(sys.executable, "-m", "potato_multiagent.cli", "init", *files, "-o", task)
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("recognised "), made.stdout
    assert not [line for line in made.stderr.splitlines() if line.startswith("skipped:")], made.stderr
    records = [json.loads(line) for line in (task / "data" / "runs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {agent for record in records for agent in derive(record).agents} == agents
    config = yaml.safe_load((task / "config.yaml").read_text(encoding="utf-8"))
    assert {scheme["name"] for scheme in config["annotation_schemes"]} == schemes
    validated = run(POTATO, "validate", "--strict", "config.yaml", cwd=task)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    checked = run(sys.executable, "-m", "potato_multiagent.cli", "check", task / "config.yaml")
    assert checked.returncode == 0, checked.stdout + checked.stderr
