"""Who&When (ICML 2025): real AG2 and Magentic-One runs with ground-truth failure attribution.

Read from ../shared/corpus (POTATO_MA_CORPUS), never copied into the project.
"""

import json
import subprocess
import sys

import pytest

from potato_multiagent import derive, validate_value

pytestmark = pytest.mark.realdata

TYPE = "multiagent.failure_attribution"
CONFIG = {"annotation_type": TYPE, "name": "attribution", "description": "Who failed, and when?", "steps_key": "history"}


def runs(corpus, subset="*"):
    files = sorted((corpus / "who_and_when").glob(f"{subset}/*.json"))
    assert files, f"no Who&When runs under {corpus / 'who_and_when'}"
    return [(f"{path.parent.name}/{path.name}", json.loads(path.read_text(encoding="utf-8"))) for path in files]


def gold_value(run):
    return {"responsible_agent": run["mistake_agent"], "decisive_step": int(run["mistake_step"]),
            "reason": run["mistake_reason"]}


def test_every_gold_agent_is_a_derived_agent_and_no_qualifier_becomes_an_agent(corpus):
    for name, run in runs(corpus):
        agents = derive(run, steps_key="history").agents
        assert run["mistake_agent"] in agents, name
        assert not [a for a in agents if a.endswith(")")], (name, agents)  # no "Orchestrator (thought)"


def test_hand_crafted_runs_show_orchestrator_to_websurfer_edges_from_the_qualifiers(corpus):
    checked = 0
    for name, run in runs(corpus, "Hand-Crafted"):
        addressed = [i for i, step in enumerate(run["history"]) if step.get("role") == "Orchestrator (-> WebSurfer)"]
        if not addressed:
            continue
        edges = {(e["from"], e["to"]): e for e in derive(run, steps_key="history").edges}
        edge = edges.get(("Orchestrator", "WebSurfer"))
        assert edge is not None, name
        assert set(addressed) <= set(edge["steps"]), name  # every addressed instruction is an edge
        checked += 1
    assert checked >= 5


def test_gold_labels_validate_as_failure_attribution_values(corpus):
    for name, run in runs(corpus):
        assert validate_value(TYPE, CONFIG, json.dumps(gold_value(run)), run) == [], name


@pytest.mark.parametrize("corrupt, field", [
    (lambda v, run: {**v, "responsible_agent": "Nobody at all"}, "responsible_agent"),
    (lambda v, run: {**v, "decisive_step": len(run["history"])}, "decisive_step"),
    (lambda v, run: {**v, "decisive_step": -1}, "decisive_step"),
    (lambda v, run: {**v, "decisive_step": str(v["decisive_step"])}, "decisive_step"),
    (lambda v, run: {k: x for k, x in v.items() if k != "reason"}, "reason"),
])
def test_corrupted_gold_labels_fail_naming_the_field(corpus, corrupt, field):
    for name, run in runs(corpus):
        problems = validate_value(TYPE, CONFIG, json.dumps(corrupt(gold_value(run), run)), run)
        assert problems and problems[0].startswith(f"{field}:"), (name, problems)


def test_cli_derive_on_a_hand_crafted_run(corpus):
    path = next(p for p in sorted((corpus / "who_and_when" / "Hand-Crafted").glob("*.json"))
                if "(-> WebSurfer)" in p.read_text(encoding="utf-8"))
    out = subprocess.run([sys.executable, "-m", "potato_multiagent.cli", "derive", str(path), "--steps-key", "history"],
                         capture_output=True, text=True, check=True).stdout
    derived = json.loads(out)
    assert ("Orchestrator", "WebSurfer") in {(e["from"], e["to"]) for e in derived["edges"]}
    assert "Orchestrator (thought)" not in derived["agents"]
