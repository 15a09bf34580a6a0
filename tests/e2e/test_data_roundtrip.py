"""Data in and out through a real Potato page: convert, annotate in Chromium, export, read back.

Traces written for this project in two frameworks' documented shapes (an AutoGen AgentChat
`TaskResult` with handoff and tool-call events, an OpenAI Agents SDK span export) are converted by
`potato-multiagent convert` into one task. An annotator attributes each run in the
failure-attribution widget, which derives the record in the browser (`derive.js`); the widget must
offer exactly the agents and steps the Python derivation finds in the converted record. What Potato
saved must come out of `export` (and `load_task`) joined with the chosen step's text, and `check`
must pass.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive, load_task
from tests.unit.test_convert_autogen import TASK_RESULT
from tests.unit.test_convert_openai_agents import END_ORDER, TRACE

from .harness import choose_decisive_step, current_instance_id, decisive_step_count, go_next, login, wait_saved_json

pytestmark = pytest.mark.e2e

SCHEMA = "attribution"


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "potato_multiagent.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A task folder whose data files are the converter's output."""
    root = tmp_path_factory.mktemp("roundtrip")
    inputs = root / "inputs"
    inputs.mkdir()
    (inputs / "flight-desk.json").write_text(json.dumps(TASK_RESULT), encoding="utf-8")
    (inputs / "agents-sdk.json").write_text(json.dumps([TRACE] + END_ORDER), encoding="utf-8")
    task_dir = root / "task"
    (task_dir / "data").mkdir(parents=True)
    for framework, name in (("autogen", "flight-desk.json"), ("openai-agents", "agents-sdk.json")):
        result = cli("convert", "--from", framework, inputs / name, "-o", task_dir / "data" / f"{framework}.jsonl")
        assert result.returncode == 0, result.stderr
    config = {"annotation_task_name": f"Data round trip {root.name}", "task_dir": ".",
              "data_files": ["data/autogen.jsonl", "data/openai-agents.jsonl"],
              "item_properties": {"id_key": "id", "text_key": "id"}, "output_annotation_dir": "annotation_output",
              "plugins": ["multiagent"], "require_password": False,
              "annotation_schemes": [{"annotation_type": "multiagent.failure_attribution", "name": SCHEMA,
                                      "description": "Which agent caused the failure, and at which step?"}]}
    (task_dir / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return task_dir


@pytest.fixture(scope="module")
def task(potato_task, source):
    return potato_task(source)


def records(task_dir):
    lines = []
    for name in ("autogen.jsonl", "openai-agents.jsonl"):
        lines += (task_dir / "data" / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def form(page):
    return page.locator(f'form.annotation-form[data-schema-name="{SCHEMA}"]')


def option_labels(select) -> list:
    return select.evaluate("s => [...s.options].filter(o => o.value !== '').map(o => o.label)")


def attribute(page, agent: str, step: int) -> None:
    form(page).get_by_label("Responsible agent").select_option(label=agent)
    choose_decisive_step(form(page), step + 1)


def test_converted_runs_are_annotated_in_the_browser_and_exported_with_their_step_text(task, page):
    user = f"rt-{uuid.uuid4().hex[:10]}"
    runs = records(task.task_dir)
    choices = {runs[0]["id"]: ("booker", 2), runs[1]["id"]: ("Checker", 6)}
    login(page, task.base_url, user)
    for position, run in enumerate(runs):
        if position:
            go_next(page)
        assert current_instance_id(page) == run["id"]
        expect(form(page)).to_have_attribute("data-ma-ready", "true")
        derivation = derive(run)
        assert option_labels(form(page).get_by_label("Responsible agent")) == derivation.agents
        assert decisive_step_count(form(page)) == len(derivation.steps)
        agent, step = choices[run["id"]]
        attribute(page, agent, step)
        wait_saved_json(task, user, run["id"], SCHEMA, {"responsible_agent": agent, "decisive_step": step, "reason": ""})

    out = task.task_dir.parent / f"export-{user}"
    assert cli("export", task.task_dir / "config.yaml", "--format", "jsonl", "--out", out).returncode == 0
    rows = [json.loads(line) for line in (out / f"{SCHEMA}.jsonl").read_text(encoding="utf-8").splitlines()]
    mine = [row for row in rows if row["user"] == user]
    assert [(row["instance_id"], row["responsible_agent"], row["step_agent"], row["step_text"]) for row in mine] == [
        (runs[0]["id"], "booker", "booker", 'search_flights({"from": "LIS", "to": "OSL", "date": "2025-03-14"})'),
        (runs[1]["id"], "Checker", "Checker", "[]")]
    assert all(row["timestamp"] for row in mine)

    frame = load_task(task.task_dir / "config.yaml").annotations(SCHEMA)
    assert frame.astype(object).where(frame.notna(), None).to_dict("records") == rows
    check = cli("check", task.task_dir / "config.yaml")
    assert check.returncode == 0, check.stdout


def test_minutes_per_run_come_out_of_export_for_a_run_annotated_in_the_browser(task, page):
    """Potato's page posts its interaction events (every 5 s, and on leaving); Potato keeps them in
    user_state.json; export turns them into minutes per run for the run this annotator worked on."""
    user = f"time-{uuid.uuid4().hex[:10]}"
    run = records(task.task_dir)[0]
    login(page, task.base_url, user)
    expect(form(page)).to_have_attribute("data-ma-ready", "true")
    attribute(page, "booker", 2)
    page.wait_for_timeout(1500)   # some time on the item, as an annotator reading it
    form(page).get_by_label("Reason").fill("booked the wrong date")
    form(page).get_by_label("Reason").blur()
    wait_saved_json(task, user, run["id"], SCHEMA, {"responsible_agent": "booker", "decisive_step": 2,
                                                    "reason": "booked the wrong date"})
    go_next(page)   # leaving the item flushes its events
    attribute(page, "Checker", 6)   # a save on the next item writes the state with the first one's events

    def timed() -> list:
        frame = load_task(task.task_dir / "config.yaml").minutes_per_run()
        mine = frame[(frame["user"] == user) & (frame["instance_id"] == run["id"])]
        return mine.to_dict("records")

    deadline = time.monotonic() + 30
    while not (timed() and (timed()[0]["minutes"] or 0) > 0) and time.monotonic() < deadline:
        # blank until Potato writes the item's events with a save (the note says so)
        page.wait_for_timeout(500)
    [row] = timed()
    assert row["minutes"] is not None and row["minutes"] > 0 and row["answered"] is True, row
    out = task.task_dir.parent / f"export-{user}"
    assert cli("export", task.task_dir / "config.yaml", "--format", "jsonl", "--out", out).returncode == 0
    exported = [json.loads(line) for line in (out / "minutes_per_run.jsonl").read_text().splitlines()]
    assert {"instance_id": run["id"], "user": user, "minutes": row["minutes"], "answered": True, "note": ""} in exported
