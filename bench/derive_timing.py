"""Derivation time in Python (`potato_multiagent.derive`) and in node (`web/derive.js`).

Three record families of each size N, from `bench.synth`:
- `full`: N steps and N timed calls (the record the browser pages use);
- `steps`: the same N steps alone (agents, handoffs, edges, tool calls);
- `contention`: N timed calls alone (the per-resource sweep, expected to grow as n log n).

Times are CPU time of the deriving thread (Python `time.thread_time`, node `process.cpuUsage`):
on a shared two-core machine other processes stretch wall-clock time but not CPU time. Wall-clock
medians are kept beside them.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence

from potato_multiagent import derive

from . import synth
from .stats import Summary, growth_exponent, n_log_n_exponent

FAMILIES: Dict[str, Callable[[int], Dict[str, Any]]] = {
    "full": synth.trace_record,
    "steps": lambda size: synth.trace_record(size, n_calls=0),
    "contention": synth.calls_record,
}
NODE_SCRIPT = Path(__file__).with_name("derive_timing.js")


def label(family: str, size: int) -> str:
    return f"{family}:{size}"


def time_python(record: Dict[str, Any], runs: int, warmup: int) -> Dict[str, List[float]]:
    """`{"cpu": [ms, ...], "wall": [ms, ...]}` of `runs` derivations after `warmup` unmeasured."""
    for _ in range(warmup):
        derive(record)
    times: Dict[str, List[float]] = {"cpu": [], "wall": []}
    for _ in range(runs):
        cpu, wall = time.thread_time(), time.perf_counter()
        derive(record)
        times["wall"].append((time.perf_counter() - wall) * 1000)
        times["cpu"].append((time.thread_time() - cpu) * 1000)
    return times


def time_node(files: Sequence[Path], runs: int, warmup: int) -> List[Dict[str, List[float]]]:
    """Times per file, in the order given (see derive_timing.js)."""
    completed = subprocess.run(["node", str(NODE_SCRIPT), str(runs), str(warmup), *map(str, files)],
                               check=True, capture_output=True, text=True)
    times = json.loads(completed.stdout)
    return [times[str(file)] for file in files]


def measure(sizes: Sequence[int], runs: int, warmup: int, workdir: Path) -> Dict[str, Any]:
    """`{"python"|"node": {family: {"sizes": {N: summary}, "exponent", "n_log_n_exponent"}},
    "counts": {label: {...}}}`. One record in memory at a time, smallest first."""
    folder = workdir / "derive-records"
    folder.mkdir(parents=True, exist_ok=True)
    labels, files, python, held = [], [], {}, {}
    for size in sorted(sizes):
        for family, make in FAMILIES.items():
            record = make(size)
            name = label(family, size)
            labels.append(name)
            files.append(folder / f"{family}-{size}.json")
            files[-1].write_text(json.dumps(record), encoding="utf-8")
            python[name] = time_python(record, runs, warmup)
            held[name] = counts(record)
    node = dict(zip(labels, time_node(files, runs, warmup)))
    return {"sizes": sorted(sizes), "counts": held,
            "python": _by_family(python, sorted(sizes)), "node": _by_family(node, sorted(sizes))}


def _by_family(samples: Dict[str, Dict[str, List[float]]], sizes: Sequence[int]) -> Dict[str, Any]:
    """Per family: each size's CPU summary plus its wall-clock median, and the exponents fitted
    on the CPU medians."""
    result = {}
    for family in FAMILIES:
        by_size = {size: samples[label(family, size)] for size in sizes}
        cpu = {size: Summary.of(times["cpu"]) for size, times in by_size.items()}
        medians = [cpu[size].median for size in sizes]
        result[family] = {
            "sizes": {size: {**cpu[size].to_dict(), "wall_median": Summary.of(by_size[size]["wall"]).median}
                      for size in sizes},
            "exponent": growth_exponent(sizes, medians),
            "n_log_n_exponent": n_log_n_exponent(sizes, medians),
        }
    return result


def counts(record: Dict[str, Any]) -> Dict[str, int]:
    """What the record holds, by the derivation: shown beside the timings."""
    derivation = derive(record)
    return {"steps": len(derivation.steps), "agents": len(derivation.agents),
            "handoffs": len(derivation.handoffs), "tool_calls": len(derivation.tool_calls),
            "calls": len(derivation.calls), "contentions": len(derivation.contentions)}
