"""The trace view shows the steps, numbers, agents, handoffs and tool calls of the Python derivation,
on every record of the real corpus (Who&When, DPBench, MAST through our converters).

What the view shows is computed by ``trace_view.js``'s ``viewModel``/``rowFacts`` (the strings its
rows print) over ``derive.js``, in node, exactly as the page runs them; the expectation is written
here from the Python derivation.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import convert_inputs

REPO = Path(__file__).resolve().parents[2]
BATCH = REPO / "tests" / "js" / "trace_view_batch.js"
NODE = shutil.which("node")
SOURCES = [("who-and-when", "who_and_when/Hand-Crafted"), ("who-and-when", "who_and_when/Algorithm-Generated"),
           ("dpbench", "dpbench"), ("mast", "mast")]
HANDOFF_WORDS = {"explicit": "Explicit handoff", "implicit": "Handoff", "delegation": "Delegation", "return": "Return"}


def corpus_path() -> Path:
    path = Path(os.environ.get("POTATO_MA_CORPUS") or REPO.parent / "shared" / "corpus")
    if not path.is_dir():
        path = Path("/work/shared/corpus")
    if not path.is_dir():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"real-data corpus not found at {path}; set POTATO_MA_CORPUS", pytrace=False)
        pytest.skip(f"real-data corpus not found at {path}; set POTATO_MA_CORPUS")
    return path


def expected_rows(record: dict) -> list:
    derivation = derive(record)
    rows = [{"number": f"#{step.index + 1}",
             "agent": "(no agent)" if step.agent is None else
             (f"{step.agent} ({step.qualifier})" if step.qualifier else step.agent),
             "handoffs": [], "toolCalls": []} for step in derivation.steps]
    for handoff in derivation.handoffs:
        kind = handoff.get("kind") or ("explicit" if handoff["explicit"] else "implicit")
        rows[handoff["step"]]["handoffs"].append(f"{HANDOFF_WORDS[kind]}: {handoff['from']} \u2192 {handoff['to']}")
    for call in derivation.tool_calls:
        rows[call["step"]]["toolCalls"].append("(no tool name)" if call["tool"] is None else call["tool"])
    return rows


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("format_name,folder", SOURCES)
def test_the_view_shows_what_python_derives_on_every_corpus_record(format_name, folder):
    conversion = convert_inputs(format_name, [corpus_path() / folder], strict=False)
    records = conversion.records
    assert records, f"no record converted from {folder}"
    shown = json.loads(subprocess.run([NODE, str(BATCH)], input=json.dumps([{"record": r} for r in records]),
                                      capture_output=True, text=True, check=True, cwd=REPO).stdout)
    for record, view in zip(records, shown):
        assert view["rows"] == expected_rows(record), record.get("id")
    assert len(shown) == len(records)


@pytest.mark.parametrize("format_name,folder", SOURCES)
def test_the_server_first_window_numbers_and_names_steps_as_the_derivation(format_name, folder):
    import html

    from potato_multiagent.trace_view.display import FIRST_WINDOW, TraceDisplay

    for record in convert_inputs(format_name, [corpus_path() / folder], strict=False).records:
        shell = TraceDisplay().render({"key": "steps", "type": "multiagent.trace"}, record["steps"])
        lines = shell.split('class="ma-trace-first-step">')[1:]
        shown = [(html.unescape(line.split('class="ma-trace-num">', 1)[1].split("<", 1)[0]),
                  html.unescape(line.split('class="ma-trace-agent">', 1)[1].split("<", 1)[0])) for line in lines]
        expected = [row["number"] for row in expected_rows(record)][:FIRST_WINDOW]
        agents = [row["agent"] for row in expected_rows(record)][:FIRST_WINDOW]
        assert shown == list(zip(expected, agents)), record.get("id")
