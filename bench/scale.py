"""Page readiness by trace length (issues 14 and 18): Potato alone, with our widgets, our trace view, `agent_trace`.

At each size N (default 5,000, 20,000 and 50,000 steps) one seeded record (`synth.scale_record`:
N steps by 12 agents, a tool call on every 4th step, N timed calls on 40 resources) is served by
six pages, each its own `potato start` and `annotation_task_name`:

- `bare`: Potato alone, a radio only (no plugin), the record's one-line task shown;
- `ours`: the same radio and our widgets (all seven, or those of `--only`), plugin loaded;
- `ours_nested`: the same as `ours` with the record's lists under `trace` (`synth.nested_layout`,
  `steps_key: trace.steps`): the layout Potato embeds once instead of twice;
- `trace_view`: the radio and our trace view (`multiagent.trace`) of the steps, plugin loaded;
- `whole`: the trace view and our widgets on one page (what an annotator of a long run gets);
- `agent_trace`: the radio and Potato's `agent_trace` display of the steps (no plugin).

Loads alternate between the pages (the order reversed every round) after `warmup` unmeasured
loads. `agent_trace` takes minutes at 50,000 steps, so above 5,000 steps it is loaded in fewer
rounds (`agent_trace_rounds`: 2 at 20,000, 1 above), without a warm-up and without a traced load.
Per load, in ms since navigation start: `ttfb` (request to first byte: Potato's server render),
`response_end`, `dcl`, `ready` (the latest of `potato:instance-ready`, widget.js's
`multiagent:in-view-ready` mark, set when the instance-ready pass has built every form in
sight (web/lazy.js builds those near a frame later, the others later still), and the trace view's
`multiagent:trace-in-view` mark, set when it has drawn the rows a screen can show (the rest of its
window follows a frame later; a version without the mark: its last drawing of rows)),
`all_built` (the same with the last `multiagent:ready:*` mark of every widget and the trace view's
last drawing instead of the in-view marks: what `ready` meant before forms were built lazily),
`painted` (the frame after instance-ready); with the trace view also `trace_ready` (the end of the
last script task that drew its rows); ours also
`derive`, `ours_dcl` (widget.js's DOMContentLoaded listener: first derivation and DOM build) and
`rerender` (instance-ready to the last widget's mark, idle-time builds included); element counts
(the whole page, each form, `agent_trace`'s display, our trace view); the page's bytes. On `ours` and on `whole` each
widget's interaction (`scenarios.py`) is then timed to the stored value. Each size records the
machine's load average when it starts and ends.

Once per page and size, outside the timed loads: the HTML fetched over HTTP, split into Potato's two
copies of the record (`data-instance-json`, `<script id="instance_data">`) and the rest, and how
long BeautifulSoup's `html.parser` (which Potato runs over every page it serves) takes on it here.
At the largest size, one more load per page (but `agent_trace`) under a Chromium performance trace
(`chrome_trace`).

Progress is kept in `<workdir>/scale-progress.json` after each size; a run with the same
`--workdir` and settings skips the sizes already measured (a 50,000-step round takes minutes).
"""

from __future__ import annotations

import gzip
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence
from urllib.parse import urlparse

from playwright.sync_api import sync_playwright

from . import browser, chrome_trace, log, machine, pages, synth
from .scenarios import Scenario
from .stats import Summary

SIZES = (5_000, 20_000, 50_000)
QUICK_SIZES = (300,)
SIDES = ("bare", "ours", "ours_nested", "trace_view", "whole", "agent_trace")
SIDE_TITLES = {"bare": "Potato alone (a radio)", "ours": "+ our widgets",
               "ours_nested": "+ our widgets, record under `trace`", "trace_view": "our trace view alone",
               "whole": "our trace view + our widgets", "agent_trace": "Potato's `agent_trace` alone"}
PROGRESS_FILE = "scale-progress.json"
ANNOTATE_PATH = "/annotate"  # picks the measured page's renderer in a trace
SERVER_START_TIMEOUT_S = 300  # Potato reads and indexes a 50,000-step record before it listens
LOAD_TIMEOUT_MS = 480_000     # agent_trace at 50,000 steps took 38 s on a quieter machine; here 8 share 2 cores
RADIO = {"annotation_type": "radio", "name": "bench_radio", "description": "Did the run succeed?",
         "labels": ["yes", "no"]}
TASK_DISPLAY = {"fields": [{"key": "task", "type": "text", "label": "Task"}]}
AGENT_TRACE_DISPLAY = {"fields": [
    {"key": "task", "type": "text", "label": "Task"},
    {"key": "steps", "type": "agent_trace", "label": "Run",
     "display_options": {"speaker_key": "agent", "text_key": "content", "show_step_numbers": True}}]}
TRACE_VIEW_FIELD = {"key": "steps", "type": "multiagent.trace", "label": "Run"}
TRACE_VIEW_DISPLAY = {"fields": [{"key": "task", "type": "text", "label": "Task"}, TRACE_VIEW_FIELD]}
TIMED = ["ttfb", "response_end", "dom_interactive", "dcl", "dcl_end", "instance_ready", "ready", "all_built",
         "painted", "trace_ready", "derive", "ours_dcl", "rerender"]
IN_VIEW_MARK = "multiagent:in-view-ready"   # web/lazy.js: the forms in sight are built
TRACE_IN_VIEW_MARK = "multiagent:trace-in-view"   # web/trace_view.js: the rows in sight are drawn

LOAD_JS = """({marks, inViewMark, traceInViewMark}) => {
  const bench = window.__bench;
  const navigation = performance.getEntriesByType('navigation')[0];
  const lastMark = (name) => { const all = performance.getEntriesByName(name); return all[all.length - 1].startTime; };
  const markTimes = marks.map(lastMark);
  const traced = bench.traceRowsAt === null ? [] : [bench.traceRowsAt];
  // ready: what the annotator sees is built (the in-view marks); all_built: every widget built and
  // every row of the trace view's window drawn. A version whose view has no in-view mark: its last drawing.
  const inView = marks.length && performance.getEntriesByName(inViewMark).length ? [lastMark(inViewMark)] : markTimes;
  const traceInView = performance.getEntriesByName(traceInViewMark).length ? [lastMark(traceInViewMark)] : traced;
  const ready = Math.max(bench.instanceReadyAt, ...inView, ...traceInView);
  const allBuilt = Math.max(bench.instanceReadyAt, ...markTimes, ...traced);
  const ours = bench.listeners.find((entry) => entry.owner === 'core' && entry.start !== null);
  const forms = {};
  document.querySelectorAll('form.annotation-form[data-schema-name]').forEach((form) => {
    forms[form.getAttribute('data-schema-name')] = form.getElementsByTagName('*').length; });
  const display = document.querySelector('.agent-trace-display');
  const traceView = document.querySelector('section.ma-trace');
  const result = {
    ttfb: navigation.responseStart - navigation.requestStart, response_start: navigation.responseStart,
    response_end: navigation.responseEnd,
    dom_interactive: navigation.domInteractive, dcl: navigation.domContentLoadedEventStart,
    dcl_end: navigation.domContentLoadedEventEnd, instance_ready: bench.instanceReadyAt, ready, all_built: allBuilt,
    painted: Math.max(bench.paintedAt, bench.tracePaintedAt || 0), trace_ready: bench.traceRowsAt,
    page_mb: navigation.decodedBodySize / 1e6,
    nodes: document.getElementsByTagName('*').length, forms,
    display_nodes: display ? display.getElementsByTagName('*').length : 0,
    trace_nodes: traceView ? traceView.getElementsByTagName('*').length : 0};
  // the plugin's scripts and style sheets: their size, and what came over the network (0 from the cache)
  const plugin = performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/plugin-static/'));
  const kb = (entries, key) => entries.reduce((sum, entry) => sum + entry[key], 0) / 1024;
  result.plugin_js_kb = kb(plugin.filter((entry) => /[.]js([?]|$)/.test(entry.name)), 'decodedBodySize');
  result.plugin_css_kb = kb(plugin.filter((entry) => /[.]css([?]|$)/.test(entry.name)), 'decodedBodySize');
  result.plugin_fetched_kb = kb(plugin, 'transferSize');
  result.plugin_files = plugin.length;
  if (marks.length) {
    result.derive = bench.deriveMs.reduce((sum, ms) => sum + ms, 0);
    result.derive_runs = bench.deriveMs.length;
    result.ours_dcl = ours ? ours.end - ours.start : null;
    result.rerender = Math.max(...markTimes) - bench.instanceReadyAt;
  }
  return result;
}"""


@dataclass
class ScaleSide:
    """One page of the comparison at one size."""

    key: str
    spec: pages.PageSpec
    record: Dict[str, Any]
    display: Dict[str, Any]
    plugins: Sequence[str]
    interactions: Dict[str, browser.Interaction] = field(default_factory=dict)
    task: Any = None
    context: Any = None
    samples: List[Dict[str, Any]] = field(default_factory=list)
    failed_loads: List[str] = field(default_factory=list)
    error: Optional[str] = None


def our_schemes(entries: Sequence[Scenario], nested: bool) -> List[Dict[str, Any]]:
    schemes = [pages.ours_scheme(entry) for entry in entries]
    if nested:
        schemes = [{**scheme, "steps_key": "trace.steps", "calls_key": "trace.calls"} for scheme in schemes]
    return [RADIO, *schemes]


def sides_for(entries: Sequence[Scenario], record: Dict[str, Any], steps: int, prefix: str) -> List[ScaleSide]:
    marks = [f"multiagent:ready:{entry.scheme_name}" for entry in entries]
    interactions = {entry.widget: browser.Interaction(pages.form_selector(entry), entry.ours.action,
                                                      _expect(entry, record)) for entry in entries}

    def spec(key: str, schemes: List[Dict[str, Any]], page_marks: List[str],
             trace_view: bool = False) -> pages.PageSpec:
        return pages.PageSpec(f"scale {steps} {key}", schemes, marks=page_marks, trace_view=trace_view)

    return [
        ScaleSide("bare", spec("bare", [RADIO], []), record, TASK_DISPLAY, ()),
        ScaleSide("ours", spec("ours", our_schemes(entries, nested=False), marks), record, TASK_DISPLAY,
                  ("multiagent",), interactions),
        ScaleSide("ours_nested", spec("ours_nested", our_schemes(entries, nested=True), marks),
                  synth.nested_layout(record), TASK_DISPLAY, ("multiagent",)),
        ScaleSide("trace_view", spec("trace_view", [RADIO], [], trace_view=True), record, TRACE_VIEW_DISPLAY,
                  ("multiagent",)),
        ScaleSide("whole", spec("whole", our_schemes(entries, nested=False), marks, trace_view=True), record,
                  TRACE_VIEW_DISPLAY, ("multiagent",), interactions),
        ScaleSide("agent_trace", spec("agent_trace", [RADIO], []), record, AGENT_TRACE_DISPLAY, ()),
    ]


def _expect(entry: Scenario, record: Dict[str, Any]):
    return lambda value: entry.ours.expect(value, record)


# --------------------------------------------------------------------------- one load


def load_once(side: ScaleSide, chromium=None) -> Dict[str, Any]:
    """One measured load of the side's page; with `chromium`, under a performance trace."""
    page = side.context.new_page()
    try:
        errors: List[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.add_init_script(browser.probe_script(side.spec))
        trace, started = None, time.monotonic()
        for attempt in range(browser.LOGIN_ATTEMPTS):
            side.context.clear_cookies()
            browser.log_in(side.context, side.task.base_url, f"bench-{uuid.uuid4().hex[:12]}")
            if chromium is not None:
                chromium.start_tracing(page=page, categories=chrome_trace.CATEGORIES)
            started = time.monotonic()
            try:
                page.goto(f"{side.task.base_url}/annotate", wait_until="commit", timeout=LOAD_TIMEOUT_MS)
                landed = urlparse(page.url).path.endswith("/annotate")
                if landed or attempt == browser.LOGIN_ATTEMPTS - 1:
                    # (see browser.open_as_new_annotator: a lost session cookie lands elsewhere)
                    browser.wait_ready(page, side.spec, errors, LOAD_TIMEOUT_MS)
                    break
            finally:
                trace = chromium.stop_tracing() if chromium is not None else None
        sample = page.evaluate(LOAD_JS, {"marks": side.spec.marks, "inViewMark": IN_VIEW_MARK,
                                          "traceInViewMark": TRACE_IN_VIEW_MARK})
        sample["wall_s"] = time.monotonic() - started
        if trace is not None:
            sample["trace"] = chrome_trace.breakdown(trace, ANNOTATE_PATH)
            sample["trace_mb"] = len(trace) / 1e6
            trace_file(side.task.task_dir.parent, side.key, side.spec.slug).write_bytes(gzip.compress(trace))
        if side.interactions:
            sample["clicks"] = clicks(page, side.interactions)
        return sample
    finally:
        page.close()


def clicks(page, interactions: Dict[str, browser.Interaction]) -> Dict[str, Any]:
    """Each widget's interaction, ms to the stored value, or why it failed (a widget whose DOM
    changed under the scenario's selector fails alone)."""
    result: Dict[str, Any] = {}
    for widget, interaction in interactions.items():
        try:
            result[widget] = browser._interact(page, interaction)["click_value_ms"]
        except Exception as error:
            result[widget] = {"error": str(error).strip().splitlines()[0][:300]}
    return result


def trace_file(size_dir: Path, key: str, slug: str = "") -> Path:
    """Where a traced load's Chromium trace is kept (open it in DevTools' Performance panel)."""
    return size_dir / f"{slug or f'{size_dir.name}-{key}'}.trace.json.gz"


def refresh_breakdowns(done: Dict[str, Any], workdir: Path) -> None:
    """Recompute the traced loads' breakdowns of resumed sizes from their kept trace files, so
    that a resumed run reports what the current `chrome_trace` reads from them."""
    for steps, size in done.items():
        for key, side in size["sides"].items():
            path = trace_file(workdir / f"scale-{steps}", key)
            if "traced" in side and path.exists():
                side["traced"]["trace"] = chrome_trace.breakdown(gzip.decompress(path.read_bytes()), ANNOTATE_PATH)


# --------------------------------------------------------------------------- the page's bytes


INSTANCE_JSON = re.compile(r"data-instance-json='([^']*)'")
INSTANCE_DATA = re.compile(r'<script id="instance_data"\s+type="application/json">(.*?)</script>', re.S)


def page_bytes(side: ScaleSide) -> Dict[str, Any]:
    """The page Potato serves, fetched over HTTP as a new annotator: its size, its two copies of
    the record, and BeautifulSoup's `html.parser` over it in this process (CPU seconds)."""
    from bs4 import BeautifulSoup

    side.context.clear_cookies()
    browser.log_in(side.context, side.task.base_url, f"bench-bytes-{uuid.uuid4().hex[:12]}")
    started = time.monotonic()
    response = side.context.request.get(f"{side.task.base_url}/annotate", timeout=LOAD_TIMEOUT_MS)
    fetch_s = time.monotonic() - started
    html = response.text()
    attribute, script = INSTANCE_JSON.search(html), INSTANCE_DATA.search(html)
    cpu = time.process_time()
    BeautifulSoup(html, "html.parser")
    return {"page_mb": len(html.encode("utf-8")) / 1e6, "fetch_s": fetch_s,
            "instance_json_mb": len(attribute.group(1).encode("utf-8")) / 1e6 if attribute else 0.0,
            "instance_data_mb": len(script.group(1).encode("utf-8")) / 1e6 if script else 0.0,
            "soup_cpu_s": time.process_time() - cpu,
            "record_mb": len(json.dumps(side.record).encode("utf-8")) / 1e6}


# --------------------------------------------------------------------------- one size


def start(side: ScaleSide, chromium, workdir: Path, prefix: str, env: Optional[Mapping[str, str]] = None) -> None:
    """The side's task written and served (`env`: more environment for its server), and a browser
    context of its own; a server that does not start is the side's error, not the run's."""
    try:
        folder = pages.write_task(workdir / side.spec.slug, side.spec, side.record, prefix,
                                  instance_display=side.display, plugins=side.plugins)
        side.task = pages.start_server(folder, timeout=SERVER_START_TIMEOUT_S, env=env)
    except Exception as error:
        side.error = f"server did not start: {str(error).strip().splitlines()[0][:300]}"
        log(f"{side.spec.label}: {side.error}")
        return
    side.context = chromium.new_context()


def stop(sides: Sequence[ScaleSide]) -> None:
    """Close the sides' browser contexts and stop their servers."""
    for side in sides:
        if side.context is not None:
            side.context.close()
        if side.task is not None:
            side.task.stop()


def load(side: ScaleSide, keep: bool, chromium=None) -> Optional[Dict[str, Any]]:
    if side.error:
        return None
    try:
        sample = load_once(side, chromium)
    except Exception as error:
        side.failed_loads.append(str(error).strip().splitlines()[0][:300])
        log(f"{side.spec.label}: load failed: {side.failed_loads[-1]}")
        return None
    if keep:
        side.samples.append(sample)
    log(f"{side.spec.label}{' (traced)' if chromium else '' if keep else ' (warm-up)'}: "
        f"ready {sample['ready']:.0f} ms, ttfb {sample['ttfb']:.0f} ms, {sample['nodes']:,} elements")
    return sample


def summarise(side: ScaleSide, extra: Dict[str, Any]) -> Dict[str, Any]:
    if side.error or not side.samples:
        return {"error": side.error or (side.failed_loads[0] if side.failed_loads else "no load"), **extra}
    samples = side.samples
    result: Dict[str, Any] = {key: Summary.of([s[key] for s in samples if s.get(key) is not None]).to_dict()
                              for key in TIMED if any(s.get(key) is not None for s in samples)}
    result["page_mb"] = samples[-1]["page_mb"]
    result["nodes"] = Summary.of([s["nodes"] for s in samples]).to_dict()
    result["forms"] = {name: Summary.of([s["forms"].get(name, 0) for s in samples]).median
                       for name in samples[-1]["forms"]}
    result["display_nodes"] = samples[-1]["display_nodes"]
    result["trace_nodes"] = samples[-1].get("trace_nodes", 0)
    result["rounds"] = len(samples)
    if "clicks" in samples[0]:
        result["clicks"] = _click_summary(samples)
    return {**result, "failed_loads": side.failed_loads, **extra}


def _click_summary(samples: List[Dict[str, Any]]) -> Dict[str, Any]:
    summary: Dict[str, Any] = {}
    for widget in samples[0]["clicks"]:
        values = [s["clicks"][widget] for s in samples]
        timed = [value for value in values if not isinstance(value, dict)]
        summary[widget] = Summary.of(timed).to_dict() if timed else values[0]
    return summary


def agent_trace_rounds(steps: int, runs: int) -> int:
    """Measured rounds of `agent_trace` at this size: all at 5,000 steps and below, then 2, then 1
    (a load takes 40 s to 2 min at 20,000-50,000 steps on two busy cores)."""
    if steps <= 5_000:
        return runs
    return min(runs, 2 if steps <= 20_000 else 1)


def in_round(side: ScaleSide, steps: int, runs: int, round_number: Optional[int]) -> bool:
    """Whether the side is loaded in this round (None: the warm-up)."""
    if side.key != "agent_trace" or steps <= 5_000:
        return True
    return round_number is not None and round_number < agent_trace_rounds(steps, runs)


def measure_size(chromium, entries: Sequence[Scenario], steps: int, runs: int, warmup: int, traced: bool,
                 workdir: Path, prefix: str) -> Dict[str, Any]:
    load_at_start = machine.load_average()
    record = synth.scale_record(steps)
    sides = sides_for(entries, record, steps, prefix)
    extras: Dict[str, Dict[str, Any]] = {side.key: {} for side in sides}
    try:
        for side in sides:
            start(side, chromium, workdir, prefix)
        for side in sides:
            if not side.error:
                try:
                    extras[side.key]["bytes"] = page_bytes(side)
                except Exception as error:
                    extras[side.key]["bytes"] = {"error": str(error).strip().splitlines()[0][:300]}
        for _ in range(warmup):
            for side in sides:
                if in_round(side, steps, runs, None):
                    load(side, keep=False)
        for round_number in range(runs):
            log(f"{steps:,} steps: round {round_number + 1} of {runs}")
            for side in (sides if round_number % 2 == 0 else list(reversed(sides))):
                if in_round(side, steps, runs, round_number):
                    load(side, keep=True)
        if traced:
            for side in sides:
                if side.key == "agent_trace" and steps > 5_000:
                    continue
                sample = load(side, keep=False, chromium=chromium)
                if sample is not None:
                    extras[side.key]["traced"] = {key: value for key, value in sample.items() if key != "clicks"}
    finally:
        stop(sides)
    return {"steps": steps, "record_mb": len(json.dumps(record).encode("utf-8")) / 1e6,
            "load_average": [load_at_start, machine.load_average()],
            "sides": {side.key: summarise(side, extras[side.key]) for side in sides}}


def measure(entries: Sequence[Scenario], sizes: Sequence[int], runs: int, warmup: int, workdir: Path,
            prefix: str) -> Dict[str, Any]:
    """`{"sizes": {N: {...}}, "widgets": [...], "traced_at": N}`, resuming from the progress file."""
    progress_path = workdir / PROGRESS_FILE
    key = {"sizes": list(sizes), "runs": runs, "warmup": warmup, "widgets": [entry.widget for entry in entries],
           "sides": list(SIDES)}
    done: Dict[str, Any] = {}
    if progress_path.exists():
        saved = json.loads(progress_path.read_text(encoding="utf-8"))
        if saved.get("key") == key:
            done = saved["sizes"]
            log(f"scale: resuming, {', '.join(done) or 'no size'} already measured ({progress_path})")
            refresh_breakdowns(done, workdir)
    resumed = sorted(done, key=int)
    largest = max(sizes)
    with sync_playwright() as playwright:
        chromium = browser.launch(playwright)
        try:
            for steps in sizes:
                if str(steps) in done:
                    continue
                log(f"scale: {steps:,} steps, pages {', '.join(SIDES)}, {runs} round(s) after {warmup} warm-up")
                done[str(steps)] = measure_size(chromium, entries, steps, runs, warmup, steps == largest,
                                                workdir / f"scale-{steps}", prefix)
                progress_path.write_text(json.dumps({"key": key, "sizes": done}, indent=1), encoding="utf-8")
        finally:
            chromium.close()
    return {"sizes": done, "widgets": key["widgets"], "traced_at": largest, "resumed_sizes": resumed,
            "record": {"agents": len(synth.SCALE_AGENTS), "resources": len(synth.SCALE_RESOURCES),
                       "tool_call_every": synth.SCALE_TOOL_CALL_EVERY}}
