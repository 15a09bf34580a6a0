"""End-to-end (issue 33, item 2): saved step references of every kind, and a re-conversion under them.

An annotator saves, in Chromium, every kind of step reference: a decisive step, two milestone
steps (one on a step with its source's own id), an episode's turns, a tool-call verdict, a
handoff review, and a contention label. Each is stored with the identity of its step (written by
hand here from the rule, tests/step_identity.py). The run is then converted again, as a fixed
converter does: a step is inserted before, one removed, one edited, and a timed call changed.
After a restart:

- `check` reports every reference stale, with the step it was saved on and the one its index
  names now, and exits 1;
- the page warns of each one and lists it with Remove and Re-point; loading it re-points nothing
  (the stored values are byte for byte as saved); Re-point and Remove do what they say;
- `migrate-values --rebase OLD NEW` maps back every reference whose step still exists (but an
  episode's turn whose new place is held by a turn of the same episode whose step is gone), reports
  the rest, and `check` then finds only those.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from tests.step_identity import fingerprint, source

from .conftest import NAVIGATION_TIMEOUT_MS
from .harness import (choose_decisive_step, login, open_annotate, opened_handoff_card, start_potato, user_state_path,
                      wait_saved, wait_saved_json)

pytestmark = pytest.mark.e2e

CONFIG = "config.yaml"
DATA = "data/runs.jsonl"
OLD = "old/runs.jsonl"
RUN_ID = "trip-1"
OLD_RUN = {
    "id": RUN_ID, "task": "Book a train to Lyon on 14 March.",
    "steps": [
        {"agent": "Planner", "content": "Plan: search, then book.", "span_id": "s-plan"},
        {"agent": "Searcher", "content": "Searching trains.",
         "tool_calls": [{"id": "c1", "function": {"name": "search_trains", "arguments": "{\"date\": \"15 March\"}"}}]},
        {"agent": "Booker", "content": "Booked the 15 March train."},
        {"agent": "Planner", "content": "Done."},
    ],
    "calls": [{"agent": "Searcher", "tool": "db_write", "resource": "bookings_db", "start": 0, "end": 5},
              {"agent": "Booker", "tool": "db_write", "resource": "bookings_db", "start": 3, "end": 8}],
}
# The same run converted again: a step before the others, the last one gone, the booking's text and
# the booker's call changed.
NEW_RUN = {**OLD_RUN,
           "steps": [{"agent": "User", "content": "Book a train to Lyon on 14 March."}] + OLD_RUN["steps"][:2]
           + [{"agent": "Booker", "content": "Booked the 14 March train."}],
           "calls": [OLD_RUN["calls"][0], {**OLD_RUN["calls"][1], "end": 9}]}

PLAIN = {"id": "plain-1", "task": "A second run, so that the annotator is not done after the first",
         "steps": [{"agent": "Planner", "content": "plan"}]}
PLAN = source("s-plan")
SEARCHING = fingerprint("Searcher", "Searching trains.")
BOOKED = fingerprint("Booker", "Booked the 15 March train.")

SCHEMES = [
    {"annotation_type": "multiagent.failure_attribution", "name": "attribution", "description": "Who failed, where?"},
    {"annotation_type": "multiagent.agent_scorecard", "name": "scorecard", "description": "Milestones",
     "agent_dimensions": ["contribution"], "team_dimensions": ["coordination"], "milestones": ["planned", "booked"],
     "milestone_steps": True},
    {"annotation_type": "multiagent.emergent_behavior", "name": "emergent", "description": "Behaviour",
     "behaviors": ["groupthink"]},
    {"annotation_type": "multiagent.tool_call_review", "name": "review", "description": "Tool calls"},
    {"annotation_type": "multiagent.handoff_review", "name": "handoffs", "description": "Handoffs"},
    {"annotation_type": "multiagent.tool_contention", "name": "contention", "description": "Contention"},
]
REGION = {"index": 0, "resource": "bookings_db", "start": 0, "end": 8, "agents": ["Searcher", "Booker"],
          "calls": [{"index": 0, "agent": "Searcher", "resource": "bookings_db", "start": 0, "end": 5},
                    {"index": 1, "agent": "Booker", "resource": "bookings_db", "start": 3, "end": 8}],
          "label": "race_condition", "note": ""}
SAVED = {   # what the annotator's clicks store, written by hand
    "attribution": {"responsible_agent": "Booker", "decisive_step": 2, "decisive_step_ref": BOOKED, "reason": ""},
    "scorecard": {"agents": {}, "team": {}, "milestones": {"planned": True, "booked": True},
                  "milestone_steps": {"planned": 0, "booked": 2},
                  "milestone_step_refs": {"planned": PLAN, "booked": BOOKED}},
    "emergent": {"groupthink": {"turns": [1, 2], "note": "",
                                "instances": [{"turns": [1, 2], "turn_refs": [SEARCHING, BOOKED], "note": ""}]}},
    "review": [{"index": 0, "step": 1, "position": 0, "id": "c1", "tool": "search_trains", "verdict": "wrong_args",
                "notes": "", "step_ref": SEARCHING}],
    "handoffs": [{"index": 1, "step": 2, "from_step": 1, "from": "Searcher", "to": "Booker", "explicit": False,
                  "flags": ["info_loss"], "quality": None, "note": "", "step_ref": BOOKED, "from_step_ref": SEARCHING}],
    "contention": {"contentions": {"0": "race_condition"}, "regions": [REGION]},
}


def cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "potato_multiagent.cli", *argv], capture_output=True, text=True,
                          timeout=300)


def form(page, name: str):
    return page.locator(f'form.multiagent-form[data-schema-name="{name}"]')


def wait_widgets(page) -> None:
    for scheme in SCHEMES:
        expect(form(page, scheme["name"])).to_have_attribute("data-ma-ready", "true", timeout=30_000)


def saved_texts(task, user: str) -> dict:
    return task.saved(user)[RUN_ID]


@pytest.fixture(scope="module")
def annotated(tmp_path_factory, potato_task, browser):
    """A task on OLD_RUN where one annotator saved a reference of every kind, with the mouse."""
    config = {"annotation_task_name": f"e2e step references {uuid.uuid4().hex[:8]}", "task_dir": ".",
              "data_files": [DATA], "item_properties": {"id_key": "id", "text_key": "task"},
              "output_annotation_dir": "annotation_output", "plugins": ["multiagent"], "require_password": False,
              "instance_display": {"fields": [{"key": "task", "type": "text", "label": "Task"}]},
              "annotation_schemes": SCHEMES}
    task = potato_task(tmp_path_factory.mktemp("step-references"), config=CONFIG, files={
        CONFIG: yaml.safe_dump(config, sort_keys=False), DATA: json.dumps(OLD_RUN) + "\n" + json.dumps(PLAIN) + "\n"})
    user = f"refs-{uuid.uuid4().hex[:8]}"
    context = browser.new_context()
    context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
    page = context.new_page()
    login(page, task.base_url, user)
    wait_widgets(page)

    attribution = form(page, "attribution")
    attribution.get_by_label("Responsible agent").select_option(label="Booker")
    choose_decisive_step(attribution, 3)
    scorecard = form(page, "scorecard")
    for milestone, step in (("planned", 0), ("booked", 2)):
        scorecard.get_by_role("checkbox", name=milestone, exact=True).check()
        picker = scorecard.get_by_label(f"Step where {milestone} was reached", exact=True)
        picker.focus()
        picker.select_option(value=str(step))
    for number, agent in ((2, "Searcher"), (3, "Booker")):
        form(page, "emergent").get_by_role("button", name=f"Turn {number} ({agent})", exact=True).click()
    form(page, "review").get_by_role("group", name="Call 1: search_trains by Searcher (step 2)", exact=True) \
        .get_by_role("radiogroup", name="Verdict").get_by_role("radio", name="wrong_args", exact=True).check()
    opened_handoff_card(form(page, "handoffs").get_by_role("group", name="Handoff 2: Searcher to Booker", exact=True)) \
        .get_by_role("button", name="info loss", exact=True).click()
    form(page, "contention").locator(".ma-tc-region").first.get_by_role("radiogroup", name="Label") \
        .get_by_role("radio", name="race_condition", exact=True).check()
    for name, value in SAVED.items():
        wait_saved_json(task, user, RUN_ID, name, value, timeout=30)
    context.close()
    return task, user


@pytest.fixture(scope="module")
def reconverted(annotated):
    """The run converted again on disk (the old data kept aside), the server restarted; a second
    annotator has the same saved values (for the buttons, so the first one's stay as saved)."""
    task, user = annotated
    task.stop()
    old = task.task_dir / OLD
    old.parent.mkdir()
    shutil.copy(task.task_dir / DATA, old)
    (task.task_dir / DATA).write_text(json.dumps(NEW_RUN) + "\n" + json.dumps(PLAIN) + "\n")
    state = json.loads(user_state_path(task.task_dir, user).read_text())
    clicker = f"clicker-{uuid.uuid4().hex[:8]}"
    clicker_path = user_state_path(task.task_dir, clicker)
    clicker_path.parent.mkdir(parents=True)
    clicker_path.write_text(json.dumps({**state, "user_id": clicker}))
    restarted = start_potato(task.task_dir, CONFIG, timeout=180)
    yield restarted, user, clicker
    restarted.stop()


STALE = {   # what check and the page say, written by hand from the two runs
    "attribution": [f"decisive_step: #3 has changed since it was saved (saved on {BOOKED}, now Searcher); "
                    "that step is not in this trace"],
    "scorecard": [f"milestone_steps.planned: #1 has changed since it was saved (saved on {PLAN}, now User); "
                  "that step is now #2 (Planner)",
                  f"milestone_steps.booked: #3 has changed since it was saved (saved on {BOOKED}, now Searcher); "
                  "that step is not in this trace"],
    "emergent": [f"groupthink.instances[0].turns: #2 has changed since it was saved (saved on {SEARCHING}, now "
                 "Planner); that step is now #3 (Searcher)",
                 f"groupthink.instances[0].turns: #3 has changed since it was saved (saved on {BOOKED}, now "
                 "Searcher); that step is not in this trace"],
    "review": [f"[0].step: #2 has changed since it was saved (saved on {SEARCHING}, now Planner); "
               "that step is now #3 (Searcher)"],
    "handoffs": [f"[0].from_step: #2 has changed since it was saved (saved on {SEARCHING}, now Planner); "
                 "that step is now #3 (Searcher)",
                 f"[0].step: #3 has changed since it was saved (saved on {BOOKED}, now Searcher); "
                 "that step is not in this trace"],
    "contention": ["regions[0]: 'bookings_db [0, 8) Searcher, Booker' is not in this trace"],
}


def test_every_kind_of_reference_is_saved_with_the_identity_of_its_step(annotated):
    task, user = annotated
    assert {name: json.loads(text) for name, text in saved_texts(task, user).items()} == SAVED


def test_check_lists_every_reference_stale_with_its_old_and_new_step(reconverted):
    task, user, _ = reconverted
    result = cli("check", str(task.task_dir / CONFIG))
    assert result.returncode == 1
    found = [line for line in result.stdout.splitlines() if line.startswith(f"{RUN_ID} / {user} / ")]
    expected = [f"{RUN_ID} / {user} / {name}: {line}" for name, lines in STALE.items() for line in lines]
    assert sorted(found) == sorted(expected)


def test_the_page_lists_every_stale_reference_and_moves_none(reconverted, page, dialogs):
    task, user, _ = reconverted
    before = saved_texts(task, user)
    login(page, task.base_url, user)
    wait_widgets(page)
    for name, lines in STALE.items():
        items = form(page, name).locator('[data-ma="stale-item"]')
        expect(items).to_have_count(len(lines))
        shown = items.all_inner_texts()
        for line in lines if name != "contention" else ():   # a region is listed in the contention's own words
            assert any(text.startswith(line) for text in shown), (name, line, shown)
        notices = form(page, name).inner_text()
        assert all(line in notices for line in lines), name
        repoints = form(page, name).locator('[data-ma="stale-repoint"]')
        expect(repoints).to_have_count(0 if name == "contention" else len(lines))
        expect(form(page, name).locator('[data-ma="stale-remove"]')).to_have_count(len(lines))
    expect(form(page, "attribution").locator('input[data-ma-field="decisive_step"]')) \
        .to_have_value("#3 (changed since it was saved)")
    page.wait_for_timeout(2_000)   # Potato's autosave would have written by now
    open_annotate(page, task.base_url)
    wait_widgets(page)
    assert saved_texts(task, user) == before, "loading the page re-pointed nothing"
    assert dialogs == []


def test_re_point_and_remove_do_what_they_say(reconverted, page):
    task, _, clicker = reconverted
    login(page, task.base_url, clicker)
    wait_widgets(page)
    scorecard = form(page, "scorecard")
    planned = scorecard.locator('[data-ma="stale-item"]', has_text="milestone_steps.planned")
    planned.get_by_role("button", name="Re-point to #2").click()
    wait_saved_json(task, clicker, RUN_ID, "scorecard",
                    {**SAVED["scorecard"], "milestone_steps": {"planned": 1, "booked": 2}}, timeout=30)
    attribution = form(page, "attribution")
    attribution.get_by_role("button", name="Keep #3 as it is now").click()
    searcher = fingerprint("Searcher", "Searching trains.")
    wait_saved_json(task, clicker, RUN_ID, "attribution", {**SAVED["attribution"], "decisive_step_ref": searcher},
                    timeout=30)
    emergent = form(page, "emergent")
    emergent.locator('[data-ma="stale-item"]', has_text="#3 has changed").get_by_role("button", name="Remove").click()
    wait_saved_json(task, clicker, RUN_ID, "emergent", {"groupthink": {
        "turns": [1], "note": "", "instances": [{"turns": [1], "turn_refs": [SEARCHING], "note": ""}]}}, timeout=30)
    expect(scorecard.locator('[data-ma="stale-item"]')).to_have_count(1)
    expect(attribution.locator('[data-ma="stale-item"]')).to_have_count(0)


def test_rebase_maps_back_every_reference_whose_step_still_exists(reconverted):
    task, user, clicker = reconverted
    task.stop()   # Potato re-saves what it holds
    shutil.rmtree(user_state_path(task.task_dir, clicker).parent)
    state_path = user_state_path(task.task_dir, user)
    before = state_path.read_bytes()
    dry = cli("migrate-values", str(task.task_dir), "--rebase", str(task.task_dir / OLD), str(task.task_dir / DATA),
              "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert state_path.read_bytes() == before
    where = f"{RUN_ID} / {user}"
    lines = dry.stdout.splitlines()
    for line in (f"{where} / attribution: not mapped: decisive_step #3: the step it was saved on ({BOOKED}) "
                 "is not in the new data",
                 f"{where} / scorecard: moved milestone_steps.planned #1 -> #2 (Planner)",
                 f"{where} / emergent: not mapped: groupthink.instances[0].turns #2: its step is now #3, where this "
                 "list already holds another mark",
                 f"{where} / review: moved [0].step #2 -> #3 (Searcher)",
                 f"{where} / handoffs: moved [0].from_step #2 -> #3 (Searcher)",
                 f"{where} / contention: not mapped: regions[0]: bookings_db [0, 8) Searcher, Booker is not in this trace"):
        assert line in lines, line
    assert lines[-2:] == ["rebase: 3 reference(s) moved, 6 could not be mapped, 0 already in place",
                          "dry run: 1 user_state.json file(s) would change"]

    assert cli("migrate-values", str(task.task_dir), "--rebase", str(task.task_dir / OLD),
               str(task.task_dir / DATA)).returncode == 0
    stored = {label["schema"]: json.loads(value)
              for label, value in json.loads(state_path.read_text())["instance_id_to_label_to_value"][RUN_ID]}
    assert stored["review"] == [{**SAVED["review"][0], "step": 2}]
    assert stored["scorecard"]["milestone_steps"] == {"planned": 1, "booked": 2}
    result = cli("check", str(task.task_dir / CONFIG))
    left = sorted(line.split(": ", 2)[1] for line in result.stdout.splitlines() if line.startswith(where))
    assert left == ["[0].step", "decisive_step", "groupthink.instances[0].turns", "groupthink.instances[0].turns",
                    "milestone_steps.booked", "regions[0]"]
