"""Real data end to end: convert the corpus, annotate through a real Potato server, export, agree.

Who&When: every run becomes a record of one task (gold to a separate file). Two annotators save
attributions through the server's HTTP API the way the browser does (POST `/auth`, GET
`/annotate`, then POST `/updateinstance` with the JSON body annotation.js sends): `copier` saves
the gold labels, `differ` differs on a known set of runs. `agreement --gold` must then report
exactly the figures worked out by hand below, `export` must join each row with the text of its
step in the source run, `check` must pass, and no gold label may reach the page source.

DPBench and MAST: the conversions the issue names, checked against the source logs.
Read from ../shared/corpus (POTATO_MA_CORPUS), never copied into the project.
"""

from __future__ import annotations

import http.cookiejar
import json
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
import yaml

from potato_multiagent import derive, load_task
from tests.e2e.harness import start_potato

pytestmark = pytest.mark.realdata

SCHEMA = "attribution"
CLI_TIMEOUT_S = 300


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "potato_multiagent.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=CLI_TIMEOUT_S)


def read_jsonl(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# --------------------------------------------------------------------------- Who&When: conversion


@pytest.fixture(scope="module")
def who_and_when(corpus, tmp_path_factory):
    """The whole Who&When folder converted into a task folder; the gold file sits outside it."""
    root = tmp_path_factory.mktemp("who-and-when")
    task_dir = root / "task"
    (task_dir / "data").mkdir(parents=True)
    result = cli("convert", "--from", "who-and-when", corpus / "who_and_when", "-o", task_dir / "data" / "runs.jsonl",
                 "--gold", root / "gold.jsonl")
    assert result.returncode == 0, result.stderr
    # By hand (each run's history[mistake_step] against mistake_agent): two runs name another agent
    # than the one acting at the gold step; each is named, and converts.
    folder = corpus / "who_and_when" / "Algorithm-Generated"
    assert [line.split(": mistake_agent: ")[0] for line in result.stderr.splitlines() if line.startswith("warning:")] == [
        f"warning: {folder / '14.json'}:1", f"warning: {folder / '15.json'}:1"]
    config = {"annotation_task_name": f"Who and When real data {root.name}", "task_dir": ".",
              "data_files": ["data/runs.jsonl"], "item_properties": {"id_key": "id", "text_key": "question"},
              "output_annotation_dir": "annotation_output", "plugins": ["multiagent"], "require_password": False,
              "annotation_schemes": [{"annotation_type": "multiagent.failure_attribution", "name": SCHEMA,
                                      "description": "Which agent caused the failure, and at which step?"}]}
    (task_dir / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    records = read_jsonl(task_dir / "data" / "runs.jsonl")
    gold = {line["id"]: line["gold"] for line in read_jsonl(root / "gold.jsonl")}
    return {"task_dir": task_dir, "config": task_dir / "config.yaml", "gold_path": root / "gold.jsonl",
            "records": records, "gold": gold, "sources": sorted((corpus / "who_and_when").glob("*/*.json"))}


def test_every_run_of_both_subsets_converts_with_its_gold_kept_apart(who_and_when):
    sources, records, gold = who_and_when["sources"], who_and_when["records"], who_and_when["gold"]
    assert len(records) == len(sources) == len(gold) == 59
    for path in sources:
        run = json.loads(path.read_text(encoding="utf-8"))
        record_id = f"{path.parent.name}-{path.stem}"
        record = next(r for r in records if r["id"] == record_id)
        assert record["steps"] == run["history"], record_id  # step k of the source is step k of the record
        in_record = {"history", "question", "question_ID", "level", "system_prompt"}
        assert gold[record_id] == {**{key: value for key, value in run.items() if key not in in_record},
                                   "mistake_step": int(run["mistake_step"])}
        assert run["mistake_agent"] in derive(record).agents, record_id
    served = (who_and_when["task_dir"] / "data" / "runs.jsonl").read_text(encoding="utf-8")
    for field in ("mistake_agent", "mistake_step", "mistake_reason", "ground_truth"):
        assert f'"{field}"' not in served
    assert not [entry for entry in gold.values() if entry["mistake_reason"] in served]


# --------------------------------------------------------------------------- Who&When: two annotators


def planned_answers(records: list, gold: dict) -> tuple:
    """The two annotators' answers and the runs where `differ` departs from gold, chosen in id order:
    5 runs naming another agent of the trace, then 4 with the step one later, then 3 with the step
    three later (each only where the run has such an agent or step)."""
    copier, differ = {}, {}
    other_agent, one_later, three_later = [], [], []
    for record in sorted(records, key=lambda r: r["id"]):
        answer = gold[record["id"]]
        agent, step, steps = answer["mistake_agent"], answer["mistake_step"], len(record["steps"])
        others = [name for name in derive(record).agents if name != agent]
        copier[record["id"]] = {"responsible_agent": agent, "decisive_step": step, "reason": answer["mistake_reason"]}
        chosen = {"responsible_agent": agent, "decisive_step": step, "reason": "my own reading"}
        if len(other_agent) < 5 and others:
            chosen["responsible_agent"] = others[0]
            other_agent.append(record["id"])
        elif len(one_later) < 4 and step + 1 < steps:
            chosen["decisive_step"] = step + 1
            one_later.append(record["id"])
        elif len(three_later) < 3 and step + 3 < steps:
            chosen["decisive_step"] = step + 3
            three_later.append(record["id"])
        differ[record["id"]] = chosen
    assert (len(other_agent), len(one_later), len(three_later)) == (5, 4, 3)
    return copier, differ


class Browserless:
    """One annotator's session, saving the way annotation.js does."""

    def __init__(self, base_url: str, user: str):
        self.base_url = base_url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        login = self.opener.open(f"{base_url}/auth", data=urllib.parse.urlencode({"email": user}).encode(), timeout=30)
        assert login.status == 200 and login.url.endswith("/annotate"), login.url  # /auth redirects to /annotate

    def page(self) -> str:
        return self.opener.open(f"{self.base_url}/annotate", timeout=30).read().decode("utf-8")

    def save(self, instance_id: str, value: dict) -> None:
        body = {"instance_id": instance_id, "annotations": {f"{SCHEMA}:{SCHEMA}": json.dumps(value)},
                "cleared_schemas": [], "span_annotations": [],
                "client_timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()), "response_time_seconds": 2.5}
        request = urllib.request.Request(f"{self.base_url}/updateinstance", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        reply = json.loads(self.opener.open(request, timeout=30).read())
        assert reply.get("status") == "success", (instance_id, reply)


@pytest.fixture(scope="module")
def annotated(who_and_when):
    """Both annotators' answers saved through a real server, which is stopped before anything reads them."""
    copier, differ = planned_answers(who_and_when["records"], who_and_when["gold"])
    server = start_potato(who_and_when["task_dir"])
    try:
        pages = {}
        for user, answers in (("copier", copier), ("differ", differ)):
            session = Browserless(server.base_url, user)
            pages[user] = session.page()
            for instance_id, value in answers.items():
                session.save(instance_id, value)
        _wait_until_saved(who_and_when["task_dir"], {"copier": copier, "differ": differ})
    finally:
        server.stop()
    return {**who_and_when, "copier": copier, "differ": differ, "pages": pages}


def _wait_until_saved(task_dir: Path, answers: dict, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        saved = {}
        for user in answers:
            try:
                state = json.loads((task_dir / "annotation_output" / user / "user_state.json").read_text())
            except (OSError, ValueError):
                state = {}
            saved[user] = {instance: json.loads(value) for instance, pairs in
                           state.get("instance_id_to_label_to_value", {}).items() for _, value in pairs}
        if saved == answers or time.monotonic() > deadline:
            assert saved == answers
            return
        time.sleep(0.2)


def test_agreement_with_gold_reports_the_figures_worked_out_by_hand(annotated):
    result = cli("agreement", annotated["config"], "--gold", annotated["gold_path"], "--json")
    assert result.returncode == 0, result.stderr
    got = {(row["measure"], row["annotator"]): (row["value"], row["items"], row["annotators"])
           for row in json.loads(result.stdout)}
    n = 59
    # differ names another agent on 5 runs, moves the step by 1 on 4 and by 3 on 3.
    assert got[("agent agreement (exact)", None)] == (pytest.approx((n - 5) / n), n, 2)
    assert got[("step agreement (exact)", None)] == (pytest.approx((n - 7) / n), n, 2)
    assert got[("step agreement (within ±1)", None)] == (pytest.approx((n - 3) / n), n, 2)
    assert got[("agent accuracy vs gold", "copier")] == (1.0, n, 1)
    assert got[("agent accuracy vs gold", "differ")] == (pytest.approx((n - 5) / n), n, 1)
    assert got[("agent accuracy vs gold", None)] == (pytest.approx((2 * n - 5) / (2 * n)), n, 2)
    assert got[("step accuracy vs gold", "copier")] == (1.0, n, 1)
    assert got[("step accuracy vs gold", "differ")] == (pytest.approx((n - 7) / n), n, 1)
    assert got[("step accuracy vs gold", None)] == (pytest.approx((2 * n - 7) / (2 * n)), n, 2)
    assert got[("step accuracy within ±1 vs gold", "differ")] == (pytest.approx((n - 3) / n), n, 1)
    assert got[("agent kappa (Cohen)", None)] == (pytest.approx(_kappa_by_hand(annotated)), n, 2)


def _kappa_by_hand(annotated) -> float:
    """Cohen's kappa from its definition: (p_o - p_e) / (1 - p_e) over the responsible agents."""
    ids = sorted(annotated["copier"])
    first = [annotated["copier"][i]["responsible_agent"] for i in ids]
    second = [annotated["differ"][i]["responsible_agent"] for i in ids]
    observed = sum(a == b for a, b in zip(first, second)) / len(ids)
    counts_a, counts_b = Counter(first), Counter(second)
    expected = sum(counts_a[label] * counts_b[label] for label in counts_a) / len(ids) ** 2
    return (observed - expected) / (1 - expected)


def test_export_rows_join_the_text_of_the_decisive_step_in_the_source_run(annotated, tmp_path):
    result = cli("export", annotated["config"], "--format", "jsonl", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    rows = read_jsonl(tmp_path / f"{SCHEMA}.jsonl")
    assert len(rows) == 2 * 59
    histories = {record["id"]: record["steps"] for record in annotated["records"]}
    checked = 0
    for row in rows:
        assert row["responsible_agent"] == annotated[row["user"]][row["instance_id"]]["responsible_agent"]
        source_step = histories[row["instance_id"]][row["decisive_step"]]
        assert row["decisive_step_number"] == row["decisive_step"] + 1
        if isinstance(source_step.get("content"), str):
            assert row["step_text"] == source_step["content"], (row["instance_id"], row["user"])
            checked += 1
        assert row["timestamp"]  # from Potato's annotation_history.jsonl
    assert checked >= 100
    assert json.loads((tmp_path / "report.json").read_text())["invalid"] == []


def test_load_task_gives_the_rows_of_export_and_the_figures_of_agreement(annotated, tmp_path):
    task = load_task(annotated["config"])
    assert len(task.records()) == 59
    assert cli("export", annotated["config"], "--format", "jsonl", "--out", tmp_path).returncode == 0
    frame = task.annotations(SCHEMA)
    exported = read_jsonl(tmp_path / f"{SCHEMA}.jsonl")
    assert frame.astype(object).where(frame.notna(), None).to_dict("records") == exported
    figures = task.agreement(gold=annotated["gold_path"])
    cli_figures = json.loads(cli("agreement", annotated["config"], "--gold", annotated["gold_path"], "--json").stdout)
    assert figures.astype(object).where(figures.notna(), None).to_dict("records") == cli_figures
    addressed = next(r["id"] for r in annotated["records"]
                     if any(step.get("role") == "Orchestrator (-> WebSurfer)" for step in r["steps"]))
    graph = task.graph(addressed)
    assert graph.has_edge("Orchestrator", "WebSurfer") and "Orchestrator (-> WebSurfer)" not in graph


def test_check_passes_on_what_the_server_saved(annotated):
    result = cli("check", annotated["config"])
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().splitlines()[-1] == "0 problem(s), 0 warning(s)"


def test_no_gold_label_reaches_the_page_source(annotated):
    for user, page in annotated["pages"].items():
        assert "data-instance-json" in page, user
        for field in ("mistake_agent", "mistake_step", "mistake_reason", "ground_truth"):
            assert field not in page, (user, field)
        first = annotated["records"][0]["id"]
        assert f'value="{first}"' in page
        assert annotated["gold"][first]["mistake_reason"] not in page


# --------------------------------------------------------------------------- DPBench


@pytest.fixture(scope="module")
def dpbench(corpus, tmp_path_factory):
    root = tmp_path_factory.mktemp("dpbench")
    result = cli("convert", "--from", "dpbench", corpus / "dpbench", "-o", root / "episodes.jsonl",
                 "--gold", root / "gold.jsonl")
    assert result.returncode == 0, result.stderr
    gold = {line["id"]: line["gold"] for line in read_jsonl(root / "gold.jsonl")}
    return {"records": read_jsonl(root / "episodes.jsonl"), "gold": gold,
            "sources": {path.stem: path for path in (corpus / "dpbench").glob("*.jsonl")}}


def _last_timestep(path: Path) -> dict:
    return [line for line in read_jsonl(path) if line["type"] == "timestep"][-1]


def test_the_deadlocked_episode_ends_with_a_region_on_every_fork_holding_holder_and_waiter(dpbench):
    [deadlocked] = [r for r in dpbench["records"] if dpbench["gold"][r["id"]] == {"deadlock": True}]
    last = _last_timestep(dpbench["sources"][deadlocked["id"]])
    philosophers, forks = last["table_state"]["philosophers"], last["table_state"]["forks"]
    names = {p["id"]: p["name"] for p in philosophers}
    # From the source's own flags: a philosopher holding exactly one fork waits for the other.
    waiting_for = {}
    for p in philosophers:
        if p["has_left_fork"] != p["has_right_fork"]:
            needed = p["id"] if not p["has_left_fork"] else (p["id"] + 1) % len(forks)
            waiting_for[needed] = names[p["id"]]
    regions = [r for r in derive(deadlocked).contentions if r["start"] <= last["timestep"] < r["end"]]
    assert sorted(r["resource"] for r in regions) == [f"fork_{i}" for i in range(len(forks))]
    for region in regions:
        fork = int(region["resource"].split("_")[1])
        assert sorted(region["agents"]) == sorted([names[forks[fork]["holder"]], waiting_for[fork]]), region


def test_the_other_episode_ends_with_no_region(dpbench):
    [free] = [r for r in dpbench["records"] if dpbench["gold"][r["id"]] == {"deadlock": False}]
    last = _last_timestep(dpbench["sources"][free["id"]])["timestep"]
    assert [r for r in derive(free).contentions if r["start"] <= last < r["end"]] == []


# The sequential episode read by hand: its 28 timestep lines (3..30) each repeat every philosopher's
# latest decision; the first holds the decisions of timesteps 1-3, every later one adds the decision
# of the philosopher whose turn it is (its reasoning and its llm_calls entry are new, the others'
# are copies of the line before). 30 timesteps, 30 decisions, P0 P1 P2 in turn.
SEQUENTIAL_DECISIONS = [
    "grab_right", "wait", "grab_left", "grab_left", "wait", "release", "release", "grab_right", "wait",
    "grab_right", "release", "grab_right", "release", "grab_right", "release", "grab_left", "grab_left", "wait",
    "release", "release", "grab_right", "wait", "grab_left", "grab_left", "wait", "release", "release",
    "grab_right", "wait", "grab_left"]


def test_the_sequential_episode_has_one_step_per_real_decision(dpbench):
    [sequential] = [r for r in dpbench["records"] if "_seq3nc_" in r["id"]]
    lines = read_jsonl(dpbench["sources"][sequential["id"]])
    assert sum(len(line.get("decisions", [])) for line in lines) == 84  # what the log repeats
    assert [(s["agent"], s["timestep"], s["action"]) for s in sequential["steps"]] == [
        (f"P{(t - 1) % 3}", t, action) for t, action in enumerate(SEQUENTIAL_DECISIONS, start=1)]
    derivation = derive(sequential)
    assert len(derivation.steps) == 30
    assert [(h["from"], h["to"]) for h in derivation.handoffs] == [
        (f"P{(t - 1) % 3}", f"P{t % 3}") for t in range(1, 30)]
    by_timestep = {line["timestep"]: line for line in lines if line["type"] == "timestep"}
    p1_at_5 = next(d for d in by_timestep[5]["decisions"] if d["philosopher_id"] == 1)
    assert sequential["steps"][4]["thought"] == p1_at_5["reasoning"]
    waits = [(c["agent"], c["resource"], c["start"]) for c in sequential["calls"] if c["tool"] == "wait"]
    # By hand: every wait decision dated 5..30 (P1 at 5 and 29, P2 at 9 and 18, P0 at 22 and 25) is
    # made holding no fork, and every grab succeeds; P1's wait at 2 precedes the first logged table.
    assert waits == []
    # P0 took fork 1 at timestep 1 (grab_right), before the first logged table (timestep 3, holders
    # [None, 0, 2]), and released it at 7 (holders [None, None, None]).
    holds = [(c["agent"], c["resource"], c["start"], c["end"]) for c in sequential["calls"] if c["tool"] == "hold"]
    assert holds[0] == ("P0", "fork_1", 1, 7)


# --------------------------------------------------------------------------- MAST


def test_the_ag2_mast_record_yields_its_agents_and_steps(corpus, tmp_path):
    source = corpus / "mast" / "AG2_GSM-Plus_trace2.json"
    result = cli("convert", "--from", "mast", source, "-o", tmp_path / "mast.jsonl", "--gold", tmp_path / "gold.jsonl")
    assert result.returncode == 0, result.stderr
    [record] = read_jsonl(tmp_path / "mast.jsonl")
    trajectory = json.loads(json.loads(source.read_text(encoding="utf-8"))["trace"])["trajectory"]
    assert record["steps"] == trajectory
    assert derive(record).agents == list(dict.fromkeys(step["name"] for step in trajectory))
    [gold] = read_jsonl(tmp_path / "gold.jsonl")
    # all three annotators marked round 1's "1.5 Unaware of stopping conditions" and "3.3 Ignoring
    # suggestions from agents": the final taxonomy's 1.5 and 2.5; never in the record
    assert gold["gold"]["mast"]["marked"] == ["1.5", "2.5"]
    assert "annotator_1" not in json.dumps(record)


def test_the_metagpt_log_splits_at_its_speaker_lines(corpus, tmp_path):
    source = corpus / "mast" / "MetaGPT_ProgramDev_trace4.json"
    result = cli("convert", "--from", "mast", source, "-o", tmp_path / "mast.jsonl", "--gold", tmp_path / "gold.jsonl")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    [record] = read_jsonl(tmp_path / "mast.jsonl")
    log = json.loads(json.loads(source.read_text(encoding="utf-8"))["trace"])["content"]
    # By hand: the log has five loguru lines, each naming its speaker as Name(Role), each followed
    # by that action's output (code for Alice and Bob, nothing for Charlie's reviews).
    assert [(s["agent"], s["agent_role"], s["time"]) for s in record["steps"]] == [
        ("Alice", "SimpleCoder", "2025-01-17 11:40:27.872"), ("Bob", "SimpleTester", "2025-01-17 11:40:30.812"),
        ("Charlie", "SimpleReviewer", "2025-01-17 11:40:34.802"), ("Bob", "SimpleTester", "2025-01-17 11:40:38.531"),
        ("Charlie", "SimpleReviewer", "2025-01-17 11:40:43.790")]
    assert record["steps"][0]["content"].startswith("to do SimpleWriteCode(SimpleWriteCode)\n```python\ndef detect_palindromes")
    assert record["steps"][2]["content"] == "to do SimpleWriteReview(SimpleWriteReview)"
    assert all(step["content"].split("\n")[0] in log for step in record["steps"])
    assert record["task"] == "develop a program that detects palindromes in a text file"
    [gold] = read_jsonl(tmp_path / "gold.jsonl")
    assert gold["gold"]["round"] == "Round 1" and "annotator_1" not in json.dumps(record)
