"""`python -m bench`: measure, then write `bench/RESULTS.md` (and the raw `bench/RESULTS.json`).

    .venv/bin/python -m bench                     # the full run (7-15 minutes on two cores)
    .venv/bin/python -m bench --quick             # a smoke run on tiny inputs (under a minute)
    .venv/bin/python -m bench --only failure_attribution handoff_review --skip check
    .venv/bin/python -m bench --skip derive pages check --runs 3 --workdir /tmp/scale   # page readiness by length

See bench/README.md for what is measured and how.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from tests.e2e import harness

from . import check_timing, derive_timing, floor, log, machine, ordinary, page_timing, report, scale, synth
from .pages import TASK_NAME_PREFIX
from .scenarios import SCENARIOS, Scenario, scenario

BENCH_DIR = Path(__file__).resolve().parent
PARTS = ("derive", "pages", "check", "scale", "ordinary", "floor")


@dataclass(frozen=True)
class Settings:
    derive_sizes: Sequence[int]
    browser_steps: int
    check_values: int
    check_instances: int
    check_steps: int
    runs: int
    warmup: int
    task_name_prefix: str
    scale_sizes: Sequence[int] = scale.SIZES
    ordinary_sizes: Sequence[int] = ordinary.SIZES
    floor_rounds: int = 16   # bench.floor's pages differ by a few ms: more rounds than the other parts


FULL = Settings(derive_sizes=(1_000, 5_000, 10_000, 20_000, 50_000), browser_steps=5_000, check_values=10_000,
                check_instances=100, check_steps=50, runs=5, warmup=1, task_name_prefix=TASK_NAME_PREFIX)
QUICK = Settings(derive_sizes=(200, 400, 800), browser_steps=300, check_values=200, check_instances=10,
                 check_steps=20, runs=1, warmup=0, task_name_prefix=f"{TASK_NAME_PREFIX}-quick",
                 scale_sizes=scale.QUICK_SIZES, ordinary_sizes=ordinary.QUICK_SIZES, floor_rounds=1)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="tiny inputs and one run each: checks that the bench works, measures nothing")
    parser.add_argument("--runs", type=int, help="measured runs per figure (default 5; --quick 1)")
    parser.add_argument("--warmup", type=int, help="unmeasured runs first (default 1; --quick 0)")
    parser.add_argument("--only", nargs="+", metavar="TYPE", help="measure only these types (widget names)")
    parser.add_argument("--skip", nargs="+", choices=PARTS, default=[], help="leave these parts out")
    parser.add_argument("--out", type=Path,
                        help="the Markdown report (default bench/RESULTS.md; --quick: RESULTS-quick.md in the work dir)")
    parser.add_argument("--sizes", type=int, nargs="+", metavar="N",
                        help="trace lengths of the scale part (default 5000 20000 50000; --quick 300)")
    parser.add_argument("--ordinary-sizes", type=int, nargs="+", metavar="N",
                        help="trace lengths of the ordinary part (default 30 200 1000 5000; --quick 30)")
    parser.add_argument("--keep", action="store_true",
                        help="take the parts left out (--skip) from the report's JSON of an earlier run, "
                             "which the report then names for each part, instead of leaving them out")
    parser.add_argument("--workdir", type=Path,
                        help="where task folders and records go (default: a temp dir, removed); "
                             "the scale part resumes from the sizes a run with this workdir finished")
    return parser


def settings_for(args: argparse.Namespace) -> Settings:
    base = QUICK if args.quick else FULL
    return Settings(**{**base.__dict__, "runs": args.runs or base.runs,
                       "warmup": base.warmup if args.warmup is None else args.warmup,
                       "scale_sizes": tuple(args.sizes or base.scale_sizes),
                       "ordinary_sizes": tuple(args.ordinary_sizes or base.ordinary_sizes)})


def missing_tools(parts: Sequence[str]) -> List[str]:
    """What this machine lacks for the parts asked for (`bash scripts/setup.sh` installs them)."""
    problems = []
    if "derive" in parts and shutil.which("node") is None:
        problems.append("node is not on PATH (derive.js is timed under node)")
    if {"pages", "scale", "ordinary", "floor"} & set(parts) and not harness.BENCH_CHROMIUM.exists():
        problems.append(f"{harness.BENCH_CHROMIUM} is missing (run `bash scripts/setup.sh`)")
    return problems


def run(entries: Sequence[Scenario], parts: Sequence[str], settings: Settings, workdir: Path) -> Dict[str, Any]:
    results: Dict[str, Any] = {part: None for part in PARTS}
    if "derive" in parts:
        log(f"derive: sizes {', '.join(map(str, settings.derive_sizes))}")
        results["derive"] = derive_timing.measure(settings.derive_sizes, settings.runs, settings.warmup, workdir)
    if "pages" in parts:
        record = synth.trace_record(settings.browser_steps)
        results["record"] = {"counts": derive_timing.counts(record),
                             "builtin_items": {entry.widget: [entry.builtin.items(record), entry.builtin.item]
                                               for entry in entries}}
        results["pages"] = page_timing.measure(entries, record, settings.runs, settings.warmup, workdir,
                                               settings.task_name_prefix)
    present = [entry for entry in entries if entry.present]
    if "check" in parts and present:
        log(f"check: {settings.check_values:,} values")
        results["check"] = check_timing.measure(present, settings.check_values, settings.check_instances,
                                                settings.check_steps, settings.runs, settings.warmup, workdir)
    if "scale" in parts and present:
        log(f"scale: page readiness at {', '.join(f'{n:,}' for n in settings.scale_sizes)} steps")
        results["scale"] = scale.measure(present, settings.scale_sizes, settings.runs, settings.warmup, workdir,
                                         settings.task_name_prefix)
    if "ordinary" in parts and present:
        log(f"ordinary: Potato's page against ours at {', '.join(f'{n:,}' for n in settings.ordinary_sizes)} steps")
        results["ordinary"] = ordinary.measure(present, settings.ordinary_sizes, settings.runs, settings.warmup,
                                               workdir, settings.task_name_prefix)
    if "floor" in parts and present:
        log(f"floor: the ordinary part's page by part at {', '.join(f'{n:,}' for n in settings.ordinary_sizes)} steps")
        results["floor"] = floor.measure(settings.ordinary_sizes, settings.floor_rounds, workdir / "floor", present)
    return results


def kept_parts(results: Dict[str, Any], earlier_path: Path, skipped: Sequence[str]) -> Dict[str, Any]:
    """The parts of an earlier run's JSON that this run left out, each marked with the run it comes
    from (`from_run`: its command and date), so that one report holds every part's newest figures."""
    if not earlier_path.is_file():
        raise FileNotFoundError(f"--keep: {earlier_path} not found (run every part once first)")
    earlier = json.loads(earlier_path.read_text(encoding="utf-8"))
    kept = dict(results)
    for part in skipped:
        if earlier.get(part):
            kept[part] = earlier[part]
            origin = earlier.get("from_run", {}).get(part) or {"command": earlier["command"],
                                                             "generated": earlier["generated"]}
            kept.setdefault("from_run", {})[part] = origin
            if part == "pages" and "record" in earlier:
                kept["record"] = earlier["record"]
    return kept


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    settings = settings_for(args)
    parts = [part for part in PARTS if part not in args.skip]
    try:
        entries = [scenario(widget) for widget in args.only] if args.only else list(SCENARIOS)
    except KeyError as error:
        print(f"bench: error: {error.args[0]}", file=sys.stderr)
        return 2
    problems = missing_tools(parts)
    if problems:
        print("bench: error: " + "; ".join(problems), file=sys.stderr)
        return 2
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="potato-ma-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    out = args.out or (workdir / "RESULTS-quick.md" if args.quick else BENCH_DIR / "RESULTS.md")
    arguments = list(sys.argv[1:] if argv is None else argv)
    started, load_at_start = time.monotonic(), machine.load_average()
    try:
        results = run(entries, parts, settings, workdir)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.keep:
        results = kept_parts(results, out.with_suffix(".json"), args.skip)
    results.update({
        "command": " ".join(["python -m bench", *arguments]),
        "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "duration_s": time.monotonic() - started,
        "settings": settings.__dict__,
        "machine": machine.describe(),
        "load": {"start": load_at_start, "end": machine.load_average()},
    })
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(results, indent=1, default=list), encoding="utf-8")
    out.write_text(report.render(results), encoding="utf-8")
    log(f"wrote {out} and {out.with_suffix('.json').name}")
    return 0
