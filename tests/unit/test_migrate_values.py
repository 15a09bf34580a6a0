"""`potato-multiagent migrate-values` on a task whose values were saved by Potato 2.12.1's built-ins.

Each built-in value below is what the built-in widget stores for the record (teardown notes §2):
the built-in derives handoffs from speaker changes only and turns the explicit handoff event into
the pseudo-agent "agent 2", so its ordinals differ from ours.
"""

import json

import pytest
import yaml

from potato_multiagent.cli import main
from tests.step_identity import fingerprint

RUN = {"id": "run-1",
       "steps": [{"agent": "Planner", "content": "plan"},
                 {"type": "handoff", "from_agent": "Planner", "to_agent": "Coder"},
                 {"agent": "Coder", "content": "search", "tool_call": {"name": "search", "args": {"q": "x"}}},
                 {"agent": "Coder", "content": "run twice",
                  "tool_calls": [{"name": "run", "args": {}}, {"name": "run", "args": {"x": 1}}]},
                 {"agent": "Reviewer", "content": "ok"}],
       "calls": [{"agent": "Coder", "tool": "db", "resource": "db", "start": 0, "end": 2},
                 {"agent": "Reviewer", "tool": "db", "resource": "db", "start": 1, "end": 3}]}
ARROW_NAMES = {"id": "run-2", "steps": [{"agent": "A"}, {"agent": "B->C"}, {"agent": "A->B"}, {"agent": "C"}]}

TYPES = {"graph": "agent_interaction_graph", "handoffs": "handoff_review", "tools": "tool_call_review",
         "contention": "tool_contention", "emergent": "emergent_behavior",
         "attribution": "failure_attribution", "scorecard": "agent_scorecard"}

BUILTIN = {
    "graph": {"critical_nodes": ["Coder"], "edges": {"Coder->Reviewer": "problematic"}},
    "handoffs": [{"index": 2, "step": 4, "from": "Coder", "to": "Reviewer", "flags": ["info_loss"], "quality": 2},
                 {"index": 0, "step": 1, "from": "Planner", "to": "agent 2", "flags": ["garbling"]}],
    "tools": [{"index": 0, "step": 2, "tool": "search", "verdict": "correct", "notes": ""},
              {"index": 2, "step": 3, "tool": "run", "verdict": "wrong_args", "notes": "x is wrong"}],
    "contention": {"contentions": {"0": "deadlock"}},
    "emergent": {"groupthink": {"turns": [0, 2], "note": "all agree"}},
    "attribution": {"responsible_agent": "Coder", "decisive_step": 2, "reason": "wrong query"},
    "scorecard": {"agents": {"Planner": {"role fidelity": 4}}, "team": {"coordination": 2}, "milestones": {}},
}


def make_task(tmp_path):
    schemes = [{"annotation_type": f"multiagent.{kind}", "name": name, "description": name}
               for name, kind in TYPES.items()]
    config = {"annotation_task_name": "migrate values test", "task_dir": ".", "data_files": ["data/runs.jsonl"],
              "item_properties": {"id_key": "id", "text_key": "id"}, "output_annotation_dir": "annotation_output",
              "plugins": ["multiagent"], "require_password": False, "annotation_schemes": schemes}
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (RUN, ARROW_NAMES)))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))


def save(tmp_path, user, values_by_instance):
    """Write a user_state.json as Potato 2.12.1 does: [label, JSON string] pairs per instance."""
    folder = tmp_path / "annotation_output" / user
    folder.mkdir(parents=True, exist_ok=True)
    state = {"user_id": user, "instance_id_to_label_to_value": {
        instance: [[{"schema": name, "name": name}, json.dumps(value)] for name, value in values.items()]
        for instance, values in values_by_instance.items()}}
    (folder / "user_state.json").write_text(json.dumps(state))
    return folder / "user_state.json"


def stored(state_path, instance, scheme):
    state = json.loads(state_path.read_text())
    pairs = state["instance_id_to_label_to_value"][instance]
    return next(json.loads(value) for label, value in pairs if label["schema"] == scheme)


def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out.splitlines()


@pytest.fixture
def task(tmp_path):
    make_task(tmp_path)
    return tmp_path


def test_dry_run_prints_each_change_and_writes_nothing(task, capsys):
    state_path = save(task, "alice", {"run-1": BUILTIN})
    before = state_path.read_bytes()
    code, lines = run(capsys, "migrate-values", str(task), "--dry-run")
    assert code == 0
    assert "run-1 / alice / graph: edges 'Coder->Reviewer': edge_marks gains Coder to Reviewer" in lines
    assert ("run-1 / alice / handoffs: [0] Coder to Reviewer at step 4: from_step 3, explicit false, index 1"
            in lines)
    assert "run-1 / alice / tools: [0] search at step 2: position 0, id null, index 0" in lines
    assert lines[-1] == "dry run: 1 user_state.json file(s) would change"
    assert state_path.read_bytes() == before
    assert not (state_path.parent / "user_state.json.bak").exists()


def test_graph_edges_gain_edge_marks(task, capsys):
    state_path = save(task, "alice", {"run-1": {"graph": BUILTIN["graph"]}})
    assert run(capsys, "migrate-values", str(task))[0] == 0
    assert stored(state_path, "run-1", "graph") == {
        "critical_nodes": ["Coder"], "edges": {"Coder->Reviewer": "problematic"},
        "edge_marks": [{"from": "Coder", "to": "Reviewer", "status": "problematic"}]}


def test_an_ambiguous_edge_key_is_reported_and_left(task, capsys):
    value = {"critical_nodes": [], "edges": {"A->B->C": "critical", "B->C->A->B": "problematic"}}
    state_path = save(task, "alice", {"run-2": {"graph": value}})
    code, lines = run(capsys, "migrate-values", str(task))
    assert code == 0
    assert "run-2 / alice / graph: not migrated: edges 'A->B->C' could be 2 edges of this trace" in lines
    assert stored(state_path, "run-2", "graph") == {
        **value, "edge_marks": [{"from": "B->C", "to": "A->B", "status": "problematic"}]}


def test_handoffs_are_matched_by_identity_not_by_the_builtin_index(task, capsys):
    state_path = save(task, "alice", {"run-1": {"handoffs": BUILTIN["handoffs"]}})
    code, lines = run(capsys, "migrate-values", str(task))
    assert code == 0
    migrated, pseudo_agent = stored(state_path, "run-1", "handoffs")
    assert migrated == {"index": 1, "step": 4, "from_step": 3, "from": "Coder", "to": "Reviewer",
                        "explicit": False, "flags": ["info_loss"], "quality": 2}
    assert pseudo_agent == BUILTIN["handoffs"][1]
    assert ("run-1 / alice / handoffs: not migrated: [1] Planner to agent 2 at step 1 matches 0 handoffs "
            "of this trace") in lines


def test_an_unrated_builtin_handoff_gets_quality_null(task, capsys):
    entry = {"index": 2, "step": 4, "from": "Coder", "to": "Reviewer", "flags": ["goal_drift"]}
    state_path = save(task, "alice", {"run-1": {"handoffs": [entry]}})
    run(capsys, "migrate-values", str(task))
    assert stored(state_path, "run-1", "handoffs")[0]["quality"] is None


def test_tool_calls_gain_position_only_where_step_and_tool_name_one_call(task, capsys):
    state_path = save(task, "alice", {"run-1": {"tools": BUILTIN["tools"]}})
    code, lines = run(capsys, "migrate-values", str(task))
    search, run_twice = stored(state_path, "run-1", "tools")
    assert search == {**BUILTIN["tools"][0], "position": 0, "id": None, "step_ref": fingerprint("Coder", "search")}
    assert run_twice == {**BUILTIN["tools"][1], "step_ref": fingerprint("Coder", "run twice")}
    assert "run-1 / alice / tools: not migrated: [1] run at step 3 matches 2 calls of this trace" in lines


def test_builtin_contention_indices_are_reported_not_guessed(task, capsys):
    state_path = save(task, "alice", {"run-1": {"contention": BUILTIN["contention"]}})
    code, lines = run(capsys, "migrate-values", str(task))
    assert stored(state_path, "run-1", "contention") == BUILTIN["contention"]
    assert any(line.startswith("run-1 / alice / contention: not migrated: contentions '0': the built-in's "
                               "pair index depends on the order of the calls") for line in lines)


@pytest.mark.parametrize("scheme", ["emergent", "scorecard"])
def test_builtin_values_already_ours_pass_check_untouched(task, capsys, scheme):
    state_path = save(task, "alice", {"run-1": {scheme: BUILTIN[scheme]}})
    before = state_path.read_bytes()
    code, lines = run(capsys, "migrate-values", str(task))
    assert lines == ["0 user_state.json file(s) changed"]
    assert state_path.read_bytes() == before
    assert run(capsys, "check", str(task / "config.yaml")) == (0, ["0 problem(s), 0 warning(s)"])


def test_after_migration_check_passes_on_every_migrated_value(task, capsys):
    migratable = {"graph": BUILTIN["graph"], "handoffs": BUILTIN["handoffs"][:1], "tools": BUILTIN["tools"][:1]}
    save(task, "alice", {"run-1": migratable})
    assert run(capsys, "check", str(task / "config.yaml"))[0] == 1
    run(capsys, "migrate-values", str(task))
    assert run(capsys, "check", str(task / "config.yaml")) == (0, ["0 problem(s), 0 warning(s)"])


def test_a_second_run_changes_nothing_and_the_backup_keeps_the_original(task, capsys):
    state_path = save(task, "alice", {"run-1": BUILTIN})
    original = state_path.read_bytes()
    run(capsys, "migrate-values", str(task))
    migrated = state_path.read_bytes()
    code, lines = run(capsys, "migrate-values", str(task))
    assert lines[-1] == "0 user_state.json file(s) changed"
    assert state_path.read_bytes() == migrated
    assert (state_path.parent / "user_state.json.bak").read_bytes() == original


def test_the_config_can_be_named(task, capsys):
    (task / "config.yaml").rename(task / "evaluation.yaml")
    save(task, "alice", {"run-1": {"graph": BUILTIN["graph"]}})
    assert run(capsys, "migrate-values", str(task), "--config", str(task / "evaluation.yaml"), "--dry-run")[0] == 0
    assert run(capsys, "migrate-values", str(task))[0] == 1  # no TASK_DIR/config.yaml any more


# --------------------------------------------------------------------------- step identities

PLAN, SEARCH, TWICE, OK = (fingerprint("Planner", "plan"), fingerprint("Coder", "search"),
                           fingerprint("Coder", "run twice"), fingerprint("Reviewer", "ok"))
HANDOFF_EVENT = fingerprint("Planner", "")
OURS = {   # values our widgets saved before they stored identities
    "attribution": {"responsible_agent": "Coder", "decisive_step": 2, "reason": "wrong query"},
    "scorecard": {"agents": {}, "team": {}, "milestones": {"shipped": True}, "milestone_steps": {"shipped": 4}},
    "emergent": {"groupthink": {"turns": [0, 4], "note": "", "instances": [{"turns": [4, 0], "note": ""}]}},
    "tools": [{"index": 0, "step": 2, "position": 0, "id": None, "tool": "search", "verdict": "correct", "notes": ""}],
    "handoffs": [{"index": 0, "step": 1, "from_step": 1, "from": "Planner", "to": "Coder", "explicit": True,
                  "flags": [], "quality": 3, "note": ""}],
}
WITH_IDENTITIES = {
    "attribution": {**OURS["attribution"], "decisive_step_ref": SEARCH},
    "scorecard": {**OURS["scorecard"], "milestone_step_refs": {"shipped": OK}},
    "emergent": {"groupthink": {"turns": [0, 4], "note": "",
                                "instances": [{"turns": [4, 0], "turn_refs": [OK, PLAN], "note": ""}]}},
    "tools": [{**OURS["tools"][0], "step_ref": SEARCH}],
    "handoffs": [{**OURS["handoffs"][0], "step_ref": HANDOFF_EVENT, "from_step_ref": HANDOFF_EVENT}],
}


def with_milestones(task):
    config = yaml.safe_load((task / "config.yaml").read_text())
    for scheme in config["annotation_schemes"]:
        if scheme["name"] == "scorecard":
            scheme.update(milestones=["shipped"], milestone_steps=True)
    (task / "config.yaml").write_text(yaml.safe_dump(config))


def test_builtin_attribution_gains_the_identity_of_its_step(task, capsys):
    state_path = save(task, "alice", {"run-1": {"attribution": BUILTIN["attribution"]}})
    code, lines = run(capsys, "migrate-values", str(task))
    assert lines == ["run-1 / alice / attribution: step identities added: decisive_step #3",
                     "wrote " + str(state_path), "1 user_state.json file(s) changed"]
    assert stored(state_path, "run-1", "attribution") == {**BUILTIN["attribution"], "decisive_step_ref": SEARCH}
    assert run(capsys, "check", str(task / "config.yaml")) == (0, ["0 problem(s), 0 warning(s)"])


def test_values_saved_without_identities_gain_those_of_their_steps_now(task, capsys):
    with_milestones(task)
    state_path = save(task, "alice", {"run-1": OURS})
    code, lines = run(capsys, "migrate-values", str(task), "--dry-run")
    assert "run-1 / alice / emergent: step identities added: groupthink.instances[0].turns #5, " \
           "groupthink.instances[0].turns #1" in lines
    assert "run-1 / alice / handoffs: step identities added: [0].from_step #2, [0].step #2" in lines
    assert lines[-1] == "dry run: 1 user_state.json file(s) would change"
    run(capsys, "migrate-values", str(task))
    for name, value in WITH_IDENTITIES.items():
        assert stored(state_path, "run-1", name) == value, name
    assert run(capsys, "check", str(task / "config.yaml")) == (0, ["0 problem(s), 0 warning(s)"])
    migrated = state_path.read_bytes()
    assert run(capsys, "migrate-values", str(task))[1] == ["0 user_state.json file(s) changed"]
    assert state_path.read_bytes() == migrated


# --------------------------------------------------------------------------- --rebase

ASK = fingerprint("User", "ask")
NEW_RUN = {"id": "run-1",   # RUN converted again: a step before (with a call), Reviewer's text changed
           "steps": [{"agent": "User", "content": "ask", "tool_call": {"name": "lookup", "args": {}}}] + RUN["steps"][:4]
           + [{"agent": "Reviewer", "content": "ok, approved"}],
           "calls": [{"agent": "User", "tool": "cache", "resource": "cache", "start": 0, "end": 1}] + RUN["calls"]}
CONTENTION = {"contentions": {"0": "deadlock"}, "regions": [
    {"index": 0, "resource": "db", "start": 0, "end": 3, "agents": ["Coder", "Reviewer"],
     "calls": [{"index": 0, "agent": "Coder", "resource": "db", "start": 0, "end": 2},
               {"index": 1, "agent": "Reviewer", "resource": "db", "start": 1, "end": 3}],
     "label": "deadlock", "note": ""}]}


def rebase_task(task):
    """The task after a re-conversion: its data file is the new one, the old one kept aside."""
    with_milestones(task)
    (task / "old").mkdir()
    (task / "data" / "runs.jsonl").rename(task / "old" / "runs.jsonl")
    (task / "data" / "runs.jsonl").write_text(json.dumps(NEW_RUN) + "\n" + json.dumps(ARROW_NAMES) + "\n")
    return ["--rebase", str(task / "old" / "runs.jsonl"), str(task / "data" / "runs.jsonl")]


def test_check_finds_every_saved_step_stale_after_the_re_conversion(task, capsys):
    save(task, "alice", {"run-1": {**WITH_IDENTITIES, "contention": CONTENTION}})
    rebase_task(task)
    code, lines = run(capsys, "check", str(task / "config.yaml"))
    assert code == 1
    assert (f"run-1 / alice / attribution: decisive_step: #3 has changed since it was saved (saved on {SEARCH}, "
            "now Planner); that step is now #4 (Coder)") in lines
    assert (f"run-1 / alice / emergent: groupthink.instances[0].turns: #5 has changed since it was saved (saved on {OK}, "
            "now Coder); that step is not in this trace") in lines
    assert (f"run-1 / alice / scorecard: milestone_steps.shipped: #5 has changed since it was saved (saved on {OK}, "
            "now Coder); that step is not in this trace") in lines
    assert (f"run-1 / alice / tools: [0].step: #3 has changed since it was saved (saved on {SEARCH}, now Planner); "
            "that step is now #4 (Coder)") in lines
    assert (f"run-1 / alice / handoffs: [0].from_step: #2 has changed since it was saved (saved on {HANDOFF_EVENT}, "
            "now Planner); that step is now #3 (Planner)") in lines


def test_rebase_moves_each_reference_to_its_step_and_reports_what_it_cannot(task, capsys):
    state_path = save(task, "alice", {"run-1": {**WITH_IDENTITIES, "contention": CONTENTION}})
    before = state_path.read_bytes()
    rebase = rebase_task(task)
    code, lines = run(capsys, "migrate-values", str(task), *rebase, "--dry-run")
    assert code == 0 and state_path.read_bytes() == before
    assert "run-1 / alice / attribution: moved decisive_step #3 -> #4 (Coder)" in lines
    assert "run-1 / alice / emergent: moved groupthink.instances[0].turns #1 -> #2 (Planner)" in lines
    assert (f"run-1 / alice / emergent: not mapped: groupthink.instances[0].turns #5: the step it was saved on ({OK}) "
            "is not in the new data") in lines
    assert "run-1 / alice / handoffs: moved [0].from_step #2 -> #3 (Planner)" in lines
    assert lines[-2:] == ["rebase: 5 reference(s) moved, 2 could not be mapped, 0 already in place",
                          "dry run: 1 user_state.json file(s) would change"]

    run(capsys, "migrate-values", str(task), *rebase)
    assert stored(state_path, "run-1", "attribution") == {**WITH_IDENTITIES["attribution"], "decisive_step": 3}
    assert stored(state_path, "run-1", "tools") == [{**WITH_IDENTITIES["tools"][0], "step": 3, "index": 1}]
    assert stored(state_path, "run-1", "handoffs") == [{**WITH_IDENTITIES["handoffs"][0], "step": 2, "from_step": 2,
                                                         "index": 1}]
    assert stored(state_path, "run-1", "emergent") == {"groupthink": {
        "turns": [1, 4], "note": "", "instances": [{"turns": [4, 1], "turn_refs": [OK, PLAN], "note": ""}]}}
    assert stored(state_path, "run-1", "scorecard") == WITH_IDENTITIES["scorecard"]   # its step is gone: left
    contention = stored(state_path, "run-1", "contention")
    assert [call["index"] for call in contention["regions"][0]["calls"]] == [1, 2]
    code, lines = run(capsys, "check", str(task / "config.yaml"))
    assert sorted(line.split(": ", 2)[1] for line in lines[:-1]) == ["groupthink.instances[0].turns",
                                                                      "milestone_steps.shipped"]
    assert (state_path.parent / "user_state.json.bak").read_bytes() == before


def test_identical_steps_are_mapped_by_their_order_or_not_at_all(task, capsys):
    old = {"id": "run-1", "steps": [{"agent": "A", "content": "TERMINATE"}, {"agent": "B", "content": "ok"},
                                    {"agent": "A", "content": "TERMINATE"}]}
    both = {"id": "run-1", "steps": [{"agent": "X", "content": "hi"}] + old["steps"]}
    one = {"id": "run-1", "steps": [{"agent": "B", "content": "ok"}, {"agent": "A", "content": "TERMINATE"}]}
    state_path = save(task, "alice", {"run-1": {"attribution": {"responsible_agent": "A", "decisive_step": 2,
                                                                "reason": ""}}})
    (task / "old.jsonl").write_text(json.dumps(old) + "\n")
    for new, expected in ((both, ["run-1 / alice / attribution: moved decisive_step #3 -> #4 (A)"]),
                          (one, ["run-1 / alice / attribution: not mapped: decisive_step #3: 1 steps of the new data "
                                 f"have its identity ({fingerprint('A', 'TERMINATE')}), 2 of the old: which one is not known",
                                 "run-1 / alice / attribution: still invalid: decisive_step: '2' is not in this trace"])):
        (task / "new.jsonl").write_text(json.dumps(new) + "\n")
        lines = run(capsys, "migrate-values", str(task), "--rebase", str(task / "old.jsonl"), str(task / "new.jsonl"),
                    "--dry-run")[1]
        assert lines[:-2] == expected


def test_rebase_names_a_data_file_it_cannot_read(task, capsys):
    code, lines = run(capsys, "migrate-values", str(task), "--rebase", str(task / "nowhere.jsonl"),
                      str(task / "data" / "runs.jsonl"))
    assert code == 1


def test_plausible_steps_gain_identities_and_move_with_their_steps(task, capsys):
    state_path = save(task, "alice", {"run-1": {"attribution": {**OURS["attribution"], "plausible_steps": [{"step": 0}]}}})
    code, lines = run(capsys, "migrate-values", str(task))
    assert lines[0] == "run-1 / alice / attribution: step identities added: decisive_step #3, plausible_steps[0].step #1"
    assert stored(state_path, "run-1", "attribution")["plausible_steps"] == [{"step": 0, "step_ref": PLAN}]
    code, lines = run(capsys, "migrate-values", str(task), *rebase_task(task))
    assert "run-1 / alice / attribution: moved plausible_steps[0].step #1 -> #2 (Planner)" in lines
    assert stored(state_path, "run-1", "attribution") == {**WITH_IDENTITIES["attribution"], "decisive_step": 3,
                                                          "plausible_steps": [{"step": 1, "step_ref": PLAN}]}
