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


def derive_section(derive: Dict[str, Any]) -> List[str]:
    lines = ["## Derivation time (ms, CPU)", "",
             "`full`: N steps and N timed calls; `steps`: the steps alone; `contention`: the N timed calls "
             "alone. CPU time of the deriving thread, median (min–max); wall-clock median in the last "
             "column of each language.", ""]
    header = ["family", "N", "python", "python wall", "node", "node wall"]
    rows = []
    for family in derive["python"]:
        for size in derive["sizes"]:
            python = derive["python"][family]["sizes"][size]
            node = derive["node"][family]["sizes"][size]
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
- The findings behind any missed target are in `docs/performance.md`.
"""


def render(results: Dict[str, Any]) -> str:
    lines = ["# Benchmark results", "",
             f"Generated by `{results['command']}` on {results['generated']} in {results['duration_s'] / 60:.1f} min. "
             "Do not edit: run the command again (see `bench/README.md`).", ""]
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
    if results.get("derive"):
        lines += derive_section(results["derive"])
    if results.get("check"):
        lines += check_section(results["check"])
    lines.append(HOW_TO_READ)
    return "\n".join(lines)
