"""Turn-level tags shown by our trace view (MAST modes per step), read per step and mode.

A Potato ``turn_level: true`` multiselect or radio bound to a ``multiagent.trace`` field is stored
by Potato as one JSON value per item (label ``_data``: ``{"v": 1, "turns": {"t3": {"values": [...],
...}}}``); the trace view names each turn ``t<index>`` with the derivation's 0-based step index.
This adapter (chosen instead of :class:`~.potato_types.TurnLevelAdapter` for such schemes) makes
one row per (item, step, mode, annotator), with the step's agent from the derivation, and gives
agreement per mode and overall: every step of an item tagged by two or more annotators is a unit,
tagged with the mode or not; Cohen's kappa for exactly two annotators and Krippendorff's alpha
(nominal, any number of annotators: Fleiss' kappa generalised to missing judgements).

An annotator counts as judging an item once they tagged one of its steps: Potato's turn-level
value cannot tell "looked and found nothing" from "did not look".
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Type

import pandas as pd

from ..trace import Derivation
from ..types._base.adapter import INSTANCE, Judgements, step_agent
from .potato_types import Entries, PotatoAdapter, PotatoValueError, _one_json_value
from ..types._base.statistics import USER, Figure, cohen_kappa, krippendorff_alpha

TURN_TYPES = ("multiselect", "radio")
TRACE_VIEW_TYPE = "multiagent.trace"
DERIVE_KEYS = ("steps_key", "agent_key", "calls_key", "resource_key", "agents", "agent_qualifiers")
TURN_ID = re.compile(r"t(0|[1-9][0-9]*)\Z")
STEP, MODE, RUN_STEPS, TAGGED = "step", "mode", "run_steps", "tagged"


class TraceTurnTagsAdapter(PotatoAdapter):
    """One row per tagged (step, mode): Potato's turn id, the step (0-based, ``step_number`` beside
    it), its agent, the mode, and how many steps the run has (what agreement counts untagged steps
    from). A turn id that is not ``t<index>`` keeps its id with no step."""

    annotation_type = "turn_level"
    needs_derivation = True
    item_key = (STEP, MODE)
    step_columns = (STEP,)
    view_options: ClassVar[dict] = {}

    @classmethod
    def accepts(cls, scheme: dict) -> bool:
        return bool(scheme.get("turn_level")) and scheme.get("annotation_type") in TURN_TYPES

    @classmethod
    def for_scheme(cls, scheme: dict, config: Optional[dict]) -> Optional[Type["TraceTurnTagsAdapter"]]:
        """This adapter, with the trace view's derivation options, when ``scheme`` is bound to a
        ``multiagent.trace`` field of ``config``; else None."""
        if not cls.accepts(scheme) or not isinstance(config, dict):
            return None
        fields = (config.get("instance_display") or {}).get("fields") if isinstance(config.get("instance_display"), dict) else None
        views = [f for f in fields or [] if isinstance(f, dict) and f.get("type") == TRACE_VIEW_TYPE]
        bound = (scheme.get("turn_binding") or {}).get("field")
        view = next((f for f in views if bound is None or f.get("key") == bound), None)
        if view is None:
            return None
        flat = {**view, **(view.get("display_options") if isinstance(view.get("display_options"), dict) else {})}
        options = {key: flat[key] for key in DERIVE_KEYS if flat.get(key) is not None}
        return type(cls.__name__, (cls,), {"view_options": options})

    @classmethod
    def derive_options(cls, scheme: dict) -> dict:
        return dict(cls.view_options)

    @classmethod
    def columns(cls, scheme: dict) -> tuple:
        return ("turn", STEP, "step_agent", MODE, RUN_STEPS)

    @classmethod
    def rows(cls, entries: Entries, derivation: Optional[Derivation], scheme: dict) -> List[Dict[str, Any]]:
        value = _one_json_value([(label, text) for label, text in entries if label == "_data"] or entries)
        turns = value.get("turns") if isinstance(value, dict) else None
        if not isinstance(turns, dict):
            raise PotatoValueError('value: expected {"v": 1, "turns": {turn_id: {"values": [...]}}}')
        run_steps = len(derivation.steps) if derivation is not None else None
        rows = []
        for turn, entry in turns.items():
            entry = entry if isinstance(entry, dict) else {"values": entry}
            values = entry.get("values", entry.get("value"))
            values = [] if values in (None, "") else values if isinstance(values, list) else [values]
            match = TURN_ID.match(str(turn))
            step = int(match.group(1)) if match else None
            in_run = step is not None and run_steps is not None and step < run_steps
            agent = step_agent(derivation, step) if in_run else entry.get("agent_id")
            for mode in values:
                rows.append({"turn": str(turn), STEP: step, "step_agent": agent, MODE: str(mode), RUN_STEPS: run_steps})
        rows.sort(key=lambda row: (row[STEP] is None, row[STEP] or 0, row[MODE]))
        return rows

    @classmethod
    def agreement(cls, judgements: Judgements, scheme: dict, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        labels = [str(label.get("name", "")) if isinstance(label, dict) else str(label)
                  for label in scheme.get("labels") or []]
        units = unit_table(judgements.rows, labels)
        figures = []
        for mode in labels:
            figures.extend(_both(f"{mode}", units[units[MODE] == mode], [INSTANCE, STEP]))
        figures.extend(_both("overall", units, [INSTANCE, STEP, MODE]))
        return figures


def unit_table(rows: pd.DataFrame, modes: List[str]) -> pd.DataFrame:
    """(item, step, mode, annotator, tagged 0/1) for every step of every item two or more annotators
    tagged, and every mode."""
    tagged = {(r[INSTANCE], r[STEP], r[MODE], r[USER]) for r in rows.to_dict("records") if not pd.isna(r[STEP])}
    out = []
    for instance, of_item in rows.groupby(INSTANCE, sort=False):
        users = sorted(set(of_item[USER]), key=str)
        steps = of_item[RUN_STEPS].dropna()
        if len(users) < 2 or steps.empty:
            continue
        for step in range(int(steps.iloc[0])):
            for mode in modes:
                for user in users:
                    out.append({INSTANCE: instance, STEP: step, MODE: mode, USER: user,
                                TAGGED: int((instance, step, mode, user) in tagged)})
    return pd.DataFrame(out, columns=[INSTANCE, STEP, MODE, USER, TAGGED])


def _both(label: str, frame: pd.DataFrame, unit: List[str]) -> List[Figure]:
    return [cohen_kappa(f"{label}: Cohen's kappa", frame, unit, TAGGED),
            krippendorff_alpha(f"{label}: Krippendorff's alpha (nominal)", frame, unit, TAGGED, "nominal")]
