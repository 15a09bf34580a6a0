"""`potato-multiagent check` and `derive` on task folders built here, the way Potato lays them out."""

import json
import subprocess
import sys

import pytest
import yaml

from potato_multiagent.cli import main

TYPE = "multiagent.failure_attribution"
RECORDS = [{"id": "run-1", "steps": [{"agent": "Planner", "content": "plan"}, {"agent": "Coder", "content": "code"}]},
           {"id": "run-2", "steps": [{"agent": "Solo", "content": "hi"}]}]


def make_task(tmp_path, schemes=None, plugins=("multiagent",)):
    config = {
        "annotation_task_name": "check test", "task_dir": ".", "data_files": ["data/runs.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "id"}, "output_annotation_dir": "annotation_output",
        "plugins": list(plugins), "require_password": False,
        "annotation_schemes": schemes if schemes is not None else [
            {"annotation_type": "radio", "name": "outcome", "description": "Outcome?", "labels": ["success", "failure"]},
            {"annotation_type": TYPE, "name": "attribution", "description": "Who?",
             "display_logic": {"show_when": [{"schema": "outcome", "operator": "equals", "value": "failure"}]}}],
    }
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "runs.jsonl").write_text("\n".join(json.dumps(r) for r in RECORDS) + "\n")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    return tmp_path / "config.yaml"


def save(tmp_path, user, instance, pairs):
    """Write annotations the way Potato 2.12.1 stores them in user_state.json."""
    folder = tmp_path / "annotation_output" / user
    folder.mkdir(parents=True, exist_ok=True)
    state_path = folder / "user_state.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else {"user_id": user,
                                                                             "instance_id_to_label_to_value": {}}
    state["instance_id_to_label_to_value"][instance] = [[{"schema": s, "name": n}, v] for s, n, v in pairs]
    state_path.write_text(json.dumps(state))


def attribution(agent, step, reason=""):
    return ("attribution", "attribution", json.dumps({"responsible_agent": agent, "decisive_step": step, "reason": reason}))


def run_check(config, capsys):
    code = main(["check", str(config)])
    return code, capsys.readouterr().out.strip().splitlines()


def test_a_clean_task_passes(tmp_path, capsys):
    config = make_task(tmp_path)
    save(tmp_path, "alice", "run-1", [("outcome", "failure", "failure"), attribution("Coder", 1, "bad code")])
    code, lines = run_check(config, capsys)
    assert code == 0, lines
    assert lines[-1] == "0 problem(s), 0 warning(s)"


def test_a_value_corrupted_by_hand_fails_with_a_precise_line(tmp_path, capsys):
    config = make_task(tmp_path)
    save(tmp_path, "alice", "run-1", [("outcome", "failure", "failure"), attribution("Ghost", 7)])
    save(tmp_path, "bob", "run-2", [("outcome", "failure", "failure"),
                                    ("attribution", "attribution", '{"responsible_agent": "Solo"')])
    code, lines = run_check(config, capsys)
    assert code == 1
    assert "run-1 / alice / attribution: responsible_agent: 'Ghost' is not in this trace" in lines
    assert "run-1 / alice / attribution: decisive_step: '7' is not in this trace" in lines
    assert any(line.startswith("run-2 / bob / attribution: value: not valid JSON") for line in lines), lines


def test_a_value_saved_while_hidden_is_a_warning_not_an_error(tmp_path, capsys):
    config = make_task(tmp_path)
    save(tmp_path, "carol", "run-1", [("outcome", "success", "success"), attribution("Planner", 0)])
    code, lines = run_check(config, capsys)
    assert code == 0, lines
    assert lines[0].startswith("run-1 / carol / attribution: warning: saved while display_logic hides this scheme")
    assert lines[-1] == "0 problem(s), 1 warning(s)"


def test_config_values_potato_validate_never_sees_are_reported_by_key(tmp_path, capsys):
    config = make_task(tmp_path, schemes=[{"annotation_type": TYPE, "name": "attribution", "description": "Who?",
                                           "steps_key": 3, "agents": "Planner"},
                                          {"annotation_type": "multiagent.nope", "name": "x", "description": "?"}],
                       plugins=())
    code, lines = run_check(config, capsys)
    assert code == 1
    assert "config: plugins does not list 'multiagent'" in lines
    assert "config / attribution: steps_key: should be a text, got 3" in lines
    assert "config / attribution: agents: should be a list or null, got \"Planner\"" in lines
    assert any(line.startswith("config / x: annotation_type: 'multiagent.nope' is not provided") for line in lines)


def test_a_saved_instance_missing_from_the_data_is_a_problem(tmp_path, capsys):
    config = make_task(tmp_path)
    save(tmp_path, "dave", "run-9", [("outcome", "failure", "failure"), attribution("Planner", 0)])
    code, lines = run_check(config, capsys)
    assert code == 1 and "run-9 / dave / attribution: the instance is not in the task's data files" in lines


def test_an_unreadable_config_is_one_clear_line(tmp_path, capsys):
    (tmp_path / "config.yaml").write_text("annotation_schemes: [")
    code = main(["check", str(tmp_path / "config.yaml")])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"error: {tmp_path / 'config.yaml'}: cannot read the config")


# -- derive ------------------------------------------------------------------------------------

def test_derive_prints_one_records_derivation_as_json(tmp_path):
    data = tmp_path / "runs.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in RECORDS))
    out = subprocess.run([sys.executable, "-m", "potato_multiagent.cli", "derive", str(data), "--record", "0"],
                         capture_output=True, text=True, check=True).stdout
    derived = json.loads(out)
    assert derived["agents"] == ["Planner", "Coder"]
    assert derived["edges"] == [{"from": "Planner", "to": "Coder", "count": 1, "steps": [1]}]


def test_derive_selects_by_id_and_takes_options(tmp_path, capsys):
    data = tmp_path / "runs.json"
    data.write_text(json.dumps([{"id": "a", "history": [{"role": "Orchestrator (thought)"}]}]))
    assert main(["derive", str(data), "--id", "a", "--steps-key", "history", "--no-agent-qualifiers"]) == 0
    assert json.loads(capsys.readouterr().out)["agents"] == ["Orchestrator (thought)"]


@pytest.mark.parametrize("args, message", [(["--record", "5"], "--record 5 is out of range"),
                                           (["--id", "zzz"], "no record with id = 'zzz'")])
def test_derive_explains_a_bad_selection(tmp_path, capsys, args, message):
    data = tmp_path / "runs.jsonl"
    data.write_text(json.dumps(RECORDS[0]))
    assert main(["derive", str(data), *args]) == 1
    assert message in capsys.readouterr().err


# -- numbering -----------------------------------------------------------------------------------

def with_display(config, fields, extra_schemes=()):
    settings = yaml.safe_load(config.read_text())
    settings["instance_display"] = {"fields": fields}
    settings["annotation_schemes"].extend(extra_schemes)
    config.write_text(yaml.safe_dump(settings))
    return config


def trace(**options):
    return {"key": "steps", "type": "agent_trace", "label": "Run",
            "display_options": {"speaker_key": "agent", "text_key": "content", **options}}


@pytest.mark.parametrize("options", [{"show_step_numbers": True}, {}], ids=["numbers on", "numbers by default"])
def test_an_agent_trace_that_numbers_steps_its_own_way_is_a_warning(tmp_path, capsys, options):
    config = with_display(make_task(tmp_path), [trace(**options)])
    code, lines = run_check(config, capsys)
    assert code == 0 and lines[-1] == "0 problem(s), 1 warning(s)"
    assert lines[0].startswith("config / instance_display / steps: warning: agent_trace numbers only its action and "
                               "thought steps")
    assert "set display_options: {show_step_numbers: false}" in lines[0]


def test_one_numbering_on_the_page_is_clean(tmp_path, capsys):
    mast = {"annotation_type": "trajectory_eval", "name": "mast", "description": "MAST", "steps_key": "steps"}
    config = with_display(make_task(tmp_path), [trace(show_step_numbers=False)], [mast])
    assert run_check(config, capsys) == (0, ["0 problem(s), 0 warning(s)"])


def test_trajectory_eval_over_another_list_is_a_warning(tmp_path, capsys):
    mast = {"annotation_type": "trajectory_eval", "name": "mast", "description": "MAST", "steps_key": "history"}
    config = with_display(make_task(tmp_path), [], [mast])
    code, lines = run_check(config, capsys)
    assert code == 0 and lines == [
        "config / mast: warning: trajectory_eval numbers the steps of 'history' (Step N), our schemes those of "
        "'steps': the same number names different steps; give it steps_key: steps", "0 problem(s), 1 warning(s)"]


def test_a_task_without_our_types_gets_no_numbering_warning(tmp_path, capsys):
    config = with_display(make_task(tmp_path, schemes=[
        {"annotation_type": "radio", "name": "outcome", "description": "Outcome?", "labels": ["a", "b"]}]), [trace()])
    assert run_check(config, capsys) == (0, ["0 problem(s), 0 warning(s)"])


def test_check_derives_each_record_once_not_once_per_value(tmp_path, capsys, monkeypatch):
    """Deriving per value made `check` of 10,000 values spend 95% of its time re-deriving the same
    100 records (docs/performance.md, *How the page is kept cheap*)."""
    import potato_multiagent.check as check_module

    derived = []
    real_derive = check_module.derive
    monkeypatch.setattr(check_module, "derive", lambda record, **options: derived.append(record["id"])
                        or real_derive(record, **options))
    config = make_task(tmp_path)
    for user in ("alice", "bob", "carol"):
        save(tmp_path, user, "run-1", [("outcome", "failure", "failure"), attribution("Coder", 1, "bad code")])
    save(tmp_path, "dave", "run-2", [("outcome", "failure", "failure"), attribution("Solo", 0, "said hi")])
    code, lines = run_check(config, capsys)
    assert code == 0, lines
    assert sorted(derived) == ["run-1", "run-2"]
