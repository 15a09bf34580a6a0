"""Langfuse: a task's labels as scores, through Potato's own write-back queue.

Each label is one score (``POST /api/public/scores``, the body Langfuse's SDK sends, see
tests/fixtures/real/langfuse/): on the step's observation (``observationId`` = the span id) or
on the trace. ``dataType`` follows the value: a yes/no flag is ``BOOLEAN`` (1 or 0), a label
``CATEGORICAL``, a number alone ``NUMERIC``. The score id is a uuid5 (Potato's
``writeback.score_id``) of the run, the name, the target and the annotator, so sending again
updates the same score.

Delivery is Potato's :class:`potato.trace_ingestion.writeback.WritebackQueue` in
``<task_dir>/langfuse_push.sqlite``: a score identical to one already delivered is not sent again,
and one that failed (server down, 5xx) stays queued, so the next push resumes where this one
stopped. Keys come from ``LANGFUSE_PUBLIC_KEY`` and ``LANGFUSE_SECRET_KEY``, as for Potato.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Tuple

from .labels import Label

QUEUE_FILE = "langfuse_push.sqlite"


def data_type(label: Label) -> str:
    if label.label in ("yes", "no") and label.score in (0.0, 1.0):
        return "BOOLEAN"
    return "CATEGORICAL" if label.label is not None else "NUMERIC"


def langfuse_score(label: Label) -> dict:
    """A label as Langfuse's score body (``CreateScoreRequest``)."""
    from potato.trace_ingestion.writeback import score_id

    kind = data_type(label)
    value = label.score if kind in ("BOOLEAN", "NUMERIC") else label.label
    target = label.span_id or "trace"
    body = {"id": score_id("langfuse", label.instance_id, f"{label.name}|{target}|{label.identifier}"),
            "traceId": label.trace_id, "name": label.name, "value": value, "dataType": kind,
            "metadata": {"source": "potato-multiagent", "identifier": label.identifier, **label.metadata}}
    if label.span_id:
        body["observationId"] = label.span_id
    if label.explanation:
        body["comment"] = label.explanation
    return body


@dataclass
class LangfuseReport:
    sent: int = 0
    unchanged: int = 0
    not_sent: List[Tuple[str, str]] = field(default_factory=list)
    """``(score key, why)`` for what is still queued or was refused."""

    def errors(self) -> List[str]:
        """One line per distinct reason, with how many scores it holds back."""
        counts: Dict[str, int] = {}
        for _, why in self.not_sent:
            counts[why] = counts.get(why, 0) + 1
        return [f"{why}: {count} score(s) not sent" for why, count in counts.items()]


def push_labels(host: str, labels: List[Label], task_dir: Path, session=None) -> LangfuseReport:
    """Queue every label's score and deliver what is due now (a retry of the last push included)."""
    from potato.trace_ingestion.writeback import WritebackQueue

    public, secret = os.environ.get("LANGFUSE_PUBLIC_KEY", ""), os.environ.get("LANGFUSE_SECRET_KEY", "")
    cfg = {"langfuse": {"host": host.rstrip("/"), "public_key": public, "secret_key": secret,
                        "score_configs": False}}
    db = task_dir / QUEUE_FILE
    queue = WritebackQueue(str(db), cfg, session=session)
    report = LangfuseReport()
    keys = []
    for label in labels:
        score = langfuse_score(label)
        key = score["id"]
        keys.append(f"langfuse|{label.instance_id}|{key}")
        queue.enqueue("langfuse", label.instance_id, key, score)
    with sqlite3.connect(str(db)) as connection:  # a push retries its queue now, not after the backoff
        report.unchanged = sum(1 for key in keys if (connection.execute(
            "SELECT status FROM writeback WHERE key=?", (key,)).fetchone() or [None])[0] == "sent")
        connection.execute("UPDATE writeback SET next_attempt_at=0, status='pending' "
                           "WHERE status IN ('pending', 'failed')")
    report.sent = queue.deliver_due()
    with sqlite3.connect(str(db)) as connection:
        for key in keys:
            row = connection.execute("SELECT status, last_error FROM writeback WHERE key=?", (key,)).fetchone()
            if row is not None and row[0] != "sent":
                report.not_sent.append((key, f"Langfuse at {cfg['langfuse']['host']}: {row[1]}"))
    return report
