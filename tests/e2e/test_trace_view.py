"""End-to-end: the `multiagent.trace` display on real runs in a real Potato page.

One task serves a Who&When Hand-Crafted run, a DPBench episode (both converted from the shared
corpus by our converters), a 2,000-step synthetic run and a real OpenAI Agents SDK run with
delegated threads (tests/fixtures/real). The tests click the `#N` links wired into
the widgets (handoff cards, tool-call cards, failure attribution) and check they land on the step
with the same number, agent and text; act from the trace ("Set as decisive step") and read the
value Potato saved; answer the orchestration radio and watch the layout; tag MAST modes on two
steps through Potato's turn-level input and read them back from user_state.json.
"""

from __future__ import annotations

import json
import re
import os
import shutil
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pandas as pd
import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive, types
from potato_multiagent.convert import convert_inputs

from .harness import (choose_decisive_step, current_instance_id, go_next, login, open_annotate,
                      returning_user_state, wait_saved, wait_saved_json)

TASK_NAME = f"e2e trace view {uuid.uuid4().hex[:8]}"
CORPUS = Path(os.environ.get("POTATO_MA_CORPUS") or Path(__file__).resolve().parents[3] / "shared" / "corpus")
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus")
THREADED_RUN = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "openai-agents" / "agents_as_tools.json"
"""A real OpenAI Agents SDK run (agents as tools: Planner delegates to FlightScout and HotelScout)."""
FOLD = 600
HOSTILE_AGENT = "<b>Evil</b> {{ 7*7 }}"
HOSTILE_TEXT = "<img src=x onerror=\"window.__pwned=1\"> {% raw %}{{ 7*7 }}{# not a comment"
WINDOW = 40
MAST_MODES = ["FM-1.1 Disobey task specification", "FM-1.3 Step repetition", "FM-2.3 Task derailment",
              "FM-3.2 No or incomplete verification"]


PAIR = {"id": "pair-run", "question": "Two agents in a pipeline",
        "steps": [{"agent": "Writer" if i % 2 == 0 else "Editor", "content": f"draft {i}"} for i in range(6)]}
PAIR_USER = f"tv-pair-{uuid.uuid4().hex[:8]}"
"""A returning user seeded to open on the two-agent run (it is last in the data)."""


def corpus_records() -> list[dict]:
    if not CORPUS.is_dir():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"real-data corpus not found at {CORPUS}", pytrace=False)
        pytest.skip(f"real-data corpus not found at {CORPUS}; set POTATO_MA_CORPUS")
    who = convert_inputs("who-and-when", [CORPUS / "who_and_when" / "Hand-Crafted" / "1.json"]).records[0]
    dp = convert_inputs("dpbench", [CORPUS / "dpbench"], strict=False).records[0]
    long_run = {"id": "long-run", "question": "A long synthetic run",
                "steps": [{"agent": f"A{i % 12}", "content": f"step {i} of the long run"} for i in range(2000)]}
    long_run["steps"][0] = {"agent": HOSTILE_AGENT, "content": HOSTILE_TEXT}
    threaded = convert_inputs("openai-agents", [THREADED_RUN], strict=False).records[0]
    return [who, dp, long_run, threaded, PAIR]


def task_config() -> dict:
    return {
        "annotation_task_name": TASK_NAME, "task_dir": ".", "data_files": ["data/records.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "id"}, "output_annotation_dir": "annotation_output",
        "plugins": ["multiagent"], "require_password": False,
        "instance_display": {"fields": [
            {"key": "steps", "type": "multiagent.trace", "label": "Run", "layout_from": "orchestration",
             "display_options": {"resizable": False}}]},
        "annotation_schemes": [
            {"annotation_type": "radio", "name": "orchestration", "description": "How was the team organised?",
             "labels": ["sequential_pipeline", "hierarchical_manager", "group_chat", "debate"]},
            {"annotation_type": "multiagent.failure_attribution", "name": "attribution",
             "description": "Which agent caused the failure, and at which step?"},
            {"annotation_type": "multiagent.handoff_review", "name": "handoffs", "description": "Review handoffs"},
            {"annotation_type": "multiagent.tool_call_review", "name": "tool_calls", "description": "Judge tool calls"},
            {"annotation_type": "multiselect", "name": "mast", "description": "MAST failure modes",
             "labels": MAST_MODES, "turn_level": True, "turn_binding": {"field": "steps"}},
        ],
    }


@pytest.fixture(scope="module")
def trace_task(potato_task, tmp_path_factory):
    records = corpus_records()
    source = tmp_path_factory.mktemp("trace-view-source")
    (source / "data").mkdir()
    (source / "data" / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (source / "config.yaml").write_text(yaml.safe_dump(task_config(), sort_keys=False), encoding="utf-8")
    ordering = [PAIR["id"]] + [record["id"] for record in records if record is not PAIR]
    return potato_task(source, users={PAIR_USER: returning_user_state(PAIR_USER, ordering, {})}), records


def fresh_user() -> str:
    return f"tv-{uuid.uuid4().hex[:8]}"


def wait_view(page) -> None:
    page.wait_for_function("document.querySelectorAll('section.ma-trace li.ma-trace-row').length > 0",
                           polling=100, timeout=15_000)


def agent_label(step) -> str:
    if step.agent is None:
        return "(no agent)"
    return f"{step.agent} ({step.qualifier})" if step.qualifier else step.agent


def shown_body(text: str) -> str:
    return text if len(text) <= FOLD else text[:FOLD] + "\u2026"


def assert_lands_on(page, record: dict, index: int) -> None:
    """The view's current step is `index`: its number, agent and text, and it has focus."""
    step = derive(record).steps[index]
    current = page.locator("section.ma-trace .ma-trace-step.ma-trace-current")
    assert current.count() == 1
    assert current.locator(".ma-trace-num").text_content() == f"#{index + 1}"
    assert current.locator(".ma-trace-agent").text_content() == agent_label(step)
    if step.text:
        assert current.locator(":scope > .ma-trace-text .ma-trace-body").text_content() == shown_body(step.text)
    assert page.evaluate("document.activeElement.classList.contains('ma-trace-current')")
    assert current.is_visible()


def click_links(page, record: dict, scope: str) -> int:
    # [data-ma-step-link]: widgets on the compatibility layer; [data-ma="step-link"]: ui.stepLink
    links = page.locator(f'{scope} [data-ma-step-link], {scope} [data-ma="step-link"]')
    count = links.count()
    for position in range(count):
        link = links.nth(position)
        index = int(link.get_attribute("data-ma-step-link") or link.get_attribute("data-ma-step"))
        assert link.text_content().endswith(f"#{index + 1}") or f"#{index + 1} " in link.text_content()
        link.click()
        assert_lands_on(page, record, index)
    return count


def open_every_handoff_card(page) -> None:
    """A run with more than 10 handoffs is reviewed one open card at a time: open the others."""
    folded = page.locator('form[data-schema-name="handoffs"] .ma-hr-toggle[aria-expanded="false"]')
    for _ in range(folded.count()):
        folded.first.click()
    expect(folded).to_have_count(0)


def test_every_wired_link_lands_on_its_step(trace_task, page):
    task, records = trace_task
    who, dp = records[0], records[1]
    login(page, task.base_url, fresh_user())
    wait_view(page)
    # Who&When Hand-Crafted: every #N in every handoff card
    open_every_handoff_card(page)
    clicked = click_links(page, who, 'form[data-schema-name="handoffs"] .ma-hr-kind')
    assert clicked == 2 * len(derive(who).handoffs)
    # failure attribution: the chosen step's link
    choose_decisive_step(page.locator('form[data-schema-name="attribution"]'), 8)
    page.locator('form[data-schema-name="attribution"] .ma-fa-chosen .ma-step-link').click()
    assert_lands_on(page, who, 7)
    # Escape returns focus to the link
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.classList.contains('ma-step-link')")
    # DPBench: every #N in every tool-call card
    go_next(page)
    wait_view(page)
    calls = derive(dp).tool_calls
    clicked = click_links(page, dp, 'form[data-schema-name="tool_calls"]')
    shown = [int(i) for i in page.locator('form[data-schema-name="tool_calls"] li.ma-tcr-card').evaluate_all(
        "cards => cards.map(card => card.getAttribute('data-ma-call'))")]
    # DPBench steps carry a timestep: each step shows it
    times = page.locator("section.ma-trace .ma-trace-step .ma-trace-time").all_text_contents()
    assert times == [str(step["timestep"]) for step in dp["steps"] if "timestep" in step] and times
    assert shown   # the cards the widget shows (it pages long lists): each links its call step (and result)
    assert clicked == sum(1 + (calls[i].get("result_step") is not None) for i in shown)


def test_acting_from_the_trace_sets_the_value_potato_saves(trace_task, page):
    task, records = trace_task
    user = fresh_user()
    login(page, task.base_url, user)
    wait_view(page)
    instance = records[0]["id"]
    card = page.locator('section.ma-trace .ma-trace-step[data-step="5"]')
    card.locator('.ma-trace-action[data-action="decisive"]').click()
    saved = wait_saved_json(task, user, instance, "attribution",
                            {"responsible_agent": None, "decisive_step": 5, "reason": ""})
    assert saved["decisive_step"] == 5
    assert "#6" in page.locator("section.ma-trace .ma-trace-status").text_content()


def test_the_layout_follows_the_orchestration_radio(trace_task, page):
    task, records = trace_task
    user = fresh_user()
    login(page, task.base_url, user)
    wait_view(page)
    section = page.locator("section.ma-trace")
    for answer, layout in (("sequential_pipeline", "lanes"), ("hierarchical_manager", "tree"),
                           ("group_chat", "board")):
        page.locator(f'input[type="radio"][schema="orchestration"][value="{answer}"]').check(force=True)
        page.wait_for_function(f"document.querySelector('section.ma-trace').dataset.layout === '{layout}'",
                               polling=100, timeout=5_000)
        assert section.locator(f'.ma-trace-layout[data-layout="{layout}"]').get_attribute("aria-pressed") == "true"
    # the saved answer lays the trace out when the page opens again
    wait_saved(task, user, records[0]["id"], "orchestration", lambda value: value is not None and "group_chat" in value)
    open_annotate(page, task.base_url)
    wait_view(page)
    page.wait_for_function("document.querySelector('section.ma-trace').dataset.layout === 'board'",
                           polling=100, timeout=5_000)


def layout_of(page) -> str:
    return page.locator("section.ma-trace").get_attribute("data-layout")


def test_an_answer_the_map_does_not_name_returns_to_the_runs_own_layout_and_says_so(trace_task, page):
    task, records = trace_task
    login(page, task.base_url, fresh_user())
    wait_view(page)
    own = layout_of(page)
    page.locator('input[type="radio"][schema="orchestration"][value="hierarchical_manager"]').check(force=True)
    page.wait_for_function("document.querySelector('section.ma-trace').dataset.layout === 'tree'", polling=100,
                           timeout=5_000)
    page.locator('input[type="radio"][schema="orchestration"][value="debate"]').check(force=True)
    status = page.locator("section.ma-trace .ma-trace-status")
    expect(status).to_have_text(f"Layout: {own} (the answer debate sets no layout).")
    assert layout_of(page) == own


def test_auto_opens_a_group_chat_on_the_board_even_where_its_lanes_fit(trace_task, page):
    """The Who&When run (Magentic-One: the turn comes back to the orchestrator after its workers
    spoke) opens on the board in a window wide enough for its three lanes at 280 px each
    (trace_view/layout_cases.json); the next test: a two-agent pipeline gets its lanes, 280 px or
    more each, until the window narrows below that, and gets them back when it widens. A layout the
    annotator chose stays."""
    task, records = trace_task
    page.set_viewport_size({"width": 2400, "height": 900})
    login(page, task.base_url, fresh_user())
    wait_view(page)
    assert current_instance_id(page) == records[0]["id"]
    section = page.locator("section.ma-trace")
    viewport = section.locator(".ma-trace-viewport")
    lanes = int(section.evaluate("el => el.style.getPropertyValue('--ma-lanes')"))
    assert lanes == 3 and viewport.evaluate("el => el.clientWidth") >= lanes * 280
    assert layout_of(page) == "board"


def test_a_two_agent_pipeline_gets_lanes_that_follow_the_width(trace_task, page):
    task, _ = trace_task
    section = page.locator("section.ma-trace")
    login(page, task.base_url, PAIR_USER)
    wait_view(page)
    assert current_instance_id(page) == PAIR["id"]
    assert layout_of(page) == "board"   # 1280 px: the pane beside the forms is under 2 x 280 px
    page.set_viewport_size({"width": 1700, "height": 900})
    page.wait_for_function("document.querySelector('section.ma-trace').dataset.layout === 'lanes'", polling=100,
                           timeout=5_000)
    expect(section.locator(".ma-trace-status")).to_have_text("Layout: lanes (the lanes fit this width).")
    columns = page.evaluate("""() => getComputedStyle(document.querySelector('section.ma-trace .ma-trace-steps'))
                                 .gridTemplateColumns.split(' ').map(parseFloat)""")
    assert len(columns) == 2 and min(columns) >= 280, columns
    page.set_viewport_size({"width": 520, "height": 900})
    page.wait_for_function("document.querySelector('section.ma-trace').dataset.layout === 'board'", polling=100,
                           timeout=5_000)
    expect(section.locator(".ma-trace-status")).to_have_text("Layout: board (the lanes do not fit this width).")
    page.set_viewport_size({"width": 1700, "height": 900})
    page.wait_for_function("document.querySelector('section.ma-trace').dataset.layout === 'lanes'", polling=100,
                           timeout=5_000)
    section.locator('.ma-trace-layout[data-layout="lanes"]').click()   # chosen: stays, whatever the width
    page.set_viewport_size({"width": 520, "height": 900})
    page.wait_for_timeout(300)
    assert layout_of(page) == "lanes"


def unfold_tags(card) -> None:
    """Open a step's folded MAST chips with its toggle (the current step's are open already)."""
    toggle = card.locator(".ma-trace-tags-toggle")
    if toggle.get_attribute("aria-expanded") == "false":
        toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")


def visible_chips(card) -> list[str]:
    return card.locator(".ta-chip").evaluate_all(
        "chips => chips.filter(chip => chip.getClientRects().length).map(chip => chip.dataset.value)")


def open_first_record(trace_task, page):
    """A fresh annotator on the first record (Who&When Hand-Crafted 1), the trace drawn."""
    task, records = trace_task
    user = fresh_user()
    login(page, task.base_url, user)
    wait_view(page)
    return task, records[0], user


def test_mast_chips_fold_unfold_by_keyboard_and_the_current_step_shows_them(trace_task, page):
    """Every step shows its chosen modes and one toggle named with its step; Enter unfolds all modes,
    which are one Tab stop (arrows move among them), Space picks one, Potato saves it, and folded
    again it is the one pressed chip. The current step is unfolded."""
    task, who, user = open_first_record(trace_task, page)
    card = page.locator('section.ma-trace .ma-trace-step[data-step="4"]')
    toggle = card.get_by_role("button", name="MAST failure modes: 0 chosen, on #5", exact=True)
    expect(toggle).to_have_attribute("aria-expanded", "false")
    assert visible_chips(card) == []
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    assert visible_chips(card) == MAST_MODES
    page.keyboard.press("Tab")   # the chips are one Tab stop: the first, then arrows to the third
    assert page.evaluate("document.activeElement.dataset.value") == MAST_MODES[0]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.value") == MAST_MODES[2]
    page.keyboard.press("Space")
    chip = card.locator(f'.ta-chip[data-value="{MAST_MODES[2]}"]')
    expect(chip).to_have_attribute("aria-pressed", "true")
    wait_saved(task, user, who["id"], "mast", lambda value: value is not None and
               json.loads(value)["turns"].get("t4", {}).get("values") == [MAST_MODES[2]])
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    toggle = card.get_by_role("button", name="MAST failure modes: 1 chosen, on #5", exact=True)
    expect(toggle).to_have_attribute("aria-expanded", "false")
    assert visible_chips(card) == [MAST_MODES[2]]
    expect(chip).to_have_attribute("aria-pressed", "true")
    # the page opened again draws the saved mode as the folded step's pressed chip
    open_annotate(page, task.base_url)
    wait_view(page)
    expect(card.get_by_role("button", name="MAST failure modes: 1 chosen, on #5", exact=True)).to_have_attribute(
        "aria-expanded", "false")
    assert visible_chips(card) == [MAST_MODES[2]]
    expect(chip).to_have_attribute("aria-pressed", "true")
    # the current step (the keyboard on it in the trace) shows all its modes; the one it left folds
    first = page.locator('section.ma-trace .ma-trace-step[data-step="0"]')
    first.focus()
    page.keyboard.press("ArrowDown")
    assert_lands_on(page, who, 1)
    assert visible_chips(page.locator("section.ma-trace .ma-trace-step.ma-trace-current")) == MAST_MODES
    page.keyboard.press("ArrowDown")
    assert visible_chips(page.locator('section.ma-trace .ma-trace-step[data-step="1"]')) == []
    assert visible_chips(card) == [MAST_MODES[2]]
    # the pressed chip, unpressed while folded, hides: focus goes to its toggle, Potato saves no mode
    chip.focus()
    page.keyboard.press("Space")
    expect(card.get_by_role("button", name="MAST failure modes: 0 chosen, on #5", exact=True)).to_be_focused()
    assert visible_chips(card) == []
    wait_saved(task, user, who["id"], "mast", lambda value: value is not None and "t4" not in json.loads(value)["turns"])


def tag_steps(page, task, user, instance, tags) -> dict:
    """Tag MAST modes on steps in the trace view as an annotator does; wait until Potato saved them."""
    login(page, task.base_url, user)
    wait_view(page)
    for index, modes in tags.items():
        card = page.locator(f'section.ma-trace .ma-trace-step[data-step="{index}"]')
        unfold_tags(card)
        for mode in modes:
            chip = card.locator(f'.ta-chip[data-value="{mode}"]')
            chip.click()
            page.wait_for_function("(el) => el.getAttribute('aria-pressed') === 'true'", arg=chip.element_handle(),
                                   polling=100, timeout=5_000)
    expected = {f"t{index}": modes for index, modes in tags.items()}

    def all_tagged(value):
        turns = json.loads(value).get("turns", {}) if value else {}
        return {turn: entry.get("values") for turn, entry in turns.items()} == expected

    return json.loads(wait_saved(task, user, instance, "mast", all_tagged))


def test_the_step_set_as_decisive_becomes_current_with_its_mast_chips_unfolded(trace_task, page):
    """The path the page is designed for (docs/trace-view.md, MAST chips): on the step judged decisive, its
    own "Set as decisive step", then the mode on that step: two clicks, both saved by Potato."""
    task, who, user = open_first_record(trace_task, page)
    card = page.locator('section.ma-trace .ma-trace-step[data-step="7"]')
    action = card.get_by_role("button", name="Set as decisive step", exact=True)
    action.scroll_into_view_if_needed()
    assert visible_chips(card) == []   # folded before: not the current step
    in_pane = "button => button.getBoundingClientRect().top - button.closest('.ma-trace-viewport').getBoundingClientRect().top"
    before = action.evaluate(in_pane)
    action.click()
    expect(card).to_have_attribute("aria-current", "step")
    expect(card.locator(".ma-trace-tags-toggle")).to_have_attribute("aria-expanded", "true")
    assert visible_chips(card) == MAST_MODES
    assert abs(action.evaluate(in_pane) - before) <= 1   # the chips opened above it: the button stayed put
    expect(action).to_be_focused()
    card.locator(f'.ta-chip[data-value="{MAST_MODES[3]}"]').click()
    wait_saved_json(task, user, who["id"], "attribution", {"responsible_agent": None, "decisive_step": 7, "reason": ""})
    wait_saved(task, user, who["id"], "mast", lambda value: value is not None and
               json.loads(value)["turns"].get("t7", {}).get("values") == [MAST_MODES[3]])
    assert page.locator("section.ma-trace .ma-trace-step.ma-trace-current").count() == 1


def test_mast_modes_tagged_inline_by_two_annotators_come_out_of_export_and_agreement(trace_task, browser, tmp_path):
    task, records = trace_task
    who = records[0]
    first, second = fresh_user(), fresh_user()
    for user, tags in ((first, {2: MAST_MODES[:2], 9: [MAST_MODES[2]]}), (second, {2: [MAST_MODES[0]], 9: [MAST_MODES[2]]})):
        page = browser.new_page()
        value = tag_steps(page, task, user, who["id"], tags)
        page.close()
        assert value["turns"]["t2"]["agent_id"] == (derive(who).steps[2].agent or "")

    from potato_multiagent.cli import main

    config = task.task_dir / "config.yaml"
    assert main(["export", str(config), "--format", "csv", "--out", str(tmp_path / "out")]) == 0
    rows = pd.read_csv(tmp_path / "out" / "mast.csv")
    steps = derive(who).steps
    mine = rows[rows["user"].isin([first, second])]
    assert sorted(mine[["user", "step", "step_number", "step_agent", "mode"]].values.tolist()) == sorted([
        [first, 2, 3, steps[2].agent, MAST_MODES[0]], [first, 2, 3, steps[2].agent, MAST_MODES[1]],
        [first, 9, 10, steps[9].agent, MAST_MODES[2]],
        [second, 2, 3, steps[2].agent, MAST_MODES[0]], [second, 9, 10, steps[9].agent, MAST_MODES[2]]])

    # agreement over just these two annotators (a copy of the task with their two folders)
    copy = tmp_path / "task"
    shutil.copytree(task.task_dir, copy, ignore=shutil.ignore_patterns("annotation_output"))
    for user in (first, second):
        shutil.copytree(task.task_dir / "annotation_output" / user, copy / "annotation_output" / user)
    from potato_multiagent.analysis import agreement_frame, collect
    from potato_multiagent.task import Task

    frame = agreement_frame(collect(Task(copy / "config.yaml")))
    mast = frame[frame["scheme"] == "mast"].set_index("measure")["value"]
    assert len(steps) == 29
    # 29 steps are units per mode. FM-1.1: both tag #3 -> kappa 1, alpha 1. FM-1.3: one tags #3,
    # the other nothing: po = 28/29 = pe -> kappa 0; alpha = 1 - 57 * 2 / (2 * 1 * 57) = 0.
    # FM-2.3: both tag #10 -> 1. FM-3.2: nobody -> undefined.
    # overall, 116 units, 1 disagreement, 3 and 2 tags: po = 115/116, pe = (3*2 + 113*114) / 116^2
    # -> kappa = 452/568; alpha = 1 - 231 * 2 / (2 * 5 * 227) = 1 - 462/2270
    assert mast[f"{MAST_MODES[0]}: Cohen's kappa"] == pytest.approx(1.0)
    assert mast[f"{MAST_MODES[1]}: Cohen's kappa"] == pytest.approx(0.0)
    assert mast[f"{MAST_MODES[1]}: Krippendorff's alpha (nominal)"] == pytest.approx(0.0)
    assert mast[f"{MAST_MODES[2]}: Krippendorff's alpha (nominal)"] == pytest.approx(1.0)
    assert pd.isna(mast[f"{MAST_MODES[3]}: Krippendorff's alpha (nominal)"])
    assert mast["overall: Cohen's kappa"] == pytest.approx(452 / 568)
    assert mast["overall: Krippendorff's alpha (nominal)"] == pytest.approx(1 - 462 / 2270)


def test_a_long_run_keeps_the_dom_bounded_and_still_reaches_any_step(trace_task, page):
    task, records = trace_task
    login(page, task.base_url, fresh_user())
    go_next(page)
    go_next(page)
    wait_view(page)
    assert page.locator("section.ma-trace li.ma-trace-row").count() <= WINDOW
    # hostile text stays inert and verbatim
    first = page.locator('section.ma-trace .ma-trace-step[data-step="0"]')
    assert first.locator(".ma-trace-agent").text_content() == HOSTILE_AGENT
    assert first.locator(".ma-trace-body").text_content() == HOSTILE_TEXT
    assert page.locator("section.ma-trace img, section.ma-trace b").count() == 0
    assert page.evaluate("window.__pwned === undefined")
    unfold_tags(page.locator('section.ma-trace .ma-trace-step[data-step="2"]'))
    # one step card is in the Tab order (roving tabindex): Tab from the last layout button reaches it
    page.locator('section.ma-trace .ma-trace-layout[data-layout="board"]').focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('.ma-trace-step[data-step=\"0\"]')")
    page.keyboard.press("ArrowDown")
    assert_lands_on(page, records[2], 1)
    page.evaluate("document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: 1500}}))")
    assert_lands_on(page, records[2], 1500)
    assert page.locator("section.ma-trace li.ma-trace-row").count() <= WINDOW
    page.keyboard.press("ArrowDown")
    assert_lands_on(page, records[2], 1501)
    instance = current_instance_id(page)
    page.keyboard.press("ArrowRight")   # the neighbouring lane (A1 -> A2): step 1502, same instance
    assert_lands_on(page, records[2], 1502)
    page.wait_for_timeout(500)
    assert current_instance_id(page) == instance == "long-run"
    # the step unfolded by hand is unfolded again when the window comes back to it; its neighbours folded
    assert page.locator('section.ma-trace .ma-trace-step[data-step="2"]').count() == 0
    page.evaluate("document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: 4}}))")
    assert_lands_on(page, records[2], 4)
    toggles = {index: page.locator(f'section.ma-trace .ma-trace-step[data-step="{index}"] .ma-trace-tags-toggle')
               for index in (1, 2, 3, 4)}
    assert {index: toggle.get_attribute("aria-expanded") for index, toggle in toggles.items()} == {
        1: "false", 2: "true", 3: "false", 4: "true"}


def plugin_static(base_url: str, path: str):
    """(status, text) of one path under our plugin's static URL."""
    try:
        with urllib.request.urlopen(f"{base_url}/plugin-static/multiagent/{path}", timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, ""


BUNDLE_HEADER = re.compile(r"^/\* ==== (\S+) ==== \*/$", re.MULTILINE)


def test_potato_serves_the_page_scripts_as_one_bundle_and_none_of_the_python(trace_task, page):
    """One script and one sheet, of what the config uses: the shared core, the trace view, and the
    three types the config names (the MAST question is Potato's multiselect, not ours)."""
    task, _ = trace_task
    login(page, task.base_url, fresh_user())
    wait_view(page)
    loaded = page.evaluate("""() => performance.getEntriesByType('resource').map((entry) => entry.name)
      .filter((name) => name.includes('/plugin-static/multiagent/'))""")
    paths = sorted(name.split("/plugin-static/multiagent/")[1].split("?")[0] for name in loaded)
    assert len(paths) == 2 and [path.rsplit(".", 1)[1] for path in paths] == ["css", "js"], loaded
    # the core, the trace view and the three types; neither MAST's part of the trace view nor the
    # interaction graph (failure_attribution has no style sheet)
    expected = {"js": ["core", "trace_view", "failure_attribution", "handoff_review", "tool_call_review"],
                "css": ["core", "trace_view", "handoff_review", "tool_call_review"]}
    for path in paths:
        status, text = plugin_static(task.base_url, path)
        assert status == 200, path
        assert BUNDLE_HEADER.findall(text) == expected[path.rsplit(".", 1)[1]], path
    assert page.locator('form[data-schema-name="attribution"][data-ma-ready="true"]').count() == 1
    for hidden in ("web/widget.js", "plugin.py", "types/failure_attribution/scheme.py", "trace_view/display.py",
                   "__init__.py", "types/failure_attribution/template.html", "web/../plugin.py"):
        assert plugin_static(task.base_url, hidden)[0] == 404, hidden


def plugin_static_headers(base_url: str, path: str, cookie: str):
    """The headers Potato answers one of our static files with, to a logged-in annotator's request."""
    request = urllib.request.Request(f"{base_url}/plugin-static/multiagent/{path}", headers={"Cookie": cookie})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers


# Each of our two files on this page: how many bytes its answer took over the network (0: taken from
# the browser's cache without asking the server; a 304 is a few hundred).
OUR_FILES_TRANSFERRED = """() => performance.getEntriesByType('resource')
  .filter((entry) => entry.name.includes('/plugin-static/multiagent/')).map((entry) => entry.transferSize)"""


def test_the_bundle_is_kept_by_the_browser_and_not_asked_for_again(trace_task, page):
    """Our two files are named by their content, so they are answered as Potato answers its own hashed
    files: immutable, without the session cookie (served.serve_forever); the next page takes both
    from the browser's cache without a request (before: two 304s per page)."""
    task, _ = trace_task
    login(page, task.base_url, fresh_user())
    wait_view(page)
    cookie = "; ".join(f"{item['name']}={item['value']}" for item in page.context.cookies())
    paths = [name.split("/plugin-static/multiagent/")[1] for name in page.evaluate(
        "() => performance.getEntriesByType('resource').map((entry) => entry.name)"
        ".filter((name) => name.includes('/plugin-static/multiagent/'))")]
    assert len(paths) == 2, paths
    for path in paths:
        headers = plugin_static_headers(task.base_url, path, cookie)
        assert headers["Cache-Control"] == "public, max-age=31536000, immutable", path
        assert headers.get_all("Set-Cookie") is None and "cookie" not in (headers.get("Vary") or "").lower(), path
    page.goto(f"{task.base_url}/annotate")
    wait_view(page)
    assert page.evaluate(OUR_FILES_TRANSFERRED) == [0, 0]


AXE_SCRIPT = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


def test_axe_finds_no_serious_violation_in_the_trace_view(trace_task, page):
    task, _ = trace_task
    if not AXE_SCRIPT.is_file():
        pytest.skip(f"{AXE_SCRIPT} is missing: run `bash scripts/setup.sh`")
    login(page, task.base_url, fresh_user())
    wait_view(page)
    # folded tags everywhere, one step's unfolded, a chosen mode pressed on a folded step, and the
    # current step's (after a link) unfolded
    step3 = page.locator('section.ma-trace .ma-trace-step[data-step="3"]')
    unfold_tags(step3)
    step3.locator('.ta-chip').first.click()
    step5 = page.locator('section.ma-trace .ma-trace-step[data-step="5"]')
    unfold_tags(step5)
    step5.locator('.ta-chip').first.click()
    step5.locator(".ma-trace-tags-toggle").click()
    expect(step5.locator(".ma-trace-tags-toggle")).to_have_attribute("aria-expanded", "false")
    page.locator("[data-ma-step-link]").first.click()
    page.add_script_tag(path=str(AXE_SCRIPT))
    violations = page.evaluate("""async () => {
        const result = await axe.run(document.querySelector('section.ma-trace'));
        return result.violations.map(v => ({id: v.id, impact: v.impact,
          targets: v.nodes.map(n => n.target.join(' '))}));
    }""")
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == [], serious
    # a named landmark, and a live region for what links and actions did
    assert page.get_by_role("region", name="Run").count() == 1
    assert page.locator("section.ma-trace [role=status][aria-live=polite]").count() == 1


def test_a_delegating_run_opens_in_the_tree_with_its_threads_nested(trace_task, page):
    task, records = trace_task
    threaded = records[3]
    login(page, task.base_url, fresh_user())
    for _ in range(3):
        go_next(page)
    wait_view(page)
    section = page.locator("section.ma-trace")
    assert section.get_attribute("data-layout") == "tree"   # auto: the run has threads
    derivation = derive(threaded)
    for step in derivation.steps:
        row = section.locator(f'li.ma-trace-row[data-step="{step.index}"]')
        depth = row.evaluate("(el) => el.style.getPropertyValue('--ma-depth')")
        assert depth == ("1" if step.thread else "0"), step.index
    marks = section.locator(".ma-trace-handoff").all_text_contents()
    assert [m for m in marks if "Delegation" in m] == [
        f"\u21c4 Delegation: {h['from']} \u2192 {h['to']} (from #{h['from_step'] + 1})"
        for h in derivation.handoffs if h["kind"] == "delegation"]


SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.mark.skipif(os.environ.get("POTATO_MA_SCREENSHOTS") != "1",
                    reason="writes docs/screenshots/trace-view-*.png: set POTATO_MA_SCREENSHOTS=1")
def test_screenshots_of_the_three_layouts(trace_task, browser):
    task, _ = trace_task
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    login(page, task.base_url, fresh_user())
    wait_view(page)
    section = page.locator("section.ma-trace")
    for layout in ("lanes", "board"):   # the Who&When run
        # lanes at 1920 px, where the pane beside the form gives its three lanes 280 px each
        page.set_viewport_size({"width": 1920 if layout == "lanes" else 1400, "height": 900})
        section.locator(f'.ma-trace-layout[data-layout="{layout}"]').click()
        page.wait_for_function(f"document.querySelector('section.ma-trace').dataset.layout === '{layout}'",
                               polling=100)
        if layout == "lanes":
            expect(section).to_have_attribute("data-lanes-fit", "true")
            page.locator('form[data-schema-name="handoffs"] [data-ma="step-link"]').nth(2).click()
            section.scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"trace-view-{layout}.png"))
    for _ in range(3):   # the OpenAI Agents run with delegated threads opens in the tree
        go_next(page)
    wait_view(page)
    page.locator('section.ma-trace li.ma-trace-row[data-step="4"] .ma-trace-step').scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "trace-view-tree.png"))
    page.close()


# -- handoff review: the evidence in the card, and "Open handoff" from the trace (issue 15 item 3) --


def handoff_form(page):
    form = page.locator('form[data-schema-name="handoffs"]')
    page.wait_for_function("document.querySelector('form[data-schema-name=\"handoffs\"]')"
                           ".getAttribute('data-ma-ready') === 'true'", polling=100, timeout=15_000)
    return form


def addressed_handoff(record: dict):
    """The first Orchestrator -> WebSurfer handoff whose giver's last message is not the instruction."""
    derivation = derive(record)
    for handoff in derivation.handoffs:
        instruction = derivation.steps[handoff["from_step"] - 1]
        if (handoff["from"], handoff["to"]) == ("Orchestrator", "WebSurfer") and instruction.to == "WebSurfer":
            return derivation, handoff, instruction
    raise AssertionError("the Hand-Crafted run has no Orchestrator -> WebSurfer handoff after a thought")


def test_a_magentic_one_handoff_card_quotes_the_instruction_addressed_to_the_receiver(trace_task, page):
    task, records = trace_task
    login(page, task.base_url, fresh_user())
    wait_view(page)
    derivation, handoff, instruction = addressed_handoff(records[0])
    thought = derivation.steps[handoff["from_step"]]
    assert thought.text.startswith("Next speaker WebSurfer")   # what the card used to quote alone
    card = handoff_form(page).locator(f'[data-ma-handoff="{handoff["index"]}"]')
    open_every_handoff_card(page)
    part = card.locator('.ma-hr-excerpt[data-ma-part="instruction"]')
    assert part.locator(".ma-hr-excerpt-head").text_content() == \
        f"Instruction to WebSurfer, #{instruction.index + 1} \u00B7 Orchestrator"
    shown = part.locator(".ma-hr-excerpt-text").text_content()
    assert shown.rstrip("\u2026") and instruction.text.startswith(shown.rstrip("\u2026"))
    assert "Please" in shown
    part.locator('button[data-ma-action="expand"]').click()
    assert part.locator(".ma-hr-excerpt-full").text_content() == instruction.text
    # the giver's last message and the receiver's first follow, each with its #N link
    heads = card.locator(".ma-hr-excerpt-head").all_text_contents()
    assert heads[1:] == [f"Last message before, #{handoff['from_step'] + 1} \u00B7 Orchestrator",
                         f"First message after, #{handoff['step'] + 1} \u00B7 WebSurfer"]
    part.locator('[data-ma="step-link"]').click()
    assert_lands_on(page, records[0], instruction.index)


def test_open_handoff_in_the_trace_focuses_the_card_of_the_handoff_received_there(trace_task, page):
    task, records = trace_task
    login(page, task.base_url, fresh_user())
    wait_view(page)
    handoff_form(page)
    _, handoff, _ = addressed_handoff(records[0])
    step = page.locator(f'section.ma-trace .ma-trace-step[data-step="{handoff["step"]}"]')
    step.locator('.ma-trace-action[data-action="open-handoff"]').click()
    page.wait_for_function(f"document.activeElement.getAttribute('data-ma-handoff') === '{handoff['index']}'",
                           polling=100, timeout=5_000)
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == \
        f"Handoff {handoff['index'] + 1}: Orchestrator to WebSurfer"


def more_widgets_config() -> dict:
    """The trace view beside the graph and emergent behaviour (their #N links; scorecard milestones
    link through the same ui.stepLink and are tested in test_agent_scorecard.py)."""
    config = task_config()
    config["annotation_task_name"] = TASK_NAME + " (graph, emergent)"
    config["annotation_schemes"] = [
        {"annotation_type": "multiagent.agent_interaction_graph", "name": "graph", "description": "Mark the graph"},
        {"annotation_type": "multiagent.emergent_behavior", "name": "emergent", "description": "Mark behaviours",
         "behaviors": ["role_drift"]}]
    return config


@pytest.fixture(scope="module")
def more_widgets_task(potato_task, tmp_path_factory):
    record = corpus_records()[0]
    source = tmp_path_factory.mktemp("trace-view-more")
    (source / "data").mkdir()
    (source / "data" / "records.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    (source / "config.yaml").write_text(yaml.safe_dump(more_widgets_config(), sort_keys=False), encoding="utf-8")
    return potato_task(source), record


def test_the_graph_and_emergent_links_land_on_their_steps(more_widgets_task, page):
    task, who = more_widgets_task
    login(page, task.base_url, fresh_user())
    wait_view(page)
    steps = derive(who).steps
    graph = page.locator('form[data-schema-name="graph"]')
    surfer = next(step.agent for step in steps if step.agent and step.agent != "Orchestrator")
    graph.get_by_role("button", name=re.compile("^" + re.escape(f"Agent {surfer}") + "(,|$)")).click()
    acted = [step.index for step in steps if step.agent == surfer]
    clicked = click_links(page, who, 'form[data-schema-name="graph"] .ma-aig-details')
    assert clicked >= len(acted) > 0   # each of its steps, and the steps addressed to it
    emergent = page.locator('form[data-schema-name="emergent"]')
    emergent.get_by_role("button", name="Mark turns of role_drift, episode 1", exact=True).click()
    first = steps[acted[0]]
    emergent.get_by_role("button", name=f"Turn {first.index + 1} ({first.agent})", exact=True).click()
    assert click_links(page, who, 'form[data-schema-name="emergent"] .ma-eb-episode-text') == 1


# Keys that reach the document: Potato's page-wide Prev/Next listens there (SPEC §6).
COUNT_ARROWS_AT_DOCUMENT = """() => {
    window.__arrowsAtDocument = [];
    document.addEventListener('keydown', (event) => {
        if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
            const target = event.target;
            window.__arrowsAtDocument.push(event.key + ' on ' + target.tagName + '.' + target.className);
        }
    });
}"""

# Every control of ours a keyboard user can reach: the trace view's and the widgets'.
FOCUSABLE_OF_OURS = """(position) => {
    const all = Array.from(document.querySelectorAll('section.ma-trace, form.multiagent-form'))
        .flatMap((root) => Array.from(root.querySelectorAll(
            'button, a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])')))
        .filter((element) => !element.disabled && element.getClientRects().length);
    if (position === null) { return all.length; }
    const element = all[position];
    if (!element) { return false; }
    element.focus();
    return document.activeElement === element;
}"""


def test_left_and_right_on_every_control_of_ours_leave_the_item_where_it_is(trace_task, page):
    """Potato binds Left/Right to Prev/Next on the whole page; on any button, chip, input or step of
    the trace view and the widgets, in each layout, the keys stay ours and the item stays."""
    task, records = trace_task
    login(page, task.base_url, fresh_user())
    wait_view(page)
    page.evaluate(COUNT_ARROWS_AT_DOCUMENT)
    pressed = 0
    for layout in ("lanes", "tree", "board"):
        page.locator(f'section.ma-trace .ma-trace-layout[data-layout="{layout}"]').click()
        page.wait_for_function(f"document.querySelector('section.ma-trace').dataset.layout === '{layout}'",
                               polling=100, timeout=5_000)
        for position in range(page.evaluate(FOCUSABLE_OF_OURS, None)):
            if page.evaluate(FOCUSABLE_OF_OURS, position):
                page.keyboard.press("ArrowLeft")
                page.keyboard.press("ArrowRight")
                pressed += 1
        assert current_instance_id(page) == records[0]["id"], layout
    assert pressed > 100   # the walk reached the controls, in three layouts
    assert page.evaluate("window.__arrowsAtDocument") == []


def test_skip_the_trace_goes_to_the_questions_and_back_to_the_trace_returns(trace_task, page):
    """A keyboard user need not Tab through a 2,000-step view to reach the questions: the link
    before the view says how long it is and jumps to the first question; the one after it returns."""
    task, records = trace_task
    login(page, task.base_url, fresh_user())
    wait_view(page)
    skip = page.locator('section.ma-trace [data-ma="skip-trace"]')
    expect(skip).to_have_text(f"Skip the trace ({len(derive(records[0]).steps)} steps)")
    assert skip.is_visible()
    skip.focus()
    page.keyboard.press("Enter")
    first_question = page.locator("form.annotation-form").first
    assert page.evaluate("(form) => form.contains(document.activeElement)", first_question.element_handle())
    assert current_instance_id(page) == records[0]["id"]

    page.locator('section.ma-trace [data-ma="back-to-trace"]').focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.querySelector('section.ma-trace .ma-trace-head').contains(document.activeElement)")


FOCUSED_STEP = """() => {
    const active = document.activeElement;
    if (!active || active === document.body) { return 'body'; }
    const row = active.closest('section.ma-trace li.ma-trace-row');
    return row ? Number(row.dataset.step) : (active.closest('section.ma-trace') ? 'view' : 'outside');
}"""


def test_tab_walks_the_steps_past_the_drawn_window_without_losing_focus(trace_task, page):
    """On a 2,000-step run the view draws 40 steps; Tab through its rows moves the window on, the
    focused row is drawn anew, and focus stays on it (it never falls to the page's body)."""
    task, records = trace_task
    login(page, task.base_url, fresh_user())
    wait_view(page)
    go_next(page)
    assert go_next(page) == records[2]["id"]   # the long run
    page.wait_for_function("document.querySelector('section.ma-trace .ma-trace-meta').textContent"
                           ".startsWith('2000 steps')", polling=100, timeout=15_000)
    page.locator("section.ma-trace li.ma-trace-row .ma-trace-step").first.focus()
    reached = []
    for _ in range(400):
        page.keyboard.press("Tab")
        where = page.evaluate(FOCUSED_STEP)
        assert where != "body", f"focus fell to the page's body after step {reached[-1:]}"
        if isinstance(where, int):
            reached.append(where)
        if reached and reached[-1] > WINDOW + 10:
            break
    assert reached[-1] > WINDOW + 10, f"Tab stayed within the first steps: {reached[-5:]}"
    assert reached == sorted(reached)   # step after step, none skipped back
    assert current_instance_id(page) == records[2]["id"]
