"""The trace view (`multiagent.trace`) beside Potato's `agent_trace` on the same record.

    .venv/bin/python -m bench.trace_view                   # 5,000 steps, 3 runs each, alternating
    .venv/bin/python -m bench.trace_view --steps 20000 --runs 5 --out /tmp/trace-view.md

For each display, on the same seeded record (`bench.synth.trace_record`, no timed calls) and the
same page set-up (one radio scheme, the plugin loaded on both):

- **display render (server)**: the display's own `render()` in this process (what Potato calls
  for the field on every page request), median of the runs;
- **page response**: `responseEnd - requestStart` of the `/annotate` navigation (Potato's whole
  page generation, the display included, plus transfer);
- **page ready**: navigation start until the display has drawn its steps (ours: the first window
  of rows, drawn by the browser; `agent_trace`: its server-drawn step cards once the document has
  loaded), polled every 10 ms;
- **DOM elements** in the page after ready.

Loads alternate between the two pages. This scenario stands apart from `bench/run.py` (its own
command); the numbers are printed as a Markdown table and, with `--out`, written there.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List

import yaml

from tests.e2e import harness

from .synth import trace_record

SIDES = ("multiagent.trace", "agent_trace")


def display_field(side: str) -> Dict[str, Any]:
    if side == "agent_trace":
        return {"key": "steps", "type": "agent_trace", "label": "Run",
                "display_options": {"speaker_key": "agent", "text_key": "content", "resizable": False}}
    return {"key": "steps", "type": "multiagent.trace", "label": "Run", "display_options": {"resizable": False}}


def task_folder(root: Path, side: str, record: Dict[str, Any]) -> Path:
    folder = root / side.replace(".", "-")
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "records.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    config = {"annotation_task_name": f"potato-ma-bench trace view {side} {uuid.uuid4().hex[:6]}",
              "task_dir": ".", "data_files": ["data/records.jsonl"],
              "item_properties": {"id_key": "id", "text_key": "task"}, "output_annotation_dir": "annotation_output",
              "plugins": ["multiagent"], "require_password": False,
              "instance_display": {"fields": [display_field(side)]},
              "annotation_schemes": [{"annotation_type": "radio", "name": "outcome", "description": "Outcome?",
                                      "labels": ["success", "failure"]}]}
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return folder


def render_time(side: str, steps: List[Any], runs: int) -> float:
    """Median seconds of the display's own render() on the record's steps."""
    from potato.server_utils.displays.registry import display_registry

    from potato_multiagent.trace_view.display import TraceDisplay

    if side == "agent_trace":
        renderer = display_registry.get("agent_trace").renderer
    else:
        renderer = TraceDisplay()
    field = display_field(side)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        renderer.render(field, steps)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


READY = {
    "multiagent.trace": "document.querySelectorAll('section.ma-trace li.ma-trace-row').length > 0",
    # agent_trace draws on the server: its cards are in the page once the document has loaded
    "agent_trace": "document.readyState === 'complete' && document.querySelectorAll('.agent-trace-step').length > 0",
}


def page_load(page, base_url: str, side: str, count: int) -> Dict[str, float]:
    page.goto(f"{base_url}/annotate", wait_until="commit")
    page.wait_for_function(READY[side], polling=10, timeout=600_000)
    ready = page.evaluate("performance.now()")
    timing = page.evaluate("""() => { const n = performance.getEntriesByType('navigation')[0];
        return {response: n.responseEnd - n.requestStart}; }""")
    elements = page.evaluate("document.getElementsByTagName('*').length")
    return {"response_s": timing["response"] / 1000, "ready_s": ready / 1000, "elements": elements}


def measure(steps: int, runs: int) -> Dict[str, Dict[str, float]]:
    from playwright.sync_api import sync_playwright

    record = trace_record(steps, n_calls=0, record_id=f"trace-view-{steps}")
    results: Dict[str, Dict[str, List[float]]] = {side: {"response_s": [], "ready_s": [], "elements": []}
                                                  for side in SIDES}
    with tempfile.TemporaryDirectory() as root:
        tasks = {side: harness.start_potato(task_folder(Path(root), side, record), timeout=600) for side in SIDES}
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(harness.BENCH_CHROMIUM), args=harness.CHROMIUM_ARGS)
                pages = {}
                for side, task in tasks.items():
                    pages[side] = browser.new_page(viewport={"width": 1400, "height": 900})
                    harness.login(pages[side], task.base_url, f"bench-{uuid.uuid4().hex[:6]}")
                for _ in range(runs):
                    for side in SIDES:   # alternating
                        for key, value in page_load(pages[side], tasks[side].base_url, side, steps).items():
                            results[side][key].append(value)
                browser.close()
        finally:
            for task in tasks.values():
                task.stop()
    summary = {}
    for side in SIDES:
        summary[side] = {key: statistics.median(values) for key, values in results[side].items()}
        summary[side]["render_s"] = render_time(side, record["steps"], runs)
    return summary


def report(steps: int, runs: int, summary: Dict[str, Dict[str, float]]) -> str:
    ours, theirs = summary["multiagent.trace"], summary["agent_trace"]
    lines = [f"## Trace view at {steps:,} steps (medians of {runs} alternating loads)", "",
             "| | multiagent.trace | agent_trace | agent_trace / ours |", "|---|---|---|---|"]
    for key, label in (("render_s", "display render (server), s"), ("response_s", "page response, s"),
                       ("ready_s", "page ready, s"), ("elements", "DOM elements")):
        ratio = theirs[key] / ours[key] if ours[key] else float("nan")
        lines.append(f"| {label} | {ours[key]:.3f} | {theirs[key]:.3f} | {ratio:.1f}x |" if key != "elements" else
                     f"| {label} | {ours[key]:.0f} | {theirs[key]:.0f} | {ratio:.1f}x |")
    return "\n".join(lines) + "\n"


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.trace_view", description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", help="also write the Markdown table here")
    args = parser.parse_args(argv)
    summary = measure(args.steps, args.runs)
    text = report(args.steps, args.runs, summary)
    sys.stdout.write(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
