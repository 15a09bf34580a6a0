"""Potato's turn-level tags (``turn_level: true`` multiselect or radio) read per step: MAST modes.

Potato stores each turn-level scheme as one JSON value per item (``{"v": 1, "turns": {"t3":
{"values": [...], ...}}}``, under the label ``_data``); the trace view names turns ``t<index>`` with
the derivation's 0-based step index. Here that becomes a tidy table, one row per (item, step, mode,
annotator), and agreement per mode and overall: every step of an item judged by two or more
annotators is a unit, tagged with the mode or not (an annotator who saved the scheme for the item
judged all of its steps); Cohen's kappa for exactly two annotators, Krippendorff's alpha (nominal,
any number of annotators, the generalisation of Fleiss' kappa that allows missing judgements).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import pandas as pd

from ..task import Task
from ..trace import derive
from .adapters.base import INSTANCE
from .statistics import USER, Figure, cohen_kappa, krippendorff_alpha

TURN_TYPES = ("multiselect", "radio")
TURN_ID = re.compile(r"t(0|[1-9][0-9]*)\Z")
STEP, STEP_NUMBER, AGENT, MODE, TAGGED = "step", "step_number", "agent", "mode", "tagged"
TRACE_VIEW_TYPE = "multiagent.trace"
DERIVE_KEYS = ("steps_key", "agent_key", "calls_key", "resource_key", "agents", "agent_qualifiers")


@dataclass
class TurnTagTable:
    """One turn-level scheme: its tidy rows and who judged which item (for units with no tag)."""

    name: str
    annotation_type: str
    labels: List[str]
    rows: List[dict] = field(default_factory=list)
    judged: Dict[str, set] = field(default_factory=dict)
    """instance_id -> users who saved a value for it (an empty value included)."""
    step_counts: Dict[str, int] = field(default_factory=dict)
    skipped: List[str] = field(default_factory=list)

    columns = (INSTANCE, USER, STEP, STEP_NUMBER, AGENT, MODE)

    def type_name(self) -> str:
        return f"turn_level {self.annotation_type}"

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=list(self.columns)).convert_dtypes()

    def judgements(self) -> pd.DataFrame:
        """One row per (item, step, mode, annotator) of every item two or more annotators judged: tagged 0/1."""
        tagged = {(row[INSTANCE], row[STEP], row[MODE], row[USER]) for row in self.rows}
        rows = []
        for instance, users in self.judged.items():
            if len(users) < 2:
                continue
            for step in range(self.step_counts.get(instance, 0)):
                for mode in self.labels:
                    for user in sorted(users):
                        rows.append({INSTANCE: instance, STEP: step, MODE: mode, USER: user,
                                     TAGGED: int((instance, step, mode, user) in tagged)})
        return pd.DataFrame(rows, columns=[INSTANCE, STEP, MODE, USER, TAGGED])


def turn_level_schemes(task: Task) -> List[dict]:
    return [scheme for scheme in task.all_schemes()
            if scheme.get("turn_level") and scheme.get("annotation_type") in TURN_TYPES]


def read_turn_tags(task: Task) -> Dict[str, TurnTagTable]:
    """Every turn-level multiselect/radio scheme of the task as a table (schemes in config order)."""
    schemes = turn_level_schemes(task)
    if not schemes:
        return {}
    tables = {str(s["name"]): TurnTagTable(str(s["name"]), s["annotation_type"], _labels(s)) for s in schemes}
    records = task.records()
    options = _derive_options(task.config, schemes)
    derivations: Dict[Tuple[str, str], object] = {}
    for user, instance, scheme, raw in _saved_turn_values(task, set(tables)):
        table = tables[scheme]
        turns = _turns(raw)
        if turns is None:
            table.skipped.append(f"{instance} / {user}: the saved value is not a turn-level value")
            continue
        derivation = _derivation(derivations, records, instance, options.get(scheme, {}))
        steps = derivation.steps if derivation is not None else []
        table.step_counts[instance] = len(steps)
        table.judged.setdefault(instance, set()).add(user)
        for turn_id, entry in turns.items():
            match = TURN_ID.match(str(turn_id))
            if not match or not isinstance(entry, dict):
                table.skipped.append(f"{instance} / {user}: turn {turn_id!r} is not a step of the trace view")
                continue
            step = int(match.group(1))
            agent = steps[step].agent if step < len(steps) else entry.get("agent_id")
            for mode in _values(entry):
                table.rows.append({INSTANCE: instance, USER: user, STEP: step, STEP_NUMBER: step + 1,
                                   AGENT: agent, MODE: mode})
    for table in tables.values():
        table.rows.sort(key=lambda row: (row[INSTANCE], row[STEP], row[MODE], row[USER]))
    return tables


def turn_tag_figures(table: TurnTagTable) -> List[Tuple[str, Figure]]:
    """(mode or "overall", figure) pairs: kappa when two annotators, alpha always."""
    judgements = table.judgements()
    figures: List[Tuple[str, Figure]] = []
    for mode in table.labels:
        of_mode = judgements[judgements[MODE] == mode]
        figures.extend(_pair(f"{mode}", of_mode, [INSTANCE, STEP]))
    figures.extend(_pair("overall", judgements, [INSTANCE, STEP, MODE]))
    return figures


def _pair(label: str, frame: pd.DataFrame, unit: List[str]) -> List[Tuple[str, Figure]]:
    return [(label, cohen_kappa(f"{label}: Cohen's kappa", frame, unit, TAGGED)),
            (label, krippendorff_alpha(f"{label}: Krippendorff's alpha", frame, unit, TAGGED, "nominal"))]


def _labels(scheme: dict) -> List[str]:
    return [str(label.get("name", "")) if isinstance(label, dict) else str(label) for label in scheme.get("labels") or []]


def _values(entry: dict) -> List[str]:
    if isinstance(entry.get("values"), list):
        return [str(value) for value in entry["values"]]
    if entry.get("value") not in (None, ""):
        return [str(entry["value"])]
    return []


def _turns(raw) -> Optional[dict]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("turns", {}), dict):
        return None
    return value.get("turns", {})


def _saved_turn_values(task: Task, names: set):
    """(user, instance, scheme, raw value) of every saved turn-level value."""
    if not task.output_dir.is_dir():
        return
    for state_path in sorted(task.output_dir.glob("*/user_state.json")):
        state = json.loads(state_path.read_text(encoding="utf-8"))
        user = str(state.get("user_id") or state_path.parent.name)
        for instance, pairs in (state.get("instance_id_to_label_to_value") or {}).items():
            for label, value in pairs:
                scheme = label.get("schema") if isinstance(label, dict) else None
                if scheme in names and value not in (None, ""):
                    yield user, str(instance), scheme, value


def _derive_options(config: dict, schemes: List[dict]) -> Dict[str, dict]:
    """Each scheme's derivation options: those of the trace view field it is bound to."""
    fields = ((config.get("instance_display") or {}).get("fields") or []) if isinstance(config, dict) else []
    views = {f.get("key"): f for f in fields if isinstance(f, dict) and f.get("type") == TRACE_VIEW_TYPE}
    options = {}
    for scheme in schemes:
        bound = (scheme.get("turn_binding") or {}).get("field")
        view = views.get(bound) or (next(iter(views.values())) if views and bound is None else {})
        flat = {**view, **(view.get("display_options") or {})} if view else {}
        options[str(scheme["name"])] = {key: flat[key] for key in DERIVE_KEYS if flat.get(key) is not None}
    return options


def _derivation(cache: dict, records: dict, instance: str, options: dict):
    if instance not in records:
        return None
    key = (instance, json.dumps(options, sort_keys=True))
    if key not in cache:
        cache[key] = derive(records[instance], **options)
    return cache[key]
