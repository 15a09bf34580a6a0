"""One entry per annotation type: our scheme and the Potato built-in it replaces, on one record.

Each entry says, for both sides: the config keys (the same labels where both have them), one
interaction and the stored value it must produce; for the built-in also which element it builds
per item and how many it builds for the record (`bench.builtins`), which is how the bench knows it
is ready (ours mark readiness themselves); for ours also a valid stored value for a record, which
`check` is timed on. An entry whose type is not registered (its module under `schemes/` is
missing) is measured on the built-in side only and reported as "not measured (type not present)".

Interactions are JS function bodies with `form` (the scheme's form) in scope. They act the way a
user's click does: a dispatched click, or a choice in a select followed by its `change` event.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Callable, Dict, List

from potato_multiagent.types import SCHEMES

from . import builtins

Record = Dict[str, Any]
Derivation = Dict[str, Any]


@dataclass(frozen=True)
class BuiltIn:
    """Potato 2.12.1's own widget for the same job."""

    annotation_type: str
    keys: Dict[str, Any]
    item: str                                   # CSS selector of one built item (card, option, ...)
    items: Callable[[Record], int]              # how many the built-in builds for the record
    action: str
    expect: Callable[[Any, Record], bool]       # the parsed hidden value after `action`


@dataclass(frozen=True)
class Ours:
    keys: Dict[str, Any]
    action: str
    expect: Callable[[Any, Record], bool]
    sample_value: Callable[[Derivation, random.Random], Any]   # a valid stored value


@dataclass(frozen=True)
class Scenario:
    widget: str
    builtin: BuiltIn
    ours: Ours

    @property
    def type_name(self) -> str:
        return f"multiagent.{self.widget}"

    @property
    def present(self) -> bool:
        """Our side can be measured: the type is registered."""
        return self.type_name in SCHEMES

    @property
    def scheme_name(self) -> str:
        return f"bench_{self.widget}"


# --------------------------------------------------------------------------- JS interactions


def click_first(selector: str) -> str:
    """Dispatch a click on the form's first element matching `selector` (SVG elements too)."""
    return (f"form.querySelector({json.dumps(selector)})"
            ".dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}));")


def choose_middle_option(selector: str) -> str:
    """Choose the middle option of a select (after its placeholder), as a user's pick does."""
    return (f"var select = form.querySelector({json.dumps(selector)});"
            "select.value = select.options[Math.floor((select.options.length - 1) / 2) + 1].value;"
            "select.dispatchEvent(new Event('change', {bubbles: true}));")


def choose_middle_step_in_picker(selector: str) -> str:
    """Choose the middle step in failure attribution's step picker (a combobox, issue 18) as a
    keyboard user does: open it, type the step's "#N" in the search box, press Enter."""
    key = "function key(name) { box.dispatchEvent(new KeyboardEvent('keydown', {key: name, bubbles: true, cancelable: true})); }"
    return (f"var box = form.querySelector({json.dumps(selector)}); {key}"
            "box.focus(); key('ArrowDown');"
            "var total = Number(form.querySelector('[role=option]').getAttribute('aria-setsize'));"
            "box.value = '#' + (Math.floor(total / 2) + 1); box.dispatchEvent(new Event('input', {bubbles: true}));"
            "key('Enter');")


def _middle_step(record: Record) -> int:
    return len(builtins.steps_of(record)) // 2


# --------------------------------------------------------------------------- labels
# Where both sides have the key, both get the same labels.

HANDOFF_FLAGS = ["info_loss", "dropped_constraint", "garbling", "goal_drift"]
AGENT_DIMENSIONS = ["role fidelity", "contribution", "coordination"]
TEAM_DIMENSIONS = ["coordination", "communication", "efficiency"]
MILESTONES = ["plan produced", "answer verified"]
CONTENTION_LABELS = ["deadlock", "circular_wait", "race_condition", "benign"]
BEHAVIORS = ["collusion", "groupthink", "cascading_error", "role_drift"]
VERDICTS = ["correct", "wrong_tool", "wrong_args", "wrong_order"]
NOTE = "Seen in the trace."


def _first_entry(key: str, expected: Any) -> Callable[[Any, Record], bool]:
    """The stored list holds one entry, for the first item, with `key` set to `expected`."""
    return lambda value, record: len(value) == 1 and value[0]["index"] == 0 and value[0][key] == expected


def _some(rng: random.Random, items: List[Any], most: int) -> List[Any]:
    return rng.sample(items, min(most, len(items)))


# --------------------------------------------------------------------------- agent_interaction_graph


def _graph_sample(derivation: Derivation, rng: random.Random) -> Any:
    marks = [{"from": edge["from"], "to": edge["to"], "status": rng.choice(["critical", "problematic"])}
             for edge in _some(rng, derivation["edges"], 2)]
    return {"critical_nodes": _some(rng, derivation["agents"], 3),
            "edges": {f"{mark['from']}->{mark['to']}": mark["status"] for mark in marks}, "edge_marks": marks}


AGENT_INTERACTION_GRAPH = Scenario(
    widget="agent_interaction_graph",
    builtin=BuiltIn(
        annotation_type="agent_interaction_graph",
        keys={"steps_key": "steps", "agent_key": "agent"},
        item=".aig-node",
        items=builtins.distinct_agents,
        action=click_first(".aig-node"),
        expect=lambda value, record: len(value["critical_nodes"]) == 1,
    ),
    ours=Ours(
        keys={"steps_key": "steps", "agent_key": "agent"},
        action=click_first("g.ma-aig-node"),
        expect=lambda value, record: len(value["critical_nodes"]) == 1,
        sample_value=_graph_sample,
    ),
)


# --------------------------------------------------------------------------- failure_attribution


def _attribution_sample(derivation: Derivation, rng: random.Random) -> Any:
    return {"responsible_agent": rng.choice(derivation["agents"]),
            "decisive_step": rng.randrange(len(derivation["steps"])), "reason": NOTE}


FAILURE_ATTRIBUTION = Scenario(
    widget="failure_attribution",
    builtin=BuiltIn(
        annotation_type="failure_attribution",
        keys={"steps_key": "steps", "agent_key": "agent"},
        item="select.fa-step option",
        items=lambda record: len(builtins.steps_of(record)) + 1,  # one per step, and "— select —"
        action=choose_middle_option("select.fa-step"),
        expect=lambda value, record: value["decisive_step"] == _middle_step(record),
    ),
    ours=Ours(
        keys={"steps_key": "steps", "agent_key": "agent"},
        action=choose_middle_step_in_picker('input[data-ma-field="decisive_step"]'),
        expect=lambda value, record: value["decisive_step"] == _middle_step(record),
        sample_value=_attribution_sample,
    ),
)


# --------------------------------------------------------------------------- handoff_review


def _handoff_sample(derivation: Derivation, rng: random.Random) -> Any:
    reviewed = sorted(_some(rng, derivation["handoffs"], 3), key=lambda handoff: handoff["index"])
    return [{"index": handoff["index"], "step": handoff["step"], "from_step": handoff["from_step"],
             "from": handoff["from"], "to": handoff["to"], "explicit": handoff["explicit"],
             "flags": [flag for flag in HANDOFF_FLAGS if rng.random() < 0.3], "quality": rng.randint(1, 5),
             "note": NOTE} for handoff in reviewed]


HANDOFF_REVIEW = Scenario(
    widget="handoff_review",
    builtin=BuiltIn(
        annotation_type="handoff_review",
        keys={"steps_key": "steps", "agent_key": "agent", "flags": HANDOFF_FLAGS, "quality_scale": 5},
        item=".hr-card",
        items=builtins.speaker_changes,
        action=click_first(".hr-flag"),
        expect=_first_entry("flags", [HANDOFF_FLAGS[0]]),
    ),
    ours=Ours(
        keys={"steps_key": "steps", "agent_key": "agent", "flags": HANDOFF_FLAGS, "quality_scale": 5},
        action=click_first(f'button.ma-hr-flag[data-ma-flag="{HANDOFF_FLAGS[0]}"]'),
        expect=_first_entry("flags", [HANDOFF_FLAGS[0]]),
        sample_value=_handoff_sample,
    ),
)


# --------------------------------------------------------------------------- agent_scorecard


def _scorecard_sample(derivation: Derivation, rng: random.Random) -> Any:
    return {"agents": {agent: {dimension: rng.randint(1, 5) for dimension in AGENT_DIMENSIONS}
                       for agent in derivation["agents"]},
            "team": {dimension: rng.randint(1, 5) for dimension in TEAM_DIMENSIONS},
            "milestones": {milestone: True for milestone in MILESTONES if rng.random() < 0.5}}


SCORECARD_KEYS = {"steps_key": "steps", "agent_key": "agent", "agent_dimensions": AGENT_DIMENSIONS,
                  "team_dimensions": TEAM_DIMENSIONS, "milestones": MILESTONES, "scale": 5}

AGENT_SCORECARD = Scenario(
    widget="agent_scorecard",
    builtin=BuiltIn(
        annotation_type="agent_scorecard",
        keys=SCORECARD_KEYS,
        item=".asc-card",
        items=builtins.distinct_agents,
        action=click_first(".asc-sbtn"),
        expect=lambda value, record: list(value["agents"].values()) == [{AGENT_DIMENSIONS[0]: 1}],
    ),
    ours=Ours(
        keys=SCORECARD_KEYS,
        action=click_first("input.ma-asc-radio[type=radio]"),
        expect=lambda value, record: list(value["agents"].values()) == [{AGENT_DIMENSIONS[0]: 1}],
        sample_value=_scorecard_sample,
    ),
)


# --------------------------------------------------------------------------- tool_contention


def _contention_sample(derivation: Derivation, rng: random.Random) -> Any:
    calls = {call["index"]: call for call in derivation["calls"]}
    labelled = sorted(_some(rng, derivation["contentions"], 2), key=lambda region: region["index"])
    regions = [{"index": region["index"], "resource": region["resource"], "start": region["start"],
                "end": region["end"], "agents": region["agents"],
                "calls": [{key: calls[index][key] for key in ("index", "agent", "resource", "start", "end")}
                          for index in region["calls"]],
                "label": rng.choice(CONTENTION_LABELS), "note": NOTE} for region in labelled]
    return {"contentions": {str(region["index"]): region["label"] for region in regions}, "regions": regions}


TOOL_CONTENTION = Scenario(
    widget="tool_contention",
    builtin=BuiltIn(
        annotation_type="tool_contention",
        keys={"calls_key": "calls", "agent_key": "agent", "resource_key": "resource",
              "contention_labels": CONTENTION_LABELS},
        item=".tc-card",
        items=builtins.pairwise_contentions,
        action=click_first(".tc-lbtn"),
        expect=lambda value, record: value == {"contentions": {"0": CONTENTION_LABELS[0]}},
    ),
    ours=Ours(
        keys={"calls_key": "calls", "agent_key": "agent", "resource_key": "resource",
              "contention_labels": CONTENTION_LABELS},
        action=click_first(f'.ma-tc-labels input[type=radio][value="{CONTENTION_LABELS[0]}"]'),
        expect=lambda value, record: value["contentions"] == {"0": CONTENTION_LABELS[0]},
        sample_value=_contention_sample,
    ),
)


# --------------------------------------------------------------------------- emergent_behavior


def _emergent_sample(derivation: Derivation, rng: random.Random) -> Any:
    turns = range(len(derivation["steps"]))
    value = {}
    for behavior in _some(rng, BEHAVIORS, 2):
        episodes = [{"turns": sorted(_some(rng, list(turns), 4)), "note": NOTE} for _ in range(rng.randint(1, 2))]
        value[behavior] = {"turns": sorted({turn for episode in episodes for turn in episode["turns"]}),
                           "note": "\n".join(episode["note"] for episode in episodes), "instances": episodes}
    return value


EMERGENT_BEHAVIOR = Scenario(
    widget="emergent_behavior",
    builtin=BuiltIn(
        annotation_type="emergent_behavior",
        keys={"steps_key": "steps", "agent_key": "agent", "behaviors": BEHAVIORS},
        item=".eb-cb",
        items=lambda record: len(BEHAVIORS) * len(builtins.steps_of(record)),  # a checkbox per turn and behaviour
        action=click_first(".eb-cb"),
        expect=lambda value, record: value[BEHAVIORS[0]]["turns"] == [0],
    ),
    ours=Ours(
        keys={"steps_key": "steps", "agent_key": "agent", "behaviors": BEHAVIORS},
        action=click_first("button.ma-eb-turn"),
        expect=lambda value, record: value[BEHAVIORS[0]]["turns"] == [0],
        sample_value=_emergent_sample,
    ),
)


# --------------------------------------------------------------------------- tool_call_review


def _tool_call_sample(derivation: Derivation, rng: random.Random) -> Any:
    calls = derivation["tool_calls"]
    positions = [0] * len(calls)
    for k in range(1, len(calls)):
        positions[k] = positions[k - 1] + 1 if calls[k]["step"] == calls[k - 1]["step"] else 0
    judged = sorted(_some(rng, list(range(len(calls))), 3))
    return [{"index": calls[k]["index"], "step": calls[k]["step"], "position": positions[k], "id": calls[k]["id"],
             "tool": calls[k]["tool"], "verdict": rng.choice(VERDICTS), "notes": NOTE} for k in judged]


TOOL_CALL_REVIEW = Scenario(
    widget="tool_call_review",
    builtin=BuiltIn(
        annotation_type="tool_call_review",
        keys={"steps_key": "steps", "verdict_options": VERDICTS},
        item=".tcr-card",
        items=builtins.tool_call_cards,
        action=click_first(".tcr-vbtn"),
        expect=_first_entry("verdict", VERDICTS[0]),
    ),
    ours=Ours(
        keys={"steps_key": "steps", "agent_key": "agent", "verdict_options": VERDICTS},
        action=click_first("[role=radiogroup] input[type=radio]"),
        expect=_first_entry("verdict", VERDICTS[0]),
        sample_value=_tool_call_sample,
    ),
)

SCENARIOS: List[Scenario] = [
    AGENT_INTERACTION_GRAPH, FAILURE_ATTRIBUTION, HANDOFF_REVIEW, AGENT_SCORECARD, TOOL_CONTENTION,
    EMERGENT_BEHAVIOR, TOOL_CALL_REVIEW,
]
"""In SPEC §1's order."""


def scenario(widget: str) -> Scenario:
    for entry in SCENARIOS:
        if entry.widget == widget:
            return entry
    raise KeyError(f"no scenario for {widget!r} (known: {', '.join(entry.widget for entry in SCENARIOS)})")
