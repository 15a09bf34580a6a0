"""`bench/RESULTS.md` from the results of one run: machine, versions, tables, targets."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence

NOT_PRESENT = "not measured (type not present)"
WIDGET_READY_MS = 300
CONTENTION_READY_MS = 500
SPEEDUP = 10
ALL_READY_MS = 1500
CLICK_MS = 50
DERIVE_TARGET_SIZE = 10_000
PYTHON_DERIVE_MS = 100
NODE_DERIVE_MS = 50
CHECK_S = 10
ABOUT_LINEAR = 1.2  # the log-log slope of n log n over 1k-50k is 1.11; quadratic is 2
OURS_OVER_BARE = 1.2   # issue 18: the page with our widgets against Potato's bare page, ready
WHOLE_OVER_BARE = 1.5  # issue 18: trace view + our widgets against the bare page
BOUNDED = 1.1          # issue 18: a form's elements at the largest size within this of the smallest


# --------------------------------------------------------------------------- formatting


def number(value: float) -> str:
    return f"{value:,.1f}" if abs(value) < 10 else f"{value:,.0f}"


def spread(summary: Optional[Dict[str, float]]) -> str:
    """`median (min-max)`."""
    if not summary:
        return "—"
    if summary["runs"] == 1:
        return number(summary["median"])
    return f"{number(summary['median'])} ({number(summary['min'])}–{number(summary['max'])})"


def ratio(numerator: Optional[float], denominator: Optional[float]) -> str:
    if numerator is None or not denominator:
        return "—"
    return f"{numerator / denominator:,.1f}×"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> List[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def median(side: Optional[Dict[str, Any]], key: str) -> Optional[float]:
    if not side or "error" in side or key not in side:
        return None
    return side[key]["median"]


def cell(side: Optional[Dict[str, Any]], key: str) -> str:
    """A side's `median (min-max)` for `key`, or why there is none."""
    if side is None:
        return NOT_PRESENT
    if "error" in side:
        return f"failed: {side['error']}"
    return spread(side.get(key))


# --------------------------------------------------------------------------- targets


def verdict(met: bool) -> str:
    return "met" if met else "**missed**"


def ready_target(widget: str) -> float:
    return CONTENTION_READY_MS if widget == "tool_contention" else WIDGET_READY_MS


def type_targets(widget: str, ours: Optional[Dict[str, Any]], builtin: Dict[str, Any]) -> List[List[str]]:
    """Ready, speed-up and click-to-value of one type; one row saying why when ours is missing."""
    own, builtin_own, click = median(ours, "own"), median(builtin, "own"), median(ours, "click_value_ms")
    if own is None:
        reason = NOT_PRESENT if ours is None else f"failed: {ours['error']}"
        return [[f"{widget}: every target", reason, reason]]
    limit = CONTENTION_READY_MS if widget == "tool_contention" else WIDGET_READY_MS
    rows = [[f"{widget}: ready in under {limit} ms", f"{number(own)} ms", verdict(own < limit)]]
    speedup = f"{widget}: at least {SPEEDUP}× faster than the built-in"
    if builtin_own is None:
        rows.append([speedup, cell(builtin, "own"), "—"])
    else:
        rows.append([speedup, f"{ratio(builtin_own, own)} ({number(builtin_own)} ms vs {number(own)} ms)",
                     verdict(builtin_own / own >= SPEEDUP)])
    rows.append([f"{widget}: click-to-value under {CLICK_MS} ms",
                 f"{number(click)} ms" if click is not None else cell(ours, "click_value_ms"),
                 verdict(click is not None and click < CLICK_MS)])
    return rows


def all_page_target(everything: Dict[str, Any]) -> List[str]:
    label = f"page with all seven ready in under {ALL_READY_MS / 1000:.1f} s"
    own, types = median(everything["ours"], "own"), len(everything["ours_types"])
    if own is None:
        return [label, cell(everything["ours"], "own"), "—"]
    if types < 7:
        return [label, f"{number(own)} ms with {types} of 7 types", f"not measured (the page has {types} of 7 types)"]
    return [label, f"{number(own)} ms", verdict(own < ALL_READY_MS)]


def page_targets(pages: Dict[str, Any]) -> List[List[str]]:
    rows = [row for widget, sides in pages["types"].items()
            for row in type_targets(widget, sides["ours"], sides["builtin"])]
    if pages.get("all"):
        rows.append(all_page_target(pages["all"]))
    return rows


def derive_targets(derive: Dict[str, Any]) -> List[List[str]]:
    rows = []
    for language, limit in (("python", PYTHON_DERIVE_MS), ("node", NODE_DERIVE_MS)):
        for family, what in (("full", f"with {DERIVE_TARGET_SIZE:,} timed calls"), ("steps", "steps alone")):
            sizes = derive[language][family]["sizes"]
            if DERIVE_TARGET_SIZE in sizes:
                took = sizes[DERIVE_TARGET_SIZE]["median"]
                rows.append([f"{language} derive of {DERIVE_TARGET_SIZE:,} steps ({what}) under {limit} ms",
                             f"{number(took)} ms", verdict(took < limit)])
        for family in ("full", "steps"):
            exponent = derive[language][family]["exponent"]
            rows.append([f"{language} derive ({family}) grows about linearly",
                         f"exponent {exponent:.2f}", verdict(exponent <= ABOUT_LINEAR)])
        exponent = derive[language]["contention"]["n_log_n_exponent"]
        rows.append([f"{language} contention grows about as n log n",
                     f"exponent of t / log n: {exponent:.2f}", verdict(exponent <= ABOUT_LINEAR)])
    return rows


def check_targets(check: Dict[str, Any]) -> List[List[str]]:
    took = check["cpu_s"]["median"]
    values = check["task"]["values"]
    return [[f"`check` of {values:,} values under {CHECK_S} s", f"{took:.1f} s CPU ({check['wall_s']['median']:.1f} s wall)",
             verdict(took < CHECK_S and check["exit_code"] == 0)]]


# --------------------------------------------------------------------------- sections


def machine_section(results: Dict[str, Any]) -> List[str]:
    machine = results["machine"]
    settings = results["settings"]
    rows = [[key, value] for key, value in machine.items()]
    rows.append(["load average (1/5/15 min) at start; at end", f"{results['load']['start']}; {results['load']['end']}"])
    rows.append(["runs", f"{settings['runs']} measured after {settings['warmup']} warm-up, medians shown with (min–max)"])
    return ["## Machine and versions", "", *table(["", ""], rows), ""]


def record_section(results: Dict[str, Any]) -> List[str]:
    counts = results["record"]["counts"]
    items = results["record"]["builtin_items"]
    lines = ["## The record", "",
             f"One seeded synthetic record (`bench/synth.py`): {counts['steps']:,} steps by {counts['agents']} agents "
             f"with {counts['handoffs']:,} handoffs, {counts['tool_calls']:,} tool calls in every shape and "
             f"{counts['calls']:,} timed calls on shared resources, which make {counts['contentions']:,} contention "
             "regions. What each built-in builds from it (its own rules, defects included):", ""]
    lines += table(["built-in", "items built", "counted as"],
                   [[widget, f"{count:,}", f"`{selector}`"] for widget, (count, selector) in items.items()])
    return lines + [""]


def _work_row(name: str, ours: Optional[Dict[str, Any]], builtin: Dict[str, Any]) -> List[str]:
    return [name, cell(ours, "own"), cell(ours, "derive"), cell(builtin, "own"),
            ratio(median(builtin, "own"), median(ours, "own")), cell(ours, "frame"), cell(builtin, "frame"),
            ratio(median(builtin, "work"), median(ours, "work"))]


def _navigation_row(name: str, ours: Optional[Dict[str, Any]], builtin: Dict[str, Any]) -> List[str]:
    return [name, cell(ours, "dcl"), cell(builtin, "dcl"), cell(ours, "ready"), cell(builtin, "ready"),
            cell(ours, "painted"), cell(builtin, "painted"), ratio(median(builtin, "painted"), median(ours, "painted"))]


def _pages(pages: Dict[str, Any]) -> List[tuple]:
    """(name, ours, built-in) per type, then the page with all of them."""
    rows = [(widget, sides["ours"], sides["builtin"]) for widget, sides in pages["types"].items()]
    everything = pages.get("all")
    if everything:
        rows.append((f"all on one page (ours: {len(everything['ours_types'])} of 7 types; built-in: "
                     f"{len(everything['builtin_types'])} of 7)", everything["ours"], everything["builtin"]))
    return rows


def ready_section(pages: Dict[str, Any], steps: int) -> List[str]:
    work_header = ["type", "ours: own", "ours: of which derive", "built-in: own", "built-in / ours",
                   "ours: first frame", "built-in: first frame", "built-in / ours (own + first frame)"]
    navigation_header = ["type", "ours: DOMContentLoaded", "built-in: DOMContentLoaded", "ours: ready",
                         "built-in: ready", "ours: painted", "built-in: painted", "built-in / ours (painted)"]
    return [f"## Ready at {steps:,} steps (ms)", "",
            "The widgets' own work: *own* is their script until ready (for ours including the derivation, "
            "derive.js, run once per page and shared by our widgets, shown apart); *first frame* is the frame "
            "that lays out and paints what they built, once Potato shows the item.", "",
            *table(work_header, [_work_row(*row) for row in _pages(pages)]), "",
            "The same loads counted from navigation start (Potato's page, the same on both sides, included):", "",
            *table(navigation_header, [_navigation_row(*row) for row in _pages(pages)]), "",
            *failed_loads(pages), ""]


def failed_loads(pages: Dict[str, Any]) -> List[str]:
    """A line per page with loads that failed (its figures come from the others)."""
    sides = [side for sides in pages["types"].values() for side in (sides["ours"], sides["builtin"])]
    if pages.get("all"):
        sides += [pages["all"]["ours"], pages["all"]["builtin"]]
    return [f"- {side['label']}: {len(side['failed_loads'])} load(s) failed and are left out "
            f"({side['failed_loads'][0]})" for side in sides if side and side.get("failed_loads")]


def click_section(pages: Dict[str, Any], steps: int) -> List[str]:
    rows = []
    for widget, sides in pages["types"].items():
        ours, builtin = sides["ours"], sides["builtin"]
        rows.append([widget, cell(ours, "click_value_ms"), cell(builtin, "click_value_ms"),
                     cell(ours, "click_frame_ms"), cell(builtin, "click_frame_ms"),
                     ratio(median(builtin, "click_frame_ms"), median(ours, "click_frame_ms"))])
    header = ["type", "ours: value", "built-in: value", "ours: next frame", "built-in: next frame",
              "built-in / ours (next frame)"]
    return [f"## Click-to-value at {steps:,} steps (ms)", "", *table(header, rows), ""]


def memory_section(pages: Dict[str, Any], steps: int) -> List[str]:
    rows = []
    entries = list(pages["types"].items())
    if pages.get("all"):
        entries.append(("all on one page", pages["all"]))
    for widget, sides in entries:
        ours, builtin = sides["ours"], sides["builtin"]
        rows.append([widget, cell(ours, "heap_mb"), cell(builtin, "heap_mb"),
                     cell(ours, "nodes"), cell(builtin, "nodes"),
                     ratio(median(builtin, "nodes"), median(ours, "nodes"))])
    header = ["type", "ours: JS heap (MB)", "built-in: JS heap (MB)", "ours: DOM elements", "built-in: DOM elements",
              "built-in / ours (DOM)"]
    return [f"## JS heap and DOM after render at {steps:,} steps", "",
            "Heap: `Runtime.getHeapUsage` after a forced garbage collection. DOM: "
            "`document.getElementsByTagName('*').length` (the whole page).", "",
            *table(header, rows), ""]


def _at_size(by_size: Dict[Any, Any], size: int) -> Any:
    """A figure by its size: an int key in a run's results, a string one once kept in JSON (`--keep`)."""
    return by_size[size] if size in by_size else by_size[str(size)]


def derive_section(derive: Dict[str, Any]) -> List[str]:
    lines = ["## Derivation time (ms, CPU)", "",
             "`full`: N steps and N timed calls; `steps`: the steps alone; `contention`: the N timed calls "
             "alone. CPU time of the deriving thread, median (min–max); wall-clock median in the last "
             "column of each language.", ""]
    header = ["family", "N", "python", "python wall", "node", "node wall"]
    rows = []
    for family in derive["python"]:
        for size in derive["sizes"]:
            python = _at_size(derive["python"][family]["sizes"], size)
            node = _at_size(derive["node"][family]["sizes"], size)
            rows.append([family, f"{size:,}", spread(python), number(python["wall_median"]),
                         spread(node), number(node["wall_median"])])
    lines += table(header, rows)
    lines += ["", *table(["family", "python exponent", "node exponent", "python exponent of t / log n",
                          "node exponent of t / log n"],
                         [[family, f"{derive['python'][family]['exponent']:.2f}", f"{derive['node'][family]['exponent']:.2f}",
                           f"{derive['python'][family]['n_log_n_exponent']:.2f}",
                           f"{derive['node'][family]['n_log_n_exponent']:.2f}"]
                          for family in derive["python"]]), ""]
    return lines


def check_section(check: Dict[str, Any]) -> List[str]:
    task = check["task"]
    return ["## `potato-multiagent check` throughput", "",
            f"A task of {task['instances']} records of {task['steps']} steps, {task['schemes']} schemes "
            f"({', '.join(check['types'])}) and {task['users']} annotators: {task['values']:,} saved values, "
            "all valid. One new process per run, as a user runs it.", "",
            *table(["values", "CPU (s)", "wall (s)", "values per CPU second", "exit code", "its summary line"],
                   [[f"{task['values']:,}", spread(check["cpu_s"]), spread(check["wall_s"]),
                     f"{check['values_per_s']:,.0f}", str(check["exit_code"]), check["summary"]]]), ""]


HOW_TO_READ = """## How to read

- Every page is a real `potato start` serving one record, drawn by headless Debian Chromium; ours
  and the built-in differ only in the scheme (same record, same `instance_display`, the plugin
  loaded on both). Their loads alternate in one run, so the ratios hold even when the machine is
  busy; absolute times on a busy machine are longer than on an idle one.
- **own**: the widget's own work. Ours: from the start of `widget.js`'s DOMContentLoaded listener
  to the last `multiagent:ready:<schema>` mark (derivation included). Built-in: the run time of
  its DOMContentLoaded listener (it builds everything there; its items are counted to confirm).
  The page before DOMContentLoaded (Potato's server and HTML, the same for both) is excluded,
  and so are Potato's own listeners, which run between the built-ins' and ours. The per-widget
  targets are judged on this figure.
- **first frame**: from Potato showing the item (`#main-content` displayed, then
  `potato:instance-ready`, on which our widgets render again from the hidden input) to the end of
  the next frame after both, which lays out and paints what the widgets built. A built-in that
  builds tens of thousands of elements pays much of its cost here.
- **ready**: the same moment as *own*'s end, counted from navigation start; **painted**: the end
  of the first frame, from navigation start. Both include Potato's page (server, HTML, its
  scripts), which is the same on both sides and most of the time at 5,000 steps.
- **Click-to-value**: one interaction dispatched in the page (a click, or a choice in a select);
  *value* is when the hidden input holds the new value, *next frame* when the page has drawn it.
- Derivation times are CPU time, which other processes do not inflate; wall-clock is beside them.
- How the page is kept cheap, and where the remaining cost is: `docs/performance.md`.
"""


def render(results: Dict[str, Any]) -> str:
    lines = ["# Benchmark results", "",
             f"Generated by `{results['command']}` on {results['generated']} in {results['duration_s'] / 60:.1f} min. "
             "Do not edit: run the command again (see `bench/README.md`).", ""]
    for part, origin in (results.get("from_run") or {}).items():
        lines += [f"The part *{part}* is kept from the run `{origin['command']}` of {origin['generated']} "
                  "(`--keep`): the machine and settings below are this run's.", ""]
    lines += machine_section(results)
    targets: List[List[str]] = []
    if results.get("pages"):
        targets += page_targets(results["pages"])
    if results.get("derive"):
        targets += derive_targets(results["derive"])
    if results.get("check"):
        targets += check_targets(results["check"])
    lines += ["## Targets (issue 7)", "", *table(["target", "measured (median)", "verdict"], targets), ""]
    if results.get("pages"):
        lines += record_section(results)
        steps = results["record"]["counts"]["steps"]
        lines += ready_section(results["pages"], steps)
        lines += click_section(results["pages"], steps)
        lines += memory_section(results["pages"], steps)
    if results.get("ordinary"):
        lines += ordinary_section(results["ordinary"])
    if results.get("floor"):
        lines += floor_section(results["floor"])
    if results.get("derive"):
        lines += derive_section(results["derive"])
    if results.get("check"):
        lines += check_section(results["check"])
    if results.get("scale"):
        lines += scale_section(results["scale"])
    lines.append(HOW_TO_READ)
    return "\n".join(lines)


# --------------------------------------------------------------------------- the ordinary case (issue 34)

ORDINARY_PAGES = [("bare", "Potato alone (a radio)"), ("seven", "+ our seven types"),
                  ("init", "the page `init` writes")]
ORDINARY_PHASES = [("server", "server"), ("transfer", "transfer"), ("parse", "parse"), ("scripts", "scripts"),
                   ("to_instance_ready", "to instance-ready"), ("in_view", "to ready"), ("derive", "of which derive")]
ORDINARY_WARM, ORDINARY_COLD = 1.2, 1.5   # issue 34: ready within these of Potato's page, warm and cold


def _ordinary_sizes(ordinary: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [ordinary["sizes"][key] for key in sorted(ordinary["sizes"], key=int)]


def _mode(size: Dict[str, Any], page: str, mode: str) -> Optional[Dict[str, Any]]:
    side = size["pages"].get(page) or {}
    found = side.get(mode) if "error" not in side else None
    return None if not found or "error" in found else found


def ordinary_ready_rows(ordinary: Dict[str, Any]) -> List[List[str]]:
    rows = []
    for size in _ordinary_sizes(ordinary):
        for mode in ("warm", "cold"):
            bare = median(_mode(size, "bare", mode), "ready")
            row = [f"{size['steps']:,}", mode, spread((_mode(size, "bare", mode) or {}).get("ready"))]
            for page in ("seven", "init"):
                found = _mode(size, page, mode)
                row += [spread((found or {}).get("ready")), ratio(median(found, "ready"), bare)]
            rows.append(row)
    return rows


def ordinary_targets(ordinary: Dict[str, Any]) -> List[List[str]]:
    rows = []
    for size in _ordinary_sizes(ordinary):
        for mode, bound in (("warm", ORDINARY_WARM), ("cold", ORDINARY_COLD)):
            bare = median(_mode(size, "bare", mode), "ready")
            for page, title in ORDINARY_PAGES[1:]:
                ours = median(_mode(size, page, mode), "ready")
                if ours is None or not bare:
                    rows.append([f"{title}, {size['steps']:,} steps, {mode}: within {bound}× of Potato's", "—",
                                 "not measured"])
                    continue
                rows.append([f"{title}, {size['steps']:,} steps, {mode}: ready within {bound}× of Potato's",
                             f"{ours / bare:.2f}× ({number(ours)} vs {number(bare)} ms)", verdict(ours <= bound * bare)])
    return rows


def ordinary_phase_rows(ordinary: Dict[str, Any], mode: str) -> List[List[str]]:
    rows = []
    for size in _ordinary_sizes(ordinary):
        for page, title in ORDINARY_PAGES:
            found = _mode(size, page, mode)
            rows.append([f"{size['steps']:,}", title,
                         *(number(median(found, key)) if median(found, key) is not None else "—"
                           for key, _title in ORDINARY_PHASES), cell(found, "ready") if found else "—"])
    return rows


def ordinary_byte_rows(ordinary: Dict[str, Any]) -> List[List[str]]:
    size = _ordinary_sizes(ordinary)[0]
    rows = []
    for page, title in ORDINARY_PAGES:
        warm, cold = _mode(size, page, "warm"), _mode(size, page, "cold")
        files = median(cold, "plugin_files")
        rows.append([title, "—" if files is None else f"{files:.0f}",
                     *(number(median(cold, key)) if median(cold, key) is not None else "—"
                       for key in ("plugin_js_kb", "plugin_css_kb", "plugin_fetched_kb")),
                     number(median(warm, "plugin_fetched_kb")) if median(warm, "plugin_fetched_kb") is not None else "—"])
    return rows


def ordinary_bundle_rows(ordinary: Dict[str, Any]) -> List[List[str]]:
    bundles = ordinary.get("bundles") or []
    if not bundles:
        return []
    before = bundles[0]["js_kb"] + bundles[0]["css_kb"]
    return [[row["page"], number(row["js_kb"]), number(row["css_kb"]), number(row["js_kb"] + row["css_kb"]),
             f"{(row['js_kb'] + row['css_kb']) / before:.2f}"] for row in bundles]


def ordinary_potato_part(ordinary: Dict[str, Any]) -> str:
    """Issue 34 item 3: the parts of the gap that Potato's page sets, as measured here (warm medians)."""
    waits, renders = [], []
    for size in _ordinary_sizes(ordinary):
        bare = _mode(size, "bare", "warm")
        wait = median(bare, "to_instance_ready")
        if wait is not None:
            waits.append(wait)
        extra = [median(_mode(size, page, "warm"), "server") for page in ("seven", "init")]
        if median(bare, "server") is not None and all(value is not None for value in extra):
            renders += [value - median(bare, "server") for value in extra]
    if not waits:
        return ""
    said = (f"Of Potato's own page: it keeps the item hidden, resets and restores the answers and waits for the "
            f"item's spans between the end of its DOMContentLoaded listeners and `potato:instance-ready`, "
            f"{number(min(waits))}–{number(max(waits))} ms on its page alone (warm); no widget in view can be built "
            "in that time (its answer is restored after it, and nothing hidden can be measured), so every page "
            "of ours adds its in-view work after it.")
    if renders:
        said += (f" Potato's server renders our pages {number(min(renders))}–{number(max(renders))} ms slower than "
                 "its own (*server* above), most of it in the BeautifulSoup parse and re-serialisation of the whole "
                 "page it runs on every render, which grows with our forms' markup.")
    return said + " `docs/performance.md` names the change to Potato that would remove each."


def ordinary_section(ordinary: Dict[str, Any]) -> List[str]:
    sizes = _ordinary_sizes(ordinary)
    potato_part = ordinary_potato_part(ordinary)
    loads = "; ".join(f"{size['steps']:,} steps: {size['load_average'][0]} → {size['load_average'][1]}"
                      for size in sizes)
    steps = ", ".join(f"{size['steps']:,}" for size in sizes)
    init_schemes = ", ".join(f"`{name}`" for name in sizes[0]["schemes"]["init"])
    failed = [f"- {size['steps']:,} steps, {page}: {message}" for size in sizes
              for page, side in size["pages"].items() for message in side.get("failed_loads", [])]
    return ["## The ordinary case: Potato's page against ours (issue 34)", "",
            f"The record of the scale part (`synth.scale_record`) at {steps} "
            "steps, served by three pages: Potato alone with one radio; the same radio with our seven types; the page "
            f"`potato-multiagent init` writes ({init_schemes}, and its "
            "trace view). *Warm*: the page's browser context, its HTTP cache filled by a warm-up load (an annotator's "
            "second item onward); *cold*: a new context per load. "
            f"{ordinary['runs']} round(s) after {ordinary['warmup']} warm-up, the pages alternating, the order reversed "
            "each round; medians (min–max). *Ready*: the latest of `potato:instance-ready`, our in-view mark and the "
            "trace view's (its rows in sight drawn), ms since navigation start.", "",
            *table(["target", "measured (median)", "verdict"], ordinary_targets(ordinary)), "",
            "### Ready, and its ratio to Potato's page", "",
            *table(["steps", "cache", "Potato alone", "+ seven types", "ratio", "init's page", "ratio"],
                   ordinary_ready_rows(ordinary)), "",
            "### Where the time goes, warm (ms, medians; each phase from where the one before ends)", "",
            "*server*: request to first byte (Potato renders the page); *transfer*: the HTML's first to last byte; "
            "*parse*: to DOM interactive (the HTML parsed, blocking scripts fetched and run); *scripts*: to the end of "
            "the DOMContentLoaded listeners (our derivation and forms wired); *to instance-ready*: Potato's "
            "`potato:instance-ready`; *to ready*: what is in view built and the trace view's rows in sight drawn; *of which "
            "derive*: derive.js, once per page, inside the phases before it.", "",
            *table(["steps", "page", *(title for _key, title in ORDINARY_PHASES), "ready"],
                   ordinary_phase_rows(ordinary, "warm")), "",
            "### Where the time goes, cold (ms, medians)", "",
            *table(["steps", "page", *(title for _key, title in ORDINARY_PHASES), "ready"],
                   ordinary_phase_rows(ordinary, "cold")), "",
            *([potato_part, ""] if potato_part else []),
            f"### The plugin's files a page loads ({sizes[0]['steps']:,} steps; KB, decoded)", "",
            *table(["page", "files", "JS", "CSS", "fetched, cold", "fetched, warm"], ordinary_byte_rows(ordinary)),
            "", "### The plugin's script and style sheet by page (KB; the bundle of what the config uses)", "",
            *table(["page", "JS", "CSS", "JS + CSS", "of every page's before issue 34"], ordinary_bundle_rows(ordinary)),
            "", f"Load average (1 / 5 / 15 min) at each size's start → end: {loads}.", "",
            *(["Loads that failed (not counted):", "", *failed, ""] if failed else [])]


FLOOR_PAGES = ("bare", "markup", "inert", "derive", "full")   # bench/floor.py's pages, each adding one part


def floor_rows(floor: Dict[str, Any]) -> List[List[str]]:
    rows = []
    for key in sorted(floor["sizes"], key=int):
        size = floor["sizes"][key]
        rows.append([f"{size['steps']:,}", *(f"{size['summary'][page]['paired_ratio']:.2f}× "
                                             f"({number(size['summary'][page]['ready'])})" for page in FLOOR_PAGES)])
    return rows


def floor_said(floor: Dict[str, Any]) -> str:
    """What the split says of issue 34's target, from the run's figures."""
    sizes = [floor["sizes"][key]["summary"] for key in sorted(floor["sizes"], key=int)]
    before = [size["derive"]["paired_ratio"] for size in sizes]
    added = [size["full"]["paired_ratio"] - size["derive"]["paired_ratio"] for size in sizes]
    above = sum(1 for ratio in before if ratio > ORDINARY_WARM)
    return (f"Before any widget is built (the record read and derived) the page is at {min(before):.2f}–"
            f"{max(before):.2f}× of Potato's at these sizes, above issue 34's {ORDINARY_WARM}× warm target at "
            f"{above} of {len(before)}; building what is in view adds {min(added):+.2f} to {max(added):+.2f}×. "
            "None of the parts before it depends on how widgets are built: the forms are Potato forms and the "
            "derivation runs in the browser (SPEC §6); `docs/performance.md` names the changes to Potato that "
            "would remove Potato's share (its server's re-parse of every page, the wait before it shows the item).")


def floor_section(floor: Dict[str, Any]) -> List[str]:
    loads = "; ".join(f"{size['steps']:,} steps: {size['load_average'][0]} → {size['load_average'][1]}"
                      for size in (floor["sizes"][key] for key in sorted(floor["sizes"], key=int)))
    return ["### Before any widget is built: the page with our types by part (`bench.floor`)", "",
            "Five pages of the same record, each its own `potato start`, each adding one part to the one before: "
            + "; ".join(f"*{page}*: {floor['pages'][page]}" for page in FLOOR_PAGES) + ". "
            f"Loaded in turn as new annotators, warm, {floor['rounds']} round(s) after one load each, the order "
            "reversed each round; *ready* as above. Each cell: the median of the round's ratio to Potato's page "
            "(ms: the median of *ready*).", "",
            *table(["steps", *(f"*{page}*" for page in FLOOR_PAGES)], floor_rows(floor)), "",
            floor_said(floor), "",
            f"Load average (1 / 5 / 15 min) at each size's start → end: {loads}.", ""]


# --------------------------------------------------------------------------- page readiness by length


SCALE_SIDES = [("bare", "Potato alone (a radio)"), ("ours", "+ our widgets"),
               ("ours_nested", "+ our widgets, record under `trace`"), ("trace_view", "our trace view alone"),
               ("whole", "our trace view + our widgets"), ("agent_trace", "Potato's `agent_trace` alone")]
WIDGET_SIDES = ("ours", "ours_nested")
DISPLAY_SIDES = ("trace_view", "whole", "agent_trace")
TRACE_PARTS = [("parse_html", "HTML parse (main thread)"), ("script", "script"), ("style", "style"),
               ("layout", "layout"), ("paint", "paint, layers, commit"), ("gc", "garbage collection"),
               ("other", "task time not attributed"), ("busy", "main thread busy, in all")]


def _seconds(value: Optional[float]) -> str:
    return "—" if value is None else f"{value / 1000:,.2f} s"


def _spread_s(side: Dict[str, Any], key: str) -> str:
    """`median (min-max)` in seconds, or the side's error."""
    if "error" in side:
        return f"failed: {side['error'][:120]}"
    summary = side.get(key)
    if not summary:
        return "—"
    if summary["runs"] == 1:
        return _seconds(summary["median"])
    return f"{summary['median'] / 1000:,.2f} s ({summary['min'] / 1000:,.2f}–{summary['max'] / 1000:,.2f})"


def _sizes(scale: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [scale["sizes"][key] for key in sorted(scale["sizes"], key=int)]


def _side(size: Dict[str, Any], name: str) -> Dict[str, Any]:
    """A side of a size, or an error side for sizes measured before the side existed."""
    return size["sides"].get(name) or {"error": "not measured in this run"}


def scale_ready_rows(scale: Dict[str, Any], key: str, names: Sequence[str]) -> List[List[str]]:
    rows = []
    for size in _sizes(scale):
        bare = median(_side(size, "bare"), key)
        row = [f"{size['steps']:,}", f"{size['record_mb']:.1f}", _spread_s(_side(size, "bare"), key)]
        for name in names:
            side = _side(size, name)
            rounds = f" [{side['rounds']} load(s)]" if side.get("rounds") not in (None, _side(size, "bare").get("rounds")) else ""
            row += [_spread_s(side, key) + rounds, ratio(median(side, key), bare)]
        if "agent_trace" in names and "trace_view" in names:
            row.append(ratio(median(_side(size, "agent_trace"), key), median(_side(size, "trace_view"), key)))
        rows.append(row)
    return rows


def _ready_header(names: Sequence[str]) -> List[str]:
    titles = dict(SCALE_SIDES)
    header = ["steps", "record (MB)", titles["bare"]]
    for name in names:
        header += [titles[name], "ratio"]
    if "agent_trace" in names and "trace_view" in names:
        header.append("`agent_trace` / trace view")
    return header


def scale_targets(scale: Dict[str, Any]) -> List[List[str]]:
    """Issue 18's targets, each with its measured figure and a verdict."""
    sizes = _sizes(scale)
    rows = []
    for name, limit, what in (("ours", OURS_OVER_BARE, "the page with our widgets"),
                              ("whole", WHOLE_OVER_BARE, "the page with the trace view and our widgets")):
        for size in sizes:
            ours, bare = median(_side(size, name), "ready"), median(_side(size, "bare"), "ready")
            if ours is None or bare is None:
                continue
            rows.append([f"{what} ready within {limit}× of Potato's bare page at {size['steps']:,} steps",
                         f"{ours / bare:.2f}× ({_seconds(ours)} vs {_seconds(bare)}){_all_built_note(size, name)}",
                         verdict(ours / bare <= limit)])
    largest = sizes[-1] if sizes else None
    if largest:
        view, theirs = median(_side(largest, "trace_view"), "ready"), median(_side(largest, "agent_trace"), "ready")
        if view is not None and theirs is not None:
            rows.append([f"trace view ready at {largest['steps']:,} steps at least {SPEEDUP}× faster than `agent_trace`",
                         f"{theirs / view:.1f}× ({_seconds(theirs)} vs {_seconds(view)})", verdict(theirs / view >= SPEEDUP)])
        for page in ("ours", "whole"):
            for widget, value in (_side(largest, page).get("clicks") or {}).items():
                if "error" in value:
                    rows.append([f"{widget}: click to stored value under {CLICK_MS} ms at {largest['steps']:,} steps "
                                 f"({page})", f"failed: {value['error'][:100]}", verdict(False)])
                    continue
                rows.append([f"{widget}: click to stored value under {CLICK_MS} ms at {largest['steps']:,} steps "
                             f"({'page with our widgets' if page == 'ours' else 'with the trace view'})",
                             f"{number(value['median'])} ms", verdict(value["median"] < CLICK_MS)])
    rows += _bounded_rows(sizes)
    return rows


def _all_built_note(size: Dict[str, Any], name: str) -> str:
    """'; every widget built: 1.9×' (all_built over the bare page's), not a target: said beside it."""
    built, bare = median(_side(size, name), "all_built"), median(_side(size, "bare"), "all_built")
    return "" if built is None or not bare else f"; every widget built: {built / bare:.2f}× ({_seconds(built)})"


def _bounded_rows(sizes: List[Dict[str, Any]]) -> List[List[str]]:
    forms = [_side(size, "ours").get("forms") for size in sizes]
    if len(sizes) < 2 or not all(forms):
        return []
    rows = []
    for name in forms[0]:
        counts = [form.get(name, 0) for form in forms]
        rows.append([f"`{name.removeprefix('bench_')}` elements bounded independently of N "
                     f"({sizes[0]['steps']:,} to {sizes[-1]['steps']:,} steps)",
                     " → ".join(f"{count:,.0f}" for count in counts), verdict(max(counts) <= BOUNDED * min(counts))])
    return rows


def scale_bytes_rows(scale: Dict[str, Any]) -> List[List[str]]:
    rows = []
    for size in _sizes(scale):
        for name, title in SCALE_SIDES:
            side = _side(size, name)
            page = side.get("bytes", {})
            if "page_mb" not in page:
                rows.append([f"{size['steps']:,}", title, page.get("error", "—"), "", "", "", ""])
                continue
            rows.append([f"{size['steps']:,}", title, f"{page['page_mb']:.1f}", f"{page['instance_json_mb']:.1f}",
                         f"{page['instance_data_mb']:.1f}", cell(side, "ttfb") if "error" not in side else "—",
                         f"{page['soup_cpu_s']:.2f}"])
    return rows


def scale_ours_rows(scale: Dict[str, Any]) -> List[List[str]]:
    rows = []
    for size in _sizes(scale):
        for name in ("ours", "ours_nested", "whole"):
            side = _side(size, name)
            if "error" in side:
                continue
            dcl_handlers = median(side, "dcl_end") - median(side, "dcl")
            rows.append([f"{size['steps']:,}", name, cell(side, "derive"), cell(side, "ours_dcl"),
                         cell(side, "rerender"), number(dcl_handlers),
                         number(median(side, "painted") - median(side, "ready"))])
    return rows


def scale_element_rows(scale: Dict[str, Any]) -> List[List[str]]:
    sizes = _sizes(scale)
    ours = [size["sides"]["ours"] for size in sizes]
    names = next((list(side["forms"]) for side in ours if "forms" in side), [])
    rows = [[f"`{name.removeprefix('bench_')}` form"] + [f"{side['forms'].get(name, 0):,.0f}" if "forms" in side else "—"
                                                          for side in ours] for name in names]
    rows.append(["our page, all elements"] + [f"{median(side, 'nodes'):,.0f}" if "nodes" in side else "—" for side in ours])
    for name, title in (("bare", "Potato alone, all elements"), ("trace_view", "trace view page, all elements"),
                        ("whole", "trace view + our widgets page, all elements"),
                        ("agent_trace", "`agent_trace` page, all elements")):
        rows.append([title] + [f"{median(_side(size, name), 'nodes'):,.0f}" if "nodes" in _side(size, name) else "—"
                               for size in sizes])
    rows.append(["our trace view (its section)"] + [f"{_side(size, 'trace_view').get('trace_nodes', 0):,}" for size in sizes])
    rows.append(["`agent_trace` display"] + [f"{_side(size, 'agent_trace').get('display_nodes', 0):,}" for size in sizes])
    return rows


def scale_click_rows(scale: Dict[str, Any]) -> List[List[str]]:
    sizes = _sizes(scale)
    widgets = scale["widgets"]
    rows = []
    for widget in widgets:
        row = [widget]
        for size in sizes:
            for page in ("ours", "whole"):
                value = (_side(size, page).get("clicks") or {}).get(widget)
                row.append("—" if value is None else f"failed: {value['error'][:100]}" if "error" in value else spread(value))
        rows.append(row)
    return rows


def scale_trace_rows(scale: Dict[str, Any]) -> List[List[str]]:
    size = scale["sizes"].get(str(scale["traced_at"]))
    if not size:
        return []
    traced = {name: _side(size, name).get("traced") for name, _ in SCALE_SIDES}

    def row(title: str, value) -> List[str]:
        return [title] + [value(traced[name]) if traced[name] else "—" for name, _ in SCALE_SIDES]

    rows = [row("server: request to first byte (Potato renders, BeautifulSoup, restores)",
                lambda t: number(t["ttfb"])),
            row("download of the page", lambda t: number(t["response_end"] - t["ttfb"])),
            row("page size (MB)", lambda t: f"{t['page_mb']:.1f}")]
    rows += [row(title, lambda t, part=part: number(t["trace"][part])) for part, title in TRACE_PARTS]
    if any(entry and "cpu" in entry["trace"] for entry in traced.values()):
        rows += [row(f"{title}: CPU", lambda t, part=part: number(t["trace"]["cpu"][part]) if "cpu" in t["trace"] else "—")
                 for part, title in TRACE_PARTS]
    rows += [row("of the script: our derivation (derive.js)", lambda t: number(t["derive"]) if "derive" in t else "—"),
             row("of the script: widget.js on DOMContentLoaded (derivation; widgets only described)",
                 lambda t: number(t["ours_dcl"]) if t.get("ours_dcl") is not None else "—"),
             row("instance-ready to our last widget built (idle builds included)", lambda t: number(t["rerender"]) if "rerender" in t else "—"),
             row("DOMContentLoaded handlers, all (navigation timing)", lambda t: number(t["dcl_end"] - t["dcl"])),
             row("ready, this traced load", lambda t: number(t["ready"])),
             row("elements", lambda t: f"{t['nodes']:,}")]
    return rows


def _load_lines(scale: Dict[str, Any]) -> List[str]:
    """The machine's load average (1 / 5 / 15 min) when each size started and ended."""
    sizes = [size for size in _sizes(scale) if size.get("load_average")]
    if not sizes:
        return []
    return ["Load average (1 / 5 / 15 min) of the machine while each size was measured, at its start and end: " +
            "; ".join(f"{size['steps']:,} steps {size['load_average'][0]} to {size['load_average'][1]}"
                      for size in sizes) + ".", ""]


def _resumed_note(scale: Dict[str, Any]) -> List[str]:
    resumed = scale.get("resumed_sizes") or []
    if not resumed:
        return []
    return [f"Sizes {', '.join(f'{int(n):,}' for n in resumed)} were measured by an earlier run with the same "
            "`--workdir` and taken from its progress file (their trace breakdowns re-read from the kept traces); "
            "the run time above does not include them.", ""]


def scale_section(scale: Dict[str, Any]) -> List[str]:
    record = scale["record"]
    widgets = len(scale["widgets"])
    lines = ["## Page readiness by trace length (issues 14 and 18)", "",
             f"One seeded record per size (`synth.scale_record`): N steps by {record['agents']} agents, a tool call on "
             f"every {record['tool_call_every']}th step, N timed calls on {record['resources']} resources. Six pages "
             "per size, loads alternating (order reversed every round): Potato alone (a radio, no plugin); the radio "
             f"and our {widgets} widgets; the same with the record's lists under `trace` "
             "(`steps_key: trace.steps`, `calls_key: trace.calls`), which Potato embeds once instead of twice; the "
             "radio and our trace view (`multiagent.trace`) of the steps; the trace view and our widgets together; "
             "the radio and Potato's `agent_trace` display of the steps (no plugin). *Ready* (the target): from "
             "navigation start to `potato:instance-ready`, our `multiagent:in-view-ready` mark (every widget in "
             "sight built; `web/lazy.js` builds those near a frame later, the others when scrolled to, focused, needed or idle) and the "
             "trace view's `multiagent:trace-in-view` mark (the rows a screen can show drawn; the rest of its window "
             "a frame later). *All built*: the same with the last `multiagent:ready:*` mark "
             "of every widget of ours and the view's last drawing instead of the in-view marks (what *ready* meant before widgets were built "
             "lazily). Ratios are medians over the bare page's median. `agent_trace` takes minutes to load at the larger sizes, so it is loaded "
             "in fewer rounds there (the number of its loads is shown in brackets), without a warm-up.", "",
             *_resumed_note(scale),
             "### Targets (issue 18)", "",
             *table(["target", "measured (median)", "verdict"], scale_targets(scale)), "",
             f"### Ready: our {widgets} widgets", "",
             *table(_ready_header(WIDGET_SIDES), scale_ready_rows(scale, "ready", WIDGET_SIDES)), "",
             f"### All built: our {widgets} widgets (every widget built, idle-time builds included)", "",
             *table(_ready_header(WIDGET_SIDES), scale_ready_rows(scale, "all_built", WIDGET_SIDES)), "",
             "### Ready: the trace displays", "",
             *table(_ready_header(DISPLAY_SIDES), scale_ready_rows(scale, "ready", DISPLAY_SIDES)), "",
             *_load_lines(scale),
             "The same loads to the first frame painted after that:", "",
             *table(_ready_header(WIDGET_SIDES + DISPLAY_SIDES),
                    scale_ready_rows(scale, "painted", WIDGET_SIDES + DISPLAY_SIDES)), "",
             "### The page Potato serves", "",
             "Fetched once per page over HTTP. Potato puts the record in the page twice: "
             "`data-instance-json` (all of it) and `<script id=\"instance_data\">` (its top-level strings, numbers "
             "and lists). Time to first byte is the browser's (median of the loads above); BeautifulSoup is its "
             "`html.parser`, which Potato runs over every page it serves, timed in the bench's process on the same "
             "HTML (CPU seconds).", "",
             *table(["steps", "page", "page (MB)", "`data-instance-json` (MB)", "`instance_data` (MB)",
                     "time to first byte (ms)", "BeautifulSoup (s CPU)"], scale_bytes_rows(scale)), "",
             "### Our part of the page (ms)", "",
             *table(["steps", "page", "derive.js", "widget.js on DOMContentLoaded (derive, widgets described)",
                     "instance-ready to the last widget built", "all DOMContentLoaded handlers", "ready to painted"],
                    scale_ours_rows(scale)), "",
             "### Elements per widget (DOM nodes inside each form of the page with our widgets, median)", "",
             *table(["", *[f"{size['steps']:,} steps" for size in _sizes(scale)]], scale_element_rows(scale)), "",
             "### Click to stored value (ms)", "",
             "One interaction per widget (`scenarios.py`), after every widget is built and its form scrolled "
             "into view, on the page with our widgets and on the page with the trace view and our widgets.", "",
             *table(["widget", *[f"{size['steps']:,} steps{page}" for size in _sizes(scale)
                                 for page in ("", ", with the trace view")]], scale_click_rows(scale)), ""]
    trace_rows = scale_trace_rows(scale)
    if trace_rows:
        lines += [f"### Where the time goes at {scale['traced_at']:,} steps (one traced load per page, ms)", "",
                  "A Chromium performance trace (CDP) of one more load of each page; main-thread *self* time per kind "
                  "of work (`bench/chrome_trace.py`), so nothing is counted twice, in wall time and then (rows "
                  "ending in *CPU*) in the thread's CPU time, which other processes on a busy machine do not "
                  "stretch. Tracing slows the page somewhat.", "",
                  *table(["", *[title for _, title in SCALE_SIDES]], trace_rows), ""]
    failed = [f"- {size['steps']:,} {name}: {len(side['failed_loads'])} load(s) failed, e.g. {side['failed_loads'][0]}"
              for size in _sizes(scale) for name, side in size["sides"].items() if side.get("failed_loads")]
    return lines + (["Failed loads (the figures come from the others):", "", *failed, ""] if failed else [])
