"""End-to-end contract of `multiagent.agent_scorecard` in a real Potato 2.12.1 page.

The widget's DOM contract, as these tests read it:
- `form.annotation-form[data-schema-name="scorecard"]` with a `<legend>` (the description,
  literally) and `data-ma-ready="true"` once rendered;
- the "Agents" table: one row per agent of the trace (roster first), its name in
  `th.ma-asc-row-name .ma-asc-name`; the "Team" table: one row. Every cell is a radio group named
  "ROW: DIMENSION" holding native radios valued `1`..`scale` and `na` (not applicable);
- row buttons "Rest N/A for ROW" and, on rows of agents the trace lacks, "Remove ROW (not in this
  trace)"; milestone checkboxes by name, each with a select "Step where NAME was reached";
- `[data-ma="remaining"]` saying how many cells are left; `data-incomplete-reason` on the
  form while a cell is open;
- the hidden `input.annotation-input[name="scorecard:::scorecard"]` holding
  `{"agents": {name: {dim: score}}, "team": {dim: score}, "milestones": {name: true},
  "not_applicable": {"agents": {name: [dim]}, "team": [dim]}, "milestone_steps": {name: step}}`.
"""

from __future__ import annotations

import json
import os
import re
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive, validate_value

from .harness import (
    EXAMPLES_DIR, annotation_pairs, click_next_expecting_block, current_instance_id, go_next, go_prev, login,
    navigation_started, open_annotate, restore_in_page, returning_user_state, same_value, wait_saved,
    wait_saved_json
)

TYPE = "multiagent.agent_scorecard"
EXAMPLE = "agent-scorecard"
SCHEMA = "scorecard"
SMITH = 'Agent "Smith"'
BOLD = "<b>Bold</b>"
BRACES = "{{ 7*7 }}"
PACE = "<i>pace</i> {{ x }}"
CHECKED = 'answer "checked"'
DESCRIPTION = "Score {{ 7*7 }} agents {# not a comment"

SCORECARD = {
    "annotation_type": TYPE, "name": SCHEMA, "description": DESCRIPTION, "steps_key": "steps",
    "agent_key": "agent", "agents": ["Auditor"], "agent_dimensions": ["role fidelity", "contribution"],
    "team_dimensions": ["coordination", PACE], "scale": 5, "scale_labels": {1: "poor", 5: "excellent"},
    "milestones": ["plan agreed", CHECKED], "milestone_steps": True, "label_requirement": {"required": True},
}

HOSTILE_RUN = {
    "id": "asc-e2e-hostile", "task": "Write a two-sentence status update for the outage.",
    "steps": [
        {"agent": "Coordinator", "content": f"{SMITH} reviews, {BOLD} drafts, {BRACES} finishes."},
        {"agent": SMITH, "content": "Review: the draft blames the database; the cache filled up."},
        {"agent": BOLD, "content": "Draft: <i>the cache</i> filled up & requests timed out."},
        {"agent": BRACES, "content": "Second sentence: alerts fired late {# threshold was 99%."},
        {"agent": SMITH, "content": "Approved: the cause is right and the wording is plain."},
    ],
}
AGENTS = ["Auditor", "Coordinator", SMITH, BOLD, BRACES]   # roster first, then as they appear
CELLS = len(AGENTS) * 2 + 2

GHOST_USER = f"ghost-{uuid.uuid4().hex[:8]}"
GHOST_VALUE = {"agents": {"Ghost": {"contribution": 2}, SMITH: {"role fidelity": 3, "creativity": 4}},
               "team": {}, "milestones": {"plan agreed": True}, "milestone_steps": {"plan agreed": 99}}


def task_config(name: str, data_files: list, scheme: dict) -> str:
    return yaml.safe_dump({
        "annotation_task_name": name, "task_dir": ".", "data_files": data_files,
        "item_properties": {"id_key": "id", "text_key": "task"}, "output_annotation_dir": "annotation_output",
        "plugins": ["multiagent"], "require_password": False, "annotation_schemes": [scheme],
    }, sort_keys=False, allow_unicode=True)


def jsonl(records) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def example_records() -> list:
    lines = (EXAMPLES_DIR / EXAMPLE / "data" / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


RECORDS = [HOSTILE_RUN, *example_records()]


@pytest.fixture(scope="module")
def task(potato_task):
    ghost = returning_user_state(GHOST_USER, [record["id"] for record in RECORDS],
                                 annotation_pairs({HOSTILE_RUN["id"]: {SCHEMA: json.dumps(GHOST_VALUE)}}))
    config = task_config("e2e: agent scorecard with hostile names", ["data/e2e-hostile.jsonl", "data/runs.jsonl"],
                         SCORECARD)
    return potato_task(EXAMPLE, config="e2e-hostile.yaml",
                       files={"e2e-hostile.yaml": config, "data/e2e-hostile.jsonl": jsonl([HOSTILE_RUN])},
                       users={GHOST_USER: ghost})


@pytest.fixture
def user(task, page) -> str:
    """A fresh annotator, logged in and looking at the hostile run."""
    name = f"asc-{uuid.uuid4().hex[:12]}"
    login(page, task.base_url, name)
    assert current_instance_id(page) == HOSTILE_RUN["id"]
    expect(scorecard_form(page)).to_have_attribute("data-ma-ready", "true")
    return name


# --------------------------------------------------------------------------- page helpers


def scorecard_form(page):
    return page.locator(f'form.annotation-form[data-schema-name="{SCHEMA}"]')


def cell(page, row: str, dim: str):
    return scorecard_form(page).get_by_role("radiogroup", name=f"{row}: {dim}", exact=True)


def option(page, row: str, dim: str, choice):
    return cell(page, row, dim).locator(f'input[type="radio"][value="{choice}"]')


def pick(page, row: str, dim: str, choice) -> None:
    option(page, row, dim, choice).click()


def checked_choice(page, row: str, dim: str):
    values = cell(page, row, dim).locator("input:checked").evaluate_all("inputs => inputs.map(i => i.value)")
    assert len(values) <= 1
    return None if not values else values[0] if values[0] == "na" else int(values[0])


def row_names(page, table: str = "agents") -> list:
    return scorecard_form(page).locator(f'[data-ma="{table}"] tbody .ma-asc-name').all_inner_texts()


def milestone_box(page, name: str):
    return scorecard_form(page).get_by_role("checkbox", name=name, exact=True)


def step_picker(page, name: str):
    return scorecard_form(page).get_by_label(f"Step where {name} was reached", exact=True)


def choose_step(page, name: str, index: int) -> None:
    picker = step_picker(page, name)
    picker.focus()   # the picker lists every step once the annotator reaches it
    picker.select_option(value=str(index))


def remaining(page):
    return scorecard_form(page).locator('[data-ma="remaining"]')


def summary(page):
    return scorecard_form(page).locator(".ma-summary")


def hidden_value(page):
    raw = page.locator(f'input.annotation-input[name="{SCHEMA}:::{SCHEMA}"]').input_value()
    return json.loads(raw) if raw else None


def focused_cell(page) -> tuple:
    """(group name, radio value) of the focused radio."""
    return tuple(page.evaluate("""() => {
        const radio = document.activeElement;
        return [radio.closest('[role=radiogroup]').getAttribute('aria-label'), radio.value];
    }"""))


def expect_incomplete(page, left: int) -> None:
    expect(scorecard_form(page)).to_have_attribute("data-incomplete-reason", f"{left} of {CELLS} cells left")


def expect_complete(page) -> None:
    expect(scorecard_form(page)).not_to_have_attribute("data-incomplete-reason", re.compile(".*"))


def validate(value, record=HOSTILE_RUN) -> list:
    return validate_value(TYPE, SCORECARD, json.dumps(value), record)


SCORES = {"Coordinator": (4, 3), SMITH: (5, 5), BOLD: (2, 1), BRACES: (3, 2)}
COMPLETE = {
    "agents": {name: {"role fidelity": fidelity, "contribution": contribution}
               for name, (fidelity, contribution) in SCORES.items()},
    "team": {"coordination": 4},
    "milestones": {CHECKED: True},
    "not_applicable": {"agents": {"Auditor": ["role fidelity", "contribution"]}, "team": [PACE]},
    "milestone_steps": {CHECKED: 4},
}


def complete_with_the_mouse(page) -> None:
    """Score every cell of the hostile run (the roster's Auditor never acted: N/A), tick a milestone."""
    scorecard_form(page).get_by_role("button", name="Rest N/A for Auditor", exact=True).click()
    for name, (fidelity, contribution) in SCORES.items():
        pick(page, name, "role fidelity", fidelity)
        pick(page, name, "contribution", contribution)
    pick(page, "Team", "coordination", 4)
    pick(page, "Team", PACE, "na")
    milestone_box(page, CHECKED).check()
    choose_step(page, CHECKED, 4)


# --------------------------------------------------------------------------- config and rendering


@pytest.mark.e2e
def test_labels_with_markup_and_braces_show_literally(task, page, user):
    form = scorecard_form(page)
    expect(form.locator("legend").first).to_have_text(DESCRIPTION)
    expect(form.get_by_role("columnheader", name=PACE, exact=True)).to_be_visible()
    assert row_names(page) == AGENTS
    assert form.locator("b, i").count() == 0   # no element made from a name or a label
    expect(page.locator("#next-btn")).to_be_visible()   # `{#` did not swallow the rest of the page


@pytest.mark.e2e
def test_every_cell_is_a_radio_group_named_after_its_row_and_dimension(task, page, user):
    for name in AGENTS:
        for dim in ("role fidelity", "contribution"):
            radios = cell(page, name, dim).get_by_role("radio")
            expect(radios).to_have_count(6)   # 1..5 and not applicable
    expect(cell(page, "Team", PACE).get_by_role("radio")).to_have_count(6)
    groups = scorecard_form(page).get_by_role("radiogroup")
    expect(groups).to_have_count(CELLS)
    # The scale's words reach the annotator: in the legend and in the radios' names.
    expect(scorecard_form(page).locator('[data-ma="scale"]')).to_contain_text("1 = poor")
    expect(cell(page, SMITH, "contribution").get_by_role("radio", name="5: excellent", exact=True)).to_have_count(1)
    expect(cell(page, SMITH, "contribution").get_by_role("radio", name="N/A (not applicable)", exact=True)).to_have_count(1)


# --------------------------------------------------------------------------- the done-when check


@pytest.mark.e2e
def test_a_required_scorecard_with_agent_smith_completes_and_is_saved_exactly(task, page, user):
    expect_incomplete(page, CELLS)
    expect(remaining(page)).to_have_text(f"{CELLS} of {CELLS} cells left to score or mark not applicable.")
    complete_with_the_mouse(page)
    expect_complete(page)
    expect(remaining(page)).to_have_text(f"All {CELLS} cells scored or marked not applicable.")

    saved = wait_saved_json(task, user, HOSTILE_RUN["id"], SCHEMA, COMPLETE)
    assert SMITH in saved["agents"] and "Agent " not in saved["agents"]   # the built-in saves `Agent "`
    assert validate(saved) == []
    assert go_next(page) == RECORDS[1]["id"]   # complete: Next is not blocked


@pytest.mark.e2e
def test_the_saved_scorecard_is_restored_after_reload_and_next_prev(task, page, user):
    complete_with_the_mouse(page)
    wait_saved_json(task, user, HOSTILE_RUN["id"], SCHEMA, COMPLETE)

    for move in ("reload", "next-prev"):
        if move == "reload":
            open_annotate(page, task.base_url)
        else:
            go_next(page)
            assert go_prev(page) == HOSTILE_RUN["id"]
        expect(scorecard_form(page)).to_have_attribute("data-ma-ready", "true")
        for name, (fidelity, contribution) in SCORES.items():
            assert checked_choice(page, name, "role fidelity") == fidelity, move
            assert checked_choice(page, name, "contribution") == contribution, move
        assert checked_choice(page, "Auditor", "contribution") == "na"
        assert checked_choice(page, "Team", PACE) == "na"
        expect(milestone_box(page, CHECKED)).to_be_checked()
        expect(milestone_box(page, "plan agreed")).not_to_be_checked()
        expect(step_picker(page, CHECKED)).to_have_value("4")
        expect(step_picker(page, "plan agreed")).to_be_hidden()
        expect_complete(page)
        assert same_value(hidden_value(page), COMPLETE)


# --------------------------------------------------------------------------- keyboard


@pytest.mark.e2e
def test_keyboard_only_scoring_with_arrows_inside_each_cell(task, page, user):
    remaining(page).focus()
    page.keyboard.press("Tab")
    expect(scorecard_form(page).get_by_role("button", name="Rest N/A for Auditor", exact=True)).to_be_focused()
    page.keyboard.press("Tab")
    assert focused_cell(page) == ("Auditor: role fidelity", "1")
    page.keyboard.press("Space")
    for key in ("ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft"):
        page.keyboard.press(key)
        assert not navigation_started(page), f"{key} on a score started a navigation"
    assert focused_cell(page) == ("Auditor: role fidelity", "3")
    expect(summary(page)).to_contain_text("Auditor: role fidelity 3.")

    page.keyboard.press("Tab")   # the next cell; Left from its first radio wraps to N/A
    assert focused_cell(page) == ("Auditor: contribution", "1")
    page.keyboard.press("ArrowLeft")
    assert focused_cell(page) == ("Auditor: contribution", "na")
    page.keyboard.press("ArrowDown")   # Up/Down move like Left/Right, and wrap
    assert focused_cell(page) == ("Auditor: contribution", "1")
    page.keyboard.press("ArrowUp")

    milestone_box(page, "plan agreed").focus()
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    expect(step_picker(page, "plan agreed")).to_be_focused()
    for _ in range(2):
        page.keyboard.press("ArrowDown")   # past the placeholder to #1, then #2
    assert current_instance_id(page) == HOSTILE_RUN["id"]
    expected = {"agents": {"Auditor": {"role fidelity": 3}}, "team": {}, "milestones": {"plan agreed": True},
                "not_applicable": {"agents": {"Auditor": ["contribution"]}}, "milestone_steps": {"plan agreed": 1}}
    saved = wait_saved_json(task, user, HOSTILE_RUN["id"], SCHEMA, expected)
    assert validate(saved) == []
    expect_incomplete(page, CELLS - 2)


@pytest.mark.e2e
def test_arrow_keys_inside_the_widget_never_change_the_instance(task, page, user):
    """Each kind of control in turn, on one page (one login instead of one per control)."""
    complete_with_the_mouse(page)
    targets = {
        "radio": option(page, SMITH, "contribution", 5),
        "checkbox": milestone_box(page, CHECKED),
        "select": step_picker(page, CHECKED),
        "button": scorecard_form(page).get_by_role("button", name=f"Rest N/A for {SMITH}", exact=True),
    }
    for control, target in targets.items():
        expect_complete(page)   # so nothing but the widget could stop Potato's arrow navigation
        target.focus()
        for key in ("ArrowRight", "ArrowLeft", "ArrowLeft"):
            page.keyboard.press(key)
            assert not navigation_started(page), f"{key} on the {control} started a navigation"
        assert current_instance_id(page) == HOSTILE_RUN["id"], control


# --------------------------------------------------------------------------- completeness and N/A


@pytest.mark.e2e
def test_a_partly_scored_scorecard_blocks_next_saying_how_many_cells_are_left(task, page, user):
    pick(page, SMITH, "contribution", 2)
    pick(page, "Team", "coordination", "na")
    expect_incomplete(page, CELLS - 2)
    message = click_next_expecting_block(page, DESCRIPTION, HOSTILE_RUN["id"])
    expect(message).to_contain_text(f"({CELLS - 2} of {CELLS} cells left)")


@pytest.mark.e2e
def test_not_applicable_is_stored_apart_from_not_scored(task, page, user):
    pick(page, BOLD, "contribution", "na")
    pick(page, BOLD, "role fidelity", 2)
    expected = {"agents": {BOLD: {"role fidelity": 2}}, "team": {}, "milestones": {},
                "not_applicable": {"agents": {BOLD: ["contribution"]}}}
    wait_saved_json(task, user, HOSTILE_RUN["id"], SCHEMA, expected)
    expect_incomplete(page, CELLS - 2)

    pick(page, BOLD, "contribution", 4)   # a score replaces N/A
    scorecard_form(page).get_by_role("button", name=f"Rest N/A for {SMITH}", exact=True).click()
    expected = {"agents": {BOLD: {"role fidelity": 2, "contribution": 4}}, "team": {}, "milestones": {},
                "not_applicable": {"agents": {SMITH: ["role fidelity", "contribution"]}}}
    saved = wait_saved_json(task, user, HOSTILE_RUN["id"], SCHEMA, expected)
    assert validate(saved) == []
    assert checked_choice(page, SMITH, "contribution") == "na"


@pytest.mark.e2e
def test_a_milestone_step_lists_the_trace_steps_and_leaves_with_its_tick(task, page, user):
    expect(step_picker(page, "plan agreed")).to_be_hidden()
    milestone_box(page, "plan agreed").check()
    picker = step_picker(page, "plan agreed")
    expect(picker).to_be_visible()
    picker.focus()
    labels = picker.locator("option").all_inner_texts()
    assert labels[0] == "\u2014 step not recorded \u2014" and len(labels) == 1 + len(HOSTILE_RUN["steps"])
    assert labels[2] == f"#2 \u00B7 {SMITH} \u00B7 Review: the draft blames the database; the cache filled up."
    picker.select_option(value="1")
    wait_saved_json(task, user, HOSTILE_RUN["id"], SCHEMA, {
        "agents": {}, "team": {}, "milestones": {"plan agreed": True}, "milestone_steps": {"plan agreed": 1}})

    milestone_box(page, "plan agreed").uncheck()   # the step goes with the tick; nothing is left
    expect(picker).to_be_hidden()
    assert hidden_value(page) is None
    wait_saved(task, user, HOSTILE_RUN["id"], SCHEMA, lambda value: value is None)   # "" deletes the entry


# --------------------------------------------------------------------------- restore (SPEC §6)


@pytest.mark.e2e
def test_marks_missing_from_the_trace_are_shown_kept_and_removable(task, page):
    login(page, task.base_url, GHOST_USER)
    form = scorecard_form(page)
    expect(form).to_have_attribute("data-ma-ready", "true")
    assert row_names(page) == [*AGENTS, "Ghost"]
    expect(form.locator(".ma-asc-row-stale")).to_contain_text("Ghost (not in this trace)")
    assert checked_choice(page, "Ghost", "contribution") == 2
    assert checked_choice(page, SMITH, "role fidelity") == 3
    expect(step_picker(page, "plan agreed")).to_have_value("99")
    expect(step_picker(page, "plan agreed").locator("option:checked")).to_have_text("#100 (not in this trace)")
    notices = form.locator(".ma-notices")
    expect(notices).to_contain_text("agents: 'Ghost' is not in this trace")
    expect(notices).to_contain_text(f"agents.{SMITH}: 'creativity' is not one of the configured agent_dimensions")
    expect(notices).to_contain_text("milestone_steps.plan agreed: '99' is not in this trace")
    assert hidden_value(page) == GHOST_VALUE   # shown, not rewritten

    expect(form.get_by_role("button", name="Rest N/A for Ghost")).to_have_count(0)   # no cells to fill there
    form.get_by_role("button", name="Remove Ghost (not in this trace)", exact=True).click()
    assert row_names(page) == AGENTS
    expect(form.get_by_role("button", name=f"Rest N/A for {BRACES}", exact=True)).to_be_focused()   # the row above
    without_ghost = {**GHOST_VALUE, "agents": {SMITH: GHOST_VALUE["agents"][SMITH]}}
    wait_saved_json(task, GHOST_USER, HOSTILE_RUN["id"], SCHEMA, without_ghost)

    drop = form.get_by_role("button", name="Remove 1 saved mark this question does not ask for", exact=True)
    drop.click()
    expect(drop).to_be_hidden()
    expect(remaining(page)).to_be_focused()
    cleaned = {**without_ghost, "agents": {SMITH: {"role fidelity": 3}}}
    saved = wait_saved_json(task, GHOST_USER, HOSTILE_RUN["id"], SCHEMA, cleaned)
    assert validate(saved) == ["milestone_steps.plan agreed: '99' is not in this trace"]   # kept until changed


@pytest.mark.e2e
def test_focus_survives_a_re_render_even_when_rows_are_rebuilt(task, page, user):
    option(page, SMITH, "contribution", 4).focus()
    page.keyboard.press("Space")
    # Wait until Potato has saved the edit: its save waits for the two-tab merge's read of the
    # stored value, so no read is then in flight that could answer after the fake restores below
    # (which the server never holds) and merge them away. Waiting only for the hidden input raced
    # with that read when the CPUs were busy (parallel workers).
    wait_saved(task, user, HOSTILE_RUN["id"], SCHEMA,
               lambda raw: bool(raw) and json.loads(raw).get("agents", {}).get(SMITH, {}).get("contribution") == 4)
    assert hidden_value(page)["agents"][SMITH]["contribution"] == 4
    restore_in_page(page, SCHEMA, hidden_value(page))   # same rows: the grid is updated in place
    assert focused_cell(page) == (f"{SMITH}: contribution", "4")

    with_ghost = {**hidden_value(page), "agents": {**hidden_value(page)["agents"], "Ghost": {"contribution": 1}}}
    restore_in_page(page, SCHEMA, with_ghost)   # a new "not in this trace" row: the rows are rebuilt
    assert row_names(page)[-1] == "Ghost"
    assert focused_cell(page) == (f"{SMITH}: contribution", "4")
    assert checked_choice(page, SMITH, "contribution") == 4


# --------------------------------------------------------------------------- a large grid on a long run

BIG_DIMENSIONS = ["role fidelity", "contribution", "coordination", "initiative", "accuracy", "tool use"]
BIG_AGENTS = [f"Agent {number:02d}" for number in range(1, 21)]
BIG_STEPS = 5000
BIG_SCHEME = {
    "annotation_type": TYPE, "name": SCHEMA, "description": "Score twenty agents", "steps_key": "steps",
    "agent_dimensions": BIG_DIMENSIONS, "team_dimensions": ["coordination", "communication", "efficiency"],
    "milestones": ["plan agreed", "answer verified"], "milestone_steps": True,
}
BIG_RUN = {"id": "asc-e2e-big", "task": "A long run of twenty agents.",
           "steps": [{"agent": BIG_AGENTS[index % 20], "content": f"Turn {index + 1}: working on part {index // 20}."}
                     for index in range(BIG_STEPS)]}


@pytest.fixture(scope="module")
def big_task(potato_task):
    config = task_config("e2e: agent scorecard, 20 agents x 6 dimensions", ["data/e2e-big.jsonl"], BIG_SCHEME)
    return potato_task(EXAMPLE, config="e2e-big.yaml",
                       files={"e2e-big.yaml": config, "data/e2e-big.jsonl": jsonl([BIG_RUN])})


@pytest.mark.e2e
def test_twenty_agents_by_six_dimensions_on_five_thousand_steps(big_task, page):
    user = f"asc-big-{uuid.uuid4().hex[:8]}"
    login(page, big_task.base_url, user)
    form = scorecard_form(page)
    expect(form).to_have_attribute("data-ma-ready", "true")
    assert row_names(page) == BIG_AGENTS
    expect(form.get_by_role("radiogroup")).to_have_count(20 * 6 + 3)
    # Nothing is built per step up front: the step pickers list the steps only once reached.
    assert form.locator("option").count() == 2
    assert form.evaluate("f => f.getElementsByTagName('*').length") < 4000

    # The last column of the last agent: scrolled into view, with the agent's name still in view.
    last = option(page, "Agent 20", "tool use", 5)
    last.click()
    expect(form.locator(".ma-asc-row-name", has_text="Agent 20")).to_be_in_viewport()
    milestone_box(page, "answer verified").check()
    choose_step(page, "answer verified", 3999)
    assert step_picker(page, "answer verified").locator("option").count() == BIG_STEPS + 1
    expect(step_picker(page, "answer verified").locator("option:checked")).to_have_text(
        "#4000 \u00B7 Agent 20 \u00B7 Turn 4000: working on part 199.")
    expected = {"agents": {"Agent 20": {"tool use": 5}}, "team": {}, "milestones": {"answer verified": True},
                "milestone_steps": {"answer verified": 3999}}
    saved = wait_saved_json(big_task, user, BIG_RUN["id"], SCHEMA, expected)
    assert validate_value(TYPE, BIG_SCHEME, json.dumps(saved), BIG_RUN) == []


@pytest.mark.e2e
def test_a_score_focused_under_the_sticky_names_is_scrolled_clear_and_clickable(big_task, page):
    """In a narrow window the grid scrolls sideways under the agents' names: focusing a score that a
    sideways scroll left under them brings it clear of the names, and a click at its centre lands on
    it, not on the row's name."""
    page.set_viewport_size({"width": 700, "height": 800})
    login(page, big_task.base_url, f"asc-sticky-{uuid.uuid4().hex[:8]}")
    form = scorecard_form(page)
    expect(form).to_have_attribute("data-ma-ready", "true")
    scroller = form.locator(".ma-asc-scroll").first
    assert scroller.evaluate("el => el.scrollWidth > el.clientWidth"), "the grid should scroll sideways here"
    first = option(page, "Agent 03", BIG_DIMENSIONS[2], 1)
    # scrolled so that this score sits under the names, as a sideways scroll leaves it
    first.evaluate("""(input) => { const scroller = input.closest('.ma-asc-scroll');
        scroller.scrollLeft += input.getBoundingClientRect().left - scroller.getBoundingClientRect().left - 20; }""")
    first.focus()
    name_right = form.locator(".ma-asc-row-name", has_text="Agent 03").evaluate("el => el.getBoundingClientRect().right")
    box = first.bounding_box()
    assert box["x"] >= name_right - 1, (box, name_right)
    centre = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('.ma-asc-option, th')?.className",
                           [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
    assert centre and "ma-asc-option" in centre, centre


# --------------------------------------------------------------------------- real data: Who&When


def who_and_when_run() -> dict:
    """An AG2 (Algorithm-Generated) run from the corpus, without its gold labels."""
    from tests.realdata.conftest import corpus_location

    corpus, source = corpus_location()
    path = corpus / "who_and_when" / "Algorithm-Generated" / "1.json"
    if not path.is_file():
        message = f"real-data corpus not found at {corpus} (from {source}); set POTATO_MA_CORPUS to its folder"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    run = json.loads(path.read_text(encoding="utf-8"))
    return {"id": "who-and-when-algorithm-generated-1", "task": run["question"], "history": run["history"]}


REAL_SCHEME = {"annotation_type": TYPE, "name": SCHEMA, "description": "Score the experts", "steps_key": "history",
               "milestones": ["answer verified"], "milestone_steps": True, "label_requirement": {"required": True}}


@pytest.mark.e2e
@pytest.mark.realdata
def test_a_who_and_when_run_is_scored_completely(potato_task, page):
    run = who_and_when_run()
    config = task_config("e2e: agent scorecard on Who&When", ["data/who-and-when.jsonl"], REAL_SCHEME)
    real_task = potato_task(EXAMPLE, config="e2e-real.yaml",
                            files={"e2e-real.yaml": config, "data/who-and-when.jsonl": jsonl([run])})
    user = f"asc-real-{uuid.uuid4().hex[:8]}"
    login(page, real_task.base_url, user)
    agents = derive(run, steps_key="history").agents
    assert "Computer_terminal" in agents and len(agents) >= 3
    assert row_names(page) == agents

    form = scorecard_form(page)
    experts = [name for name in agents if name != "Computer_terminal"]
    form.get_by_role("button", name="Rest N/A for Computer_terminal", exact=True).click()
    for position, name in enumerate(experts):
        for dim in ("role fidelity", "contribution", "coordination"):
            pick(page, name, dim, 1 + position % 5)
    for dim in ("coordination", "communication", "efficiency"):
        pick(page, "Team", dim, 2)
    expect(form).not_to_have_attribute("data-incomplete-reason", re.compile(".*"))

    expected = {
        "agents": {name: dict.fromkeys(("role fidelity", "contribution", "coordination"), 1 + position % 5)
                   for position, name in enumerate(experts)},
        "team": dict.fromkeys(("coordination", "communication", "efficiency"), 2), "milestones": {},
        "not_applicable": {"agents": {"Computer_terminal": ["role fidelity", "contribution", "coordination"]}},
    }
    saved = wait_saved_json(real_task, user, run["id"], SCHEMA, expected)
    assert validate_value(TYPE, REAL_SCHEME, json.dumps(saved), run) == []


# --------------------------------------------------------------------------- judgments (issue 17)

JUDGED_RUN = {"id": "asc-e2e-judged", "task": "Plan and build.",
              "steps": [{"agent": "Planner", "content": "plan"}, {"agent": "Coder", "content": "code"}]}
JUDGE_VALUE = {"agents": {"Planner": {"contribution": 4}}, "team": {"coordination": 2},
               "milestones": {"plan agreed": True}, "milestone_steps": {"plan agreed": 1}}
JUDGED_SCHEMES = {"always": "always", "after": "after_answer", "never": "never"}


@pytest.fixture(scope="module")
def judged_task(potato_task):
    schemes = [{"annotation_type": TYPE, "name": name, "description": f"Scorecard {name}",
                "agent_dimensions": ["contribution"], "team_dimensions": ["coordination"],
                "milestones": ["plan agreed"], "milestone_steps": True, "show_judgments": when}
               for name, when in JUDGED_SCHEMES.items()]
    record = {**JUDGED_RUN, "judgments": {name: [{"source": "llm-judge", "value": JUDGE_VALUE}]
                                          for name in JUDGED_SCHEMES}}
    config = yaml.safe_load(task_config("e2e: agent scorecard judgments", ["data/judged.jsonl"], schemes[0]))
    config["annotation_schemes"] = schemes
    return potato_task(EXAMPLE, config="judged.yaml",
                       files={"judged.yaml": yaml.safe_dump(config, sort_keys=False),
                              "data/judged.jsonl": jsonl([record])})


def test_judgments_show_per_policy_and_accepting_stores_from_judgment(judged_task, page):
    user = f"asc-judged-{uuid.uuid4().hex[:8]}"
    login(page, judged_task.base_url, user)
    forms = {name: page.locator(f'form.annotation-form[data-schema-name="{name}"]') for name in JUDGED_SCHEMES}
    for form in forms.values():
        expect(form).to_have_attribute("data-ma-ready", "true")
    accept_cell = "Accept llm-judge\u2019s answer for Planner: contribution (4)"
    # always: beside the cell, labelled with its source, before any answer
    expect(forms["always"].get_by_role("button", name=accept_cell)).to_have_text("llm-judge: 4")
    expect(forms["always"].get_by_role("button", name="Accept llm-judge\u2019s answer for Team: coordination (2)")).to_be_visible()
    # never: nowhere
    expect(forms["never"].locator('[data-ma="judgment"]')).to_have_count(0)
    # after_answer: hidden until that cell is answered
    expect(forms["after"].locator('[data-ma="judgment"]:visible')).to_have_count(0)
    forms["after"].get_by_role("radiogroup", name="Planner: contribution").get_by_role("radio", name="2").check()
    expect(forms["after"].get_by_role("button", name=accept_cell)).to_be_visible()
    expect(forms["after"].get_by_role("button", name="Accept llm-judge\u2019s answer for Team: coordination (2)")).to_have_count(0)
    # accept: the cell and the milestone take the judge's answers, from_judgment records the source
    forms["always"].get_by_role("button", name=accept_cell).click()
    forms["always"].get_by_role("button", name="Accept llm-judge\u2019s answer for plan agreed (reached (#2))").click()
    expected = {"agents": {"Planner": {"contribution": 4}}, "team": {}, "milestones": {"plan agreed": True},
                "milestone_steps": {"plan agreed": 1},
                "from_judgment": {"agents/Planner/contribution": "llm-judge", "milestones/plan agreed": "llm-judge"}}
    saved = wait_saved_json(judged_task, user, JUDGED_RUN["id"], "always", expected)
    assert validate_value(TYPE, {**SCORECARD, "name": "always", "agents": [], "agent_dimensions": ["contribution"],
                                 "team_dimensions": ["coordination"], "milestones": ["plan agreed"],
                                 "scale_labels": None}, json.dumps(saved), JUDGED_RUN) == []
    expect(forms["always"].get_by_role("button", name=accept_cell.replace("Accept ", "Accepted ", 1))) \
        .to_have_attribute("aria-disabled", "true")
    # a cell changed by hand is the annotator's own again
    forms["always"].get_by_role("radiogroup", name="Planner: contribution").get_by_role("radio", name="5").check()
    expected["agents"]["Planner"]["contribution"] = 5
    del expected["from_judgment"]["agents/Planner/contribution"]
    wait_saved_json(judged_task, user, JUDGED_RUN["id"], "always", expected)
