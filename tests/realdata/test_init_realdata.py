"""`init` on each real corpus set: the task it writes passes `potato validate --strict` and `check`,
and its choices follow what the runs contain (counted here from the derivation of each record)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from potato_multiagent import derive

pytestmark = pytest.mark.realdata

POTATO = Path(sys.executable).with_name("potato")


def run(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([*map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.mark.parametrize("fmt, folder, schemes", [
    ("who-and-when", "who_and_when", ["outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "mast"]),
    ("dpbench", "dpbench", ["outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "contention",
                            "mast"]),
    ("mast", "mast", ["outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "mast"]),
])
def test_init_on_a_corpus_set_writes_a_task_potato_and_check_accept(corpus, tmp_path, fmt, folder, schemes):
    task = tmp_path / "task"
    made = run(sys.executable, "-m", "potato_multiagent.cli", "init", "--from", fmt, corpus / folder, "-o", task)
    assert made.returncode == 0, made.stderr
    assert not [line for line in made.stderr.splitlines() if line.startswith("skipped:")]
    config = yaml.safe_load((task / "config.yaml").read_text(encoding="utf-8"))
    assert [scheme["name"] for scheme in config["annotation_schemes"]] == schemes
    records = [json.loads(line) for line in (task / "data" / "runs.jsonl").read_text(encoding="utf-8").splitlines()]
    derivations = [derive(record) for record in records]
    assert ("tool_calls" in schemes) == any(d.tool_calls for d in derivations)
    assert ("contention" in schemes) == any(d.contentions for d in derivations)
    assert ("handoffs" in schemes) == any(d.handoffs for d in derivations)
    gold_ids = [json.loads(line)["id"] for line in (task / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    assert gold_ids == [record["id"] for record in records]
    validated = run(POTATO, "validate", "--strict", "config.yaml", cwd=task)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    checked = run(sys.executable, "-m", "potato_multiagent.cli", "check", task / "config.yaml")
    assert checked.returncode == 0 and checked.stdout.strip().splitlines()[-1] == "0 problem(s), 0 warning(s)"
