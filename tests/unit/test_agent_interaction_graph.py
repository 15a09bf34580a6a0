"""multiagent.agent_interaction_graph: config, value model, validation, rendering, and the widget's
value rules (run under node) agreeing with Python's word for word."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from potato_multiagent import derive, validate_value
from potato_multiagent.types import SCHEMES, scheme_for

TYPE = "multiagent.agent_interaction_graph"
CONFIG = {"annotation_type": TYPE, "name": "graph", "description": "Where did it go wrong?"}
# Magentic-One's addressed turns, a speaker change, and two names that make "A->B->C" ambiguous.
RECORD = {"id": "r1", "steps": [
    {"agent": "Orchestrator (-> WebSurfer)", "content": "search"},
    {"agent": "WebSurfer", "content": "found"},
    {"agent": "Orchestrator (thought)", "content": "ok"},
    {"agent": "A->B"}, {"agent": "C"}, {"agent": "A"}, {"agent": "B->C"},
]}
NODE = shutil.which("node")
TYPE_RULES = Path(__file__).parents[1] / "js" / "type_rules.js"   # loads marks.js
DERIVE_JS = Path(__file__).parents[2] / "src" / "potato_multiagent" / "web" / "derive.js"


def value(critical=(), marks=(), edges=None):
    marks = [{"from": a, "to": b, "status": s} for a, b, s in marks]
    if edges is None:
        edges = {f"{m['from']}->{m['to']}": m["status"] for m in marks}
    return {"critical_nodes": list(critical), "edges": edges, "edge_marks": marks}


def problems(stored, record=RECORD, config=CONFIG):
    """What validate_value says about a stored value (a string or None as it is, anything else as JSON)."""
    raw = stored if stored is None or isinstance(stored, str) else json.dumps(stored)
    return validate_value(TYPE, config, raw, record)


def test_registered_under_the_namespaced_name():
    assert scheme_for(TYPE) is scheme_for("agent_interaction_graph") is SCHEMES[TYPE]


def test_the_record_gives_the_edges_these_tests_rely_on():
    edges = [(e["from"], e["to"], e["count"]) for e in derive(RECORD).edges]
    assert edges == [("Orchestrator", "WebSurfer", 1), ("WebSurfer", "Orchestrator", 1), ("Orchestrator", "A->B", 1),
                     ("A->B", "C", 1), ("C", "A", 1), ("A", "B->C", 1)]


# -- values the widget writes ----------------------------------------------------------------------

@pytest.mark.parametrize("stored", [
    value(["Orchestrator", "WebSurfer"], [("Orchestrator", "WebSurfer", "critical"), ("WebSurfer", "Orchestrator", "problematic")]),
    # ambiguous "A->B->C": both edges live in edge_marks only
    value(["A->B", "C"], [("A->B", "C", "critical"), ("A", "B->C", "problematic")], edges={}),
    value(["C", "Orchestrator"]),              # a path with a gap is allowed (the widget points it out)
    {"critical_nodes": ["WebSurfer"]},          # the seed's shape with empty keys left out
    {"critical_nodes": [], "edges": {"Orchestrator->WebSurfer": "critical"}},   # the seed's shape
    "", None,
])
def test_accepts_every_value_built_from_the_record(stored):
    assert problems(stored) == []


def test_roster_agents_can_be_on_the_path_without_steps():
    assert problems(value(["Verifier"]), config={**CONFIG, "agents": ["Verifier"]}) == []


# -- marks the record does not contain ----------------------------------------------------------

def test_reports_agents_and_edges_not_in_the_trace():
    stored = value(["Orchestrator", "Ghost", "Orchestrator (thought)"],
                   [("Ghost", "WebSurfer", "critical"), ("WebSurfer", "Orchestrator", "critical")])
    assert problems(stored) == [
        "critical_nodes[1]: 'Ghost' is not in this trace",
        "critical_nodes[2]: 'Orchestrator (thought)' is not in this trace",
        "edge_marks[0]: 'Ghost to WebSurfer' is not in this trace",
        "edges: 'Ghost->WebSurfer' is not in this trace",
    ]


def test_an_edge_in_the_wrong_direction_is_not_in_the_trace():
    assert problems(value(marks=[("WebSurfer", "A->B", "critical")])) == [
        "edge_marks[0]: 'WebSurfer to A->B' is not in this trace", "edges: 'WebSurfer->A->B' is not in this trace"]


def test_an_ambiguous_seed_key_must_be_resolved_by_edge_marks():
    assert problems({"critical_nodes": [], "edges": {"A->B->C": "critical"}}) == [
        "edges: 'A->B->C' could be 2 edges of this trace; edge_marks must say which"]


# -- consistency and duplicates --------------------------------------------------------------------

@pytest.mark.parametrize("stored, expected", [
    (value(["C", "A", "C"]), ["critical_nodes[2]: repeats the entry at critical_nodes[0]"]),
    (value(marks=[("C", "A", "critical"), ("C", "A", "problematic")], edges={"C->A": "critical"}),
     ["edge_marks[1]: repeats the entry at edge_marks[0]"]),
    (value(marks=[("C", "A", "critical")], edges={}), ["edges: 'C->A' is missing (edge_marks has an entry for it)"]),
    (value(marks=[("C", "A", "critical")], edges={"C->A": "problematic"}),
     ["edges: 'C->A' should be 'critical' as in edge_marks, got 'problematic'"]),
    (value(edges={"C->A": "critical"}), ["edges: 'C->A' has no entry in edge_marks"]),
])
def test_edges_map_agrees_with_edge_marks_and_nothing_repeats(stored, expected):
    assert problems(stored) == expected


# -- malformed values ---------------------------------------------------------------------------------

@pytest.mark.parametrize("stored, field", [
    ('{"critical_nodes": ["A"]', "value"),
    ("[]", "value"),
    ({"critical_nodes": "A"}, "critical_nodes"),
    ({"critical_nodes": [1]}, "critical_nodes[0]"),
    ({"edges": {"C->A": "banana"}}, "edges.C->A"),
    ({"edges": ["C->A"]}, "edges"),
    ({"edge_marks": None}, "edge_marks"),
    ({"edge_marks": [{"from": "C", "to": "A", "status": "normal"}]}, "edge_marks[0].status"),
    ({"edge_marks": [{"from": "C", "to": "A"}]}, "edge_marks[0].status"),
    ({"edge_marks": [{"source": "C", "from": "C", "to": "A", "status": "critical"}]}, "edge_marks[0].source"),
    ({"critical_nodes": [], "extra": 1}, "extra"),
])
def test_rejects_malformed_values_naming_the_field(stored, field):
    found = problems(stored)
    assert found and any(line.startswith(f"{field}:") for line in found), found


def test_declares_every_config_key_to_potato():
    assert set(SCHEMES[TYPE].optional_fields()) == {"steps_key", "agent_key", "calls_key", "resource_key", "agents",
                                                    "agent_qualifiers", "show_judgments", "judgments_key"}


# -- rendering -----------------------------------------------------------------------------------------

def render(**overrides):
    html, keybindings = SCHEMES[TYPE].render({**CONFIG, **overrides})
    assert keybindings == []
    return html


def test_render_has_the_graph_parts():
    html = render()
    for part in ("canvas", "details-title", "details-text", "help"):   # the stale list is the runtime's
        assert f'data-ma-aig="{part}"' in html


def test_a_bad_config_renders_an_error_card_naming_the_key():
    html = render(agents="Planner")
    assert "multiagent-error" in html and "<li>agents:" in html and "annotation-input" not in html


# -- the widget's rules, under node, against Python ---------------------------------------------------

JS_PROBLEMS = """
const widget = require(process.argv[1]).load('agent_interaction_graph');
const {derive} = require(process.argv[2]);
const {record, values} = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const graph = widget.graphOf(derive(record, {}));
const out = values.map((value) => ({
  problems: widget.valueProblems(value, graph).map((p) => p.text),
  composed: JSON.parse(JSON.stringify(widget.composeValue(widget.marksOf(value, graph), graph))),
}));
process.stdout.write(JSON.stringify(out));
"""

AGREEMENT_VALUES = [
    value(["Orchestrator", "Ghost", "C", "C"], [("Ghost", "WebSurfer", "critical"), ("WebSurfer", "Orchestrator", "critical"),
                                                ("WebSurfer", "Orchestrator", "problematic"), ("A->B", "C", "problematic")]),
    value(marks=[("C", "A", "critical")], edges={"C->A": "problematic", "A->B->C": "critical", "Q->R": "critical",
                                                  "Orchestrator->WebSurfer": "critical"}),
    {"critical_nodes": ["WebSurfer"], "edges": {"Orchestrator->WebSurfer": "critical", "A->B->C": "problematic",
                                                "Nobody->Else": "critical"}},
    {"critical_nodes": [], "edges": {}},
]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_widget_reports_the_same_problems_and_writes_valid_values():
    out = subprocess.run([NODE, "-e", JS_PROBLEMS, str(TYPE_RULES), str(DERIVE_JS)],
                         input=json.dumps({"record": RECORD, "values": AGREEMENT_VALUES}),
                         capture_output=True, text=True, check=True, timeout=60)
    results = json.loads(out.stdout)
    for stored, result in zip(AGREEMENT_VALUES, results):
        assert result["problems"] == problems(stored), stored
        composed = result["composed"]
        if composed is None:
            assert not stored["critical_nodes"] and not stored["edges"]
            continue
        # What the widget writes back keeps every mark and has no problem but the marks the
        # trace lacks (kept until the annotator removes them).
        left = problems(composed)
        assert all("is not in this trace" in line or "could be 2 edges" in line for line in left), left
        assert set(composed["critical_nodes"]) == set(stored["critical_nodes"])
