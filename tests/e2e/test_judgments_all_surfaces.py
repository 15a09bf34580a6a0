"""End-to-end (issue 17): one record judged on all seven surfaces and in the trace view.

One task, one server, one annotator: the record carries a judgment for each of the seven
`multiagent.*` schemes, all by one source whose name is hostile markup (it must show as text and
never run). Five schemes show their judgments `always`; handoff review and tool contention show
them `after_answer`, so the annotator answers a handoff card and a region first. The test reads what
each surface and the trace view show, accepts the judgment on every surface with the mouse, and
reads the values Potato saved in user_state.json: each carries `from_judgment` naming the source.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import validate_value

from .harness import login, opened_handoff_card, wait_saved, wait_saved_json

pytestmark = pytest.mark.e2e

JUDGE = '<img src=x onerror="window.__pwned=1"> judge'
RECORD = {
    "id": "seven-1",
    "task": "Book a train to Lyon on 14 March.",
    "steps": [
        {"agent": "Planner", "content": "Plan: search trains, then book the 14 March one."},
        {"role": "assistant", "name": "Searcher", "content": "Searching.",
         "tool_calls": [{"id": "c1", "function": {"name": "search_trains", "arguments": "{\"date\": \"15 March\"}"}}]},
        {"agent": "Booker", "content": "Booked the 15 March train."},
        {"agent": "Planner", "content": "Done."},
    ],
    # two agents write one table at overlapping times: one contention region, [0, 8)
    "calls": [{"agent": "Searcher", "tool": "db_write", "resource": "bookings_db", "start": 0, "end": 5},
              {"agent": "Booker", "tool": "db_write", "resource": "bookings_db", "start": 3, "end": 8}],
}

# What the judge said, per scheme, in each type's stored shape (docs/types/*.md).
ATTRIBUTION = {"responsible_agent": "Booker", "decisive_step": 2, "reason": "It booked 15 March."}
GRAPH = {"critical_nodes": ["Searcher", "Booker"], "edges": {"Searcher->Booker": "critical"},
         "edge_marks": [{"from": "Searcher", "to": "Booker", "status": "critical"}]}
HANDOFF = {"index": 1, "step": 2, "from_step": 1, "from": "Searcher", "to": "Booker", "explicit": False,
           "flags": ["dropped_constraint"], "quality": 2, "note": ""}
CALL = {"index": 0, "step": 1, "position": 0, "id": "c1", "tool": "search_trains", "verdict": "wrong_args",
        "notes": "asked for the 15th"}
REGION = {"index": 0, "resource": "bookings_db", "start": 0, "end": 8, "agents": ["Searcher", "Booker"],
          "calls": [{"index": 0, "agent": "Searcher", "resource": "bookings_db", "start": 0, "end": 5},
                    {"index": 1, "agent": "Booker", "resource": "bookings_db", "start": 3, "end": 8}],
          "label": "race_condition", "note": ""}
CONTENTION = {"contentions": {"0": "race_condition"}, "regions": [REGION]}
BEHAVIOUR = {"turns": [1, 2], "note": "nobody checked the date",
             "instances": [{"turns": [1, 2], "note": "nobody checked the date"}]}
SCORECARD = {"agents": {"Booker": {"contribution": 2}}, "team": {"coordination": 3}, "milestones": {}}

SCHEMES = [
    ({"annotation_type": "multiagent.failure_attribution", "name": "attribution"}, ATTRIBUTION),
    ({"annotation_type": "multiagent.agent_interaction_graph", "name": "graph"}, GRAPH),
    ({"annotation_type": "multiagent.handoff_review", "name": "handoffs", "show_judgments": "after_answer"}, [HANDOFF]),
    ({"annotation_type": "multiagent.tool_call_review", "name": "calls"}, [CALL]),
    ({"annotation_type": "multiagent.tool_contention", "name": "contention", "show_judgments": "after_answer"},
     CONTENTION),
    ({"annotation_type": "multiagent.emergent_behavior", "name": "behaviours"}, {"groupthink": BEHAVIOUR}),
    ({"annotation_type": "multiagent.agent_scorecard", "name": "scorecard", "agent_dimensions": ["contribution"],
      "team_dimensions": ["coordination"]}, SCORECARD),
]


def scheme_config(scheme: dict) -> dict:
    return {"description": f"{scheme['name']} of the run", "label_requirement": {"required": False}, **scheme}


def judged_record() -> dict:
    return {**RECORD, "judgments": {scheme["name"]: [{"source": JUDGE, "value": value}] for scheme, value in SCHEMES}}


def task_config() -> dict:
    return {
        "annotation_task_name": f"e2e judgments on all seven surfaces {uuid.uuid4().hex[:8]}", "task_dir": ".",
        "data_files": ["data/records.jsonl"], "item_properties": {"id_key": "id", "text_key": "task"},
        "output_annotation_dir": "annotation_output", "plugins": ["multiagent"], "require_password": False,
        "instance_display": {"fields": [{"key": "steps", "type": "multiagent.trace", "label": "Run"}]},
        "annotation_schemes": [scheme_config(scheme) for scheme, _ in SCHEMES],
    }


def assert_valid(name: str, value) -> None:
    scheme = next(scheme for scheme, _ in SCHEMES if scheme["name"] == name)
    assert validate_value(scheme["annotation_type"], scheme_config(scheme), json.dumps(value), judged_record()) == []


def test_the_judgments_are_valid_values_of_their_schemes():
    """The record's judgments are what `convert --judgments` would accept: valid stored values."""
    for scheme, value in SCHEMES:
        assert_valid(scheme["name"], value)


@pytest.fixture(scope="module")
def judged_task(potato_task, tmp_path_factory):
    source = tmp_path_factory.mktemp("judgments-all-surfaces")
    (source / "data").mkdir()
    (source / "data" / "records.jsonl").write_text(json.dumps(judged_record()) + "\n", encoding="utf-8")
    (source / "config.yaml").write_text(yaml.safe_dump(task_config(), sort_keys=False), encoding="utf-8")
    return potato_task(source)


def form(page, name: str):
    return page.locator(f'form.annotation-form[data-schema-name="{name}"]')


def accept(words: str) -> str:
    return f"Accept {JUDGE}{words}"


def accept_on(scope, words: str, exact: bool = False) -> None:
    """Press the judgment's Accept as an annotator does; the one rule of every surface
    (docs/judgments.md): the button then says Accepted, has nothing left to do (aria-disabled, not
    a toggle) and keeps the focus, also when pressed again."""
    scope.get_by_role("button", name=accept(words), exact=exact).click()
    accepted = scope.get_by_role("button", name=f"Accepted {JUDGE}{words}", exact=exact)
    expect(accepted).to_have_attribute("aria-disabled", "true")
    expect(accepted).not_to_have_attribute("aria-pressed", re.compile(".*"))
    expect(accepted).to_be_focused()
    accepted.press("Enter")
    expect(accepted).to_be_focused()


def test_each_surface_and_the_trace_view_show_the_judgment_and_accepting_stores_from_judgment(judged_task, page):
    user = f"seven-{uuid.uuid4().hex[:8]}"
    login(page, judged_task.base_url, user)
    for scheme, _ in SCHEMES:
        expect(form(page, scheme["name"])).to_have_attribute("data-ma-ready", "true")

    # -- shown beside each control, labelled with the source (as text) ------------------------------
    expect(form(page, "attribution").locator(".ma-fa-judgment-words")).to_have_text(
        [f"{JUDGE}: Booker, #3 \u2014 'It booked 15 March.'"])
    expect(form(page, "graph").locator('[data-ma="judgment"]')).to_contain_text(
        f"J1 \u00B7 {JUDGE}: Critical path: Searcher -> Booker.")
    call_card = form(page, "calls").get_by_role("group", name="Call 1: search_trains by Searcher (step 2)", exact=True)
    expect(call_card.locator('[data-ma="judgment"]')).to_have_text(f"{JUDGE}'s verdict: wrong_args{accept(chr(0x2019) + 's answer')}")
    groupthink = form(page, "behaviours").get_by_role("group", name="groupthink", exact=True)
    expect(groupthink.locator(".ma-eb-judgment-words")).to_have_text(
        f"{JUDGE}: episode 1, 2 turns across 2 agents: #2 (Searcher), #3 (Booker) \u2014 'nobody checked the date'.")
    cell = form(page, "scorecard").get_by_role("button", name=accept("\u2019s answer for Booker: contribution (2)"))
    expect(cell).to_have_text(f"{JUDGE}: 2")
    # the trace view marks the steps the always-shown judgments point at
    page.wait_for_function("document.querySelectorAll('section.ma-trace li.ma-trace-row').length === 4",
                           polling=100, timeout=15_000)
    trace_marks = {index: page.locator(f'section.ma-trace article.ma-trace-step[data-step="{index}"] '
                                       '.ma-trace-judgment').all_text_contents() for index in range(4)}
    assert trace_marks == {0: [], 1: [f"judge {JUDGE}: tool call wrong_args", f"judge {JUDGE}: groupthink"],
                           2: [f"judge {JUDGE}: decisive step", f"judge {JUDGE}: groupthink"], 3: []}

    # -- after_answer: handoff review and tool contention hide theirs until answered -----------------
    handoffs = form(page, "handoffs")
    card = handoffs.get_by_role("group", name="Handoff 2: Searcher to Booker", exact=True)
    expect(handoffs.locator('[data-ma="judgment"]')).to_have_count(0)
    region = form(page, "contention").locator('[data-ma-region="0"]')
    expect(form(page, "contention").locator('[data-ma="judgment"]')).to_have_count(0)
    opened_handoff_card(card).get_by_role("radio", name="4", exact=True).check()
    wait_saved_json(judged_task, user, RECORD["id"], "handoffs", [{**HANDOFF, "flags": [], "quality": 4}])
    expect(card.locator(".ma-hr-judgment-words")).to_have_text(f"{JUDGE}: quality 2 of 5, flagged: dropped constraint")
    expect(card.locator('[data-ma="judgments"]')).to_be_visible()
    expect(handoffs.get_by_role("group", name="Handoff 1: Planner to Searcher", exact=True)
           .locator('[data-ma="judgment"]')).to_have_count(0)   # that card has no judgment
    region.get_by_role("radio", name="benign", exact=True).check()
    expect(region.locator(".ma-tc-judgment-words")).to_have_text(f"{JUDGE}: race_condition")
    expect(region.locator('[data-ma="judgments"]')).to_be_visible()
    assert page.evaluate("window.__pwned === undefined")

    # -- accepting stores the judge's answer with from_judgment, on every surface --------------------
    accept_on(form(page, "attribution"), "\u2019s answer")
    accept_on(form(page, "graph"), "\u2019s answer")
    accept_on(card, "\u2019s answer for Handoff 2: Searcher to Booker")
    accept_on(call_card, "\u2019s answer", exact=True)
    accept_on(region, "\u2019s answer for region 1")
    accept_on(groupthink, "\u2019s answer for groupthink")
    accept_on(form(page, "scorecard"), "\u2019s answer for Booker: contribution (2)")
    expected = {
        "attribution": {"responsible_agent": "Booker", "decisive_step": 2, "reason": ATTRIBUTION["reason"], "from_judgment": JUDGE},
        "graph": {**GRAPH, "from_judgment": JUDGE},
        "handoffs": [{**HANDOFF, "from_judgment": JUDGE}],
        "calls": [{**CALL, "notes": "", "from_judgment": JUDGE}],
        "contention": {"contentions": {"0": "race_condition"}, "regions": [{**REGION, "from_judgment": JUDGE}]},
        "behaviours": {"groupthink": {**BEHAVIOUR, "from_judgment": JUDGE}},
    }
    for name, value in expected.items():
        assert_valid(name, wait_saved_json(judged_task, user, RECORD["id"], name, value))

    def scorecard_accepted(raw):
        value = json.loads(raw) if raw else {}
        return (value.get("agents") == {"Booker": {"contribution": 2}} and value.get("team") in ({}, None)
                and value.get("from_judgment") == {"agents/Booker/contribution": JUDGE})
    assert_valid("scorecard", json.loads(wait_saved(judged_task, user, RECORD["id"], "scorecard", scorecard_accepted)))
    expect(card.get_by_role("button", name=f"Accepted {JUDGE}\u2019s answer for Handoff 2: Searcher to Booker")) \
        .to_have_attribute("aria-disabled", "true")
    expect(region.get_by_role("radio", name="race_condition", exact=True)).to_be_checked()

    # a hand edit after accepting is the annotator's own again: from_judgment goes
    card.get_by_role("radio", name="3", exact=True).check()
    region.get_by_role("radio", name="deadlock", exact=True).check()
    wait_saved_json(judged_task, user, RECORD["id"], "handoffs", [{**HANDOFF, "quality": 3}])
    wait_saved_json(judged_task, user, RECORD["id"], "contention",
                    {"contentions": {"0": "deadlock"}, "regions": [{**REGION, "label": "deadlock"}]})
    # ... and its Accept is offered again
    expect(card.get_by_role("button", name=accept("\u2019s answer for Handoff 2: Searcher to Booker"))) \
        .not_to_have_attribute("aria-disabled", "true")
    expect(region.get_by_role("button", name=accept("\u2019s answer for region 1"))).to_have_text(accept("\u2019s answer"))
    assert page.evaluate("window.__pwned === undefined")
