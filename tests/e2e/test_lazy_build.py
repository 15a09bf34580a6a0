"""Issue 18 item 1: a widget is built when it comes into view (web/lazy.js), in a real Potato page.

One task: a 60-step seeded run (bench/synth.py) under our trace view, then all seven widgets, the
failure attribution last and required, in a window 360 px high, so the forms below the first few
are far from the screen when the item is shown. The browser's idle time is held (an init script
queues requestIdleCallback's callbacks until the test lets them run, as a busy page would), so
what the page does before idle time is seen; each test then checks what an annotator meets:
a form far below has no widget controls until scrolled to, Tab reaches it, a required one still
blocks Next by name (and does not when its stored value is complete), a trace-view action aimed at
it acts, a stored value is read back unchanged (user_state.json) before and after it is built,
and idle time builds every form. In a wide window (the forms in a scrolling column beside the trace
view) the forms in sight are built when the item is shown, those within the column's reach a frame
later, a form out of the column's reach waits and is built as scrolling the column brings it near,
and the trace view draws its rows once, when the item is shown. A second task has two graph forms on one derivation, both far below: whichever is
built first, each shows a whole drawing described by its own help text.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from bench import synth
from potato_multiagent import derive

from .harness import (annotation_pairs, click_next_expecting_block, current_instance_id, login,
                      returning_user_state, wait_saved_json)

STEPS = 60
RECORDS = [synth.trace_record(STEPS, record_id="lazy-a"), synth.trace_record(STEPS, record_id="lazy-b")]
ATTRIBUTION = "attribution"
ATTRIBUTION_QUESTION = "Which agent caused the failure, and at which step?"
SCHEMES = [
    {"annotation_type": "multiagent.agent_interaction_graph", "name": "graph", "description": "Mark the critical path"},
    {"annotation_type": "multiagent.handoff_review", "name": "handoffs", "description": "Review the handoffs",
     "flags": ["info_loss", "goal_drift"]},
    # The graph again, far below and on a derivation of its own (its options differ), for the prepare test.
    {"annotation_type": "multiagent.agent_interaction_graph", "name": "graph_far", "description": "The graph again",
     "agent_qualifiers": False},
    {"annotation_type": "multiagent.agent_scorecard", "name": "scorecard", "description": "Score the agents",
     "agent_dimensions": ["contribution"], "team_dimensions": ["coordination"]},
    {"annotation_type": "multiagent.tool_contention", "name": "contention", "description": "Label contention",
     "contention_labels": ["deadlock", "benign"]},
    {"annotation_type": "multiagent.emergent_behavior", "name": "emergent", "description": "Mark behaviours",
     "behaviors": ["groupthink", "role_drift"]},
    {"annotation_type": "multiagent.tool_call_review", "name": "review", "description": "Judge the tool calls",
     "verdict_options": ["correct", "wrong_tool"]},
    {"annotation_type": "multiagent.failure_attribution", "name": ATTRIBUTION, "description": ATTRIBUTION_QUESTION,
     "label_requirement": {"required": True}},
]
NAMES = [scheme["name"] for scheme in SCHEMES]
COMPLETE_ATTRIBUTION = json.dumps({"responsible_agent": RECORDS[0]["steps"][3]["agent"], "decisive_step": 3,
                                   "reason": "kept as saved"})
# A value the widget cannot read (a mark on a step the run does not have): kept as it is until acted on.
STALE_REVIEW = json.dumps([{"index": 0, "step": 999, "position": 0, "id": "gone", "tool": "gone",
                            "verdict": "correct", "notes": ""}])
RETURNING = "lazy-returning"
HOLD_IDLE = """
window.__idleHeld = [];
window.requestIdleCallback = (callback) => { window.__idleHeld.push(callback); return window.__idleHeld.length; };
"""
VIEWPORT = {"width": 1100, "height": 360}
# The graph's layouts (each a `multiagent:graph-layout` measure on the page's timeline) and drawings
# (the class of a drawing's svg element), counted.
COUNT_GRAPH_WORK = """
window.__drawings = 0;
Object.defineProperty(window, '__layouts', {get: () => performance.getEntriesByName('multiagent:graph-layout').length});
const setAttribute = Element.prototype.setAttribute;
Element.prototype.setAttribute = function (name, value) {
  if (name === 'class' && value === 'ma-aig-svg') { window.__drawings += 1; }
  return setAttribute.call(this, name, value);
};
"""


def config_text() -> str:
    return yaml.safe_dump({
        "annotation_task_name": f"potato-ma-e2e lazy build {uuid.uuid4().hex[:8]}",
        "task_dir": ".", "data_files": ["data/records.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "task"}, "output_annotation_dir": "annotation_output",
        "plugins": ["multiagent"], "require_password": False,
        "instance_display": {"fields": [{"key": "steps", "type": "multiagent.trace", "label": "Run"}]},
        "annotation_schemes": SCHEMES,
    }, sort_keys=False, width=float("inf"))


@pytest.fixture(scope="module")
def task(potato_task, tmp_path_factory):
    source = tmp_path_factory.mktemp("lazy-source")
    stored = {RECORDS[0]["id"]: {ATTRIBUTION: COMPLETE_ATTRIBUTION, "review": STALE_REVIEW}}   # read back in a test
    users = {RETURNING: returning_user_state(RETURNING, [record["id"] for record in RECORDS], annotation_pairs(stored))}
    files = {"config.yaml": config_text(),
             "data/records.jsonl": "".join(json.dumps(record) + "\n" for record in RECORDS)}
    return potato_task(source, files=files, users=users)


def fresh_user() -> str:
    return f"lazy-{uuid.uuid4().hex[:8]}"


def form(page, name: str):
    return page.locator(f'form.multiagent-form[data-schema-name="{name}"]')


def open_item(page, task, user: str) -> None:
    """Log in with idle time held, in a short window: the item is shown, nothing built when idle."""
    page.set_viewport_size(VIEWPORT)
    page.add_init_script(HOLD_IDLE)
    login(page, task.base_url, user)
    expect(form(page, NAMES[0])).to_have_attribute("data-ma-ready", "true")


def release_idle(page) -> None:
    """Let the held idle callbacks run (each build may queue the next), until every form is built."""
    page.wait_for_function(
        """() => { window.__idleHeld.splice(0).forEach(
                       (callback) => callback({didTimeout: false, timeRemaining: () => 50}));
                   return [...document.querySelectorAll('form.multiagent-form')].every(
                       (form) => form.getAttribute('data-ma-ready') === 'true'); }""",
        polling=100, timeout=30_000)


def expect_deferred(page, name: str) -> None:
    """Not built: marked deferred and not ready, the body hidden behind its stand-in, no widget control shown."""
    target = form(page, name)
    expect(target).to_have_attribute("data-ma-deferred", "true")
    assert target.get_attribute("data-ma-ready") is None
    expect(target.locator(".ma-body")).to_be_hidden()
    expect(target.locator('[data-ma="deferred"]')).to_be_visible()
    assert target.locator(".ma-body :is(input, select, textarea, button):visible").count() == 0


def expect_built(page, name: str) -> None:
    target = form(page, name)
    expect(target).to_have_attribute("data-ma-ready", "true")
    assert target.get_attribute("data-ma-deferred") is None
    expect(target.locator(".ma-body")).to_be_visible()
    assert target.locator('[data-ma="deferred"]').count() == 0


def test_a_form_far_below_waits_until_scrolled_to(task, page):
    open_item(page, task, fresh_user())
    expect_deferred(page, ATTRIBUTION)
    expect(form(page, ATTRIBUTION).locator('[data-ma="deferred"]')).to_contain_text("drawn when you scroll to it")
    marks = page.evaluate("performance.getEntriesByType('mark').map((mark) => mark.name)")
    assert "multiagent:in-view-ready" in marks
    assert f"multiagent:ready:{ATTRIBUTION}" not in marks
    form(page, ATTRIBUTION).scroll_into_view_if_needed()
    expect_built(page, ATTRIBUTION)
    expect(form(page, ATTRIBUTION).get_by_label("Decisive step")).to_be_visible()


def test_tab_reaches_a_deferred_form_and_lands_on_its_first_control(task, page):
    open_item(page, task, fresh_user())
    # Idle time builds the forms above the last one, one per callback; the last stays deferred.
    page.wait_for_function(
        """(last) => { const waiting = [...document.querySelectorAll('form[data-ma-deferred]')];
                       if (waiting.length === 1 && waiting[0].getAttribute('data-schema-name') === last) return true;
                       const next = window.__idleHeld.shift();
                       if (next) next({didTimeout: false, timeRemaining: () => 50});
                       return false; }""", arg=ATTRIBUTION, polling=100, timeout=30_000)
    # The annotator is on the last control before it (focused without scrolling: scrolling would
    # bring the form near the screen, and it would be built before Tab reaches it).
    page.evaluate("""(name) => {
        const button = document.querySelector(`form[data-schema-name="${name}"] [data-ma="deferred-build"]`);
        const focusable = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
            .filter((el) => el.tabIndex >= 0 && !el.disabled && el.getClientRects().length
                            && (el.compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING));
        focusable[focusable.length - 1].focus({preventScroll: true}); }""", ATTRIBUTION)
    expect_deferred(page, ATTRIBUTION)
    page.keyboard.press("Tab")
    expect_built(page, ATTRIBUTION)
    assert page.evaluate("""(name) => { const active = document.activeElement;
        return !!active && !!active.closest(`form[data-schema-name="${name}"] .ma-body`); }""", ATTRIBUTION)


def test_a_required_deferred_widget_blocks_next_by_name(task, page):
    open_item(page, task, fresh_user())
    expect_deferred(page, ATTRIBUTION)
    # described without being built: Potato's required check reads this on load and on every input
    expect(form(page, ATTRIBUTION)).to_have_attribute("data-incomplete-reason",
                                                      "Choose the responsible agent and the decisive step")
    # Next pressed with the form still deferred (scrolling to the button would build it first)
    click_next_expecting_block(page, ATTRIBUTION_QUESTION, RECORDS[0]["id"], in_place=True)


# Runs in the same task as the runtime's instance-ready pass, right after it (registered later).
CHECK_AFTER_SHOWN = """
window.__reasonSeen = [];
document.addEventListener('DOMContentLoaded', () => {
  document.addEventListener('potato:instance-ready', () => {
    const form = document.querySelector('form[data-schema-name="%s"]');
    window.__reasonSeen.push(form.getAttribute('data-incomplete-reason'));
    window.validateRequiredFields();
    window.__reasonSeen.push(form.getAttribute('data-incomplete-reason'));
  });
});
""" % ATTRIBUTION


def test_a_deferred_form_is_described_after_the_item_is_shown_or_when_potato_checks(task, page):
    """The describe pass of a deferred form waits for a task after the in-view builds, and Potato's
    required check run before then gets its reason all the same (docs/performance.md)."""
    page.add_init_script(CHECK_AFTER_SHOWN)
    open_item(page, task, fresh_user())
    expect_deferred(page, ATTRIBUTION)
    reason = "Choose the responsible agent and the decisive step"
    assert page.evaluate("window.__reasonSeen") == [None, reason]
    expect(form(page, ATTRIBUTION)).to_have_attribute("data-incomplete-reason", reason)
    expect(form(page, ATTRIBUTION).locator(".ma-summary")).not_to_have_text("")


def test_stored_values_of_deferred_forms_are_read_not_rewritten(task, page):
    seeded = {ATTRIBUTION: COMPLETE_ATTRIBUTION, "review": STALE_REVIEW}
    open_item(page, task, RETURNING)
    expect_deferred(page, ATTRIBUTION)
    expect_deferred(page, "review")
    assert form(page, ATTRIBUTION).get_attribute("data-incomplete-reason") is None   # complete as stored
    hidden = "(name) => document.querySelector(`input.multiagent-input[schema=\"${name}\"]`).value"
    assert page.evaluate(hidden, ATTRIBUTION) == COMPLETE_ATTRIBUTION
    assert page.evaluate(hidden, "review") == STALE_REVIEW
    release_idle(page)   # every form built, the unreadable mark listed, nothing stored
    expect(form(page, "review").locator('[data-ma="stale-item"]')).to_have_count(1)
    assert page.evaluate(hidden, ATTRIBUTION) == COMPLETE_ATTRIBUTION
    assert page.evaluate(hidden, "review") == STALE_REVIEW
    page.wait_for_timeout(1500)   # Potato autosaves ~500 ms after a change: none may come
    assert task.saved(RETURNING)[RECORDS[0]["id"]] == seeded
    # complete as stored: Next is not blocked, and what was saved is still what was seeded
    page.click("#next-btn")
    # (while Potato replaces the page the element may be missing for a moment: not moved yet)
    page.wait_for_function("(before) => (document.getElementById('instance_id')?.value ?? before) !== before",
                           arg=RECORDS[0]["id"], timeout=30_000, polling=200)
    assert current_instance_id(page) == RECORDS[1]["id"]
    assert task.saved(RETURNING)[RECORDS[0]["id"]] == seeded


def test_a_trace_action_aimed_at_a_deferred_form_still_acts(task, page):
    user = fresh_user()
    open_item(page, task, user)
    expect_deferred(page, ATTRIBUTION)
    card = page.locator('section.ma-trace .ma-trace-step[data-step="2"]')
    card.get_by_role("button", name="Set as decisive step", exact=True).click()
    expect_built(page, ATTRIBUTION)
    wait_saved_json(task, user, RECORDS[0]["id"], ATTRIBUTION,
                    {"responsible_agent": None, "decisive_step": 2, "reason": ""})


def test_idle_time_builds_every_form(task, page):
    open_item(page, task, fresh_user())
    deferred = page.evaluate("[...document.querySelectorAll('form[data-ma-deferred]')].length")
    assert deferred >= 3, "the page should leave several forms for later in a 360 px window"
    release_idle(page)
    for name in NAMES:
        expect_built(page, name)


@pytest.mark.parametrize("name", NAMES)
def test_a_jump_to_any_widget_at_once_after_load_finds_it_built(task, page, name):
    """Issue 34: no widget is built later than the annotator can reach it. Right after the item is
    shown (idle time held, so nothing is built for later), the page jumps to one form as a link, a
    search or the scroll bar would: it is built, and its first control can be used."""
    open_item(page, task, fresh_user())
    form(page, name).evaluate("(target) => target.scrollIntoView({block: 'start'})")
    expect_built(page, name)
    expect(form(page, name).locator(".ma-body :is(input, select, textarea, button):visible").first).to_be_enabled()


def test_a_graph_far_below_is_laid_out_and_drawn_before_it_is_built_and_shown_from_that_drawing(task, page):
    """The graph's prepare (runtime.js) lays it out and draws it outside the page in a task after
    the first pass, before the item is shown; the build puts that drawing in: one layout and one
    drawing per derivation, whenever the form is built."""
    page.add_init_script(COUNT_GRAPH_WORK)
    open_item(page, task, fresh_user())
    expect_deferred(page, "graph_far")
    page.wait_for_function("window.__layouts >= 2 && window.__drawings >= 2", polling=100, timeout=10_000)
    assert page.evaluate("[window.__layouts, window.__drawings]") == [2, 2], \
        "the graph at the top was shown from its prepared drawing"
    form(page, "graph_far").scroll_into_view_if_needed()
    expect_built(page, "graph_far")
    expect(form(page, "graph_far").locator("svg.ma-aig-svg")).to_be_visible()
    assert form(page, "graph_far").locator(".ma-aig-node").count() >= 2
    assert page.evaluate("[window.__layouts, window.__drawings]") == [2, 2]


# Where Next is on screen, once the page's scrolling has started (a loaded machine can take longer
# than one poll to act on the key) and then stopped.
NEXT_ON_SCREEN = """async () => {
  const pause = () => new Promise((done) => setTimeout(done, 150));
  for (let waited = 0; window.scrollY === 0 && waited < 10000; waited += 150) { await pause(); }
  let last = -1;
  while (window.scrollY !== last) { last = window.scrollY; await pause(); }
  const next = document.getElementById('next-btn').getBoundingClientRect();
  return {top: next.top, bottom: next.bottom, height: window.innerHeight};
}"""


def test_the_end_key_reaches_next_past_forms_not_built_yet(task, page):
    """End scrolls to the end of the page; forms it passes would be built on the way (they come near)
    and grow the page after the scroll had aimed at its old end. Every deferred form is built before
    End scrolls, as before Potato leaves the item, so one press shows Next (idle time held)."""
    open_item(page, task, fresh_user())
    expect_deferred(page, ATTRIBUTION)
    page.mouse.click(5, 5)   # the page's margin: focus on nothing that takes End itself
    page.keyboard.press("End")
    shown = page.evaluate(NEXT_ON_SCREEN)
    assert 0 <= shown["top"] and shown["bottom"] <= shown["height"], shown
    for name in NAMES:
        expect_built(page, name)


# At the in-view mark (the end of the pass that shows the item): each form's top, whether it is built,
# the forms column's box, the window's height.
GEOMETRY_AT_SHOWN = """
window.__atShown = null;
const mark = performance.mark.bind(performance);
performance.mark = function (name) {
  if (name === 'multiagent:in-view-ready') {
    const column = document.getElementById('annotation-forms').getBoundingClientRect();
    window.__atShown = {height: window.innerHeight, column: [column.top, column.bottom],
      columnHeight: document.getElementById('annotation-forms').clientHeight,
      forms: [...document.querySelectorAll('form.multiagent-form')].map((form) => [
        form.getAttribute('data-schema-name'), form.getBoundingClientRect().top, form.hasAttribute('data-ma-ready')])};
  }
  return mark.apply(null, arguments);
};
"""
WIDE = {"width": 1400, "height": 320}   # the handoff review starts out of the column's reach


SIGHT_AND_REACHES = {"width": 1400, "height": 500}   # a form near the column's view out of sight; one between the reaches


def test_beside_the_trace_the_forms_in_sight_are_built_then_those_near_in_the_column(task, page):
    """In a wide window the forms scroll in a column of their own beside the trace view. The pass
    that shows the item builds the forms in sight (what the column shows, on the screen) and marks
    them in view; after the next frame those within one column height of what the column shows
    (and within one window height of the screen) are built, not merely those near the window's
    edge (lazy.js isNear); the rest wait (idle time held)."""
    page.set_viewport_size(SIGHT_AND_REACHES)
    page.add_init_script(HOLD_IDLE + GEOMETRY_AT_SHOWN)
    login(page, task.base_url, fresh_user())
    page.wait_for_function("window.__atShown", polling=100)
    shown = page.evaluate("window.__atShown")
    top, bottom = shown["column"]
    column_reach = bottom + shown["columnHeight"]
    window_reach = 2 * shown["height"]
    assert bottom - top < shown["height"] - 100, "the forms should scroll in a column of their own"
    in_sight = {name: form_top <= min(bottom, shown["height"]) for name, form_top, _ in shown["forms"]}
    near = {name: form_top <= min(column_reach, window_reach) for name, form_top, _ in shown["forms"]}
    assert {name: ready for name, _, ready in shown["forms"]} == in_sight
    assert any(near[name] and not in_sight[name] for name in near), f"no form near but out of sight here: {shown}"
    assert any(column_reach < form_top <= window_reach for _, form_top, _ in shown["forms"]), \
        f"no form lies between the column's reach and the window's here: {shown}"
    for name in NAMES:
        if near[name]:
            expect_built(page, name)
    for name in NAMES:
        if not near[name]:
            expect_deferred(page, name)


# Scroll the forms column until the handoff review's top is half a column height below what the
# column shows (near, not seen); its geometry before and after.
SCROLL_COLUMN_NEAR = """() => {
  const column = document.getElementById('annotation-forms');
  const form = document.querySelector('form[data-schema-name="handoffs"]');
  const before = {top: form.getBoundingClientRect().top, bottom: column.getBoundingClientRect().bottom,
                  height: column.clientHeight};
  column.scrollTop += before.top - (before.bottom + before.height / 2);
  return {before, top: form.getBoundingClientRect().top, bottom: column.getBoundingClientRect().bottom,
          height: column.clientHeight};
}"""


def test_beside_the_trace_a_form_is_built_as_it_comes_near_in_the_forms_column(task, page):
    """Scrolling the forms column builds a form when it comes within one column height of what the
    column shows, before it shows (an observer on the column; the window's sees a form in the
    column only once it shows there), with idle time held."""
    page.set_viewport_size(WIDE)
    page.add_init_script(HOLD_IDLE)
    login(page, task.base_url, fresh_user())
    expect(form(page, NAMES[0])).to_have_attribute("data-ma-ready", "true")
    expect_deferred(page, "handoffs")
    moved = page.evaluate(SCROLL_COLUMN_NEAR)
    assert moved["before"]["top"] > moved["before"]["bottom"] + moved["before"]["height"], moved
    assert moved["bottom"] < moved["top"] <= moved["bottom"] + moved["height"], moved
    expect(form(page, "handoffs")).to_have_attribute("data-ma-ready", "true")
    assert form(page, "handoffs").evaluate("(form) => form.getBoundingClientRect().top") > \
        page.evaluate("document.getElementById('annotation-forms').getBoundingClientRect().bottom")


# When Potato shows the item (its instance-ready, seen first): trace rows drawn so far, the page's layout class.
TRACE_AT_SHOWN = """
window.__traceAtShown = null;
document.addEventListener('potato:instance-ready', () => {
  window.__traceAtShown = {rows: document.querySelectorAll('section.ma-trace li.ma-trace-row').length,
                           layout: document.documentElement.classList.contains('ma-has-trace')};
}, true);
"""


def test_the_trace_view_draws_its_rows_once_when_potato_shows_the_item(task, page):
    """Potato hides the item until instance-ready: the trace view draws its rows then, not before as
    well; the page's side-by-side layout is set from DOMContentLoaded, so the forms' build near the
    screen measures in it (web/trace_view.js markPage)."""
    page.set_viewport_size(WIDE)
    page.add_init_script(TRACE_AT_SHOWN)
    login(page, task.base_url, fresh_user())
    expect(page.locator("section.ma-trace li.ma-trace-row").first).to_be_visible()
    assert page.evaluate("window.__traceAtShown") == {"rows": 0, "layout": True}


# The trace view's first drawing, seen in the microtask after it (a MutationObserver): how many rows,
# whether they fill the viewport, and, asked for at once, step #31 (not drawn yet) shown and focused.
TRACE_FIRST_DRAWING = """
window.__traceFirst = null;
document.addEventListener('DOMContentLoaded', () => {
  const section = document.querySelector('section.ma-trace');
  const observer = new MutationObserver(() => {
    const rows = section.querySelectorAll('li.ma-trace-row');
    if (!rows.length || window.__traceFirst) { return; }
    observer.disconnect();
    const viewport = section.querySelector('.ma-trace-viewport').getBoundingClientRect();
    window.__traceFirst = {rows: rows.length, filled: rows[rows.length - 1].getBoundingClientRect().bottom >= viewport.bottom,
                           marked: performance.getEntriesByName('multiagent:trace-in-view').length};
    document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: 30}}));
    window.__traceFirst.shown = document.activeElement.closest('li.ma-trace-row')?.getAttribute('data-step') ?? null;
  });
  observer.observe(section, {childList: true, subtree: true});
});
"""
WINDOW = 40   # web/trace_view.js: the steps the view keeps in the DOM


@pytest.mark.parametrize("viewport", [WIDE, VIEWPORT], ids=["beside the forms", "above the forms"])
def test_the_trace_view_draws_the_rows_in_sight_first_then_the_rest_of_its_window(task, page, viewport):
    """When the item is shown the view draws the rows its viewport can show (they fill it) and sets
    its in-view mark; the rest of its window follows after the next frame; a step not drawn yet is
    drawn when asked for, at once."""
    page.set_viewport_size(viewport)
    page.add_init_script(TRACE_FIRST_DRAWING)
    login(page, task.base_url, fresh_user())
    expect(page.locator("section.ma-trace li.ma-trace-row")).to_have_count(WINDOW)
    first = page.evaluate("window.__traceFirst")
    assert first["rows"] < WINDOW and first["filled"] and first["marked"] == 1, first
    assert first["shown"] == "30", first
    assert page.evaluate("document.activeElement.closest('li.ma-trace-row').getAttribute('data-step')") == "30"


# Two graph forms on one derivation, both far below: prepare makes one drawing, for the first of them.
TWIN_GRAPH = {"annotation_type": "multiagent.agent_interaction_graph", "description": "The graph, twice"}
TWIN_SCHEMES = [scheme for scheme in SCHEMES if scheme["name"] not in ("graph", "graph_far")] + [
    {**TWIN_GRAPH, "name": "graph_first"}, {**TWIN_GRAPH, "name": "graph_second"}]


@pytest.fixture(scope="module")
def twins_task(potato_task, tmp_path_factory):
    config = yaml.safe_load(config_text())
    config["annotation_task_name"] = f"potato-ma-e2e lazy twin graphs {uuid.uuid4().hex[:8]}"
    config["annotation_schemes"] = TWIN_SCHEMES
    files = {"config.yaml": yaml.safe_dump(config, sort_keys=False, width=float("inf")),
             "data/records.jsonl": "".join(json.dumps(record) + "\n" for record in RECORDS)}
    return potato_task(tmp_path_factory.mktemp("lazy-twins-source"), files=files)


def build_by_focus(page, name: str) -> None:
    """Tab's way in (its stand-in's button takes focus), without scrolling the other forms near."""
    form(page, name).locator('[data-ma="deferred-build"]').evaluate("(button) => button.focus({preventScroll: true})")
    expect_built(page, name)


def test_two_graphs_on_one_derivation_each_draw_their_own_whichever_is_built_first(twins_task, page):
    """prepare draws the derivation once, for the first graph form; the second, built first, draws its
    own (its description its own help, not the first's), and the first then shows the prepared
    drawing: one layout, two drawings, both whole, and a mark on one stays in that one."""
    agents = derive(RECORDS[0]).agents
    page.add_init_script(COUNT_GRAPH_WORK)
    page.set_viewport_size(VIEWPORT)
    page.add_init_script(HOLD_IDLE)
    user = fresh_user()
    login(page, twins_task.base_url, user)
    expect(form(page, TWIN_SCHEMES[0]["name"])).to_have_attribute("data-ma-ready", "true")
    expect_deferred(page, "graph_first")
    expect_deferred(page, "graph_second")
    page.wait_for_function("window.__layouts >= 1 && window.__drawings >= 1", polling=100, timeout=10_000)
    assert page.evaluate("[window.__layouts, window.__drawings]") == [1, 1]

    build_by_focus(page, "graph_second")
    expect_deferred(page, "graph_first")
    second = form(page, "graph_second").locator("svg.ma-aig-svg")
    expect(second).to_have_attribute("aria-describedby", "graph_second-ma-aig-help")
    expect(second.locator(".ma-aig-node")).to_have_count(len(agents))
    assert page.evaluate("[window.__layouts, window.__drawings]") == [1, 2]

    build_by_focus(page, "graph_first")
    first = form(page, "graph_first").locator("svg.ma-aig-svg")
    expect(first).to_have_attribute("aria-describedby", "graph_first-ma-aig-help")
    expect(first.locator(".ma-aig-node")).to_have_count(len(agents))
    expect(second.locator(".ma-aig-node")).to_have_count(len(agents))
    assert page.evaluate("[window.__layouts, window.__drawings]") == [1, 2]

    form(page, "graph_second").get_by_role("button", name=re.compile(f"^Agent {agents[0]}(,|$)")).click()
    wait_saved_json(twins_task, user, RECORDS[0]["id"], "graph_second",
                    {"critical_nodes": [agents[0]], "edges": {}, "edge_marks": []})
    assert form(page, "graph_first").locator('.ma-aig-node[aria-pressed="true"]').count() == 0
    assert form(page, "graph_first").locator("input.multiagent-input").input_value() == ""
