"""`push langfuse`: labels as Langfuse scores, checked against what Langfuse's own SDK sends.

tests/fixtures/real/langfuse/scores-api.json holds the requests langfuse 5.2.0's
`client.api.scores.create` made (recorded offline by record_scores.py there): a CATEGORICAL,
NUMERIC and BOOLEAN score on an observation and a CATEGORICAL one on a trace. A stub server on
127.0.0.1 stands in for Langfuse here; every body we send must take the SDK's route, field names
and value types for its data type, with a stable id.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from potato_multiagent.tracetools.labels import HUMAN, Label
from tests.answered_task import radio_task
from potato_multiagent.tracetools.langfuse import push_labels

RECORDED = json.loads((Path(__file__).parents[1] / "fixtures" / "real" / "langfuse" / "scores-api.json").read_text())
SDK_SCORES = RECORDED["requests"][0]["body"]
TRACE, SPAN = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"


def label(name, span_id=SPAN, **fields):
    return Label(instance_id=TRACE, trace_id=TRACE, span_id=span_id, step=None if span_id is None else 4,
                 scheme=name.split(".")[0], name=name, annotator="ann", kind=HUMAN, **fields)


LABELS = [label("attribution", label="Researcher", explanation="searched with a city name"),
          label("handoffs.quality", score=2.0, key="handoff 0"),
          label("handoffs.info_loss", label="yes", score=1.0, explanation="lost it", key="handoff 0"),
          label("outcome", span_id=None, label="failure")]


class Langfuse:
    """A stub Langfuse: keeps each request; answers ``status`` (202 unless told)."""

    def __init__(self):
        self.requests, self.status = [], 202
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append({"path": self.path, "authorization": self.headers.get("Authorization"),
                                      "body": body})
                self.send_response(stub.status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def scores(self):
        return [score for request in self.requests for score in request["body"]]


@pytest.fixture
def langfuse(monkeypatch):
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk-lf-test")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk-lf-test")
    stub = Langfuse()
    yield stub
    stub.server.shutdown()


def test_scores_take_the_sdks_route_names_and_value_types(langfuse, tmp_path):
    report = push_labels(langfuse.url, LABELS, tmp_path)
    assert (report.sent, report.unchanged, report.not_sent) == (4, 0, [])
    assert {request["path"] for request in langfuse.requests} == {RECORDED["requests"][0]["path"]}
    assert {request["authorization"] for request in langfuse.requests} == {RECORDED["requests"][0]["authorization"]}
    ours = {score["name"]: score for score in langfuse.scores()}
    for sdk in SDK_SCORES:
        score = ours[sdk["name"]]
        assert set(score) - {"comment", "observationId"} == {key for key, value in sdk.items() if value is not None} - {
            "comment", "observationId"} | {"metadata"}
        assert (score["dataType"], type(score["value"]), score["traceId"], score.get("observationId")) == (
            sdk["dataType"], type(sdk["value"]), sdk["traceId"], sdk["observationId"])
        assert score.get("comment") == sdk["comment"]
    assert ours["handoffs.info_loss"]["value"] == 1.0 and ours["attribution"]["value"] == "Researcher"
    assert ours["outcome"]["metadata"]["identifier"] == "potato-multiagent:ann"


def test_ids_are_stable_and_a_second_push_sends_nothing(langfuse, tmp_path):
    push_labels(langfuse.url, LABELS, tmp_path)
    first = [score["id"] for score in langfuse.scores()]
    again = push_labels(langfuse.url, LABELS, tmp_path)
    assert (again.sent, again.unchanged, len(langfuse.requests)) == (0, 4, 4)
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    push_labels(langfuse.url, LABELS, elsewhere)  # another queue, same labels: the same ids (an update)
    assert [score["id"] for score in langfuse.scores()[4:]] == first
    assert len(set(first)) == 4


def test_a_changed_answer_updates_its_score_only(langfuse, tmp_path):
    push_labels(langfuse.url, LABELS, tmp_path)
    changed = [LABELS[0].__class__(**{**LABELS[0].__dict__, "label": "Planner"}), *LABELS[1:]]
    report = push_labels(langfuse.url, changed, tmp_path)
    assert (report.sent, report.unchanged) == (1, 3)
    assert langfuse.scores()[-1]["value"] == "Planner" and langfuse.scores()[-1]["id"] == langfuse.scores()[0]["id"]


def test_a_server_down_keeps_the_scores_queued_and_the_next_push_resumes(langfuse, tmp_path):
    langfuse.status = 503
    report = push_labels(langfuse.url, LABELS, tmp_path)
    assert report.sent == 0 and len(report.not_sent) == 4
    assert report.errors() == [f"Langfuse at {langfuse.url}: HTTP 503: {{}}: 4 score(s) not sent"]
    langfuse.status = 202
    resumed = push_labels(langfuse.url, LABELS, tmp_path)
    assert (resumed.sent, resumed.not_sent) == (4, [])


def test_wrong_keys_are_one_error(langfuse, tmp_path):
    langfuse.status = 401
    report = push_labels(langfuse.url, LABELS, tmp_path)
    assert report.errors() == [f"Langfuse at {langfuse.url}: HTTP 401: {{}}: 4 score(s) not sent"]


def test_the_command_pushes_once_then_finds_everything_there(langfuse, tmp_path, capsys):
    from potato_multiagent.cli import main

    config = radio_task(tmp_path / "task", {TRACE: "failure"})
    assert main(["push", "langfuse", str(config), "--url", langfuse.url, "--dry-run"]) == 0
    dry = capsys.readouterr().out.splitlines()
    assert dry[-1] == f"dry run: 1 score(s) would be sent to {langfuse.url}; nothing sent" and not langfuse.requests
    planned = json.loads(dry[0])
    assert (planned["traceId"], planned["name"], planned["value"], planned["dataType"]) == (
        TRACE, "outcome", "failure", "CATEGORICAL") and "observationId" not in planned
    assert main(["push", "langfuse", str(config), "--url", langfuse.url]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"sent 1 score(s) to {langfuse.url}; 0 already there unchanged; 0 not sent")
    assert langfuse.scores() == [planned]
    assert main(["push", "langfuse", str(config), "--url", langfuse.url]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"sent 0 score(s) to {langfuse.url}; 1 already there unchanged; 0 not sent")


def test_the_command_without_keys_says_which_to_set(langfuse, tmp_path, capsys, monkeypatch):
    from potato_multiagent.cli import main

    monkeypatch.delenv("LANGFUSE_SECRET_KEY")
    config = radio_task(tmp_path / "task", {TRACE: "failure"})
    assert main(["push", "langfuse", str(config), "--url", langfuse.url]) == 1
    captured = capsys.readouterr()
    assert [line for line in captured.err.splitlines() if line.startswith("error:")] == [
        f"error: Langfuse at {langfuse.url}: no Langfuse keys (set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY): "
        f"1 score(s) not sent"]
    assert not langfuse.requests
