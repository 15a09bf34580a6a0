"""Nothing an annotator typed or chose is lost (issue 14, items 1 and 2), in a real Potato 2.12.1.

- Flush on leave: text typed into a widget and followed at once by a reload (Potato's own unload
  save is the only save left) or by Next reaches `user_state.json`. One test per widget with a
  text field, parametrized.
- Merge across tabs: two pages of one browser context (one annotator, one session) open the same
  item; tab A marks X and it is saved, then tab B, opened before A's save, marks Y. Both must be
  saved and a reload must show both; tab B says that its view was refreshed. Where both tabs change
  the same cell, the later edit wins and the earlier tab, on coming back into view, shows the
  later value and says so.

Every check reads what Potato wrote on disk. The task is tests/e2e/configs/data-safety.yaml: all
seven widgets on one page, none required, on a record that gives each of them something to mark.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from .harness import (
    fresh_user,
    question_form as form,
    CONFIGS_DIR,
    annotation_pairs,
    returning_user_state,
    current_instance_id,
    login,
    open_annotate,
    opened_handoff_card,
    wait_instance_ready,
    wait_saved,
)

TASK_FILES = {
    "config.yaml": CONFIGS_DIR / "data-safety.yaml",
    "data/data-safety.jsonl": CONFIGS_DIR / "data-safety.jsonl",
}
FIRST_ID = "safety-01"
REFRESHED = re.compile(r"^Refreshed at \d\d:\d\d:\d\d: this question now also shows changes saved in another tab")


@pytest.fixture(scope="module")
def task(potato_task):
    return potato_task("team-evaluation", files=TASK_FILES)


def saved_value(task, user: str, schema: str, instance_id: str = FIRST_ID) -> Any:
    raw = task.saved(user).get(instance_id, {}).get(schema)
    return None if raw is None else json.loads(raw)


# --------------------------------------------------------------------------- flush on leave

# schema -> (what to do before the text field exists, the text field)
TEXT_FIELDS: dict[str, tuple[Callable, str]] = {
    "attribution": (lambda f: None, 'textarea[data-ma-field="reason"]'),
    "handoffs": (lambda f: None, "textarea.ma-hr-note >> nth=0"),
    "tool_calls": (lambda f: None, "textarea.ma-tcr-notes-input >> nth=0"),
    "emergent": (lambda f: f.get_by_role("button", name="Mark turns of collusion, episode 1", exact=True).click(),
                 'textarea[data-ma="note"]'),
    "contention": (lambda f: f.locator('input[data-ma-tc-label][value="deadlock"]').first.check(),
                   'textarea[data-ma-tc-note="0"]'),
}


def type_note(task, user: str, page, schema: str, text: str) -> None:
    """Prepare the widget, then type `text` key by key (each key an `input` event) and return at
    once: the widget's 300 ms typing pause has not passed."""
    prepare, selector = TEXT_FIELDS[schema]
    prepare(form(page, schema))
    if schema == "contention":   # the label is a separate, already-saved edit
        wait_saved_contains(task, user, schema, "deadlock")
    box = form(page, schema).locator(selector)
    box.click()
    box.press_sequentially(text)


def wait_saved_contains(task, user: str, schema: str, text: str, instance_id: str = FIRST_ID) -> str:
    return wait_saved(task, user, instance_id, schema, lambda value: value is not None and text in value)


@pytest.mark.parametrize("schema", sorted(TEXT_FIELDS))
def test_text_typed_then_reloaded_at_once_is_saved(task, page, schema):
    user = fresh_user(f"reload-{schema}")
    login(page, task.base_url, user)
    text = f"typed just before leaving ({schema}) {uuid.uuid4().hex[:6]}"
    type_note(task, user, page, schema, text)
    page.reload()   # no pause: only the unload save can carry the text
    wait_instance_ready(page)
    wait_saved_contains(task, user, schema, text)
    open_annotate(page, task.base_url)   # the beacon may land after the reload was served: look again
    if schema == "emergent":   # the note box shows the episode being marked
        TEXT_FIELDS[schema][0](form(page, schema))
    expect(form(page, schema).locator(TEXT_FIELDS[schema][1])).to_have_value(text)   # and it is shown again


@pytest.mark.parametrize("schema", ["attribution", "handoffs"])
def test_text_typed_then_next_is_saved(task, page, schema):
    user = fresh_user(f"next-{schema}")
    login(page, task.base_url, user)
    text = f"typed then Next ({schema}) {uuid.uuid4().hex[:6]}"
    type_note(task, user, page, schema, text)
    # Next as Potato's keyboard and review-mode paths call it, focus still in the box. (Potato
    # 2.12.1 hides the page when a navigation starts, which blurs the box, so this also passed
    # before the runtime flushed on Next; it guards the path, the reload test above proves the fix.)
    page.evaluate("window.__potatoReady = false; navigateToNext();")
    page.wait_for_function(
        "(first) => window.__potatoReady === true && document.getElementById('instance_id').value !== first",
        arg=FIRST_ID, timeout=15_000)
    wait_saved_contains(task, user, schema, text)


# --------------------------------------------------------------------------- merge across tabs


@dataclass(frozen=True)
class Mark:
    """One annotator action on a widget, and how to see it on screen."""

    do: Callable      # do(form)
    shown: Callable   # shown(form): an expect() that the mark is on screen


def checked(selector: str) -> Mark:
    return Mark(do=lambda f: f.locator(selector).check(), shown=lambda f: expect(f.locator(selector)).to_be_checked())


def pressed(selector: str) -> Mark:
    return Mark(do=lambda f: f.locator(selector).click(),
                shown=lambda f: expect(f.locator(selector)).to_have_attribute("aria-pressed", "true"))


def handoff_quality(card: int, value: int) -> Mark:
    """Quality `value` on the card-th handoff card, opened first (only the card under review is open)."""
    radio = f"input.ma-hr-q[value='{value}']"
    return Mark(do=lambda f: opened_handoff_card(f.locator(".ma-hr-card").nth(card)).locator(radio).check(),
                shown=lambda f: expect(f.locator(".ma-hr-card").nth(card).locator(radio)).to_be_checked())


def graph_node(name: str) -> Mark:
    node = lambda f: f.get_by_role("button", name=re.compile("^" + re.escape(f"Agent {name}") + "(,|$)"))  # noqa: E731
    return Mark(do=lambda f: node(f).click(), shown=lambda f: expect(node(f)).to_have_attribute("aria-pressed", "true"))


def episode_turn(behavior: str, turn: str) -> Mark:
    def do(f):
        f.get_by_role("button", name=f"Mark turns of {behavior}, episode 1", exact=True).click()
        f.get_by_role("button", name=turn, exact=True).click()

    def shown(f):
        f.get_by_role("button", name=f"Mark turns of {behavior}, episode 1", exact=True).click()
        expect(f.get_by_role("button", name=turn, exact=True)).to_have_attribute("aria-pressed", "true")

    return Mark(do=do, shown=shown)


def scores(value) -> dict:
    return {agent: sorted(cells.values()) for agent, cells in (value or {}).get("agents", {}).items() if cells}


# schema -> (tab A's mark, tab B's mark, "A's mark is in the saved value", "B's mark is too")
COMPOUND: dict[str, tuple[Mark, Mark, Callable[[Any], bool], Callable[[Any], bool]]] = {
    "scorecard": (
        checked('input[name="ma-asc-0"][value="3"]'), checked('input[name="ma-asc-3"][value="5"]'),
        lambda v: scores(v).get("Manager") == [3], lambda v: scores(v).get("Coder") == [5]),
    "handoffs": (
        pressed('.ma-hr-flag[data-ma-flag="info_loss"] >> nth=0'), handoff_quality(1, 2),
        lambda v: any("info_loss" in (e.get("flags") or []) for e in v or []),
        lambda v: any(e.get("quality") == 2 for e in v or [])),
    "tool_calls": (
        checked('input[name="ma-tcr-tool_calls-0"][value="0"]'), checked('input[name="ma-tcr-tool_calls-1"][value="1"]'),
        lambda v: len([e for e in v or [] if e.get("verdict")]) >= 1,
        lambda v: len([e for e in v or [] if e.get("verdict")]) == 2),
    "contention": (
        checked('input[data-ma-tc-label][value="deadlock"] >> nth=0'),
        checked('input[data-ma-tc-label][value="benign"] >> nth=1'),
        lambda v: "deadlock" in json.dumps(v), lambda v: "benign" in json.dumps(v)),
    "emergent": (
        episode_turn("collusion", "Turn 2 (Coder)"), episode_turn("groupthink", "Turn 6 (Tester)"),
        lambda v: "collusion" in (v or {}), lambda v: "groupthink" in (v or {})),
    "interaction_graph": (
        graph_node("Manager"), graph_node("Tester"),
        lambda v: "Manager" in (v or {}).get("critical_nodes", []),
        lambda v: "Tester" in (v or {}).get("critical_nodes", [])),
}


def wait_saved_where(task, user: str, schema: str, *predicates: Callable[[Any], bool]) -> Any:
    def ok(raw):
        if raw is None:
            return False
        value = json.loads(raw)
        return all(predicate(value) for predicate in predicates)

    return json.loads(wait_saved(task, user, FIRST_ID, schema, ok))


def two_tabs(task, context, tag: str):
    """Two pages of one browser context, one annotator, both on the first item before any save."""
    user = fresh_user(tag)
    tab_a = context.new_page()
    login(tab_a, task.base_url, user)
    tab_b = context.new_page()
    tab_b.add_init_script("window.__potatoReady = false; document.addEventListener('potato:instance-ready', () => { window.__potatoReady = true; });")
    open_annotate(tab_b, task.base_url)
    assert current_instance_id(tab_a) == current_instance_id(tab_b) == FIRST_ID
    return user, tab_a, tab_b


@pytest.mark.parametrize("schema", sorted(COMPOUND))
def test_two_tabs_marking_different_cells_keep_both(task, context, schema):
    mark_a, mark_b, has_a, has_b = COMPOUND[schema]
    user, tab_a, tab_b = two_tabs(task, context, f"tabs-{schema}")
    mark_a.do(form(tab_a, schema))
    wait_saved_where(task, user, schema, has_a)
    mark_b.do(form(tab_b, schema))        # tab B still shows the item as it was before A's save
    wait_saved_where(task, user, schema, has_a, has_b)
    expect(form(tab_b, schema).locator("[data-ma-sync-notice]")).to_have_text(REFRESHED)
    mark_a.shown(form(tab_b, schema))      # tab B now shows A's mark next to its own
    mark_b.shown(form(tab_b, schema))
    tab_b.reload()
    wait_instance_ready(tab_b)
    mark_a.shown(form(tab_b, schema))
    mark_b.shown(form(tab_b, schema))
    assert has_a(saved_value(task, user, schema)) and has_b(saved_value(task, user, schema))


def test_same_cell_in_two_tabs_the_later_wins_and_the_other_tab_refreshes(task, context):
    schema = "scorecard"
    three = 'input[name="ma-asc-0"][value="3"]'
    five = 'input[name="ma-asc-0"][value="5"]'
    user, tab_a, tab_b = two_tabs(task, context, "same-cell")
    form(tab_a, schema).locator(three).check()
    wait_saved_where(task, user, schema, lambda v: scores(v).get("Manager") == [3])
    form(tab_b, schema).locator(five).check()
    wait_saved_where(task, user, schema, lambda v: scores(v).get("Manager") == [5])
    expect(form(tab_a, schema).locator(three)).to_be_checked()   # A has not looked again yet
    tab_a.evaluate("window.dispatchEvent(new Event('focus'))")   # the annotator comes back to tab A
    expect(form(tab_a, schema).locator(five)).to_be_checked()
    expect(form(tab_a, schema).locator("[data-ma-sync-notice]")).to_have_text(REFRESHED)
    expect(form(tab_a, schema).locator("[data-ma-sync-notice]")).to_have_attribute("role", "status")
    assert scores(saved_value(task, user, schema)).get("Manager") == [5]


# --------------------------------------------------------------------------- range messages (item 5)

TAMPERED_USER = f"tampered-{uuid.uuid4().hex[:8]}"
TAMPERED_SCORECARD = {"agents": {"Manager": {"contribution": 99}}, "team": {}, "milestones": {}}
AT_MOST_FIVE = "agents.Manager.contribution: should be at most 5, got 99"


def test_a_tampered_score_is_reported_against_the_configured_scale(potato_task, page):
    """99 on the default 1-5 scale: the browser and `check` both say "at most 5" (not the 10 of
    the schema), in the same words."""
    state = returning_user_state(TAMPERED_USER, [FIRST_ID, "pipeline-07"],
                                 annotation_pairs({FIRST_ID: {"scorecard": json.dumps(TAMPERED_SCORECARD)}}))
    task = potato_task("team-evaluation", files=TASK_FILES, users={TAMPERED_USER: state})
    login(page, task.base_url, TAMPERED_USER)
    expect(form(page, "scorecard").locator(".ma-notices")).to_contain_text(AT_MOST_FIVE)
    script = Path(sys.executable).with_name("potato-multiagent")
    result = subprocess.run([str(script), "check", str(task.task_dir / "config.yaml")],
                            capture_output=True, text=True, timeout=120)
    assert AT_MOST_FIVE in result.stdout, result.stdout + result.stderr
    assert "at most 10" not in result.stdout + page.content()
