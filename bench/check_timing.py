"""`potato-multiagent check` throughput: a task folder with 10,000 saved values, checked by the CLI.

The task serves `instances` records of `steps` steps each (`bench.synth`), configures one scheme
per type we have, and holds, for as many annotators as it takes, one valid value per instance and
scheme (each scenario's `sample_value`) until `values` are saved, in Potato's own
`annotation_output/<user>/user_state.json` shape. Every value is valid, so `check` must report
0 problems; the command is timed as a user runs it (a new process each time).
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence

import yaml

from potato_multiagent import derive

from tests.e2e import harness

from . import synth
from .pages import ours_scheme
from .scenarios import Scenario
from .stats import Summary

CONFIG_FILE = "config.yaml"
DATA_FILE = "data/records.jsonl"


def write_task(folder: Path, entries: Sequence[Scenario], values: int, instances: int, steps: int,
               seed: int = synth.DEFAULT_SEED) -> Dict[str, int]:
    """Write the task folder; returns what it holds (values, users, instances, schemes)."""
    records = [synth.trace_record(steps, seed=seed + number, record_id=f"run-{number:04d}")
               for number in range(instances)]
    (folder / DATA_FILE).parent.mkdir(parents=True, exist_ok=True)
    (folder / DATA_FILE).write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    config = {"annotation_task_name": "potato-ma-bench check", "task_dir": ".", "data_files": [DATA_FILE],
              "item_properties": {"id_key": "id", "text_key": "task"},
              "output_annotation_dir": "annotation_output", "plugins": ["multiagent"],
              "annotation_schemes": [ours_scheme(entry) for entry in entries]}
    (folder / CONFIG_FILE).write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    users = _save_values(folder, entries, records, values, random.Random(seed))
    return {"values": values, "users": users, "instances": instances, "schemes": len(entries), "steps": steps}


def _save_values(folder: Path, entries: Sequence[Scenario], records: List[Dict[str, Any]], values: int,
                 rng: random.Random) -> int:
    derivations = [derive(record).to_dict() for record in records]
    ids = [record["id"] for record in records]
    per_user = len(records) * len(entries)
    users = -(-values // per_user)
    for number in range(users):
        quota = min(per_user, values - number * per_user)
        answers: Dict[str, Dict[str, str]] = {}
        for slot in range(quota):
            instance, entry = divmod(slot, len(entries))
            value = entries[entry].ours.sample_value(derivations[instance], rng)
            answers.setdefault(ids[instance], {})[entries[entry].scheme_name] = json.dumps(value)
        user = f"annotator-{number:03d}"
        pairs = harness.annotation_pairs(answers)
        harness.seed_user_state(folder, user, harness.returning_user_state(user, ids, pairs))
    return users


def check_command() -> List[str]:
    script = Path(sys.executable).with_name("potato-multiagent")
    return [str(script)] if script.exists() else [sys.executable, "-m", "potato_multiagent.cli"]


def run_check(folder: Path) -> Dict[str, Any]:
    """One `check` run: wall and CPU seconds (of the child process), exit code, its summary line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    completed = subprocess.run([*check_command(), "check", str(folder / CONFIG_FILE)],
                               capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = completed.stdout.strip().splitlines()
    return {"wall_s": wall, "cpu_s": cpu, "exit_code": completed.returncode,
            "summary": lines[-1] if lines else completed.stderr.strip()[-300:]}


def measure(entries: Sequence[Scenario], values: int, instances: int, steps: int, runs: int, warmup: int,
            workdir: Path) -> Dict[str, Any]:
    folder = workdir / "check-task"
    task = write_task(folder, entries, values, instances, steps)
    for _ in range(warmup):
        run_check(folder)
    outcomes = [run_check(folder) for _ in range(runs)]
    cpu = Summary.of([outcome["cpu_s"] for outcome in outcomes])
    wall = Summary.of([outcome["wall_s"] for outcome in outcomes])
    return {"task": task, "types": [entry.widget for entry in entries], "cpu_s": cpu.to_dict(),
            "wall_s": wall.to_dict(), "values_per_s": values / cpu.median,
            "exit_code": outcomes[-1]["exit_code"], "summary": outcomes[-1]["summary"]}
