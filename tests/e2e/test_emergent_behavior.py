"""End-to-end contract of `multiagent.emergent_behavior` in a real Potato 2.12.1 page.

The widget's DOM contract, as these tests read it:
- `form.annotation-form[data-schema-name="emergent"]` with a `<legend>` (the description,
  literally) and `data-ma-ready="true"` once rendered;
- one group per behaviour (`role=group`, named after the behaviour) listing its episodes: an
  "Episode N" toggle (`aria-pressed`, named "Mark turns of BEHAVIOR, episode N") picks the episode
  the turn toggles edit, "Remove" (named "Remove BEHAVIOR, episode N") and "+ Add episode"
  (named "Add another BEHAVIOR episode"); the active episode lists its marked turns and has a
  "Note on BEHAVIOR, episode N" textarea;
- the lane view: a group of turn toggles named "Turn N (AGENT)" (`aria-pressed`), one lane per
  agent, a page of turns at a time; "Show lanes" checkboxes, "Jump to turn" + "Go", the pager
  (web/pager.js) "Previous page" / "Next page"; a detail panel with the text of the focused turn;
- a "No emergent behaviour observed in this run" checkbox, stored as `{}`;
- the hidden `input.annotation-input[name="emergent:::emergent"]` holding
  `{behavior: {"turns", "note", "instances": [{"turns", "note"}]}}`, autosaved by Potato.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive, validate_value

from ..realdata.conftest import corpus_location
from .harness import (
    EXAMPLES_DIR, annotation_pairs, click_next_expecting_block, current_instance_id, go_next, go_prev, login,
    navigation_started, open_annotate, restore_in_page, returning_user_state, same_value, wait_saved_json
)

TYPE = "multiagent.emergent_behavior"
EXAMPLE = "emergent-behavior"
SCHEMA = "emergent"
TEST_CONFIG = "e2e-emergent.yaml"
HOSTILE_DESCRIPTION = "Which {{ 7*7 }} behaviours {# not a comment"
NONE_LABEL = "No emergent behaviour observed in this run"
LONG_STEPS = 5000
WHO_AND_WHEN_RUN = "Algorithm-Generated/11.json"


# --------------------------------------------------------------------------- the tasks under test


def example_config() -> dict:
    return yaml.safe_load((EXAMPLES_DIR / EXAMPLE / "config.yaml").read_text(encoding="utf-8"))


def hostile_config() -> dict:
    """The example, hostile-names run first, with a description full of Jinja syntax."""
    config = example_config()
    config["annotation_task_name"] = "e2e: emergent behaviour with hostile names"
    config["data_files"] = ["data/hostile-names.jsonl", "data/runs.jsonl"]
    scheme = config["annotation_schemes"][0]
    scheme["description"] = HOSTILE_DESCRIPTION
    return config


def scheme_config(config: dict) -> dict:
    return next(scheme for scheme in config["annotation_schemes"] if scheme["name"] == SCHEMA)


def records_of(config: dict) -> list[dict]:
    records = []
    for data_file in config["data_files"]:
        lines = (EXAMPLES_DIR / EXAMPLE / data_file).read_text(encoding="utf-8").splitlines()
        records.extend(json.loads(line) for line in lines if line.strip())
    return records


CONFIG = hostile_config()
RECORDS = records_of(CONFIG)
HOSTILE, DEBATE, CASCADE = RECORDS
GHOST_USER = f"ghost-{uuid.uuid4().hex[:8]}"
GHOST_VALUE = {
    "groupthink": {"turns": [1, 99], "note": "seeded before the server started",
                   "instances": [{"turns": [1, 99], "note": "seeded before the server started"}]},
    "herding": {"turns": [2], "note": "", "instances": [{"turns": [2], "note": ""}]},
}


def entry(*instances) -> dict:
    """A behaviour entry as the widget writes it: the union and the joined notes beside the instances."""
    instances = [{"turns": list(turns), "note": note} for turns, note in instances]
    union = sorted({turn for instance in instances for turn in instance["turns"]})
    notes = "\n".join(instance["note"] for instance in instances if instance["note"])
    return {"turns": union, "note": notes, "instances": instances}


def assert_valid(value, record, config=CONFIG) -> None:
    assert validate_value(TYPE, scheme_config(config), json.dumps(value), record) == []


@pytest.fixture(scope="module")
def task(potato_task):
    ghost_answers = annotation_pairs({HOSTILE["id"]: {SCHEMA: json.dumps(GHOST_VALUE)}})
    ghost = returning_user_state(GHOST_USER, [record["id"] for record in RECORDS], ghost_answers)
    return potato_task(EXAMPLE, config=TEST_CONFIG, files={TEST_CONFIG: yaml.safe_dump(CONFIG, allow_unicode=True)},
                       users={GHOST_USER: ghost})


@pytest.fixture
def user(task, page) -> str:
    """A fresh annotator, logged in and looking at the hostile-names run."""
    name = f"eb-{uuid.uuid4().hex[:12]}"
    login(page, task.base_url, name)
    assert current_instance_id(page) == HOSTILE["id"]
    expect(form(page)).to_have_attribute("data-ma-ready", "true")
    return name


# --------------------------------------------------------------------------- page helpers


def form(page):
    return page.locator(f'form.annotation-form[data-schema-name="{SCHEMA}"]')


def turn(page, number: int, agent: str):
    return form(page).get_by_role("button", name=f"Turn {number} ({agent})", exact=True)


def behavior_group(page, behavior: str):
    return form(page).get_by_role("group", name=behavior, exact=True)


def pick_episode(page, behavior: str, number: int):
    return form(page).get_by_role("button", name=f"Mark turns of {behavior}, episode {number}", exact=True)


def add_episode(page, behavior: str):
    return form(page).get_by_role("button", name=f"Add another {behavior} episode", exact=True)


def note_box(page, behavior: str, number: int):
    return form(page).get_by_label(f"Note on {behavior}, episode {number}", exact=True)


def none_box(page):
    return form(page).get_by_label(NONE_LABEL)


def hidden_value(page):
    raw = page.locator(f'input.annotation-input[name="{SCHEMA}:::{SCHEMA}"]').input_value()
    return json.loads(raw) if raw else None


def summary(page):
    return form(page).locator(".ma-summary")


def detail_text(page):
    return form(page).get_by_role("region", name="Text of the turn")


def focused_label(page) -> str | None:
    return page.evaluate("() => document.activeElement && document.activeElement.getAttribute('aria-label')")


def lane_labels(page) -> list[str]:
    return form(page).locator(".ma-eb-lane-label").all_inner_texts()


def lane_of(page, button) -> str:
    """The label of the lane a turn toggle sits in (same grid row)."""
    return button.evaluate(
        """b => [...b.parentNode.querySelectorAll('.ma-eb-lane-label')]
                 .find(l => l.style.gridRowStart === b.style.gridRowStart).textContent""")


def expect_complete(page) -> None:
    expect(form(page)).not_to_have_attribute("data-incomplete-reason", re.compile(".*"))


def expect_incomplete(page) -> None:
    expect(form(page)).to_have_attribute("data-incomplete-reason", re.compile(r"\S"))


def mark(page, *turns: tuple[int, str]) -> None:
    for number, agent in turns:
        turn(page, number, agent).click()
        expect(turn(page, number, agent)).to_have_attribute("aria-pressed", "true")


def go_to_debate(page) -> None:
    """From the hostile-names run, which is required: nothing there, said explicitly, then Next."""
    none_box(page).check()
    assert go_next(page) == DEBATE["id"]
    expect(form(page)).to_have_attribute("data-ma-ready", "true")


def mark_two_groupthink_episodes(page) -> dict:
    """The debate's two groupthink episodes, by mouse; returns the value the widget must store."""
    pick_episode(page, "groupthink", 1).click()
    mark(page, (2, "Optimist"), (3, "Analyst"), (4, "Skeptic"))
    note_box(page, "groupthink", 1).fill('Everyone agrees with "40%" without evidence')
    add_episode(page, "groupthink").click()
    expect(pick_episode(page, "groupthink", 2)).to_have_attribute("aria-pressed", "true")
    mark(page, (7, "Optimist"), (8, "Analyst"), (10, "Skeptic"))
    note_box(page, "groupthink", 2).fill("The Skeptic is talked down <b>again</b> {{ x }}")
    return {"groupthink": entry(([1, 2, 3], 'Everyone agrees with "40%" without evidence'),
                                ([6, 7, 9], "The Skeptic is talked down <b>again</b> {{ x }}"))}


def expect_two_groupthink_episodes(page) -> None:
    group = behavior_group(page, "groupthink")
    episodes = group.locator(".ma-eb-episode-text")
    expect(episodes).to_have_count(2)
    expect(episodes.nth(0)).to_contain_text("3 turns across 3 agents: #2 (Optimist), #3 (Analyst), #4 (Skeptic)")
    expect(episodes.nth(1)).to_contain_text("#7 (Optimist), #8 (Analyst), #10 (Skeptic)")
    pick_episode(page, "groupthink", 2).click()
    expect(note_box(page, "groupthink", 2)).to_have_value("The Skeptic is talked down <b>again</b> {{ x }}")
    for number, agent in ((7, "Optimist"), (8, "Analyst"), (10, "Skeptic")):
        expect(turn(page, number, agent)).to_have_attribute("aria-pressed", "true")
    expect(turn(page, 2, "Optimist")).to_have_attribute("aria-pressed", "false")


# --------------------------------------------------------------------------- config


# --------------------------------------------------------------------------- rendering


@pytest.mark.e2e
def test_one_lane_per_agent_with_full_names_and_no_markup(task, page, user):
    derivation = derive(HOSTILE).to_dict()
    agents = [agent for agent in derivation["agents"] if any(step["agent"] == agent for step in derivation["steps"])]
    assert lane_labels(page) == agents + ["(no agent)"]
    for step in derivation["steps"]:
        agent = step["agent"] if step["agent"] is not None else "no agent"
        button = turn(page, step["index"] + 1, agent)
        expect(button).to_have_count(1)
        assert lane_of(page, button) == (step["agent"] if step["agent"] is not None else "(no agent)")
    # Markup and attribute payloads in names and text stay text.
    assert form(page).locator("b", has_text="Bold").count() == 0
    assert form(page).locator("[onmouseover]").count() == 0
    turn(page, 5, 'x" onmouseover="window.__xss=1" data-y="').hover()
    assert page.evaluate("() => window.__xss") is None
    for behavior in ("collusion", "groupthink", "cascading_error", "role_drift"):
        expect(behavior_group(page, behavior)).to_be_visible()


@pytest.mark.e2e
def test_the_focused_turn_text_is_readable_in_the_widget(task, page, user):
    turn(page, 4, "{{ 7*7 }}").focus()
    expect(detail_text(page)).to_have_text(HOSTILE["steps"][3]["content"])
    expect(form(page).locator(".ma-eb-detail-title")).to_have_text("Turn #4 \u00B7 {{ 7*7 }}")
    turn(page, 6, "no agent").click()
    expect(detail_text(page)).to_have_text("[system] the summariser restarted")
    expect(form(page).locator(".ma-eb-detail-membership")).to_have_text("Marked in: collusion episode 1.")


# --------------------------------------------------------------------------- marking and storing


@pytest.mark.e2e
def test_a_set_spanning_agents_is_saved_exactly_and_restored(task, page, user):
    pick_episode(page, "cascading_error", 1).click()
    mark(page, (1, 'Agent "Smith"'), (2, "<b>Bold</b>"), (4, "{{ 7*7 }}"))
    expected = {"cascading_error": entry(([0, 1, 3], ""))}
    saved = wait_saved_json(task, user, HOSTILE["id"], SCHEMA, expected)
    assert_valid(saved, HOSTILE)
    expect(summary(page)).to_contain_text(
        'cascading_error: episode 1, 3 turns across 3 agents: #1 (Agent "Smith"), #2 (<b>Bold</b>), #4 ({{ 7*7 }})')
    marked = behavior_group(page, "cascading_error").locator(".ma-eb-marked button")
    expect(marked).to_have_text(['#1 Agent "Smith"', "#2 <b>Bold</b>", "#4 {{ 7*7 }}"])

    open_annotate(page, task.base_url)
    pick_episode(page, "cascading_error", 1).click()
    for number, agent in ((1, 'Agent "Smith"'), (2, "<b>Bold</b>"), (4, "{{ 7*7 }}")):
        expect(turn(page, number, agent)).to_have_attribute("aria-pressed", "true")
    assert same_value(hidden_value(page), expected)


@pytest.mark.e2e
def test_two_groupthink_episodes_survive_a_reload_and_next_prev(task, page, user):
    go_to_debate(page)
    expected = mark_two_groupthink_episodes(page)
    saved = wait_saved_json(task, user, DEBATE["id"], SCHEMA, expected)
    assert_valid(saved, DEBATE)

    open_annotate(page, task.base_url)
    assert current_instance_id(page) == DEBATE["id"]
    expect_two_groupthink_episodes(page)
    assert same_value(hidden_value(page), expected)

    go_next(page)
    assert go_prev(page) == DEBATE["id"]
    expect_two_groupthink_episodes(page)
    assert same_value(hidden_value(page), expected)


@pytest.mark.e2e
def test_removing_an_episode_keeps_the_other(task, page, user):
    go_to_debate(page)
    expected = mark_two_groupthink_episodes(page)
    behavior_group(page, "groupthink").get_by_role("button", name="Remove groupthink, episode 1").click()
    second = expected["groupthink"]["instances"][1]
    remaining = {"groupthink": entry((second["turns"], second["note"]))}
    wait_saved_json(task, user, DEBATE["id"], SCHEMA, remaining)
    expect(pick_episode(page, "groupthink", 1)).to_be_focused()  # focus lands on the episode that is left


# --------------------------------------------------------------------------- keyboard


@pytest.mark.e2e
def test_keyboard_only_marking_moves_between_turns_and_lanes(task, page, user):
    go_to_debate(page)
    pick_episode(page, "groupthink", 1).focus()
    page.keyboard.press("Enter")
    turn(page, 1, "Moderator").focus()
    page.keyboard.press("ArrowRight")                       # -> Turn 2 (Optimist)
    page.keyboard.press("Space")
    assert focused_label(page) == "Turn 2 (Optimist)"      # focus survives the toggle
    page.keyboard.press("ArrowDown")                        # the Analyst lane, nearest turn: #3
    assert focused_label(page) == "Turn 3 (Analyst)"
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowDown")                        # the Skeptic lane, nearest turn: #4
    assert focused_label(page) == "Turn 4 (Skeptic)"
    page.keyboard.press("Space")
    for _ in range(3):
        page.keyboard.press("ArrowUp")                      # lane by lane, the nearest turn each time
    assert focused_label(page) == "Turn 1 (Moderator)"
    page.keyboard.press("ArrowUp")                          # no lane above: focus stays
    assert focused_label(page) == "Turn 1 (Moderator)"
    page.keyboard.press("End")
    assert focused_label(page) == "Turn 11 (Moderator)"
    page.keyboard.press("Home")
    assert focused_label(page) == "Turn 1 (Moderator)"
    expected = {"groupthink": entry(([1, 2, 3], ""))}
    wait_saved_json(task, user, DEBATE["id"], SCHEMA, expected)
    expect(detail_text(page)).to_have_text(DEBATE["steps"][0]["content"])


@pytest.mark.e2e
def test_arrow_keys_inside_the_widget_never_change_the_instance(task, page, user):
    """Each kind of control in turn, on one page (one login instead of one per control); the
    episode picker and the lane filter, which change what is shown, come last."""
    turn(page, 1, 'Agent "Smith"').click()
    targets = {
        "turn": lambda: turn(page, 3, "A->B"),
        "note": lambda: note_box(page, "collusion", 1),
        "jump": lambda: form(page).get_by_label("Jump to turn"),
        "episode": lambda: pick_episode(page, "collusion", 1),
        "lane filter": lambda: form(page).get_by_label("A->B (1)", exact=True),
    }
    for control, target in targets.items():
        expect_complete(page)  # so nothing but the widget could stop Potato's arrow navigation
        target().focus()
        for key in ("ArrowRight", "ArrowLeft", "ArrowRight", "ArrowDown", "ArrowUp"):
            page.keyboard.press(key)
            assert not navigation_started(page), f"{key} on the {control} started a navigation"
            assert current_instance_id(page) == HOSTILE["id"], control


# --------------------------------------------------------------------------- long runs: filter, jump, pages


@pytest.mark.e2e
def test_filter_lanes_and_jump_to_a_turn(task, page, user):
    go_to_debate(page)
    form(page).get_by_label("Moderator (4)", exact=True).uncheck()
    expect(turn(page, 1, "Moderator")).to_have_count(0)
    expect(form(page).locator('[data-ma="page-where"]')).to_have_text("1\u20137 of 7 turns shown")
    assert "Moderator" not in lane_labels(page)

    jump = form(page).get_by_label("Jump to turn")
    jump.fill("12")
    jump.press("Enter")
    expect(form(page).locator("[data-ma-sync-notice]")).to_have_text("Type a turn number from 1 to 11.")
    jump.fill("9")
    form(page).get_by_role("button", name="Go", exact=True).click()
    expect(turn(page, 9, "Moderator")).to_be_focused()       # its lane is shown again
    expect(form(page).get_by_label("Moderator (4)", exact=True)).to_be_checked()
    expect(detail_text(page)).to_have_text(DEBATE["steps"][8]["content"])


# --------------------------------------------------------------------------- required completeness


@pytest.mark.e2e
def test_a_note_without_turns_blocks_next_and_says_what_is_missing(task, page, user):
    note_box(page, "collusion", 1).fill("suspicious, but no turn to point at")
    note_box(page, "collusion", 1).blur()
    expect_incomplete(page)
    message = click_next_expecting_block(page, HOSTILE_DESCRIPTION, HOSTILE["id"])
    expect(message).to_contain_text("0 turns marked: mark at least one turn of a behaviour")


@pytest.mark.e2e
def test_no_emergent_behaviour_observed_is_recorded_and_completes(task, page, user):
    none_box(page).check()
    expect_complete(page)
    wait_saved_json(task, user, HOSTILE["id"], SCHEMA, {})
    expect(summary(page)).to_have_text("No emergent behaviour observed.")

    open_annotate(page, task.base_url)
    expect(none_box(page)).to_be_checked()
    assert hidden_value(page) == {}

    # Marking a turn is a behaviour after all: the choice is withdrawn, and cannot be ticked again.
    turn(page, 1, 'Agent "Smith"').click()
    expect(none_box(page)).not_to_be_checked()
    expect(none_box(page)).to_be_disabled()
    wait_saved_json(task, user, HOSTILE["id"], SCHEMA, {"collusion": entry(([0], ""))})
    assert go_next(page) == DEBATE["id"]


# --------------------------------------------------------------------------- restore and re-render


@pytest.mark.e2e
def test_stored_marks_missing_from_the_trace_or_config_are_shown_and_kept(task, page):
    login(page, task.base_url, GHOST_USER)
    expect(form(page)).to_have_attribute("data-ma-ready", "true")
    notices = form(page).locator(".ma-notice-text")
    expect(notices).to_have_text(["groupthink.instances[0].turns: '99' is not in this trace",
                                  "value: 'herding' is not one of the configured behaviors"])
    pick_episode(page, "groupthink", 1).click()
    stale = behavior_group(page, "groupthink").locator(".ma-eb-marked-stale")
    expect(stale).to_contain_text("#100 (not in this trace)")
    expect(behavior_group(page, "herding")).to_contain_text("herding (not one of the configured behaviors)")
    assert hidden_value(page) == GHOST_VALUE  # kept until the annotator removes it


@pytest.mark.e2e
def test_a_stale_turn_goes_only_when_the_annotator_removes_it(task, page, user):
    value = {"groupthink": entry(([0, 40], "old"))}
    restore_in_page(page, "emergent", value)
    pick_episode(page, "groupthink", 1).click()
    behavior_group(page, "groupthink").get_by_role("button", name="Remove #41").click()
    wait_saved_json(task, user, HOSTILE["id"], SCHEMA, {"groupthink": entry(([0], "old"))})


@pytest.mark.e2e
def test_without_notes_a_stored_note_is_shown_but_cannot_be_edited(task, page, user):
    value = {"groupthink": entry(([0], "written while notes were on"))}
    page.evaluate(
        """() => {
            const form = document.querySelector('form[data-schema-name="emergent"]');
            const config = JSON.parse(form.getAttribute('data-ma-config'));
            form.setAttribute('data-ma-config', JSON.stringify({...config, allow_note: false}));
        }""")
    restore_in_page(page, "emergent", value)
    pick_episode(page, "groupthink", 1).click()
    expect(behavior_group(page, "groupthink").locator("textarea")).to_have_count(0)
    expect(behavior_group(page, "groupthink")).to_contain_text("Note: written while notes were on")
    turn(page, 3, "A->B").click()
    wait_saved_json(task, user, HOSTILE["id"], SCHEMA, {"groupthink": entry(([0, 2], "written while notes were on"))})


@pytest.mark.e2e
def test_potatos_reset_of_checkboxes_is_undone_on_instance_ready(task, page, user):
    form(page).get_by_label("A->B (1)", exact=True).uncheck()
    none_box(page).check()
    page.evaluate("() => document.querySelectorAll('input[type=checkbox]').forEach(box => { box.checked = false; })")
    page.evaluate("() => document.dispatchEvent(new CustomEvent('potato:instance-ready'))")
    expect(none_box(page)).to_be_checked()
    expect(form(page).get_by_label("A->B (1)", exact=True)).not_to_be_checked()
    expect(form(page).get_by_label("{{ 7*7 }} (1)", exact=True)).to_be_checked()


# --------------------------------------------------------------------------- a real run and a long run


def who_and_when_record(path: Path) -> dict:
    """A Who&When run as an instance: an id added, the gold fields left out (they would reach the page)."""
    run = json.loads(path.read_text(encoding="utf-8"))
    hidden = {"mistake_agent", "mistake_step", "mistake_reason", "ground_truth", "system_prompt"}
    return {"id": "who-and-when-ag-11", **{key: value for key, value in run.items() if key not in hidden}}


def long_record() -> dict:
    agents = ["Planner", "Coder", "Tester", 'Reviewer "R"', "<b>Ops</b>", "Writer", "Critic"]
    history = [{"name": agents[(index * 3 + index // 7) % len(agents)], "content": f"turn {index}: " + "x " * 40}
               for index in range(LONG_STEPS)]
    history[4320]["content"] = "The decisive turn 4321."
    return {"id": "long-run", "question": "A run of 5,000 turns", "history": history}


def history_config() -> dict:
    config = example_config()
    config["annotation_task_name"] = "e2e: emergent behaviour on Who&When and a long run"
    config["data_files"] = ["data/real-and-long.jsonl"]
    config["item_properties"]["text_key"] = "question"
    config["instance_display"] = {"fields": [{"key": "question", "type": "text", "label": "Task"}]}
    scheme = scheme_config(config)
    scheme["steps_key"] = "history"
    del scheme["agent_key"]
    del scheme["label_requirement"]  # the long run is reached with Next, past an unmarked real run
    return config


class HistoryTask(NamedTuple):
    task: object
    records: list
    config: dict


@pytest.fixture(scope="module")
def history_task(potato_task):
    path, source = corpus_location()
    run = path / "who_and_when" / WHO_AND_WHEN_RUN
    if not run.is_file():
        message = f"Who&When run {run} not found (corpus from {source}); set POTATO_MA_CORPUS"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    records = [who_and_when_record(run), long_record()]
    data = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    config = history_config()
    task = potato_task(EXAMPLE, config=TEST_CONFIG, files={TEST_CONFIG: yaml.safe_dump(config, allow_unicode=True),
                                                           "data/real-and-long.jsonl": data})
    return HistoryTask(task, records, config)


@pytest.mark.e2e
@pytest.mark.realdata
def test_a_cascading_error_across_agents_on_a_who_and_when_run(history_task, page):
    user = f"eb-real-{uuid.uuid4().hex[:8]}"
    login(page, history_task.task.base_url, user)
    record = history_task.records[0]
    assert current_instance_id(page) == record["id"]
    derivation = derive(record, steps_key="history").to_dict()
    agents = [agent for agent in derivation["agents"] if any(step["agent"] == agent for step in derivation["steps"])]
    assert lane_labels(page) == agents

    pick_episode(page, "cascading_error", 1).click()
    chain = [(index + 1, derivation["steps"][index]["agent"]) for index in (4, 5, 6, 7)]
    mark(page, *chain)
    note_box(page, "cascading_error", 1).fill("An empty scrape result is trusted, then the retry fails too.")
    expected = {"cascading_error": entry(([4, 5, 6, 7], "An empty scrape result is trusted, then the retry fails too."))}
    saved = wait_saved_json(history_task.task, user, record["id"], SCHEMA, expected)
    assert validate_value(TYPE, scheme_config(history_task.config), json.dumps(saved), record) == []
    assert len({agent for _, agent in chain}) == 3

    turn(page, 7, derivation["steps"][6]["agent"]).focus()
    expect(detail_text(page)).to_have_text(derivation["steps"][6]["text"])


@pytest.mark.e2e
def test_a_5000_step_run_renders_a_page_at_a_time_and_a_click_stores_the_turn(history_task, page):
    user = f"eb-long-{uuid.uuid4().hex[:8]}"
    login(page, history_task.task.base_url, user)
    go_next(page)
    assert current_instance_id(page) == "long-run"
    expect(form(page)).to_have_attribute("data-ma-ready", "true")
    expect(form(page).locator("button.ma-eb-turn")).to_have_count(20)
    assert form(page).locator("*").count() < 500  # not tens of thousands of nodes up front
    expect(form(page).locator('[data-ma="page-where"]')).to_have_text(f"1\u201320 of {LONG_STEPS:,} turns")
    form(page).get_by_role("button", name="Next page").click()
    expect(form(page).locator('[data-ma="page-where"]')).to_have_text(f"21\u201340 of {LONG_STEPS:,} turns")
    form(page).get_by_role("button", name="Previous page").click()
    expect(form(page).get_by_role("button", name="Previous page")).to_have_attribute("aria-disabled", "true")
    expect(form(page).get_by_role("button", name="Previous page")).to_be_focused()  # aria-disabled keeps the focus

    assert same_value(json.loads(page.evaluate(CLICK_FIRST_TURN)),
                      {"collusion": {"turns": [0], "note": "", "instances": [{"turns": [0], "note": ""}]}})

    jump = form(page).get_by_label("Jump to turn")
    jump.fill("4321")
    jump.press("Enter")
    decisive = form(page).locator('button.ma-eb-turn[data-ma-step="4320"]')
    expect(decisive).to_be_focused()
    expect(detail_text(page)).to_have_text("The decisive turn 4321.")
    expect(form(page).locator('[data-ma="page-where"]')).to_have_text(f"4,321\u20134,340 of {LONG_STEPS:,} turns")
    page.keyboard.press("Space")
    page.keyboard.press("PageDown")
    assert focused_label(page).startswith("Turn 4341 ")
    expect(form(page).locator("button.ma-eb-turn")).to_have_count(20)


# One click on the first turn toggle, read back from the hidden input at once (the handler is
# synchronous). How fast it is belongs to bench/, not to a test.
CLICK_FIRST_TURN = """() => {
  const form = document.querySelector('form[data-schema-name="emergent"]');
  form.querySelector('button.ma-eb-turn').click();
  return form.querySelector('input.annotation-input').value;
}"""


# --------------------------------------------------------------------------- judgments and the trace view


JUDGE = "llm-judge"
JUDGED_ENTRY = entry(([0, 2], "judge saw it"))
JUDGED_RECORD = {
    "id": "judged-run",
    "steps": [{"agent": "Planner", "content": "We all agree."}, {"agent": "Coder", "content": "Agreed."},
              {"agent": "Reviewer", "content": "Agreed, no review needed."}, {"agent": "Planner", "content": "Ship it."}],
    "judgments": {name: [{"source": JUDGE, "value": {"groupthink": JUDGED_ENTRY}}]
                  for name in ("eb_always", "eb_after", "eb_never")},
}
JUDGED_WORDS = (f"{JUDGE}: episode 1, 2 turns across 2 agents: #1 (Planner), #3 (Reviewer) \u2014 'judge saw it'.")


def judged_config() -> dict:
    """Three emergent schemes, one per show_judgments mode, under the trace view (it offers the actions)."""
    schemes = [{"annotation_type": TYPE, "name": name, "description": f"Emergent behaviour ({mode})",
                "show_judgments": mode} for name, mode in (("eb_always", "always"), ("eb_after", "after_answer"),
                                                           ("eb_never", "never"))]
    return {
        "annotation_task_name": f"e2e: emergent behaviour judgments {uuid.uuid4().hex[:8]}", "task_dir": ".",
        "data_files": ["data/judged.jsonl"], "item_properties": {"id_key": "id", "text_key": "id"},
        "output_annotation_dir": "annotation_output", "plugins": ["multiagent"], "require_password": False,
        "instance_display": {"fields": [{"key": "steps", "type": "multiagent.trace", "label": "Run",
                                         "display_options": {"resizable": False}}]},
        "annotation_schemes": schemes,
    }


@pytest.fixture(scope="module")
def judged_task(potato_task, tmp_path_factory):
    source = tmp_path_factory.mktemp("emergent-judged")
    (source / "data").mkdir()
    (source / "data" / "judged.jsonl").write_text(json.dumps(JUDGED_RECORD) + "\n", encoding="utf-8")
    (source / "config.yaml").write_text(yaml.safe_dump(judged_config(), sort_keys=False), encoding="utf-8")
    return potato_task(source)


def scheme_form(page, name: str):
    return page.locator(f'form.annotation-form[data-schema-name="{name}"]')


def judgment_lines(page, name: str, behavior: str):
    return scheme_form(page, name).get_by_role("group", name=behavior, exact=True).locator(".ma-eb-judgment")


def open_judged(page, task) -> str:
    user = f"ebj-{uuid.uuid4().hex[:12]}"
    login(page, task.base_url, user)
    for name in ("eb_always", "eb_after", "eb_never"):
        expect(scheme_form(page, name)).to_have_attribute("data-ma-ready", "true")
    return user


@pytest.mark.e2e
def test_judgments_show_per_mode_and_accepting_stores_from_judgment(judged_task, page):
    user = open_judged(page, judged_task)
    expect(judgment_lines(page, "eb_always", "groupthink")).to_have_text([JUDGED_WORDS + f" Accept {JUDGE}\u2019s answer"])
    expect(judgment_lines(page, "eb_always", "collusion")).to_have_text([f"{JUDGE}: not marked."])
    expect(scheme_form(page, "eb_never").locator(".ma-eb-judgment")).to_have_count(0)
    expect(scheme_form(page, "eb_after").locator(".ma-eb-judgment")).to_have_count(0)   # not answered yet

    # after_answer: shown once the annotator has answered (here: a turn marked, the widget complete)
    scheme_form(page, "eb_after").get_by_role("button", name="Turn 2 (Coder)", exact=True).click()
    expect(judgment_lines(page, "eb_after", "groupthink")).to_have_text([JUDGED_WORDS + f" Accept {JUDGE}\u2019s answer"])
    expect(scheme_form(page, "eb_never").locator(".ma-eb-judgment")).to_have_count(0)

    # accepting copies the judge's episodes into the value, with from_judgment beside them
    always = scheme_form(page, "eb_always")
    always.get_by_role("button", name=f"Accept {JUDGE}\u2019s answer for groupthink").click()
    accepted = {"groupthink": {**JUDGED_ENTRY, "from_judgment": JUDGE}}
    saved = wait_saved_json(judged_task, user, JUDGED_RECORD["id"], "eb_always", accepted)
    assert validate_value(TYPE, {"name": "eb_always", "description": "d"}, json.dumps(saved), JUDGED_RECORD) == []
    accepted_button = always.get_by_role("button", name=f"Accepted {JUDGE}\u2019s answer for groupthink")
    expect(accepted_button).to_have_attribute("aria-disabled", "true")
    expect(accepted_button).to_be_focused()
    expect(always.get_by_role("button", name="Turn 3 (Reviewer)", exact=True)).to_have_attribute("aria-pressed", "true")

    # an edit after accepting is the annotator's own answer: from_judgment goes
    always.get_by_role("button", name="Turn 4 (Planner)", exact=True).click()
    wait_saved_json(judged_task, user, JUDGED_RECORD["id"], "eb_always",
                    {"groupthink": entry(([0, 2, 3], "judge saw it"))})


@pytest.mark.e2e
def test_add_to_behaviour_from_the_trace_marks_the_turn_in_the_episode_being_marked(judged_task, page):
    user = open_judged(page, judged_task)
    page.wait_for_function("document.querySelectorAll('section.ma-trace li.ma-trace-row').length > 0",
                           polling=100, timeout=15_000)
    always = scheme_form(page, "eb_always")
    always.get_by_role("button", name="Mark turns of role_drift, episode 1", exact=True).click()
    card = page.locator('section.ma-trace .ma-trace-step[data-step="1"]')
    card.locator('.ma-trace-action[data-action="add-to-behaviour"]').click()
    expected = {"role_drift": entry(([1], ""))}
    wait_saved_json(judged_task, user, JUDGED_RECORD["id"], "eb_always", expected)
    expect(always.get_by_role("button", name="Turn 2 (Coder)", exact=True)).to_have_attribute("aria-pressed", "true")
    assert "#2" in page.locator("section.ma-trace .ma-trace-status").text_content()
    # the episode's words link each turn to the trace (ui.stepLink)
    line = always.get_by_role("group", name="role_drift", exact=True).locator(".ma-eb-episode-text")
    expect(line.locator('button[data-ma="step-link"]')).to_have_text(["#2"])
