"""A type outside the package goes everywhere a built-in one goes, with no file of ours changed.

`tests/outside_type/` holds a package, `potato_plan_adherence` (`multiagent.plan_adherence`: did
the team keep to its plan, and at which steps did it depart?), with the distribution metadata pip
would write for it: its entry point in the group `potato_multiagent.types`. With that folder on
PYTHONPATH, as after `pip install` of such a package: `init` proposes the type, `potato start`
serves its form from its own folder, the trace view marks a judge's departures and offers the
type's step action, and what Potato saved passes `check`, is exported, adjudicated and scored
against the judge. The type's rules are refereed in both languages by its own `cases.json`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from .harness import REPO_ROOT, login, question_form, start_potato, wait_saved_json

pytestmark = pytest.mark.e2e

OUTSIDE = REPO_ROOT / "tests" / "outside_type"
FOLDER = OUTSIDE / "potato_plan_adherence"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(OUTSIDE), os.environ.get("PYTHONPATH")]))}
JUDGE = "plan-judge"

STEPS = [{"content": "Plan: 1. search flights 2. compare prices 3. book the cheapest.", "role": "assistant",
          "name": "Planner"},
         {"content": "Found three flights.", "role": "user", "name": "Searcher"},
         {"content": "Booked the first flight without comparing prices.", "role": "user", "name": "Booker"},
         {"content": "Done. TERMINATE", "role": "user", "name": "Planner"}]
"""A Who&When run (its `history`), written for this test: the Booker skips the planned comparison."""


def cli(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "potato_multiagent.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300, env=ENV, cwd=cwd)


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    root = tmp_path_factory.mktemp("outside-type")
    (root / "runs").mkdir()
    for number in (1, 2):
        (root / "runs" / f"{number}.json").write_text(json.dumps(
            {"question": "Find the cheapest flight and book it.", "question_ID": f"q-{number}", "history": STEPS,
             "mistake_agent": "Booker", "mistake_step": "2", "mistake_reason": "It did not compare prices."}))
    judged = {"verdict": "departed", "departures": [{"step": 2, "kind": "did unplanned work"}]}
    (root / "judgments.jsonl").write_text(json.dumps({"id": "runs-1", "scheme": "plan", "source": JUDGE,
                                                      "value": judged}) + "\n")
    folder = root / "task"
    made = cli("init", "--from", "who-and-when", root / "runs", "-o", folder, "--judgments", root / "judgments.jsonl")
    assert made.returncode == 0, made.stderr
    server = start_potato(folder, env=ENV)
    yield {"server": server, "folder": folder, "root": root, "init": made.stdout}
    server.stop()


def test_the_types_rules_pass_its_own_cases_in_both_languages():
    python = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                             str(REPO_ROOT / "tests" / "unit" / "test_type_cases.py"), "-k", "plan_adherence"],
                            capture_output=True, text=True, timeout=300, env=ENV, cwd=REPO_ROOT)
    assert python.returncode == 0 and re.search(r"^9 passed", python.stdout, re.M), python.stdout + python.stderr
    node = subprocess.run(["node", "--test", "tests/js/type_cases.test.js"], capture_output=True, text=True,
                          timeout=300, env={**ENV, "OUTSIDE_TYPE_FOLDERS": str(FOLDER)}, cwd=REPO_ROOT)
    assert node.returncode == 0, node.stdout[-3000:]
    ran = [line for line in node.stdout.splitlines() if line.startswith("ok ") and "plan_adherence:" in line]
    assert len(ran) == 6, node.stdout[-3000:]   # the folder test and its five marks cases


def test_from_init_to_agreement_with_nothing_of_ours_changed(task, page, browser):
    server, folder = task["server"], task["folder"]
    config = yaml.safe_load((folder / "config.yaml").read_text())
    plan = next(scheme for scheme in config["annotation_schemes"] if scheme["name"] == "plan")
    assert plan["annotation_type"] == "multiagent.plan_adherence"
    assert "plan" in task["init"]   # init says why it proposes the type

    # The trace view marks the judge's departure; the type's step action adds one on another step.
    first = f"plan-a-{uuid.uuid4().hex[:8]}"
    login(page, server.base_url, first)
    trace = page.locator("section.ma-trace")
    expect(trace.locator('.ma-trace-step[data-step="2"] .ma-trace-judgment')).to_have_text(
        f"judge {JUDGE}: departed: did unplanned work")
    expect(trace.locator('.ma-trace-step[data-step="1"] .ma-trace-judgment')).to_have_count(0)
    trace.locator('.ma-trace-step[data-step="1"]').get_by_role(
        "button", name="Mark a departure from the plan", exact=True).click()
    form = question_form(page, "plan")
    expect(form).to_have_attribute("data-ma-ready", "true")
    expect(form.locator('[data-ma="departure"]')).to_have_count(1)
    wait_saved_json(server, first, "runs-1", "plan",
                    {"verdict": "departed", "departures": [{"step": 1, "kind": "skipped a planned step"}]})

    # A second annotator, by keyboard only: the verdict, then step #3 with a kind, added.
    context = browser.new_context()
    other_page = context.new_page()
    second = f"plan-b-{uuid.uuid4().hex[:8]}"
    login(other_page, server.base_url, second)
    other = question_form(other_page, "plan")
    other.get_by_label("It departed from its plan").focus()
    other_page.keyboard.press("Space")
    other.get_by_label("Step #").fill("3")
    other.get_by_label("How").select_option("did unplanned work")
    other.get_by_role("button", name="Add departure").focus()
    other_page.keyboard.press("Enter")
    expect(other.locator('[data-ma="departure"]')).to_have_text(
        ["#3 did unplanned work Remove"], use_inner_text=True)
    wait_saved_json(server, second, "runs-1", "plan",
                    {"verdict": "departed", "departures": [{"step": 2, "kind": "did unplanned work"}]})
    context.close()

    # check: both saved values pass; a hand-made bad one is named by user, item and field.
    bad = folder / "annotation_output" / "plan-bad" / "user_state.json"
    bad.parent.mkdir(parents=True)
    bad.write_text(json.dumps({"user_id": "plan-bad", "instance_id_to_label_to_value": {"runs-1": [
        [{"schema": "plan", "name": "plan"}, json.dumps({"verdict": "kept", "departures": [{"step": 9, "kind": "x"}]})]]}}))
    checked = cli("check", folder / "config.yaml")
    assert checked.returncode != 0
    assert "departures[0].step: '9' is not in this trace" in checked.stdout + checked.stderr
    assert "departures[0].kind: 'x' is not one of the configured kinds" in checked.stdout + checked.stderr
    assert first not in checked.stdout + checked.stderr and second not in checked.stdout + checked.stderr
    bad.unlink()
    bad.parent.rmdir()

    # export: one row per departure, with the step's agent.
    exported = cli("export", folder / "config.yaml", "--format", "jsonl", "--out", task["root"] / "export")
    assert exported.returncode == 0, exported.stderr
    rows = [json.loads(line) for line in (task["root"] / "export" / "plan.jsonl").read_text().splitlines()]
    assert sorted((row["user"], row["verdict"], row["step"], row["kind"], row["agent"]) for row in rows) == sorted([
        (first, "departed", 1, "skipped a planned step", "Searcher"),
        (second, "departed", 2, "did unplanned work", "Booker")])

    # adjudicate: the two annotators agree on the verdict, not on where it departed.
    adjudicated = cli("adjudicate", folder / "config.yaml", "-o", task["root"] / "adjudication")
    assert adjudicated.returncode == 0, adjudicated.stderr
    report = (task["root"] / "adjudication" / "disagreements.md").read_text()
    assert "departure at #2" in report and "departure at #3" in report and "no departure" in report
    assert "verdict" not in report

    # agreement --judgments: the judge's departed steps against each annotator's.
    agreed = cli("agreement", folder / "config.yaml", "--judgments", task["root"] / "judgments.jsonl", "--json")
    assert agreed.returncode == 0, agreed.stderr
    figures = [row for row in json.loads(agreed.stdout)["judgments"]
               if row["scheme"] == "plan" and row["measure"] == "departed steps Jaccard"]
    assert {row["annotator"]: row["value"] for row in figures} == {first: 0.0, second: 1.0}
