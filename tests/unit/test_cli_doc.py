"""docs/cli.md against the parser it documents: every subcommand has a section, every option is
written there (or on a page the section links to, like judge.md), and every option of a section's
synopsis exists. The parser is the one home of what the command accepts; this is its referee."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Dict, List

import pytest

from potato_multiagent.cli import build_parser

DOCS = Path(__file__).resolve().parents[2] / "docs"


def subcommands() -> Dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def sections(text: str) -> Dict[str, str]:
    """``{heading: body}`` of the page's ``## `` sections."""
    return {part.partition("\n")[0].strip(): part.partition("\n")[2]
            for part in re.split(r"^## ", text, flags=re.M)[1:]}


def mentions(text: str, option: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def documented_text(name: str, page: Dict[str, str]) -> str:
    """A subcommand's section, the shared "Judgments options" section, and the pages it links to."""
    body = page[name]
    linked = {match for match in re.findall(r"\]\(([\w./-]+\.md)(?:#[\w-]*)?\)", body)}
    return "\n".join([body, page.get("Judgments options", "")]
                     + [(DOCS / link).read_text(encoding="utf-8") for link in sorted(linked) if (DOCS / link).is_file()])


def undocumented(name: str, parser: argparse.ArgumentParser, page: Dict[str, str]) -> List[str]:
    text = documented_text(name, page)
    return [action.option_strings[-1] for action in parser._actions
            if action.option_strings and action.help != argparse.SUPPRESS
            and not isinstance(action, argparse._HelpAction)
            and not any(mentions(text, option) for option in action.option_strings)]


def unknown_in_synopsis(parser: argparse.ArgumentParser, body: str) -> List[str]:
    synopsis = re.search(r"```\n(.*?)```", body, re.S)
    known = {option for action in parser._actions for option in action.option_strings}
    return [option for option in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", synopsis.group(1) if synopsis else "")
            if option not in known]


PAGE = sections((DOCS / "cli.md").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_every_subcommand_has_a_section_that_names_each_of_its_options(name):
    parser = subcommands()[name]
    assert name in PAGE, f"docs/cli.md has no '## {name}' section"
    assert undocumented(name, parser, PAGE) == []
    assert unknown_in_synopsis(parser, PAGE[name]) == []


def test_the_table_of_subcommands_lists_each_of_them():
    table = (DOCS / "cli.md").read_text(encoding="utf-8").split("\n## ")[0]
    assert sorted(re.findall(r"^\| \[`([\w-]+)`\]", table, re.M)) == sorted(subcommands())


def test_the_check_finds_an_option_missing_and_one_invented():
    parser = subcommands()["adjudicate"]
    page = {"adjudicate": "```\npotato-multiagent adjudicate CONFIG -o DIR [--min-annotators N] [--only-disagreements]\n"
                          "    [--show-nicknames] [--judgments-key KEY]\n```\n"}
    assert undocumented("adjudicate", parser, page) == ["--show-names"]
    assert unknown_in_synopsis(parser, page["adjudicate"]) == ["--show-nicknames"]
