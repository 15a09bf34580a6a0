"""Adjudication end to end on four real Who&When runs: `init` writes the task; two annotators'
`user_state.json` files (Potato's own layout, as tests/e2e/harness.py writes for returning users)
disagree on three runs and agree on one; `adjudicate` writes a task of just those three, which
`potato validate --strict` and `check` accept; the adjudicator's saved values, exported with
`export --as-gold` over the unanimous gold, give a gold file `agreement --gold` reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from potato_multiagent import derive
from tests.e2e.harness import annotation_pairs, radio_answer, returning_user_state, seed_user_state

pytestmark = pytest.mark.realdata

POTATO = Path(sys.executable).with_name("potato")
RUNS = ("1", "10", "11", "12")


def run(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([*map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd)


def cli(*args) -> subprocess.CompletedProcess:
    return run(sys.executable, "-m", "potato_multiagent.cli", *args)


def seed(task: Path, user: str, answers: dict) -> None:
    """`answers`: `{instance: (agent, step)}`; each run is first marked a failure (display_logic)."""
    pairs = annotation_pairs({instance: {"attribution": json.dumps(
        {"responsible_agent": agent, "decisive_step": step, "reason": f"{user}'s reading"})}
        for instance, (agent, step) in answers.items()})
    for instance in pairs:
        pairs[instance].insert(0, radio_answer("outcome", "failure"))
    seed_user_state(task, user, returning_user_state(user, list(answers), pairs))


def test_two_annotators_disagree_on_three_runs_and_the_adjudicated_gold_is_read(corpus, tmp_path):
    sources = [corpus / "who_and_when" / "Hand-Crafted" / f"{name}.json" for name in RUNS]
    task = tmp_path / "task"
    made = cli("init", "--from", "who-and-when", *sources, "-o", task)
    assert made.returncode == 0, made.stderr
    records = {r["id"]: r for r in map(json.loads, (task / "data" / "runs.jsonl").read_text().splitlines())}
    truth = {f"Hand-Crafted-{name}": json.loads(path.read_text()) for name, path in zip(RUNS, sources)}
    ids = list(truth)
    agents = {i: derive(records[i]).agents for i in ids}
    gold_answer = {i: (truth[i]["mistake_agent"], int(truth[i]["mistake_step"])) for i in ids}
    assert all(gold_answer[i][0] in agents[i] for i in ids)
    # alice reads as Who&When's gold everywhere; bob blames the Orchestrator at the first step on
    # the first three runs (where gold blames someone else, or Orchestrator at step 9) and agrees on the last.
    alice = dict(gold_answer)
    bob = {i: ("Orchestrator", 0) for i in ids[:3]}
    bob[ids[3]] = gold_answer[ids[3]]
    seed(task, "alice", alice)
    seed(task, "bob", bob)
    assert cli("check", task / "config.yaml").returncode == 0

    adjudication = tmp_path / "adjudication"
    made = cli("adjudicate", task / "config.yaml", "-o", adjudication)
    assert made.returncode == 0, made.stderr
    expected_lines = [f"{i} / attribution: A: {alice[i][0]} #{alice[i][1] + 1}; B: Orchestrator #1" for i in ids[:3]]
    assert made.stdout.splitlines()[:3] == expected_lines
    written = [json.loads(line) for line in (adjudication / "data" / "adjudication.jsonl").read_text().splitlines()]
    assert [r["id"] for r in written] == ids[:3]
    for record in written:
        assert {k: v for k, v in record.items() if k != "judgments"} == records[record["id"]]
        assert [j["source"] for j in record["judgments"]["attribution"]] == ["annotator 1", "annotator 2"]
    unanimous = [json.loads(line) for line in (adjudication / "gold.jsonl").read_text().splitlines()]
    assert [(g["id"], g["gold"]["responsible_agent"], g["gold"]["decisive_step"]) for g in unanimous] == [
        (ids[3], *gold_answer[ids[3]])]
    validated = run(POTATO, "validate", "--strict", "config.yaml", cwd=adjudication)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    checked = cli("check", adjudication / "config.yaml")
    assert checked.returncode == 0 and checked.stdout.strip().splitlines()[-1] == "0 problem(s), 0 warning(s)"

    # The adjudicator takes alice's answer on the first two runs and bob's on the third.
    settled = {ids[0]: alice[ids[0]], ids[1]: alice[ids[1]], ids[2]: bob[ids[2]]}
    seed(adjudication, "adjudicator", settled)
    gold_path = tmp_path / "gold.jsonl"
    exported = cli("export", adjudication / "config.yaml", "--as-gold", gold_path,
                   "--merge-gold", adjudication / "gold.jsonl")
    assert exported.returncode == 0, exported.stderr
    gold = [json.loads(line) for line in gold_path.read_text().splitlines()]
    assert [(g["id"], g["gold"]["responsible_agent"], g["gold"]["decisive_step"]) for g in gold] == [
        (i, *(settled.get(i) or gold_answer[i])) for i in ids]

    agreement = cli("agreement", task / "config.yaml", "--gold", gold_path, "--json")
    assert agreement.returncode == 0, agreement.stderr
    rows = {(r["measure"], r["annotator"]): r for r in json.loads(agreement.stdout)}
    # gold: WebSurfer #13, Orchestrator #10, Orchestrator #1 (bob's), Assistant #17.
    # alice (WebSurfer #13, Orchestrator #10, WebSurfer #25, Assistant #17): agents 3/4, steps 3/4;
    # bob (Orchestrator #1 three times, Assistant #17): agents 3/4 (runs 2, 3, 4), steps 2/4 (runs 3, 4).
    assert (rows[("agent accuracy vs gold", "alice")]["value"], rows[("agent accuracy vs gold", "alice")]["items"]) \
        == (3 / 4, 4)
    assert rows[("agent accuracy vs gold", "bob")]["value"] == 3 / 4
    assert rows[("step accuracy vs gold", "alice")]["value"] == 3 / 4
    assert rows[("step accuracy vs gold", "bob")]["value"] == 2 / 4
    assert rows[("step accuracy vs gold", None)]["value"] == 5 / 8
