"""Broken stored values, seeded into `user_state.json` before Potato starts (issue 8; SPEC §5, §6).

For every type and every kind of damage (truncated JSON, wrong types, unknown agents, numbers out
of range, marks on steps the trace no longer has): the page loads, each widget shows what it can
and says what is wrong in words, and nothing is written back until the annotator acts; then the
action is saved.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect

from potato_multiagent import validate_value

from .harness import annotation_pairs, login, open_annotate, opened_handoff_card, returning_user_state, wait_saved
from .hostile import CONFIG_FILE, HERE, PLAIN_ID, PLAIN_RECORD, RECORD_ID, scheme, schemes, task_config, task_files

SCHEMA_NAMES = [item["name"] for item in schemes()]
DIMENSION = scheme("scorecard")["agent_dimensions"][0]
LABEL = scheme("contention")["contention_labels"][0]
VERDICT = scheme("review")["verdict_options"][0]
BEHAVIOR = scheme("emergent")["behaviors"][0]
FLAG = scheme("handoffs")["flags"][0]
PLANNER_CODER_REGION = {"index": 0, "resource": "db", "start": 0, "end": 15, "agents": ["Planner", "Coder"],
                        "calls": [{"index": 0, "agent": "Planner", "resource": "db", "start": 0, "end": 10},
                                  {"index": 1, "agent": "Coder", "resource": "db", "start": 5, "end": 15}],
                        "label": LABEL, "note": ""}


def handoff_entry(**changes) -> dict:
    return {"index": 0, "step": 1, "from_step": 0, "from": "Planner", "to": "Coder", "explicit": False,
            "flags": [], "quality": 2, "note": "", **changes}


def judgement(**changes) -> dict:
    return {"index": 0, "step": 1, "position": 0, "id": "c1", "tool": "run", "verdict": VERDICT, "notes": "",
            **changes}


TRUNCATED = '{"responsible_agent": "Pla'
BROKEN = {
    "truncated": {name: TRUNCATED for name in SCHEMA_NAMES},
    "wrong-types": {
        "attribution": {"responsible_agent": 3, "decisive_step": "two", "reason": None},
        "graph": {"critical_nodes": "Planner", "edges": [], "edge_marks": {}},
        "handoffs": {"index": 0},
        "scorecard": {"agents": [], "team": "good", "milestones": 1},
        "contention": {"contentions": [], "regions": {}},
        "emergent": [BEHAVIOR],
        "review": {"verdict": VERDICT},
    },
    "unknown-agents": {
        "attribution": {"responsible_agent": "Ghost", "decisive_step": 0, "reason": ""},
        "graph": {"critical_nodes": ["Ghost"], "edges": {}, "edge_marks": []},
        "handoffs": [handoff_entry(**{"from": "Ghost"})],
        "scorecard": {"agents": {"Ghost": {DIMENSION: 1}}, "team": {}, "milestones": {}},
        "contention": {"contentions": {"0": LABEL},
                       "regions": [{**PLANNER_CODER_REGION, "agents": ["Planner", "Ghost"]}]},
        "emergent": {BEHAVIOR: {"turns": [0], "note": "Ghost", "instances": [{"turns": [0], "note": "Ghost"}]},
                     "Ghost behaviour": {"turns": [1], "note": ""}},
        "review": [judgement(id="ghost-call", tool="Ghost")],
    },
    "out-of-range": {
        "attribution": {"responsible_agent": "Coder", "decisive_step": -1, "reason": ""},
        "graph": {"critical_nodes": ["Coder"], "edges": {"Planner->Coder": "fatal"},
                  "edge_marks": [{"from": "Planner", "to": "Coder", "status": "fatal"}]},
        "handoffs": [handoff_entry(quality=9)],
        "scorecard": {"agents": {"Coder": {DIMENSION: 7}}, "team": {}, "milestones": {}},
        "contention": {"contentions": {"0": LABEL}, "regions": [{**PLANNER_CODER_REGION, "index": -3}]},
        "emergent": {BEHAVIOR: {"turns": [-1], "note": ""}},
        "review": [judgement(index=-1)],
    },
    "steps-gone": {
        "attribution": {"responsible_agent": "Coder", "decisive_step": 99, "reason": "kept"},
        "graph": {"critical_nodes": ["Coder"], "edges": {}, "edge_marks": [{"from": "Reviewer", "to": "Planner",
                                                                              "status": "critical"}]},
        "handoffs": [handoff_entry(step=41, from_step=40)],
        "scorecard": {"agents": {}, "team": {}, "milestones": {scheme("scorecard")["milestones"][0]: True},
                      "milestone_steps": {scheme("scorecard")["milestones"][0]: 99}},
        "contention": {"contentions": {"0": LABEL},
                       "regions": [{**PLANNER_CODER_REGION, "start": 100, "end": 115,
                                    "calls": [dict(call, start=call["start"] + 100, end=call["end"] + 100)
                                              for call in PLANNER_CODER_REGION["calls"]]}]},
        "emergent": {BEHAVIOR: {"turns": [99], "note": ""}},
        "review": [judgement(index=9, step=50, id="c9")],
    },
}
KINDS = list(BROKEN)


def stored(kind: str) -> dict[str, str]:
    """The seeded value string of every scheme for one kind of damage."""
    return {name: value if isinstance(value, str) else json.dumps(value)
            for name, value in BROKEN[kind].items()}


def test_every_seeded_value_is_really_broken():
    for kind in KINDS:
        for name, raw in stored(kind).items():
            assert validate_value(scheme(name)["annotation_type"], scheme(name), raw, PLAIN_RECORD), (kind, name)


def user_of(kind: str) -> str:
    return f"broken-{kind}"


@pytest.fixture(scope="module")
def task(potato_task):
    users = {user_of(kind): returning_user_state(user_of(kind), [PLAIN_ID, RECORD_ID],
                                                 annotation_pairs({PLAIN_ID: stored(kind)}))
             for kind in KINDS}
    return potato_task(HERE, config=CONFIG_FILE, files=task_files(task_config("broken values", schemes())),
                       users=users)


def form(page, name: str):
    return page.locator(f'form.multiagent-form[data-schema-name="{name}"]')


def wait_widgets(page) -> None:
    for name in SCHEMA_NAMES:
        expect(form(page, name)).to_have_attribute("data-ma-ready", "true", timeout=30_000)


def said_in_words(page, name: str) -> str:
    """The notices of a form, and any "not in this trace" marks it shows."""
    return form(page, name).evaluate("""form => {
        const notices = [...form.querySelectorAll('.ma-notices li')].map(li => li.textContent);
        const marks = form.textContent.includes('not in this trace') ? ['not in this trace'] : [];
        return notices.concat(marks).join(' | ');
    }""")


# One ordinary action per widget on the plain run.
ACTIONS = {
    "attribution": lambda page: form(page, "attribution").get_by_label("Responsible agent")
    .select_option(label="Coder"),
    "graph": lambda page: form(page, "graph").get_by_role("button", name="Agent Reviewer", exact=True).click(),
    "handoffs": lambda page: opened_handoff_card(form(page, "handoffs").get_by_role(
        "group", name="Handoff 2: Coder to Reviewer", exact=True)).get_by_role("button", name=FLAG, exact=True).click(),
    "scorecard": lambda page: form(page, "scorecard").get_by_role("radiogroup", name=f"Reviewer: {DIMENSION}",
                                                                  exact=True)
    .locator('input[type="radio"][value="3"]').click(),
    "contention": lambda page: form(page, "contention").locator(".ma-tc-region").first
    .get_by_role("radiogroup", name="Label").get_by_role("radio", name=LABEL, exact=True).check(),
    "emergent": lambda page: form(page, "emergent").get_by_role("button", name="Turn 3 (Reviewer)", exact=True).click(),
    "review": lambda page: form(page, "review").get_by_role("radiogroup", name="Verdict").first
    .get_by_role("radio", name=scheme("review")["verdict_options"][1], exact=True).check(),
}


# Marks the trace lacks stay in the value after an unrelated action (SPEC §6: restore never loses
# work). The attribution's agent is the exception by nature: choosing an agent replaces it.
MILESTONE = scheme("scorecard")["milestones"][0]
KEPT = {
    "unknown-agents": {
        "graph": lambda value: "Ghost" in value["critical_nodes"],
        "handoffs": lambda value: any(entry["from"] == "Ghost" for entry in value),
        "scorecard": lambda value: "Ghost" in value["agents"],
        "contention": lambda value: any("Ghost" in region["agents"] for region in value["regions"]),
        "emergent": lambda value: "Ghost behaviour" in value,
        "review": lambda value: any(entry["id"] == "ghost-call" for entry in value),
    },
    "steps-gone": {
        "attribution": lambda value: value["decisive_step"] == 99,
        "graph": lambda value: {"from": "Reviewer", "to": "Planner", "status": "critical"} in value["edge_marks"],
        "handoffs": lambda value: any(entry["step"] == 41 for entry in value),
        "scorecard": lambda value: value["milestone_steps"] == {MILESTONE: 99},
        "contention": lambda value: any(region["start"] == 100 for region in value["regions"]),
        "emergent": lambda value: 99 in value[BEHAVIOR]["turns"],
        "review": lambda value: any(entry["id"] == "c9" for entry in value),
    },
}


@pytest.mark.e2e
@pytest.mark.parametrize("kind", KINDS)
def test_broken_values_are_shown_in_words_and_kept_until_the_annotator_acts(task, page, kind):
    user = user_of(kind)
    seeded = stored(kind)
    login(page, task.base_url, user)
    wait_widgets(page)
    for name in SCHEMA_NAMES:
        assert said_in_words(page, name), f"{name} says nothing about its {kind} value {seeded[name]!r}"
        expect(form(page, name)).not_to_have_attribute("data-ma-error", re.compile(".*"))
    assert "Traceback" not in page.content()

    time.sleep(2)
    assert task.saved(user)[PLAIN_ID] == seeded, "loading the page wrote over a stored value"
    open_annotate(page, task.base_url)
    wait_widgets(page)
    assert task.saved(user)[PLAIN_ID] == seeded, "a reload wrote over a stored value"

    for name, act in ACTIONS.items():
        act(page)
        changed = wait_saved(task, user, PLAIN_ID, name, lambda value, old=seeded[name]: bool(value) and value != old)
        kept = KEPT.get(kind, {}).get(name)
        assert kept is None or kept(json.loads(changed)), f"{name} dropped a mark the trace lacks: {changed[:300]}"
