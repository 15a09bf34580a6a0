"""The page an annotator lives in fits its window (issue 32): a task `init` writes from real
Who&When runs (a 10-step run of four agents, a 130-step run), served by `potato start`, at
1280x800 and 1920x1080 in Chromium.

- the trace is laid out so that no lane is under 280 px or clipped;
- the interaction graph shows every agent inside its box;
- every score of the agent scorecard (added to init's config by hand, as `init` tells its user)
  is clickable once scrolled into view: the point at its centre is that score, never the sticky
  names' column or header over it;
- each pane (the trace beside the forms) has one scrollbar: Potato's resizable frame around the
  trace view neither caps nor scrolls, so the view's own viewport is the left pane's one scroller.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive

from .harness import current_instance_id, go_next, login, start_potato, wait_saved, wait_saved_json
from .test_init import corpus_folder

pytestmark = pytest.mark.realdata

RUNS = ("Algorithm-Generated/11.json", "Hand-Crafted/11.json")   # 10 steps, 4 agents; 130 steps, 4 agents
SIZES = [(1280, 800), (1920, 1080)]

SCORECARD = {"annotation_type": "multiagent.agent_scorecard", "name": "scorecard",
             "description": "Score each agent and the team."}

UNCLICKABLE_SCORES = """form => [...form.querySelectorAll('label.ma-asc-option')].filter(score => {
    score.scrollIntoView({block: 'nearest', inline: 'nearest'});
    const box = score.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return !hit || hit.closest('label.ma-asc-option') !== score;
}).map(score => score.closest('[role=radiogroup]').getAttribute('aria-label') + ' ' + score.textContent)"""

SCROLLERS = """pane => [pane, ...pane.querySelectorAll('*')].filter(el => {
    const style = getComputedStyle(el);
    return ['auto', 'scroll'].includes(style.overflowY) && el.scrollHeight > el.clientHeight + 1
        && el.clientHeight > 200;   // a pane, not a tool call's arguments box (12rem, scrolls on its own)
}).map(el => el.className || el.id || el.tagName)"""


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    folder = tmp_path_factory.mktemp("page-fit") / "task"
    sources = [corpus_folder() / "who_and_when" / run for run in RUNS]
    made = subprocess.run([sys.executable, "-m", "potato_multiagent.cli", "init", "--from", "who-and-when", *sources,
                           "-o", folder], capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    config_path = folder / "config.yaml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    [trace] = [field for field in config["instance_display"]["fields"] if field["type"] == "multiagent.trace"]
    assert (trace["layout"], trace["layout_from"]) == ("board", "orchestration")   # both are group chats
    assert "the trace is laid out as board: board for 2 of 2 run(s) (a group chat: the turn comes back to an " \
           "agent after others spoke)" in made.stdout
    config["annotation_schemes"].append(SCORECARD)
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    server = start_potato(folder)
    yield server
    server.stop()


@pytest.fixture(params=SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def sized_page(request, browser):
    width, height = request.param
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    yield page
    context.close()


def check_lanes_chosen_fit(page) -> None:
    """Lanes chosen by the annotator: side by side when each gets 280 px of the pane, else stacked in
    step order, each step the pane's width; never clipped or scrolled sideways."""
    trace = page.locator("section.ma-trace")
    trace.locator('.ma-trace-layout[data-layout="lanes"]').click()
    expect(trace).to_have_attribute("data-layout", "lanes")
    lanes = int(trace.evaluate("el => el.style.getPropertyValue('--ma-lanes')"))
    pane = trace.locator(".ma-trace-viewport").evaluate("el => el.clientWidth")
    widths = trace.evaluate("el => [...el.querySelectorAll('li.ma-trace-row')].map(row => row.getBoundingClientRect().width)")
    if lanes * 280 + (lanes - 1) * 8 <= pane:
        expect(trace).to_have_attribute("data-lanes-fit", "true")
        columns = page.evaluate("""() => getComputedStyle(document.querySelector('section.ma-trace .ma-trace-steps'))
                                     .gridTemplateColumns.split(' ').map(parseFloat)""")
        assert len(columns) == lanes and min(columns) >= 280, columns
    else:
        expect(trace).to_have_attribute("data-lanes-fit", "false")
        expect(trace.locator(".ma-trace-status")).to_have_text(
            f"Layout: lanes (chosen; stacked in step order: {lanes} lanes do not fit this width).")
        assert min(widths) >= min(280, pane - 40) and max(widths) <= pane + 1, (widths, pane)
    assert trace.locator(".ma-trace-viewport").evaluate("el => el.scrollWidth <= el.clientWidth + 1"), "clipped sideways"


def check_the_page_fits(page) -> None:
    page.wait_for_function("document.querySelectorAll('section.ma-trace li.ma-trace-row').length > 0",
                           polling=100, timeout=15_000)
    trace = page.locator("section.ma-trace")
    viewport = trace.locator(".ma-trace-viewport")
    assert trace.get_attribute("data-layout") == "board"   # as init wrote it
    check_lanes_chosen_fit(page)
    trace.locator('.ma-trace-layout[data-layout="board"]').click()
    assert viewport.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), "the trace is clipped sideways"

    graph = page.locator('form.annotation-form[data-schema-name="interaction_graph"]')
    graph.scroll_into_view_if_needed()
    expect(graph).to_have_attribute("data-ma-ready", "true")
    canvas = graph.locator(".ma-aig-canvas").bounding_box()
    nodes = graph.locator("g.ma-aig-node rect.ma-aig-node-box")
    assert nodes.count() >= 4
    for index in range(nodes.count()):
        box = nodes.nth(index).bounding_box()
        assert canvas["x"] - 1 <= box["x"] and box["x"] + box["width"] <= canvas["x"] + canvas["width"] + 1, (index, box)
    assert graph.locator(".ma-aig-canvas").evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    # "Full size" shows the drawing at its natural size (names readable), the box scrolling; and back
    zoom = graph.get_by_role("button", name="Full size")
    zoom.click()
    expect(zoom).to_have_attribute("aria-pressed", "true")
    natural = graph.locator("svg.ma-aig-svg").evaluate("svg => [svg.getBoundingClientRect().width, svg.viewBox.baseVal.width]")
    assert abs(natural[0] - natural[1]) < 1, natural
    zoom.click()
    expect(zoom).to_have_attribute("aria-pressed", "false")

    scorecard = page.locator('form.annotation-form[data-schema-name="scorecard"]')
    expect(scorecard).to_have_attribute("data-ma-ready", "true")
    scores = scorecard.locator("label.ma-asc-option")
    assert scores.count() >= (4 + 1) * 3 * 5   # four agents and the team, three dimensions, 1..5
    assert scorecard.evaluate(UNCLICKABLE_SCORES) == []
    page.evaluate("document.querySelector('#annotation-forms').scrollTop = 0")

    left = page.evaluate(f"({SCROLLERS})(document.querySelector('#main-content > .instance-area'))")
    right = page.evaluate(f"({SCROLLERS})(document.querySelector('#annotation-forms'))")
    assert len(left) <= 1 and len(right) <= 1, (left, right)
    if left:
        assert "ma-trace-viewport" in left[0], left


FORM_HEIGHT = """() => [document.querySelector('form[data-schema-name="handoffs"]').getBoundingClientRect().height,
                       document.querySelector('#annotation-forms').clientHeight]"""


def check_the_handoff_review_is_compact(page, handoffs: int) -> None:
    """The handoffs are reviewed one open card at a time: the first unreviewed card open, every
    other one a line, 20 to a page, the form at most three heights of its pane with the outcome
    answered and nothing reviewed; "Next unreviewed handoff" moves the open card on; after "Mark all
    unreviewed handoffs as fine" every card is a line and the form shorter."""
    page.locator('form[data-schema-name="outcome"] input[type="radio"][value="failure"]').check()
    form = page.locator('form[data-schema-name="handoffs"]')
    form.scroll_into_view_if_needed()
    expect(form).to_have_attribute("data-ma-ready", "true")
    cards = form.locator(".ma-hr-card")
    expect(cards).to_have_count(min(handoffs, 20))
    expect(form.locator(".ma-hr-body:visible")).to_have_count(1)
    expect(cards.first.locator(".ma-hr-body")).to_be_visible()
    tall, pane = page.evaluate(FORM_HEIGHT)
    assert tall <= 3 * pane, (tall, pane)
    form.get_by_role("button", name="Next unreviewed handoff").click()
    expect(cards.nth(1).locator(".ma-hr-body")).to_be_visible()
    expect(cards.first.locator(".ma-hr-body")).to_be_hidden()
    expect(cards.nth(1).get_by_role("button", name="info loss")).to_be_focused()
    form.get_by_role("button", name="Mark all unreviewed handoffs as fine").click()
    expect(form.locator(".ma-hr-body:visible")).to_have_count(0)
    short, _ = page.evaluate(FORM_HEIGHT)
    assert short < tall, (short, tall)


def test_both_runs_fit_the_window(task, sized_page):
    page = sized_page
    login(page, task.base_url, f"fit-{uuid.uuid4().hex[:8]}")
    assert current_instance_id(page) == "Algorithm-Generated-11"
    check_the_page_fits(page)
    check_the_handoff_review_is_compact(page, handoffs=9)
    page.locator('form[data-schema-name="outcome"] input[type="radio"][value="success"]').check()   # required
    go_next(page)
    assert current_instance_id(page) == "Hand-Crafted-11"
    check_the_page_fits(page)
    check_the_handoff_review_is_compact(page, handoffs=59)


def test_chosen_lanes_stack_on_a_narrow_screen_without_a_sideways_scroll(task, browser):
    """At 320 px (WCAG 1.4.10 reflow) the four lanes of the 10-step run, chosen, stack in step order,
    and nothing of the view (its layout buttons included) is wider than the view."""
    context = browser.new_context(viewport={"width": 320, "height": 640})
    try:
        page = context.new_page()
        login(page, task.base_url, f"narrow-{uuid.uuid4().hex[:8]}")
        page.wait_for_function("document.querySelectorAll('section.ma-trace li.ma-trace-row').length > 0",
                               polling=100, timeout=15_000)
        assert page.locator("section.ma-trace").get_attribute("data-layout") == "board"
        check_lanes_chosen_fit(page)
        assert page.locator("section.ma-trace").evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    finally:
        context.close()


def test_show_answer_puts_the_reference_answer_above_the_trace_clearly_marked(tmp_path, browser):
    """`init --show-answer`: the run's reference answer from the dataset (Who&When's ground_truth, kept
    in gold) above the steps, labelled as the dataset's, as inert text (a hostile answer included);
    and the attribution's help, under the step picker, states Who&When's rule."""
    run = corpus_folder() / "who_and_when" / RUNS[0]
    truth = json.loads(run.read_text(encoding="utf-8"))["ground_truth"]
    hostile = tmp_path / "runs" / "Hand-Crafted" / "999.json"
    hostile.parent.mkdir(parents=True)
    hostile_truth = "{{ 7*7 }} </script><b>bold</b> {% if 1 %}x{% endif %}"
    hostile.write_text(json.dumps({**json.loads(run.read_text(encoding="utf-8")), "ground_truth": hostile_truth}),
                       encoding="utf-8")
    made = subprocess.run([sys.executable, "-m", "potato_multiagent.cli", "init", "--from", "who-and-when", run, hostile,
                           "-o", tmp_path / "task", "--show-answer"], capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    server = start_potato(tmp_path / "task")
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        login(page, server.base_url, f"answer-{uuid.uuid4().hex[:8]}")
        trace = page.locator("section.ma-trace")
        answer = trace.locator(".ma-trace-answer")
        expect(answer.locator("dt")).to_have_text("Reference answer (from the dataset)")
        expect(answer.locator("dd")).to_have_text(str(truth))
        assert answer.bounding_box()["y"] < trace.locator(".ma-trace-viewport").bounding_box()["y"]
        page.locator('form[data-schema-name="outcome"] input[type="radio"][value="failure"]').check()
        expect(page.locator('form[data-schema-name="attribution"] .ma-fa-step-help')).to_have_text(
            re.compile(r"^Who&When's rule: .* The agent need not be the one speaking at that step\.$"))
        page.locator('form[data-schema-name="outcome"] input[type="radio"][value="success"]').check()
        go_next(page)
        assert current_instance_id(page) == "Hand-Crafted-999"
        expect(answer.locator("dd")).to_have_text(hostile_truth)
        expect(answer.locator("b")).to_have_count(0)
    finally:
        context.close()
        server.stop()


def test_a_minimal_full_annotation_of_a_who_and_when_run_takes_at_most_twelve_actions(task, page):
    """Outcome, attribution with a reason, a critical path, one handoff reviewed and the rest marked
    fine, one MAST tag, Next, on the page init writes, counted as docs/performance.md counts (a
    click, one; a native select, two; a typed reason, one): at most 12, each value saved as entered."""
    record = json.loads((task.task_dir / "data" / "runs.jsonl").read_text(encoding="utf-8").splitlines()[0])
    derivation = derive(record)
    decisive = 3
    agent = derivation.steps[decisive].agent
    user = f"minimal-{uuid.uuid4().hex[:8]}"
    login(page, task.base_url, user)
    page.wait_for_function("document.querySelectorAll('section.ma-trace li.ma-trace-row').length > 0",
                           polling=100, timeout=15_000)
    actions = 0

    page.locator('form[data-schema-name="outcome"] input[type="radio"][value="failure"]').check()
    actions += 1
    attribution = page.locator('form[data-schema-name="attribution"]')
    attribution.get_by_label("Responsible agent").select_option(agent)
    actions += 2
    step = page.locator(f'section.ma-trace .ma-trace-step[data-step="{decisive}"]')
    step.get_by_role("button", name="Set as decisive step", exact=True).click()
    actions += 1
    attribution.get_by_label("Reason").fill("Gave up on the search too early.")
    actions += 1
    step.get_by_role("button", name="1.3 Step repetition", exact=True).click()   # the step just chosen is unfolded
    actions += 1
    graph = page.locator('form[data-schema-name="interaction_graph"]')
    path = derivation.agents[:2]
    for name in path:
        graph.get_by_role("button", name=re.compile(rf"^Agent {re.escape(name)}\b")).click()
        actions += 1
    handoffs = page.locator('form[data-schema-name="handoffs"]')
    handoffs.locator(".ma-hr-card").first.get_by_role("button", name="info loss").click()
    actions += 1
    handoffs.get_by_role("button", name="Mark all unreviewed handoffs as fine").click()
    actions += 1

    def saved(schema):
        return json.loads(wait_saved(task, user, record["id"], schema, lambda value: value not in (None, "")))

    attributed = wait_saved_json(task, user, record["id"], "attribution",
                                 {"responsible_agent": agent, "decisive_step": decisive,
                                  "reason": "Gave up on the search too early."})
    assert attributed["decisive_step"] == decisive
    assert saved("interaction_graph")["critical_nodes"] == path
    reviewed = wait_saved(task, user, record["id"], "handoffs",
                          lambda value: value is not None and len(json.loads(value)) == len(derivation.handoffs))
    assert [entry["flags"] for entry in json.loads(reviewed)].count(["info_loss"]) == 1
    tags = json.loads(wait_saved(task, user, record["id"], "mast", lambda value: value is not None and "1.3" in value))
    assert [(tag["step"], tag["mode"]) for tag in tags["steps"]] == [(decisive, "1.3")]
    go_next(page)
    actions += 1
    assert current_instance_id(page) != record["id"]
    assert actions <= 12, actions
