"""`init --from phoenix` on Phoenix's recorded answers (tests/fixtures/real/phoenix/), and what it
refuses before it touches anything; the live server's side is tests/e2e/test_phoenix.py."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from potato_multiagent.cli import main
from tests.answered_task import radio_task


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_needs_url_and_project_and_no_files(tmp_path, capsys):
    assert main(["init", "--from", "phoenix", "--project", "p", "-o", str(tmp_path / "a")]) == 1
    assert capsys.readouterr().err == "error: --from phoenix needs --url URL and --project NAME\n"
    assert main(["init", "--from", "phoenix", "runs.json", "--url", "http://x", "--project", "p",
                 "-o", str(tmp_path / "b")]) == 1
    assert capsys.readouterr().err == "error: --from phoenix reads from --url and --project; give no INPUT files\n"
    assert main(["init", "-o", str(tmp_path / "c")]) == 1
    assert "init needs INPUT files or folders" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_an_unreachable_phoenix_is_one_error_and_writes_nothing(tmp_path, capsys):
    url = f"http://127.0.0.1:{free_port()}"
    assert main(["init", "--from", "phoenix", "--url", url, "--project", "p", "-o", str(tmp_path / "t")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: Phoenix at {url}: cannot reach {url}")
    assert err[0].endswith("is `phoenix serve` running there?")
    assert not (tmp_path / "t").exists()


def test_an_unreachable_phoenix_is_one_error_for_span_and_trace_labels_alike():
    from potato_multiagent.tracetools.labels import HUMAN, Label
    from potato_multiagent.tracetools.phoenix import push_labels

    run = "0af7651916cd43dd8448eb211c80319c"
    labels = [Label(instance_id=run, trace_id=run, span_id=span, step=step, scheme="s", name="s", annotator="ann",
                    kind=HUMAN, label="x") for span, step in (("b7ad6b7169203331", 0), (None, None))]
    url = f"http://127.0.0.1:{free_port()}"
    report = push_labels(url, labels)
    assert (len(report.errors), report.sent, len(report.not_sent)) == (1, [], 2)
    assert report.errors[0].startswith(f"Phoenix at {url}: cannot reach")


FIXTURES = Path(__file__).parents[1] / "fixtures" / "real" / "phoenix"


def recorded_phoenix():
    """A stub answering the two recorded GETs (tests/fixtures/real/phoenix/) by path, 404 otherwise."""
    answers = {}
    for name in ("traces.json", "spans.json"):
        recorded = json.loads((FIXTURES / name).read_text())
        answers[recorded["request"].split("?")[0]] = recorded["response"]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = answers.get(self.path.split("?")[0])
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(body if body is not None else {"detail": "not recorded"}).encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_init_reads_phoenixs_recorded_answers_as_openinference_steps_keeping_span_ids(tmp_path, capsys):
    spans = json.loads((FIXTURES / "spans.json").read_text())["response"]["data"]
    ids = [span["context"]["span_id"] for span in spans]
    server = recorded_phoenix()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        assert main(["init", "--from", "phoenix", "--url", url, "--project", "trips", "-o", str(tmp_path / "t")]) == 0
    finally:
        server.shutdown()
    assert "read 7 span(s) of 1 trace(s) from project 'trips'" in capsys.readouterr().out
    record = json.loads((tmp_path / "t" / "data" / "runs.jsonl").read_text())
    assert record["id"] == spans[0]["context"]["trace_id"]
    assert (record["workflow"], record["session"]) == ("Agent workflow", "trip-1")
    # the spans in start order, the workflow wrapper (ids[0]) adding no step
    assert [(step["span"], step["span_id"], step.get("agent")) for step in record["steps"]] == [
        ("Planner", ids[1], "Planner"), ("response", ids[2], "Planner"), ("handoff to Researcher", ids[3], None),
        ("Researcher", ids[4], "Researcher"), ("search_flights", ids[5], "Researcher"), ("response", ids[6], "Researcher")]
    handoff, call = record["steps"][2], record["steps"][4]
    assert (handoff["type"], handoff["from_agent"], handoff["to_agent"]) == ("handoff", "Planner", "Researcher")
    assert call["tool_call"] == {"id": "call_1", "name": "search_flights", "arguments": '{"city": "Berlin"}',
                                 "error": "city code expected"}
    assert (call["error"], record["steps"][5]["content"]) == ("city code expected", "There are no flights to Berlin.")
    assert spans[0]["name"] == "Agent workflow" and spans[0]["parent_id"] is None
    kept = (tmp_path / "t" / "source" / "phoenix-spans.jsonl").read_text().splitlines()
    assert [json.loads(line)["attributes"].get("openinference.span.kind") for line in kept] == [
        "AGENT", "AGENT", "LLM", "TOOL", "AGENT", "TOOL", "LLM"]


def test_a_refused_key_is_one_error_naming_phoenix_api_key(tmp_path, capsys, monkeypatch):
    """Phoenix with authentication on answers 401 to a wrong or missing key."""
    class Refusing(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"detail": "Invalid token"}')

        do_POST = do_GET

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("PHOENIX_API_KEY", "wrong")
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert main(["init", "--from", "phoenix", "--url", url, "--project", "p", "-o", str(tmp_path / "t")]) == 1
        assert capsys.readouterr().err == (f"error: Phoenix at {url} refused the request (HTTP 401: Invalid token); "
                                           f"set PHOENIX_API_KEY to an API key of that server\n")
        config = radio_task(tmp_path / "task", {"0af7651916cd43dd8448eb211c80319c": "failure"})
        assert main(["push", "phoenix", str(config), "--url", url]) == 1
        captured = capsys.readouterr()
        assert [line for line in captured.err.splitlines() if line.startswith("error:")] == [
            f"error: Phoenix at {url} refused the request (HTTP 401: Invalid token); set PHOENIX_API_KEY to an "
            f"API key of that server"]
        assert captured.out.splitlines()[-1] == f"sent 0 annotation(s) to {url} (0 on spans, 0 on traces); 1 not sent"
    finally:
        server.shutdown()
