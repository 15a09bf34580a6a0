"""Arize Phoenix: a project's spans into a task, and a task's labels back as annotations.

In: ``GET /v1/projects/{project}/traces`` picks the traces (newest first, ``--since``,
``--limit``, or the ``--trace-id`` given), ``GET /v1/projects/{project}/spans`` reads their
spans. Phoenix answers with flattened attributes and lifts ``openinference.span.kind`` out into
``span_kind``; :func:`as_openinference` puts it back, so the spans are read exactly as
``--from openinference`` reads a span file, each step keeping its ``span_id`` (its identity
``id:<span id>``) and each record's id being its trace id.

Out: ``POST /v1/span_annotations`` and ``/v1/trace_annotations`` with ``sync=true`` (so a span
Phoenix lacks is a 404 now, not a silent drop later). Phoenix upserts an annotation by (name,
span or trace, ``identifier``); every label's identifier is fixed by the annotator and what it
judges (:func:`phoenix_annotation`), so a second push updates in place and never duplicates.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Iterable, List, Optional, Sequence

from .http import HttpError, Unreachable, request_json, with_query
from .labels import Label

PAGE = 1000
"""Phoenix's largest page (its ``limit`` is at most 1000)."""
_MISSING = re.compile(r"(?:Spans|Traces) with IDs (.+) do not exist")


class PhoenixError(Exception):
    """Phoenix could not be read or written; the message says which server and why."""


class Phoenix:
    """One Phoenix server (``url`` as ``http://127.0.0.1:6006``). ``PHOENIX_API_KEY``, when set,
    is sent as a bearer token (Phoenix with authentication on)."""

    def __init__(self, url: str, api_key: Optional[str] = None):
        self.url = url.rstrip("/")
        key = api_key if api_key is not None else os.environ.get("PHOENIX_API_KEY")
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}

    def _call(self, method: str, path: str, params: Optional[dict] = None, body=None):
        try:
            return request_json(method, with_query(f"{self.url}{path}", params or {}), body, self.headers)
        except Unreachable as error:
            raise PhoenixError(f"Phoenix at {self.url}: {error}; is `phoenix serve` running there?") from None
        except HttpError as error:
            if error.status in (401, 403):
                raise PhoenixError(f"Phoenix at {self.url} refused the request ({error}); set PHOENIX_API_KEY "
                                   f"to an API key of that server") from None
            raise

    def _pages(self, path: str, params: dict) -> Iterable[dict]:
        cursor = None
        while True:
            answer = self._call("GET", path, {**params, "cursor": cursor})
            yield from answer.get("data") or []
            cursor = answer.get("next_cursor")
            if not cursor:
                return

    def trace_ids(self, project: str, since: Optional[str] = None, limit: Optional[int] = None) -> List[str]:
        """The project's trace ids, newest first (``since``: started at or after; ``limit``: at most)."""
        ids: List[str] = []
        try:
            for trace in self._pages(f"/v1/projects/{_segment(project)}/traces",
                                     {"start_time": since, "sort": "start_time", "order": "desc",
                                      "limit": min(PAGE, limit or PAGE)}):
                ids.append(trace["trace_id"])
                if limit is not None and len(ids) >= limit:
                    break
        except HttpError as error:
            raise PhoenixError(self._project_problem(project, error)) from None
        return ids

    def spans(self, project: str, trace_ids: Sequence[str]) -> List[dict]:
        """Every span of those traces, in Phoenix's own shape, oldest first."""
        spans: List[dict] = []
        try:
            for start in range(0, len(trace_ids), 50):  # trace ids go in the query string
                spans.extend(self._pages(f"/v1/projects/{_segment(project)}/spans",
                                         {"trace_id": list(trace_ids[start:start + 50]), "sort": "start_time",
                                          "order": "asc", "limit": PAGE}))
        except HttpError as error:
            raise PhoenixError(self._project_problem(project, error)) from None
        return spans

    def _project_problem(self, project: str, error: HttpError) -> str:
        if error.status == 404:
            return f"Phoenix at {self.url} has no project {project!r} ({error.detail})"
        return f"Phoenix at {self.url} could not list project {project!r}: {error}"

    def annotate(self, level: str, annotations: List[dict]) -> None:
        """Upsert span (``level`` "span") or trace annotations; :class:`HttpError` as Phoenix answers."""
        self._call("POST", f"/v1/{level}_annotations", {"sync": "true"}, {"data": annotations})


def _segment(name: str) -> str:
    return urllib.parse.quote(name, safe="")


# --- in ----------------------------------------------------------------------------------------

def as_openinference(span: dict) -> dict:
    """A span as Phoenix's REST API gives it, as the flat OpenInference span our converter reads:
    the span kind back among the attributes, the status as ``status``."""
    attributes = dict(span.get("attributes") or {})
    kind = span.get("span_kind")
    if kind and kind != "UNKNOWN":
        attributes.setdefault("openinference.span.kind", kind)
    flat = {"name": span.get("name") or "", "context": dict(span.get("context") or {}),
            "parent_id": span.get("parent_id"), "start_time": span.get("start_time"),
            "end_time": span.get("end_time"), "attributes": attributes,
            "status": {"status_code": span.get("status_code"), "description": span.get("status_message") or None},
            "events": span.get("events") or []}
    return flat


def read_project(url: str, project: str, since: Optional[str] = None, limit: Optional[int] = None,
                 trace_ids: Sequence[str] = ()) -> List[dict]:
    """The chosen traces' spans, as :func:`as_openinference` shapes them, oldest first."""
    phoenix = Phoenix(url)
    chosen = list(trace_ids) or phoenix.trace_ids(project, since, limit)
    if not chosen:
        raise PhoenixError(f"Phoenix at {phoenix.url}: project {project!r} has no traces"
                           + (f" since {since}" if since else ""))
    spans = phoenix.spans(project, chosen)
    missing = sorted(set(chosen) - {span.get("context", {}).get("trace_id") for span in spans})
    if missing:
        raise PhoenixError(f"Phoenix at {phoenix.url}: project {project!r} has no trace {', '.join(missing)}")
    return [as_openinference(span) for span in spans]


# --- out ---------------------------------------------------------------------------------------

def phoenix_annotation(label: Label) -> dict:
    """A label as Phoenix's annotation body: on the step's span, or on the run's trace."""
    result = {key: value for key, value in (("label", label.label), ("score", label.score),
                                            ("explanation", label.explanation)) if value is not None}
    body = {"name": label.name, "annotator_kind": label.kind, "result": result,
            "metadata": {"source": "potato-multiagent", **label.metadata},
            "identifier": label.identifier}
    return {"span_id": label.span_id, **body} if label.span_id else {"trace_id": label.trace_id, **body}


@dataclass
class PushReport:
    sent: List[Label] = field(default_factory=list)
    not_sent: List[tuple] = field(default_factory=list)
    """``(label, why)`` for every label Phoenix did not take."""
    errors: List[str] = field(default_factory=list)
    """One line per problem (an unreachable server is one problem, however many labels it costs)."""


def push_labels(url: str, labels: List[Label]) -> PushReport:
    """Send every label; a span or trace Phoenix lacks costs only its own labels."""
    phoenix = Phoenix(url)
    report = PushReport()
    batches = [(level, target, chunk) for level, target in (("span", "span_id"), ("trace", "trace_id"))
               for chunk in _chunks([label for label in labels if (label.span_id is not None) == (level == "span")])]
    for position, (level, target, batch) in enumerate(batches):
        if not _push_batch(phoenix, level, target, batch, report):  # the server is out of reach: one error
            report.not_sent.extend((label, "not sent: the server could not be used")
                                   for _, _, later in batches[position + 1:] for label in later)
            break
    return report


def _chunks(labels: List[Label], size: int = PAGE) -> List[List[Label]]:
    return [labels[start:start + size] for start in range(0, len(labels), size)]


def _push_batch(phoenix: Phoenix, level: str, target: str, batch: List[Label], report: PushReport) -> bool:
    """Send one batch; False when the server itself cannot be used (unreachable, refused key)."""
    try:
        phoenix.annotate(level, [phoenix_annotation(label) for label in batch])
        report.sent.extend(batch)
        return True
    except PhoenixError as error:
        report.errors.append(str(error))
        report.not_sent.extend((label, "not sent: the server could not be used") for label in batch)
        return False
    except HttpError as error:
        missing = _missing_ids(error) & {getattr(label, target) for label in batch}
        if error.status != 404 or not missing:  # (a 404 naming none of ours is refused, not retried)
            report.errors.append(f"Phoenix at {phoenix.url} refused the {level} annotations: {error}")
            report.not_sent.extend((label, f"refused: {error}") for label in batch)
            return True
    kept = [label for label in batch if getattr(label, target) not in missing]
    for ident in sorted(missing):
        lost = [label for label in batch if getattr(label, target) == ident]
        report.errors.append(f"Phoenix at {phoenix.url} has no {level} {ident} ({lost[0].where()}): "
                             f"{len(lost)} label(s) not sent")
        report.not_sent.extend((label, f"Phoenix has no {level} {ident}") for label in lost)
    return _push_batch(phoenix, level, target, kept, report) if kept else True


def _missing_ids(error: HttpError) -> set:
    match = _MISSING.search(error.detail)
    return {part.strip() for part in match.group(1).split(",")} if match else set()
