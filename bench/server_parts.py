"""Where Potato's server time goes on a long record: `python -m bench.server_parts --steps 50000`.

Potato 2.12.1 builds every annotation page the same way (flask_server.py): Jinja renders the
template with the whole record twice (`data-instance-json='{{ record | tojson }}'`, and
`<script id="instance_data">` from `easy_json` of the record's top-level strings, numbers and
lists), then parses the page with BeautifulSoup's `html.parser` to restore saved answers, and
serialises the soup back with `str(soup)`.

This starts `potato start` on the scale record (`synth.scale_record`) in both layouts (lists at
the top level, and under `trace`), times `GET /annotate` as a new annotator (the Flask server sends
the page when it is complete, so the time to the response headers is the server's time), and
times, in this process on the page it served, the parts that grow with the record: the two JSON
encodings (sorted keys, as Flask's provider does), BeautifulSoup's parse and `str(soup)`. What is
left of the server's time is Potato's other work (Jinja, restoring, the request). CPU seconds;
the server's time is wall-clock, so on a busy machine it holds waiting too.

Prints a Markdown table; nothing is written.
"""

from __future__ import annotations

import argparse
import json
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


def server_seconds(base_url: str, runs: int):
    times = []
    for _ in range(runs):
        session = requests.Session()
        session.post(f"{base_url}/auth", data={"action": "login", "email": f"parts-{uuid.uuid4().hex[:10]}"},
                     allow_redirects=False, timeout=600)
        started = time.monotonic()
        response = session.get(f"{base_url}/annotate", stream=True, timeout=600)
        times.append(time.monotonic() - started)
        html = response.text
        session.close()
    return times, html


def measure_layout(label: str, record: Dict[str, Any], schemes: List[Dict[str, Any]], workdir: Path,
                   runs: int) -> Dict[str, Any]:
    from bs4 import BeautifulSoup

    spec = pages.PageSpec(f"server parts {label}", schemes)
    folder = pages.write_task(workdir / spec.slug, spec, record, f"{pages.TASK_NAME_PREFIX}-parts")
    task = pages.start_server(folder, timeout=scale.SERVER_START_TIMEOUT_S)
    try:
        times, html = server_seconds(task.base_url, runs)
    finally:
        task.stop()
    soup_holder: Dict[str, Any] = {}
    parse_s = cpu_seconds(lambda: soup_holder.setdefault("soup", BeautifulSoup(html, "html.parser")))
    return {"label": label, "server_s": statistics.median(times), "server_runs": times,
            "page_mb": len(html.encode("utf-8")) / 1e6,
            "tojson_s": cpu_seconds(lambda: tojson(record)),
            "easy_json_s": cpu_seconds(lambda: json.dumps(instance_data(record))),
            "soup_parse_s": parse_s, "soup_str_s": cpu_seconds(lambda: str(soup_holder["soup"]))}


def render(steps: int, results: List[Dict[str, Any]]) -> str:
    header = ["record layout", "page (MB)", "server: GET /annotate (s, median)", "`tojson` of the record",
              "`easy_json` for `instance_data`", "BeautifulSoup parse", "`str(soup)`", "the rest (Jinja, restore, ...)"]
    lines = [f"At {steps:,} steps (seconds; the parts are CPU time in the bench's process on the served page):", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for result in results:
        parts = result["tojson_s"] + result["easy_json_s"] + result["soup_parse_s"] + result["soup_str_s"]
        lines.append("| " + " | ".join([
            result["label"], f"{result['page_mb']:.1f}", f"{result['server_s']:.2f}", f"{result['tojson_s']:.2f}",
            f"{result['easy_json_s']:.2f}", f"{result['soup_parse_s']:.2f}", f"{result['soup_str_s']:.2f}",
            f"{result['server_s'] - parts:.2f}"]) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.server_parts", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3, help="page requests per layout (median)")
    args = parser.parse_args()
    entries = [entry for entry in SCENARIOS if entry.present]
    record = synth.scale_record(args.steps)
    with tempfile.TemporaryDirectory(prefix="potato-ma-parts-") as workdir:
        results = []
        for label, data, nested in (("lists at the top level", record, False),
                                    ("lists under `trace`", synth.nested_layout(record), True)):
            log(f"server parts: {label}, {args.steps:,} steps")
            results.append(measure_layout(label, data, scale.our_schemes(entries, nested), Path(workdir), args.runs))
    print(render(args.steps, results))
    print("\n" + json.dumps(results))


if __name__ == "__main__":
    main()
