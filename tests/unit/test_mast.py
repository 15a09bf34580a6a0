"""multiagent.mast outside the browser: the taxonomy model, export, agreement at both levels, gold
and adjudication, each checked against values written by hand from the input (the comments show
the arithmetic)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from potato_multiagent.adjudicate import adjudicate, export_gold
from potato_multiagent.analysis import agreement_frame, collect, export_collection
from potato_multiagent.task import Task
from potato_multiagent.taxonomy import TaxonomyError, fingerprint, load_file, parse_taxonomy, preset
from potato_multiagent.types import SCHEMES, validate_value

MAST = SCHEMES["multiagent.mast"]
SMALL = {"name": "small", "version": "1", "source": "hand-written", "modes": [
    {"category": "Design", "code": "1.3", "name": "Step repetition", "definition": "A step done again."},
    {"category": "Verification", "code": "3.2", "name": "No or incomplete verification",
     "definition": "The output is not checked."}]}
SMALL_ID = "small@1"
RECORDS = [{"id": "r1", "steps": [{"agent": "P", "content": "plan"}, {"agent": "Q", "content": "do"},
                                  {"agent": "P", "content": "done"}]},
           {"id": "r2", "steps": [{"agent": "P", "content": "ask"}, {"agent": "Q", "content": "answer"}]}]


def make_task(root: Path, values: dict, scheme: dict = None, records=RECORDS) -> Path:
    """A task with one multiagent.mast scheme and `{user: {instance: value}}` saved as Potato saves them."""
    scheme = scheme or {"annotation_type": "multiagent.mast", "name": "mast", "description": "MAST", "taxonomy": SMALL}
    config = {"annotation_task_name": f"mast {root.name}", "task_dir": ".", "data_files": ["data.jsonl"],
              "item_properties": {"id_key": "id"}, "output_annotation_dir": "annotation_output",
              "plugins": ["multiagent"], "annotation_schemes": [scheme]}
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (root / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    for user, by_instance in values.items():
        folder = root / "annotation_output" / user
        folder.mkdir(parents=True)
        (folder / "user_state.json").write_text(json.dumps({"user_id": user, "instance_id_to_label_to_value": {
            instance: [[{"schema": "mast", "name": "mast"}, json.dumps(value)]]
            for instance, value in by_instance.items()}}), encoding="utf-8")
    return root / "config.yaml"


TWO = {
    "u1": {"r1": {"taxonomy": SMALL_ID, "steps": [{"step": 0, "mode": "1.3", "note": "twice", "severity": "major"},
                                                 {"step": 1, "mode": "3.2"}]},
           "r2": {"taxonomy": SMALL_ID, "steps": [{"step": 1, "mode": "1.3"}]}},
    "u2": {"r1": {"taxonomy": SMALL_ID, "steps": [{"step": 0, "mode": "1.3"}],
                  "run": [{"mode": "3.2", "note": "never checked"}]},
           "r2": {"taxonomy": SMALL_ID, "run": [{"mode": "3.2"}]}},
}


def figure(frame: pd.DataFrame, measure: str, annotator=None):
    rows = frame[(frame["measure"] == measure) & (frame["annotator"].isna() if annotator is None
                                                 else frame["annotator"] == annotator)]
    assert len(rows) == 1, (measure, frame["measure"].tolist())
    return rows.iloc[0]


# --------------------------------------------------------------------------- the taxonomy


def test_mast_is_potatos_preset_code_for_code_and_name_for_name():
    from potato.server_utils import failure_taxonomy

    taxonomy = preset("mast")
    labels = [label for modes in failure_taxonomy.to_hierarchical("mast").values() for label in modes]
    assert [mode.label for mode in taxonomy.modes] == labels
    assert taxonomy.mode("2.4").definition == failure_taxonomy.to_tooltips("mast")["2.4 Information withholding"]
    assert list(taxonomy.categories()) == list(failure_taxonomy.get_preset("mast"))
    assert taxonomy.id == f"mast@{fingerprint(taxonomy.modes)}" and len(taxonomy.version) == 8


def test_a_version_changes_with_a_name_or_code_never_with_a_definition():
    base = parse_taxonomy({"modes": SMALL["modes"]}, "t", "t")
    reworded = parse_taxonomy({"modes": [dict(SMALL["modes"][0], definition="Said differently."), SMALL["modes"][1]]},
                              "t", "t")
    renamed = parse_taxonomy({"modes": [dict(SMALL["modes"][0], name="Repeated step"), SMALL["modes"][1]]}, "t", "t")
    assert base.id == reworded.id != renamed.id


def test_labels_from_elsewhere_name_a_mode_by_code_name_or_both_and_another_versions_names_none():
    mast = preset("mast")
    found = {label: (mast.find(label).code if mast.find(label) else None) for label in [
        "1.3", "FM-1.3", "1.3 Step repetition", "Step Repetition", "2.4 Information Witholding",
        "2.5 Ignored Other Agents' Input", "1.2 Disobey Role Specification ",
        "1.1 Poor task constraint compliance", "2.2 Step repetition", "9.9", "Derailment from task"]}
    assert found == {"1.3": "1.3", "FM-1.3": "1.3", "1.3 Step repetition": "1.3", "Step Repetition": "1.3",
                     "2.4 Information Witholding": "2.4", "2.5 Ignored Other Agents' Input": "2.5",
                     "1.2 Disobey Role Specification ": "1.2",
                     # MAD's round 1: its 1.1 and 2.2 are other modes than MAST's final 1.1 and 2.2
                     "1.1 Poor task constraint compliance": None, "2.2 Step repetition": None, "9.9": None,
                     "Derailment from task": None}


def test_a_modes_file_in_yaml_with_its_own_version_and_an_example(tmp_path):
    path = tmp_path / "trail.yaml"
    path.write_text("name: trail\nversion: '2025-05'\nsource: TRAIL, Table 2\nmodes:\n"
                    "  - {category: Reasoning, code: R1, name: Hallucination, definition: Invents a fact., "
                    "example: Cites a page that does not exist.}\n"
                    "  - {category: Execution, code: E1, name: Tool misuse, definition: Wrong tool or arguments.}\n")
    taxonomy = load_file(path)
    assert (taxonomy.id, taxonomy.source, [m.label for m in taxonomy.modes]) == (
        "trail@2025-05", "TRAIL, Table 2", ["R1 Hallucination", "E1 Tool misuse"])
    assert taxonomy.mode("R1").example == "Cites a page that does not exist."
    config, problems = MAST.parse_config({"name": "m", "description": "d", "modes_file": str(path)})
    assert problems == [] and config.taxonomy_model().id == "trail@2025-05"
    assert MAST.widget_config(config)["modes"]["categories"][0]["modes"][0]["example"] == \
        "Cites a page that does not exist."


@pytest.mark.parametrize("text, message", [
    ("modes:\n  - {category: A, code: X, name: N, definition: D}\n  - {category: A, code: X, name: M, definition: E}\n",
     "modes[1].code: 'X' repeats modes[0]"),
    ("modes:\n  - {category: A, code: X, name: N}\n", "modes[0].definition: expected a text, not empty"),
    ("modes:\n  - {category: A, code: X Y, name: N, definition: D}\n", "modes[0].code: expected a code without spaces"),
    ("modes:\n  - {category: A, code: X, name: N, definition: D, colour: red}\n", "modes[0].colour: not a field of a mode"),
    ("modes: []\n", "modes: expected a list of at least one mode"),
])
def test_a_bad_modes_file_is_named_with_its_field(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    config, problems = MAST.parse_config({"name": "m", "description": "d", "modes_file": str(path)})
    assert config is None and len(problems) == 1
    assert problems[0].startswith(f"modes_file: {path.resolve()}: ") and message in problems[0], problems


def test_an_unknown_preset_and_a_missing_file_are_named():
    assert MAST.parse_config({"name": "m", "description": "d", "taxonomy": "trail"})[1] == [
        "taxonomy: Unknown taxonomy preset 'trail'. Available: mast"]
    assert MAST.parse_config({"name": "m", "description": "d", "modes_file": "/nowhere/t.yaml"})[1] == [
        "modes_file: cannot read /nowhere/t.yaml (No such file or directory)"]
    with pytest.raises(TaxonomyError):
        load_file(Path("/nowhere/t.yaml"))


def test_a_relative_modes_file_is_read_from_the_task_folder_by_every_command(tmp_path):
    (tmp_path / "task").mkdir()
    (tmp_path / "task" / "modes.json").write_text(json.dumps({k: v for k, v in SMALL.items() if k != "name"}))
    config = make_task(tmp_path / "task", TWO, {"annotation_type": "multiagent.mast", "name": "mast",
                                                "description": "MAST", "modes_file": "modes.json"})
    # the file's stem names it: modes@1, so every saved value (small@1) is another taxonomy's
    collection = collect(Task(config))
    assert collection.tables["mast"].rows == []
    assert {tuple(i["problems"]) for i in collection.invalid} == {
        ("taxonomy: 'small@1' is not this scheme's taxonomy 'modes@1' (answers made under two taxonomies are "
         "never compared)",)}


# --------------------------------------------------------------------------- export


def test_export_writes_step_tags_and_every_mode_per_trace(tmp_path):
    collection = collect(Task(make_task(tmp_path, TWO)))
    report = export_collection(collection, tmp_path / "out", "jsonl")
    assert [(t["table"], t["file"], t["rows"]) for t in report["tables"]] == [
        ("mast.steps", "mast.steps.jsonl", 4), ("mast.trace", "mast.trace.jsonl", 8),
        ("minutes_per_run", "minutes_per_run.jsonl", 4)]   # u1, u2 x r1, r2: answered, no time (blank)
    steps = [json.loads(line) for line in (tmp_path / "out" / "mast.steps.jsonl").read_text().splitlines()]
    assert [(r["instance_id"], r["user"], r["taxonomy"], r["step"], r["step_number"], r["step_agent"], r["mode"],
             r["mode_name"], r["category"], r["note"], r["severity"]) for r in steps] == [
        ("r1", "u1", SMALL_ID, 0, 1, "P", "1.3", "Step repetition", "Design", "twice", "major"),
        ("r1", "u1", SMALL_ID, 1, 2, "Q", "3.2", "No or incomplete verification", "Verification", "", None),
        ("r1", "u2", SMALL_ID, 0, 1, "P", "1.3", "Step repetition", "Design", "", None),
        ("r2", "u1", SMALL_ID, 1, 2, "Q", "1.3", "Step repetition", "Design", "", None)]
    trace = [json.loads(line) for line in (tmp_path / "out" / "mast.trace.jsonl").read_text().splitlines()]
    assert [(r["instance_id"], r["user"], r["mode"], r["present"], r["located"], r["steps"], r["steps_number"],
             r["whole_run"], r["note"]) for r in trace] == [
        ("r1", "u1", "1.3", True, True, [0], [1], False, None),
        ("r1", "u1", "3.2", True, True, [1], [2], False, None),
        ("r1", "u2", "1.3", True, True, [0], [1], False, None),
        ("r1", "u2", "3.2", True, False, [], [], True, "never checked"),
        ("r2", "u1", "1.3", True, True, [1], [2], False, None),
        ("r2", "u1", "3.2", False, False, [], [], False, None),
        ("r2", "u2", "1.3", False, False, [], [], False, None),
        ("r2", "u2", "3.2", True, False, [], [], True, "")]


# --------------------------------------------------------------------------- agreement


def test_agreement_at_step_and_trace_level_matches_a_hand_computation(tmp_path):
    frame = agreement_frame(collect(Task(make_task(tmp_path, TWO))))
    # Step level: the 5 steps of r1 and r2 are units per mode.
    # 1.3: u1 1,0,0,0,1 / u2 1,0,0,0,0. po = 4/5, pe = .4*.2 + .6*.8 = .56, kappa = .24/.44.
    #      alpha: 3 ones, 7 zeros in 10 values; one disagreeing unit: Do = 2/10, De = 2*3*7/(10*9),
    #      alpha = 1 - .2 / (42/90) = 4/7.
    assert figure(frame, "step level, 1.3 Step repetition: Cohen's kappa")["value"] == pytest.approx(.24 / .44)
    assert figure(frame, "step level, 1.3 Step repetition: Krippendorff's alpha (nominal)")["value"] == \
        pytest.approx(4 / 7)
    # 3.2: u1 0,1,0,0,0 / u2 all 0. po = .8, pe = .2*0 + .8*1 = .8: kappa 0; alpha 1 - .2/(2*9/90) = 0.
    assert figure(frame, "step level, 3.2 No or incomplete verification: Cohen's kappa")["value"] == pytest.approx(0)
    # all modes: 10 units, u1 3 ones, u2 1; po = .8, pe = .3*.1 + .7*.9 = .66, kappa = .14/.34;
    # alpha: 4 ones, 16 zeros, two disagreeing units: 1 - (4/20) / (2*4*16/(20*19)) = 1 - .2/(128/380).
    overall = figure(frame, "step level, all modes: Cohen's kappa")
    assert (overall["value"], overall["items"], overall["annotators"]) == (pytest.approx(.14 / .34), 10, 2)
    assert figure(frame, "step level, all modes: Krippendorff's alpha (nominal)")["value"] == \
        pytest.approx(1 - .2 / (128 / 380))
    # Trace level: (r1, 1.3), (r1, 3.2), (r2, 1.3), (r2, 3.2): u1 1,1,1,0 / u2 1,1,0,1.
    # 1.3: u1 1,1 / u2 1,0: po .5, pe 1*.5 = .5: kappa 0; alpha 1 - (2/4)/(2*3*1/(4*3)) = 0.
    assert figure(frame, "trace level, 1.3 Step repetition: Cohen's kappa")["value"] == pytest.approx(0)
    assert figure(frame, "trace level, 1.3 Step repetition: Krippendorff's alpha (nominal)")["items"] == 2
    # all modes: po = .5, pe = .75*.75 + .25*.25 = .625, kappa = -.125/.375;
    # alpha: 6 ones, 2 zeros, two disagreeing units: 1 - (4/8) / (2*6*2/(8*7)) = 1 - .5/(24/56).
    assert figure(frame, "trace level, all modes: Cohen's kappa")["value"] == pytest.approx(-1 / 3)
    assert figure(frame, "trace level, all modes: Krippendorff's alpha (nominal)")["value"] == \
        pytest.approx(1 - .5 / (24 / 56))


def test_three_annotators_get_alpha_and_kappa_says_why_not(tmp_path):
    three = dict(TWO, u3={"r1": {"taxonomy": SMALL_ID, "steps": [{"step": 0, "mode": "1.3"}]},
                          "r2": {"taxonomy": SMALL_ID, "none_found": True}})
    frame = agreement_frame(collect(Task(make_task(tmp_path, three))))
    kappa = figure(frame, "trace level, all modes: Cohen's kappa")
    assert pd.isna(kappa["value"]) and (kappa["note"], kappa["annotators"]) == ("Cohen's kappa needs exactly two annotators", 3)
    alpha = figure(frame, "trace level, all modes: Krippendorff's alpha (nominal)")
    # u3: r1 1.3 only, r2 none -> 1,0,0,0. Units (r1,1.3): 1,1,1; (r1,3.2): 1,1,0; (r2,1.3): 1,0,0;
    # (r2,3.2): 0,1,0: 12 values, 7 ones, 5 zeros. Disagreeing pairs o01 + o10 = sum over units of
    # 2*n1*n0/(m-1) = 0 + 2 + 2 + 2 = 6; Do = 6/12, De = 2*7*5/(12*11) = 70/132; alpha = 1 - 66/70.
    assert alpha["value"] == pytest.approx(1 - 66 / 70) and alpha["annotators"] == 3


def test_a_value_under_another_taxonomy_is_left_out_and_listed(tmp_path):
    values = {"u1": TWO["u1"], "u2": {"r1": dict(TWO["u2"]["r1"], taxonomy="small@0")}}
    collection = collect(Task(make_task(tmp_path, values)))
    assert [(i["user"], i["instance_id"]) for i in collection.invalid] == [("u2", "r1")]
    frame = agreement_frame(collection)
    assert figure(frame, "trace level, all modes: Cohen's kappa")["note"] == "no item was judged by two annotators"


# --------------------------------------------------------------------------- gold

CODES = [mode.code for mode in preset("mast").modes]
FINAL_NAMES = ["1.1 Disobey Task Specification", "1.2 Disobey Role Specification ", "1.3 Step Repetition",
               "1.4 Loss of Conversation History", "1.5 Unaware of Termination Conditions", "2.1 Conversation reset ",
               "2.2 Fail to ask for clarification", "2.3 Task derailment", "2.4 Information Witholding",
               "2.5 Ignored Other Agents' Input", "2.6 Reasoning-Action Mismatch", "3.1 Premature Termination",
               "3.2 No or Incomplete Verification", "3.3 Incorrect Verification"]


def votes(present):
    return {name: {"annotator_1": name in present, "annotator_2": name in present, "annotator_3": False}
            for name in FINAL_NAMES}


def test_per_trace_gold_in_mads_shapes_gives_accuracy_precision_and_recall_per_mode(tmp_path):
    mast_id = preset("mast").id
    records = [{"id": g, "steps": [{"agent": "P"}, {"agent": "Q"}]} for g in ("g1", "g2", "g3")]
    values = {"u1": {"g1": {"taxonomy": mast_id, "steps": [{"step": 0, "mode": "1.3"}], "run": [{"mode": "2.4"}]},
                     "g2": {"taxonomy": mast_id, "none_found": True},
                     "g3": {"taxonomy": mast_id, "run": [{"mode": "3.2"}]}}}
    config = make_task(tmp_path, values, {"annotation_type": "multiagent.mast", "name": "mast", "description": "M"},
                       records)
    gold = {
        # MAD's full dataset: a vector per code; 3.3 unknown (null) is no judgement
        "g1": {"mast_annotation": {code: int(code in ("1.3", "3.2")) if code != "3.3" else None for code in CODES}},
        # MAD's human file, final round (its own spellings): 2.4 by a majority of 2 of 3
        "g2": {"failure_mode_votes": votes({"2.4 Information Witholding"})},
        # MAD's human file, round 1: another taxonomy, left out rather than read as this one
        "g3": {"failure_mode_votes": {"1.1 Poor task constraint compliance": {"annotator_1": True},
                                      "2.2 Step repetition": {"annotator_1": False}}},
    }
    frame = agreement_frame(collect(Task(config)), gold=gold)
    # 1.3: g1 said/gold 1/1, g2 0/0 -> accuracy 1, precision 1, recall 1
    assert [figure(frame, f"trace level vs gold, 1.3 Step repetition: {m}")["value"]
            for m in ("accuracy", "precision", "recall")] == [1, 1, 1]
    # 2.4: g1 1/0 (false positive), g2 0/1 (false negative) -> 0, 0, 0
    assert [figure(frame, f"trace level vs gold, 2.4 Information withholding: {m}")["value"]
            for m in ("accuracy", "precision", "recall")] == [0, 0, 0]
    # 3.2: g1 0/1, g2 0/0 -> accuracy .5, precision undefined (never said), recall 0
    precision = figure(frame, "trace level vs gold, 3.2 No or incomplete verification: precision")
    assert pd.isna(precision["value"]) and precision["note"] == "never said present: precision is undefined"
    # 3.3: unknown for g1, so g2 alone
    assert figure(frame, "trace level vs gold, 3.3 Incorrect verification: accuracy")["items"] == 1
    # all modes: 27 judgements (g1's 3.3 unknown): TP 1, FP 1, FN 2, TN 23
    overall = figure(frame, "trace level vs gold, all modes: accuracy")
    assert (overall["value"], overall["items"]) == (pytest.approx(24 / 27), 2)
    assert overall["note"].startswith("1 item(s) left out: their gold is not in this taxonomy (e.g. g3: gold "
                                      "failure_mode_votes names '1.1 Poor task constraint compliance'")
    assert figure(frame, "trace level vs gold, all modes: precision", "u1")["value"] == pytest.approx(1 / 2)
    assert figure(frame, "trace level vs gold, all modes: recall", "u1")["value"] == pytest.approx(1 / 3)


# --------------------------------------------------------------------------- adjudication


def test_adjudicate_lists_exactly_the_tag_differences_and_gold_keeps_what_all_agreed(tmp_path):
    config = make_task(tmp_path / "task", TWO)
    result = adjudicate(config, tmp_path / "adjudication")
    assert result.report == [
        "r1 / mast / #2 (Q) 3.2 No or incomplete verification: A: tagged; B: not tagged",
        "r2 / mast / #2 (Q) 1.3 Step repetition: A: tagged; B: not tagged",
        "r2 / mast / whole run: 1.3 Step repetition: A: present; B: absent",
        "r2 / mast / whole run: 3.2 No or incomplete verification: A: absent; B: present"]
    gold = {line["id"]: line["gold"] for line in result.gold}
    # r1: both tagged 1.3 on #1 (notes joined, the severity given) and both found 3.2 in the run
    # (u1 on #2, u2 for the whole run): 3.2 stays as present, not located
    assert gold["r1"] == {"schemes": {}, "settled": {}, "agreed": {"mast": {
        "taxonomy": SMALL_ID, "steps": [{"step": 0, "mode": "1.3", "note": "twice", "severity": "major"}],
        "run": [{"mode": "3.2", "note": "never checked", "severity": None}]}}}
    assert gold["r2"]["agreed"]["mast"] == {"taxonomy": SMALL_ID, "steps": [], "run": []}
    records = [json.loads(line) for line in (tmp_path / "adjudication" / "data" / "adjudication.jsonl")
               .read_text().splitlines()]
    assert [[j["source"] for j in r["judgments"]["mast"]] for r in records] == [["annotator 1", "annotator 2"]] * 2

    # the adjudicator settles r1 by taking annotator 1's tag of 3.2 on #2
    adjudicator = tmp_path / "adjudication" / "annotation_output" / "adj"
    adjudicator.mkdir(parents=True)
    settled = {"taxonomy": SMALL_ID, "steps": [{"step": 1, "mode": "3.2", "note": "", "from_judgment": "annotator 1"}]}
    (adjudicator / "user_state.json").write_text(json.dumps({"user_id": "adj", "instance_id_to_label_to_value": {
        "r1": [[{"schema": "mast", "name": "mast"}, json.dumps(settled)]]}}))
    merge = {line["id"]: line["gold"] for line in result.gold}
    exported = {line["id"]: line["gold"] for line in export_gold(tmp_path / "adjudication" / "config.yaml", merge).lines}
    assert exported["r1"] == {"schemes": {"mast": {"taxonomy": SMALL_ID, "steps": [
        {"step": 0, "mode": "1.3", "note": "twice", "severity": "major"},
        {"step": 1, "mode": "3.2", "note": "", "from_judgment": "annotator 1"}],
        "run": [{"mode": "3.2", "note": "never checked"}]}}, "settled": {"mast": "adjudicated"}}
    assert exported["r2"] == gold["r2"]   # not adjudicated: only what all agreed, not settled
    assert validate_value("multiagent.mast", {"name": "mast", "description": "M", "taxonomy": SMALL},
                          exported["r1"]["schemes"]["mast"], RECORDS[0]) == []


def test_a_scheme_all_annotators_agree_on_is_gold_even_on_an_item_sent_to_the_adjudicator(tmp_path):
    scheme = {"annotation_type": "multiagent.mast", "name": "mast", "description": "MAST", "taxonomy": SMALL}
    attribution = {"annotation_type": "multiagent.failure_attribution", "name": "attribution", "description": "Who?"}
    config = make_task(tmp_path / "task", {"u1": {"r1": TWO["u1"]["r1"]}, "u2": {"r1": TWO["u1"]["r1"]}}, scheme)
    data = yaml.safe_load(config.read_text())
    data["annotation_schemes"].append(attribution)
    config.write_text(yaml.safe_dump(data))
    for user, agent in (("u1", "P"), ("u2", "Q")):
        path = tmp_path / "task" / "annotation_output" / user / "user_state.json"
        state = json.loads(path.read_text())
        state["instance_id_to_label_to_value"]["r1"].append(
            [{"schema": "attribution", "name": "attribution"},
             json.dumps({"responsible_agent": agent, "decisive_step": 0, "reason": ""})])
        path.write_text(json.dumps(state))
    result = adjudicate(config, tmp_path / "adjudication")
    assert result.report == ["r1 / attribution: A: P #1; B: Q #1"]
    assert result.gold == [{"id": "r1", "gold": {"schemes": {"mast": TWO["u1"]["r1"]}, "settled": {"mast": "unanimous"}}}]


def test_step_tags_are_step_references_a_rebase_can_move():
    """Each step tag is one saved step reference (docs/step-references.md); whole-run marks are none."""
    from potato_multiagent.types import SCHEMES

    data = {"taxonomy": "t@1", "steps": [{"step": 1, "step_ref": "fp:aa", "mode": "1.3"}, {"step": 4, "mode": "2.1"}],
            "run": [{"mode": "2.4"}]}
    references = SCHEMES["multiagent.mast"].references(data)
    assert [(r.field, r.index, r.ref) for r in references] == [("steps[0].step", 1, "fp:aa"), ("steps[1].step", 4, None)]
    references[0].write(2, "fp:bb")
    references[1].write(5, None)
    assert data["steps"] == [{"step": 2, "step_ref": "fp:bb", "mode": "1.3"}, {"step": 5, "mode": "2.1"}]
