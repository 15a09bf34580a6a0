"""The round trip with a real Phoenix: traces in, annotate in the browser, labels out, read back.

A real `phoenix serve` (arize-phoenix in its own venv, `.venv-phoenix`: it is far too heavy for the
test environment) runs on 127.0.0.1 with a fresh working folder. `phoenix/send_run.py` sends it a
small multi-agent run through the OpenTelemetry OTLP exporter, with OpenInference attributes.
`init --from phoenix` builds the task from Phoenix's REST API; an annotator marks it in Chromium;
`push phoenix` writes the labels as span and trace annotations; Phoenix's API gives them back on
the spans they judge, and a second push leaves them as they were.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.answered_task import radio_task, saved_state

from .harness import REPO_ROOT, choose_decisive_step, free_port, login, start_potato, wait_saved

PHOENIX_VENV = Path(os.environ.get("POTATO_MA_PHOENIX_VENV") or REPO_ROOT / ".venv-phoenix")
SEND_RUN = Path(__file__).parent / "phoenix" / "send_run.py"
PROJECT = "trips"


def _phoenix_python() -> Path:
    """The Phoenix venv's python, installing arize-phoenix there when missing (about 2 minutes)."""
    python = PHOENIX_VENV / "bin" / "python"
    if (PHOENIX_VENV / "bin" / "phoenix").exists():
        return python
    made = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "setup-phoenix.sh")], capture_output=True,
                          text=True, timeout=1200)
    if made.returncode != 0:
        message = f"arize-phoenix could not be installed into {PHOENIX_VENV}: {made.stderr[-2000:]}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return python


def _get(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read().decode("utf-8") or "null")


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory):
    python = _phoenix_python()
    work = tmp_path_factory.mktemp("phoenix")
    port = free_port()
    env = {**os.environ, "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(port),
           "PHOENIX_GRPC_PORT": str(free_port()), "PHOENIX_WORKING_DIR": str(work)}
    log = open(work / "phoenix.log", "w")
    process = subprocess.Popen([str(PHOENIX_VENV / "bin" / "phoenix"), "serve"], env=env, stdout=log,
                               stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                urllib.request.urlopen(f"{url}/healthz", timeout=5).close()
                break
            except OSError:
                assert process.poll() is None, (work / "phoenix.log").read_text()
                assert time.monotonic() < deadline, "phoenix serve did not answer /healthz"
                time.sleep(1)
        sent = subprocess.run([str(python), str(SEND_RUN), url, PROJECT], capture_output=True, text=True,
                              timeout=120)
        assert sent.returncode == 0, sent.stderr
        run = json.loads(sent.stdout)
        deadline = time.monotonic() + 60
        while len(_get(f"{url}/v1/projects/{PROJECT}/spans?limit=100")["data"] if _project_exists(url) else []) < 7:
            assert time.monotonic() < deadline, "Phoenix did not store the 7 spans sent"
            time.sleep(0.5)
        yield {"url": url, "run": run}
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def _project_exists(url: str) -> bool:
    return any(project["name"] == PROJECT for project in _get(f"{url}/v1/projects")["data"])


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "potato_multiagent.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def _annotations(url: str, span_ids) -> list:
    query = "&".join(f"span_ids={span}" for span in span_ids)
    return _get(f"{url}/v1/projects/{PROJECT}/span_annotations?{query}&limit=1000")["data"]


def _trace_annotations(url: str, trace_id: str) -> list:
    return _get(f"{url}/v1/projects/{PROJECT}/trace_annotations?trace_ids={trace_id}&limit=1000")["data"]


def _kept(annotation: dict) -> tuple:
    """What a second push must leave as it was."""
    return (annotation["id"], annotation["name"], annotation.get("span_id") or annotation.get("trace_id"),
            annotation["annotator_kind"], annotation["identifier"], json.dumps(annotation["result"], sort_keys=True))


def test_phoenix_round_trip(phoenix, tmp_path, page):
    url, run = phoenix["url"], phoenix["run"]
    spans, trace_id = run["spans"], run["trace_id"]
    folder = tmp_path / "from-phoenix"
    made = _cli("init", "--from", "phoenix", "--url", url, "--project", PROJECT, "-o", folder)
    assert made.returncode == 0, made.stderr
    assert f"read 7 span(s) of 1 trace(s) from project '{PROJECT}'" in made.stdout
    records = [json.loads(line) for line in (folder / "data" / "runs.jsonl").read_text().splitlines()]
    assert [record["id"] for record in records] == [trace_id]
    # The workflow span adds no step; every other span is a step keeping its span id, in start order.
    assert [(step["span"], step["span_id"]) for step in records[0]["steps"]] == [
        ("Planner", spans["Planner"]), ("response", spans["Planner response"]),
        ("handoff to Researcher", spans["handoff"]), ("Researcher", spans["Researcher"]),
        ("search_flights", spans["search_flights"]), ("response", spans["Researcher response"])]

    server = start_potato(folder)
    try:
        user = f"phx-{uuid.uuid4().hex[:8]}"
        login(page, server.base_url, user)
        page.locator('form[data-schema-name="outcome"] input[type="radio"][value="failure"]').check()
        attribution = page.locator('form.annotation-form[data-schema-name="attribution"]')
        expect(attribution).to_have_attribute("data-ma-ready", "true")
        attribution.get_by_label("Responsible agent").select_option(label="Researcher")
        choose_decisive_step(attribution, 5)
        attribution.get_by_label("Reason").fill("searched with a city name, not a code")
        wait_saved(server, user, trace_id, "attribution",
                   lambda value: value is not None and json.loads(value).get("reason", "").endswith("code"))
        tools = page.locator('form.annotation-form[data-schema-name="tool_calls"]')
        card = tools.get_by_role("group", name="Call 1: search_flights by Researcher (step 5)", exact=True)
        card.get_by_role("radiogroup", name="Verdict").get_by_role("radio", name="wrong_args", exact=True).check()
        card.get_by_label("Notes").fill("Berlin is not a city code")
        wait_saved(server, user, trace_id, "tool_calls",
                   lambda value: value is not None and "city code" in value)
        handoffs = page.locator('form.annotation-form[data-schema-name="handoffs"]')
        handoff = handoffs.get_by_role("group", name=re.compile(r"^Handoff 1: Planner to Researcher"))
        handoff.get_by_role("button", name="info loss", exact=True).click()
        handoff.get_by_role("radiogroup", name="Quality").get_by_role(
            "radio", name=re.compile(r"^2\b")).check()
        wait_saved(server, user, trace_id, "handoffs",
                   lambda value: value is not None and '"quality":2' in value.replace(" ", ""))
    finally:
        server.stop()

    dry = _cli("push", "phoenix", folder / "config.yaml", "--url", url, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    planned = [json.loads(line) for line in dry.stdout.splitlines()[:-1]]
    assert dry.stdout.splitlines()[-1] == f"dry run: {len(planned)} annotation(s) would be sent to {url}; nothing sent"
    assert _annotations(url, spans.values()) == [] and _trace_annotations(url, trace_id) == []

    pushed = _cli("push", "phoenix", folder / "config.yaml", "--url", url)
    assert pushed.returncode == 0, pushed.stderr
    on_spans = _annotations(url, spans.values())
    identity = f"potato-multiagent:{user}"
    by_name = {(a["name"], a["span_id"]): a for a in on_spans}
    decisive = by_name[("attribution", spans["search_flights"])]
    assert (decisive["annotator_kind"], decisive["identifier"], decisive["result"]["label"],
            decisive["result"]["explanation"]) == ("HUMAN", identity, "Researcher",
                                                    "searched with a city name, not a code")
    verdict = by_name[("tool_calls", spans["search_flights"])]
    assert (verdict["result"]["label"], verdict["result"]["explanation"], verdict["identifier"]) == (
        "wrong_args", "Berlin is not a city code", f"{identity}:call call_1")
    handoff_span = spans["handoff"]  # an explicit handoff event is its own `step` (docs/types/handoff_review.md)
    assert by_name[("handoffs.quality", handoff_span)]["result"]["score"] == 2
    assert by_name[("handoffs.info_loss", handoff_span)]["result"] == {"label": "yes", "score": 1.0,
                                                                     "explanation": None}
    assert by_name[("handoffs.garbling", handoff_span)]["result"]["label"] == "no"
    assert len(on_spans) == len([a for a in planned if "span_id" in a]) == 7  # 2 on the tool span, 5 on the handoff
    outcome = _trace_annotations(url, trace_id)
    assert [(a["name"], a["result"]["label"], a["annotator_kind"]) for a in outcome] == [("outcome", "failure", "HUMAN")]

    again = _cli("push", "phoenix", folder / "config.yaml", "--url", url)
    assert again.returncode == 0, again.stderr
    assert sorted(map(_kept, _annotations(url, spans.values()))) == sorted(map(_kept, on_spans))
    assert list(map(_kept, _trace_annotations(url, trace_id))) == list(map(_kept, outcome))
    if os.environ.get("POTATO_MA_SCREENSHOTS") == "1":
        _screenshot_annotations(page, url, trace_id, spans["search_flights"])


def _screenshot_annotations(page, url: str, trace_id: str, span_id: str) -> None:
    """docs/screenshots/phoenix-annotations.png: the pushed labels in Phoenix's own span view."""
    project = next(p["id"] for p in _get(f"{url}/v1/projects")["data"] if p["name"] == PROJECT)
    span = _get(f"{url}/v1/projects/{PROJECT}/spans?span_id={span_id}")["data"][0]["id"]
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{url}/projects/{project}/traces/{trace_id}?selectedSpanNodeId={span}")
    expect(page.get_by_role("tab", name="Info")).to_be_visible(timeout=60_000)  # the span's pane, drawn
    expect(page.get_by_text("city code expected").first).to_be_visible(timeout=60_000)
    page.screenshot(path=str(REPO_ROOT / "docs" / "screenshots" / "phoenix-annotations.png"))


def test_push_to_a_server_that_is_not_there_says_so_once_and_keeps_everything(tmp_path):
    config = radio_task(tmp_path / "task", {"0af7651916cd43dd8448eb211c80319c": "failure"})
    before = saved_state(config)
    dead = f"http://127.0.0.1:{free_port()}"
    result = _cli("push", "phoenix", config, "--url", dead)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(f"error: Phoenix at {dead}: cannot reach")
    assert result.stdout.splitlines()[-1] == f"sent 0 annotation(s) to {dead} (0 on spans, 0 on traces); 1 not sent"
    assert saved_state(config) == before


def test_a_trace_phoenix_lacks_costs_only_its_labels_and_a_second_push_resumes(phoenix, tmp_path):
    """Two runs answered; Phoenix has only the first trace: its label is sent, the other is named
    once, the exit code says not everything went, and the saved answers are untouched."""
    url, trace_id = phoenix["url"], phoenix["run"]["trace_id"]
    ghost = "ffffffffffffffffffffffffffffffff"
    config = radio_task(tmp_path / "task", {trace_id: "success", ghost: "failure"}, scheme="verdict_missing")
    before = saved_state(config)
    result = _cli("push", "phoenix", config, "--url", url)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: Phoenix at {url} has no trace {ghost} ({ghost} / ann / verdict_missing): "
                      f"1 label(s) not sent"]
    assert result.stdout.splitlines()[-1] == f"sent 1 annotation(s) to {url} (0 on spans, 1 on traces); 1 not sent"
    assert [(a["name"], a["result"]["label"]) for a in _trace_annotations(url, trace_id)
            if a["name"] == "verdict_missing"] == [("verdict_missing", "success")]
    assert saved_state(config) == before
    again = _cli("push", "phoenix", config, "--url", url)
    assert again.returncode == 1 and again.stdout == result.stdout
    assert len([a for a in _trace_annotations(url, trace_id) if a["name"] == "verdict_missing"]) == 1


def test_init_picks_traces_by_id_limit_and_time_and_names_what_phoenix_lacks(phoenix, tmp_path):
    url, trace_id = phoenix["url"], phoenix["run"]["trace_id"]
    by_id = _cli("init", "--from", "phoenix", "--url", url, "--project", PROJECT, "--trace-id", trace_id,
                 "-o", tmp_path / "by-id")
    assert by_id.returncode == 0, by_id.stderr
    assert json.loads((tmp_path / "by-id" / "data" / "runs.jsonl").read_text())["id"] == trace_id
    newest = _cli("init", "--from", "phoenix", "--url", url, "--project", PROJECT, "--limit", "1",
                  "--since", "2000-01-01T00:00:00Z", "-o", tmp_path / "newest")
    assert newest.returncode == 0, newest.stderr
    assert "read 7 span(s) of 1 trace(s)" in newest.stdout
    later = _cli("init", "--from", "phoenix", "--url", url, "--project", PROJECT, "--since", "2999-01-01T00:00:00Z",
                 "-o", tmp_path / "later")
    assert (later.returncode, later.stderr.strip()) == (
        1, f"error: Phoenix at {url}: project '{PROJECT}' has no traces since 2999-01-01T00:00:00Z")
    ghost = "ffffffffffffffffffffffffffffffff"
    missing = _cli("init", "--from", "phoenix", "--url", url, "--project", PROJECT, "--trace-id", ghost,
                   "-o", tmp_path / "ghost")
    assert (missing.returncode, missing.stderr.strip()) == (
        1, f"error: Phoenix at {url}: project '{PROJECT}' has no trace {ghost}")
    no_project = _cli("init", "--from", "phoenix", "--url", url, "--project", "nope", "-o", tmp_path / "nope")
    assert no_project.returncode == 1
    assert no_project.stderr.startswith(f"error: Phoenix at {url} has no project 'nope'")
    for folder in ("later", "ghost", "nope"):
        assert not (tmp_path / folder / "config.yaml").exists()
