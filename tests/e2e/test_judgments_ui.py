"""End-to-end: judgments shown beside failure attribution's controls, and marked in the trace view.

One record carries two judgments for each of three failure-attribution schemes, one per
`show_judgments` mode ('always', 'after_answer', 'never'). The tests read what the page shows,
accept a judgment with the mouse, and read the value Potato saved in user_state.json.
"""

from __future__ import annotations

import json
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import validate_value
from potato_multiagent.cli import main

from .harness import choose_decisive_step, login, wait_saved_json

TASK_NAME = f"e2e judgments ui {uuid.uuid4().hex[:8]}"
RECORD = {
    "id": "judged-1",
    "question": "Book a train to Lyon on 14 March.",
    "steps": [
        {"agent": "Planner", "content": "Plan: find trains, book the cheapest, verify the date."},
        {"agent": "Searcher", "content": "Found three trains on 14 March."},
        {"agent": "Booker", "content": "Booked the 15 March train."},
        {"agent": "Verifier", "content": "Looks fine."},
    ],
}
JUDGE = "gpt-4o judge"
BASELINE = "last speaker"
JUDGMENTS = [
    {"source": JUDGE, "value": {"responsible_agent": "Booker", "decisive_step": 2, "reason": "It booked 15 March."}},
    {"source": BASELINE, "value": {"responsible_agent": "Verifier", "decisive_step": 3, "reason": ""}},
]
HOSTILE = "<img src=x onerror=\"window.__pwned=1\"> {{ 7*7 }}"
HOSTILE_JUDGMENT = {"source": HOSTILE, "value": {"responsible_agent": "Planner", "decisive_step": 0,
                                                 "reason": "<b>bold</b>"}}
AFTER_JUDGMENTS = [
    {"source": JUDGE, "value": {"responsible_agent": "Searcher", "decisive_step": 1, "reason": ""}},
    {"source": BASELINE, "value": {"responsible_agent": "Planner", "decisive_step": 0, "reason": ""}},
]
WORDS = [f"{JUDGE}: Booker, #3 \u2014 'It booked 15 March.'", f"{BASELINE}: Verifier, #4"]
MODES = {"always": "attr_always", "after_answer": "attr_after", "never": "attr_never"}


def scheme(mode: str) -> dict:
    return {"annotation_type": "multiagent.failure_attribution", "name": MODES[mode],
            "description": f"Who failed? ({mode})", "show_judgments": mode}


def task_config() -> dict:
    return {
        "annotation_task_name": TASK_NAME, "task_dir": ".", "data_files": ["data/records.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "question"}, "output_annotation_dir": "annotation_output",
        "plugins": ["multiagent"], "require_password": False,
        "instance_display": {"fields": [{"key": "steps", "type": "multiagent.trace", "label": "Run"}]},
        "annotation_schemes": [scheme(mode) for mode in MODES],
    }


def judged_record() -> dict:
    return {**RECORD, "judgments": {MODES["always"]: JUDGMENTS + [HOSTILE_JUDGMENT],
                                    MODES["after_answer"]: AFTER_JUDGMENTS, MODES["never"]: JUDGMENTS}}


@pytest.fixture(scope="module")
def judged_task(potato_task, tmp_path_factory):
    source = tmp_path_factory.mktemp("judgments-ui-source")
    (source / "data").mkdir()
    (source / "data" / "records.jsonl").write_text(json.dumps(judged_record()) + "\n", encoding="utf-8")
    (source / "config.yaml").write_text(yaml.safe_dump(task_config(), sort_keys=False), encoding="utf-8")
    return potato_task(source)


def form_of(page, mode: str):
    form = page.locator(f'form[data-schema-name="{MODES[mode]}"]')
    expect(form).to_have_attribute("data-ma-ready", "true")
    return form


def judgment_words(form) -> list[str]:
    return [node.text_content() for node in form.locator(".ma-fa-judgment-words").all()]


def fresh_user() -> str:
    return f"judge-{uuid.uuid4().hex[:8]}"


def test_always_shows_both_never_hides(judged_task, page):
    login(page, judged_task.base_url, fresh_user())
    always = form_of(page, "always")
    expect(always.locator(".ma-fa-judgments")).to_be_visible()
    # a hostile source and reason are shown as text, never run
    assert judgment_words(always) == WORDS + [f"{HOSTILE}: Planner, #1 \u2014 '<b>bold</b>'"]
    assert page.evaluate("window.__pwned === undefined")
    never = form_of(page, "never")
    expect(never.locator(".ma-fa-judgments")).to_be_hidden()
    never.get_by_label("Responsible agent").select_option("Booker")
    choose_decisive_step(never, 3)
    expect(never.locator(".ma-fa-judgments")).to_be_hidden()
    assert never.locator(".ma-fa-judgment").count() == 0


def test_after_answer_hides_until_agent_and_step_are_chosen(judged_task, page):
    login(page, judged_task.base_url, fresh_user())
    after = form_of(page, "after_answer")
    box = after.locator(".ma-fa-judgments")
    expect(box).to_be_hidden()
    assert after.locator(".ma-fa-judgment").count() == 0   # not in the DOM either: nothing to read early
    after.get_by_label("Responsible agent").select_option("Booker")
    expect(box).to_be_hidden()
    choose_decisive_step(after, 3)
    expect(box).to_be_visible()
    assert judgment_words(after) == [f"{JUDGE}: Searcher, #2", f"{BASELINE}: Planner, #1"]
    # next to the control it answers: with the step picker at the top of the window, the judges'
    # answers are on screen too, above the reason
    after.get_by_role("combobox", name="Decisive step").evaluate("el => el.scrollIntoView({block: 'start'})")
    picker, shown = after.get_by_label("Decisive step").bounding_box(), box.bounding_box()
    assert picker["y"] < shown["y"] < after.get_by_label("Reason").bounding_box()["y"]
    assert shown["y"] + shown["height"] <= page.viewport_size["height"], (picker, shown)


def test_accept_stores_from_judgment_and_an_edit_clears_it(judged_task, page):
    user = fresh_user()
    login(page, judged_task.base_url, user)
    always = form_of(page, "always")
    always.get_by_label("Reason").fill("my own words")
    always.get_by_role("button", name=f"Accept {JUDGE}\u2019s answer").click()
    accepted = {"responsible_agent": "Booker", "decisive_step": 2, "reason": "my own words", "from_judgment": JUDGE}
    saved = wait_saved_json(judged_task, user, RECORD["id"], MODES["always"], accepted)
    assert validate_value("multiagent.failure_attribution", scheme("always"), saved, judged_record()) == []
    assert main(["check", str(judged_task.task_dir / "config.yaml")]) == 0   # every saved value, as check reads it
    expect(always.get_by_label("Responsible agent")).to_have_value("Booker")
    expect(always.locator(".ma-fa-chosen")).to_contain_text("Booked the 15 March train.")
    accepted_button = always.get_by_role("button", name=f"Accepted {JUDGE}\u2019s answer")
    expect(accepted_button).to_have_attribute("aria-disabled", "true")
    expect(accepted_button).to_be_focused()
    # editing the reason keeps the copy's origin; editing the step clears it
    always.get_by_label("Reason").fill("my own words, edited")
    always.get_by_label("Reason").blur()
    wait_saved_json(judged_task, user, RECORD["id"], MODES["always"], {**accepted, "reason": "my own words, edited"})
    choose_decisive_step(always, 4)
    wait_saved_json(judged_task, user, RECORD["id"], MODES["always"],
                    {"responsible_agent": "Booker", "decisive_step": 3, "reason": "my own words, edited"})


def test_accept_with_no_reason_typed_takes_the_judgments_reason(judged_task, page):
    """What an adjudicator accepting an annotator's answer needs: that annotator's reason comes along."""
    user = fresh_user()
    login(page, judged_task.base_url, user)
    always = form_of(page, "always")
    always.get_by_role("button", name=f"Accept {JUDGE}\u2019s answer").click()
    wait_saved_json(judged_task, user, RECORD["id"], MODES["always"],
                    {"responsible_agent": "Booker", "decisive_step": 2, "reason": "It booked 15 March.",
                     "from_judgment": JUDGE})
    expect(always.get_by_label("Reason")).to_have_value("It booked 15 March.")
    # another judgment accepted over the copied reason replaces it: the words were the first judge's
    always.get_by_role("button", name=f"Accept {BASELINE}\u2019s answer").click()
    wait_saved_json(judged_task, user, RECORD["id"], MODES["always"],
                    {"responsible_agent": "Verifier", "decisive_step": 3, "reason": "", "from_judgment": BASELINE})
    # a reason the annotator typed is theirs: accepting keeps it
    always.get_by_label("Reason").fill("mine")
    always.get_by_role("button", name=f"Accept {JUDGE}\u2019s answer").click()
    wait_saved_json(judged_task, user, RECORD["id"], MODES["always"],
                    {"responsible_agent": "Booker", "decisive_step": 2, "reason": "mine", "from_judgment": JUDGE})


def test_trace_view_marks_only_always_schemes(judged_task, page):
    login(page, judged_task.base_url, fresh_user())
    page.wait_for_function("document.querySelectorAll('section.ma-trace li.ma-trace-row').length === 4",
                           polling=100, timeout=15_000)
    marks = {index: page.locator(f'section.ma-trace article.ma-trace-step[data-step="{index}"] .ma-trace-judgment')
             .all_text_contents() for index in range(4)}
    # attr_always's judgments point at #3, #4 and #1; attr_after's (#2, #1) and attr_never's are not marked
    assert marks == {0: [f"judge {HOSTILE}: decisive step"], 1: [], 2: [f"judge {JUDGE}: decisive step"],
                     3: [f"judge {BASELINE}: decisive step"]}
