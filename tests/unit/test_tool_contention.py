"""multiagent.tool_contention: config model, value model, validation by region identity, rendering."""

import copy
import json
import re
from html import unescape

import pytest

from potato_multiagent import derive, validate_value
from potato_multiagent.types import SCHEMES, scheme_for

TYPE = "multiagent.tool_contention"
CONFIG = {"annotation_type": TYPE, "name": "contention", "description": "Label each region"}
RECORD = {"id": "r1", "calls": [
    {"agent": "Migrator", "tool": "alter", "resource": "db", "start": 10, "end": 19},
    {"agent": "Backfiller", "tool": "insert", "resource": "db", "start": 12, "end": 17},
    {"agent": "Reporter", "tool": "select", "resource": "db", "start": 15, "end": 22},
    {"agent": "Worker A", "resource": "lock_x", "start": 0, "end": 10},
    {"agent": "Worker B", "resource": "lock_x", "start": 4, "end": 10},
    {"agent": "Worker B", "resource": "lock_y", "start": 1, "end": 10},
    {"agent": "Worker A", "resource": "lock_y", "start": 3, "end": 10},
    {"agent": "Worker A", "resource": "lock_y", "start": 30, "end": 20},   # reversed: left out
]}


def entry(region, derivation, label="deadlock", note=""):
    """One stored entry, built from the derivation the way the widget builds it."""
    calls = {call["index"]: call for call in derivation["calls"]}
    return {"index": region["index"], "resource": region["resource"], "start": region["start"], "end": region["end"],
            "agents": list(region["agents"]),
            "calls": [{key: calls[index][key] for key in ("index", "agent", "resource", "start", "end")}
                      for index in region["calls"]],
            "label": label, "note": note}


def value_for(record, labels):
    """The value the widget stores for `{region index: label}` on `record`."""
    derivation = derive(record).to_dict()
    regions = [entry(derivation["contentions"][index], derivation, label) for index, label in sorted(labels.items())]
    return {"contentions": {str(index): label for index, label in sorted(labels.items())}, "regions": regions}


def problems_of(value, record=RECORD, config=CONFIG):
    stored = value if value is None or isinstance(value, str) else json.dumps(value)
    return validate_value(TYPE, config, stored, record)


def test_registered_under_the_namespaced_name_with_its_keys():
    scheme = scheme_for(TYPE)
    assert scheme is scheme_for("tool_contention") is SCHEMES[TYPE]
    assert set(scheme.optional_fields()) == {"steps_key", "agent_key", "calls_key", "resource_key", "agents",
                                             "agent_qualifiers", "show_judgments", "judgments_key", "contention_labels", "allow_note"}


def test_the_record_has_three_regions_and_one_left_out_call():
    derivation = derive(RECORD).to_dict()
    assert [(r["resource"], r["agents"]) for r in derivation["contentions"]] == [
        ("lock_x", ["Worker A", "Worker B"]), ("lock_y", ["Worker B", "Worker A"]),
        ("db", ["Migrator", "Backfiller", "Reporter"])]
    assert [(p["path"], p["code"]) for p in derivation["problems"] if p["path"].startswith("calls")] == [
        ("calls[7]", "time_reversed")]


# -- config ------------------------------------------------------------------------------------

def test_config_defaults():
    config, problems = scheme_for(TYPE).parse_config(CONFIG)
    assert problems == []
    assert config.contention_labels == ["deadlock", "circular_wait", "race_condition", "benign"]
    assert config.allow_note is True


@pytest.mark.parametrize("bad, message", [
    ({"contention_labels": ["deadlock", "deadlock"]}, "contention_labels: 'deadlock' is listed twice"),
    ({"contention_labels": []}, "contention_labels: should have at least 1 item(s)"),
    ({"contention_labels": ["ok", " "]}, "contention_labels: entry 1 is empty or only whitespace"),
    ({"contention_labels": "deadlock"}, "contention_labels: should be a list, got \"deadlock\""),
    ({"allow_note": "yes"}, "allow_note: should be true or false, got \"yes\""),
])
def test_a_bad_config_is_reported_by_key(bad, message):
    assert validate_value(TYPE, {**CONFIG, **bad}, "", RECORD) == [f"config: {message}"]


# -- accepted values ---------------------------------------------------------------------------

@pytest.mark.parametrize("stored", [
    "", None, {"contentions": {}, "regions": []},
    value_for(RECORD, {0: "deadlock"}),
    value_for(RECORD, {0: "deadlock", 1: "deadlock", 2: "race_condition"}),
])
def test_accepts_every_value_built_from_the_record(stored):
    assert problems_of(stored) == []


def test_accepts_a_note_and_json_integral_floats():
    value = value_for(RECORD, {2: "benign"})
    value["regions"][0]["note"] = 'Reporter "only" read <b>it</b> {{ x }}'
    text = json.dumps(value).replace('"index": 2', '"index": 2.0')
    assert problems_of(text) == []


def test_labels_keep_their_meaning_when_the_calls_are_reordered():
    """The built-in's index changed meaning on reordering (teardown D-T6); identity does not."""
    value = value_for(RECORD, {0: "deadlock", 2: "race_condition"})
    shuffled = {"id": "r1", "calls": list(reversed(RECORD["calls"]))}
    assert problems_of(value, shuffled) == []
    assert value_for(shuffled, {0: "deadlock", 2: "race_condition"})["contentions"] == value["contentions"]


def test_agents_are_a_set():
    value = value_for(RECORD, {2: "benign"})
    value["regions"][0]["agents"].reverse()
    assert problems_of(value) == []


def test_roster_and_keys_from_the_config_are_used():
    record = {"timeline": [{"who": "A", "lock": "r", "start": 0, "end": 2}, {"who": "B", "lock": "r", "start": 1, "end": 3}]}
    config = {**CONFIG, "calls_key": "timeline", "agent_key": "who", "resource_key": "lock"}
    derivation = derive(record, calls_key="timeline", agent_key="who", resource_key="lock").to_dict()
    value = {"contentions": {"0": "benign"}, "regions": [entry(derivation["contentions"][0], derivation, "benign")]}
    assert problems_of(value, record, config) == []
    assert problems_of(value, record) == ["regions[0]: 'r [0, 3) A, B' is not in this trace"]


# -- marks the record does not contain ---------------------------------------------------------

def edited(change, labels=None):
    value = value_for(RECORD, labels or {2: "race_condition"})
    change(value)
    return value


@pytest.mark.parametrize("change, expected", [
    (lambda v: v["regions"][0].update(end=23), ["regions[0]: 'db [10, 23) Migrator, Backfiller, Reporter' is not in this trace"]),
    (lambda v: v["regions"][0].update(resource="cache"), ["regions[0]: 'cache [10, 22) Migrator, Backfiller, Reporter' is not in this trace"]),
    (lambda v: v["regions"][0]["agents"].append("Ghost"),
     ["regions[0]: 'db [10, 22) Migrator, Backfiller, Reporter, Ghost' is not in this trace"]),
    (lambda v: v["regions"][0]["calls"][1].update(end=18), ["regions[0].calls[1]: 'Backfiller on db [12, 18)' is not in this trace"]),
    (lambda v: v["regions"][0]["calls"].append(dict(v["regions"][0]["calls"][0])),
     ["regions[0].calls[3]: 'Migrator on db [10, 19)' is not in this trace"]),
    (lambda v: (v["regions"][0].update(index=1), v.update(contentions={"1": "race_condition"})),
     ["regions[0].index: should be 2 as in this trace, got 1"]),
])
def test_reports_marks_the_record_does_not_contain(change, expected):
    assert problems_of(edited(change)) == expected


def test_a_repeated_region_is_reported():
    value = value_for(RECORD, {2: "benign"})
    value["regions"].append(copy.deepcopy(value["regions"][0]))
    assert problems_of(value) == ["regions[1]: repeats the entry at regions[0]",
                                  "regions[1].index: repeats the entry at regions[0].index"]


# -- config-dependent rules --------------------------------------------------------------------

def test_a_label_must_be_configured():
    value = edited(lambda v: (v["regions"][0].update(label="teleportation"), v.update(contentions={"2": "teleportation"})))
    assert problems_of(value) == ["regions[0].label: 'teleportation' is not one of the configured contention_labels"]
    assert problems_of(value, config={**CONFIG, "contention_labels": ["teleportation"]}) == []


def test_a_note_needs_allow_note():
    value = edited(lambda v: v["regions"][0].update(note="why"))
    assert problems_of(value, config={**CONFIG, "allow_note": False}) == [
        "regions[0].note: notes are turned off for this scheme (allow_note: false)"]
    value["regions"][0]["note"] = ""
    assert problems_of(value, config={**CONFIG, "allow_note": False}) == []


# -- the seed's map must agree with regions ----------------------------------------------------

@pytest.mark.parametrize("contentions, expected", [
    ({}, ["contentions: '2' is missing (regions has an entry for it)"]),
    ({"2": "race_condition", "0": "deadlock"}, ["contentions: '0' has no entry in regions"]),
    ({"2": "benign"}, ["contentions: '2' should be 'race_condition' as in regions, got 'benign'"]),
    ({"02": "race_condition"}, ["contentions: '02' has no entry in regions",
                                "contentions: '2' is missing (regions has an entry for it)"]),
])
def test_the_contentions_map_must_mirror_regions(contentions, expected):
    assert problems_of(edited(lambda v: v.update(contentions=contentions))) == expected


# -- wrong types, named ------------------------------------------------------------------------

GOOD = value_for(RECORD, {2: "race_condition"})


def with_field(path, new):
    value = copy.deepcopy(GOOD)
    target = value
    for key in path[:-1]:
        target = target[key]
    if new is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = new
    return value


@pytest.mark.parametrize("stored, field", [
    ('{"contentions": {}', "value"),
    ("[]", "value"),
    ('{"contentions": {}, "regions": [], "extra": 1}', "extra"),
    ('{"contentions": {"0": "deadlock"}}', "regions"),
    ('{"contentions": {}, "regions": [], "x": NaN}', "value"),
    (with_field(["contentions"], []), "contentions"),
    (with_field(["contentions", "2"], 3), "contentions.2"),
    (with_field(["regions", 0, "label"], 3), "regions[0].label"),
    (with_field(["regions", 0, "label"], KeyError), "regions[0].label"),
    (with_field(["regions", 0, "note"], None), "regions[0].note"),
    (with_field(["regions", 0, "index"], -1), "regions[0].index"),
    (with_field(["regions", 0, "index"], True), "regions[0].index"),
    (with_field(["regions", 0, "index"], 1.5), "regions[0].index"),
    (with_field(["regions", 0, "start"], "10"), "regions[0].start"),
    (with_field(["regions", 0, "start"], False), "regions[0].start"),
    (with_field(["regions", 0, "agents"], ["Migrator"]), "regions[0].agents"),
    (with_field(["regions", 0, "agents"], "Migrator"), "regions[0].agents"),
    (with_field(["regions", 0, "calls", 0, "tool"], "alter"), "regions[0].calls[0].tool"),
    (with_field(["regions", 0, "calls", 1, "agent"], None), "regions[0].calls[1].agent"),
    (with_field(["regions", 0, "resource"], 7), "regions[0].resource"),
])
def test_rejects_malformed_values_naming_the_field(stored, field):
    problems = problems_of(stored)
    assert problems, stored
    assert problems[0].startswith(f"{field}:"), problems


# -- rendering ---------------------------------------------------------------------------------

def render(**overrides):
    html, keybindings = SCHEMES[TYPE].render({**CONFIG, **overrides})
    assert keybindings == []
    return html


def test_render_has_the_timeline_parts():
    html = render()
    for part in ("timeline", "regions", "left-out", "caption", "progress"):
        assert f'data-ma-tc="{part}"' in html


def test_render_escapes_html_and_jinja_braces_everywhere():
    html = render(description='Label {{ 7*7 }} regions {# "quoted" <b>',
                  contention_labels=["<img src=x onerror=alert(1)>", "{{ odd }}"])
    assert "{" not in html and "}" not in html
    assert "Label &#123;&#123; 7*7 &#125;&#125; regions &#123;# &#34;quoted&#34; &lt;b&gt;" in html
    assert "<img" not in html and "<b>" not in html
    config = json.loads(unescape(re.search(r'data-ma-config="([^"]*)"', html).group(1)))
    assert config["contention_labels"] == ["<img src=x onerror=alert(1)>", "{{ odd }}"]
    assert config["allow_note"] is True and "value_schema" in config


def test_a_bad_config_renders_an_error_card_naming_the_key():
    html = render(contention_labels=["a", "a"])
    assert 'class="annotation-error multiagent-error"' in html
    assert "<li>contention_labels:" in html and "annotation-input" not in html
