"""Export tables a pandas user can join: `#N` beside every step index, real lists, the graph as two
tables, Potato's own types beside ours, and the dtypes each file loads with.

Values are stored the way Potato 2.12.1 stores them (`[{"schema", "name"}, value]` pairs): a radio
answer as its label (name and value, as the e2e harness restores it), a multiselect as one pair
per ticked box, "Other" text under `free_response`, trajectory_eval as the JSON its widget writes
(`{steps: [{step_index, correctness, ...}], score, score_complete}`), a turn-level scheme as
`_data` holding `{"v": 1, "schema_type", "turns": {...}}`.
"""

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from potato_multiagent import load_task
from potato_multiagent.cli import main
from .test_export import attribution, handoff, make_task, region_mark, save, scheme, timed

ROOT = Path(__file__).resolve().parents[2]
MAST = {"annotation_type": "trajectory_eval", "name": "mast_steps", "description": "MAST", "steps_key": "steps",
        "step_text_key": "content", "error_types": [{"name": "Inter-Agent Misalignment",
                                                     "subtypes": ["FM-2.3 Task derailment"]}]}
OUTCOME = {"annotation_type": "radio", "name": "outcome", "description": "Outcome?", "labels": ["success", "failure"],
           "has_free_response": {"instruction": "Other"}}
MODES = {"annotation_type": "multiselect", "name": "modes", "description": "Modes?",
         "labels": ["derailment", "withholding", "reset"]}
TURN_ERRORS = {"annotation_type": "multiselect", "name": "turn_errors", "description": "Errors in this turn",
               "labels": ["hallucination", "wrong_tool"], "turn_level": True, "turn_binding": {"field": "steps"}}


def store_pairs(config, user, instance, pairs):
    """Append raw `[label, value]` pairs for one user and instance, as Potato keeps them."""
    folder = config.parent / "annotation_output" / user
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "user_state.json"
    state = json.loads(path.read_text()) if path.exists() else {"user_id": user, "instance_id_to_label_to_value": {}}
    state["instance_id_to_label_to_value"].setdefault(instance, []).extend(pairs)
    path.write_text(json.dumps(state))


def mast_value(*steps, score=None):
    return json.dumps({"steps": list(steps), "score": score, "score_complete": score is not None})


def every_type_task(tmp_path):
    """A task with every type of ours and Potato's, each with saved values (two users on run-1)."""
    config = make_task(tmp_path, [
        OUTCOME, MODES, MAST, TURN_ERRORS,
        scheme("multiagent.failure_attribution", "attribution"),
        scheme("multiagent.handoff_review", "handoffs"),
        scheme("multiagent.tool_call_review", "calls"),
        scheme("multiagent.emergent_behavior", "behaviour"),
        scheme("multiagent.agent_scorecard", "scores", milestones=["booked"], milestone_steps=True),
        scheme("multiagent.agent_interaction_graph", "graph"),
        scheme("multiagent.tool_contention", "contention")])
    for user, step in (("alice", 2), ("bob", 1)):
        save(config, user, "run-1", {
            "attribution": attribution("Booker", step, "wrong date"),
            "handoffs": [handoff(0, 1, 0, "Planner", "Booker", ["info_loss"], 2)],
            "calls": [{"index": 0, "step": 1, "position": 0, "id": "c1", "tool": "search", "verdict": "correct",
                       "notes": ""}],
            "behaviour": {"groupthink": {"turns": [0, 3], "note": ""}},
            "scores": {"agents": {"Booker": {"contribution": 2}}, "team": {}, "milestones": {"booked": True},
                       "milestone_steps": {"booked": 2}, "not_applicable": {"agents": {}, "team": []}},
            "graph": {"critical_nodes": ["Booker"], "edges": {}, "edge_marks": []},
            "contention": {"contentions": {"0": "race_condition"}, "regions": [region_mark("race_condition")]}})
        store_pairs(config, user, "run-1", [
            [{"schema": "outcome", "name": "failure"}, "failure"],
            [{"schema": "modes", "name": "derailment"}, "derailment"],
            [{"schema": "modes", "name": "reset"}, "reset"],
            [{"schema": "mast_steps", "name": "mast_steps"}, mast_value(
                {"step_index": 0, "correctness": "correct"},
                {"step_index": step, "correctness": "incorrect", "severity": "major",
                 "error_type": "Inter-Agent Misalignment", "error_subtype": "FM-2.3 Task derailment",
                 "rationale": "went to FedEx"},
                {"step_index": 3, "correctness": None}, score=95)],
            [{"schema": "turn_errors", "name": "_data"}, json.dumps(
                {"v": 1, "schema_type": "multiselect",
                 "turns": {"t1": {"values": ["wrong_tool"], "speaker": "Booker", "step_type": "action"}}})]])
        timed(config, user, "run-1", 45)
    return config


# --------------------------------------------------------------------------- #N companions


STEP_COLUMNS = {"attribution": ["decisive_step"], "handoffs": ["from_step", "step"],
                "calls": ["step", "result_step"], "behaviour": ["turns"], "scores": ["reached_step"],
                "graph.edges": ["steps"], "mast_steps": ["step"]}


@pytest.mark.parametrize("table, columns", STEP_COLUMNS.items())
def test_every_step_index_has_its_number_right_beside_it(tmp_path, table, columns):
    frame = load_task(every_type_task(tmp_path)).annotations(table)
    assert len(frame) > 0
    names = list(frame.columns)
    for column in columns:
        number = f"{column}_number"
        assert names[names.index(column) + 1] == number, names
        for index, shown in zip(frame[column], frame[number]):
            if isinstance(index, list):
                assert shown == [i + 1 for i in index]
            elif pd.isna(index):
                assert pd.isna(shown)
            else:
                assert shown == index + 1


# --------------------------------------------------------------------------- Potato's own types


def test_potato_types_beside_ours_are_exported_and_loaded(tmp_path, capsys):
    config = every_type_task(tmp_path)
    store_pairs(config, "carol", "run-2", [[{"schema": "outcome", "name": "free_response"}, "partly done"]])
    task = load_task(config)
    outcome = task.annotations("outcome")
    assert list(outcome.columns) == ["instance_id", "user", "timestamp", "label", "free_response"]
    assert outcome.astype(object).where(outcome.notna(), None)[["user", "label", "free_response"]].values.tolist() == [
        ["alice", "failure", None], ["bob", "failure", None], ["carol", None, "partly done"]]
    assert task.annotations("modes")["labels"].tolist() == [["derailment", "reset"], ["derailment", "reset"]]
    mast = task.annotations("mast_steps")
    assert mast[["user", "step", "step_number", "step_agent", "correctness", "error_subtype", "score"]].astype(object) \
        .where(mast.notna(), None).values.tolist() == [
        ["alice", 0, 1, "Planner", "correct", None, 95], ["alice", 2, 3, "Booker", "incorrect", "FM-2.3 Task derailment", 95],
        ["bob", 0, 1, "Planner", "correct", None, 95], ["bob", 1, 2, "Booker", "incorrect", "FM-2.3 Task derailment", 95]]
    assert mast.loc[1, "step_text"] == "Booked 15 March."
    turns = task.annotations("turn_errors")
    assert turns[["user", "turn", "speaker", "values"]].values.tolist() == [
        ["alice", "t1", "Booker", ["wrong_tool"]], ["bob", "t1", "Booker", ["wrong_tool"]]]
    assert main(["export", str(config), "--out", str(tmp_path / "out"), "--format", "jsonl"]) == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert {t["table"]: t["type"] for t in report["tables"]}["turn_errors"] == "multiselect (turn_level)"
    rows = [json.loads(line) for line in (tmp_path / "out" / "mast_steps.jsonl").read_text().splitlines()]
    assert rows[1]["error_type"] == "Inter-Agent Misalignment" and rows[1]["rationale"] == "went to FedEx"


def test_an_unreadable_potato_answer_is_invalid_not_a_row(tmp_path):
    config = make_task(tmp_path, [MAST])
    store_pairs(config, "alice", "run-1", [[{"schema": "mast_steps", "name": "mast_steps"}, "{not json"]])
    task = load_task(config)
    assert task.annotations("mast_steps").empty
    [problem] = task.invalid()["problems"].tolist()
    assert problem[0].startswith("value: not valid JSON")


def test_the_team_evaluation_example_has_its_mast_and_outcome_tables():
    task = load_task(ROOT / "examples" / "team-evaluation" / "config.yaml")
    # MAST modes (multiagent.mast): one table of step tags, one of every mode per trace
    assert list(task.annotations("mast.steps").columns)[:8] == ["instance_id", "user", "timestamp", "taxonomy", "step",
                                                               "step_number", "step_ref", "step_agent"]
    assert list(task.annotations("mast.trace").columns)[3:8] == ["taxonomy", "mode", "mode_name", "category", "present"]
    assert "label" in task.annotations("outcome").columns


# --------------------------------------------------------------------------- dtypes per format

INTS, BOOLS, FLOATS = "Int64", "boolean", "Float64"
EXPECTED = {  # table -> {column: what a pandas user expects}
    "attribution": {"decisive_step": INTS, "decisive_step_number": INTS},
    "handoffs": {"from_step": INTS, "from_step_number": INTS, "step_number": INTS, "quality": INTS,
                 "reviewed": BOOLS, "bulk": BOOLS, "flag_info_loss": BOOLS},
    "calls": {"call_index": INTS, "step_number": INTS, "position": INTS},
    "behaviour": {"occurrence": INTS, "turns": list, "turns_number": list, "agents": list},
    "scores": {"score": INTS, "reached_step_number": INTS, "reached": BOOLS},
    "graph.agents": {"critical": BOOLS, "path_position": INTS},
    "graph.edges": {"count": INTS, "steps": list, "steps_number": list},
    "contention": {"region_index": INTS, "start": FLOATS, "end": FLOATS, "agents": list, "calls": list, "tools": list},
    "outcome": {"label": "string"},
    "modes": {"labels": list},
    "mast_steps": {"step": INTS, "step_number": INTS, "score": INTS, "score_complete": BOOLS},
    "turn_errors": {"values": list},
    "minutes_per_run": {"minutes": FLOATS, "answered": BOOLS},
}


def read_back(path, fmt, list_columns):
    """How a pandas user reads each format (nullable dtypes; in CSV, list columns as text, as
    docs/data.md says, to split on `;`)."""
    if fmt == "parquet":
        return pd.read_parquet(path)
    if fmt == "jsonl":
        return pd.read_json(path, lines=True, dtype_backend="numpy_nullable")
    return pd.read_csv(path, dtype_backend="numpy_nullable", keep_default_na=False, na_values=[""],
                       dtype={column: "string" for column in list_columns})


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_each_exported_file_loads_in_pandas_with_the_dtypes_a_user_expects(tmp_path, fmt):
    config = every_type_task(tmp_path)
    assert main(["export", str(config), "--out", str(tmp_path / "out"), "--format", fmt]) == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert {t["table"] for t in report["tables"]} == set(EXPECTED)
    for entry in report["tables"]:
        lists = [column for column, expected in EXPECTED[entry["table"]].items() if expected is list]
        frame = read_back(tmp_path / "out" / entry["file"], fmt, lists)
        assert len(frame) == entry["rows"] > 0, entry
        for column in frame.columns:  # no column of dicts, anywhere
            assert not frame[column].map(lambda cell: isinstance(cell, dict)).any(), (entry["table"], column)
        for column, expected in EXPECTED[entry["table"]].items():
            where = (fmt, entry["table"], column, frame[column].dtype)
            if expected is list:
                cells = [cell for cell in frame[column] if not (cell is None or cell is pd.NA)]
                if fmt == "csv":  # a list is its items joined with ";": no JSON text in a cell
                    assert all(isinstance(cell, str) and not cell.startswith("[") for cell in cells), where
                    if (entry["table"], column) == ("behaviour", "turns_number"):
                        assert cells == ["1;4", "1;4"], where
                elif fmt == "parquet":
                    assert str(pq.read_schema(tmp_path / "out" / entry["file"]).field(column).type).startswith("list<"), where
                else:
                    assert all(isinstance(cell, list) for cell in cells), where
            elif expected == INTS:
                assert pd.api.types.is_integer_dtype(frame[column].dtype), where
            elif expected == BOOLS:
                assert pd.api.types.is_bool_dtype(frame[column].dtype), where
            elif expected == FLOATS and fmt == "jsonl":  # pandas reads 0.0 back as an int: look at the JSON
                lines = (tmp_path / "out" / entry["file"]).read_text().splitlines()
                assert all(isinstance(json.loads(line)[column], float) for line in lines), where
            elif expected == FLOATS:
                assert pd.api.types.is_float_dtype(frame[column].dtype), where
            else:
                assert pd.api.types.is_string_dtype(frame[column].dtype), where
