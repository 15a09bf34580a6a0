"""A task's saved answers as tool-neutral labels, each on the run's trace or on one step's span.

One label is one annotator's answer to one question about one target, as a trace tool stores it:
a ``name``, a ``label`` (a category) and/or a ``score`` (a number), an ``explanation`` (the
annotator's note) and ``metadata``. Which answers become which labels:

- ``multiagent.failure_attribution``: the decisive step's span gets ``<scheme>`` with the
  responsible agent as label and the reason as explanation (certainty and plausible steps in
  metadata); an answer naming an agent but no step goes on the trace;
- ``multiagent.handoff_review``: each reviewed handoff, on the span of its ``step`` (where
  control arrived; an explicit handoff event's own):
  ``<scheme>.<flag>`` per flag (label ``yes``/``no``, score 1/0) and ``<scheme>.quality``
  (score), the note as explanation;
- ``multiagent.tool_call_review``: each judged call, on its step's span: ``<scheme>`` with the
  verdict as label, the notes as explanation;
- Potato's ``trajectory_eval`` (MAST tagging on each step): each judged step's span gets
  ``<scheme>`` with the error type (else the correctness) as label, the rationale as explanation;
- ``multiagent.mast``: each step tag is one ``<scheme>`` label on its step's span (the mode's code
  as label, score 1, the note as explanation; name, category and severity in metadata), and each
  mode present in the run one ``<scheme>`` label on the trace (with the steps it was tagged on, and
  the whole-run mark's note);
- MAST tags on the trace view's steps (Potato's turn-level ``multiselect``): each tagged mode is
  one ``<scheme>`` label (score 1) on the step's span;
- Potato's ``radio`` and ``multiselect`` (run-level questions): the trace gets ``<scheme>``
  with the chosen label(s).

Besides each annotator's saved answers, the settled gold (``gold.schemes.<scheme>`` as
``adjudicate`` and ``export --as-gold`` write it) goes out as annotator ``gold`` (``HUMAN``,
``adjudicated`` in metadata), and a judgments file's judgments as their ``source`` (``LLM``).

Other schemes judge what no single span or trace carries (a graph, a scorecard, a region) and are
named in ``left_out``. A label keeps who gave it: its ``identifier`` is the annotator plus what it
judges (a handoff, a call), so re-sending it updates the tool's copy instead of adding one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ..analysis import collect
from ..types._base.adapter import INSTANCE
from ..types._base.statistics import USER
from ..task import Task
from ..trace import derive
from ..types.mast.adapter import LEVEL as MAST_LEVEL, STEP_LEVEL as MAST_STEP_LEVEL

HUMAN, LLM = "HUMAN", "LLM"


@dataclass(frozen=True)
class Label:
    instance_id: str
    trace_id: str
    span_id: Optional[str]
    """The step's span; None for a label on the whole run (the trace)."""
    step: Optional[int]
    scheme: str
    name: str
    annotator: str
    kind: str
    """``HUMAN`` for a person, ``LLM`` for a judge's judgment."""
    label: Optional[str] = None
    score: Optional[float] = None
    explanation: Optional[str] = None
    key: str = ""
    """What the label judges within its target when there may be several (``handoff 2``)."""
    metadata: Dict[str, Any] = field(default_factory=dict)

    @property
    def identifier(self) -> str:
        return f"potato-multiagent:{self.annotator}" + (f":{self.key}" if self.key else "")

    def where(self) -> str:
        step = f" step #{self.step + 1}" if self.step is not None else ""
        return f"{self.instance_id}{step} / {self.annotator} / {self.name}"


@dataclass
class TaskLabels:
    labels: List[Label] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    """Answers that cannot be placed (a step without a span id), one line each; they stay local."""
    left_out: List[str] = field(default_factory=list)
    """Schemes whose answers go to no trace tool, with the reason."""


Answer = Tuple[str, str, str, str, Any, str]
"""An answer that is not an annotator's saved value: ``(instance id, scheme, annotator, kind,
stored value, where it was read)``."""


def task_labels(task: Task, answers: Iterable[Answer] = ()) -> TaskLabels:
    """Every valid saved answer of ``task`` that a trace tool can hold, as labels; then ``answers``
    (gold, judgments: :func:`gold_answers`, :func:`judgment_answers`), each checked as a saved value is."""
    collection = collect(task)
    records = task.records()
    out = TaskLabels(left_out=[f"{line} (not pushed)" for line in collection.skipped])
    for table in collection.tables.values():
        build = _BUILDERS.get(table.type_name)
        if build is None:
            if table.rows:
                out.left_out.append(f"{table.name} ({table.type_name}): judges no single span or trace; not pushed")
            continue
        for row in table.rows:
            record = records.get(row[INSTANCE])
            if isinstance(record, dict):
                build(_Place(out, table, row, record))
    for instance, scheme, annotator, kind, value, where in answers:
        _add_answer(out, collection.tables, records, instance, scheme, annotator, kind, value, where)
    return out


def gold_answers(gold: Dict[str, dict], where: str) -> List[Answer]:
    """The settled values of a gold file (``read_gold``), as annotator ``gold``."""
    return [(instance, scheme, "gold", HUMAN, value, where)
            for instance, entry in gold.items()
            for scheme, value in ((entry.get("schemes") or {}) if isinstance(entry, dict) else {}).items()]


def judgment_answers(judgments) -> List[Answer]:
    """A judgments file's judgments (``read_judgments``), each as its source, an ``LLM``."""
    return [(j.id, j.scheme, j.source, LLM, j.value, j.where) for j in judgments]


def _add_answer(out: TaskLabels, tables, records, instance: str, scheme: str, annotator: str, kind: str,
                value: Any, where: str) -> None:
    table, record = tables.get(scheme), records.get(instance)
    if table is None or table.scheme is None or not isinstance(record, dict):
        why = "no run of the task has that id" if table is not None and table.scheme is not None else \
            "not one of the task's multiagent schemes"
        out.problems.append(f"{where}: {instance} / {scheme}: {why}; not pushed")
        return
    build = _BUILDERS.get(table.type_name)
    if build is None:
        return
    derivation = derive(record, **table.config.derive_options())
    stored = value if isinstance(value, str) else json.dumps(value)
    problems = table.scheme.validate(stored, record, table.config, derivation)
    if problems:
        out.problems.append(f"{where}: {instance} / {scheme}: {'; '.join(problems)}; not pushed")
        return
    parsed = table.scheme.Value.model_validate(json.loads(stored))
    extra = {"adjudicated": True} if annotator == "gold" else {"judge": annotator} if kind == LLM else {}
    for row in table.adapter.rows(parsed, derivation, table.config):
        build(_Place(out, table, {**row, INSTANCE: instance, USER: annotator}, record, kind, extra))


class _Place:
    """Where one exported row's labels go, and the common fields they share."""

    def __init__(self, out: TaskLabels, table, row: dict, record: dict, kind: str = HUMAN,
                 extra: Optional[dict] = None):
        self.out, self.table, self.row, self.record = out, table, row, record
        self.kind, self.extra = kind, extra or {}

    def add(self, step: Optional[int], name: str, *, label: Optional[str] = None, score: Optional[float] = None,
            explanation: Optional[str] = None, key: str = "", metadata: Optional[dict] = None) -> None:
        span_id = None
        if step is not None:
            steps = self.record.get("steps") if isinstance(self.record.get("steps"), list) else []
            found = steps[step] if 0 <= step < len(steps) and isinstance(steps[step], dict) else {}
            span_id = found.get("span_id")
            if not isinstance(span_id, str) or not span_id:
                self.out.problems.append(f"{self.row[INSTANCE]} step #{step + 1}: no span_id, so its label "
                                         f"{name!r} by {self.row[USER]} has no span to go on; not pushed")
                return
        trace_id = self.record.get("trace_id") or self.record.get("id")
        self.out.labels.append(Label(
            instance_id=str(self.row[INSTANCE]), trace_id=str(trace_id), span_id=span_id, step=step,
            scheme=self.table.name, name=name, annotator=str(self.row[USER]), kind=self.kind, label=label,
            score=score, explanation=explanation or None, key=key,
            metadata={"instance_id": str(self.row[INSTANCE]), "annotator": str(self.row[USER]),
                      **({"step_number": step + 1} if step is not None else {}), **self.extra,
                      **{k: v for k, v in (metadata or {}).items() if v is not None}}))


def _failure_attribution(place: _Place) -> None:
    row = place.row
    place.add(row["decisive_step"], place.table.name, label=row["responsible_agent"], explanation=row["reason"],
              metadata={"certainty": row.get("certainty"),
                        "plausible_step_numbers": [s + 1 for s in row.get("plausible_steps") or []] or None})


def _handoff_review(place: _Place) -> None:
    row = place.row
    if not row["reviewed"]:
        return
    key = f"handoff {row['handoff_index']}"
    about = {"handoff": f"{row['from']} -> {row['to']}", "from_step_number": _number(row.get("from_step"))}
    for flag in place.table.config.flags:
        marked = row.get(f"flag_{flag}")
        place.add(row["step"], f"{place.table.name}.{flag}", label="yes" if marked else "no", score=1.0 if marked else 0.0,
                  explanation=row.get("note"), key=key, metadata=about)
    if row.get("quality") is not None:
        place.add(row["step"], f"{place.table.name}.quality", score=float(row["quality"]),
                  explanation=row.get("note"), key=key, metadata=about)


def _tool_call_review(place: _Place) -> None:
    row = place.row
    if row.get("verdict") is None:
        return
    place.add(row["step"], place.table.name, label=str(row["verdict"]), explanation=row.get("notes"),
              key=f"call {row['call_id']}", metadata={"tool": row.get("tool"), "call_id": row.get("call_id")})


def _trajectory_eval(place: _Place) -> None:
    row = place.row
    place.add(row["step"], place.table.name, label=row.get("error_type") or row.get("correctness"),
              explanation=row.get("rationale"),
              metadata={"correctness": row.get("correctness"), "severity": row.get("severity"),
                        "error_subtype": row.get("error_subtype")})


def _turn_tags(place: _Place) -> None:
    row = place.row
    if row.get("step") is None:
        place.out.problems.append(f"{row[INSTANCE]} turn {row['turn']}: not a step of the trace view, so its tag "
                                  f"{row['mode']!r} by {row[USER]} has no span to go on; not pushed")
        return
    place.add(row["step"], place.table.name, label=str(row["mode"]), score=1.0, key=f"mode {row['mode']}")


def _mast(place: _Place) -> None:
    row = place.row
    about = {"mode_name": row.get("mode_name"), "category": row.get("category"), "severity": row.get("severity")}
    if row[MAST_LEVEL] == MAST_STEP_LEVEL:
        place.add(row["step"], place.table.name, label=str(row["mode"]), score=1.0, explanation=row.get("note"),
                  key=f"mode {row['mode']}", metadata=about)
    elif row.get("present"):
        place.add(None, place.table.name, label=str(row["mode"]), score=1.0, explanation=row.get("note"),
                  key=f"mode {row['mode']}",
                  metadata={**about, "step_numbers": [step + 1 for step in row.get("steps") or []] or None,
                            "whole_run": row.get("whole_run")})


def _radio(place: _Place) -> None:
    place.add(None, place.table.name, label=place.row.get("label"), explanation=place.row.get("free_response"))


def _multiselect(place: _Place) -> None:
    labels = place.row.get("labels") or []
    place.add(None, place.table.name, label=", ".join(labels) or None, explanation=place.row.get("free_response"),
              metadata={"labels": labels})


def _number(step: Any) -> Optional[int]:
    return step + 1 if isinstance(step, int) else None


_BUILDERS = {
    "multiagent.failure_attribution": _failure_attribution,
    "multiagent.handoff_review": _handoff_review,
    "multiagent.tool_call_review": _tool_call_review,
    "multiagent.mast": _mast,
    "trajectory_eval": _trajectory_eval,
    "multiselect (turn_level)": _turn_tags,
    "radio": _radio,
    "multiselect": _multiselect,
}
