"""What the page with our widgets costs by part (issue 18): our forms' markup, our bundle, the
derivation, the rest, each against Potato alone, side by side.

Issue 18 asks for the page with our seven widgets within 1.2x of Potato's bare page. `scale.py`
measures the whole; this splits it, so that a target can be weighed against what no way of
building the widgets can remove. At each size, on `synth.scale_record(N)`, five pages, each its
own `potato start` (the bench's `bare` and `ours` pages):

- `bare`: Potato alone (a radio);
- `markup`: the `ours` page with our seven forms and our style sheet but not our script;
- `inert`: the same with our script loaded and started, but nothing done on DOMContentLoaded or
  `potato:instance-ready` (no record read, no derivation, no widget built);
- `derive`: the same, reading the page's record and deriving it once on DOMContentLoaded;
- `full`: the page as shipped.

The three middle pages are served from copies of this tree's `src/` with one change each
(`VARIANTS`: exact lines replaced; a line that no longer exists stops the run), put first on the
server's `PYTHONPATH`. `ready` is what `scale.py` calls ready: instance-ready, and on `full` also
the in-view mark of web/lazy.js (the forms near the screen built). Loads alternate, the order
reversed each round, after one unmeasured load per page. Reported: medians, the ratio of the
medians to `bare`'s, and the median of the per-round ratios (each load against `bare`'s in the
same round).

    .venv/bin/python -m bench.floor --sizes 5000 50000 --rounds 16

`python -m bench` runs it as its part `floor` at the ordinary part's sizes (issue 34: how much of
the ratio is there before any widget is built); the report puts it under the ordinary case.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from playwright.sync_api import sync_playwright

from . import browser, log, machine, scale, synth
from .scenarios import SCENARIOS, Scenario

SOURCE = Path(__file__).resolve().parent.parent / "src"
WEB = "potato_multiagent/web"

# The lines the variants change, each (file under src/, line as it is, line as the variant has it).
ASSETS = "api.add_assets(str(bundle.folder), scripts=[bundle.script], styles=[bundle.style])"
FIRST_PASS = "document.addEventListener('DOMContentLoaded', firstPass);"
SHOWN_PASS = ("document.addEventListener('potato:instance-ready', function () "
              "{ sync.markRestored(); itemShown(); });")
PREPARE = ("if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', "
           "prepareAfterFirstPass); }\n    else { prepareAfterFirstPass(); }")
DERIVE_ONLY = ("document.addEventListener('DOMContentLoaded', function () "
               "{ derivationFor(readPageRecord(), deriveOptions({})); });")
DO_NOTHING = [(f"{WEB}/widget.js", SHOWN_PASS, ""), (f"{WEB}/runtime.js", PREPARE, "")]
NARROWED = "entry.static_dir, entry.scripts, entry.styles = str(bundle.folder), [bundle.script], [bundle.style]"
"""served.py's swap, at the server's first request, to the bundle of what the config uses: the
markup page leaves the script out there too, or its pages would load it from the first on."""
VARIANTS: Dict[str, List[Tuple[str, str, str]]] = {
    "markup": [("potato_multiagent/plugin.py", ASSETS, ASSETS.replace("scripts=[bundle.script]", "scripts=[]")),
               ("potato_multiagent/served.py", NARROWED, NARROWED.replace("[bundle.script]", "[]"))],
    "inert": [*DO_NOTHING, (f"{WEB}/widget.js", FIRST_PASS, "")],
    "derive": [*DO_NOTHING, (f"{WEB}/widget.js", FIRST_PASS, DERIVE_ONLY)],
}
PAGES = ("bare", "markup", "inert", "derive", "full")
WHAT = {
    "bare": "Potato alone (a radio)",
    "markup": "+ our forms' markup and our style sheet, not our script",
    "inert": "+ our script loaded and started, nothing done on DOMContentLoaded or instance-ready",
    "derive": "+ the page's record read and derived once on DOMContentLoaded",
    "full": "our widgets as shipped (the bench's `ours`)",
}
IN_VIEW_MARK = "multiagent:in-view-ready"
READY_JS = """([page, mark]) => { const bench = window.__bench;
  if (!bench || bench.instanceReadyAt === null || bench.paintedAt === null) return false;
  return page !== 'full' || performance.getEntriesByName(mark).length > 0; }"""
SAMPLE_JS = """([page, mark]) => { const bench = window.__bench, nav = performance.getEntriesByType('navigation')[0];
  const inView = performance.getEntriesByName(mark)[0];
  return {ttfb: nav.responseStart, dcl: nav.domContentLoadedEventStart, dcl_end: nav.domContentLoadedEventEnd,
          instance_ready: bench.instanceReadyAt,
          ready: page === 'full' ? Math.max(bench.instanceReadyAt, inView.startTime) : bench.instanceReadyAt}; }"""
TIMES = ("ttfb", "dcl", "dcl_end", "instance_ready", "ready")


def variant_tree(name: str, into: Path) -> Path:
    """A copy of src/ with the variant's lines replaced; each line must be there exactly once. Its
    bundle is built from it (beside it, the checkout's node_modules: esbuild)."""
    tree = into / name / "src"
    shutil.copytree(SOURCE, tree, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (into / name / "node_modules").symlink_to(SOURCE.parent / "node_modules")   # esbuild, for the bundle
    for relative, line, replacement in VARIANTS[name]:
        path = tree / relative
        text = path.read_text(encoding="utf-8")
        if text.count(line) != 1:
            raise ValueError(f"{relative}: the line the '{name}' page changes is not there once: {line!r}")
        path.write_text(text.replace(line, replacement), encoding="utf-8")
    return tree


def measure_size(chromium, steps: int, rounds: int, workdir: Path,
                 entries: Sequence[Scenario] = tuple(SCENARIOS)) -> Dict[str, List[Dict[str, float]]]:
    record = synth.scale_record(steps)
    prefix = f"floor-{steps}-{uuid.uuid4().hex[:6]}"
    sides = {}
    for page in PAGES:
        key = "bare" if page == "bare" else "ours"
        side = next(s for s in scale.sides_for(list(entries), record, steps, f"{prefix}-{page}") if s.key == key)
        side.interactions = {}
        sides[page] = side
    python_path = os.environ.get("PYTHONPATH")
    samples: Dict[str, List[Dict[str, float]]] = {page: [] for page in PAGES}
    try:
        for page, side in sides.items():
            if page in VARIANTS:
                os.environ["PYTHONPATH"] = os.pathsep.join(
                    [str(variant_tree(page, workdir / f"trees-{steps}"))] + ([python_path] if python_path else []))
            try:
                scale.start(side, chromium, workdir / f"pages-{steps}" / page, f"{prefix}-{page}")
            finally:
                _restore("PYTHONPATH", python_path)
            if side.error:
                raise RuntimeError(f"{page}: {side.error}")
        for page in PAGES:
            load(page, sides[page])
        for round_number in range(rounds):
            log(f"floor {steps:,} steps: round {round_number + 1} of {rounds}")
            for page in (PAGES if round_number % 2 == 0 else PAGES[::-1]):
                samples[page].append(load(page, sides[page]))
    finally:
        for side in sides.values():
            if side.context is not None:
                side.context.close()
            if side.task is not None:
                side.task.stop()
    return samples


def _restore(name: str, value: Optional[str]) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def load(page_name: str, side: scale.ScaleSide) -> Dict[str, float]:
    """One load as a new annotator, until the page is ready (see the module docstring)."""
    page = side.context.new_page()
    try:
        page.add_init_script(browser.probe_script(side.spec))
        browser.open_as_new_annotator(side.context, page, side.task.base_url)
        page.wait_for_function(READY_JS, arg=[page_name, IN_VIEW_MARK], polling=20,
                               timeout=browser.LOAD_TIMEOUT_MS)
        return page.evaluate(SAMPLE_JS, [page_name, IN_VIEW_MARK])
    finally:
        page.close()


def summary(samples: Dict[str, List[Dict[str, float]]]) -> Dict[str, Dict[str, float]]:
    bare = samples["bare"]
    rows = {}
    for page, loads in samples.items():
        row = {key: statistics.median(load[key] for load in loads) for key in TIMES}
        row["ratio"] = row["ready"] / statistics.median(load["ready"] for load in bare)
        row["paired_ratio"] = statistics.median(mine["ready"] / theirs["ready"] for mine, theirs in zip(loads, bare))
        rows[page] = row
    return rows


def markdown(steps: int, rounds: int, rows: Dict[str, Dict[str, float]]) -> str:
    lines = [f"{steps:,} steps, {rounds} rounds (medians, ms since navigation start)", "",
             "| page | what it has | DOMContentLoaded | instance-ready | ready | ratio | per-round ratio |",
             "|---|---|---|---|---|---|---|"]
    for page, row in rows.items():
        lines.append(f"| `{page}` | {WHAT[page]} | {row['dcl']:.0f} | {row['instance_ready']:.0f} | "
                     f"{row['ready']:.0f} | {row['ratio']:.2f}x | {row['paired_ratio']:.2f}x |")
    return "\n".join(lines)


def measure(sizes: Sequence[int], rounds: int, workdir: Path, entries: Sequence[Scenario] = tuple(SCENARIOS),
            show: bool = False) -> Dict[str, Any]:
    """Every size's pages, loaded `rounds` times each: {rounds, pages: {page: what it has}, sizes: {N:
    {steps, samples, summary, load_average}}} (`show`: each size's table printed as it is done)."""
    by_size: Dict[str, Any] = {}
    with sync_playwright() as playwright:
        chromium = browser.launch(playwright)
        try:
            for steps in sizes:
                load_at_start = machine.load_average()
                samples = measure_size(chromium, steps, rounds, workdir, entries)
                rows = summary(samples)
                by_size[str(steps)] = {"steps": steps, "samples": samples, "summary": rows,
                                       "load_average": [load_at_start, machine.load_average()]}
                if show:
                    print(markdown(steps, rounds, rows), "\n", flush=True)
        finally:
            chromium.close()
    return {"rounds": rounds, "pages": dict(WHAT), "sizes": by_size}


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5_000, 50_000])
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--workdir", type=Path, default=None, help="keep the task folders, the variant trees and floor.json (every load) here")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="potato-ma-floor-"))
    workdir.mkdir(parents=True, exist_ok=True)
    results = measure(args.sizes, args.rounds, workdir, show=True)
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        (workdir / "floor.json").write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
