"""The interaction graph's layout, cold and warm, side by side with an older version.

    python -m bench.graph_timing [--runs 15] [--sizes 5000,20000,50000] [--baseline REF] [--chromium]

For each size N, `synth.scale_record(N)` (12 agents, all 132 directed edges) is written once; then,
`runs` times and alternating between this tree's graph_layout.js and the one at git REF
(default `main`; none with `--baseline ''`), a fresh `node bench/graph_timing.js` process derives
the record and times its first layoutGraph call (cold, as on a page) and 40 more (warm). Printed:
per size and version, medians of process CPU, main-thread CPU (Linux schedstat, which advances
by scheduler ticks: a median of many runs, not one figure) and wall-clock time (ms), and the load
average before and after (the machine is shared). No assertions: figures for commit bodies.

`--chromium` also times the first layoutGraph call in a fresh Debian Chromium per run: a static
page loads the layout scripts and the derived graph, calls layoutGraph in a script of its own,
and the trace's `EvaluateScript` event of that script gives the renderer main thread's CPU time
(`tdur`, the thread's own clock) and its wall time.
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
GRAPH = ROOT / "src" / "potato_multiagent" / "types" / "agent_interaction_graph"
LAYOUT_FILES = ("graph_labels.js", "graph_grid.js", "graph_layout.js")   # graph_grid.js since 1bd29bc
LAYOUT_HOMES = ("src/potato_multiagent/types/agent_interaction_graph", "src/potato_multiagent/web")   # web/ before ES modules
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
WARM_RUNS = 40
DERIVE_GRAPH = """const {derive} = require(process.argv[1]);
const derivation = derive(require(process.argv[2]), {});
process.stdout.write('var GRAPH = ' + JSON.stringify({agents: derivation.agents, edges: derivation.edges}) + ';');"""
PAGE = """<!doctype html><meta charset="utf-8"><pre id="out">pending</pre>
<script src="layout.js"></script><script src="graph.js"></script>
<script>window.layout = GraphLayout.layoutGraph(GRAPH.agents, GRAPH.edges);</script>
<script>document.getElementById('out').textContent = String(window.layout.width);</script>
"""


def baseline_layout(ref: str, folder: Path) -> Path:
    """The layout's files as they are at git `ref`, side by side in `folder` (a ref from before the
    grid was split out has no graph_grid.js)."""
    home = next((home for home in LAYOUT_HOMES if subprocess.run(
        ["git", "cat-file", "-e", f"{ref}:{home}/graph_layout.js"], cwd=ROOT, capture_output=True).returncode == 0),
        LAYOUT_HOMES[0])
    for name in LAYOUT_FILES:
        shown = subprocess.run(["git", "show", f"{ref}:{home}/{name}"], cwd=ROOT,
                               capture_output=True, text=True)
        if shown.returncode == 0:
            (folder / name).write_text(shown.stdout, encoding="utf-8")
        elif name == "graph_layout.js":
            raise SystemExit(f"graph_timing: no graph_layout.js at {ref}: {shown.stderr.strip()}")
    return folder / "graph_layout.js"


def one_run(layout: Path, record: Path) -> Dict[str, float]:
    """Cold process CPU, main-thread CPU and wall time, and the warm medians, of one fresh node."""
    completed = subprocess.run(["node", str(NODE_SCRIPT), "--layout", str(layout), "--warm", str(WARM_RUNS),
                                str(record)], check=True, capture_output=True, text=True)
    times = json.loads(completed.stdout)
    return {"cold cpu": times["cold"]["cpu"], "cold main": times["cold"]["main"], "cold wall": times["cold"]["wall"],
            "warm cpu": statistics.median(times["warm"]["cpu"]), "warm main": statistics.median(times["warm"]["main"])}


def page_folder(layout: Path, record: Path, folder: Path) -> Path:
    """A static page that lays out the record's derived graph with `layout` (and what it imports,
    bundled by esbuild into one script: an ES module of this tree or a UMD file of an older ref)."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(ESBUILD), str(layout), "--bundle", "--format=iife", "--global-name=GraphLayout",
                    f"--outfile={folder / 'layout.js'}", "--log-level=warning"], check=True)
    graph = subprocess.run(["node", "-e", DERIVE_GRAPH, str(WEB / "derive.js"), str(record)],
                           check=True, capture_output=True, text=True).stdout
    (folder / "graph.js").write_text(graph, encoding="utf-8")
    (folder / "index.html").write_text(PAGE, encoding="utf-8")
    return folder / "index.html"


def one_page_run(playwright, page_file: Path) -> Dict[str, float]:
    """Main-thread CPU and wall time of the page's layoutGraph script, in a fresh browser."""
    from tests.e2e import harness

    browser = playwright.chromium.launch(executable_path=str(harness.BENCH_CHROMIUM),
                                         args=harness.CHROMIUM_ARGS)
    try:
        page = browser.new_page()
        browser.start_tracing(page=page, categories=["devtools.timeline", "v8.execute"])
        page.goto(page_file.as_uri())
        page.wait_for_function("document.getElementById('out').textContent !== 'pending'")
        events = json.loads(browser.stop_tracing())["traceEvents"]
    finally:
        browser.close()
    scripts = [event for event in events if event.get("name") == "EvaluateScript" and event.get("ph") == "X"
               and "tdur" in event and page_file.name in json.dumps(event.get("args", {}))]
    layout_script = max(scripts, key=lambda event: event["dur"])
    return {"page cpu": layout_script["tdur"] / 1000, "page wall": layout_script["dur"] / 1000}


def measure(sizes: List[int], runs: int, versions: Dict[str, Path], folder: Path,
            chromium: bool = False) -> Dict[str, Dict[str, List[float]]]:
    """Samples per "version N" label; the versions alternate within each run."""
    records = {}
    for size in sizes:
        records[size] = folder / f"scale-{size}.json"
        records[size].write_text(json.dumps(synth.scale_record(size)), encoding="utf-8")
    pages = {(name, size): page_folder(layout, records[size], folder / "pages" / f"{index}-{size}")
             for index, (name, layout) in enumerate(versions.items()) for size in sizes} if chromium else {}
    samples: Dict[str, Dict[str, List[float]]] = {}

    def add(label: str, values: Dict[str, float]) -> None:
        for key, value in values.items():
            samples.setdefault(label, {}).setdefault(key, []).append(value)

    playwright = None
    if chromium:
        from playwright.sync_api import sync_playwright
        playwright = sync_playwright().start()
    try:
        for _ in range(runs):
            for size in sizes:
                for name, layout in versions.items():
                    add(f"{name} {size}", one_run(layout, records[size]))
                    if playwright:
                        add(f"{name} {size}", one_page_run(playwright, pages[(name, size)]))
    finally:
        if playwright:
            playwright.stop()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--sizes", default="5000,20000,50000")
    parser.add_argument("--baseline", default="main",
                        help="git ref of the layout to compare with ('' for none)")
    parser.add_argument("--chromium", action="store_true", help="also time the first layout in Chromium")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        versions = {"this tree": GRAPH / "graph_layout.js"}
        if args.baseline:
            (folder / "baseline").mkdir()
            versions[f"at {args.baseline}"] = baseline_layout(args.baseline, folder / "baseline")
        print(f"load average before: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
        samples = measure(sizes, args.runs, versions, folder, args.chromium)
        print(f"load average after:  {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    print(f"medians of {args.runs} runs, each a fresh process (ms):")
    for label, columns in samples.items():
        medians = (f"{key} {statistics.median(values):.1f}" for key, values in columns.items())
        print(f"  {label:<16} " + "  ".join(medians))


if __name__ == "__main__":
    main()
