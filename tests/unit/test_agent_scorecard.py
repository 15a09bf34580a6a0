"""multiagent.agent_scorecard: config model, value model, validation, rendering, and the widget's
wording of the same problems (types/agent_scorecard/marks.js run by node on the same cases)."""

import json
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest

from potato_multiagent import validate_value
from potato_multiagent.types import SCHEMES, scheme_for
from potato_multiagent.types.agent_scorecard.scheme import AgentScorecardConfig

TYPE = "multiagent.agent_scorecard"
SCHEME = SCHEMES[TYPE]
CONFIG = {"annotation_type": TYPE, "name": "scorecard", "description": "Score the team",
          "milestones": ["plan agreed", "tests pass"], "milestone_steps": True}
SMITH = 'Agent "Smith"'
RECORD = {"id": "r1", "steps": [{"agent": "Planner", "content": "plan"}, {"agent": SMITH, "content": "x"},
                                 {"agent": "<b>Bold</b> {{ 7*7 }}", "content": "y"}]}
PACKAGE = Path(__file__).resolve().parents[2] / "src" / "potato_multiagent"


def scorecard(agents=None, team=None, milestones=None, **extra):
    return {"agents": agents or {}, "team": team or {}, "milestones": milestones or {}, **extra}


def check(value, record=RECORD, **config):
    stored = value if value is None or isinstance(value, str) else json.dumps(value)
    return validate_value(TYPE, {**CONFIG, **config}, stored, record)


def test_registered_under_the_namespaced_name():
    assert scheme_for(TYPE) is scheme_for("agent_scorecard") is SCHEME


# -- config ------------------------------------------------------------------------------------

def test_config_defaults_are_the_seeds():
    config, problems = SCHEME.parse_config({"name": "s", "description": "d"})
    assert problems == []
    assert config.agent_dimensions == ["role fidelity", "contribution", "coordination"]
    assert config.team_dimensions == ["coordination", "communication", "efficiency"]
    assert (config.milestones, config.scale, config.scale_labels) == ([], 5, None)
    assert (config.allow_na, config.milestone_steps) == (True, False)


def test_declares_every_config_key_to_potato():
    assert set(SCHEME.optional_fields()) == {
        "steps_key", "agent_key", "calls_key", "resource_key", "agents", "agent_qualifiers", "show_judgments", "judgments_key", "agent_dimensions",
        "team_dimensions", "milestones", "scale", "scale_labels", "allow_na", "milestone_steps"}


@pytest.mark.parametrize("labels, expected", [
    (["poor", "weak", "fair", "good", "great"], {1: "poor", 2: "weak", 3: "fair", 4: "good", 5: "great"}),
    ({1: "poor", 5: "great"}, {1: "poor", 5: "great"}),
    ({"1": "poor", "5": "great"}, {1: "poor", 5: "great"}),   # a JSON config's keys are strings
])
def test_scale_labels_are_a_list_or_a_map_by_score(labels, expected):
    config, problems = SCHEME.parse_config({"name": "s", "description": "d", "scale_labels": labels})
    assert problems == []
    assert config.scale_labels == expected
    assert config.scale_points()[0] == (1, "poor") and config.scale_points()[4] == (5, "great")


@pytest.mark.parametrize("bad, expected", [
    ({"scale": 1}, "scale: should be at least 2, got 1"),
    ({"scale": 11}, "scale: should be at most 10, got 11"),
    ({"scale": "5"}, "scale: should be an integer ≥ 2 ≤ 10, got \"5\""),
    ({"agent_dimensions": "contribution"}, "agent_dimensions: should be a list, got \"contribution\""),
    ({"agent_dimensions": ["a", " "]}, "agent_dimensions: entry 1 is empty or only whitespace"),
    ({"team_dimensions": ["speed", "speed"]}, "team_dimensions: 'speed' is listed twice"),
    ({"milestones": ["done", "done"]}, "milestones: 'done' is listed twice"),
    ({"agent_dimensions": []}, "agent_dimensions: should have at least 1 item(s)"),
    ({"team_dimensions": []}, "team_dimensions: should have at least 1 item(s)"),
    ({"scale_labels": ["poor", "great"]},
     "scale_labels: a list needs one label per score: 5 (the scale), got 2"),
    ({"scale_labels": {0: "none"}}, "scale_labels: score 0 is outside the scale 1..5"),
    ({"scale": 3, "scale_labels": {4: "good"}}, "scale_labels: score 4 is outside the scale 1..3"),
    ({"scale_labels": {"one": "poor"}}, "scale_labels: keys are scores, got 'one'"),
    ({"scale_labels": {True: "poor"}}, "scale_labels: keys are scores, got True"),
    ({"scale_labels": {1: "ok", 2: "ok"}}, "scale_labels: 'ok' is listed twice"),
    ({"scale_labels": "poor"}, "scale_labels: should be an object or null, got \"poor\""),
    ({"allow_na": "yes"}, "allow_na: should be true or false, got \"yes\""),
    ({"milestone_steps": 1}, "milestone_steps: should be true or false, got 1"),
])
def test_a_bad_config_is_reported_by_key(bad, expected):
    assert check(scorecard(), **bad) == [f"config: {expected}"]


# -- values ------------------------------------------------------------------------------------

FULL = scorecard(
    agents={"Planner": {"role fidelity": 5, "contribution": 4, "coordination": 4},
            SMITH: {"role fidelity": 2, "contribution": 1}},
    team={"coordination": 3, "communication": 4},
    milestones={"plan agreed": True},
    not_applicable={"agents": {SMITH: ["coordination"], "<b>Bold</b> {{ 7*7 }}": ["role fidelity"]},
                    "team": ["efficiency"]},
    milestone_steps={"plan agreed": 0})


@pytest.mark.parametrize("stored", [
    FULL, scorecard(), "", None,
    scorecard(agents={SMITH: {"contribution": 5}}),                       # the seed's shape exactly
    scorecard(milestones={"plan agreed": True, "tests pass": False}),      # the seed may store false
    '{"agents": {"Planner": {"contribution": 4.0}}, "team": {}, "milestones": {}}',   # JSON: 4.0 is 4
    scorecard(not_applicable={}, milestone_steps={}),
])
def test_accepts_every_value_built_from_the_record(stored):
    assert check(stored) == []


def test_roster_agents_can_be_scored_without_steps():
    assert check(scorecard(agents={"Auditor": {"contribution": 2}}), agents=["Auditor"]) == []


def test_a_ten_point_scale_accepts_ten():
    assert check(scorecard(team={"efficiency": 10}), scale=10) == []


@pytest.mark.parametrize("stored, expected", [
    (scorecard(agents={"Ghost": {"contribution": 3}}), ["agents: 'Ghost' is not in this trace"]),
    (scorecard(agents={"Agent ": {"contribution": 3}}), ["agents: 'Agent ' is not in this trace"]),  # built-in's save
    (scorecard(agents={"Planner": {"creativity": 3}}),
     ["agents.Planner: 'creativity' is not one of the configured agent_dimensions"]),
    (scorecard(agents={"Planner": {"contribution": 6}}), ["agents.Planner.contribution: should be at most 5, got 6"]),
    (scorecard(team={"speed": 2}), ["team: 'speed' is not one of the configured team_dimensions"]),
    (scorecard(team={"efficiency": 9}), ["team.efficiency: should be at most 5, got 9"]),
    (scorecard(milestones={"shipped": True}), ["milestones: 'shipped' is not one of the configured milestones"]),
    (scorecard(milestones={"plan agreed": True}, milestone_steps={"plan agreed": 3}),
     ["milestone_steps.plan agreed: '3' is not in this trace"]),
    (scorecard(milestone_steps={"plan agreed": 1}), ["milestone_steps.plan agreed: the milestone is not marked reached"]),
    (scorecard(milestones={"shipped": True}, milestone_steps={"shipped": 1}),
     ["milestones: 'shipped' is not one of the configured milestones",
      "milestone_steps: 'shipped' is not one of the configured milestones"]),
    (scorecard(not_applicable={"agents": {"Ghost": ["contribution"]}}),
     ["not_applicable.agents: 'Ghost' is not in this trace"]),
    (scorecard(not_applicable={"team": ["speed"]}),
     ["not_applicable.team: 'speed' is not one of the configured team_dimensions"]),
    (scorecard(team={"efficiency": 2}, not_applicable={"team": ["efficiency"]}),
     ["not_applicable.team: 'efficiency' is also scored"]),
    (scorecard(agents={"Planner": {"contribution": 2}}, not_applicable={"agents": {"Planner": ["contribution"]}}),
     ["not_applicable.agents.Planner: 'contribution' is also scored"]),
    (scorecard(agents={"Ghost": {"speed": 7}}, team={"speed": 1}),
     ["agents: 'Ghost' is not in this trace", "agents.Ghost: 'speed' is not one of the configured agent_dimensions",
      "team: 'speed' is not one of the configured team_dimensions"]),
])
def test_reports_marks_the_record_or_config_does_not_contain(stored, expected):
    assert check(stored) == expected


def test_not_applicable_is_refused_when_the_scheme_does_not_offer_it():
    assert check(scorecard(not_applicable={"team": ["efficiency"]}), allow_na=False) == [
        "not_applicable: not recorded by this scheme (allow_na: false)"]


def test_steps_are_refused_when_the_scheme_does_not_record_them():
    stored = scorecard(milestones={"plan agreed": True}, milestone_steps={"plan agreed": 0})
    assert check(stored, milestone_steps=False) == [
        "milestone_steps: not recorded by this scheme (milestone_steps: false)"]


def test_a_tampered_score_names_the_configured_scale_not_the_schema_ceiling():
    """Issue 14 item 5: 99 on a 1-5 scale is "at most 5"; MAX_SCALE (10) is nobody's scale."""
    assert check(scorecard(agents={"Planner": {"contribution": 99}})) == [
        "agents.Planner.contribution: should be at most 5, got 99"]
    assert check(scorecard(team={"efficiency": 99}), scale=7) == ["team.efficiency: should be at most 7, got 99"]


SHAPE_IN_NODE = """
const runtime = require(process.argv[1] + '/web/widget.js');
const {config, values} = JSON.parse(require('fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify(values.map((value) => runtime.checkValue(value, config))));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_score_below_one_is_worded_alike_by_check_and_the_browser():
    values = [scorecard(agents={"Planner": {"contribution": 0}}), scorecard(team={"efficiency": -2})]
    config, problems = SCHEME.parse_config(CONFIG)
    assert problems == []
    out = subprocess.run(["node", "-e", SHAPE_IN_NODE, str(PACKAGE)],
                         input=json.dumps({"config": SCHEME.widget_config(config), "values": values}),
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [check(value) for value in values] == [
        ["agents.Planner.contribution: should be at least 1, got 0"], ["team.efficiency: should be at least 1, got -2"]]


def test_scores_beyond_a_smaller_scale_are_reported():
    assert check(scorecard(team={"coordination": 4}), scale=3) == ["team.coordination: should be at most 3, got 4"]


@pytest.mark.parametrize("stored, field", [
    ('{"agents": {}, "team": {}', "value"),                                      # truncated JSON
    ("[1, 2]", "value"),
    (scorecard(team={"coordination": 0}), "team.coordination"),
    (scorecard(team={"coordination": 11}), "team.coordination"),
    (scorecard(team={"coordination": 2.5}), "team.coordination"),
    (scorecard(team={"coordination": "4"}), "team.coordination"),
    (scorecard(team={"coordination": True}), "team.coordination"),
    (scorecard(team={"coordination": "na"}), "team.coordination"),             # N/A lives in not_applicable
    (scorecard(agents={"Planner": 4}), "agents.Planner"),
    (scorecard(milestones={"plan agreed": "yes"}), "milestones.plan agreed"),
    (scorecard(milestone_steps={"plan agreed": -1}), "milestone_steps.plan agreed"),
    (scorecard(not_applicable={"team": ["efficiency", "efficiency"]}), "not_applicable.team[1]"),
    (scorecard(not_applicable={"agents": {"Planner": "contribution"}}), "not_applicable.agents.Planner"),
    (scorecard(not_applicable={"crew": []}), "not_applicable.crew"),
    ({"agents": {}, "team": {}}, "milestones"),
    ({**scorecard(), "notes": ""}, "notes"),
    ('{"agents": {}, "team": {"coordination": NaN}, "milestones": {}}', "value"),
])
def test_rejects_malformed_values_naming_the_field(stored, field):
    problems = check(stored)
    assert problems, stored
    assert problems[0].startswith(f"{field}:") or (field == "value" and problems[0].startswith(("value:", "Input"))), \
        problems


# -- rendering ---------------------------------------------------------------------------------

def render(**overrides):
    html, keybindings = SCHEME.render({**CONFIG, **overrides})
    assert keybindings == []
    return html


def test_render_shows_dimensions_as_column_headers_and_the_scale():
    html = render(scale_labels={1: "poor", 5: "excellent"})
    for dimension in ("role fidelity", "contribution", "coordination", "communication", "efficiency"):
        assert f'<th scope="col">{dimension}</th>' in html
    scale = " ".join(re.search(r'data-ma="scale">(.*?)</p>', html, re.S).group(1).split())
    assert scale == "Scale: 1 = poor · 2 · 3 · 4 · 5 = excellent · N/A = not applicable"


def test_render_without_labels_or_na_words_the_scale_plainly():
    html = render(scale=7, allow_na=False)
    scale = " ".join(re.search(r'data-ma="scale">(.*?)</p>', html, re.S).group(1).split())
    assert scale == "Scale: 1 (lowest) to 7 (highest)"


def test_render_shows_milestones_only_when_there_are_some():
    assert 'data-ma="milestones"' in render()
    assert 'data-ma="milestones"' not in render(milestones=[])


def test_render_escapes_html_and_jinja_braces_everywhere():
    html = render(description='Score {{ 7*7 }} {# "q" <b>', agent_dimensions=['<img src=x onerror=alert(1)>', "{{ a }}"],
                  milestones=["{% raw %}"], scale_labels=["<i>", "{{ b }}", "c", "d", "e"])
    assert "{" not in html and "}" not in html
    assert "Score &#123;&#123; 7*7 &#125;&#125; &#123;# &#34;q&#34; &lt;b&gt;" in html
    assert "<img" not in html and "<b>" not in html and "<i>" not in html


def test_render_passes_scale_labels_by_score_to_the_widget():
    html = render(scale_labels=["poor", "weak", "fair", "good", "great"], agents=[SMITH])
    config = json.loads(unescape(re.search(r'data-ma-config="([^"]*)"', html).group(1)))
    assert config["scale_labels"] == {"1": "poor", "2": "weak", "3": "fair", "4": "good", "5": "great"}
    assert config["agents"] == [SMITH] and config["milestone_steps"] is True


@pytest.mark.parametrize("bad, key", [({"scale": 0}, "scale"), ({"milestones": "done"}, "milestones"),
                                      ({"scale_labels": ["a"]}, "scale_labels")])
def test_a_bad_config_renders_an_error_card_naming_the_key(bad, key):
    html = render(**bad)
    assert 'class="annotation-error multiagent-error"' in html
    assert f"<li>{key}:" in html
    assert "annotation-input" not in html


# -- the widget words every mark as validate does --------------------------------------------------

PARITY_CASES = [
    (FULL, {}),
    (scorecard(agents={"Ghost": {"contribution": 3, "speed": 9}, "Planner": {"coordination": 7}},
               team={"speed": 2, "efficiency": 6}, milestones={"shipped": True, "plan agreed": True},
               milestone_steps={"plan agreed": 40, "tests pass": 1, "shipped": 0},
               not_applicable={"agents": {"Ghost": ["contribution"], "Planner": ["speed", "coordination"],
                                          "__proto__": ["contribution"]},
                               "team": ["efficiency", "mood"]}), {}),
    (scorecard(team={"coordination": 4}, milestones={"plan agreed": True}, milestone_steps={"plan agreed": 0},
               not_applicable={"team": ["efficiency"]}), {"scale": 3, "allow_na": False, "milestone_steps": False}),
    (scorecard(agents={"Auditor": {"contribution": 2}}), {"agents": ["Auditor"]}),
    (scorecard(agents={"Planner": {"contribution": 99}}, team={"efficiency": 11}), {}),  # past MAX_SCALE too
]

AUDIT_IN_NODE = """
const shim = require(process.argv[1] + '/../../tests/js/type_rules.js');
const scorecard = shim.load('agent_scorecard');
const runtime = shim.core;
const {derive} = require(process.argv[1] + '/web/derive.js');
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify(cases.map(({value, config, record}) =>
  scorecard.audit(value, config, derive(record, runtime.deriveOptions(config))).map((mark) => mark.text))));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_widget_words_every_mark_exactly_as_validate_does():
    cases = []
    for value, overrides in PARITY_CASES:
        config, problems = SCHEME.parse_config({**CONFIG, **overrides})
        assert problems == []
        cases.append({"value": value, "config": SCHEME.widget_config(config), "record": RECORD})
    out = subprocess.run(["node", "-e", AUDIT_IN_NODE, str(PACKAGE)], input=json.dumps(cases),
                         capture_output=True, text=True, check=True).stdout
    widget_words = json.loads(out)
    python_words = [check(value, **overrides) for value, overrides in PARITY_CASES]
    assert widget_words == python_words
    assert all(python_words[1:3])  # the cases do exercise the messages


DEFAULTS_IN_NODE = """
const shim = require(process.argv[1] + '/../../tests/js/type_rules.js');
console.log(JSON.stringify(shim.load('agent_scorecard').CONFIG_DEFAULTS));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_marks_js_fills_a_partial_config_with_the_pydantic_defaults():
    """cases.json gives only the keys a case changes; marks.js must fill in the same defaults."""
    out = subprocess.run(["node", "-e", DEFAULTS_IN_NODE, str(PACKAGE)], capture_output=True, text=True,
                         check=True).stdout
    defaults = {name: field.get_default() for name, field in AgentScorecardConfig.model_fields.items()
                if name in json.loads(out)}
    assert json.loads(out) == defaults
