"""Labels kept apart from the runs (``convert ... --gold-from FILE_OR_DIR [--gold-key FIELD]
[--gold-step-base 0|1]``), joined to the converted runs' gold.

A label is a JSON object: each element of a JSON array or JSON Lines file, a file holding one object,
a Parquet row. Its run is named by its ``FIELD`` (AgentRx's ``trajectory_id``, TRAIL's ``trace_id``);
a file holding one label and no such field is named by its file stem (TRAIL's
``processed_annotations_<split>/<trace_id>.json``). A label joins the run whose id, or whose record
field ``FIELD``, is that name.

Steps a label points at get ``step_index``, the 0-based index our widgets show as #N = index + 1:

- a number under ``step_number``, ``step`` or ``mistake_step`` (at any depth: AgentRx's
  ``failures[].step_number``), counted from the base the label states (``step_base``) or the one
  ``--gold-step-base`` names; a label that numbers steps with neither is refused, never guessed;
- a span id under ``location`` (TRAIL's errors): the step of that span, or of its nearest ancestor.

An AgentRx label (``failures`` and a ``root_cause`` naming one of them) also gives Who&When's
attribution fields, ``mistake_agent``, ``mistake_step`` and ``mistake_reason``, from its root-cause
failure, so ``agreement --gold`` scores attribution against it. Runs without a label and labels
without a run are both reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from ..trace import derive
from .sources import Converted, ConvertError, Item, input_files, json_kind, read_items

STEP_NUMBER_FIELDS = ("step_number", "step", "mistake_step")
LOCATION_FIELD = "location"


@dataclass(frozen=True)
class LabelSource:
    """Where the labels are and how they name their runs and number their steps."""

    path: Path
    key: Optional[str] = None
    step_base: Optional[int] = None


@dataclass
class Joined:
    entries: List[Converted]
    unlabelled: List[str] = field(default_factory=list)
    """Ids of runs no label named."""
    unmatched: List[str] = field(default_factory=list)
    """``FILE:LINE: name`` of labels that name no run."""
    labelled: int = 0


def join(entries: List[Converted], source: LabelSource, problems: Optional[List[ConvertError]]) -> Joined:
    """The entries with their labels merged into gold; ``problems`` takes a label that cannot be
    joined (a step outside its run, steps with no base) when not strict, else it raises."""
    labels = _labels(source, problems)
    index: Dict[str, int] = {}
    for position, entry in enumerate(entries):
        index.setdefault(str(entry.record["id"]), position)
        named = entry.record.get(source.key) if source.key else None
        if isinstance(named, (str, int)) and not isinstance(named, bool):
            index.setdefault(str(named), position)
    joined = Joined(entries=list(entries))
    seen = set()
    for name, label, item in labels:
        position = index.get(name)
        if position is None:
            joined.unmatched.append(f"{item.path}:{item.line}: {name}")
            continue
        try:
            joined.entries[position] = _merged(joined.entries[position], label, item, source.step_base)
        except ConvertError as error:
            if problems is None:
                raise
            problems.append(error)
            continue
        seen.add(position)
    joined.labelled = len(seen)
    joined.unlabelled = [str(entry.record["id"]) for position, entry in enumerate(joined.entries) if position not in seen]
    return joined


def _labels(source: LabelSource, problems: Optional[List[ConvertError]]) -> List[Tuple[str, dict, Item]]:
    found: List[Tuple[str, dict, Item]] = []
    for path in input_files([source.path]):
        items = read_items(path, problems)
        for item in items:
            if not isinstance(item.value, dict):
                raise item.error("label", f"expected a label object, found {json_kind(item.value)}")
            name = item.value.get(source.key) if source.key else None
            if name is None and (source.key is None or len(items) == 1):
                name = path.stem
            if not isinstance(name, (str, int)) or isinstance(name, bool):
                shown = "nothing" if source.key not in item.value else json_kind(name)
                raise item.error(source.key or "label", f"expected the id of a run, found {shown}")
            found.append((str(name), item.value, item))
    return found


def _merged(entry: Converted, label: dict, item: Item, step_base: Optional[int]) -> Converted:
    """The entry with the label in its gold: steps resolved to ``step_index``, AgentRx's root cause
    as the attribution; a field the run's own gold already had is replaced, with a warning."""
    steps = entry.record.get("steps") or []
    base = label.get("step_base", step_base)
    if base not in (None, 0, 1):
        raise item.error("step_base", f"expected 0 or 1, found {base!r}")
    unlocated: List[str] = []
    located = _resolve(label, item, base, len(steps), entry.locations or _own_span_steps(steps), "", unlocated)
    located.pop("step_base", None)
    located.update(_attribution(located))
    warnings = list(entry.warnings) + [
        f"{item.path}:{item.line}: {where}: {entry.record['id']}: no step of this run is at span {span!r}: "
        f"in gold with no step" for where, span in unlocated]
    gold = dict(entry.gold or {})
    for key, value in located.items():
        if key in gold and gold[key] != value:
            warnings.append(f"{item.path}:{item.line}: {key}: the label replaces the run's own {key!r} in gold")
        gold[key] = value
    warnings.extend(_agent_warnings(located, entry.record, item))
    return replace(entry, gold=gold, warnings=tuple(warnings))


def _resolve(value: Any, item: Item, base: Optional[int], count: int, spans: Dict[str, Optional[int]],
             path: str, unlocated: List[tuple]) -> Any:
    """The label with ``step_index`` beside every step it points at; ``unlocated`` collects the
    span locations no step is at."""
    if isinstance(value, list):
        return [_resolve(inner, item, base, count, spans, f"{path}[{k}]", unlocated) for k, inner in enumerate(value)]
    if not isinstance(value, dict):
        return value
    resolved = {key: _resolve(inner, item, base, count, spans, f"{path}.{key}" if path else key, unlocated)
                for key, inner in value.items()}
    number_field = next((key for key in STEP_NUMBER_FIELDS if key in value and _number(value[key]) is not None), None)
    if number_field is not None:
        where = f"{path}.{number_field}" if path else number_field
        if base is None:
            raise item.error(where, "the labels number steps but say neither from 0 nor from 1: pass "
                                    "--gold-step-base 0 or 1 (AgentRx counts from 1)")
        index = _number(value[number_field]) - base
        if not 0 <= index < count:
            raise item.error(where, f"{value[number_field]} (counted from {base}) is not a step of this run "
                                    f"({count} steps)")
        resolved["step_index"] = index
    elif isinstance(value.get(LOCATION_FIELD), str) and spans:
        resolved["step_index"] = spans.get(value[LOCATION_FIELD])
        if resolved["step_index"] is None:
            unlocated.append((f"{path}.{LOCATION_FIELD}" if path else LOCATION_FIELD, value[LOCATION_FIELD]))
    return resolved


def _number(value: Any) -> Optional[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


def _own_span_steps(steps: List[Any]) -> Dict[str, Optional[int]]:
    """Span formats other than OpenInference: each step's own span id."""
    return {step["span_id"]: index for index, step in enumerate(steps)
            if isinstance(step, dict) and isinstance(step.get("span_id"), str)}


def _attribution(label: dict) -> dict:
    """AgentRx: the root-cause failure as Who&When's ``mistake_agent``/``mistake_step``/``mistake_reason``."""
    failures, root = label.get("failures"), label.get("root_cause")
    if not (isinstance(failures, list) and isinstance(root, dict)) or "failure_id" not in root:
        return {}
    failure = next((f for f in failures if isinstance(f, dict) and f.get("failure_id") == root["failure_id"]), None)
    if failure is None or "step_index" not in failure:
        return {}
    found = {"mistake_agent": failure.get("failed_agent"), "mistake_step": failure["step_index"],
             "mistake_reason": root.get("reason_for_root_cause") or failure.get("step_reason")}
    return {key: value for key, value in found.items() if value is not None}


def _agent_warnings(label: dict, record: dict, item: Item) -> List[str]:
    """A label naming an agent the run does not have (AgentRx writes ``Websurfer`` for ``WebSurfer``)."""
    named = {failure.get("failed_agent") for failure in label.get("failures") or [] if isinstance(failure, dict)}
    named.add(label.get("mistake_agent"))
    named.discard(None)
    if not named:
        return []
    agents = derive(record).agents
    return [f"{item.path}:{item.line}: failed_agent: {record['id']}: {name!r} is not an agent of this run "
            f"(its agents: {', '.join(agents)})" for name in sorted(n for n in named if isinstance(n, str))
            if name not in agents]
