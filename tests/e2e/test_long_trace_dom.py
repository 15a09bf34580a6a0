"""Issue 18 item 1 / issue 14 item 4: every widget's DOM is bounded by what the annotator can see
or page through, not by the trace length.

One task serves two seeded records (bench/synth.py: N steps by 20 agents, N tool calls, N timed
calls on 20 resources) of 5,000 and 50,000 steps to all seven widgets at once. Each widget's
element count must stay under one bound that does not depend on N, and be the same order at both
sizes; then the decisive step of the 50,000-step run is chosen with the keyboard alone and must
reach Potato's user_state.json. No timings here: bench/ measures them.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
from playwright.sync_api import expect

from bench import synth
from bench.pages import ours_page, write_task
from bench.scenarios import SCENARIOS

from .harness import current_instance_id, login, step_picker, step_picker_options, wait_saved_json

SIZES = (5_000, 50_000)
# Elements one widget may build, whatever the trace length. The largest is the interaction graph,
# bounded by its agents and edges (20 agents here), not by steps; the lists are windows and pages.
ELEMENT_BOUND = 5_000
# Two sizes ten times apart may differ only by what the window happens to show.
SAME_ORDER = 1.25
LOAD_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    from .harness import start_potato

    folder = tmp_path_factory.mktemp("long-trace") / "task"
    spec = ours_page("long trace dom", [entry for entry in SCENARIOS if entry.present])
    write_task(folder, spec, synth.trace_record(SIZES[0]), name_prefix=f"potato-ma-e2e-long-{uuid.uuid4().hex[:6]}")
    records = [synth.trace_record(size, record_id=f"long-{size}") for size in SIZES]
    (folder / "data" / "records.jsonl").write_text("".join(json.dumps(record) + "\n" for record in records),
                                                    encoding="utf-8")
    started = start_potato(folder, "config.yaml")
    yield started
    started.stop()


def wait_widgets_ready(page) -> None:
    page.wait_for_function(
        """() => { const forms = document.querySelectorAll('form[data-ma-widget]');
                   return forms.length === 7 && [...forms].every(f => f.getAttribute('data-ma-ready') === 'true'); }""",
        timeout=LOAD_TIMEOUT_MS, polling=200)


def element_counts(page) -> dict[str, int]:
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('form[data-ma-widget]')]
                 .map(f => [f.getAttribute('data-ma-widget'), f.getElementsByTagName('*').length]))""")


def next_instance(page) -> None:
    before = current_instance_id(page)
    page.evaluate("window.__potatoReady = false")
    page.click("#next-btn")
    page.wait_for_function(
        "(before) => window.__potatoReady === true && document.getElementById('instance_id').value !== before",
        arg=before, timeout=LOAD_TIMEOUT_MS, polling=200)


def widget_form(page, widget: str):
    return page.locator(f'form.annotation-form[data-ma-widget="{widget}"]')


def show_whole_timeline(page) -> None:
    """The contention widget's "whole timeline" button: every call of the run in view."""
    contention = widget_form(page, "tool_contention")
    contention.locator('[data-ma-tc-action="show-all"]').click()
    expect(contention.locator('[data-ma-tc="window"]')).to_contain_text("whole timeline")


@pytest.fixture
def counts(task, page):
    """{size: {widget: elements}} for both records as one annotator opens them, plus the
    contention widget with its whole timeline in view ("<size> whole")."""
    page.set_default_timeout(LOAD_TIMEOUT_MS)
    login(page, task.base_url, f"long-{uuid.uuid4().hex[:10]}")
    result = {}
    for position, size in enumerate(SIZES):
        if position:
            next_instance(page)
        assert current_instance_id(page) == f"long-{size}"
        wait_widgets_ready(page)
        result[size] = element_counts(page)
        show_whole_timeline(page)
        result[f"{size} whole"] = element_counts(page)
    print("element counts per widget:", json.dumps(result, indent=1))
    return result


@pytest.mark.e2e
def test_every_widget_builds_a_bounded_dom_whatever_the_length(counts):
    small, large = (counts[size] for size in SIZES)
    assert len(small) == 7 and set(small) == set(large)
    for widget in small:
        assert large[widget] <= ELEMENT_BOUND, f"{widget}: {large[widget]} elements at {SIZES[1]} steps"
        assert large[widget] <= small[widget] * SAME_ORDER + 50, \
            f"{widget} grows with the trace: {small[widget]} elements at {SIZES[0]}, {large[widget]} at {SIZES[1]}"
    whole = [counts[f"{size} whole"]["tool_contention"] for size in SIZES]
    assert max(whole) <= ELEMENT_BOUND and whole[1] <= whole[0] * SAME_ORDER + 50, whole


@pytest.mark.e2e
def test_the_decisive_step_of_a_50000_step_run_is_chosen_by_keyboard_and_saved(task, page):
    user = f"long-kb-{uuid.uuid4().hex[:10]}"
    page.set_default_timeout(LOAD_TIMEOUT_MS)
    login(page, task.base_url, user)
    next_instance(page)
    instance = f"long-{SIZES[1]}"
    assert current_instance_id(page) == instance
    wait_widgets_ready(page)
    form = widget_form(page, "failure_attribution")
    schema = form.get_attribute("data-schema-name")
    box = step_picker(form)
    options = step_picker_options(form)

    box.focus()
    box.press("ArrowDown")                      # opens on #1
    expect(options.first).to_have_attribute("aria-setsize", str(SIZES[1]))
    box.press("End")
    box.press("PageUp")                         # ten rows up from the last
    box.press("ArrowUp")
    active = form.locator(".ma-combo-option.ma-combo-active")
    expect(active).to_have_text(re.compile(rf"^#{SIZES[1] - 11} "))
    assert options.count() <= 40, "the listbox draws a window of options, not every step"
    box.press("Enter")
    wait_saved_json(task, user, instance, schema, {"responsible_agent": None, "decisive_step": SIZES[1] - 12, "reason": ""})

    box.press("ArrowDown")                      # open again, then scroll the list half-way down
    form.locator('[data-ma="step-scroll"]').evaluate("box => { box.scrollTop = box.scrollHeight / 2; }")
    middle = form.locator('[role="option"][aria-posinset="25001"]')
    expect(middle).to_have_text(re.compile(r"^#25001 "))
    assert options.count() <= 40, "scrolling draws the rows in view, not those scrolled past"
    box.press("Escape")
    expect(box).to_have_value(re.compile(rf"^#{SIZES[1] - 11} "))
    box.press("ArrowRight")                     # stays inside the box: no navigation
    assert current_instance_id(page) == instance
    box.fill("#41235")                          # search by number; the exact step comes first
    expect(options.first).to_have_text(re.compile(r"^#41235 "))
    assert options.count() <= 40
    box.press("Enter")
    wait_saved_json(task, user, instance, schema, {"responsible_agent": None, "decisive_step": 41234, "reason": ""})
    expect(box).to_have_value(re.compile(r"^#41235 "))
    expect(form.locator('[data-ma="chosen"]')).to_contain_text("Step #41235")
