"""One small driver per type for the e2e contract test (tests/e2e/test_contract.py).

Every driver works on the hostile record (`tests/e2e/hostile/`) with the hostile schemes: `act`
makes one mark the way an annotator does, `expected` is the value Potato must then store (written
by hand from the type's Value model in `types/<type>/scheme.py` and the record, never read back
from the widget), and `controls` are the widget's own controls in which the Left/Right arrow keys
must not turn Potato's page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from potato_multiagent import derive

from .harness import opened_handoff_card, step_picker
from .hostile import record, scheme as full_scheme, schemes as full_schemes

# The hostile strings, with its "big" ones 300 characters long: pages of 100 KB strings are
# test_hostile_input.py's; here they would only make seven page loads slow.
BIG_SIZE = 300
RECORD = record(BIG_SIZE)
DERIVATION = derive(RECORD).to_dict()
A_ATTR, A_IMG, A_SCRIPT, A_ARROW, A_BIDI, A_BIG = DERIVATION["agents"]
RESOURCES = [region["resource"] for region in DERIVATION["contentions"]]
FORMS = "form.multiagent-form"


def schemes() -> list[dict]:
    return full_schemes(BIG_SIZE)


def scheme(name: str) -> dict:
    return full_scheme(name, BIG_SIZE)


def form(page, name: str):
    return page.locator(f'{FORMS}[data-schema-name="{name}"]')


def starting_with(text: str, then: str = "") -> re.Pattern:
    """An accessible name starting with `text` (Playwright's selector parser needs `/` escaped)."""
    return re.compile("^" + re.escape(text).replace("/", "\\/") + then)


@dataclass(frozen=True)
class Driver:
    """What the contract test needs to know of one type on the hostile page."""

    schema: str
    act: Callable[[Any], None]
    expected: Any
    controls: Callable[[Any], list]

    @property
    def config(self) -> dict:
        return scheme(self.schema)

    @property
    def annotation_type(self) -> str:
        return self.config["annotation_type"]


# --------------------------------------------------------------------------- failure attribution


def act_attribution(page) -> None:
    form(page, "attribution").get_by_label("Responsible agent").select_option(label=A_IMG)


def attribution_controls(page) -> list:
    attribution = form(page, "attribution")
    return [attribution.get_by_label("Responsible agent"), step_picker(attribution), attribution.get_by_label("Reason")]


ATTRIBUTION = Driver("attribution", act_attribution,
                     {"responsible_agent": A_IMG, "decisive_step": None, "reason": ""}, attribution_controls)


# --------------------------------------------------------------------------- interaction graph


def graph_node(page, agent: str):
    """A node by its agent; its accessible name goes on with its state ("Agent X, ...")."""
    return form(page, "graph").get_by_role("button", name=starting_with(f"Agent {agent}", "(,|$)"))


def act_graph(page) -> None:
    graph_node(page, A_ARROW).click()


def graph_controls(page) -> list:
    first_edge = form(page, "graph").get_by_role("button", name=starting_with(f"{A_ATTR} to {A_IMG},"))
    return [graph_node(page, A_ARROW), graph_node(page, A_IMG), first_edge]


GRAPH = Driver("graph", act_graph, {"critical_nodes": [A_ARROW], "edges": {}, "edge_marks": []}, graph_controls)


# --------------------------------------------------------------------------- handoff review

EXPLICIT_HANDOFF = DERIVATION["handoffs"][2]   # <script> agent -> A->B agent, an explicit event at step 3
FLAG = scheme("handoffs")["flags"][0]


def handoff_card(page, handoff: dict):
    """A handoff's card by its title (the accessible name may go on with the card's state)."""
    title = f"Handoff {handoff['index'] + 1}: {handoff['from']} to {handoff['to']}"
    return form(page, "handoffs").get_by_role("group", name=starting_with(title))


def act_handoffs(page) -> None:
    opened_handoff_card(handoff_card(page, EXPLICIT_HANDOFF)).get_by_role("button", name=FLAG, exact=True).click()


def handoff_controls(page) -> list:
    """The first flag button and quality radio on the page (Next/Prev may show the cards paged
    or filtered otherwise; test_handoff_review.py presses arrows in each of its controls)."""
    handoffs = form(page, "handoffs")
    return [handoffs.get_by_role("button", name=FLAG, exact=True).first, handoffs.get_by_role("radio").first]


HANDOFFS = Driver("handoffs", act_handoffs,
                  [{"index": 2, "step": 3, "from_step": 3, "from": A_SCRIPT, "to": A_ARROW, "explicit": True,
                    "flags": [FLAG], "quality": None, "note": ""}], handoff_controls)


# --------------------------------------------------------------------------- agent scorecard

DIMENSION = scheme("scorecard")["agent_dimensions"][0]


def score_group(page):
    return form(page, "scorecard").get_by_role("radiogroup", name=f"{A_BIDI}: {DIMENSION}", exact=True)


def act_scorecard(page) -> None:
    score_group(page).locator('input[type="radio"][value="2"]').click()


def scorecard_controls(page) -> list:
    return [score_group(page).locator('input[type="radio"][value="2"]'),
            form(page, "scorecard").locator('input[type="checkbox"]').first]


SCORECARD = Driver("scorecard", act_scorecard,
                   {"agents": {A_BIDI: {DIMENSION: 2}}, "team": {}, "milestones": {}}, scorecard_controls)


# --------------------------------------------------------------------------- tool contention

CONTENTION_LABEL = scheme("contention")["contention_labels"][1]
CALLS = RECORD["calls"]


def contention_radio(page):
    return form(page, "contention").locator(".ma-tc-region").first.get_by_role("radiogroup", name="Label") \
        .get_by_role("radio", name=CONTENTION_LABEL, exact=True)


def act_contention(page) -> None:
    contention_radio(page).check()


def contention_controls(page) -> list:
    return [contention_radio(page), form(page, "contention").locator(".ma-tc-region").first.get_by_label("Note")]


def call_identity(index: int) -> dict:
    call = CALLS[index]
    return {"index": index, "agent": call["agent"], "resource": call["resource"], "start": call["start"],
            "end": call["end"]}


CONTENTION = Driver("contention", act_contention,
                    {"contentions": {"0": CONTENTION_LABEL},
                     "regions": [{"index": 0, "resource": RESOURCES[0], "start": 0, "end": 15,
                                  "agents": [A_ATTR, A_IMG], "calls": [call_identity(0), call_identity(1)],
                                  "label": CONTENTION_LABEL, "note": ""}]}, contention_controls)


# --------------------------------------------------------------------------- emergent behaviour

BEHAVIOR = scheme("emergent")["behaviors"][0]


def turn_button(page, number: int, agent: str):
    return form(page, "emergent").get_by_role("button", name=f"Turn {number} ({agent})", exact=True)


def act_emergent(page) -> None:
    turn_button(page, 2, A_IMG).click()


def emergent_controls(page) -> list:
    return [turn_button(page, 2, A_IMG), turn_button(page, 3, A_SCRIPT)]


EMERGENT = Driver("emergent", act_emergent,
                  {BEHAVIOR: {"turns": [1], "note": "", "instances": [{"turns": [1], "note": ""}]}}, emergent_controls)


# --------------------------------------------------------------------------- tool-call review

FIRST_CALL = DERIVATION["tool_calls"][0]
VERDICT = scheme("review")["verdict_options"][1]


def call_card(page):
    title = f"Call 1: {FIRST_CALL['tool']} by {FIRST_CALL['agent']} (step 1)"
    return form(page, "review").get_by_role("group", name=title, exact=True)


def verdict_radio(page):
    return call_card(page).get_by_role("radiogroup", name="Verdict").get_by_role("radio", name=VERDICT, exact=True)


def act_review(page) -> None:
    verdict_radio(page).check()


def review_controls(page) -> list:
    return [verdict_radio(page), call_card(page).get_by_label("Notes")]


REVIEW = Driver("review", act_review,
                [{"index": 0, "step": 0, "position": 0, "id": FIRST_CALL["id"], "tool": FIRST_CALL["tool"],
                  "verdict": VERDICT, "notes": ""}], review_controls)


# --------------------------------------------------------------------------- MAST (a hostile inline taxonomy)

MAST_TAXONOMY = scheme("mast")["taxonomy"]
FIRST_MODE = MAST_TAXONOMY["modes"][0]


def act_mast(page) -> None:
    mast = form(page, "mast")
    mast.get_by_label("Step #", exact=True).fill("2")
    mast.get_by_label("Mode", exact=True).select_option(FIRST_MODE["code"])
    mast.get_by_role("button", name="Add tag", exact=True).click()


def mast_controls(page) -> list:
    mast = form(page, "mast")
    return [mast.get_by_label("Step #", exact=True), mast.get_by_label("Mode", exact=True),
            mast.get_by_role("textbox", name=starting_with("Note on ")),
            mast.get_by_role("checkbox", name=f"{FIRST_MODE['code']} {FIRST_MODE['name']}", exact=True)]


MAST = Driver("mast", act_mast, {"taxonomy": f"{MAST_TAXONOMY['name']}@{MAST_TAXONOMY['version']}",
                                 "steps": [{"step": 1, "mode": FIRST_MODE["code"], "note": "", "severity": None}],
                                 "run": []}, mast_controls)


DRIVERS = {driver.schema: driver for driver in (ATTRIBUTION, GRAPH, HANDOFFS, SCORECARD, CONTENTION, EMERGENT, REVIEW,
                                                MAST)}
assert sorted(DRIVERS) == sorted(item["name"] for item in schemes()), "one driver per hostile scheme"
