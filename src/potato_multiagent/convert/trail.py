"""TRAIL (Patronus AI, "TRAIL: Trace Reasoning and Agentic Issue Localization", 2025): OpenInference
span trees with span-located error labels. ``--from openinference`` reads them through this module.

Layouts (TRAIL's GitHub repository ``patronus-ai/trail-benchmark``: ``benchmarking/data/<split>/
<trace_id>.json`` with labels apart in ``benchmarking/processed_annotations_<split>/<trace_id>.json``;
its Hugging Face dataset ``PatronusAI/TRAIL``: Parquet rows ``{trace, labels}``, both JSON text):

- a trace: ``{trace_id, spans: [...]}``, each span ``{span_id, parent_span_id, span_name,
  timestamp, duration, status_code, status_message, span_kind, service_name, resource_attributes,
  scope_name, scope_version, span_attributes, events, links, logs, child_spans: [...]}``, the tree
  nested through ``child_spans``; ``timestamp`` is the start (ISO 8601), ``duration`` an ISO 8601
  duration (``PT1M7.364385S``), ``status_code`` ``Unset``/``Ok``/``Error``, ``span_attributes`` the
  OpenInference attributes (``openinference.span.kind``, ``input.value``, ...);
- labels: ``{trace_id, errors: [{category, location, evidence, description, impact}], scores:
  [{reliability_score, ..., overall}]}``, ``location`` being a span id.

:func:`unnest` turns every TRAIL tree into flat spans (the OpenTelemetry layout ``otel_genai``
reads: ``parent_span_id`` from the tree, ``start_time``/``end_time`` from ``timestamp`` and
``duration``, ``status`` from ``status_code``), so a TRAIL span is read as any OpenInference span.
:func:`located` then says, for every span of a trace, the step it lands on (its own step, else its
nearest ancestor's: a span that adds no step, such as a bookkeeping ``CHAIN``, belongs to the step
that encloses it), and puts a row's labels in gold: each error with ``step_index``, the 0-based index
of that step (``null`` when no step encloses the span, with a warning). Labels in files of their own
(the GitHub layout) join the same way through ``--gold-from`` (:mod:`.side_gold`).
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .sources import Converted, Item
from .spans import Span

SPAN_FIELDS = {"span_id", "parent_span_id", "trace_id", "span_name", "timestamp", "duration", "status_code",
               "status_message", "span_attributes", "child_spans", "span_kind", "events", "links"}
"""What becomes of a TRAIL span; its other fields (``logs``, ``service_name``, ...) are named on stderr."""
DURATION = re.compile(r"P(?:(?P<days>\d+(?:\.\d+)?)D)?(?:T(?:(?P<hours>\d+(?:\.\d+)?)H)?"
                      r"(?:(?P<minutes>\d+(?:\.\d+)?)M)?(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?")
ERROR_CODES = ("error", "status_code_error", "2")


def is_tree(value: Any) -> bool:
    """A TRAIL trace: ``{trace_id, spans}`` whose spans nest through ``child_spans`` or carry ``span_attributes``."""
    spans = value.get("spans") if isinstance(value, dict) else None
    return isinstance(spans, list) and any(
        isinstance(span, dict) and ("child_spans" in span or "span_attributes" in span) for span in spans)


def unnest(files: List[Tuple[Path, List[Item]]]) -> Tuple[List[Tuple[Path, List[Item]]], Dict[str, Tuple[dict, Item]]]:
    """Every TRAIL trace of the files as flat spans (other items as they are), and the labels of the
    rows that carry them (``{trace, labels}``), by trace id."""
    flattened: List[Tuple[Path, List[Item]]] = []
    labels: Dict[str, Tuple[dict, Item]] = {}
    for path, items in files:
        unshown: set = set()
        out: List[Item] = []
        for item in items:
            tree, row_labels = _tree_of(item)
            if tree is None:
                out.append(item)
                continue
            trace_id = tree.get("trace_id")
            if not isinstance(trace_id, str) or not trace_id:
                raise item.error("trace_id", "a TRAIL trace needs its trace_id")
            out.extend(Item(flat, item.path, item.line) for flat in _flat_spans(tree["spans"], trace_id, None, item, unshown))
            if row_labels is not None:
                labels[trace_id] = (row_labels, item)
        if unshown:
            print(f"note: {path}: TRAIL span fields not shown in the records (kept only in the source): "
                  f"{', '.join(sorted(unshown))}", file=sys.stderr)
        flattened.append((path, out))
    return flattened, labels


def _tree_of(item: Item) -> Tuple[Optional[dict], Optional[dict]]:
    """``(tree, labels)`` of a TRAIL item: a trace file, or a dataset row ``{trace, labels}``."""
    value = item.value
    if is_tree(value):
        return value, None
    if isinstance(value, dict) and is_tree(value.get("trace")):
        found = value.get("labels")
        if found is not None and not isinstance(found, dict):
            raise item.error("labels", "expected TRAIL's labels ({errors, scores}) or nothing")
        return value["trace"], found
    return None, None


def _flat_spans(spans: Any, trace_id: str, parent: Optional[str], item: Item, unshown: set) -> List[dict]:
    if not isinstance(spans, list):
        raise item.error("child_spans", "expected a list of spans")
    flat: List[dict] = []
    for span in spans:
        if not isinstance(span, dict) or not isinstance(span.get("span_id"), str) or not span["span_id"]:
            raise item.error("spans", "every TRAIL span needs its span_id")
        unshown.update(key for key in span if key not in SPAN_FIELDS)
        start = span.get("timestamp")
        code = span.get("status_code")
        flat_span = {"trace_id": trace_id, "span_id": span["span_id"], "parent_span_id": parent,
                     "name": span.get("span_name") if isinstance(span.get("span_name"), str) else "",
                     "attributes": span.get("span_attributes") or {},
                     "status": {"status_code": "ERROR" if str(code).lower() in ERROR_CODES else str(code or "UNSET"),
                                "description": span.get("status_message")},
                     "events": [event for event in span.get("events") or [] if isinstance(event, dict)]}
        if isinstance(start, str) and start:
            flat_span["start_time"] = start
            end = end_time(start, span.get("duration"), item)
            if end is not None:
                flat_span["end_time"] = end
        if span.get("span_kind"):
            flat_span["kind"] = span["span_kind"]
        if span.get("links"):
            flat_span["links"] = span["links"]
        flat.append(flat_span)
        flat.extend(_flat_spans(span.get("child_spans") or [], trace_id, span["span_id"], item, unshown))
    return flat


def end_time(start: str, duration: Any, item: Item) -> Optional[str]:
    """``timestamp`` plus an ISO 8601 ``duration``, as an ISO time (None without a duration)."""
    if duration in (None, ""):
        return None
    match = DURATION.fullmatch(duration) if isinstance(duration, str) else None
    if match is None or duration in ("P", "PT"):
        raise item.error("duration", f"expected an ISO 8601 duration such as PT1.5S, found {duration!r}")
    seconds = sum(float(match[unit] or 0) * factor
                  for unit, factor in (("days", 86400), ("hours", 3600), ("minutes", 60), ("seconds", 1)))
    begun = _moment(start, item)
    return (begun + dt.timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def _moment(text: str, item: Item) -> dt.datetime:
    """An ISO time (``Z`` or an offset; more than six decimals cut to microseconds)."""
    cleaned = re.sub(r"(\.\d{6})\d+", r"\1", text.strip()).replace("Z", "+00:00")
    try:
        moment = dt.datetime.fromisoformat(cleaned)
    except ValueError:
        raise item.error("timestamp", f"expected an ISO 8601 time, found {text!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


def located(converted: Converted, spans: List[Span], labels: Dict[str, Tuple[dict, Item]]) -> Converted:
    """The converted trace with every span's step (:attr:`Converted.locations`) and, when a row
    labelled it, its labels in gold at those steps."""
    record = converted.record
    locations = span_locations(record, spans)
    entry = replace(converted, locations=locations)
    found = labels.get(record["id"])
    if found is None:
        return entry
    gold, warnings = labels_at_steps(found[0], locations, record, found[1])
    return replace(entry, gold=gold, warnings=entry.warnings + warnings)


def span_locations(record: dict, spans: List[Span]) -> Dict[str, Optional[int]]:
    """Every span id of the trace -> the index of its step, or of its nearest ancestor's step."""
    own = {step.get("span_id"): index for index, step in enumerate(record.get("steps") or [])
           if isinstance(step, dict) and step.get("span_id")}
    parents = {span.span_id: span.parent_id for span in spans}
    locations: Dict[str, Optional[int]] = {}
    for span in spans:
        current, seen = span.span_id, set()
        while current is not None and current not in own and current not in seen:
            seen.add(current)
            current = parents.get(current)
        locations[span.span_id] = own.get(current) if current is not None else None
    return locations


def labels_at_steps(labels: dict, locations: Dict[str, Optional[int]], record: dict,
                    item: Item) -> Tuple[dict, Tuple[str, ...]]:
    """TRAIL's labels for gold, each error with ``step_index``: where its ``location`` (a span id) lands."""
    gold = {key: value for key, value in labels.items() if key != "errors"}
    errors = labels.get("errors") or []
    if not isinstance(errors, list):
        raise item.error("labels.errors", "expected a list of errors")
    placed, warnings = [], []
    for number, error in enumerate(errors):
        if not isinstance(error, dict):
            raise item.error(f"labels.errors[{number}]", "expected an error object")
        location = error.get("location")
        step = locations.get(location) if isinstance(location, str) else None
        if step is None:
            why = "is no span of this trace" if location not in locations else "has no step around it"
            warnings.append(f"{item.path}:{item.line}: labels.errors[{number}].location: {record['id']}: "
                            f"{location!r} {why}: the error is in gold with no step")
        placed.append({**error, "step_index": step})
    gold["errors"] = placed
    return gold, tuple(warnings)
