"""`convert --from who-and-when`: runs written here in Who&When's shape (both subsets)."""

import json

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import ConvertError, convert_inputs

AG2_RUN = {
    "is_correct": False, "question": "How many even street numbers are in the sheet?", "question_ID": "q-1",
    "level": "2", "ground_truth": "8",
    "history": [
        {"content": "Plan: load the sheet, count even numbers.", "role": "assistant", "name": "Planner"},
        {"content": "print(count_even(df))", "role": "user", "name": "Excel_Expert"},
        {"content": "exitcode: 0\n4", "role": "user", "name": "Computer_terminal"},
        {"content": "The answer is 4. TERMINATE", "role": "user", "name": "Verifier"},
    ],
    "mistake_agent": "Excel_Expert", "mistake_step": "1",
    "mistake_reason": "It ignored addresses written as words.",
    "system_prompt": {"Excel_Expert": "You analyse spreadsheets."},
}

MAGENTIC_RUN = {
    "question": "Which gym near the exchange is open at 7 pm?", "ground_truth": "Renzo Gracie",
    "is_corrected": False, "question_ID": "q-2",
    "history": [
        {"content": "Which gym near the exchange is open at 7 pm?", "role": "human"},
        {"content": "Plan: search the web.", "role": "Orchestrator (thought)"},
        {"content": "Search for gyms near the exchange.", "role": "Orchestrator (-> WebSurfer)"},
        {"content": "I clicked an unrelated page.", "role": "WebSurfer"},
    ],
    "mistake_agent": "WebSurfer", "mistake_step": "3", "mistake_reason": "It clicked an irrelevant site.",
}


def write_subsets(root):
    for subset, run in (("Algorithm-Generated", AG2_RUN), ("Hand-Crafted", MAGENTIC_RUN)):
        (root / subset).mkdir(parents=True)
        (root / subset / "1.json").write_text(json.dumps(run), encoding="utf-8")
    return root


def test_both_subsets_convert_with_ids_from_their_folders_and_steps_unchanged(tmp_path):
    conversion = convert_inputs("who-and-when", [write_subsets(tmp_path / "who_and_when")])
    records = {record["id"]: record for record in conversion.records}
    assert list(records) == ["Algorithm-Generated-1", "Hand-Crafted-1"]
    assert records["Algorithm-Generated-1"]["steps"] == AG2_RUN["history"]
    assert records["Hand-Crafted-1"]["steps"] == MAGENTIC_RUN["history"]
    assert records["Algorithm-Generated-1"]["question"] == AG2_RUN["question"]
    assert records["Algorithm-Generated-1"]["system_prompt"] == AG2_RUN["system_prompt"]


def test_gold_holds_the_attribution_and_the_answer_and_never_enters_a_record(tmp_path):
    conversion = convert_inputs("who-and-when", [write_subsets(tmp_path / "who_and_when")])
    assert conversion.gold == [
        {"id": "Algorithm-Generated-1", "gold": {"mistake_agent": "Excel_Expert", "mistake_step": 1,
                                                  "mistake_reason": "It ignored addresses written as words.",
                                                  "is_correct": False, "ground_truth": "8"}},
        {"id": "Hand-Crafted-1", "gold": {"mistake_agent": "WebSurfer", "mistake_step": 3,
                                           "mistake_reason": "It clicked an irrelevant site.",
                                           "ground_truth": "Renzo Gracie", "is_corrected": False}},
    ]
    served = json.dumps(conversion.records)
    for field in ("mistake_agent", "mistake_step", "mistake_reason", "ground_truth", "is_correct", "is_corrected"):
        assert field not in served
    assert "irrelevant site" not in served and "written as words" not in served and "Renzo" not in served


def test_the_gold_step_indexes_the_same_step_in_the_derivation(tmp_path):
    conversion = convert_inputs("who-and-when", [write_subsets(tmp_path / "who_and_when")])
    for record, gold in zip(conversion.records, conversion.gold):
        derivation = derive(record)
        step = derivation.steps[gold["gold"]["mistake_step"]]
        assert step.agent == gold["gold"]["mistake_agent"]
        assert gold["gold"]["mistake_agent"] in derivation.agents
    magentic = derive(conversion.records[1])
    assert ("Orchestrator", "WebSurfer") in {(edge["from"], edge["to"]) for edge in magentic.edges}


@pytest.mark.parametrize("change, message", [
    ({"mistake_step": "7"}, "mistake_step: 7 is not a step of this run (history has 4 steps)"),
    ({"mistake_step": "one"}, "mistake_step: expected a step index, found 'one'"),
    ({"mistake_step": -1}, "mistake_step: expected a step index, found -1"),
    ({"mistake_agent": None}, "mistake_agent: expected the responsible agent's name, found null"),
    ({"history": "none"}, "history: expected the run's steps (a list), found a string"),
])
def test_a_bad_run_is_refused_naming_file_line_and_field(tmp_path, change, message):
    path = tmp_path / "Hand-Crafted" / "9.json"
    path.parent.mkdir()
    path.write_text(json.dumps({**AG2_RUN, **change}), encoding="utf-8")
    with pytest.raises(ConvertError) as error:
        convert_inputs("who-and-when", [path])
    assert str(error.value) == f"{path}:1: {message}"


def test_a_file_of_several_runs_numbers_them(tmp_path):
    path = tmp_path / "runs" / "batch.jsonl"
    path.parent.mkdir()
    path.write_text(f"{json.dumps(AG2_RUN)}\n{json.dumps(MAGENTIC_RUN)}\n", encoding="utf-8")
    assert [record["id"] for record in convert_inputs("who-and-when", [path]).records] == ["runs-batch-1", "runs-batch-2"]


def test_ground_truth_beyond_the_documented_fields_goes_to_gold_as_it_is(tmp_path):
    path = tmp_path / "Hand-Crafted" / "3.json"
    path.parent.mkdir()
    path.write_text(json.dumps({**MAGENTIC_RUN, "mistake_type": "Tool failure", "labels": "Factual_Error"}),
                    encoding="utf-8")
    conversion = convert_inputs("who-and-when", [path])
    [line] = conversion.gold
    assert (line["gold"]["mistake_type"], line["gold"]["labels"]) == ("Tool failure", "Factual_Error")
    assert "Tool failure" not in json.dumps(conversion.records) and "Factual_Error" not in json.dumps(conversion.records)


def test_a_gold_step_taken_by_another_agent_converts_with_a_warning_naming_the_run(tmp_path, capsys):
    from potato_multiagent.cli import main

    path = tmp_path / "Algorithm-Generated" / "15.json"
    path.parent.mkdir()
    path.write_text(json.dumps({**AG2_RUN, "mistake_step": "3"}), encoding="utf-8")  # step 3 is the Verifier's
    assert main(["convert", "--from", "who-and-when", str(path), "-o", str(tmp_path / "out.jsonl")]) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (
        f"warning: {path}:1: mistake_agent: Algorithm-Generated-15 names 'Excel_Expert' but gold step 3 (#4) is "
        f"taken by 'Verifier': Who&When labels the responsible agent, which need not be the one acting at the "
        f"decisive step")
    assert (tmp_path / "out.jsonl").read_text().count("\n") == 1


def test_a_qualified_speaker_is_the_gold_agent_and_gives_no_warning(tmp_path):
    path = tmp_path / "Hand-Crafted" / "2.json"
    path.parent.mkdir()
    path.write_text(json.dumps({**MAGENTIC_RUN, "mistake_agent": "Orchestrator", "mistake_step": "2"}), encoding="utf-8")
    assert convert_inputs("who-and-when", [path]).warnings == []


def test_runs_without_labels_convert_with_no_gold(tmp_path, capsys):
    """A user's own runs dumped in Who&When's shape, nobody's labels yet: records, and no gold line."""
    from potato_multiagent.cli import main

    unlabelled = {key: value for key, value in MAGENTIC_RUN.items()
                  if key not in ("mistake_agent", "mistake_step", "mistake_reason", "ground_truth", "is_corrected")}
    path = tmp_path / "mine" / "1.json"
    path.parent.mkdir()
    path.write_text(json.dumps(unlabelled), encoding="utf-8")
    conversion = convert_inputs("who-and-when", [path])
    assert conversion.records == [{"id": "mine-1", "question": MAGENTIC_RUN["question"], "question_ID": "q-2",
                                   "steps": MAGENTIC_RUN["history"]}]
    assert conversion.gold == [] and conversion.warnings == [] and conversion.skipped == []
    assert main(["convert", "--from", "who-and-when", str(path), "-o", str(tmp_path / "runs.jsonl"),
                 "--gold", str(tmp_path / "gold.jsonl")]) == 0
    assert (tmp_path / "gold.jsonl").read_text() == ""
    assert "skipped" not in capsys.readouterr().err


def test_a_run_with_part_of_the_labels_keeps_what_it_has(tmp_path):
    path = tmp_path / "Hand-Crafted" / "2.json"
    path.parent.mkdir()
    path.write_text(json.dumps({key: value for key, value in MAGENTIC_RUN.items() if key != "mistake_step"}),
                    encoding="utf-8")
    [line] = convert_inputs("who-and-when", [path]).gold
    assert line["gold"] == {"mistake_agent": "WebSurfer", "mistake_reason": "It clicked an irrelevant site.",
                            "ground_truth": "Renzo Gracie", "is_corrected": False}


def test_parquet_rows_with_json_text_columns_read_as_the_runs_they_hold(tmp_path):
    """Who&When-shaped rows as Hugging Face serves such datasets (AgenTracer's TracerTraj writes this
    shape): a Parquet table whose `history` column holds JSON text; a row without labels has no gold."""
    import pyarrow
    import pyarrow.parquet

    unlabelled = {key: value for key, value in MAGENTIC_RUN.items() if not key.startswith("mistake_")}
    rows = [AG2_RUN, unlabelled]
    table = pyarrow.table({
        "question": [run["question"] for run in rows], "question_ID": [run["question_ID"] for run in rows],
        "history": [json.dumps(run["history"]) for run in rows],
        "mistake_agent": [run.get("mistake_agent") for run in rows],
        "mistake_step": [run.get("mistake_step") for run in rows],
        "mistake_reason": [run.get("mistake_reason") for run in rows]})
    path = tmp_path / "tracer" / "train-00000.parquet"
    path.parent.mkdir()
    pyarrow.parquet.write_table(table, path)
    conversion = convert_inputs("who-and-when", [path.parent])
    assert [record["id"] for record in conversion.records] == ["tracer-train-00000-1", "tracer-train-00000-2"]
    assert conversion.records[0]["steps"] == AG2_RUN["history"]
    assert conversion.records[1]["steps"] == MAGENTIC_RUN["history"]
    # the empty cells of the unlabelled row are nulls, which name no label
    assert conversion.gold == [{"id": "tracer-train-00000-1", "gold": {
        "mistake_agent": "Excel_Expert", "mistake_step": 1, "mistake_reason": "It ignored addresses written as words."}}]


def test_a_bad_parquet_row_is_named_by_its_row(tmp_path):
    import pyarrow
    import pyarrow.parquet

    path = tmp_path / "runs.parquet"
    pyarrow.parquet.write_table(pyarrow.table({"history": [json.dumps(AG2_RUN["history"]), "not a list"],
                                               "mistake_step": ["1", "2"]}), path)
    conversion = convert_inputs("who-and-when", [path], strict=False)
    assert [str(error) for error in conversion.skipped] == [
        f"{path}:row 2: history: expected the run's steps (a list), found a string"]
