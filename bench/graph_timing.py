"""The interaction graph's layout, cold and warm, side by side with an older version.

    python -m bench.graph_timing [--runs 15] [--sizes 5000,20000,50000] [--baseline REF]

For each size N, `synth.scale_record(N)` (12 agents, all 132 directed edges) is written once; then,
`runs` times and alternating between this tree's web/graph_layout.js and the one at git REF
(default `main`; none with `--baseline ''`), a fresh `node bench/graph_timing.js` process derives
the record and times its first layoutGraph call (cold, as on a page) and ten more (warm). Printed:
per size and version, medians of process CPU, main-thread CPU and wall-clock time (ms), and the
load average before and after (the machine is shared). No assertions: figures for
docs/performance.md (section 15).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List

from . import synth

ROOT = Path(__file__).resolve().parent.parent
NODE_SCRIPT = Path(__file__).with_name("graph_timing.js")
WEB = ROOT / "src" / "potato_multiagent" / "web"
LAYOUT_FILES = ("graph_layout.js", "graph_labels.js")
WARM_RUNS = 10


def baseline_layout(ref: str, folder: Path) -> Path:
    """graph_layout.js and graph_labels.js as they are at git `ref`, side by side in `folder`."""
    for name in LAYOUT_FILES:
        text = subprocess.run(["git", "show", f"{ref}:src/potato_multiagent/web/{name}"], cwd=ROOT,
                              check=True, capture_output=True, text=True).stdout
        (folder / name).write_text(text, encoding="utf-8")
    return folder / "graph_layout.js"


def one_run(layout: Path, record: Path) -> Dict[str, float]:
    """Cold process CPU, main-thread CPU and wall time, and the warm medians, of one fresh node."""
    completed = subprocess.run(["node", str(NODE_SCRIPT), "--layout", str(layout), "--warm", str(WARM_RUNS),
                                str(record)], check=True, capture_output=True, text=True)
    times = json.loads(completed.stdout)
    return {"cold cpu": times["cold"]["cpu"], "cold main": times["cold"]["main"], "cold wall": times["cold"]["wall"],
            "warm cpu": statistics.median(times["warm"]["cpu"]), "warm main": statistics.median(times["warm"]["main"])}


def measure(sizes: List[int], runs: int, versions: Dict[str, Path], folder: Path) -> Dict[str, Dict[str, List[float]]]:
    """Samples per "version N" label; the versions alternate within each run."""
    records = {}
    for size in sizes:
        records[size] = folder / f"scale-{size}.json"
        records[size].write_text(json.dumps(synth.scale_record(size)), encoding="utf-8")
    samples: Dict[str, Dict[str, List[float]]] = {}
    for _ in range(runs):
        for size in sizes:
            for name, layout in versions.items():
                for key, value in one_run(layout, records[size]).items():
                    samples.setdefault(f"{name} {size}", {}).setdefault(key, []).append(value)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--sizes", default="5000,20000,50000")
    parser.add_argument("--baseline", default="main", help="git ref of the layout to compare with ('' for none)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        versions = {"this tree": WEB / "graph_layout.js"}
        if args.baseline:
            (folder / "baseline").mkdir()
            versions[f"at {args.baseline}"] = baseline_layout(args.baseline, folder / "baseline")
        print(f"load average before: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
        samples = measure(sizes, args.runs, versions, folder)
        print(f"load average after:  {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    print(f"medians of {args.runs} fresh node processes (ms):")
    for label, columns in samples.items():
        print(f"  {label:<22} " + "  ".join(f"{key} {statistics.median(values):6.2f}" for key, values in columns.items()))


if __name__ == "__main__":
    main()
