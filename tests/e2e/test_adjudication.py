"""Adjudication in the browser: two annotators disagree on three real Who&When runs;
`adjudicate` writes a task of just those; `potato start` serves it as written; the adjudicator
settles the first run in Chromium; what Potato saved, exported with `export --as-gold` over the
unanimous gold, is a gold file `agreement --gold` reads."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .harness import (annotation_pairs, current_instance_id, login, radio_answer, returning_user_state,
                      seed_user_state, start_potato, wait_saved)
from .test_init import corpus_folder

pytestmark = pytest.mark.realdata
RUNS = ("1", "10", "12")


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "potato_multiagent.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def seed(task: Path, user: str, answers: dict) -> None:
    pairs = annotation_pairs({i: {"attribution": json.dumps({"responsible_agent": a, "decisive_step": s,
                                                              "reason": ""})} for i, (a, s) in answers.items()})
    for instance in pairs:
        pairs[instance].insert(0, radio_answer("outcome", "failure"))
    seed_user_state(task, user, returning_user_state(user, list(answers), pairs))


@pytest.fixture(scope="module")
def adjudication(tmp_path_factory):
    root = tmp_path_factory.mktemp("adjudication")
    sources = [corpus_folder() / "who_and_when" / "Hand-Crafted" / f"{name}.json" for name in RUNS]
    made = cli("init", "--from", "who-and-when", *sources, "-o", root / "task")
    assert made.returncode == 0, made.stderr
    truth = {f"Hand-Crafted-{n}": json.loads(p.read_text()) for n, p in zip(RUNS, sources)}
    ids = list(truth)
    seed(root / "task", "alice", {i: (truth[i]["mistake_agent"], int(truth[i]["mistake_step"])) for i in ids})
    seed(root / "task", "bob", {i: ("human", 0) for i in ids})
    made = cli("adjudicate", root / "task" / "config.yaml", "-o", root / "adjudication")
    assert made.returncode == 0, made.stderr
    server = start_potato(root / "adjudication")  # the folder adjudicate wrote, nothing added
    yield {"root": root, "server": server, "ids": ids, "truth": truth}
    server.stop()


def test_the_adjudicator_settles_a_run_and_it_becomes_gold(adjudication, page):
    root, server, ids = adjudication["root"], adjudication["server"], adjudication["ids"]
    written = [json.loads(line) for line in (root / "adjudication" / "data" / "adjudication.jsonl").read_text()
               .splitlines()]
    assert [r["id"] for r in written] == ids  # all three disagree
    user = f"adjudicator-{uuid.uuid4().hex[:8]}"
    login(page, server.base_url, user)
    first = ids[0]
    assert current_instance_id(page) == first
    page.locator('form[data-schema-name="outcome"] input[type="radio"][value="failure"]').check()
    attribution = page.locator('form.annotation-form[data-schema-name="attribution"]')
    expect(attribution).to_have_attribute("data-ma-ready", "true")
    attribution.get_by_label("Responsible agent").select_option(label="Orchestrator")
    saved = wait_saved(server, user, first, "attribution",
                       lambda value: value is not None and json.loads(value).get("responsible_agent") == "Orchestrator")
    assert json.loads(saved)["decisive_step"] is None

    gold_path = root / "gold.jsonl"
    exported = cli("export", root / "adjudication" / "config.yaml", "--as-gold", gold_path,
                   "--merge-gold", root / "adjudication" / "gold.jsonl")
    assert exported.returncode == 0, exported.stderr
    gold = [json.loads(line) for line in gold_path.read_text().splitlines()]
    assert [(g["id"], g["gold"]["responsible_agent"], g["gold"]["settled"]) for g in gold] == [
        (first, "Orchestrator", {"attribution": "adjudicated"})]
    agreement = cli("agreement", root / "task" / "config.yaml", "--gold", gold_path, "--json")
    assert agreement.returncode == 0, agreement.stderr
    rows = {(r["measure"], r["annotator"]): r for r in json.loads(agreement.stdout)}
    # Hand-Crafted-1: gold now Orchestrator; alice said WebSurfer (Who&When's answer), bob human.
    assert rows[("agent accuracy vs gold", None)]["value"] == 0.0
    assert rows[("agent accuracy vs gold", None)]["items"] == 1
