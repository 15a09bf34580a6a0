"""The interaction graph of real Magentic-One runs (Who&When Hand-Crafted, ../shared/corpus).

The page derives with derive.js and lays out with `layoutGraph` (types/agent_interaction_graph/graph_layout.js); this test runs both
under node on every Hand-Crafted run, and checks the picture: Python and JS agree on the edges,
Orchestrator <-> WebSurfer are drawn both ways with their counts, and no node box or edge label
overlaps another.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from potato_multiagent import derive

pytestmark = [pytest.mark.realdata, pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")]

PACKAGE = Path(__file__).parents[2] / "src" / "potato_multiagent"
LAYOUT_ALL = """
const {derive} = require(process.argv[1]);
const {layoutGraph} = require(process.argv[2]);
const paths = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = paths.map((path) => {
  const d = derive(JSON.parse(require('fs').readFileSync(path, 'utf8')), {steps_key: 'history'});
  return {path, edges: d.edges, layout: layoutGraph(d.agents, d.edges)};
});
process.stdout.write(JSON.stringify(out));
"""


def hand_crafted(corpus):
    files = sorted((corpus / "who_and_when" / "Hand-Crafted").glob("*.json"))
    assert files, f"no Hand-Crafted runs under {corpus / 'who_and_when'}"
    return files


@pytest.fixture(scope="module")
def pictures(corpus):
    """`{file name: {"run", "edges", "layout"}}` as the page would draw each Hand-Crafted run."""
    files = hand_crafted(corpus)
    out = subprocess.run(["node", "-e", LAYOUT_ALL, str(PACKAGE / "web" / "derive.js"), str(PACKAGE / "types" / "agent_interaction_graph" / "graph_layout.js")],
                         input=json.dumps([str(path) for path in files]), capture_output=True, text=True,
                         check=True, timeout=300)
    return {Path(item["path"]).name: {**item, "run": json.loads(Path(item["path"]).read_text(encoding="utf-8"))}
            for item in json.loads(out.stdout)}


def boxes(layout):
    for node in layout["nodes"]:
        yield f"agent {node['name']}", (node["x"] - node["width"] / 2, node["y"] - node["height"] / 2, node["width"], node["height"])
    for edge in layout["edges"]:
        label = edge["label"]
        yield f"label of {edge['from']} to {edge['to']}", (label["x"], label["y"], label["width"], label["height"])


def overlap(a, b):
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_the_page_draws_the_edges_python_derives(pictures):
    for name, picture in pictures.items():
        python_edges = derive(picture["run"], steps_key="history").edges
        assert picture["edges"] == python_edges, name
        drawn = [(e["from"], e["to"], e["count"]) for e in picture["layout"]["edges"]]
        assert drawn == [(e["from"], e["to"], e["count"]) for e in python_edges], name


def test_orchestrator_and_websurfer_edges_both_ways_with_counts(pictures):
    checked = 0
    for name, picture in pictures.items():
        history = picture["run"]["history"]
        addressed = sum(1 for step in history if step.get("role") == "Orchestrator (-> WebSurfer)")
        if not addressed:
            continue
        drawn = {(e["from"], e["to"]): e for e in picture["layout"]["edges"]}
        there, back = drawn.get(("Orchestrator", "WebSurfer")), drawn.get(("WebSurfer", "Orchestrator"))
        assert there and back, (name, sorted(drawn))
        assert there["count"] >= addressed and back["count"] >= 1, name
        assert there["label"] != back["label"] and there["points"] != back["points"], name
        checked += 1
    assert checked >= 5


def test_no_node_or_label_overlaps_and_everything_fits_the_view_box(pictures):
    for name, picture in pictures.items():
        layout = picture["layout"]
        placed = list(boxes(layout))
        for what, box in placed:
            assert box[0] >= 0 and box[1] >= 0 and box[0] + box[2] <= layout["width"] and box[1] + box[3] <= layout["height"], \
                (name, what)
        for i, (what, box) in enumerate(placed):
            for other, other_box in placed[i + 1:]:
                assert not overlap(box, other_box), (name, what, other)
