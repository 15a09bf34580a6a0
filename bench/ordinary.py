"""The ordinary case (issue 34): runs of the lengths people annotate, Potato's page against ours.

At each size (default 30, 200, 1,000 and 5,000 steps) one seeded record (`synth.scale_record`,
the record of the scale part) is served by three pages, each its own `potato start` and
`annotation_task_name` (`potato-ma-bench ordinary <N> <page>`):

- `bare`: Potato alone, one radio (no plugin), the record's one-line task shown;
- `seven`: the same radio and our seven types (the scenarios' schemes), plugin loaded;
- `init`: the page `potato-multiagent init` writes for such runs: its trace view and its schemes
  (`INIT_SCHEMES`: outcome and orchestration radios, attribution, interaction graph, handoffs,
  MAST), taken from `init_task`'s own `choose` and `build_config`, so the bench follows init.

Each page is loaded *warm* (one browser context per page, whose HTTP cache its warm-up load
filled: an annotator on their second item onward) and *cold* (a new browser context per load:
nothing cached, the first item). Rounds alternate the pages, the order reversed each round;
within a round each page is loaded warm, then cold. Per load (scale.py's probe, in ms since
navigation start): the phases server (request to first byte), transfer (first to last byte of the
HTML), parse (last byte to DOM interactive: the HTML parsed, its blocking scripts fetched and run),
scripts (DOM interactive to the end of the DOMContentLoaded listeners, where our widgets derive
and wire their forms), to Potato's `potato:instance-ready`, and from there to *ready* (what is in
view built: the latest of instance-ready, widget.js's `multiagent:in-view-ready` mark and the trace
view's last drawing of its rows); the derivation (derive.js, once per page) apart; and the bytes of
the plugin's scripts and style sheets the page loaded (decoded) and fetched over the network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Sequence

from playwright.sync_api import sync_playwright

from . import browser, log, machine, pages, scale, synth
from .scenarios import Scenario
from .stats import Summary

SIZES = (30, 200, 1_000, 5_000)
QUICK_SIZES = (30,)
PAGES = ("bare", "seven", "init")
PAGE_TITLES = {"bare": "Potato alone (a radio)", "seven": "+ our seven types",
               "init": "the page `init` writes (trace view + its schemes)"}
MODES = ("warm", "cold")
INIT_SCHEMES = ("outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "mast")
"""The schemes of init's page measured here: what init writes for a team's runs with handoffs
(the runs of Who&When); tool calls and contention are left out, as init leaves them out of runs
without them."""
PHASES = (("server", "server"), ("transfer", "transfer"), ("parse", "parse"), ("scripts", "scripts"),
          ("to_instance_ready", "to instance-ready"), ("in_view", "instance-ready to ready"))
TIMED = ("ready", "instance_ready", "painted", "derive", *(key for key, _title in PHASES))
BYTES = ("plugin_js_kb", "plugin_css_kb", "plugin_fetched_kb", "plugin_files")


def init_page(record: Dict[str, Any], steps: int) -> scale.ScaleSide:
    """The page `init` writes for this record, with the schemes of `INIT_SCHEMES`."""
    from potato_multiagent import init_task

    found = init_task.survey([record])
    choices = [choice for choice in init_task.choose(found) if choice.name in INIT_SCHEMES and choice.scheme]
    missing = set(INIT_SCHEMES) - {choice.name for choice in choices}
    if missing:
        raise RuntimeError(f"init does not write {sorted(missing)} for the bench's record")
    config = init_task.build_config("bench", found, choices, secret_key="bench")
    schemes = config["annotation_schemes"]
    marks = [f"multiagent:ready:{scheme['name']}" for scheme in schemes
             if scheme["annotation_type"].startswith("multiagent.")]
    spec = pages.PageSpec(f"ordinary {steps} init", schemes, marks=marks, trace_view=True)
    return scale.ScaleSide("init", spec, record, config["instance_display"], ("multiagent",))


def sides_for(entries: Sequence[Scenario], record: Dict[str, Any], steps: int) -> List[scale.ScaleSide]:
    marks = [f"multiagent:ready:{entry.scheme_name}" for entry in entries]
    bare = pages.PageSpec(f"ordinary {steps} bare", [scale.RADIO], [])
    seven = pages.PageSpec(f"ordinary {steps} seven", scale.our_schemes(entries, nested=False), marks)
    return [scale.ScaleSide("bare", bare, record, scale.TASK_DISPLAY, ()),
            scale.ScaleSide("seven", seven, record, scale.TASK_DISPLAY, ("multiagent",)),
            init_page(record, steps)]


def phases(sample: Dict[str, Any]) -> Dict[str, Any]:
    """The load's phases (ms), each from where the one before ends."""
    return {**sample, "server": sample["ttfb"], "transfer": sample["response_end"] - sample["response_start"],
            "parse": sample["dom_interactive"] - sample["response_end"],
            "scripts": sample["dcl_end"] - sample["dom_interactive"],
            "to_instance_ready": sample["instance_ready"] - sample["dcl_end"],
            "in_view": sample["ready"] - sample["instance_ready"]}


def load(side: scale.ScaleSide, chromium, mode: str, keep: bool, samples: Dict[str, List[Dict[str, Any]]]) -> None:
    """One load of the side's page: warm in its own context, cold in a new one."""
    warm_context = side.context
    if mode == "cold":
        side.context = chromium.new_context()
    try:
        sample = phases(scale.load_once(side))
    except Exception as error:
        side.failed_loads.append(f"{mode}: {str(error).strip().splitlines()[0][:300]}")
        log(f"{side.spec.label} {mode}: load failed: {side.failed_loads[-1]}")
        return
    finally:
        if mode == "cold":
            side.context.close()
            side.context = warm_context
    if keep:
        samples[mode].append(sample)
    log(f"{side.spec.label} {mode}{'' if keep else ' (warm-up)'}: ready {sample['ready']:.0f} ms, "
        f"plugin JS {sample['plugin_js_kb']:.0f} KB")


def summarise(side: scale.ScaleSide, samples: Dict[str, List[Dict[str, Any]]]) -> Dict[str, Any]:
    if side.error:
        return {"error": side.error}
    result: Dict[str, Any] = {"failed_loads": side.failed_loads}
    for mode in MODES:
        loads = samples[mode]
        if not loads:
            result[mode] = {"error": side.failed_loads[0] if side.failed_loads else "no load"}
            continue
        result[mode] = {key: Summary.of([s[key] for s in loads if s.get(key) is not None]).to_dict()
                        for key in (*TIMED, *BYTES) if any(s.get(key) is not None for s in loads)}
    return result


def measure_size(chromium, entries: Sequence[Scenario], steps: int, runs: int, warmup: int,
                 workdir: Path, prefix: str) -> Dict[str, Any]:
    load_at_start = machine.load_average()
    record = synth.scale_record(steps)
    sides = sides_for(entries, record, steps)
    samples = {side.key: {mode: [] for mode in MODES} for side in sides}
    try:
        for side in sides:
            scale.start(side, chromium, workdir, prefix)
        for _ in range(warmup):
            for side in sides:
                if not side.error:
                    load(side, chromium, "warm", False, samples[side.key])
        for round_number in range(runs):
            log(f"ordinary: {steps:,} steps, round {round_number + 1} of {runs}")
            for side in (sides if round_number % 2 == 0 else list(reversed(sides))):
                if not side.error:
                    for mode in MODES:
                        load(side, chromium, mode, True, samples[side.key])
    finally:
        scale.stop(sides)
    return {"steps": steps, "load_average": [load_at_start, machine.load_average()],
            "schemes": {side.key: [scheme["name"] for scheme in side.spec.schemes] for side in sides},
            "pages": {side.key: summarise(side, samples[side.key]) for side in sides}}


def bundle_sizes(entries: Sequence[Scenario], workdir: Path) -> List[Dict[str, Any]]:
    """The plugin's script and style sheet (KB) a page loads: before issue 34 every page loaded every
    file as written (the first row, the base of the ratios); now each loads its config's bundle,
    minified (served.config_bundle): everything, a page with one of our types (each type alone),
    the seven, and init's page."""
    from potato_multiagent import types
    from potato_multiagent.served import config_bundle, config_uses

    def written(suffix: str) -> float:
        folders = [types.WEB, *types.folders().values()]
        return sum(path.stat().st_size for folder in folders for path in folder.glob(f"*{suffix}")) / 1024

    def sizes(uses) -> Dict[str, float]:
        bundle = config_bundle(types.PACKAGE, types.folders(), uses, cache=workdir / "bundles")
        return {"js_kb": (bundle.folder / bundle.script).stat().st_size / 1024,
                "css_kb": (bundle.folder / bundle.style).stat().st_size / 1024}

    init = init_page(synth.scale_record(30), 30)
    pages_used = [("every type and the trace view, minified", None),
                  *((f"`{entry.widget}` alone", config_uses({"annotation_schemes": [pages.ours_scheme(entry)]}))
                    for entry in entries),
                  ("the seven types", config_uses({"annotation_schemes": scale.our_schemes(entries, nested=False)})),
                  ("init's page", config_uses({"annotation_schemes": init.spec.schemes,
                                               "instance_display": init.display}))]
    before = {"page": "every file as written (every page before issue 34)",
              "js_kb": written(".js"), "css_kb": written(".css")}
    return [before, *({"page": title, **sizes(uses)} for title, uses in pages_used)]


def measure(entries: Sequence[Scenario], sizes: Sequence[int], runs: int, warmup: int, workdir: Path,
            prefix: str) -> Dict[str, Any]:
    """`{"sizes": {N: {...}}, "runs": runs}`: every size's pages, warm and cold. At least one
    warm-up load (also under `--quick`): a warm load is one whose cache a load before it filled."""
    warmup = max(warmup, 1)
    done: Dict[str, Any] = {}
    with sync_playwright() as playwright:
        chromium = browser.launch(playwright)
        try:
            for steps in sizes:
                log(f"ordinary: {steps:,} steps, pages {', '.join(PAGES)}, {runs} round(s) after {warmup} warm-up")
                done[str(steps)] = measure_size(chromium, entries, steps, runs, warmup,
                                                workdir / f"ordinary-{steps}", prefix)
        finally:
            chromium.close()
    return {"sizes": done, "runs": runs, "warmup": warmup, "widgets": [entry.widget for entry in entries],
            "bundles": bundle_sizes(entries, workdir)}

