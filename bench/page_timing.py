"""Ours against the built-in, page by page, in one browser, interleaved.

For each type: one Potato server and one browser context for our page and the same for the
built-in's (same record, same page set-up), `warmup` unmeasured loads of each (which also fill
the context's HTTP cache), then `runs` rounds of one load each, alternating which side goes
first, so that whatever else the machine is doing hits both sides alike. Then the same for the
page with all our types against the page with all seven built-ins (no interaction there). A page
that fails is reported with its error; the others are still measured.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from playwright.sync_api import sync_playwright

from . import browser, log, pages
from .scenarios import Scenario
from .stats import Summary

TIMED = ["dcl", "ready", "own", "derive", "frame", "work", "painted", "click_value_ms", "click_frame_ms"]
COUNTED = ["nodes", "heap_mb"]


class Side:
    """One page of a comparison: its spec, its server, its browser context and its samples."""

    def __init__(self, spec: pages.PageSpec, interaction: Optional[browser.Interaction]):
        self.spec = spec
        self.interaction = interaction
        self.task = None
        self.context = None
        self.samples: List[Dict[str, Any]] = []
        self.error: Optional[str] = None       # the page cannot be measured at all
        self.failed_loads: List[str] = []      # loads that failed; the others still count

    def start(self, chromium, workdir: Path, record: Dict[str, Any], name_prefix: str) -> None:
        try:
            folder = pages.write_task(workdir / self.spec.slug, self.spec, record, name_prefix)
            self.task = pages.start_server(folder)
        except Exception as error:  # a broken page must not stop the others
            self.error = f"server did not start: {_first_line(error)}"
            return
        self.context = chromium.new_context()

    def load(self, keep: bool) -> None:
        if self.error:
            return
        try:
            sample = browser.measure_load(self.context, self.task, self.spec, self.interaction)
        except Exception as error:
            self.failed_loads.append(_first_line(error))
            log(f"{self.spec.label}: load failed: {self.failed_loads[-1]}")
            return
        if keep:
            self.samples.append(sample)
            log(f"{self.spec.label} run {len(self.samples)}: own {sample['own']:.0f} ms, "
                f"painted {sample['painted']:.0f} ms")

    def stop(self) -> None:
        if self.context is not None:
            self.context.close()
        if self.task is not None:
            self.task.stop()

    def result(self) -> Dict[str, Any]:
        if self.error or not self.samples:
            return {"error": self.error or self.failed_loads[0]}
        summary = {key: Summary.of([sample[key] for sample in self.samples]).to_dict()
                   for key in TIMED + COUNTED if key in self.samples[0]}
        return {"label": self.spec.label, **summary, "failed_loads": self.failed_loads}


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:400]


def compare(chromium, sides: Sequence[Side], record: Dict[str, Any], runs: int, warmup: int, workdir: Path,
            name_prefix: str) -> List[Dict[str, Any]]:
    """Start every side's server, load them interleaved, stop them; each side's result."""
    try:
        for side in sides:
            side.start(chromium, workdir, record, name_prefix)
        for _ in range(warmup):
            for side in sides:
                side.load(keep=False)
        for round_number in range(runs):
            order = sides if round_number % 2 == 0 else list(reversed(sides))
            for side in order:
                side.load(keep=True)
    finally:
        for side in sides:
            side.stop()
    return [side.result() for side in sides]


def _interaction(entry: Scenario, action: str, expect: Callable, record: Dict[str, Any]) -> browser.Interaction:
    return browser.Interaction(pages.form_selector(entry), action, lambda value: expect(value, record))


def type_sides(entry: Scenario, record: Dict[str, Any]) -> List[Side]:
    """[ours, built-in] for a type we have, [built-in] for one we do not."""
    builtin = Side(pages.builtin_page(f"{entry.widget} built-in", [entry], record),
                   _interaction(entry, entry.builtin.action, entry.builtin.expect, record))
    if not entry.present:
        return [builtin]
    ours = Side(pages.ours_page(f"{entry.widget} ours", [entry]),
                _interaction(entry, entry.ours.action, entry.ours.expect, record))
    return [ours, builtin]


def measure(entries: Sequence[Scenario], record: Dict[str, Any], runs: int, warmup: int, workdir: Path,
            name_prefix: str) -> Dict[str, Any]:
    """`{"types": {widget: {"ours": result|None, "builtin": result}}, "all": {...}}`."""
    results: Dict[str, Any] = {"types": {}, "all": None}
    with sync_playwright() as playwright:
        chromium = browser.launch(playwright)
        try:
            for entry in entries:
                log(f"{entry.widget}: {'ours and built-in' if entry.present else 'built-in only (type not present)'}")
                sides = type_sides(entry, record)
                measured = compare(chromium, sides, record, runs, warmup, workdir, name_prefix)
                results["types"][entry.widget] = {"ours": measured[0] if entry.present else None,
                                                  "builtin": measured[-1]}
            present = [entry for entry in entries if entry.present]
            if len(entries) > 1 and present:
                log(f"all on one page: ours ({len(present)} types) and the {len(entries)} built-ins")
                sides = [Side(pages.ours_page("all ours", present), None),
                         Side(pages.builtin_page("all built-in", list(entries), record), None)]
                ours, builtin = compare(chromium, sides, record, runs, warmup, workdir, name_prefix)
                results["all"] = {"ours": ours, "builtin": builtin,
                                  "ours_types": [entry.widget for entry in present],
                                  "builtin_types": [entry.widget for entry in entries]}
        finally:
            chromium.close()
    return results
