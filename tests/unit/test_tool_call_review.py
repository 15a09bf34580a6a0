"""multiagent.tool_call_review: config model, value model, identity, validation, rendering, and the
browser twin (types/tool_call_review/marks.js, derive.js result_step) giving the same answers as Python."""

import json
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from potato_multiagent import derive, validate_value
from potato_multiagent.types import SCHEMES, scheme_for
from potato_multiagent.types._base import say

TYPE = "multiagent.tool_call_review"
CONFIG = {"annotation_type": TYPE, "name": "review", "description": "Judge the calls"}
PACKAGE = Path(__file__).resolve().parents[2] / "src" / "potato_multiagent"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

# Three calls of three shapes: an OpenAI call with an id (index 0), a ReAct action string without
# an id (index 1, step 2), and an Anthropic tool_use block (index 2, step 3, the second call there).
RECORD = {"steps": [
    {"role": "assistant", "name": "Planner",
     "tool_calls": [{"id": "call_1", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "5C"},
    {"agent": "Researcher", "action": "search[flights <b>LIS</b>]"},
    {"role": "assistant", "name": "Coder", "content": [
        {"type": "text", "text": "two calls"},
        {"type": "tool_use", "id": "toolu_a", "name": "run_tests", "input": {}},
        {"type": "tool_use", "id": "toolu_b", "name": 'say "hi"', "input": {"x": "{{ 7*7 }}"}}]},
]}


def entry(index, step, tool, verdict="correct", notes="", **identity):
    return {"index": index, "step": step, **identity, "tool": tool, "verdict": verdict, "notes": notes}


OPENAI = entry(0, 0, "get_weather", position=0, id="call_1")
REACT = entry(1, 2, "search", position=0, id=None)
ANTHROPIC = entry(3, 3, 'say "hi"', position=1, id="toolu_b")


def problems(value, **config):
    stored = value if value is None or isinstance(value, str) else json.dumps(value)
    return validate_value(TYPE, {**CONFIG, **config}, stored, RECORD)


def test_registered_under_the_namespaced_name():
    assert scheme_for(TYPE) is scheme_for("tool_call_review") is SCHEMES[TYPE]


def test_declares_every_config_key_to_potato():
    assert set(SCHEMES[TYPE].optional_fields()) == {
        "steps_key", "agent_key", "calls_key", "resource_key", "agents", "agent_qualifiers", "show_judgments", "judgments_key",
        "verdict_options", "multi_verdict", "allow_notes"}


def test_config_defaults():
    config, errors = SCHEMES[TYPE].parse_config(CONFIG)
    assert errors == []
    assert config.verdict_options == ["correct", "wrong_tool", "wrong_args", "wrong_order"]
    assert config.multi_verdict is False and config.allow_notes is True


@pytest.mark.parametrize("bad, expected", [
    ({"verdict_options": []}, "config: verdict_options: should have at least 1 item(s)"),
    ({"verdict_options": "correct"}, "config: verdict_options: should be a list, got \"correct\""),
    ({"verdict_options": ["ok", "ok"]}, "config: verdict_options: 'ok' is listed twice"),
    ({"verdict_options": ["ok", " "]}, "config: verdict_options: entry 1 is empty or only whitespace"),
    ({"verdict_options": ["ok", 3]}, "config: verdict_options[1]: should be a text, got 3"),
    ({"multi_verdict": "yes"}, "config: multi_verdict: should be true or false, got \"yes\""),
    ({"allow_notes": 1}, "config: allow_notes: should be true or false, got 1"),
])
def test_a_bad_config_is_reported_by_key(bad, expected):
    assert problems([], **bad) == [expected]


# -- values built from the record --------------------------------------------------------------

@pytest.mark.parametrize("value", [
    "", None, [], [OPENAI], [OPENAI, REACT, ANTHROPIC],
    [entry(0, 0, "get_weather", verdict=None, notes="only a note <b>{{ x }}</b>", position=0, id="call_1")],
    [entry(1, 2, "search", verdict="wrong_args")],                      # the seed's shape: index + step + tool
    [entry(2, 3, "run_tests", position=0, id="toolu_a", verdict="wrong_order")],
    '[{"index": 1.0, "step": 2, "position": 0.0, "id": null, "tool": "search", "verdict": "correct", "notes": ""}]',
])
def test_accepts_every_value_built_from_the_record(value):
    assert problems(value) == []


def test_accepts_multi_verdict_values_and_custom_verdicts():
    multi = {**OPENAI, "verdict": "wrong args", "verdicts": ["wrong args", "late"]}
    assert problems([multi], multi_verdict=True, verdict_options=["ok", "wrong args", "late"]) == []
    cleared = {**REACT, "verdict": None, "verdicts": [], "notes": "unsure"}
    assert problems([cleared], multi_verdict=True) == []


# -- identity: restore and validation never go by position alone -----------------------------

def test_an_id_names_its_call_wherever_the_call_sits():
    moved = {"steps": [{"role": "user", "content": "first"}] + RECORD["steps"]}
    value = [{**OPENAI, "index": 0, "step": 1}]
    assert validate_value(TYPE, CONFIG, json.dumps(value), moved) == []


@pytest.mark.parametrize("value, expected", [
    ([{**OPENAI, "id": "call_9"}], ["[0].id: 'call_9' is not in this trace"]),
    ([{**REACT, "position": 1}], ["[0]: 'step 2, position 1, tool search' is not in this trace"]),
    ([{**REACT, "tool": "delete_db"}], ["[0]: 'step 2, position 0, tool delete_db' is not in this trace"]),
    ([entry(0, 0, "delete_db")], ["[0]: 'call 0 at step 0, tool delete_db' is not in this trace"]),
    ([entry(7, 3, None, position=4)], ["[0]: 'step 3, position 4, no tool' is not in this trace"]),
    ([OPENAI, {**OPENAI, "verdict": "wrong_tool"}], ["[1]: repeats the entry at [0]"]),
    ([REACT, entry(1, 2, "search")], ["[1]: repeats the entry at [0]"]),
])
def test_reports_judgements_the_record_does_not_contain(value, expected):
    assert problems(value) == expected


@pytest.mark.parametrize("value, expected", [
    ([{**OPENAI, "index": 4}], ["[0].index: should be 0 as in this trace, got 4"]),
    ([{**OPENAI, "step": 1, "tool": "get_time"}], ['[0].step: should be 0 as in this trace, got 1',
                                                   '[0].tool: should be get_weather as in this trace, got get_time']),
    ([{**ANTHROPIC, "position": 0}], ["[0].position: should be 1 as in this trace, got 0"]),
    ([{**REACT, "id": None, "index": 2}], ["[0].index: should be 1 as in this trace, got 2"]),
    ([entry(0, 0, "get_weather", position=0, id=None)], ['[0].id: should be call_1 as in this trace, got null']),
])
def test_reports_stated_fields_that_disagree_with_the_named_call(value, expected):
    assert problems(value) == expected


# -- verdicts and notes against the config ------------------------------------------------------

@pytest.mark.parametrize("value, config, expected", [
    ([{**OPENAI, "verdict": "great"}], {}, ["[0].verdict: 'great' is not one of the configured verdict_options"]),
    ([{**OPENAI, "verdicts": ["correct"]}], {}, ["[0].verdicts: not recorded by this scheme (multi_verdict: false)"]),
    ([{**OPENAI, "verdict": "correct", "verdicts": ["correct", "nope", "correct"]}], {"multi_verdict": True},
     ["[0].verdicts[1]: 'nope' is not one of the configured verdict_options",
      "[0].verdicts[2]: repeats the entry at [0].verdicts[0]"]),
    ([{**OPENAI, "verdict": "wrong_tool", "verdicts": ["correct", "wrong_tool"]}], {"multi_verdict": True},
     ['[0].verdict: should be correct (the first of verdicts), got wrong_tool']),
    ([{**OPENAI, "verdict": "correct", "verdicts": []}], {"multi_verdict": True},
     ['[0].verdict: should be null (the first of verdicts), got correct']),
    ([{**OPENAI, "notes": "x"}], {"allow_notes": False}, ["[0].notes: notes are turned off for this scheme (allow_notes: false)"]),
])
def test_reports_verdicts_and_notes_the_config_does_not_allow(value, config, expected):
    assert problems(value, **config) == expected


@pytest.mark.parametrize("value, field", [
    ('[{"index": 0', "value"),
    ('{"index": 0}', "value"),
    ('[{"index": 0, "step": 0, "tool": "f", "verdict": "correct", "notes": "", "extra": 1}]', "[0].extra"),
    (json.dumps([{**OPENAI, "index": -1}]), "[0].index"),
    (json.dumps([{**OPENAI, "step": "0"}]), "[0].step"),
    (json.dumps([{**OPENAI, "position": 0.5}]), "[0].position"),
    (json.dumps([{**OPENAI, "id": 5}]), "[0].id"),
    (json.dumps([{**OPENAI, "verdict": True}]), "[0].verdict"),
    (json.dumps([{**OPENAI, "verdicts": "correct"}]), "[0].verdicts"),
    (json.dumps([{**OPENAI, "notes": None}]), "[0].notes"),
    (json.dumps([{k: v for k, v in OPENAI.items() if k != "tool"}]), "[0].tool"),
    ('[{"index": NaN, "step": 0, "tool": "f", "verdict": null, "notes": ""}]', "value"),
])
def test_rejects_malformed_values_naming_the_field(value, field):
    found = problems(value)
    assert found and found[0].startswith(f"{field}:"), found


# -- rendering ------------------------------------------------------------------------------------

def render(**overrides):
    html, keybindings = SCHEMES[TYPE].render({**CONFIG, **overrides})
    assert keybindings == []
    return html


def test_render_labels_its_filters_and_next_unjudged():
    html = render()
    for label in ("Agent", "Tool"):
        assert f">{label}</label>" in html
    assert ">Next unjudged call</button>" in html


def test_render_passes_config_and_value_schema_as_one_json_attribute():
    html = render(verdict_options=['wrong "order"', "ok"], multi_verdict=True)
    config = json.loads(unescape(re.search(r'data-ma-config="([^"]*)"', html).group(1)))
    assert config["verdict_options"] == ['wrong "order"', "ok"] and config["multi_verdict"] is True
    assert config["value_schema"]["type"] == "array"


@pytest.mark.parametrize("bad, key", [({"verdict_options": ["a", "a"]}, "verdict_options"),
                                      ({"multi_verdict": "no"}, "multi_verdict")])
def test_a_bad_config_renders_an_error_card_naming_the_key(bad, key):
    html = render(**bad)
    assert 'class="annotation-error multiagent-error"' in html and f"<li>{key}:" in html
    assert "annotation-input" not in html


# -- the browser twin gives the same answers --------------------------------------------------

JS_TRACE_PROBLEMS = """
const path = require('path');
const {derive} = require(path.join(process.argv[1], 'web', 'derive.js'));
const tcr = require(path.join(process.argv[1], '..', '..', 'tests', 'js', 'type_rules.js')).load('tool_call_review');
let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const out = JSON.parse(input).map((c) =>
    tcr.traceProblems(c.value, tcr.indexCalls(derive(c.record, {}).tool_calls), c.config));
  process.stdout.write(JSON.stringify(out));
});
"""

PARITY_VALUES = [
    ([OPENAI, REACT, ANTHROPIC], {}),
    ([{**OPENAI, "id": "call_9"}, {**REACT, "position": 1}, entry(0, 0, "delete_db"), entry(7, 3, None, position=4)], {}),
    ([OPENAI, {**OPENAI, "verdict": "wrong_tool"}, REACT, entry(1, 2, "search")], {}),
    ([{**OPENAI, "step": 1, "tool": "get_time", "index": 4}, {**ANTHROPIC, "position": 0},
      entry(0, 0, "get_weather", position=0, id=None)], {}),
    ([{**OPENAI, "verdict": "great", "verdicts": ["correct", "nope", "correct"]}, {**REACT, "notes": "x"}],
     {"multi_verdict": False, "allow_notes": False}),
    ([{**OPENAI, "verdict": "wrong_tool", "verdicts": ["correct", "wrong_tool"]}, {**REACT, "verdicts": []}],
     {"multi_verdict": True}),
]


@needs_node
def test_widget_reports_the_same_problems_as_validate():
    config, _ = SCHEMES[TYPE].parse_config(CONFIG)
    cases = [{"value": value, "record": RECORD, "config": {**config.widget_config(), **extra}}
             for value, extra in PARITY_VALUES]
    out = subprocess.run([NODE, "-e", JS_TRACE_PROBLEMS, str(PACKAGE)], input=json.dumps(cases),
                         capture_output=True, text=True, check=True, timeout=60)
    from_js = json.loads(out.stdout)
    from_python = []
    scheme = SCHEMES[TYPE]
    for value, extra in PARITY_VALUES:
        parsed, _ = scheme.parse_config({**CONFIG, **extra})
        from_python.append(scheme.trace_problems(scheme.Value.model_validate(value),
                                                 derive(RECORD, **parsed.derive_options()), parsed))
    assert from_python == from_js   # as data: codes and parameters
    assert [problems(value, **extra) for value, extra in PARITY_VALUES] == [[say(item) for item in found]
                                                                           for found in from_js]
    assert all(from_js[1:]), "every case but the first has problems to compare"


def test_marks_js_config_defaults_are_the_python_ones():
    """marks.js fills a partial config (the cases.json referee) with ToolCallReviewConfig's defaults."""
    text = (PACKAGE / "types" / "tool_call_review" / "marks.js").read_text(encoding="utf-8")
    defaults = re.search(r"CONFIG_DEFAULTS = \{verdict_options: \[([^\]]*)\],\s*multi_verdict: (\w+), allow_notes: (\w+)\}",
                         text)
    assert defaults, "marks.js has no CONFIG_DEFAULTS"
    config, _ = SCHEMES[TYPE].parse_config({"name": "x", "description": "x"})
    assert json.loads("[" + defaults.group(1).replace("'", '"') + "]") == config.verdict_options
    assert (defaults.group(2), defaults.group(3)) == (json.dumps(config.multi_verdict), json.dumps(config.allow_notes))


# Traces built to exercise the result_step rule: calls with ids from a small pool, and steps that
# name ids (tool_call_id, call_id, tool_result blocks) or look like results (role, agent).
ids = st.sampled_from(["a", "b", " ", 5, None])
call = st.fixed_dictionaries({"function": st.just({"name": "f", "arguments": "{}"})}, optional={"id": ids})
answer = st.fixed_dictionaries({}, optional={
    "role": st.sampled_from(["tool", "function", "Tool", "user", "assistant"]),
    "agent": st.sampled_from(["tool", "function", "Computer_terminal", "Computer_terminal (x)", "A"]),
    "tool_call_id": ids, "call_id": ids,
    "content": st.lists(st.fixed_dictionaries({"type": st.sampled_from(["tool_result", "text"])},
                                              optional={"tool_use_id": ids, "text": st.just("t")}), max_size=2)})
caller = st.fixed_dictionaries({"agent": st.sampled_from(["A", "B"])}, optional={
    "tool_calls": st.lists(call, max_size=2), "action": st.sampled_from(["search[x]", "finish"]),
    "content": st.lists(st.fixed_dictionaries({"type": st.just("tool_use"), "id": ids, "name": st.just("g")}),
                        max_size=2)})
trace = st.lists(caller | answer | st.none(), max_size=8)


@needs_node
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.lists(trace, min_size=1, max_size=20))
def test_result_step_agrees_between_python_and_node(batch):
    items = [{"record": {"steps": steps}, "options": {}} for steps in batch]
    out = subprocess.run([NODE, str(Path(__file__).resolve().parents[1] / "conformance" / "derive_batch.js")],
                         input=json.dumps(items), capture_output=True, text=True, check=True, timeout=60)
    for steps, from_node in zip(batch, json.loads(out.stdout)):
        python_calls = derive({"steps": steps}).to_dict()["tool_calls"]
        assert python_calls == from_node["tool_calls"], json.dumps(steps)
