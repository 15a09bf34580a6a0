"""Public labelled data, end to end: `init` on the files as published, `potato start` on the folder
it wrote, an annotator's mark in the browser, `export` of what Potato saved, and the labels only in
gold.jsonl.

- Labels in a side file: AgentRx's layout (tests/fixtures/agentrx): Magentic-One runs converted with
  `--from autogen`, `--gold-from` its ground-truth array by `trajectory_id`, steps counted from 1.
  The annotator attributes the labelled run's failure where AgentRx's root cause puts it (FileSurfer,
  step 12 counted from 1: #12), and `agreement --gold` scores that attribution against the joined label.
- Parquet: TRAIL's Hugging Face layout (rows `{trace, labels}` of JSON text, tests/fixtures/trail)
  with `--from openinference`: the annotator judges the failing web search, the call TRAIL's
  rate-limiting error is located on, and the export names that call.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import uuid
from pathlib import Path

import pyarrow
import pyarrow.parquet
import pytest
import yaml
from playwright.sync_api import expect

from .harness import choose_decisive_step, current_instance_id, login, start_potato, wait_saved

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
AGENTRX = FIXTURES / "agentrx" / "data"
LABELLED = "0a3cd321-3e76-4622-911b-0fda2e5d6b1a"
TRAIL_TRACE = "5b7f6e3a9c4d2e1f0a8b7c6d5e4f3a2b"


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "potato_multiagent.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def read_csv(path: Path) -> list:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def agentrx_task(tmp_path_factory):
    folder = tmp_path_factory.mktemp("agentrx") / "task"
    made = cli("init", "--from", "autogen", AGENTRX / "magentic_dataset", "-o", folder,
               "--gold-from", AGENTRX / "ground_truth" / "magentic_one_ground_truth.json",
               "--gold-key", "trajectory_id", "--gold-step-base", "1")
    assert made.returncode == 0, made.stderr
    assert "labels from --gold-from: 1 of 2 run(s) got one; 1 label(s) name no run" in made.stdout.splitlines()
    server = start_potato(folder)
    yield {"server": server, "folder": folder}
    server.stop()


def test_a_side_file_label_reaches_gold_and_scores_an_attribution_made_in_the_browser(agentrx_task, page, tmp_path):
    server, folder = agentrx_task["server"], agentrx_task["folder"]
    [gold] = [json.loads(line) for line in (folder / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    assert gold["id"] == LABELLED and (gold["gold"]["mistake_agent"], gold["gold"]["mistake_step"]) == ("FileSurfer", 11)
    user = f"agentrx-{uuid.uuid4().hex[:8]}"
    login(page, server.base_url, user)
    assert current_instance_id(page) == LABELLED
    page.locator('form[data-schema-name="outcome"] input[type="radio"][value="failure"]').check()
    attribution = page.locator('form.annotation-form[data-schema-name="attribution"]')
    expect(attribution).to_have_attribute("data-ma-ready", "true")
    attribution.get_by_label("Responsible agent").select_option(label="FileSurfer")
    choose_decisive_step(attribution, 12)
    wait_saved(server, user, LABELLED, "attribution",
               lambda value: value is not None and json.loads(value).get("decisive_step") == 11)
    assert "Invention of new information" not in page.content()  # the label stays in gold.jsonl

    exported = cli("export", folder / "config.yaml", "--format", "csv", "--out", tmp_path / "out")
    assert exported.returncode == 0, exported.stderr
    [row] = [row for row in read_csv(tmp_path / "out" / "attribution.csv") if row["user"] == user]
    assert (row["instance_id"], row["responsible_agent"], row["decisive_step"], row["decisive_step_number"]) == (
        LABELLED, "FileSurfer", "11", "12")
    assert row["step_text"].endswith("The veterinarian is Dr. Louvrier.")

    scored = cli("agreement", folder / "config.yaml", "--gold", folder / "gold.jsonl", "--json")
    assert scored.returncode == 0, scored.stderr
    figures = {(r["measure"], r["annotator"]): r["value"] for r in json.loads(scored.stdout)}
    assert figures[("agent accuracy vs gold", user)] == 1.0
    assert figures[("step accuracy vs gold", user)] == 1.0


@pytest.fixture(scope="module")
def trail_task(tmp_path_factory):
    root = tmp_path_factory.mktemp("trail")
    rows = pyarrow.table({
        "trace": [(FIXTURES / "trail" / "GAIA" / f"{TRAIL_TRACE}.json").read_text(encoding="utf-8")],
        "labels": [(FIXTURES / "trail" / "processed_annotations_gaia" / f"{TRAIL_TRACE}.json").read_text(encoding="utf-8")]})
    (root / "data").mkdir()
    pyarrow.parquet.write_table(rows, root / "data" / "gaia-00000-of-00001.parquet")
    folder = root / "task"
    made = cli("init", "--from", "openinference", root / "data", "-o", folder)
    assert made.returncode == 0, made.stderr
    server = start_potato(folder)
    yield {"server": server, "folder": folder, "config": yaml.safe_load((folder / "config.yaml").read_text())}
    server.stop()


def test_a_parquet_file_is_served_and_the_failing_calls_review_is_exported(trail_task, page, tmp_path):
    server, folder = trail_task["server"], trail_task["folder"]
    assert [s["name"] for s in trail_task["config"]["annotation_schemes"]] == ["outcome", "tool_calls"]
    [gold] = [json.loads(line) for line in (folder / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(e["category"], e["step_index"]) for e in gold["gold"]["errors"]] == [
        ("Rate Limiting", 3), ("Language-only", 5), ("Goal Deviation", None)]
    user = f"trail-{uuid.uuid4().hex[:8]}"
    login(page, server.base_url, user)
    assert current_instance_id(page) == TRAIL_TRACE
    card = page.locator('form[data-schema-name="tool_calls"]').get_by_role(
        "group", name="Call 1: web_search by CodeAgent (step 4)", exact=True)
    card.get_by_role("radiogroup", name="Verdict").get_by_role("radio", name="wrong_tool", exact=True).check()
    wait_saved(server, user, TRAIL_TRACE, "tool_calls",
               lambda value: value is not None and any(entry.get("verdict") == "wrong_tool" for entry in json.loads(value)))
    assert "Rate Limiting" not in page.content()

    exported = cli("export", folder / "config.yaml", "--format", "parquet", "--out", tmp_path / "out")
    assert exported.returncode == 0, exported.stderr
    table = pyarrow.parquet.read_table(tmp_path / "out" / "tool_calls.parquet").to_pylist()
    [row] = [row for row in table if row["user"] == user]
    assert (row["instance_id"], row["step"], row["step_number"], row["tool"], row["verdict"]) == (
        TRAIL_TRACE, 3, 4, "web_search", "wrong_tool")
    assert json.loads(row["arguments"]) == {"query": "Mercedes Sosa studio albums 2000 2009"}
    assert row["step"] == gold["gold"]["errors"][0]["step_index"]  # the step TRAIL's label is on
