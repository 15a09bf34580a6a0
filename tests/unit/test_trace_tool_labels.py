"""Which saved answers become which trace-tool labels (tracetools/labels.py), on which span.

A small task: one run of three steps with span ids, a failure attribution scheme and a turn-level
MAST multiselect on our trace view; answers seeded in Potato's saved shape, a gold file and a
judgments file beside. Expected labels are written by hand from those answers.
"""

from __future__ import annotations

import json
from pathlib import Path

from potato_multiagent.analysis import read_gold
from potato_multiagent.judgments import read_judgments
from potato_multiagent.task import Task
from potato_multiagent.tracetools.labels import gold_answers, judgment_answers, task_labels
from potato_multiagent.tracetools.phoenix import phoenix_annotation

RUN = "4bf92f3577b34da6a3ce929d0e0e4736"
SPANS = ["00f067aa0ba902b7", "b7ad6b7169203331", "53995c3f42cd8ad8"]
RECORD = {"id": RUN, "steps": [{"agent": "Planner", "span_id": SPANS[0], "content": "plan: Berlin"},
                               {"agent": "Booker", "span_id": SPANS[1], "content": "booked Bern"},
                               {"agent": "Planner", "content": "done"}]}  # the last step has no span id
CONFIG = f"""annotation_task_name: labels-out
task_dir: .
data_files: [data/runs.jsonl]
item_properties: {{id_key: id, text_key: id}}
output_annotation_dir: annotation_output
instance_display:
  fields:
  - {{key: steps, type: multiagent.trace, label: Run}}
annotation_schemes:
- {{annotation_type: multiagent.failure_attribution, name: attribution, description: Who failed}}
- annotation_type: multiselect
  name: mast_steps
  description: MAST failure modes
  turn_level: true
  turn_binding: {{field: steps}}
  labels: [FM-1.1 Disobey task specification, FM-2.3 Task derailment]
- annotation_type: multiagent.mast
  name: mast
  description: MAST failure modes
"""


def task(folder: Path, saved: dict) -> Task:
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "runs.jsonl").write_text(json.dumps(RECORD) + "\n")
    (folder / "config.yaml").write_text(CONFIG)
    state = folder / "annotation_output" / "ann" / "user_state.json"
    state.parent.mkdir(parents=True)
    state.write_text(json.dumps({"user_id": "ann", "instance_id_to_label_to_value": {RUN: [
        [{"schema": scheme, "name": name}, value] for scheme, name, value in saved]}}))
    return Task(folder / "config.yaml")


ATTRIBUTION = {"responsible_agent": "Booker", "decisive_step": 1, "reason": "Bern is not Berlin"}


def test_decisive_step_goes_on_its_span_with_the_reason(tmp_path):
    found = task(tmp_path / "t", [("attribution", "attribution", json.dumps(ATTRIBUTION))])
    labels = task_labels(found).labels
    assert [phoenix_annotation(label) for label in labels] == [{
        "span_id": SPANS[1], "name": "attribution", "annotator_kind": "HUMAN",
        "result": {"label": "Booker", "explanation": "Bern is not Berlin"},
        "metadata": {"source": "potato-multiagent", "instance_id": RUN, "annotator": "ann", "step_number": 2},
        "identifier": "potato-multiagent:ann"}]


def test_a_step_without_a_span_id_is_named_and_stays_local(tmp_path):
    value = {**ATTRIBUTION, "responsible_agent": "Planner", "decisive_step": 2}
    found = task_labels(task(tmp_path / "t", [("attribution", "attribution", json.dumps(value))]))
    assert found.labels == []
    assert found.problems == [f"{RUN} step #3: no span_id, so its label 'attribution' by ann has no span to go "
                              f"on; not pushed"]


def test_gold_and_judgments_go_out_as_gold_and_as_their_llm_source(tmp_path):
    found = task(tmp_path / "t", [])
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": RUN, "gold": {"schemes": {"attribution": json.dumps(ATTRIBUTION)},
                                                     "settled": {"attribution": "adjudicated"}}}) + "\n")
    judgments = tmp_path / "judgments.jsonl"
    judgments.write_text(json.dumps({"id": RUN, "scheme": "attribution", "source": "gpt-judge", "value": {
        "responsible_agent": "Planner", "decisive_step": 0, "reason": "vague plan"}}) + "\n" + json.dumps(
        {"id": "nope", "scheme": "attribution", "source": "gpt-judge", "value": ATTRIBUTION}) + "\n")
    out = task_labels(found, gold_answers(read_gold(gold), str(gold)) + judgment_answers(read_judgments(judgments)))
    assert [(l.span_id, l.annotator, l.kind, l.label, l.metadata.get("adjudicated"), l.metadata.get("judge"))
            for l in out.labels] == [(SPANS[1], "gold", "HUMAN", "Booker", True, None),
                                     (SPANS[0], "gpt-judge", "LLM", "Planner", None, "gpt-judge")]
    assert out.problems == [f"{judgments}:2: nope / attribution: no run of the task has that id; not pushed"]


def test_mast_tags_go_on_each_tagged_steps_span_one_label_per_mode(tmp_path):
    tags = {"v": 1, "turns": {"t0": {"values": ["FM-1.1 Disobey task specification"]},
                              "t1": {"values": ["FM-1.1 Disobey task specification", "FM-2.3 Task derailment"]}}}
    found = task_labels(task(tmp_path / "t", [("mast_steps", "_data", json.dumps(tags))]))
    assert sorted((l.span_id, l.name, l.label, l.score, l.identifier) for l in found.labels) == sorted([
        (SPANS[0], "mast_steps", "FM-1.1 Disobey task specification", 1.0,
         "potato-multiagent:ann:mode FM-1.1 Disobey task specification"),
        (SPANS[1], "mast_steps", "FM-1.1 Disobey task specification", 1.0,
         "potato-multiagent:ann:mode FM-1.1 Disobey task specification"),
        (SPANS[1], "mast_steps", "FM-2.3 Task derailment", 1.0, "potato-multiagent:ann:mode FM-2.3 Task derailment")])


def test_multiagent_mast_step_tags_go_on_their_spans_and_run_modes_on_the_trace(tmp_path):
    from potato_multiagent.taxonomy import preset

    value = {"taxonomy": preset("mast").id, "steps": [{"step": 1, "mode": "1.3", "note": "books twice",
                                                       "severity": "major"}],
             "run": [{"mode": "2.4", "note": "never says the budget"}]}
    found = task_labels(task(tmp_path / "t", [("mast", "mast", json.dumps(value))]))
    assert found.problems == []
    assert [(l.span_id, l.name, l.label, l.score, l.explanation, l.identifier, l.metadata.get("severity"),
             l.metadata.get("step_numbers")) for l in found.labels] == [
        (SPANS[1], "mast", "1.3", 1.0, "books twice", "potato-multiagent:ann:mode 1.3", "major", None),
        (None, "mast", "1.3", 1.0, None, "potato-multiagent:ann:mode 1.3", None, [2]),
        (None, "mast", "2.4", 1.0, "never says the budget", "potato-multiagent:ann:mode 2.4", None, None)]
