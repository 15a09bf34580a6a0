"""`init --from phoenix` refuses what it cannot use before it touches anything (the real server's
side is tests/e2e/test_phoenix.py)."""

from __future__ import annotations

import socket

from potato_multiagent.cli import main


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
