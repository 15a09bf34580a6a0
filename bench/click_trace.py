"""Where a click's time goes on a long record: `python -m bench.click_trace --steps 50000 [WIDGET ...]`.

Serves the scale part's page with all our widgets (`scale.sides_for`, its own
`annotation_task_name`), opens it as a new annotator, waits until every widget is ready, then for
each widget runs its interaction (`scenarios.py`) under a Chromium performance trace and prints
the time to the stored value and to the next frame, and the main thread's self time per kind of
work during it (`chrome_trace`), in CPU time and in wall time. CPU time is what a busy machine
does not stretch. Nothing is written.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from . import browser, chrome_trace, scale, synth
from .scenarios import SCENARIOS


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.click_trace", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("widgets", nargs="*", help="widgets to click (default: all present)")
    args = parser.parse_args()
    entries = [entry for entry in SCENARIOS if entry.present]
    prefix = "potato-ma-bench-clicktrace"
    side = scale.sides_for(entries, synth.scale_record(args.steps), args.steps, prefix)[1]
    with sync_playwright() as playwright, tempfile.TemporaryDirectory(prefix="potato-ma-clicks-") as workdir:
        chromium = browser.launch(playwright)
        try:
            scale.start(side, chromium, Path(workdir), prefix)
            if side.error:
                raise SystemExit(f"bench.click_trace: {side.error}")
            page = side.context.new_page()
            page.add_init_script(browser.probe_script(side.spec))
            browser.open_as_new_annotator(side.context, page, side.task.base_url)
            browser.wait_ready(page, side.spec, [], scale.LOAD_TIMEOUT_MS)
            print("| widget | to stored value (ms) | to next frame (ms) | main thread CPU: script | style | layout "
                  "| paint | other | in all | main thread wall, in all |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for widget in args.widgets or list(side.interactions):
                chromium.start_tracing(page=page, categories=chrome_trace.CATEGORIES)
                took = browser._interact(page, side.interactions[widget])
                parts = chrome_trace.breakdown(chromium.stop_tracing(), scale.ANNOTATE_PATH)
                cpu = parts["cpu"]
                print(f"| {widget} | {took['click_value_ms']:.0f} | {took['click_frame_ms']:.0f} | "
                      + " | ".join(f"{cpu[key]:.0f}" for key in ("script", "style", "layout", "paint", "other", "busy"))
                      + f" | {parts['busy']:.0f} |")
        finally:
            if side.context is not None:
                side.context.close()
            if side.task is not None:
                side.task.stop()
            chromium.close()


if __name__ == "__main__":
    main()
