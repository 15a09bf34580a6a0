"""A scripted annotator journey (issue 15 "Done when") on three real Who&When Hand-Crafted runs.

The task pairs failure attribution, handoff review and the interaction graph with the trace view,
as a team auditing Magentic-One runs would set it up. A scripted annotator attributes each run
(agent, then the decisive step typed as "#N" in the step search) and reviews its handoffs (the
bulk "fine" button), then goes on. The test counts the actions it took (clicks and key presses,
each typed character one key) and measures the page height at 1,400 px width, and prints them
(run with -s). It asserts only what must hold: the chosen step's text is shown in the widget, and
the widget's link to it lands the trace view on that step. No timing.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive
from potato_multiagent.convert import convert_inputs

from .harness import current_instance_id, go_next, login, step_picker_options, wait_saved_json

TASK_NAME = f"e2e annotator journey {uuid.uuid4().hex[:8]}"
CORPUS = Path(os.environ.get("POTATO_MA_CORPUS") or "/work/shared/corpus")
RUNS = ["1", "10", "11"]   # 29, 44 and 130 steps
WIDTH = 1400


class Counter:
    """Counts what the annotator does: one per click, one per key (a typed text counts its characters)."""

    def __init__(self, page):
        self.page = page
        self.actions = 0

    def click(self, locator) -> None:
        locator.click()
        self.actions += 1

    def select(self, locator, option: str) -> None:
        locator.select_option(option)   # open the select and pick: one click for a mouse user, counted as 2
        self.actions += 2

    def type(self, locator, text: str) -> None:
        locator.press_sequentially(text)
        self.actions += len(text)

    def press(self, locator, key: str) -> None:
        locator.press(key)
        self.actions += 1


def records() -> list[dict]:
    folder = CORPUS / "who_and_when" / "Hand-Crafted"
    if not folder.is_dir():
        pytest.skip(f"real-data corpus not found at {folder}; set POTATO_MA_CORPUS")
    converted = convert_inputs("who-and-when", [folder / f"{run}.json" for run in RUNS]).records
    golds = [json.loads((folder / f"{run}.json").read_text(encoding="utf-8")) for run in RUNS]
    return [(record, gold["mistake_agent"], int(gold["mistake_step"])) for record, gold in zip(converted, golds)]


def task_config() -> dict:
    return {
        "annotation_task_name": TASK_NAME, "task_dir": ".", "data_files": ["data/records.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "id"}, "output_annotation_dir": "annotation_output",
        "plugins": ["multiagent"], "require_password": False,
        "instance_display": {"fields": [{"key": "steps", "type": "multiagent.trace", "label": "Run",
                                         "display_options": {"resizable": False}}]},
        "annotation_schemes": [
            {"annotation_type": "multiagent.failure_attribution", "name": "attribution",
             "description": "Which agent caused the failure, and at which step?"},
            {"annotation_type": "multiagent.handoff_review", "name": "handoffs", "description": "Review handoffs"},
            {"annotation_type": "multiagent.agent_interaction_graph", "name": "graph",
             "description": "The interaction graph"},
        ],
    }


@pytest.fixture(scope="module")
def journey_task(potato_task, tmp_path_factory):
    runs = records()
    source = tmp_path_factory.mktemp("journey-source")
    (source / "data").mkdir()
    (source / "data" / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r, _, _ in runs),
                                                   encoding="utf-8")
    (source / "config.yaml").write_text(yaml.safe_dump(task_config(), sort_keys=False), encoding="utf-8")
    return potato_task(source), runs


def wait_ready(page) -> None:
    page.wait_for_function(
        "document.querySelectorAll('section.ma-trace li.ma-trace-row').length > 0 && "
        "document.querySelectorAll('form.multiagent-form[data-ma-ready=\"true\"]').length === 3",
        polling=100, timeout=20_000)


def attribute(counter: Counter, form, agent: str, step: int) -> None:
    """Agent from the select; step typed as "#N" in the search box, then Enter."""
    counter.select(form.get_by_label("Responsible agent"), agent)
    box = form.get_by_role("combobox", name="Decisive step")
    counter.click(box)
    counter.type(box, f"#{step + 1}")
    expect(step_picker_options(form).first).to_have_text(re.compile(rf"^#{step + 1}(?!\d)"))
    counter.press(box, "Enter")


def test_journey_counts_actions_and_page_height(journey_task, page):
    task, runs = journey_task
    user = f"journey-{uuid.uuid4().hex[:8]}"
    page.set_viewport_size({"width": WIDTH, "height": 900})
    login(page, task.base_url, user)
    figures = []
    for position, (record, gold_agent, gold_step) in enumerate(runs):
        wait_ready(page)
        assert current_instance_id(page) == record["id"]
        derivation = derive(record)
        height = page.evaluate("document.documentElement.scrollHeight")
        counter = Counter(page)
        form = page.locator('form[data-schema-name="attribution"]')
        attribute(counter, form, gold_agent, gold_step)
        wait_saved_json(task, user, record["id"], "attribution",
                        {"responsible_agent": gold_agent, "decisive_step": gold_step, "reason": ""})
        # the chosen step's text is shown inside the widget
        chosen = form.locator(".ma-fa-chosen .ma-fa-chosen-text").first
        first_line = next((line for line in derivation.steps[gold_step].text.splitlines() if line.strip()), "")
        expect(chosen).to_contain_text(first_line.strip()[:60])
        # its link lands the trace view on that step
        counter.click(form.locator(".ma-fa-chosen").get_by_role("button", name=f"Show #{gold_step + 1} in the trace"))
        current = page.locator("section.ma-trace .ma-trace-step.ma-trace-current")
        expect(current).to_have_count(1)
        expect(current.locator(".ma-trace-num")).to_have_text(f"#{gold_step + 1}")
        handoffs = page.locator('form[data-schema-name="handoffs"]')
        bulk = handoffs.get_by_role("button", name="Mark all unreviewed handoffs as fine")
        if len(derivation.handoffs):
            counter.click(bulk)
            page.wait_for_function("!document.querySelector('form[data-schema-name=\"handoffs\"]')"
                                   ".hasAttribute('data-incomplete-reason')", polling=100, timeout=10_000)
        figures.append((record["id"], len(derivation.steps), len(derivation.handoffs), counter.actions, height))
        if position + 1 < len(runs):
            go_next(page)
            counter.actions += 1
            figures[-1] = figures[-1][:3] + (counter.actions,) + figures[-1][4:]
    print("\nannotator journey (Who&When Hand-Crafted, attribution + handoff review + graph + trace view):")
    print(f"{'run':<22}{'steps':>6}{'handoffs':>10}{'actions':>9}{'page px @1400':>15}")
    for run_id, steps, handoff_count, actions, height in figures:
        print(f"{run_id:<22}{steps:>6}{handoff_count:>10}{actions:>9}{height:>15}")
    assert len(figures) == 3
