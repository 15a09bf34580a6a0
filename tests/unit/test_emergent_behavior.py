"""multiagent.emergent_behavior: config model, value model, validation and rendering."""

import json
import re
from html import unescape

import pytest

from potato_multiagent import validate_value
from potato_multiagent.types import SCHEMES, scheme_for
from potato_multiagent.types.emergent_behavior.scheme import EmergentBehaviorValue

TYPE = "multiagent.emergent_behavior"
CONFIG = {"annotation_type": TYPE, "name": "emergent", "description": "Which behaviours?"}
RECORD = {"id": "r1", "steps": [{"agent": "Moderator", "content": "q"}, {"agent": 'Agent "Smith"', "content": "yes"},
                                 {"agent": "<b>Bold</b>", "content": "agreed"}, {"content": "no agent"},
                                 {"agent": 'Agent "Smith"', "content": "still yes"}]}


def entry(*instances):
    """A behaviour entry as the widget writes it: the union and the joined notes beside the instances."""
    instances = [{"turns": turns, "note": note} for turns, note in instances]
    union = sorted({turn for instance in instances for turn in instance["turns"]})
    notes = "\n".join(instance["note"] for instance in instances if instance["note"])
    return {"turns": union, "note": notes, "instances": instances}


def problems(value, config=CONFIG, record=RECORD):
    stored = value if value is None or isinstance(value, str) else json.dumps(value)
    return validate_value(TYPE, config, stored, record)


def test_registered_under_the_namespaced_name():
    assert scheme_for(TYPE) is scheme_for("emergent_behavior") is SCHEMES[TYPE]


# -- config --------------------------------------------------------------------------------------

def test_config_defaults():
    config, errors = SCHEMES[TYPE].parse_config(CONFIG)
    assert errors == []
    assert config.behaviors == ["collusion", "groupthink", "cascading_error", "role_drift"]
    assert config.allow_note is True


def test_declares_every_config_key_to_potato():
    assert set(SCHEMES[TYPE].optional_fields()) == {"steps_key", "agent_key", "calls_key", "resource_key", "agents",
                                                    "agent_qualifiers", "show_judgments", "judgments_key", "behaviors", "allow_note"}


@pytest.mark.parametrize("bad, message", [
    ({"behaviors": []}, "config: behaviors: should have at least 1 item(s)"),
    ({"behaviors": "groupthink"}, "config: behaviors: should be a list, got \"groupthink\""),
    ({"behaviors": ["groupthink", " "]}, "config: behaviors: entry 1 is empty or only whitespace"),
    ({"behaviors": ["groupthink", ""]}, "config: behaviors: entry 1 is empty or only whitespace"),
    ({"behaviors": ["groupthink", "groupthink"]}, "config: behaviors: 'groupthink' is listed twice"),
    ({"behaviors": ["groupthink", 3]}, "config: behaviors[1]: should be a text, got 3"),
    ({"allow_note": "yes"}, "config: allow_note: should be true or false, got \"yes\""),
])
def test_a_bad_config_is_reported_by_key(bad, message):
    assert problems({}, {**CONFIG, **bad}) == [message]


# -- values --------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [
    "", None, {},
    {"groupthink": entry(([1, 2], "first"), ([4], "second"))},
    {"groupthink": entry(([1, 2, 4], ""))},
    {"collusion": entry(([], "a note is an instance"))},
    {"groupthink": {"turns": [4, 1], "note": "a seed value: no instances"}},
    {"groupthink": entry(([0, 1], "<b>html</b> {{ x }} \"quoted\"")), "role_drift": entry(([3], ""))},
    '{"groupthink": {"turns": [1.0], "note": "", "instances": [{"turns": [1], "note": ""}]}}',  # JSON: 1.0 is 1
])
def test_accepts_every_value_built_from_the_record(value):
    assert problems(value) == []


def test_two_instances_may_share_a_turn():
    assert problems({"groupthink": entry(([1, 2], ""), ([2, 4], ""))}) == []


def test_custom_behaviours_are_the_only_ones_accepted():
    config = {**CONFIG, "behaviors": ['Herding "sheep"', "{{ x }}"]}
    assert problems({'Herding "sheep"': entry(([0], ""))}, config) == []
    assert problems({"groupthink": entry(([0], ""))}, config) == [
        "value: 'groupthink' is not one of the configured behaviors"]


@pytest.mark.parametrize("value, expected", [
    ({"groupthink": entry(([1], ""), ([5, 9], ""))},
     ["groupthink.instances[1].turns: '5' is not in this trace", "groupthink.instances[1].turns: '9' is not in this trace"]),
    ({"groupthink": {"turns": [7], "note": ""}}, ["groupthink.turns: '7' is not in this trace"]),
    ({"herding": entry(([1], ""))}, ["value: 'herding' is not one of the configured behaviors"]),
])
def test_reports_marks_the_record_or_config_does_not_contain(value, expected):
    assert problems(value) == expected


def test_a_record_without_steps_has_every_turn_out_of_the_trace():
    assert problems({"groupthink": entry(([0], ""))}, record={"id": "x"}) == [
        "groupthink.instances[0].turns: '0' is not in this trace"]


@pytest.mark.parametrize("value, expected", [
    ({"groupthink": {**entry(([1], ""), ([4], "")), "turns": [1]}},
     ["groupthink.turns: should be [1, 4], the sorted union of the instances' turns"]),
    ({"groupthink": {**entry(([1, 4], "")), "turns": [4, 1]}},
     ["groupthink.turns: should be [1, 4], the sorted union of the instances' turns"]),
    ({"groupthink": entry(([1], ""), ([], ""))},
     ["groupthink.instances[1]: has neither a turn nor a note (store only what was marked)"]),
    ({"groupthink": {"turns": [], "note": ""}},
     ["groupthink: has neither a turn nor a note (store only what was marked)"]),
])
def test_reports_values_whose_parts_disagree(value, expected):
    assert problems(value) == expected


@pytest.mark.parametrize("value, field", [
    ('{"groupthink": {"turns": [1], "note": ""', "value"),                       # truncated JSON
    ("[1, 2]", "value"),
    ('"groupthink"', "value"),
    ({"groupthink": True}, "groupthink"),
    ({"groupthink": {"turns": [-1], "note": ""}}, "groupthink.turns[0]"),
    ({"groupthink": {"turns": [1.5], "note": ""}}, "groupthink.turns[0]"),
    ({"groupthink": {"turns": ["1"], "note": ""}}, "groupthink.turns[0]"),
    ({"groupthink": {"turns": [True], "note": ""}}, "groupthink.turns[0]"),
    ({"groupthink": {"turns": [1, 1], "note": ""}}, "groupthink.turns[1]"),
    ({"groupthink": {"turns": [1], "note": None}}, "groupthink.note"),
    ({"groupthink": {"turns": [1]}}, "groupthink.note"),
    ({"groupthink": {"turns": [1], "note": "", "extra": 1}}, "groupthink.extra"),
    ({"groupthink": {"turns": [1], "note": "", "instances": []}}, "groupthink.instances"),
    ({"groupthink": {"turns": [1], "note": "", "instances": None}}, "groupthink.instances"),
    ({"groupthink": {"turns": [1], "note": "", "instances": [{"turns": [1, 1], "note": ""}]}},
     "groupthink.instances[0].turns[1]"),
    ({"groupthink": {"turns": [1], "note": "", "instances": [{"turns": [1]}]}}, "groupthink.instances[0].note"),
    ('{"groupthink": {"turns": [NaN], "note": ""}}', "value"),
])
def test_rejects_malformed_values_naming_the_field(value, field):
    found = problems(value)
    assert found, value
    assert found[0].startswith(f"{field}:") or (field == "value" and found[0].startswith(("value:", "Input"))), found


def test_repeated_turns_name_the_turn():
    assert problems({"groupthink": {"turns": [1, 1], "note": ""}}) == [
        "groupthink.turns[1]: repeats an earlier item"]


def test_value_schema_says_turns_are_unique_so_the_browser_agrees():
    schema = EmergentBehaviorValue.model_json_schema()
    assert schema["additionalProperties"] == {"$ref": "#/$defs/BehaviorEntry"}
    assert schema["$defs"]["BehaviorEntry"]["properties"]["turns"]["uniqueItems"] is True
    assert schema["$defs"]["BehaviorInstance"]["properties"]["turns"]["uniqueItems"] is True


# -- rendering -----------------------------------------------------------------------------------

def render(**overrides):
    html, keybindings = SCHEMES[TYPE].render({**CONFIG, **overrides})
    assert keybindings == []
    return html


def test_render_has_the_widget_parts_and_no_potato_shortcuts():
    html = render()
    assert "data-key" not in html  # Potato's keyup shortcuts would toggle our checkboxes
    for part in ("behaviors", "none", "filter", "jump", "lanes", "detail-text"):   # the pager is web/pager.js's
        assert f'data-ma="{part}"' in html


def test_render_escapes_html_and_jinja_braces_everywhere():
    html = render(name="R&D {{ x }}", description='Who {{ 7*7 }} {# "quoted" <b>',
                  behaviors=['<img src=x onerror=alert(1)>', "{{ 7*7 }}", 'say "hi"'])
    assert "{" not in html and "}" not in html
    assert "Who &#123;&#123; 7*7 &#125;&#125; &#123;# &#34;quoted&#34; &lt;b&gt;" in html
    assert "<img" not in html and "<b>" not in html


def test_render_passes_behaviours_and_value_schema_in_one_json_attribute():
    html = render(behaviors=['Herding "sheep"', "groupthink"], allow_note=False, steps_key="history")
    config = json.loads(unescape(re.search(r'data-ma-config="([^"]*)"', html).group(1)))
    assert config["behaviors"] == ['Herding "sheep"', "groupthink"]
    assert config["allow_note"] is False and config["steps_key"] == "history"
    assert config["value_schema"] == EmergentBehaviorValue.model_json_schema()


@pytest.mark.parametrize("bad, key", [({"behaviors": "groupthink"}, "behaviors"), ({"behaviors": []}, "behaviors"),
                                      ({"allow_note": "no"}, "allow_note")])
def test_a_bad_config_renders_an_error_card_naming_the_key(bad, key):
    html = render(**bad)
    assert 'class="annotation-error multiagent-error"' in html
    assert f"<li>{key}:" in html
    assert "annotation-input" not in html
