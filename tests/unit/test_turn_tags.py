"""Turn-level MAST tags out of ``export`` (one row per item, step, mode, annotator) and ``agreement``
(per mode and overall), checked against figures computed by hand in the comments."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from potato_multiagent.analysis import agreement_frame, collect, export_collection
from potato_multiagent.task import Task

MODES = ["A", "B"]
RECORD = {"id": "run-1", "steps": [{"agent": "P"}, {"agent": "Q"}, {"agent": "P"}, {"agent": "R (thought)"}]}


def write_task(tmp_path, tags_by_user):
    config = {"annotation_task_name": "turn tags", "data_files": ["data.jsonl"], "item_properties": {"id_key": "id"},
              "output_annotation_dir": "annotation_output", "plugins": ["multiagent"],
              "instance_display": {"fields": [{"key": "steps", "type": "multiagent.trace"}]},
              "annotation_schemes": [{"annotation_type": "multiselect", "name": "mast", "description": "MAST",
                                      "labels": MODES, "turn_level": True, "turn_binding": {"field": "steps"}}]}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (tmp_path / "data.jsonl").write_text(json.dumps(RECORD) + "\n", encoding="utf-8")
    for user, tags in tags_by_user.items():
        turns = {f"t{step}": {"values": modes} for step, modes in tags.items() if modes}
        value = json.dumps({"v": 1, "schema_type": "multiselect", "turns": turns})
        folder = tmp_path / "annotation_output" / user
        folder.mkdir(parents=True)
        (folder / "user_state.json").write_text(json.dumps({"user_id": user, "instance_id_to_label_to_value": {
            "run-1": [[{"schema": "mast", "name": "_data"}, value]]}}), encoding="utf-8")
    return Task(tmp_path / "config.yaml")


TWO = {"u1": {0: ["A"], 1: ["A", "B"], 2: [], 3: ["B"]},
       "u2": {0: ["A"], 1: ["B"], 2: ["A"], 3: ["B"]}}


def figure(frame, measure):
    return frame.loc[frame["measure"] == measure, "value"].iloc[0]


def test_export_writes_one_row_per_item_step_mode_annotator(tmp_path):
    collection = collect(write_task(tmp_path, TWO))
    report = export_collection(collection, tmp_path / "out", "csv")
    table = next(t for t in report["tables"] if t["scheme"] == "mast")
    assert (table["type"], table["file"], table["rows"]) == ("multiselect (turn_level)", "mast.csv", 8)
    rows = pd.read_csv(tmp_path / "out" / "mast.csv")
    assert list(rows.columns) == ["instance_id", "user", "timestamp", "turn", "step", "step_number", "step_agent",
                                  "mode", "run_steps"]
    # by item and annotator, then step and mode; the agent is the derivation's (qualifier dropped)
    assert rows[["user", "turn", "step", "step_number", "step_agent", "mode", "run_steps"]].values.tolist() == [
        ["u1", "t0", 0, 1, "P", "A", 4], ["u1", "t1", 1, 2, "Q", "A", 4], ["u1", "t1", 1, 2, "Q", "B", 4],
        ["u1", "t3", 3, 4, "R", "B", 4],
        ["u2", "t0", 0, 1, "P", "A", 4], ["u2", "t1", 1, 2, "Q", "B", 4], ["u2", "t2", 2, 3, "P", "A", 4],
        ["u2", "t3", 3, 4, "R", "B", 4]]


def test_without_the_trace_view_the_generic_turn_level_table_stays(tmp_path):
    task = write_task(tmp_path, TWO)
    text = (tmp_path / "config.yaml").read_text().replace("multiagent.trace", "agent_trace")
    (tmp_path / "config.yaml").write_text(text)
    table = collect(Task(tmp_path / "config.yaml")).tables["mast"]
    assert "values" in table.frame().columns and "mode" not in table.frame().columns


def test_agreement_per_mode_and_overall_matches_a_hand_computation(tmp_path):
    frame = agreement_frame(collect(write_task(tmp_path, TWO)))
    mast = frame[frame["scheme"] == "mast"]
    # mode A over the 4 steps: u1 1,1,0,0 / u2 1,0,1,0. po = 2/4, pe = .5*.5 + .5*.5 = .5 -> kappa 0.
    # alpha (nominal): n = 8 values, 4 ones, 4 zeros; 2 disagreeing units -> o01 + o10 = 4;
    # alpha = 1 - (n - 1) * 4 / (2 * 4 * 4) = 1 - 28/32 = 0.125
    assert figure(mast, "A: Cohen's kappa") == pytest.approx(0.0)
    assert figure(mast, "A: Krippendorff's alpha (nominal)") == pytest.approx(0.125)
    # mode B: u1 0,1,0,1 / u2 0,1,0,1: perfect agreement.
    assert figure(mast, "B: Cohen's kappa") == pytest.approx(1.0)
    assert figure(mast, "B: Krippendorff's alpha (nominal)") == pytest.approx(1.0)
    # overall, 8 (step, mode) units: 6 agree, po = .75, each annotator tags 4 of 8 -> pe = .5, kappa = .5;
    # alpha: n = 16, 8 ones, 8 zeros, 2 disagreeing units: 1 - 15 * 4 / (2 * 8 * 8) = 0.53125
    assert figure(mast, "overall: Cohen's kappa") == pytest.approx(0.5)
    assert figure(mast, "overall: Krippendorff's alpha (nominal)") == pytest.approx(0.53125)
    assert set(mast["items"]) == {4, 8}


def test_three_annotators_get_alpha_and_no_kappa(tmp_path):
    # mode B on steps 0 and 1 only matters: step 0 tagged by all three, step 1 by two of three;
    # steps 2 and 3 by nobody. Units (4): [1,1,1], [1,1,0], [0,0,0], [0,0,0]. n = 12, ones 5, zeros 7.
    # coincidences: the mixed unit (m = 3) gives o10 = o01 = 2/2 = 1 -> sum 2.
    # alpha = 1 - (n - 1) * 2 / (2 * 5 * 7) = 1 - 22/70
    three = {"u1": {0: ["B"], 1: ["B"]}, "u2": {0: ["B"], 1: ["B"]}, "u3": {0: ["B"]}}
    frame = agreement_frame(collect(write_task(tmp_path, three)))
    mast = frame[frame["scheme"] == "mast"]
    assert figure(mast, "B: Krippendorff's alpha (nominal)") == pytest.approx(1 - 22 / 70)
    kappa = mast[mast["measure"] == "B: Cohen's kappa"].iloc[0]
    assert pd.isna(kappa["value"]) and "two annotators" in kappa["note"]
    assert pd.isna(figure(mast, "A: Krippendorff's alpha (nominal)"))   # nobody tagged A: alpha is undefined
