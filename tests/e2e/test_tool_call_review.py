"""End-to-end contract of `multiagent.tool_call_review` in a real Potato 2.12.1 page.

The widget's DOM contract, as these tests read it:
- `form.annotation-form[data-schema-name=...]` with a `<legend>` (the description, literally) and
  `data-ma-ready="true"` once rendered;
- one group per call on the page, named "Call K: TOOL by AGENT (step N)", holding the arguments
  in a `<pre>`, the result preview when a later step holds it, a radio group "Verdict"
  (checkboxes with `multi_verdict`) and a textarea "Notes";
- "Agent" and "Tool" filter selects and a "Next unjudged call" button; stored judgements that
  match no call are listed under "Judgements not in this trace" with a "Remove" button;
- the hidden `input.annotation-input[name="SCHEMA:::SCHEMA"]` holding the list of judged calls.

The task is the example's data (OpenAI, Anthropic and ReAct shapes) after one hostile run made
here, served by a test config with a second, multi-verdict scheme.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
from playwright.sync_api import expect

from potato_multiagent import derive, validate_value

from .harness import (
    EXAMPLES_DIR, annotation_pairs, click_next_expecting_block, current_instance_id, go_next, go_prev, login,
    navigation_started, open_annotate, returning_user_state, same_value, wait_saved_json
)

EXAMPLE = "tool-call-review"
TYPE = "multiagent.tool_call_review"
SCHEMA = "review"
MULTI = "review_multi"
DESCRIPTION = "Judge {{ 7*7 }} calls {# not a comment"
MULTI_VERDICTS = ["correct", "wrong order", 'says "hi"']

HOSTILE_AGENT = 'Agent "Smith" <b>'
HOSTILE_TOOL = '<img src=x onerror="window.__xss=1">'
HOSTILE_ARGUMENTS = {"html": "<script>window.__xss=1</script>", "quotes": "\" ' `", "jinja": "{{ 7*7 }} {# x",
                     "big": "A" * 100_000}
BROKEN_ARGUMENTS = '{"draft": "' + "B" * 100_000
HOSTILE = {"id": "hostile-001", "task": "A run whose names and arguments are hostile.", "steps": [
    {"role": "assistant", "name": HOSTILE_AGENT, "tool_calls": [
        {"id": 'call "1"', "function": {"name": HOSTILE_TOOL, "arguments": json.dumps(HOSTILE_ARGUMENTS)}},
        {"id": "call_2", "error": {"message": "lookup timed out"},
         "function": {"name": "lookup", "arguments": '{"q": "Lisbon"}'}}]},
    {"role": "tool", "tool_call_id": 'call "1"', "content": "<b>bold</b> {{ 7*7 }} result",
     "error": "<i>HTTP 500</i> {{ 7*7 }}"},
    {"agent": "Researcher", "action": 'search[<i>flights</i> "LIS"]'},
    {"agent": "Writer", "action": {"tool": "write", "args": BROKEN_ARGUMENTS}},
]}
HOSTILE_TITLES = [f"Call 1: {HOSTILE_TOOL} by {HOSTILE_AGENT} (step 1)", f"Call 2: lookup by {HOSTILE_AGENT} (step 1)",
                  "Call 3: search by Researcher (step 3)", "Call 4: write by Writer (step 4)"]

CONFIG = f"""
annotation_task_name: "e2e: tool-call review {uuid.uuid4().hex[:8]}"
task_dir: .
data_files: [data/hostile.jsonl, data/tool-calls.jsonl]
item_properties: {{id_key: id, text_key: task}}
output_annotation_dir: annotation_output
plugins: [multiagent]
require_password: false
instance_display:
  fields: [{{key: task, type: text, label: "Task"}}]
annotation_schemes:
  - annotation_type: {TYPE}
    name: {SCHEMA}
    description: {json.dumps(DESCRIPTION)}
    label_requirement: {{required: true}}
  - annotation_type: {TYPE}
    name: {MULTI}
    description: "Every verdict that applies"
    verdict_options: {json.dumps(MULTI_VERDICTS)}
    multi_verdict: true
    allow_notes: false
"""
CONFIG_NAME = "e2e-tool-call-review.yaml"


def example_records() -> list[dict]:
    lines = (EXAMPLES_DIR / EXAMPLE / "data" / "tool-calls.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


RECORDS = [HOSTILE] + example_records()


def calls_of(record: dict) -> list[dict]:
    return derive(record).to_dict()["tool_calls"]


def scheme_config(name: str = SCHEMA) -> dict:
    if name == SCHEMA:
        return {"annotation_type": TYPE, "name": SCHEMA, "description": DESCRIPTION}
    return {"annotation_type": TYPE, "name": MULTI, "description": "d", "verdict_options": MULTI_VERDICTS,
            "multi_verdict": True, "allow_notes": False}


def judgement(call: dict, position: int, verdict, notes: str = "") -> dict:
    return {"index": call["index"], "step": call["step"], "position": position, "id": call["id"], "tool": call["tool"],
            "verdict": verdict, "notes": notes}


GHOST_USER = f"ghost-{uuid.uuid4().hex[:8]}"
# The lookup call judged under its id but with a stale index that points at the hostile call: the
# verdict must come back on lookup. Then a call id the trace lacks, and a seed-shaped entry.
GHOST_VALUE = [
    {**judgement(calls_of(HOSTILE)[1], 1, "wrong_args", "kept by id"), "index": 0},
    {"index": 9, "step": 0, "position": 5, "id": "ghost_call", "tool": "delete_db", "verdict": "correct", "notes": ""},
    {"index": 2, "step": 2, "tool": "search", "verdict": "wrong_order", "notes": "seed shape"},
]


@pytest.fixture(scope="module")
def task(potato_task):
    ghost = returning_user_state(GHOST_USER, [record["id"] for record in RECORDS],
                                 annotation_pairs({HOSTILE["id"]: {SCHEMA: json.dumps(GHOST_VALUE)}}))
    return potato_task(EXAMPLE, config=CONFIG_NAME, users={GHOST_USER: ghost},
                       files={CONFIG_NAME: CONFIG, "data/hostile.jsonl": json.dumps(HOSTILE) + "\n"})


@pytest.fixture
def user(task, page) -> str:
    """A fresh annotator, logged in and looking at the hostile run."""
    name = f"tcr-{uuid.uuid4().hex[:12]}"
    login(page, task.base_url, name)
    assert current_instance_id(page) == HOSTILE["id"]
    expect(review_form(page)).to_have_attribute("data-ma-ready", "true")
    return name


# --------------------------------------------------------------------------- page helpers


def review_form(page, schema: str = SCHEMA):
    return page.locator(f'form.annotation-form[data-schema-name="{schema}"]')


def card(page, title: str, schema: str = SCHEMA):
    return review_form(page, schema).get_by_role("group", name=title, exact=True)


def verdict(card_locator, label: str):
    return card_locator.get_by_role("radiogroup", name="Verdict").get_by_role("radio", name=label, exact=True)


def hidden_value(page, schema: str = SCHEMA):
    raw = page.locator(f'input.annotation-input[name="{schema}:::{schema}"]').input_value()
    return json.loads(raw) if raw else None


def judge_every_call(page, label: str = "correct") -> None:
    groups = review_form(page).get_by_role("radiogroup", name="Verdict")
    for i in range(groups.count()):
        groups.nth(i).get_by_role("radio", name=label, exact=True).check()


def notices(page, schema: str = SCHEMA) -> str:
    return review_form(page, schema).locator(".ma-notices").inner_text()


# --------------------------------------------------------------------------- config


# --------------------------------------------------------------------------- rendering


@pytest.mark.e2e
def test_hostile_names_and_arguments_stay_text(task, page, user):
    form = review_form(page)
    for title in HOSTILE_TITLES:
        expect(card(page, title)).to_be_visible()
    assert form.locator("img, script, b, i").count() == 0
    assert page.evaluate("window.__xss") is None

    hostile = card(page, HOSTILE_TITLES[0])
    expect(hostile).to_contain_text('Call id: call "1"')
    arguments = hostile.locator("pre").first
    shown = arguments.text_content()
    assert '"html": "<script>window.__xss=1</script>"' in shown and '"jinja": "{{ 7*7 }} {# x"' in shown
    assert len(shown) < 1_000, "a 100 KB argument starts collapsed"
    toggle = hostile.get_by_role("button", name=re.compile(r"^Show (all arguments \(\d+ characters\)|less)$"))
    expect(toggle).to_have_text(re.compile(r"^Show all arguments"))
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(toggle).to_have_text("Show less")
    assert json.loads(arguments.text_content()) == HOSTILE_ARGUMENTS
    expect(hostile).to_contain_text("Result in step 2 (tool)")
    expect(hostile.locator("pre").nth(1)).to_have_text("<b>bold</b> {{ 7*7 }} result")
    # a failure recorded on the result step, or on the call itself, is shown as text on the card
    expect(hostile.locator('[data-ma-part="error"]')).to_have_text("Error: <i>HTTP 500</i> {{ 7*7 }}")
    expect(card(page, HOSTILE_TITLES[1]).locator('[data-ma-part="error"]')).to_have_text("Error: lookup timed out")
    expect(card(page, HOSTILE_TITLES[2]).locator('[data-ma-part="error"]')).to_have_count(0)

    broken = card(page, HOSTILE_TITLES[3])
    expect(broken).to_contain_text("Arguments (not valid JSON, shown as written)")
    assert broken.locator("pre").text_content().startswith('{"draft": "BBB')
    expect(card(page, HOSTILE_TITLES[2]).locator("pre")).to_have_text('<i>flights</i> "LIS"')


@pytest.mark.e2e
def test_openai_anthropic_and_react_calls_get_cards_with_their_arguments(task, page, user):
    judge_every_call(page)
    assert go_next(page) == "weather-openai-001"
    openai = card(page, "Call 1: get_forecast by Forecaster (step 2)")
    expect(openai.locator("pre").first).to_contain_text('"city": "Oslo"')   # the JSON string, parsed and indented
    expect(openai).to_contain_text("Result in step 3 (tool)")
    expect(card(page, "Call 3: send_message by Advisor (step 5)")).to_contain_text("not valid JSON")

    judge_every_call(page)
    assert go_next(page) == "refactor-anthropic-002"
    anthropic = card(page, "Call 1: search_code by Coder (step 2)")
    expect(anthropic.locator("pre").first).to_contain_text('"pattern": "parse_date("')
    expect(anthropic).to_contain_text("Result in step 3 (user)")

    judge_every_call(page)
    assert go_next(page) == "research-react-003"
    react = card(page, "Call 1: search by Researcher (step 1)")
    expect(react.locator("pre").first).to_have_text("Oslo Opera House opening year")
    expect(react).to_contain_text("Result in step 2 (Computer_terminal)")
    expect(card(page, "Call 2: handoff_note by Researcher (step 3)").locator("pre").first).to_contain_text('"fact": "opened in 2008"')


# --------------------------------------------------------------------------- value


@pytest.mark.e2e
def test_verdicts_and_notes_are_saved_exactly_and_restored(task, page, user):
    calls = calls_of(HOSTILE)
    notes_text = 'It should be "Lisbon, PT" <b>{{ x }}</b>'
    verdict(card(page, HOSTILE_TITLES[1]), "wrong_args").check()
    card(page, HOSTILE_TITLES[1]).get_by_label("Notes").fill(notes_text)
    verdict(card(page, HOSTILE_TITLES[3]), "wrong_tool").check()
    expected = [judgement(calls[1], 1, "wrong_args", notes_text), judgement(calls[3], 0, "wrong_tool")]

    saved = wait_saved_json(task, user, HOSTILE["id"], SCHEMA, expected)
    assert validate_value(TYPE, scheme_config(), saved, HOSTILE) == []

    open_annotate(page, task.base_url)
    expect(verdict(card(page, HOSTILE_TITLES[1]), "wrong_args")).to_be_checked()
    expect(card(page, HOSTILE_TITLES[1]).get_by_label("Notes")).to_have_value(notes_text)
    expect(verdict(card(page, HOSTILE_TITLES[3]), "wrong_tool")).to_be_checked()
    expect(card(page, HOSTILE_TITLES[0]).get_by_role("radio", checked=True)).to_have_count(0)

    judge_every_call(page, "correct")      # required: all four, before Next lets us go
    expected = [judgement(call, position, "correct") for call, position in zip(calls, [0, 1, 0, 0])]
    expected[1]["notes"] = notes_text
    wait_saved_json(task, user, HOSTILE["id"], SCHEMA, expected)
    go_next(page)
    assert go_prev(page) == HOSTILE["id"]
    expect(card(page, HOSTILE_TITLES[1]).get_by_label("Notes")).to_have_value(notes_text)
    assert same_value(hidden_value(page), expected)


@pytest.mark.e2e
def test_keyboard_only_judging_with_next_unjudged_call(task, page, user):
    calls = calls_of(HOSTILE)
    next_unjudged = review_form(page).get_by_role("button", name="Next unjudged call")
    next_unjudged.focus()
    page.keyboard.press("Enter")
    first = verdict(card(page, HOSTILE_TITLES[0]), "correct")
    expect(first).to_be_focused()
    page.keyboard.press("Space")
    expect(first).to_be_checked()
    page.keyboard.press("ArrowRight")
    wrong_tool = verdict(card(page, HOSTILE_TITLES[0]), "wrong_tool")
    expect(wrong_tool).to_be_focused()
    expect(wrong_tool).to_be_checked()
    assert not navigation_started(page) and current_instance_id(page) == HOSTILE["id"]
    page.keyboard.press("Tab")   # leaves the radio group for "Clear verdict"
    page.keyboard.press("Tab")
    expect(card(page, HOSTILE_TITLES[0]).get_by_label("Notes")).to_be_focused()
    page.keyboard.type("by keyboard")

    next_unjudged.focus()
    page.keyboard.press("Enter")
    expect(verdict(card(page, HOSTILE_TITLES[1]), "correct")).to_be_focused()
    page.keyboard.press("End")
    expect(verdict(card(page, HOSTILE_TITLES[1]), "wrong_order")).to_be_checked()

    expected = [judgement(calls[0], 0, "wrong_tool", "by keyboard"), judgement(calls[1], 1, "wrong_order")]
    wait_saved_json(task, user, HOSTILE["id"], SCHEMA, expected)
    expect(review_form(page).locator(".ma-summary")).to_contain_text("2 of 4 tool calls judged")


def arrow_targets(page):
    first = card(page, HOSTILE_TITLES[0])
    return {"verdict": verdict(first, "correct"), "notes": first.get_by_label("Notes"),
            "agent filter": review_form(page).get_by_role("combobox", name="Agent", exact=True),
            "toggle": first.get_by_role("button", name=re.compile(r"^Show all arguments"))}


@pytest.mark.e2e
def test_arrow_keys_inside_the_widget_do_not_change_the_instance(task, page, user):
    """Each control in turn, on one page (one login instead of one per control); the agent filter,
    which changes what is shown, comes last."""
    judge_every_call(page)   # complete, so only the widget could stop Potato's arrow navigation
    targets = arrow_targets(page)
    for control in ["verdict", "notes", "toggle", "agent filter"]:
        targets[control].focus()
        for key in ("ArrowRight", "ArrowLeft", "ArrowRight"):
            page.keyboard.press(key)
            assert not navigation_started(page), f"{key} in the {control} started a navigation"
            assert current_instance_id(page) == HOSTILE["id"], control


@pytest.mark.e2e
def test_required_review_blocks_next_and_counts_what_is_missing(task, page, user):
    message = click_next_expecting_block(page, DESCRIPTION, HOSTILE["id"])

    verdict(card(page, HOSTILE_TITLES[2]), "correct").check()
    expect(review_form(page)).to_have_attribute("data-incomplete-reason", "1 of 4 tool calls judged")
    page.click("#next-btn")
    expect(message).to_contain_text("(1 of 4 tool calls judged)")
    assert not navigation_started(page) and current_instance_id(page) == HOSTILE["id"]

    judge_every_call(page)
    expect(review_form(page)).not_to_have_attribute("data-incomplete-reason", re.compile(".*"))
    assert go_next(page) == RECORDS[1]["id"]


@pytest.mark.e2e
def test_filters_and_pages_show_only_matching_calls(task, page, user):
    form = review_form(page)
    form.get_by_role("combobox", name="Agent", exact=True).select_option(label="Researcher")
    expect(form.locator("li[data-ma-call]")).to_have_count(1)
    expect(card(page, HOSTILE_TITLES[2])).to_be_visible()
    expect(form.locator(".ma-tcr-matches")).to_have_text("1 of 4 tool calls match these filters.")
    form.get_by_role("combobox", name="Agent", exact=True).select_option(label=HOSTILE_AGENT)
    form.get_by_role("combobox", name="Tool", exact=True).select_option(label="lookup")
    expect(form.locator("li[data-ma-call]")).to_have_count(1)
    expect(card(page, HOSTILE_TITLES[1])).to_be_visible()
    form.get_by_role("combobox", name="Tool", exact=True).select_option(label="write")
    expect(form.locator(".ma-tcr-matches")).to_have_text("No call matches these filters.")
    form.get_by_role("combobox", name="Agent", exact=True).select_option(label="All agents")
    expect(form.locator("li[data-ma-call]")).to_have_count(1)


@pytest.mark.e2e
def test_multi_verdict_stores_every_verdict_and_has_no_notes(task, page, user):
    multi = card(page, HOSTILE_TITLES[2], MULTI)
    group = multi.get_by_role("group", name="Verdict")
    group.get_by_role("checkbox", name='says "hi"', exact=True).check()
    group.get_by_role("checkbox", name="wrong order", exact=True).check()
    assert multi.get_by_label("Notes").count() == 0
    expected = [{"index": 2, "step": 2, "position": 0, "id": None, "tool": "search", "verdict": "wrong order",
                 "verdicts": ["wrong order", 'says "hi"'], "notes": ""}]
    saved = wait_saved_json(task, user, HOSTILE["id"], MULTI, expected)
    assert validate_value(TYPE, scheme_config(MULTI), saved, HOSTILE) == []
    multi.get_by_role("button", name="Clear verdict").click()
    expect(page.locator(f'input.annotation-input[name="{MULTI}:::{MULTI}"]')).to_have_value("")


# --------------------------------------------------------------------------- restore by identity


@pytest.mark.e2e
def test_restore_matches_by_identity_and_keeps_what_matches_nothing(task, page):
    login(page, task.base_url, GHOST_USER)
    expect(review_form(page)).to_have_attribute("data-ma-ready", "true")
    # The stale index (0) pointed at the hostile call; the id names lookup, so the verdict is there.
    expect(verdict(card(page, HOSTILE_TITLES[1]), "wrong_args")).to_be_checked()
    expect(card(page, HOSTILE_TITLES[0]).get_by_role("radio", checked=True)).to_have_count(0)
    expect(verdict(card(page, HOSTILE_TITLES[2]), "wrong_order")).to_be_checked()   # the seed-shaped entry

    stale = review_form(page).locator('[data-ma="stale-list"]')   # the runtime's one stale list
    expect(stale).to_be_visible()
    expect(stale).to_contain_text("tool delete_db at step #1 (id ghost_call): correct")
    expect(stale).to_contain_text("not in this trace")
    words = notices(page)
    assert "[1].id: 'ghost_call' is not in this trace" in words, words
    assert '[0].index: should be 1 as in this trace, got 0' in words, words
    assert hidden_value(page) == GHOST_VALUE   # nothing rewritten until the annotator acts

    stale.get_by_role("button", name=re.compile(r"^Remove saved mark: tool delete_db")).click()
    expect(stale).to_be_hidden()
    wait_saved_json(task, GHOST_USER, HOSTILE["id"], SCHEMA, [GHOST_VALUE[0], GHOST_VALUE[2]])


# --------------------------------------------------------------------------- 5,000 calls


def long_trace(calls: int) -> dict:
    steps = []
    for i in range(calls):
        steps.append({"role": "assistant", "name": f"Agent {i % 5}", "tool_calls": [
            {"id": f"call_{i}", "function": {"name": f"tool_{i % 9}", "arguments": json.dumps({"i": i, "q": "x" * 40})}}]})
        steps.append({"role": "tool", "tool_call_id": f"call_{i}", "content": f"result {i}"})
    return {"id": "long-5000", "task": "A run with 5,000 tool calls.", "steps": steps}


LONG_CONFIG = CONFIG.replace("data_files: [data/hostile.jsonl, data/tool-calls.jsonl]", "data_files: [data/long.jsonl]") \
    .replace('annotation_task_name: "e2e: tool-call review', 'annotation_task_name: "e2e: tool-call review 5000')


@pytest.mark.e2e
def test_five_thousand_calls_render_a_page_and_each_click_stores_a_verdict(potato_task, page):
    long = potato_task(EXAMPLE, config=CONFIG_NAME, files={CONFIG_NAME: LONG_CONFIG,
                                                          "data/long.jsonl": json.dumps(long_trace(5000)) + "\n"})
    login(page, long.base_url, f"tcr-long-{uuid.uuid4().hex[:8]}")
    form = review_form(page)
    expect(form).to_have_attribute("data-ma-ready", "true")
    expect(form.locator('[data-ma="page-where"]')).to_have_text("1\u201320 of 5,000 tool calls")
    assert form.locator("li[data-ma-call]").count() == 20
    # One verdict per card of the page, each read back from the hidden input at once (the handler
    # is synchronous); a re-render from Potato's instance-ready first. Speed is bench/'s business.
    clicked = page.evaluate(
        """(name) => {
            const form = document.querySelector(`form[data-schema-name="${name}"]`);
            const hidden = form.querySelector('input.annotation-input');
            document.dispatchEvent(new CustomEvent('potato:instance-ready'));
            const stored = [];
            form.querySelectorAll('[role=radiogroup]').forEach((group, i) => {
                group.querySelectorAll('input')[i % 4].click();
                stored.push(JSON.parse(hidden.value).length);
            });
            return {stored, nodes: form.querySelectorAll('*').length};
        }""",
        SCHEMA,
    )
    assert clicked["stored"] == list(range(1, 21))
    assert clicked["nodes"] < 1_500

    form.get_by_role("button", name="Next page").click()
    expect(form.locator('[data-ma="page-where"]')).to_have_text("21\u201340 of 5,000 tool calls")
    form.get_by_role("button", name="Next unjudged call").click()
    expect(verdict(card(page, "Call 21: tool_2 by Agent 0 (step 41)"), "correct")).to_be_focused()


# --------------------------------------------------------------------------- judgments and the trace view

JUDGED_SCHEMES = {"always": "j_always", "after_answer": "j_after", "never": "j_never"}
JUDGE = 'judge "<b>x</b>"'   # a hostile source name: shown and stored as text
# One OpenAI call (c1, step 1) then 22 ReAct calls, one per step: 23 calls, two pages of cards.
JUDGED = {"id": "judged-001", "task": "A run a judge has judged.", "steps": [
    {"role": "assistant", "name": "Planner",
     "tool_calls": [{"id": "c1", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
    *({"agent": "Researcher", "action": f"search[q{i}]"} for i in range(22))]}
JUDGED_CALL = {"index": 0, "step": 0, "position": 0, "id": "c1", "tool": "get_weather", "verdict": "wrong_args",
               "notes": "the judge's notes"}
JUDGED["judgments"] = {name: [{"source": JUDGE, "value": [JUDGED_CALL]}] for name in JUDGED_SCHEMES.values()}
JUDGED_TITLE = "Call 1: get_weather by Planner (step 1)"
LAST_TITLE = "Call 23: search by Researcher (step 23)"

JUDGED_CONFIG = f"""
annotation_task_name: "e2e: tool-call review judgments {uuid.uuid4().hex[:8]}"
task_dir: .
data_files: [data/judged.jsonl]
item_properties: {{id_key: id, text_key: task}}
output_annotation_dir: annotation_output
plugins: [multiagent]
require_password: false
instance_display:
  fields: [{{key: steps, type: multiagent.trace, label: "Run"}}]
annotation_schemes:
""" + "".join(f"""  - annotation_type: {TYPE}
    name: {name}
    description: "Judgments shown {when}"
    show_judgments: {when}
""" for when, name in JUDGED_SCHEMES.items())
JUDGED_CONFIG_NAME = "e2e-tool-call-review-judgments.yaml"


@pytest.fixture(scope="module")
def judged_task(potato_task):
    return potato_task(EXAMPLE, config=JUDGED_CONFIG_NAME,
                       files={JUDGED_CONFIG_NAME: JUDGED_CONFIG, "data/judged.jsonl": json.dumps(JUDGED) + "\n"})


@pytest.mark.e2e
def test_judgments_show_per_show_judgments_and_accept_stores_from_judgment(judged_task, page):
    user = f"tcr-judged-{uuid.uuid4().hex[:8]}"
    login(page, judged_task.base_url, user)
    words = f"{JUDGE}'s verdict: wrong_args"
    accept = f"Accept {JUDGE}\u2019s answer"
    always, after, never = (card(page, JUDGED_TITLE, name) for name in JUDGED_SCHEMES.values())
    expect(review_form(page, "j_always")).to_have_attribute("data-ma-ready", "true")
    expect(always.locator('[data-ma="judgment"]')).to_have_text(words + accept)
    expect(after.locator('[data-ma="judgment"]')).to_have_count(0)   # hidden until this call is answered
    expect(never.locator('[data-ma="judgment"]')).to_have_count(0)
    expect(card(page, "Call 2: search by Researcher (step 2)", "j_always").locator('[data-ma="judgment"]')).to_have_count(0)

    always.get_by_role("button", name=accept, exact=True).click()
    expect(verdict(always, "wrong_args")).to_be_checked()
    expect(always.get_by_role("button", name=f"Accepted {JUDGE}\u2019s answer", exact=True)).to_be_focused()
    saved = wait_saved_json(judged_task, user, JUDGED["id"], "j_always",
                            [{**JUDGED_CALL, "notes": "", "from_judgment": JUDGE}])
    assert validate_value(TYPE, {"annotation_type": TYPE, "name": "j_always", "description": "d"}, saved, JUDGED) == []

    verdict(after, "correct").check()
    expect(after.locator('[data-ma="judgment"]')).to_have_text(words + accept)   # revealed by the answer
    wait_saved_json(judged_task, user, JUDGED["id"], "j_after", [{**JUDGED_CALL, "verdict": "correct", "notes": ""}])
    after.get_by_role("button", name=accept, exact=True).click()
    wait_saved_json(judged_task, user, JUDGED["id"], "j_after",
                    [{**JUDGED_CALL, "notes": "", "from_judgment": JUDGE}])
    verdict(after, "correct").check()   # the annotator's own verdict again: no from_judgment
    wait_saved_json(judged_task, user, JUDGED["id"], "j_after", [{**JUDGED_CALL, "verdict": "correct", "notes": ""}])

    verdict(never, "correct").check()
    expect(never.locator('[data-ma="judgment"]')).to_have_count(0)
    never.get_by_label("Notes").fill("own words")
    wait_saved_json(judged_task, user, JUDGED["id"], "j_never",
                    [{**JUDGED_CALL, "verdict": "correct", "notes": "own words"}])


@pytest.mark.e2e
def test_open_tool_call_from_the_trace_turns_the_page_and_focuses_the_first_verdict(judged_task, page):
    login(page, judged_task.base_url, f"tcr-open-{uuid.uuid4().hex[:8]}")
    form = review_form(page, "j_never")
    expect(form).to_have_attribute("data-ma-ready", "true")
    expect(form.locator('[data-ma="page-where"]')).to_have_text("1\u201320 of 23 tool calls")
    assert "open-tool-call" in (form.get_attribute("data-ma-step-actions") or "").split()
    step = page.locator('section.ma-trace .ma-trace-step[data-step="22"]')
    step.locator('.ma-trace-action[data-action="open-tool-call"]').click()
    for name in JUDGED_SCHEMES.values():   # no target: every tool-call form on the page opens the call
        expect(review_form(page, name).locator('[data-ma="page-where"]')).to_have_text("21\u201323 of 23 tool calls")
        expect(card(page, LAST_TITLE, name)).to_be_visible()
    focused = page.evaluate("""() => { const a = document.activeElement;
        return [a.type, a.value, a.closest('section[role=group]').getAttribute('aria-label')]; }""")
    assert focused == ["radio", "0", LAST_TITLE]
