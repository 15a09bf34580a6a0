"""A scripted annotator journey (issue 15 "Done when") on three real Who&When Hand-Crafted runs.

The journey is `bench/journey.py`'s, on this tree's page (our trace view with MAST chips on each
step, failure attribution, handoff review, the interaction graph): the gold agent and decisive step
(typed as "#N" in the step search), the widget's link to that step, one MAST mode tagged on it in
the trace, every handoff marked fine in bulk, Next. The same script measures the page of commit
70e5d8f (`python -m bench.journey --checkout PATH`; counting: docs/performance.md). A
second test walks the first run the other way (`--path trace`): the decisive step taken with the
step's own action in the trace, the mode tagged on that step.

The test asserts only what must hold: each answer reaches Potato's saved state (the journey waits
for it), the chosen step's text is shown in the widget, the widget's link lands the trace view on
that step, and at 1,400 px the page is no taller than its laid-out content (the trace and the form
scroll in their own panes). It prints the actions and heights (run with -s); it asserts no figure
and no timing.
"""

from __future__ import annotations

import json
import uuid

import pytest
from playwright.sync_api import expect

from bench import journey
from potato_multiagent import derive

from .harness import login


@pytest.fixture(scope="module")
def journey_task(potato_task, tmp_path_factory):
    try:
        runs = journey.journey_runs()
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
    source = journey.write_task(tmp_path_factory.mktemp("journey-source") / "task", "trace-view", runs)
    return potato_task(source), runs


def what_must_hold(page, run: journey.Run) -> None:
    form = page.locator('form[data-schema-name="attribution"]')
    step = derive(run.record).steps[run.step]
    first_line = next((line for line in step.text.splitlines() if line.strip()), "")
    expect(form.locator(".ma-fa-chosen .ma-fa-chosen-text").first).to_contain_text(first_line.strip()[:60])
    current = page.locator("section.ma-trace .ma-trace-step.ma-trace-current")
    expect(current).to_have_count(1)
    expect(current.locator(".ma-trace-num")).to_have_text(f"#{run.step + 1}")
    chip = current.locator(f'.ta-chip[data-value="{run.mode}"]')
    expect(chip).to_have_attribute("aria-pressed", "true")
    # screen-reader-only text positioned against the page once stretched it 6,800 px below the panes
    page_height, content_bottom = page.evaluate(
        "[document.documentElement.scrollHeight, Math.ceil(document.body.getBoundingClientRect().bottom + scrollY)]")
    assert page_height <= content_bottom + 1, f"the page scrolls {page_height} px over {content_bottom} px of content"


def test_journey_counts_actions_and_page_height(journey_task, page):
    task, runs = journey_task
    user = f"journey-{uuid.uuid4().hex[:8]}"
    page.set_viewport_size({"width": journey.WIDTH, "height": journey.HEIGHT})
    page.add_init_script(journey.SCROLL_PROBE)
    login(page, task.base_url, user)
    figures = journey.walk(page, task, user, runs, journey.TraceViewPage(), check=what_must_hold)
    print("\nannotator journey (Who&When Hand-Crafted; attribution, MAST chips, handoff review, graph, trace view):")
    print(journey.table(figures))
    assert [row.run for row in figures] == [run.record["id"] for run in runs]


def test_journey_from_the_trace_saves_the_decisive_step_and_the_mode(journey_task, page):
    """The path the page is designed for (`bench.journey --path trace`) on the first run: the step's
    own "Set as decisive step" in the trace, then the mode's chip on that same step."""
    task, runs = journey_task
    run = runs[0]
    user = f"journey-trace-{uuid.uuid4().hex[:8]}"
    page.set_viewport_size({"width": journey.WIDTH, "height": journey.HEIGHT})
    page.add_init_script(journey.SCROLL_PROBE)
    login(page, task.base_url, user)
    figures = journey.walk(page, task, user, [run], journey.TraceActionPage())
    print("\nannotator journey from the trace, first run:")
    print(journey.table(figures))
    saved = task.saved(user)[run.record["id"]]
    assert json.loads(saved["attribution"])["decisive_step"] == run.step
    assert json.loads(saved["mast_steps"])["turns"][f"t{run.step}"]["values"] == [run.mode]
