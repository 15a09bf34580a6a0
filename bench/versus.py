"""Two versions of the plugin side by side: one page of the ordinary case served at once by this
checkout and by another (a `git worktree` of an earlier commit), loaded in turn with Potato's page.

    git worktree add /tmp/before 8ab43fa
    .venv/bin/python -m bench.versus /tmp/before --steps 200 --page init --rounds 10

From one run of the bench to the next the ratios to Potato's page move by about 0.2x (the machine's
load is not the same twice), more than most changes do; served at once and loaded alternately
(the order reversed each round, after one warm-up round), the two versions meet the same load.
Warm loads (the browser's cache filled), or with `--cold` each in a new browser context, as
`bench/ordinary.py` measures them; medians (min-max).

The other checkout runs in its own `potato start`, its `src` first on the server's PYTHONPATH (so
Potato loads our plugin from there) and this checkout's `node_modules` on NODE_PATH (its bundle is
built with the esbuild pinned here when it has none of its own). Each server has its own
`annotation_task_name`.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from playwright.sync_api import sync_playwright

from . import browser, log, ordinary, scale, synth
from .report import number, table
from .scenarios import SCENARIOS
from .stats import Summary

CHECKOUT = Path(__file__).resolve().parent.parent
TIMED = (("ready", "ready"), ("to_instance_ready", "to instance-ready"), ("in_view", "instance-ready to ready"))


def other_environment(other: Path) -> Dict[str, str]:
    """The server's environment for the other checkout: its plugin first on the import path."""
    source = other / "src"
    if not (source / "potato_multiagent" / "__init__.py").is_file():
        raise SystemExit(f"bench.versus: {other} is not a checkout of potato-multiagent (no src/potato_multiagent)")
    paths = [str(source), os.environ.get("PYTHONPATH", "")]
    modules = [str(CHECKOUT / "node_modules"), os.environ.get("NODE_PATH", "")]
    return {"PYTHONPATH": os.pathsep.join(path for path in paths if path),
            "NODE_PATH": os.pathsep.join(path for path in modules if path)}


def measure(other: Path, steps: int, page: str, rounds: int, workdir: Path, mode: str = "warm") -> List[List[str]]:
    """The rows of the report: Potato's page, then the page by this checkout and by the other;
    `mode` as in bench/ordinary.py (warm: the side's own browser context; cold: a new one a load)."""
    record = synth.scale_record(steps)
    sides = {side.key: side for side in ordinary.sides_for(list(SCENARIOS), record, steps)}
    bare, here = sides["bare"], sides[page]
    there = copy.deepcopy(here)
    there.key, there.spec.label = f"{page} (other)", f"{here.spec.label} versus other"
    here.spec.label += " versus here"
    bare.spec.label += " versus"
    order = [bare, here, there]
    samples: Dict[str, Dict[str, List[dict]]] = {side.key: {mode: []} for side in order}
    with sync_playwright() as playwright:
        chromium = browser.launch(playwright)
        try:
            scale.start(bare, chromium, workdir, "versus")
            scale.start(here, chromium, workdir, "versus")
            scale.start(there, chromium, workdir, "versus", env=other_environment(other))
            failed = [f"{side.spec.label}: {side.error}" for side in order if side.error]
            if failed:
                raise SystemExit("bench.versus: " + "; ".join(failed))
            for round_number in range(rounds + 1):
                log(f"versus: round {round_number} of {rounds}" + (" (warm-up)" if round_number == 0 else ""))
                for side in (order if round_number % 2 == 0 else order[::-1]):
                    ordinary.load(side, chromium, mode, bool(round_number), samples[side.key])
        finally:
            scale.stop(order)
            chromium.close()
    potato = Summary.of([sample["ready"] for sample in samples["bare"][mode]]).median
    titles = {"bare": "Potato alone (a radio)", page: f"{page}: this checkout", there.key: f"{page}: {other}"}
    rows = []
    for side in order:
        found = {key: Summary.of([sample[key] for sample in samples[side.key][mode]]) for key, _title in TIMED}
        rows.append([titles[side.key], *(f"{number(found[key].median)} ({number(found[key].low)}–"
                                          f"{number(found[key].high)})" for key, _title in TIMED),
                     f"{found['ready'].median / potato:.2f}×"])
    return rows


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.versus", description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="the other checkout (e.g. a git worktree of an earlier commit)")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--page", choices=("seven", "init"), default="init",
                        help="our seven types, or the page `init` writes (bench/ordinary.py)")
    parser.add_argument("--rounds", type=int, default=10, help="measured rounds, after one warm-up round")
    parser.add_argument("--workdir", type=Path, default=None, help="where the tasks are written (default: a temporary folder)")
    parser.add_argument("--cold", action="store_true", help="each load in a new browser context (nothing cached)")
    args = parser.parse_args(argv)
    mode = "cold" if args.cold else "warm"
    other = args.other.resolve()
    other_environment(other)   # refuse a folder that is not a checkout before any server starts
    if args.workdir is not None:
        rows = measure(other, args.steps, args.page, args.rounds, args.workdir, mode)
    else:
        with tempfile.TemporaryDirectory(prefix="potato-ma-versus-") as scratch:
            rows = measure(other, args.steps, args.page, args.rounds, Path(scratch), mode)
    print(f"{args.steps:,} steps, {args.rounds} {mode} round(s) after one warm-up, ms since navigation start, "
          "medians (min–max):\n")
    print("\n".join(table(["page", *(title for _key, title in TIMED), "ready / Potato's"], rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
