"""multiagent.failure_attribution: config model, value model, validation and rendering."""

import json
import re

import pytest

from potato_multiagent import validate_value
from potato_multiagent.types import SCHEMES, scheme_for

TYPE = "multiagent.failure_attribution"
CONFIG = {"annotation_type": TYPE, "name": "attribution", "description": "Who failed?"}
RECORD = {"id": "r1", "steps": [{"agent": "Planner", "content": "plan"}, {"agent": 'Agent "Smith"', "content": "x"},
                                 {"agent": "Coder (thought)", "content": "y"}]}


def value(agent="Planner", step=1, reason=""):
    return json.dumps({"responsible_agent": agent, "decisive_step": step, "reason": reason})


def test_registered_under_the_namespaced_name():
    assert scheme_for(TYPE) is scheme_for("failure_attribution") is SCHEMES[TYPE]


@pytest.mark.parametrize("stored", [
    value(), value('Agent "Smith"', 0, "<b>html</b> {{ x }}"), value("Coder", 2), value(None, None, "only a reason"),
    "", None, {"responsible_agent": "Planner", "decisive_step": 0, "reason": ""},
    '{"responsible_agent": "Planner", "decisive_step": 1.0, "reason": ""}'])  # JSON: 1.0 is the number 1
def test_accepts_every_value_built_from_the_record(stored):
    assert validate_value(TYPE, CONFIG, stored, RECORD) == []


def test_roster_agents_are_valid_even_without_steps():
    assert validate_value(TYPE, {**CONFIG, "agents": ["Verifier"]}, value("Verifier", 0), RECORD) == []


@pytest.mark.parametrize("stored, expected", [
    (value("Ghost"), ["responsible_agent: 'Ghost' is not in this trace"]),
    (value("Coder (thought)"), ["responsible_agent: 'Coder (thought)' is not in this trace"]),
    (value(step=3), ["decisive_step: '3' is not in this trace"]),
    (value("Ghost", 99), ["responsible_agent: 'Ghost' is not in this trace", "decisive_step: '99' is not in this trace"]),
])
def test_reports_marks_the_record_does_not_contain(stored, expected):
    assert validate_value(TYPE, CONFIG, stored, RECORD) == expected


@pytest.mark.parametrize("stored, field", [
    ('{"responsible_agent": "Planner", "decisive_step": 1', "value"),     # truncated JSON
    (value(step=-1), "decisive_step"),
    (value(step=1.5), "decisive_step"),
    (value(step="1"), "decisive_step"),
    (value(step=True), "decisive_step"),
    (value(agent=7), "responsible_agent"),
    (json.dumps({"responsible_agent": "Planner", "decisive_step": 1}), "reason"),
    (json.dumps({"responsible_agent": "Planner", "decisive_step": 1, "reason": "", "extra": 1}), "extra"),
    ("[1, 2]", "value"),
    ('{"responsible_agent": "Planner", "decisive_step": NaN, "reason": ""}', "value"),
])
def test_rejects_malformed_values_naming_the_field(stored, field):
    problems = validate_value(TYPE, CONFIG, stored, RECORD)
    assert problems, stored
    assert problems[0].startswith(f"{field}:") or (field == "value" and problems[0].startswith(("value:", "Input"))), problems


def test_a_bad_config_is_reported_by_key():
    problems = validate_value(TYPE, {**CONFIG, "steps_key": 3, "agents": ["ok", " "]}, value(), RECORD)
    assert problems == ["config: steps_key: should be a text, got 3",
                        "config: agents: entry 1 is empty or only whitespace"]


def test_declares_every_config_key_to_potato():
    assert set(SCHEMES[TYPE].optional_fields()) == {"steps_key", "agent_key", "calls_key", "resource_key", "agents",
                                                    "agent_qualifiers", "show_judgments", "judgments_key", "step_help",
                                                    "ask_certainty", "max_plausible_steps"}


# -- rendering ---------------------------------------------------------------------------------

def render(**overrides):
    html, keybindings = SCHEMES[TYPE].render({**CONFIG, **overrides})
    assert keybindings == []
    return html


def test_render_labels_agent_step_and_reason():
    html = render()
    for label in ("Responsible agent", "Decisive step", "Reason"):
        assert f">{label}</label>" in html


def test_the_step_picker_says_what_the_decisive_step_is_and_the_text_is_configurable():
    html = render()
    assert "earliest step whose error, had it been fixed, would have changed the outcome" in html
    assert 'aria-describedby="attribution-ma-step-help"' in html and 'id="attribution-ma-step-help"' in html
    own = render(step_help="Pick the step where {{ it }} went <b>wrong</b>.")
    assert "Pick the step where &#123;&#123; it &#125;&#125; went &lt;b&gt;wrong&lt;/b&gt;." in own
    assert "earliest step" not in own
    none = render(step_help="")
    assert "ma-step-help" not in none
    assert "step_help" in SCHEMES[TYPE].optional_fields()
    assert SCHEMES[TYPE].render({**CONFIG, "step_help": 3})[0].count("<li>step_help:") == 1


def test_render_passes_the_config_as_one_json_attribute():
    from html import unescape

    html = render(steps_key="history", agents=['Agent "Smith"'])
    attribute = unescape(re.search(r'data-ma-config="([^"]*)"', html).group(1))
    assert json.loads(attribute)["steps_key"] == "history"
    assert json.loads(attribute)["agents"] == ['Agent "Smith"']


@pytest.mark.parametrize("bad, key", [({"agents": "Planner"}, "agents"), ({"steps_key": ""}, "steps_key"),
                                      ({"agent_qualifiers": "yes"}, "agent_qualifiers")])
def test_a_bad_config_renders_an_error_card_naming_the_key(bad, key):
    html = render(**bad)
    assert 'class="annotation-error multiagent-error"' in html
    assert f"<li>{key}:" in html
    assert "annotation-input" not in html


def test_render_never_raises_even_without_a_name():
    html, _ = SCHEMES[TYPE].render({"annotation_type": TYPE})
    assert "multiagent-error" in html and "name:" in html
