"""MAST tagging as annotators, a judge and an adjudicator meet it (issue 31, "Done when").

Two annotators tag two runs on a real `potato start` page, in Chromium: alice tags a step with a
chip in the trace view, gives that tag a note and a severity in the form, accepts a judge's tag
shown on a step, and marks a mode for the whole run; bob tags a step from the keyboard (the mode's
definition shows on focus) and marks another mode for the whole run; on the second run one finds
nothing and the other adds a tag from the form. What Potato saved is compared with values written
here by hand, then `export` and `agreement` (human-human and judge-human, a shown and an
evaluation-only judge) with figures computed here from counts read off those values.
A second test seeds the same answers, runs `adjudicate` (its differences, word for word), settles
them in the browser by accepting an annotator's tag and ticking "No failure mode", and checks the
gold `export --as-gold` writes (every tag, the unanimous ones included) and `agreement --gold`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent.judgments import attach_judgments, our_schemes
from potato_multiagent.taxonomy import preset
from tests.step_identity import fingerprint

from .harness import current_instance_id, go_next, login, returning_user_state, wait_saved_json

TAXONOMY = preset("mast")
TID = TAXONOMY.id
SCHEME = {"annotation_type": "multiagent.mast", "name": "mast", "description": "MAST failure modes"}
RUNS = [
    {"id": "trip-1", "task": "Book a flight Berlin-Lisbon on 12 June under EUR 200.", "steps": [
        {"agent": "Planner", "content": "Searcher: find BER-LIS fares for 12 June under EUR 200. Booker books."},
        {"agent": "Searcher", "content": "Searching fares BER-LIS on 12 June."},
        {"agent": "Searcher", "content": "Searching fares BER-LIS on 12 June, again."},
        {"agent": "Booker", "content": "Booked TP 523 for EUR 240."},
        {"agent": "Planner", "content": "Done: the flight is booked."}]},
    {"id": "trip-2", "task": "Find a hotel in Lisbon for two nights.", "steps": [
        {"agent": "Planner", "content": "Searcher: a hotel for two nights."},
        {"agent": "Searcher", "content": "Which dates? I'll assume 12-14 June."},
        {"agent": "Planner", "content": "Hotel Avenida, 12-14 June."}]},
]
JUDGMENTS = [
    {"id": "trip-1", "scheme": "mast", "source": "llm-judge", "value": {"taxonomy": TID, "steps": [
        {"step": 2, "mode": "1.3", "note": "the same search twice"}, {"step": 3, "mode": "2.4"}],
        "run": [{"mode": "3.2"}]}},
    {"id": "trip-1", "scheme": "mast", "source": "baseline", "show": False,
     "value": {"taxonomy": TID, "steps": [{"step": 2, "mode": "1.3"}]}},
    {"id": "trip-2", "scheme": "mast", "source": "baseline", "show": False,
     "value": {"taxonomy": TID, "steps": [{"step": 1, "mode": "2.2"}]}},
]

NOTE = "searches the same fares again"
# What each annotator's actions below must store, written by hand.
ALICE = {
    "trip-1": {"taxonomy": TID, "steps": [
        {"step": 2, "mode": "1.3", "note": NOTE, "severity": "major"},
        {"step": 3, "mode": "2.4", "note": "", "severity": None, "from_judgment": "llm-judge"}],
        "run": [{"mode": "3.2", "note": "", "severity": None}]},
    "trip-2": {"taxonomy": TID, "steps": [], "run": [], "none_found": True},
}
BOB = {
    "trip-1": {"taxonomy": TID, "steps": [{"step": 2, "mode": "1.3", "note": "", "severity": None}],
               "run": [{"mode": "2.4", "note": "", "severity": None}]},
    "trip-2": {"taxonomy": TID, "steps": [{"step": 1, "mode": "2.2", "note": "", "severity": None}], "run": []},
}


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "potato_multiagent.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def write_task(folder: Path, name: str) -> Path:
    """The task: the runs (carrying the shown judgment), a trace view and the MAST scheme; the
    judgments file beside it (evaluation-only judgments are only there)."""
    config = {"annotation_task_name": f"{name} {uuid.uuid4().hex[:8]}", "task_dir": ".",
              "data_files": ["data/runs.jsonl"], "item_properties": {"id_key": "id", "text_key": "task"},
              "output_annotation_dir": "annotation_output", "plugins": ["multiagent"], "require_password": False,
              "instance_display": {"fields": [{"key": "task", "type": "text", "label": "Task"},
                                              {"key": "steps", "type": "multiagent.trace", "label": "Run",
                                               "layout": "lanes", "display_options": {"resizable": False}}]},
              "annotation_schemes": [SCHEME]}
    (folder / "data").mkdir(parents=True)
    (folder / "judgments.jsonl").write_text("".join(json.dumps(j) + "\n" for j in JUDGMENTS))
    placed = attach_judgments(RUNS, folder / "judgments.jsonl", our_schemes(config)).records
    (folder / "data" / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in placed))
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return folder


def kappa(agree: int, units: int, ones_a: int, ones_b: int) -> float:
    """Cohen's kappa of two annotators' yes/no over `units`: observed against chance agreement."""
    po, pa, pb = agree / units, ones_a / units, ones_b / units
    pe = pa * pb + (1 - pa) * (1 - pb)
    return (po - pe) / (1 - pe)


def alpha(disagreeing: int, values: int, ones: int) -> float:
    """Krippendorff's nominal alpha for two annotators' yes/no: 1 - D (n - 1) / (n1 n0)."""
    return 1 - disagreeing * (values - 1) / (ones * (values - ones))


def figures(stdout: str, **where) -> dict:
    rows = json.loads(stdout)
    rows = rows["annotators"] if isinstance(rows, dict) and "annotators" in rows else rows
    return {(r["measure"], r["annotator"]): r for r in rows if all(r.get(k) == v for k, v in where.items())}


# --------------------------------------------------------------------------- annotating


@pytest.fixture(scope="module")
def task(potato_task, tmp_path_factory):
    return potato_task(write_task(tmp_path_factory.mktemp("mast-task") / "task", "MAST e2e"))


def mast_form(page):
    form = page.locator('form.annotation-form[data-schema-name="mast"]')
    form.scroll_into_view_if_needed()
    expect(form).to_have_attribute("data-ma-ready", "true")
    return form


def step(page, index: int):
    return page.locator(f'section.ma-trace .ma-trace-step[data-step="{index}"]')


def test_two_annotators_a_judge_export_and_agreement(task, page, new_context):
    page.set_viewport_size({"width": 1400, "height": 900})
    alice, bob = f"alice-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"

    # alice, trip-1: the mode on #3 with its chip (mouse), the chip's definition on hover
    login(page, task.base_url, alice)
    assert current_instance_id(page) == "trip-1"
    assert "baseline" not in page.content()   # evaluation-only judgments never reach the page
    third = step(page, 2)
    third.locator(".ma-trace-modes .ma-trace-tags-toggle").click()
    chip = third.get_by_role("button", name="1.3 Step repetition", exact=True)
    chip.hover()
    tip = page.locator("section.ma-trace .ma-mode-tip")
    expect(tip).to_be_visible()
    expect(tip).to_contain_text(TAXONOMY.mode("1.3").definition)
    chip.click()
    expect(chip).to_have_attribute("aria-pressed", "true")
    expect(page.locator("section.ma-trace .ma-trace-status")).to_have_text("1.3 Step repetition tagged on #3.")
    # its note and severity in the form
    form = mast_form(page)
    form.get_by_label("Severity of 1.3 Step repetition on #3").select_option("major")
    form.get_by_label("Note on 1.3 Step repetition on #3").fill(NOTE)
    # the judge's tag on #4, accepted on the step
    judged = step(page, 3).locator(".ma-mode-judgment")
    expect(judged).to_have_text("judge llm-judge: 2.4 Information withholding Accept")
    step(page, 3).get_by_role("button", name="Accept llm-judge\u2019s tag 2.4 Information withholding on #4").click()
    expect(step(page, 3).locator(".ma-mode-accept")).to_have_attribute("aria-disabled", "true")
    # a mode for the whole run (present, not located), from the keyboard
    # the whole-run list is a line per mode; each definition is its checkbox's description and
    # is shown under it on demand, which stays so for the next item of the tab
    whole = form.get_by_role("checkbox", name="3.2 No or incomplete verification")
    expect(whole).to_have_accessible_description(TAXONOMY.mode("3.2").definition)
    definition = form.get_by_text(TAXONOMY.mode("3.2").definition, exact=True)
    expect(definition).to_be_hidden()
    assert form.locator('[data-ma="run-mode"]').evaluate_all(
        "rows => rows.every(row => row.getBoundingClientRect().height < 40)")
    form.get_by_role("button", name="Show definitions").click()
    expect(definition).to_be_visible()
    form.get_by_role("button", name="Hide definitions").click()
    expect(definition).to_be_hidden()
    form.get_by_role("button", name="Show definitions").click()
    whole.focus()
    page.keyboard.press("Space")
    wait_saved_json(task, alice, "trip-1", "mast", ALICE["trip-1"])
    expect(form.locator('[data-ma="run-modes"]')).to_have_text(
        "This run\u2019s modes: 1.3 Step repetition (#3); 2.4 Information withholding (#4); "
        "3.2 No or incomplete verification (whole run).")
    # alice, trip-2: nothing found
    assert go_next(page) == "trip-2"
    expect(mast_form(page).get_by_text(TAXONOMY.mode("3.2").definition, exact=True)).to_be_visible()
    mast_form(page).get_by_role("checkbox", name="No failure mode in this run").check()
    wait_saved_json(task, alice, "trip-2", "mast", ALICE["trip-2"])

    # bob, trip-1: the same step from the keyboard; the definition shows on focus and is announced
    page = new_context(viewport={"width": 1400, "height": 900}).new_page()
    login(page, task.base_url, bob)
    toggle = step(page, 2).locator(".ma-trace-modes .ma-trace-tags-toggle")
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Tab")   # the step's chips are one Tab stop: 1.1, then arrows to 1.2, 1.3
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    focused = step(page, 2).get_by_role("button", name="1.3 Step repetition", exact=True)
    expect(focused).to_be_focused()
    expect(focused).to_have_accessible_description(TAXONOMY.mode("1.3").definition)
    expect(page.locator("section.ma-trace .ma-mode-tip")).to_contain_text(TAXONOMY.mode("1.3").definition)
    page.keyboard.press("Enter")
    expect(focused).to_have_attribute("aria-pressed", "true")
    mast_form(page).get_by_role("checkbox", name="2.4 Information withholding").check()
    wait_saved_json(task, bob, "trip-1", "mast", BOB["trip-1"])
    # bob, trip-2: a tag added from the form
    assert go_next(page) == "trip-2"
    form = mast_form(page)
    form.get_by_label("Step #", exact=True).fill("2")
    form.get_by_label("Mode", exact=True).select_option("2.2")
    form.get_by_role("button", name="Add tag").click()
    wait_saved_json(task, bob, "trip-2", "mast", BOB["trip-2"])

    config = task.task_dir / "config.yaml"
    # export: the step tags and every mode per trace, as saved
    out = task.task_dir / "export"
    made = cli("export", config, "--format", "jsonl", "--out", out)
    assert made.returncode == 0, made.stderr
    steps = [json.loads(line) for line in (out / "mast.steps.jsonl").read_text().splitlines()]
    assert [(r["instance_id"], r["user"], r["step_number"], r["step_agent"], r["mode"], r["note"], r["severity"],
             r["from_judgment"], r["taxonomy"]) for r in steps] == [
        ("trip-1", alice, 3, "Searcher", "1.3", NOTE, "major", None, TID),
        ("trip-1", alice, 4, "Booker", "2.4", "", None, "llm-judge", TID),
        ("trip-1", bob, 3, "Searcher", "1.3", "", None, None, TID),
        ("trip-2", bob, 2, "Searcher", "2.2", "", None, None, TID)]
    trace = [json.loads(line) for line in (out / "mast.trace.jsonl").read_text().splitlines()]
    assert len(trace) == 2 * 2 * 14   # (item, mode, annotator) for every mode
    assert [(r["instance_id"], r["user"], r["mode"], r["steps_number"], r["whole_run"]) for r in trace
            if r["present"]] == [
        ("trip-1", alice, "1.3", [3], False), ("trip-1", alice, "2.4", [4], False), ("trip-1", alice, "3.2", [], True),
        ("trip-1", bob, "1.3", [3], False), ("trip-1", bob, "2.4", [], True),
        ("trip-2", bob, "2.2", [2], False)]

    # agreement between alice and bob
    made = cli("agreement", config, "--json")
    assert made.returncode == 0, made.stderr
    found = figures(made.stdout, scheme="mast")
    value = lambda measure, who=None: found[(measure, who)]["value"]   # noqa: E731
    # step level: 5 + 3 steps per mode. 1.3: both tag trip-1 #3 only -> identical, kappa and alpha 1.
    assert value("step level, 1.3 Step repetition: Cohen's kappa") == pytest.approx(1)
    # 2.4 on steps: alice #4 of trip-1, bob none: 7 of 8 agree, alice 1 yes, bob 0.
    assert value("step level, 2.4 Information withholding: Cohen's kappa") == pytest.approx(kappa(7, 8, 1, 0))
    assert value("step level, 2.4 Information withholding: Krippendorff's alpha (nominal)") == \
        pytest.approx(alpha(1, 16, 1))
    # all modes: 8 steps x 14 modes = 112 units; alice 2 yes, bob 2 yes, 2 units differ (2.4 on
    # trip-1 #4, 2.2 on trip-2 #2): 110 agree; alpha over 224 values with 4 yes.
    all_steps = found[("step level, all modes: Cohen's kappa", None)]
    assert (all_steps["value"], all_steps["items"], all_steps["annotators"]) == (
        pytest.approx(kappa(110, 112, 2, 2)), 112, 2)
    assert value("step level, all modes: Krippendorff's alpha (nominal)") == pytest.approx(alpha(2, 224, 4))
    # trace level: 2 runs per mode. 2.4: both present in trip-1 (alice on #4, bob for the whole
    # run) and absent in trip-2: identical. 3.2: alice trip-1 only -> 1 of 2 agree.
    assert value("trace level, 2.4 Information withholding: Cohen's kappa") == pytest.approx(1)
    assert value("trace level, 3.2 No or incomplete verification: Cohen's kappa") == pytest.approx(kappa(1, 2, 1, 0))
    # all modes: 28 (run, mode) units; alice 3 yes, bob 3 yes (1.3, 2.4 in trip-1; 2.2 in trip-2);
    # they differ on 3.2 in trip-1 and 2.2 in trip-2.
    assert value("trace level, all modes: Cohen's kappa") == pytest.approx(kappa(26, 28, 3, 3))
    assert value("trace level, all modes: Krippendorff's alpha (nominal)") == pytest.approx(alpha(2, 56, 6))

    # the judges against each annotator, the evaluation-only one included
    made = cli("agreement", config, "--judgments", task.task_dir / "judgments.jsonl", "--json")
    assert made.returncode == 0, made.stderr
    rows = json.loads(made.stdout)["judgments"]
    assert sorted({r["source"] for r in rows if r["scheme"] == "mast"}) == ["baseline", "llm-judge"]
    by = lambda source, measure, who: next(r for r in rows  # noqa: E731
                                           if (r["source"], r["measure"], r["annotator"]) == (source, measure, who))
    # llm-judge judged trip-1 only: with alice identical (1.3 #3, 2.4 #4, 3.2 for the run)
    assert by("llm-judge", "trace level, all modes: Cohen's kappa", alice)["value"] == pytest.approx(1)
    assert by("llm-judge", "step level, all modes: Cohen's kappa", alice)["value"] == pytest.approx(1)
    # with bob on trip-1: 5 x 14 = 70 step units, the judge 2 yes, bob 1 (1.3 #3): 69 agree;
    # 14 trace units, the judge 3 yes, bob 2 (no 3.2): 13 agree
    by_bob = by("llm-judge", "step level, all modes: Cohen's kappa", bob)
    assert (by_bob["value"], by_bob["items"]) == (pytest.approx(kappa(69, 70, 2, 1)), 70)
    assert by("llm-judge", "trace level, all modes: Cohen's kappa", bob)["value"] == pytest.approx(kappa(13, 14, 3, 2))
    # 1 of the 2 values on trip-1 (alice's) took llm-judge's answer
    assert by("llm-judge", "accepted by annotators", None)["value"] == pytest.approx(0.5)
    # the evaluation-only baseline (1.3 on trip-1 #3, 2.2 on trip-2 #2) is exactly bob's step tags:
    # 8 x 14 step units over both runs, all agree
    baseline = by("baseline", "step level, all modes: Cohen's kappa", bob)
    assert (baseline["value"], baseline["items"]) == (pytest.approx(1), 112)
    # against alice, trace level: 2 x 14 units, the baseline 2 yes (1.3, 2.2), alice 3 (1.3, 2.4, 3.2);
    # they differ on 2.4 and 3.2 of trip-1 and 2.2 of trip-2
    assert by("baseline", "trace level, all modes: Cohen's kappa", alice)["value"] == pytest.approx(kappa(25, 28, 2, 3))


# --------------------------------------------------------------------------- adjudicating


@pytest.fixture(scope="module")
def adjudication(potato_task, tmp_path_factory):
    root = tmp_path_factory.mktemp("mast-adjudication")
    folder = write_task(root / "task", "MAST adjudicated")
    for user, values in (("alice", ALICE), ("bob", BOB)):
        pairs = {instance: [[{"schema": "mast", "name": "mast"}, json.dumps(value)]] for instance, value in values.items()}
        path = folder / "annotation_output" / user / "user_state.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(returning_user_state(user, ["trip-1", "trip-2"], pairs)))
    made = cli("adjudicate", folder / "config.yaml", "-o", root / "adjudication")
    assert made.returncode == 0, made.stderr
    return {"task": folder, "report": made.stdout.splitlines(), "server": potato_task(root / "adjudication"),
            "root": root}


def test_adjudication_lists_the_differences_and_settled_gold_has_every_tag(adjudication, page):
    # exactly the tag differences, in words, with #N (A = alice, B = bob; units in the order A's
    # value names them, then B's)
    assert adjudication["report"][:5] == [
        "trip-1 / mast / #4 (Booker) 2.4 Information withholding: A: tagged; B: not tagged",
        "trip-1 / mast / whole run: 3.2 No or incomplete verification: A: present; B: absent",
        "trip-2 / mast / whole run: 2.2 Fail to ask for clarification: A: absent; B: present",
        "trip-2 / mast / #2 (Searcher) 2.2 Fail to ask for clarification: A: not tagged; B: tagged",
        "wrote 2 item(s) to adjudicate to " + str(adjudication["root"] / "adjudication" / "data" / "adjudication.jsonl")
        + " (schemes: mast)"]
    server = adjudication["server"]
    page.set_viewport_size({"width": 1400, "height": 900})
    user = f"adjudicator-{uuid.uuid4().hex[:6]}"
    login(page, server.base_url, user)
    assert current_instance_id(page) == "trip-1"
    # each annotator's tags and notes beside the record's own judge, the tags all gave marked, with Accept
    form = mast_form(page)
    box = form.locator('[data-ma="judgments"]')
    expect(box).to_be_visible()
    expect(box.locator('[data-source="annotator 1"]')).to_contain_text(
        f"1.3 Step repetition (major) \u2014 \u2018{NOTE}\u2019 (all 3 sources)")
    expect(box.locator('[data-source="annotator 2"]')).to_contain_text("whole run: 2.4 Information withholding")
    expect(step(page, 2).locator(".ma-mode-judgment")).to_have_text([
        "judge llm-judge: 1.3 Step repetition \u2014 \u2018the same search twice\u2019 Accept",
        f"judge annotator 1: 1.3 Step repetition (major) \u2014 \u2018{NOTE}\u2019 Accept",
        "judge annotator 2: 1.3 Step repetition Accept"])
    # settle trip-1: annotator 1's 2.4 on #4, accepted on the step; 3.2 left out (absent)
    step(page, 3).get_by_role("button", name="Accept annotator 1\u2019s tag 2.4 Information withholding on #4").click()
    settled_1 = {"taxonomy": TID, "steps": [{"step": 3, "mode": "2.4", "note": "", "severity": None,
                                             "from_judgment": "annotator 1"}], "run": []}
    wait_saved_json(server, user, "trip-1", "mast", settled_1)
    # trip-2: no failure mode
    assert go_next(page) == "trip-2"
    mast_form(page).get_by_role("checkbox", name="No failure mode in this run").check()
    wait_saved_json(server, user, "trip-2", "mast", {"taxonomy": TID, "steps": [], "run": [], "none_found": True})

    gold_path = adjudication["root"] / "gold.jsonl"
    made = cli("export", server.task_dir / "config.yaml", "--as-gold", gold_path, "--merge-gold",
               server.task_dir / "gold.jsonl")
    assert made.returncode == 0, made.stderr
    gold = {line["id"]: line["gold"] for line in map(json.loads, gold_path.read_text().splitlines())}
    # the tag both gave (1.3 on #3, with alice's note and severity) and the mode both found (2.4, by
    # bob for the whole run) reach gold without being answered again, beside the adjudicator's (with
    # its step's identity: the annotators' values were written without one)
    assert gold == {
        "trip-1": {"schemes": {"mast": {"taxonomy": TID, "steps": [
            {"step": 2, "mode": "1.3", "note": NOTE, "severity": "major"},
            {"step": 3, "step_ref": fingerprint("Booker", "Booked TP 523 for EUR 240."), "mode": "2.4", "note": "",
             "from_judgment": "annotator 1"}],
            "run": [{"mode": "2.4", "note": ""}]}}, "settled": {"mast": "adjudicated"}},
        "trip-2": {"schemes": {"mast": {"taxonomy": TID, "steps": [], "run": [], "none_found": True}},
                   "settled": {"mast": "adjudicated"}}}

    # the annotators against the settled gold: trip-1 {1.3, 2.4}, trip-2 none
    made = cli("agreement", adjudication["task"] / "config.yaml", "--gold", gold_path, "--json")
    assert made.returncode == 0, made.stderr
    found = figures(made.stdout, scheme="mast")
    # alice: 1.3, 2.4, 3.2 / nothing; bob: 1.3, 2.4 / 2.2. Each: TP 2, FP 1, FN 0, TN 25 of 28.
    for who in ("alice", "bob"):
        assert [found[(f"trace level vs gold, all modes: {m}", who)]["value"] for m in ("accuracy", "precision", "recall")] \
            == [pytest.approx(27 / 28), pytest.approx(2 / 3), pytest.approx(1)]
    assert found[("trace level vs gold, 3.2 No or incomplete verification: accuracy", None)]["value"] == \
        pytest.approx(3 / 4)   # alice said present in trip-1; the other 3 judgements agree with gold
    # step tags against gold's (1.3 #3, 2.4 #4 of trip-1): alice 2 of 2 right; bob 1.3 #3 right and
    # 2.2 #2 of trip-2 wrong -> precision 3/4; gold's 2 tags for each of 2 annotators -> recall 3/4
    assert found[("step level vs gold, all modes: precision", None)]["value"] == pytest.approx(3 / 4)
    assert found[("step level vs gold, all modes: recall", None)]["value"] == pytest.approx(3 / 4)
    assert not found[("trace level vs gold, all modes: accuracy", None)]["note"]   # nothing left out


# --------------------------------------------------------------------------- the page


def box(locator) -> dict:
    found = locator.bounding_box()
    assert found is not None, locator
    return found


def inside(inner: dict, outer: dict) -> bool:
    return inner["y"] >= outer["y"] - 0.5 and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5


def test_chips_stay_compact_in_a_narrow_lane_and_the_legend_stays_open_beside_the_trace(task, page):
    page.set_viewport_size({"width": 1400, "height": 900})
    login(page, task.base_url, f"layout-{uuid.uuid4().hex[:6]}")
    trace = page.locator("section.ma-trace")
    legend_toggle = trace.get_by_role("button", name="Failure modes", exact=True)
    legend_toggle.click()
    legend = trace.get_by_role("complementary", name="Failure modes")
    expect(legend).to_be_visible()
    # beside the trace: the legend's box starts right of the steps' viewport, on the same rows
    viewport = box(trace.locator(".ma-trace-viewport"))
    assert box(legend)["x"] >= viewport["x"] + viewport["width"] and box(legend)["y"] < viewport["y"] + 10
    # the legend's search: by code, name or definition, grouped by category, counted
    legend.get_by_label("Search failure modes").fill("verif")
    expect(legend.locator("dt:visible")).to_have_text(["3.1 Premature termination", "3.2 No or incomplete verification",
                                                       "3.3 Incorrect verification"])
    expect(legend.locator("h4:visible")).to_have_text(["Task Verification & Termination"])
    expect(legend.locator(".ma-trace-legend-count")).to_have_text("3 of 14 modes match \u201cverif\u201d.")

    # three lanes beside the open legend do not get 280 px each: they stack, each step the pane's width
    page.evaluate("document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: 2}}))")
    card = step(page, 2)
    expect(trace).to_have_attribute("data-lanes-fit", "false")
    assert box(card)["width"] == pytest.approx(box(trace.locator(".ma-trace-viewport"))["width"], abs=20)
    chips = card.locator(".ma-mode-chips")
    expect(chips).to_be_visible()   # the current step's chips are unfolded
    assert inside(box(card.locator(".ma-trace-body")), box(trace.locator(".ma-trace-viewport")))
    card.get_by_role("button", name="1.3 Step repetition", exact=True).click()
    expect(legend).to_be_visible()   # tagging does not close the legend

    # side by side (a wide window, the legend closed), a lane is under 22rem: 14 chips show their codes
    # only (the names are in the tooltip, the accessible name and the legend), at most five rows of
    # chips, the step's own text in view above them; a pressed chip shows its name (cut to the lane)
    page.set_viewport_size({"width": 2560, "height": 900})
    legend_toggle.click()
    expect(trace).to_have_attribute("data-lanes-fit", "true")
    page.evaluate("document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: 2}}))")
    assert 280 <= box(card)["width"] < 352, box(card)
    assert card.locator('.ma-mode-chip[data-mode="2.4"] .ma-mode-name').evaluate(
        "(node) => getComputedStyle(node).display") == "none"
    assert card.locator('.ma-mode-chip[data-mode="1.3"] .ma-mode-name').evaluate(
        "(node) => getComputedStyle(node).display") != "none"
    assert box(chips)["height"] < 5 * 24
    assert inside(box(card.locator(".ma-trace-body")), box(trace.locator(".ma-trace-viewport")))
    legend_toggle.click()
    page.set_viewport_size({"width": 1400, "height": 900})
    expect(legend).to_be_visible()
    # in the tree layout the card is wide and every chip shows its name
    trace.get_by_role("button", name="Tree", exact=True).click()
    page.evaluate("document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: 2}}))")
    assert card.locator('.ma-mode-chip[data-mode="2.4"] .ma-mode-name').evaluate(
        "(node) => getComputedStyle(node).display") != "none"
    assert inside(box(card.locator(".ma-trace-body")), box(trace.locator(".ma-trace-viewport")))

    # the legend stays open on the next item (this tab)
    assert go_next(page) == "trip-2"
    expect(page.locator("section.ma-trace").get_by_role("button", name="Failure modes", exact=True)).to_have_attribute(
        "aria-expanded", "true")
    expect(page.locator("section.ma-trace").get_by_role("complementary", name="Failure modes")).to_be_visible()
