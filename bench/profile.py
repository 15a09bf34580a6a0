"""Where the time goes, before anything is explained or optimised.

    .venv/bin/python -m bench.profile page failure_attribution          # our page, 5,000 steps
    .venv/bin/python -m bench.profile page failure_attribution --builtin
    .venv/bin/python -m bench.profile derive --steps 10000              # Python derive, cProfile
    .venv/bin/python -m bench.profile scale --steps 50000               # the scale part's page with all of ours
    .venv/bin/python -m bench.profile scale --trace-view --no-widgets   # its trace view page (the view alone)
    .venv/bin/python -m bench.profile ordinary --steps 200              # init's page of the ordinary part

`page` loads one bench page in headless Chromium under V8's sampling profiler (CDP `Profiler`,
started on the server's origin so the same renderer then loads the page) until the page is
painted, and prints self time by script and by function; `scale` does the same for the scale part's
page with all our widgets on `synth.scale_record` (add `--trace-view` for the trace view too);
`ordinary` one page of the ordinary part (`--page init` or `seven`), warm, as bench.versus loads
it. `derive` runs Python's cProfile over `potato_multiagent.derive` of one synthetic record.
Findings go to the commit that acts on them.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from playwright.sync_api import sync_playwright

from potato_multiagent import derive

from . import browser, pages, synth
from .scenarios import SCENARIOS, scenario

SAMPLING_INTERVAL_US = 100
TOP = 20


def self_times(profile: Dict[str, Any]) -> Counter:
    """Milliseconds of self time per (function, script, line) of a CDP `Profiler.Profile`."""
    frames = {node["id"]: node["callFrame"] for node in profile["nodes"]}
    times: Counter = Counter()
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"]):
        frame = frames[node_id]
        script = frame["url"].split("?")[0].rsplit("/", 1)[-1] or "(inline or native)"
        times[(frame["functionName"] or "(anonymous)", script, frame["lineNumber"] + 1)] += delta / 1000
    return times


def print_times(title: str, times: Counter) -> None:
    by_script: Counter = Counter()
    for (_, script, _), milliseconds in times.items():
        by_script[script] += milliseconds
    print(f"\n{title}: {sum(times.values()):.0f} ms sampled\n\nself time by script:")
    for script, milliseconds in by_script.most_common(TOP):
        print(f"  {milliseconds:8.1f} ms  {script}")
    print("\nself time by function:")
    for (function, script, line), milliseconds in times.most_common(TOP):
        print(f"  {milliseconds:8.1f} ms  {function}  ({script}:{line})")


def profile_page(widget: str, builtin: bool, steps: int) -> Counter:
    entry = scenario(widget)
    record = synth.trace_record(steps)
    label = f"{widget} {'built-in' if builtin else 'ours'} profile"
    spec = pages.builtin_page(label, [entry], record) if builtin else pages.ours_page(label, [entry])
    with tempfile.TemporaryDirectory(prefix="potato-ma-profile-") as scratch:
        task = pages.start_server(pages.write_task(Path(scratch) / "task", spec, record))
        try:
            with sync_playwright() as playwright:
                chromium = browser.launch(playwright)
                try:
                    context = chromium.new_context()
                    browser.measure_load(context, task, spec)  # warm the HTTP cache, as the bench does
                    return _profiled_load(context, task, spec)
                finally:
                    chromium.close()
        finally:
            task.stop()


def profile_scale(steps: int, trace_view: bool, widgets: bool = True) -> Counter:
    from . import scale

    present = [entry for entry in SCENARIOS if entry.present] if widgets else []
    record = synth.scale_record(steps)
    label = f"profile scale {steps}{' trace view' if trace_view else ''}{'' if widgets else ' alone'}"
    spec = pages.PageSpec(label, scale.our_schemes(present, nested=False),
                          marks=[f"multiagent:ready:{entry.scheme_name}" for entry in present], trace_view=trace_view)
    display = scale.TRACE_VIEW_DISPLAY if trace_view else scale.TASK_DISPLAY
    with tempfile.TemporaryDirectory(prefix="potato-ma-profile-") as scratch:
        task = pages.start_server(pages.write_task(Path(scratch) / "task", spec, record, instance_display=display),
                                  timeout=scale.SERVER_START_TIMEOUT_S)
        try:
            with sync_playwright() as playwright:
                chromium = browser.launch(playwright)
                try:
                    context = chromium.new_context()
                    _profiled_load(context, task, spec)  # warm the HTTP cache, as the bench does
                    return _profiled_load(context, task, spec)
                finally:
                    chromium.close()
        finally:
            task.stop()


def profile_ordinary(steps: int, page_key: str) -> Counter:
    from . import ordinary, scale

    record = synth.scale_record(steps)
    side = next(side for side in ordinary.sides_for(list(SCENARIOS), record, steps) if side.key == page_key)
    with tempfile.TemporaryDirectory(prefix="potato-ma-profile-") as scratch:
        with sync_playwright() as playwright:
            chromium = browser.launch(playwright)
            try:
                scale.start(side, chromium, Path(scratch), "profile")
                if side.error:
                    raise RuntimeError(side.error)
                _profiled_load(side.context, side.task, side.spec)  # warm the HTTP cache, as the bench does
                return _profiled_load(side.context, side.task, side.spec)
            finally:
                scale.stop([side])
                chromium.close()


def _profiled_load(context, task, spec: pages.PageSpec) -> Counter:
    page = context.new_page()
    page.goto(f"{task.base_url}/health")  # the server's origin: this renderer then loads the page
    session = context.new_cdp_session(page)
    session.send("Profiler.enable")
    session.send("Profiler.setSamplingInterval", {"interval": SAMPLING_INTERVAL_US})
    session.send("Profiler.start")
    page.add_init_script(browser.probe_script(spec))
    browser.open_as_new_annotator(context, page, task.base_url)
    browser.wait_ready(page, spec, [], scale_timeout_ms())
    return self_times(session.send("Profiler.stop")["profile"])


def scale_timeout_ms() -> float:
    from . import scale

    return scale.LOAD_TIMEOUT_MS


def profile_derive(steps: int) -> pstats.Stats:
    record = synth.trace_record(steps)
    derive(record)  # warm-up
    profiler = cProfile.Profile()
    profiler.runcall(derive, record)
    return pstats.Stats(profiler)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    page = commands.add_parser("page", help="CPU profile of one page load in Chromium")
    page.add_argument("widget")
    page.add_argument("--builtin", action="store_true", help="the Potato built-in's page instead of ours")
    page.add_argument("--steps", type=int, default=5_000)
    whole = commands.add_parser("scale", help="CPU profile of the scale part's page with all our widgets")
    whole.add_argument("--steps", type=int, default=50_000)
    whole.add_argument("--trace-view", action="store_true", help="with our trace view of the steps")
    whole.add_argument("--no-widgets", action="store_true", help="with the radio only (with --trace-view: the "
                       "scale part's `trace_view` page)")
    usual = commands.add_parser("ordinary", help="CPU profile of one page of the ordinary part, warm")
    usual.add_argument("--steps", type=int, default=200)
    usual.add_argument("--page", choices=("init", "seven"), default="init")
    python = commands.add_parser("derive", help="cProfile of Python's derive on one synthetic record")
    python.add_argument("--steps", type=int, default=10_000)
    args = parser.parse_args(argv)
    if args.command == "page":
        side = "built-in" if args.builtin else "ours"
        print_times(f"{args.widget} ({side}), {args.steps:,} steps, page load until painted",
                    profile_page(args.widget, args.builtin, args.steps))
    elif args.command == "scale":
        what = "a radio" if args.no_widgets else "all our widgets"
        print_times(f"{what}{' and the trace view' if args.trace_view else ''}, {args.steps:,} steps, "
                    "page load until ready", profile_scale(args.steps, args.trace_view, not args.no_widgets))
    elif args.command == "ordinary":
        print_times(f"the ordinary part's {args.page} page, {args.steps:,} steps, warm load until ready",
                    profile_ordinary(args.steps, args.page))
    else:
        stats = profile_derive(args.steps)
        stats.sort_stats("tottime").print_stats(TOP)
    return 0


if __name__ == "__main__":
    sys.exit(main())
