"""`convert --from dpbench`: episodes written here in DPBench's log shape.

A log is JSON Lines: `{"type": "header", "config": {...}}`, then `{"type": "timestep", "episode_id",
"timestep", "table_state": {"philosophers": [{id, name, state, ...}], "forks": [{"holder": id|null}]},
"decisions": [{philosopher_id, philosopher_name, action, message, reasoning}]}` (the table after the
timestep's decisions), then `{"type": "episode_end", "deadlock": bool, ...}`. Philosopher i's left
fork is fork i and its right fork is fork (i + 1) mod n.
"""

import json

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import ConvertError, convert_inputs

HEADER = {"type": "header", "timestamp": "2026-01-26T22:58:01", "environment": {"dpbench_version": "0.1.0"},
          "config": {"mode": "simultaneous", "num_philosophers": 3, "communication": True, "max_timesteps": 30}}


def timestep(number, holders, decisions, states=("hungry", "hungry", "hungry")):
    philosophers = [{"id": i, "name": f"P{i}", "state": state, "meals_eaten": 0} for i, state in enumerate(states)]
    return {"type": "timestep", "episode_id": 1, "timestep": number,
            "table_state": {"philosophers": philosophers, "forks": [{"holder": holder} for holder in holders]},
            "decisions": [{"philosopher_id": i, "philosopher_name": f"P{i}", "action": action,
                           "message": None, "reasoning": f"P{i} at {number}: {action}"} for i, action in decisions]}


def end(deadlock):
    return {"type": "episode_end", "episode_id": 1, "deadlock": deadlock, "total_meals": 1}


EPISODE = [
    HEADER,
    timestep(1, [0, 1, 2], [(0, "grab_left"), (1, "grab_left"), (2, "grab_left")]),
    timestep(2, [0, 1, None], [(0, "wait"), (1, "grab_right"), (2, "release")]),
    timestep(3, [0, 1, 1], [(0, "grab_right"), (1, "grab_right"), (2, "wait")], ("hungry", "eating", "hungry")),
    end(False),
]
DEADLOCK = [HEADER, timestep(1, [0, 1, 2], [(0, "grab_left"), (1, "grab_left"), (2, "grab_left")]), end(True)]


def convert(tmp_path, lines, name="episode.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return convert_inputs("dpbench", [path])


def test_every_decision_is_a_step_of_its_philosopher(tmp_path):
    [record] = convert(tmp_path, EPISODE).records
    assert record["id"] == "episode"
    assert (record["mode"], record["communication"], record["num_philosophers"]) == ("simultaneous", True, 3)
    assert [(s["agent"], s["timestep"], s["action"]) for s in record["steps"]][:4] == [
        ("P0", 1, "grab_left"), ("P1", 1, "grab_left"), ("P2", 1, "grab_left"), ("P0", 2, "wait")]
    assert record["steps"][3]["content"] == "wait\nreasoning: P0 at 2: wait"


def test_holds_are_half_open_from_first_held_to_released_and_waits_cover_one_timestep(tmp_path):
    [record] = convert(tmp_path, EPISODE).records
    calls = {(c["tool"], c["agent"], c["resource"], c["start"], c["end"]) for c in record["calls"]}
    assert calls == {
        ("hold", "P0", "fork_0", 1, 4), ("hold", "P1", "fork_1", 1, 4), ("hold", "P2", "fork_2", 1, 2),
        ("hold", "P1", "fork_2", 3, 4),
        ("wait", "P0", "fork_1", 2, 3),   # decided to wait while holding fork 0
        ("wait", "P1", "fork_2", 2, 3),   # failed to grab its right fork while holding its left
        ("wait", "P0", "fork_1", 3, 4),   # failed grab again; P2 waits holding nothing: no wait
    }
    assert len(record["calls"]) == 7


def test_only_overlaps_on_one_fork_by_two_philosophers_are_regions(tmp_path):
    conversion = convert(tmp_path, EPISODE)
    [region] = derive(conversion.records[0]).contentions
    assert (region["resource"], region["start"], region["end"], region["agents"]) == ("fork_1", 1, 4, ["P1", "P0"])
    assert conversion.gold == [{"id": "episode", "gold": {"deadlock": False}}]


def test_a_deadlock_ends_with_every_fork_held_and_waited_for(tmp_path):
    conversion = convert(tmp_path, DEADLOCK)
    regions = derive(conversion.records[0]).contentions
    assert [(r["resource"], r["start"], r["end"], sorted(r["agents"])) for r in regions] == [
        ("fork_0", 1, 2, ["P0", "P2"]), ("fork_1", 1, 2, ["P0", "P1"]), ("fork_2", 1, 2, ["P1", "P2"])]
    assert conversion.gold == [{"id": "episode", "gold": {"deadlock": True}}]
    assert "deadlock" not in json.dumps(conversion.records[0]["calls"])


def test_the_deadlock_adds_no_second_wait_where_a_decision_already_waits(tmp_path):
    lines = [HEADER, timestep(1, [0, 1, 2], [(0, "wait"), (1, "grab_left"), (2, "grab_left")]), end(True)]
    [record] = convert(tmp_path, lines).records
    assert sum(1 for c in record["calls"] if c["tool"] == "wait" and c["agent"] == "P0") == 1


@pytest.mark.parametrize("line, message", [
    ({"type": "timestep", "timestep": 2, "decisions": []}, "2: table_state: expected the table state, found nothing"),
    ({**timestep(2, [0], []), "table_state": {"forks": [3]}}, "2: table_state.forks: expected a list of {holder} objects"),
    ({**timestep(2, [0], []), "decisions": [{"action": "wait"}]},
     "2: decisions[0].philosopher_name: expected the philosopher's name"),
    ({"episode_id": 1}, "2: type: expected the line's type (header, timestep or episode_end), found nothing"),
])
def test_malformed_lines_name_file_line_and_field(tmp_path, line, message):
    with pytest.raises(ConvertError) as error:
        convert(tmp_path, [HEADER, line], "bad.jsonl")
    assert str(error.value) == f"{tmp_path / 'bad.jsonl'}:{message}"


def test_a_log_without_timesteps_is_not_an_episode(tmp_path):
    with pytest.raises(ConvertError, match="no timestep line: not a DPBench episode log"):
        convert(tmp_path, [HEADER])


SEQUENTIAL = {**HEADER, "config": {**HEADER["config"], "mode": "sequential", "communication": False}}


def sequential_line(number, holders, actions):
    """A sequential-mode line: DPBench repeats every philosopher's latest decision on it."""
    line = timestep(number, holders, list(enumerate(actions)))
    for decision, action in zip(line["decisions"], actions):
        decision["reasoning"] = f"{decision['philosopher_name']}: {action}"
    return line


def test_a_sequential_line_adds_only_the_decision_of_the_philosopher_whose_turn_it_is(tmp_path):
    lines = [SEQUENTIAL,
             sequential_line(3, [None, 0, 2], ["grab_right", "wait", "grab_left"]),
             sequential_line(4, [0, 0, 2], ["grab_left", "wait", "grab_left"]),
             sequential_line(5, [0, 0, 2], ["grab_left", "grab_left", "grab_left"]), end(False)]
    [record] = convert(tmp_path, lines).records
    assert [(s["agent"], s["timestep"], s["action"]) for s in record["steps"]] == [
        ("P0", 1, "grab_right"), ("P1", 2, "wait"), ("P2", 3, "grab_left"), ("P0", 4, "grab_left"),
        ("P1", 5, "grab_left")]
    # P1's failed grab at 5 holding nothing is no wait; no decision dated 1 or 2 is judged on table 3.
    assert [c for c in record["calls"] if c["tool"] == "wait"] == []
    # P0 grabbed its right fork (fork 1) at timestep 1, before the first logged table (3), which shows it held.
    assert {(c["agent"], c["resource"], c["start"], c["end"]) for c in record["calls"]} == {
        ("P0", "fork_1", 1, 6), ("P2", "fork_2", 3, 6), ("P0", "fork_0", 4, 6)}


def test_a_sequential_line_where_another_philosopher_decided_anew_is_named(tmp_path, capsys):
    lines = [SEQUENTIAL, sequential_line(3, [None, 0, 2], ["grab_right", "wait", "grab_left"]),
             sequential_line(4, [0, 0, 2], ["grab_left", "release", "grab_left"]), end(False)]
    with pytest.raises(ConvertError) as error:
        convert(tmp_path, lines)
    assert str(error.value) == (f"{tmp_path / 'episode.jsonl'}:3: decisions[1]: P1 decided anew at timestep 4, "
                                f"the turn of philosopher 0 in sequential mode")
