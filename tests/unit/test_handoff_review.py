"""multiagent.handoff_review: config model, value model, validation (Python and the widget's JS
give the same messages), and rendering."""

import json
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest

from potato_multiagent import derive, validate_value
from potato_multiagent.types import SCHEMES, scheme_for

from .test_value_shape import assert_same_verdicts

TYPE = "multiagent.handoff_review"
CONFIG = {"annotation_type": TYPE, "name": "handoffs", "description": "Review each handoff"}
# Handoffs: 0 Planner->Coder (0 -> 1), 1 Coder->Billing (explicit event at 2), 2 Billing->Coder (2 -> 3),
# 3 Coder->Reviewer "Smith" (3 -> 4; Reviewer is addressed, so no edge but still a handoff).
RECORD = {"steps": [
    {"agent": "Planner", "content": "plan"},
    {"agent": "Coder", "content": "code"},
    {"type": "handoff", "from_agent": "Coder", "to_agent": "Billing", "content": "over to billing"},
    {"agent": "Coder", "to": 'Reviewer "Smith"', "content": "please review"},
    {"agent": 'Reviewer "Smith"', "content": "looks fine"},
]}
HANDOFFS = derive(RECORD).handoffs
JS = Path(__file__).parents[2] / "src" / "potato_multiagent" / "types" / "handoff_review" / "marks.js"
NODE = shutil.which("node")


def entry(handoff_index=0, **changes):
    handoff = HANDOFFS[handoff_index]
    base = {"index": handoff["index"], "step": handoff["step"], "from_step": handoff["from_step"],
            "from": handoff["from"], "to": handoff["to"], "explicit": handoff["explicit"],
            "flags": [], "quality": 4, "note": ""}
    return {**base, **changes}


def problems(value, record=RECORD, **config):
    return validate_value(TYPE, {**CONFIG, **config}, json.dumps(value), record)


def test_the_record_has_the_handoffs_these_tests_assume():
    assert [(h["from"], h["to"], h["from_step"], h["step"], h["explicit"]) for h in HANDOFFS] == [
        ("Planner", "Coder", 0, 1, False), ("Coder", "Billing", 2, 2, True), ("Billing", "Coder", 2, 3, False),
        ("Coder", 'Reviewer "Smith"', 3, 4, False)]


def test_registered_under_the_namespaced_name():
    assert scheme_for(TYPE) is scheme_for("handoff_review") is SCHEMES[TYPE]


# -- config ------------------------------------------------------------------------------------

def test_config_defaults():
    config, found = SCHEMES[TYPE].parse_config(CONFIG)
    assert found == []
    assert config.flags == ["info_loss", "dropped_constraint", "garbling", "goal_drift"]
    assert config.quality_scale == 5 and config.allow_note is True


def test_declares_every_config_key_to_potato():
    assert set(SCHEMES[TYPE].optional_fields()) == {"steps_key", "agent_key", "calls_key", "resource_key", "agents",
                                                    "agent_qualifiers", "show_judgments", "judgments_key", "flags", "quality_scale", "allow_note"}


@pytest.mark.parametrize("bad, message", [
    ({"flags": "info_loss"}, "flags: should be a list, got \"info_loss\""),
    ({"flags": []}, "flags: should have at least 1 item(s)"),
    ({"flags": ["a", " "]}, "flags: entry 1 is empty or only whitespace"),
    ({"flags": ["a", "a"]}, "flags: 'a' is listed twice"),
    ({"flags": ["info_loss", "info loss"]}, "flags: 'info_loss' and 'info loss' would both read 'info loss'"),
    ({"flags": ["a", 3]}, "flags[1]: should be a text, got 3"),
    ({"quality_scale": 1}, "quality_scale: should be at least 2, got 1"),
    ({"quality_scale": 11}, "quality_scale: should be at most 10, got 11"),
    ({"quality_scale": "five"}, "quality_scale: should be an integer ≥ 2 ≤ 10, got \"five\""),
    ({"allow_note": "yes"}, "allow_note: should be true or false, got \"yes\""),
])
def test_a_bad_config_is_reported_by_key(bad, message):
    assert validate_value(TYPE, {**CONFIG, **bad}, "", RECORD) == [f"config: {message}"]


# -- values the widget writes --------------------------------------------------------------------

@pytest.mark.parametrize("value", [
    [],
    [entry(0)],
    [entry(0, flags=["info_loss", "garbling"], quality=None, note="dropped the 'no brand names' rule")],
    [entry(1, quality=5, bulk=True), entry(3, quality=1, flags=["goal_drift"])],
    [entry(0, quality=1.0)],                                   # JSON: 1.0 is the number 1
    [{k: v for k, v in entry(2).items() if k != "note"}],     # note is optional (allow_note: false omits it)
])
def test_accepts_every_value_built_from_the_record(value):
    assert problems(value) == []


def test_nothing_stored_is_valid():
    assert validate_value(TYPE, CONFIG, "", RECORD) == [] and validate_value(TYPE, CONFIG, None, RECORD) == []


def test_the_stored_list_stays_readable_as_the_seed_list():
    """A reader of the seed's [{index, step, from, to, flags, quality}] finds every key it knows."""
    stored = entry(3, flags=["garbling"], quality=2)
    assert {"index", "step", "from", "to", "flags", "quality"} <= set(stored)
    assert problems([stored]) == []


# -- marks the record or the config does not contain ---------------------------------------------

@pytest.mark.parametrize("value, expected", [
    ([entry(0, **{"from": "Ghost"})], ["[0]: 'Ghost to Coder, from_step 0, step 1' is not in this trace"]),
    ([entry(0, step=2)], ["[0]: 'Planner to Coder, from_step 0, step 2' is not in this trace"]),
    ([entry(0, step=9)], ["[0].step: '9' is not in this trace"]),
    ([entry(0, from_step=7, step=9)], ["[0].from_step: '7' is not in this trace", "[0].step: '9' is not in this trace"]),
    ([entry(0), entry(1), entry(0, quality=1)], ["[2]: repeats the entry at [0]"]),
    ([entry(0, index=3)], ["[0].index: should be 0 as in this trace, got 3"]),
    ([entry(1, explicit=False)], ["[0].explicit: should be true as in this trace, got false"]),
    ([entry(2, flags=["info_loss", "not_a_flag"])], ["[0].flags: 'not_a_flag' is not one of the configured flags"]),
    ([entry(0), entry(3, quality=6)], ["[1].quality: should be at most 5, got 6"]),
])
def test_reports_each_mark_the_record_or_config_lacks(value, expected):
    assert problems(value) == expected


def test_quality_and_flags_follow_the_config():
    assert problems([entry(0, quality=7, flags=["late"])], flags=["late"], quality_scale=7) == []
    assert problems([entry(0, quality=7)], quality_scale=6) == ["[0].quality: should be at most 6, got 7"]


def test_a_note_is_a_problem_only_when_notes_are_off():
    assert problems([entry(0, note="evidence")], allow_note=False) == [
        "[0].note: notes are turned off for this scheme (allow_note: false)"]
    assert problems([entry(0, note="")], allow_note=False) == []


def test_a_handoff_is_found_by_identity_whatever_the_order_of_entries():
    assert problems([entry(3), entry(0), entry(1)]) == []


def test_validation_reads_the_derivation_with_the_configs_options():
    record = {"history": [{"role": "Orchestrator (-> WebSurfer)"}, {"role": "WebSurfer"}]}
    value = [{"index": 0, "step": 1, "from_step": 0, "from": "Orchestrator", "to": "WebSurfer", "explicit": False,
              "flags": [], "quality": 3}]
    assert problems(value, record, steps_key="history") == []
    assert problems(value, record, steps_key="history", agent_qualifiers=False) == [
        "[0]: 'Orchestrator to WebSurfer, from_step 0, step 1' is not in this trace"]


# pydantic names list items "0.field"; the widget's JSON Schema check says "[0].field".
def item(field):
    return rf"^(\[0\]|0)\.{field}:"


@pytest.mark.parametrize("value, pattern", [
    ('[{"index": 0', r"^value: not valid JSON"),                 # truncated JSON
    ({"index": 0}, r"^value: should be a list, got an object"),     # the seed's shape is a list
    ([3], r"^(\[0\]|0): "),
    ([entry(0, quality=0)], item("quality")),
    ([entry(0, quality=2.5)], item("quality")),
    ([entry(0, quality="4")], item("quality")),
    ([entry(0, quality=True)], item("quality")),
    ([entry(0, flags="info_loss")], item("flags")),
    ([entry(0, flags=["info_loss", "info_loss"])], item(r"flags\[1\]")),
    ([entry(0, step=-1)], item("step")),
    ([entry(0, index=-1)], item("index")),
    ([entry(0, explicit="no")], item("explicit")),
    ([entry(0, **{"from": 5})], item("from")),
    ([entry(0, note=None)], item("note")),
    ([entry(0, bulk="yes")], item("bulk")),
    ([{k: v for k, v in entry(0).items() if k != "from_step"}], item("from_step")),
    ([{k: v for k, v in entry(0).items() if k != "quality"}], item("quality")),
    ([entry(0, extra=1)], item("extra")),
])
def test_rejects_malformed_values_naming_the_field(value, pattern):
    stored = value if isinstance(value, str) else json.dumps(value)
    found = validate_value(TYPE, CONFIG, stored, RECORD)
    assert found and re.match(pattern, found[0]), found


def test_browser_shape_check_agrees_with_pydantic(node_shapes):
    good = entry(0)
    assert_same_verdicts(node_shapes, SCHEMES[TYPE], [
        [], [good], [entry(0, quality=None)], [entry(0, quality=1.0)], [entry(0, quality=0)], [entry(0, quality=True)],
        [entry(0, flags=["a", "a"])], [entry(0, flags=["a", "b"])], [entry(0, index=-1)], [entry(0, bulk=True)],
        [entry(0, bulk=None)], [entry(0, note=None)], [entry(0, extra=1)],
        [{k: v for k, v in good.items() if k != "note"}], [{k: v for k, v in good.items() if k != "to"}],
        {"0": good}, None, "text", [None]])


# -- the widget's messages are Python's ------------------------------------------------------------

JS_TRACE_PROBLEMS = """
require(process.argv[1]);
const hr = require(process.argv[1].replace(/types[\\/]handoff_review[\\/]marks\\.js$/, 'web/widget.js')).marksOf('handoff_review');
const {derive} = require(process.argv[2]);
const {record, options, config, values} = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const derivation = derive(record, options);
process.stdout.write(JSON.stringify(values.map((value) => hr.traceProblems(value, derivation, config))));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_widget_reports_the_same_problems_as_python():
    values = [
        [entry(0), entry(1)],
        [entry(0, **{"from": "Ghost"}), entry(0, step=9), entry(0, from_step=7, step=9)],
        [entry(0), entry(0, quality=1), entry(0, index=3), entry(1, explicit=False)],
        [entry(2, flags=["info_loss", "not_a_flag"], quality=6, note="n")],
        [entry(3, **{"from": "A->B", "to": "{{ 7*7 }}"})],
    ]
    config, _ = SCHEMES[TYPE].parse_config({**CONFIG, "allow_note": False})
    result = subprocess.run(
        [NODE, "-e", JS_TRACE_PROBLEMS, str(JS), str(JS.parents[2] / "web" / "derive.js")],
        input=json.dumps({"record": RECORD, "options": config.derive_options(), "config": config.widget_config(),
                          "values": values}),
        capture_output=True, text=True, check=True, timeout=60)
    from_js = json.loads(result.stdout)
    scheme, derivation = SCHEMES[TYPE], derive(RECORD, **config.derive_options())
    from_python = [scheme.trace_problems(scheme.Value.model_validate(value), derivation, config) for value in values]
    assert from_js == from_python   # as data: codes and parameters
    assert all(from_python[1:]), "every value but the first has problems"


# -- rendering ---------------------------------------------------------------------------------

def render(**overrides):
    html, keybindings = SCHEMES[TYPE].render({**CONFIG, **overrides})
    assert keybindings == []
    return html


def test_render_offers_mark_all_fine_and_pages_its_cards():
    html = render()
    assert "Mark all unreviewed handoffs as fine" in html
    assert 'data-ma="cards"' in html   # paged by the runtime's pager (tests/e2e/test_dom_pager.py)


def test_render_passes_flags_scale_and_notes_to_the_widget():
    html = render(flags=['say "no"', "{{ x }}"], quality_scale=7, allow_note=False)
    config = json.loads(unescape(re.search(r'data-ma-config="([^"]*)"', html).group(1)))
    assert config["flags"] == ['say "no"', "{{ x }}"]
    assert config["quality_scale"] == 7 and config["allow_note"] is False
    assert config["value_schema"]["type"] == "array"
    assert "quality 7 of 7" in html


@pytest.mark.parametrize("bad, key", [({"flags": "info_loss"}, "flags"), ({"quality_scale": 0}, "quality_scale"),
                                      ({"allow_note": "no"}, "allow_note")])
def test_a_bad_config_renders_an_error_card_naming_the_key(bad, key):
    html = render(**bad)
    assert 'class="annotation-error multiagent-error"' in html
    assert f"<li>{key}:" in html
    assert "annotation-input" not in html
