"""Where Potato's server time goes on a long record: `python -m bench.server_parts --steps 50000`.

Potato 2.12.1 builds every annotation page the same way (flask_server.py): Jinja renders the
template with the whole record twice (`data-instance-json='{{ record | tojson }}'`, and
`<script id="instance_data">` from `easy_json` of the record's top-level strings, numbers and
lists), then parses the page with BeautifulSoup's `html.parser` to restore saved answers, and
serialises the soup back with `str(soup)`.

This starts `potato start` on the scale record (`synth.scale_record`) for the four pages of the
scale part (Potato alone, ours, ours with the record under `trace`, our trace view alone,
`agent_trace`; `--only` picks some), times
`GET /annotate` as a new annotator (the Flask server sends the page when it is complete, so the
time to the response headers is the server's time) and the server process's CPU seconds over the
request (which a busy machine does not inflate), and times, in this process on the page it
served, the parts that grow with the record: the two JSON encodings (sorted keys, as Flask's
provider does), BeautifulSoup's parse and `str(soup)`. What is left of the server's CPU is
Potato's other work (Jinja, the display's own rendering, restoring, the request).

Prints a Markdown table; nothing is written.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, List

import requests

from . import log, pages, scale, synth
from .scenarios import SCENARIOS


def cpu_seconds(work: Callable[[], Any]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def tojson(value: Any) -> str:
    """Jinja's `tojson` under Flask: sorted keys, ASCII, HTML-unsafe characters escaped."""
    return (json.dumps(value, sort_keys=True, ensure_ascii=True)
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027"))


def instance_data(record: Dict[str, Any]) -> Dict[str, Any]:
    """The part of a record Potato 2.12.1 copies into `<script id="instance_data">`."""
    return {key: value for key, value in record.items() if isinstance(value, (str, int, float, bool, list))}


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far, all its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_seconds(task, runs: int):
    """Per request: wall seconds to the response headers, and the server process's CPU seconds
    over the whole request (which other processes on a busy machine do not inflate)."""
    walls, cpus, html = [], [], ""
    for _ in range(runs):
        session = requests.Session()
        session.post(f"{task.base_url}/auth", data={"action": "login", "email": f"parts-{uuid.uuid4().hex[:10]}"},
                     allow_redirects=False, timeout=900)
        cpu, started = process_cpu_s(task.process.pid), time.monotonic()
        response = session.get(f"{task.base_url}/annotate", stream=True, timeout=900)
        walls.append(time.monotonic() - started)
        html = response.text
        cpus.append(process_cpu_s(task.process.pid) - cpu)
        session.close()
    return walls, cpus, html


def measure_layout(label: str, slug: str, record: Dict[str, Any], schemes: List[Dict[str, Any]], workdir: Path,
                   runs: int, display: Dict[str, Any], plugins) -> Dict[str, Any]:
    from bs4 import BeautifulSoup

    spec = pages.PageSpec(f"server parts {slug}", schemes)
    folder = pages.write_task(workdir / spec.slug, spec, record, f"{pages.TASK_NAME_PREFIX}-parts",
                              instance_display=display, plugins=plugins)
    task = pages.start_server(folder, timeout=scale.SERVER_START_TIMEOUT_S)
    try:
        times, cpus, html = server_seconds(task, runs)
    finally:
        task.stop()
    soup_holder: Dict[str, Any] = {}
    parse_s = cpu_seconds(lambda: soup_holder.setdefault("soup", BeautifulSoup(html, "html.parser")))
    return {"label": label, "server_s": statistics.median(times), "server_runs": times,
            "server_cpu_s": statistics.median(cpus), "server_cpu_runs": cpus,
            "page_mb": len(html.encode("utf-8")) / 1e6,
            "tojson_s": cpu_seconds(lambda: tojson(record)),
            "easy_json_s": cpu_seconds(lambda: json.dumps(instance_data(record))),
            "soup_parse_s": parse_s, "soup_str_s": cpu_seconds(lambda: str(soup_holder["soup"]))}


def render(steps: int, results: List[Dict[str, Any]]) -> str:
    header = ["page", "page (MB)", "server: wall to headers (s)", "server: CPU (s)", "`tojson` of the record",
              "`easy_json` for `instance_data`", "BeautifulSoup parse", "`str(soup)`", "the rest of the CPU"]
    lines = [f"At {steps:,} steps, medians of {len(results[0]['server_runs'])} requests (seconds; the server's CPU "
             "is its process's over the request; the parts are CPU time in the bench's process on the served page):",
             "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for result in results:
        parts = result["tojson_s"] + result["easy_json_s"] + result["soup_parse_s"] + result["soup_str_s"]
        lines.append("| " + " | ".join([
            result["label"], f"{result['page_mb']:.1f}", f"{result['server_s']:.2f}", f"{result['server_cpu_s']:.2f}",
            f"{result['tojson_s']:.2f}", f"{result['easy_json_s']:.2f}", f"{result['soup_parse_s']:.2f}",
            f"{result['soup_str_s']:.2f}", f"{result['server_cpu_s'] - parts:.2f}"]) + " |")
    return "\n".join(lines)


LAYOUT_SLUGS = ("bare", "ours", "ours_nested", "trace_view", "agent_trace")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.server_parts", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3, help="page requests per page (median)")
    parser.add_argument("--skip-agent-trace", action="store_true", help="leave out the agent_trace page (minutes at 50,000)")
    parser.add_argument("--only", nargs="+", choices=LAYOUT_SLUGS, help="measure these pages only")
    args = parser.parse_args()
    entries = [entry for entry in SCENARIOS if entry.present]
    record = synth.scale_record(args.steps)
    layouts = [
        ("Potato alone (a radio)", "bare", record, [scale.RADIO], scale.TASK_DISPLAY, ()),
        ("+ our widgets", "ours", record, scale.our_schemes(entries, False), scale.TASK_DISPLAY, ("multiagent",)),
        ("+ our widgets, record under `trace`", "ours_nested", synth.nested_layout(record),
         scale.our_schemes(entries, True), scale.TASK_DISPLAY, ("multiagent",)),
        ("our trace view alone", "trace_view", record, [scale.RADIO], scale.TRACE_VIEW_DISPLAY, ("multiagent",)),
        ("`agent_trace` alone", "agent_trace", record, [scale.RADIO], scale.AGENT_TRACE_DISPLAY, ()),
    ]
    if args.skip_agent_trace:
        layouts.pop()
    if args.only:
        layouts = [layout for layout in layouts if layout[1] in args.only]
    with tempfile.TemporaryDirectory(prefix="potato-ma-parts-") as workdir:
        results = []
        for label, slug, data, schemes, display, plugins in layouts:
            log(f"server parts: {label}, {args.steps:,} steps")
            results.append(measure_layout(label, f"{args.steps} {slug}", data, schemes, Path(workdir), args.runs,
                                          display, plugins))
    print(render(args.steps, results))
    print("\n" + json.dumps(results))


if __name__ == "__main__":
    main()
