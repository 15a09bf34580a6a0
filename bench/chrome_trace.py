"""Where a page load's main-thread time goes, from a Chromium performance trace.

`Browser.start_tracing` / `stop_tracing` (CDP Tracing) record the renderer's trace events. On the
page's main thread (`CrRendererMain`) every event's *self* time (its duration minus that of the
events nested in it) is put in one bucket: HTML parse, script, style, layout, paint, GC, other.
Self time, so that nothing is counted twice: the parser running an inline script counts as script,
a script forcing a layout counts as layout.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

CATEGORIES = ["devtools.timeline", "v8.execute", "blink.user_timing", "loading", "disabled-by-default-devtools.timeline"]

BUCKETS: Dict[str, Tuple[str, ...]] = {
    "parse_html": ("ParseHTML",),
    "script": ("EvaluateScript", "FunctionCall", "v8.compile", "v8.compileModule", "v8.evaluateModule",
               "v8.run", "v8.callFunction", "V8.Execute", "EventDispatch", "TimerFire", "FireAnimationFrame",
               "RunMicrotasks", "v8.produceCache", "CompileScript", "v8.parseOnBackground", "XHRReadyStateChange",
               "XHRLoad", "FireIdleCallback", "v8.newInstance", "CompileCode", "OptimizeCode"),
    "style": ("UpdateLayoutTree", "RecalculateStyles", "ParseAuthorStyleSheet", "InvalidateLayout"),
    "layout": ("Layout", "IntersectionObserverController::computeIntersections"),
    "paint": ("Paint", "PrePaint", "Layerize", "UpdateLayer", "UpdateLayerTree", "CompositeLayers", "Commit",
              "PaintImage", "Decode Image", "ImageDecodeTask", "Document::updateHitTestRegions"),
    "gc": ("MinorGC", "MajorGC", "BlinkGC.AtomicPhase", "V8.GCScavenger", "V8.GCFinalizeMC", "V8.GCIncrementalMarking",
           "V8.GC_MC_BACKGROUND_MARKING", "BlinkGC.CompleteSweep", "BlinkGC.LazySweepInIdle", "CppGC.AtomicPhase"),
}
BUCKET_OF = {name: bucket for bucket, names in BUCKETS.items() for name in names}
PARSE_PREFIXES = ("DocumentLoader::", "HTMLDocumentParser::", "DecodedDataDocumentParser::")


def bucket_of(name: str) -> str:
    """The bucket of an event name: listed ones first, then V8's own events (GC or script) and
    the document loader's (parse); `RunTask`'s own time and anything else is `other`."""
    if name in BUCKET_OF:
        return BUCKET_OF[name]
    if name.lower().startswith("v8."):
        return "gc" if "GC" in name else "script"
    if name.startswith(PARSE_PREFIXES):
        return "parse_html"
    return "other"
ORDER = ["parse_html", "script", "style", "layout", "paint", "gc", "other"]


def main_thread(events: List[Dict[str, Any]], url_part: str = "") -> Tuple[int, int]:
    """The `CrRendererMain` thread that parsed a page whose URL holds `url_part`; without one,
    the busiest `CrRendererMain`."""
    renderers = {(event["pid"], event["tid"]) for event in events
                 if event.get("ph") == "M" and event.get("name") == "thread_name"
                 and event.get("args", {}).get("name") == "CrRendererMain"}
    if not renderers:
        raise ValueError("the trace has no CrRendererMain thread")
    if url_part:
        parsers = {(event["pid"], event["tid"]) for event in events
                   if event.get("name") == "ParseHTML" and (event.get("pid"), event.get("tid")) in renderers
                   and url_part in json.dumps(event.get("args", {}))}
        if len(parsers) == 1:
            return parsers.pop()
    busy = {thread: 0.0 for thread in renderers}
    for event in events:
        thread = (event.get("pid"), event.get("tid"))
        if thread in busy and event.get("ph") == "X" and event.get("name") == "RunTask":
            busy[thread] += event.get("dur", 0)
    return max(busy, key=busy.get)


Span = Tuple[float, float, str, float]  # start_us, end_us, name, thread (CPU) duration in us


def complete_events(events: Iterable[Dict[str, Any]], thread: Tuple[int, int]) -> List[Span]:
    """`(start_us, end_us, name, cpu_us)` of the thread's complete ('X') and paired ('B'/'E')
    events; `cpu_us` is the thread time Chromium records beside the wall time (`tdur`, `tts`),
    or the wall duration where it records none."""
    spans, open_spans = [], []
    for event in events:
        if (event.get("pid"), event.get("tid")) != thread:
            continue
        phase = event.get("ph")
        if phase == "X" and "dur" in event:
            spans.append((event["ts"], event["ts"] + event["dur"], event["name"], event.get("tdur", event["dur"])))
        elif phase == "B":
            open_spans.append(event)
        elif phase == "E" and open_spans:
            begun = open_spans.pop()
            cpu = event["tts"] - begun["tts"] if "tts" in event and "tts" in begun else event["ts"] - begun["ts"]
            spans.append((begun["ts"], event["ts"], begun["name"], cpu))
    spans.sort(key=lambda span: (span[0], -(span[1] - span[0])))
    return spans


def self_times(spans: List[Span], cpu: bool = False) -> Dict[str, float]:
    """Self time in ms per bucket (wall, or with `cpu` the thread's CPU time); `busy` is the
    time covered by top-level events."""
    totals = {bucket: 0.0 for bucket in ORDER}
    busy = 0.0
    stack: List[List[Any]] = []  # [end, bucket, self_us]

    def close(entry):
        totals[entry[1]] += max(entry[2], 0.0) / 1000

    for start, end, name, cpu_us in spans:
        took = cpu_us if cpu else end - start
        while stack and stack[-1][0] <= start:
            close(stack.pop())
        if stack:
            stack[-1][2] -= took if cpu else min(end, stack[-1][0]) - start
        else:
            busy += took
        stack.append([end, bucket_of(name), took])
    while stack:
        close(stack.pop())
    return {**totals, "busy": busy / 1000}


def top_other(trace_bytes: bytes, url_part: str = "", count: int = 12) -> List[Tuple[str, float]]:
    """The event names with the most self time in the `other` bucket (to extend BUCKETS)."""
    events = _events(trace_bytes)
    spans = complete_events(events, main_thread(events, url_part))
    names: Dict[str, float] = {}
    stack: List[List[Any]] = []
    for start, end, name, _ in spans:
        while stack and stack[-1][0] <= start:
            done = stack.pop()
            names[done[1]] = names.get(done[1], 0.0) + done[2] / 1000
        if stack:
            stack[-1][2] -= min(end, stack[-1][0]) - start
        stack.append([end, name, end - start])
    for done in stack:
        names[done[1]] = names.get(done[1], 0.0) + done[2] / 1000
    others = [(name, ms) for name, ms in names.items() if bucket_of(name) == "other"]
    return sorted(others, key=lambda item: -item[1])[:count]


def _events(trace_bytes: bytes) -> List[Dict[str, Any]]:
    events = json.loads(trace_bytes)
    return events["traceEvents"] if isinstance(events, dict) else events


def breakdown(trace_bytes: bytes, url_part: str = "") -> Dict[str, float]:
    """Main-thread self time per bucket (ms) of one traced load of the page whose URL holds
    `url_part`, and the traced window (ms)."""
    events = _events(trace_bytes)
    thread = main_thread(events, url_part)
    spans = complete_events(events, thread)
    result = self_times(spans)
    result["cpu"] = self_times(spans, cpu=True)
    if spans:
        result["window"] = (max(span[1] for span in spans) - spans[0][0]) / 1000
    return result


NETWORK = ("ResourceSendRequest", "ResourceFinish")
TASK_DETAIL = ("EventDispatch", "TimerFire", "FunctionCall", "EvaluateScript", "ParseHTML", "UpdateLayoutTree",
               "Layout", "FireIdleCallback", "MinorGC", "MajorGC")


def timeline(trace_bytes: bytes, url_part: str = "", min_ms: float = 2.0) -> List[Tuple[float, str, str]]:
    """`(ms, kind, text)` rows of one page load, in order, from the navigationStart of the page whose
    URL holds `url_part` (its last):
    its main thread's tasks of at least `min_ms` (wall, with their CPU and their longest parts:
    which event, timer or script), the page's marks (user timing and navigation) and its requests
    (sent, finished). Where the time between two moments went, and which waits were network."""
    events = _events(trace_bytes)
    thread = main_thread(events, url_part)
    starts = [event["ts"] for event in events if event.get("name") == "navigationStart"
              and event.get("pid") == thread[0] and url_part in json.dumps(event.get("args", {}))]
    origin = max(starts) if starts else min(event["ts"] for event in events if "ts" in event)
    rows: List[Tuple[float, str, str]] = []
    for event in events:
        if event.get("pid") != thread[0] or event.get("ph") not in ("R", "I", "n", "b", "X") or "ts" not in event:
            continue
        data = (event.get("args") or {}).get("data") or {}
        if event["name"] in NETWORK:
            rows.append(((event["ts"] - origin) / 1000, "request", f"{event['name']} {data.get('url', data.get('requestId', ''))}"))
        elif "user_timing" in event.get("cat", "") or event.get("cat") == "blink.user_timing":
            rows.append(((event["ts"] - origin) / 1000, "mark", event["name"]))
    spans = sorted((event for event in events if (event.get("pid"), event.get("tid")) == thread
                    and event.get("ph") == "X" and "dur" in event), key=lambda event: (event["ts"], -event["dur"]))
    task_end = -1.0
    for task in spans:
        if task["name"] != "RunTask" or task["ts"] < task_end:
            continue
        task_end = task["ts"] + task["dur"]
        if task["dur"] < min_ms * 1000:
            continue
        parts = sorted((part for part in spans if task["ts"] <= part["ts"] < task_end and part["name"] in TASK_DETAIL),
                       key=lambda part: -part["dur"])[:4]
        said = "; ".join(f"{_label(part)} {part['dur'] / 1000:.1f}" for part in parts)
        rows.append(((task["ts"] - origin) / 1000, "task",
                     f"{task['dur'] / 1000:.1f} ms (CPU {task.get('tdur', task['dur']) / 1000:.1f}): {said}"))
    return sorted(row for row in rows if row[0] >= 0)


def _label(event: Dict[str, Any]) -> str:
    data = (event.get("args") or {}).get("data") or {}
    where = data.get("type") or data.get("functionName") or ""
    url = str(data.get("url") or "").split("?")[0].rsplit("/", 1)[-1]
    line = f":{data['lineNumber']}" if url and "lineNumber" in data else ""
    return " ".join(part for part in (event["name"], where, url + line) if part)


def main(argv: Optional[Sequence[str]] = None) -> None:
    """`python -m bench.chrome_trace TRACE.json[.gz] ...`: each trace's breakdown as JSON, or with
    `--timeline MS` its load as rows (tasks of at least MS ms, marks, requests)."""
    parser = argparse.ArgumentParser(prog="python -m bench.chrome_trace", description=main.__doc__)
    parser.add_argument("traces", nargs="+", type=Path)
    parser.add_argument("--url", default="", help="the part of the page's URL that picks its renderer")
    parser.add_argument("--timeline", type=float, metavar="MS", help="print the load's timeline instead")
    args = parser.parse_args(argv)
    for path in args.traces:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        if args.timeline is not None:
            print(f"# {path}")
            for ms, kind, text in timeline(data, args.url, args.timeline):
                print(f"{ms:9.1f}  {kind:8} {text}")
            continue
        print(json.dumps({"trace": str(path), **breakdown(data, args.url),
                          "top_other": top_other(data, args.url, 5)}))


if __name__ == "__main__":
    main()
