"""DPBench (dining philosophers, real LLM runs) on the contention timeline.

Read from ../shared/corpus (POTATO_MA_CORPUS), never copied into the project. Each episode becomes
`calls` by the rule of the converter issue, implemented here in a few lines until the converter
lands: fork holds are half-open intervals from the timestep a fork is first held to the timestep it
is released (the end of the episode, last timestep + 1, for a fork still held); a `wait` decision,
or a failed grab, by a philosopher holding one fork is a wait on the other fork over [t, t+1); when
the episode ends in deadlock, each hungry philosopher holding exactly one fork waits for the other
over [last timestep, last timestep + 1).
"""

import json
import subprocess
from pathlib import Path

import pytest

from potato_multiagent import derive, validate_value

pytestmark = pytest.mark.realdata

TYPE = "multiagent.tool_contention"
CONFIG = {"annotation_type": TYPE, "name": "contention", "description": "Label each contention region"}
PACKAGE = Path(__file__).resolve().parents[2] / "src" / "potato_multiagent"
DEADLOCKED, CALM = "*_sim3c_episode6.jsonl", "*_seq3nc_episode6.jsonl"


def episode(corpus, pattern):
    files = sorted((corpus / "dpbench").glob(pattern))
    assert len(files) == 1, f"expected one DPBench episode {pattern} under {corpus / 'dpbench'}"
    return [json.loads(line) for line in files[0].read_text(encoding="utf-8").splitlines() if line.strip()]


def held_by(step, philosopher):
    return {fork for fork, state in enumerate(step["table_state"]["forks"]) if state["holder"] == philosopher}


def own_forks(philosopher, forks):
    """Philosopher i eats with fork i on the left and fork i+1 on the right (checked below)."""
    return {"grab_left": philosopher, "grab_right": (philosopher + 1) % forks}


def to_record(lines):
    """The episode as a record with `calls`, and its last timestep."""
    steps = [line for line in lines if line["type"] == "timestep"]
    end = next(line for line in lines if line["type"] == "episode_end")
    names = {p["id"]: p["name"] for p in steps[0]["table_state"]["philosophers"]}
    forks = len(steps[0]["table_state"]["forks"])
    last = steps[-1]["timestep"]
    calls, holding = [], {}   # holding: fork -> (holder, first timestep held)

    def add(philosopher, tool, fork, start, stop):
        calls.append({"agent": names[philosopher], "tool": tool, "resource": f"fork_{fork}", "start": start, "end": stop})

    def wait_for_other_fork(philosopher, step, t):
        (mine,) = held_by(step, philosopher)
        add(philosopher, "wait", (set(own_forks(philosopher, forks).values()) - {mine}).pop(), t, t + 1)

    for step in steps:
        t = step["timestep"]
        for fork, state in enumerate(step["table_state"]["forks"]):
            if fork in holding and holding[fork][0] != state["holder"]:
                holder, start = holding.pop(fork)
                add(holder, "hold", fork, start, t)
            if state["holder"] is not None and fork not in holding:
                holding[fork] = (state["holder"], t)
        for decision in step["decisions"]:
            who, action = decision["philosopher_id"], decision["action"]
            grabbed = own_forks(who, forks).get(action)
            failed_grab = grabbed is not None and grabbed not in held_by(step, who)
            if len(held_by(step, who)) == 1 and (action == "wait" or failed_grab):
                wait_for_other_fork(who, step, t)
    for fork, (holder, start) in sorted(holding.items()):
        add(holder, "hold", fork, start, last + 1)
    if end["deadlock"]:
        for philosopher in steps[-1]["table_state"]["philosophers"]:
            if philosopher["state"] == "hungry" and len(held_by(steps[-1], philosopher["id"])) == 1:
                wait_for_other_fork(philosopher["id"], steps[-1], last)
    return {"id": f"dpbench-episode-{end['episode_id']}", "calls": calls}, last


def at_final_timestep(regions, last):
    return [region for region in regions if region["start"] <= last < region["end"]]


def test_the_table_is_left_fork_i_and_right_fork_i_plus_1(corpus):
    for pattern in (DEADLOCKED, CALM):
        for line in episode(corpus, pattern):
            if line["type"] != "timestep":
                continue
            forks = len(line["table_state"]["forks"])
            for p in line["table_state"]["philosophers"]:
                held = held_by(line, p["id"])
                assert p["has_left_fork"] == (p["id"] in held), (pattern, line["timestep"], p)
                assert p["has_right_fork"] == ((p["id"] + 1) % forks in held), (pattern, line["timestep"], p)


def test_the_deadlock_shows_on_every_fork_its_holder_and_its_waiter(corpus):
    lines = episode(corpus, DEADLOCKED)
    record, last = to_record(lines)
    derivation = derive(record).to_dict()
    assert [p for p in derivation["problems"] if p["path"].startswith("calls")] == []
    final = {region["resource"]: set(region["agents"]) for region in at_final_timestep(derivation["contentions"], last)}
    last_step = [line for line in lines if line["type"] == "timestep"][-1]
    holders = {f"fork_{fork}": f"P{state['holder']}" for fork, state in enumerate(last_step["table_state"]["forks"])}
    assert final == {"fork_0": {holders["fork_0"], "P2"}, "fork_1": {holders["fork_1"], "P0"},
                     "fork_2": {holders["fork_2"], "P1"}}
    assert set(holders.values()) == {"P0", "P1", "P2"}   # every philosopher holds one fork: a cycle of waits


def linked_sets_in_the_browser(record):
    """The widget's own linked sets (its marks.js, loaded as the page loads it) over derive.js's
    regions, run by node."""
    script = f"""
      const {{ derive }} = require({json.dumps(str(PACKAGE / 'web' / 'derive.js'))});
      const tc = require({json.dumps(str(PACKAGE.parents[1] / 'tests' / 'js' / 'type_rules.js'))}).load('tool_contention');
      process.stdout.write(JSON.stringify(tc.linkedSets(derive(JSON.parse(process.argv[1]), {{}}).contentions)));
    """
    result = subprocess.run(["node", "-e", script, json.dumps(record)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_circular_wait_is_one_linked_set_the_annotator_can_label_as_one_deadlock(corpus):
    record, last = to_record(episode(corpus, DEADLOCKED))
    derivation = derive(record).to_dict()
    final = [region["index"] for region in at_final_timestep(derivation["contentions"], last)]
    assert len(final) == 3, final   # one region per fork
    sets = linked_sets_in_the_browser(record)
    assert all(sets[index] == final for index in final), (final, sets)
    calls = {call["index"]: call for call in derivation["calls"]}
    cycle = [derivation["contentions"][index] for index in final]
    value = {"contentions": {str(region["index"]): "deadlock" for region in cycle}, "regions": [
        {**{key: region[key] for key in ("index", "resource", "start", "end", "agents")},
         "calls": [{key: calls[i][key] for key in ("index", "agent", "resource", "start", "end")} for i in region["calls"]],
         "label": "deadlock", "note": ""} for region in cycle]}
    assert validate_value(TYPE, CONFIG, json.dumps(value), record) == []


def test_the_episode_without_deadlock_ends_with_no_region(corpus):
    record, last = to_record(episode(corpus, CALM))
    derivation = derive(record).to_dict()
    assert derivation["calls"], "the fork holds are on the timeline"
    assert at_final_timestep(derivation["contentions"], last) == []
