"""Labels kept in a side file (`--gold-from`), on files in AgentRx's layout (tests/fixtures/agentrx).

By hand, run 0a3cd321...: 13 messages; AgentRx's failure 1 is at step_number 9 (from 1: message 8,
the WebSurfer's "I clicked '1.E: Exercises ...'"), failure 2, the root cause, at 12 (message 11,
FileSurfer's invented surname). Run 7619a514... has no label; one label names a run not in the folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from potato_multiagent.cli import main
from potato_multiagent.convert import ConvertError, LabelSource, convert_inputs

DATA = Path(__file__).resolve().parents[1] / "fixtures" / "agentrx" / "data"
RUNS = DATA / "magentic_dataset"
TRUTH = DATA / "ground_truth" / "magentic_one_ground_truth.json"
LABELLED = "0a3cd321-3e76-4622-911b-0fda2e5d6b1a"
UNLABELLED = "7619a514-5fa8-43ef-9143-83b66a43d7a4"


def test_agentrx_failures_join_their_runs_with_steps_counted_from_one():
    conversion = convert_inputs("autogen", [RUNS], labels=LabelSource(TRUTH, key="trajectory_id", step_base=1))
    assert [record["id"] for record in conversion.records] == [LABELLED, UNLABELLED]
    [line] = conversion.gold
    assert line["id"] == LABELLED
    gold = line["gold"]
    assert [(f["step_number"], f["step_index"], f["failed_agent"]) for f in gold["failures"]] == [
        (9, 8, "Websurfer"), (12, 11, "FileSurfer")]
    # the root cause (failure 2) as Who&When's attribution, which agreement --gold scores
    assert (gold["mistake_agent"], gold["mistake_step"], gold["mistake_reason"]) == (
        "FileSurfer", 11, "The invented surname became the final answer.")
    steps = conversion.records[0]["steps"]
    assert steps[8]["role"] == "WebSurfer" and steps[11]["content"].endswith("Dr. Louvrier.")
    assert conversion.labelled == 1 and conversion.unlabelled == [UNLABELLED]
    assert conversion.unmatched_labels == [
        f"{TRUTH}:{_line_of(TRUTH, 'c7afe008')}: c7afe00869f98cf363fd83677ac41757ed5e57f03eacc3d1304feb0a92084bd1"]
    assert conversion.warnings == [f"{TRUTH}:2: failed_agent: {LABELLED}: 'Websurfer' is not an agent of this run "
                                   f"(its agents: human, Orchestrator, WebSurfer, FileSurfer)"]
    assert "failure_category" not in json.dumps(conversion.records)


def _line_of(path: Path, text: str) -> int:
    """The line where the JSON array element holding ``text`` starts (the `{` before it)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    at = next(k for k, line in enumerate(lines) if text in line)
    return max(k for k in range(at + 1) if lines[k].strip() == "{") + 1


def test_labels_that_number_steps_without_a_base_are_refused_not_guessed():
    with pytest.raises(ConvertError) as error:
        convert_inputs("autogen", [RUNS], labels=LabelSource(TRUTH, key="trajectory_id"))
    assert str(error.value) == (f"{TRUTH}:2: failures[0].step_number: the labels number steps but say neither from 0 "
                                f"nor from 1: pass --gold-step-base 0 or 1 (AgentRx counts from 1)")


def test_a_step_outside_its_run_costs_that_label_only(tmp_path):
    truth = json.loads(TRUTH.read_text(encoding="utf-8"))
    truth[0]["failures"][1]["step_number"] = 14  # the run has 13 steps
    path = tmp_path / "truth.json"
    path.write_text(json.dumps(truth), encoding="utf-8")
    conversion = convert_inputs("autogen", [RUNS], strict=False,
                                labels=LabelSource(path, key="trajectory_id", step_base=1))
    assert conversion.gold == [] and conversion.unlabelled == [LABELLED, UNLABELLED]
    assert [str(error) for error in conversion.skipped] == [
        f"{path}:1: failures[1].step_number: 14 (counted from 1) is not a step of this run (13 steps)"]


def test_the_cli_reports_runs_without_labels_and_labels_without_runs(tmp_path, capsys):
    code = main(["convert", "--from", "autogen", str(RUNS), "-o", str(tmp_path / "runs.jsonl"), "--gold",
                 str(tmp_path / "gold.jsonl"), "--gold-from", str(TRUTH), "--gold-key", "trajectory_id",
                 "--gold-step-base", "1"])
    assert code == 0
    err = capsys.readouterr().err.splitlines()
    assert f"note: 1 run(s) have no label: {UNLABELLED}" in err
    assert "note: 1 of 2 run(s) got a label from --gold-from" in err
    assert any(line.startswith(f"warning: {TRUTH}:") and line.endswith(
        "c7afe00869f98cf363fd83677ac41757ed5e57f03eacc3d1304feb0a92084bd1: this label names no run") for line in err)
    [gold] = [json.loads(line) for line in (tmp_path / "gold.jsonl").read_text().splitlines()]
    assert gold["gold"]["mistake_step"] == 11
