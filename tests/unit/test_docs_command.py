"""`potato-multiagent docs` and `--version`: what a pip user, who has no docs/ folder of their own,
is pointed at, and what a bug report needs first."""

from __future__ import annotations

import re
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from potato_multiagent import __version__, documentation
from potato_multiagent.cli import main

ROOT = Path(__file__).parents[2]


def test_version_names_ours_potatos_and_pythons(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    python = ".".join(map(str, sys.version_info[:3]))
    assert capsys.readouterr().out == f"potato-multiagent {__version__} (Potato {version('potato-annotation')}, Python {python})\n"


def test_the_version_is_written_once():
    assert re.search(r'^__version__ = "[^"]+"$', (ROOT / "src/potato_multiagent/__init__.py").read_text(), re.M)
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^dynamic = \["version"\]', pyproject, re.M) and not re.search(r'^version\s*=\s*"', pyproject, re.M)
    assert version("potato-multiagent") == __version__


def test_docs_lists_every_page_with_its_title(capsys):
    assert main(["docs"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{ROOT / 'docs'}  ")
    assert re.fullmatch(r"  index\s+potato-multiagent documentation", out[1])
    assert any(re.fullmatch(r"  types/handoff_review\s+.+", line) for line in out)
    assert len(out) - 1 == len(list((ROOT / "docs").rglob("*.md")))


@pytest.mark.parametrize("name, page", [("cli", "cli.md"), ("cli.md", "cli.md"), ("trace-view", "trace-view.md"),
                                        ("types/handoff_review", "types/handoff_review.md"),
                                        ("handoff_review", "types/handoff_review.md")])
def test_docs_page_prints_where_the_page_is(capsys, name, page):
    assert main(["docs", name]) == 0
    assert capsys.readouterr().out == f"{ROOT / 'docs' / page}\n"


@pytest.mark.parametrize("name", ["nope", "../README", "/etc/passwd"])
def test_a_page_that_is_not_there_is_named_with_the_pages_there_are(capsys, name):
    assert main(["docs", name]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: no page {name!r} (pages: index, ")
    assert "types/tool_contention" in err


def test_the_installed_copy_is_read_before_a_checkout(tmp_path, monkeypatch):
    package = tmp_path / "src" / "potato_multiagent"
    (package / "docs").mkdir(parents=True)
    (package / "docs" / "index.md").write_text("# installed\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# checkout\n", encoding="utf-8")
    monkeypatch.setattr(documentation, "PACKAGE", package)
    assert documentation.page("index") == package / "docs" / "index.md"
    (package / "docs" / "index.md").unlink()
    assert documentation.page("index") == tmp_path / "docs" / "index.md"


def test_no_documentation_at_all_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(documentation, "PACKAGE", tmp_path / "site-packages" / "potato_multiagent")
    assert main(["docs"]) == 1
    assert "the documentation is not installed with this copy of potato-multiagent" in capsys.readouterr().err


def test_no_help_of_any_command_sends_a_pip_user_to_a_docs_path():
    import argparse

    from potato_multiagent.cli import build_parser

    parser = build_parser()
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    helps = {name: sub.format_help() for name, sub in commands.choices.items()}
    assert "potato-multiagent docs trace-view" in helps["migrate-config"]
    assert "potato-multiagent docs derivation" in helps["derive"]
    assert {name for name, text in helps.items() if re.search(r"docs/[\w/-]+\.md", text)} == set()


def test_no_message_of_the_commands_sends_a_pip_user_to_a_docs_path():
    """Messages name `potato-multiagent docs PAGE`; docs/... paths are only in comments and docstrings."""
    for path in (ROOT / "src/potato_multiagent").glob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if re.search(r"""["'][^"']*docs/[\w/-]+\.md""", stripped) and not stripped.startswith(("#", '"""', "``")):
                pytest.fail(f"{path.name}: a message names a docs/ path: {stripped}")
