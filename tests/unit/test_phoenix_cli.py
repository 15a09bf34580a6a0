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
