"""Potato's own types used beside ours in one task: radio, multiselect, trajectory_eval, turn-level.

A study rarely uses our types alone: the run's outcome is a ``radio``, MAST step tagging is
``trajectory_eval``, a per-turn error list is a ``turn_level`` multiselect. Their answers come out
of ``export`` and ``load_task`` as tables beside ours, with the same common columns, so one join
on ``instance_id`` and ``user`` puts the outcome next to the attribution.

Potato stores them as ``[{"schema", "name": label}, value]`` pairs (teardown notes §5): a radio
as one pair whose value is the label (or ``"true"``), a multiselect as one pair per ticked box, a
radio/multiselect's "Other" text as the label ``free_response``, ``trajectory_eval`` as one JSON
text ``{steps: [{step_index, correctness, severity?, error_type?, error_subtype?, rationale?}],
score, score_complete}``, and a turn-level scheme as the label ``_data`` holding
``{"v": 1, "schema_type", "turns": {turn_id: {"values", "speaker", "step_type", "agent_id"?}}}``.
Which boxes count as ticked is decided by Potato's own ``answer_collapse`` rules.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Type

from ..trace import Derivation
from ..types._base.adapter import INSTANCE, Adapter, Judgements, per_judge, step_agent, step_text
from ..types._base.statistics import Figure, cohen_kappa, krippendorff_alpha, mean_pairwise_jaccard

FREE_RESPONSE = "free_response"
Entries = Sequence[Tuple[str, Any]]


class PotatoValueError(ValueError):
    """A stored answer this reader cannot make sense of (listed as invalid, never in a table)."""


class PotatoAdapter(Adapter):
    """An adapter for one of Potato's types. As :class:`Adapter`, but ``rows(entries, derivation,
    scheme)`` reads the scheme's stored ``[(label_name, value)]`` entries (``derivation`` is the
    record's, with the scheme's ``steps_key``, when ``needs_derivation``; else None) and raises
    :class:`PotatoValueError` for an answer it cannot read; ``config`` is the scheme's dict."""

    annotation_type: ClassVar[str]
    needs_derivation: ClassVar[bool] = False

    @classmethod
    def accepts(cls, scheme: dict) -> bool:
        return scheme.get("annotation_type") == cls.annotation_type and not scheme.get("turn_level")

    @classmethod
    def derive_options(cls, scheme: dict) -> dict:
        return {"steps_key": str(scheme.get("steps_key") or "steps")}


def _split_free_response(entries: Entries) -> Tuple[List[Tuple[str, Any]], Optional[str]]:
    choices = [(label, value) for label, value in entries if label != FREE_RESPONSE]
    texts = [value for label, value in entries if label == FREE_RESPONSE and isinstance(value, str) and value]
    return choices, (texts[-1] if texts else None)


def _selected(entries: Entries, scheme: dict) -> Any:
    from potato.server_utils.answer_collapse import collapse_entries

    value, _, _ = collapse_entries(list(entries), str(scheme.get("name")), scheme.get("annotation_type"))
    return value


class RadioAdapter(PotatoAdapter):
    """One row per answer: the chosen ``label`` and the "Other" text; alpha and kappa on labels."""

    annotation_type = "radio"

    @classmethod
    def columns(cls, scheme: dict) -> tuple:
        return ("label", "free_response")

    @classmethod
    def rows(cls, entries: Entries, derivation: Optional[Derivation], scheme: dict) -> List[Dict[str, Any]]:
        choices, other = _split_free_response(entries)
        label = _selected(choices, scheme) if choices else None
        if isinstance(label, list):
            raise PotatoValueError(f"several labels are stored for one radio: {label}")
        if label is None and other is None:
            return []
        return [{"label": None if label is None else str(label), "free_response": other}]

    @classmethod
    def agreement(cls, judgements: Judgements, scheme: dict, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        rows, unit = judgements.rows, cls.unit()
        return [krippendorff_alpha("label alpha (nominal)", rows, unit, "label", "nominal"),
                cohen_kappa("label kappa (Cohen)", rows, unit, "label")]


class MultiselectAdapter(PotatoAdapter):
    """One row per answer: the ticked ``labels`` (a list) and the "Other" text; Jaccard of label sets."""

    annotation_type = "multiselect"

    @classmethod
    def columns(cls, scheme: dict) -> tuple:
        return ("labels", "free_response")

    @classmethod
    def rows(cls, entries: Entries, derivation: Optional[Derivation], scheme: dict) -> List[Dict[str, Any]]:
        choices, other = _split_free_response(entries)
        selected = _selected(choices, scheme) if choices else None
        labels = [] if selected is None else [str(item) for item in (selected if isinstance(selected, list) else [selected])]
        if not labels and other is None:
            return []
        return [{"labels": labels, "free_response": other}]

    @classmethod
    def agreement(cls, judgements: Judgements, scheme: dict, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        sets = per_judge(judgements, "labels", lambda row: row["labels"])
        return [mean_pairwise_jaccard("label-set Jaccard", sets, (INSTANCE,), "labels")]


class TrajectoryEvalAdapter(PotatoAdapter):
    """One row per judged step (MAST tagging): the step (0-based, with ``step_number``), its agent
    and text from our derivation, correctness, severity, error type and subtype, rationale, and
    the instance's score. Alpha on correctness, steps matched by index."""

    annotation_type = "trajectory_eval"
    item_key = ("step",)
    step_columns = ("step",)
    needs_derivation = True

    @classmethod
    def columns(cls, scheme: dict) -> tuple:
        return ("step", "step_agent", "step_text", "correctness", "severity", "error_type", "error_subtype",
                "rationale", "score", "score_complete")

    @classmethod
    def rows(cls, entries: Entries, derivation: Optional[Derivation], scheme: dict) -> List[Dict[str, Any]]:
        value = _one_json_value(entries)
        steps = value.get("steps") if isinstance(value, dict) else None
        if not isinstance(steps, list):
            raise PotatoValueError("value: expected {steps: [...], score, score_complete}")
        rows = []
        for position, step in enumerate(steps):
            if not isinstance(step, dict) or not step.get("correctness"):
                continue  # an unjudged step (Potato fills one per card)
            index = step.get("step_index", position)
            if not isinstance(index, int) or isinstance(index, bool) or index < 0:
                raise PotatoValueError(f"steps[{position}].step_index: expected a step index, got {index!r}")
            rows.append({"step": index, "step_agent": step_agent(derivation, index),
                         "step_text": step_text(derivation, index), "correctness": step["correctness"],
                         "severity": step.get("severity") or None, "error_type": step.get("error_type") or None,
                         "error_subtype": step.get("error_subtype") or None,
                         "rationale": step.get("rationale") or None, "score": value.get("score"),
                         "score_complete": value.get("score_complete")})
        return rows

    @classmethod
    def agreement(cls, judgements: Judgements, scheme: dict, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        rows, unit = judgements.rows, cls.unit()
        return [krippendorff_alpha("step correctness alpha (nominal)", rows, unit, "correctness", "nominal"),
                krippendorff_alpha("step error subtype alpha (nominal)", rows, unit, "error_subtype", "nominal")]


class TurnLevelAdapter(PotatoAdapter):
    """Any scheme with ``turn_level: true``: one row per annotated turn, with Potato's turn id (its
    display's own numbering, ``t3`` or the data's ``turn_id``), the snapshot of speaker, agent and
    step type it stored, and the ``values`` (a list). No agreement figure: turn ids are Potato's."""

    annotation_type = "turn_level"
    item_key = ("turn",)

    @classmethod
    def accepts(cls, scheme: dict) -> bool:
        return bool(scheme.get("turn_level"))

    @classmethod
    def columns(cls, scheme: dict) -> tuple:
        return ("turn", "speaker", "agent_id", "step_type", "values")

    @classmethod
    def rows(cls, entries: Entries, derivation: Optional[Derivation], scheme: dict) -> List[Dict[str, Any]]:
        value = _one_json_value([(label, text) for label, text in entries if label == "_data"] or entries)
        turns = value.get("turns") if isinstance(value, dict) else None
        if not isinstance(turns, dict):
            raise PotatoValueError('value: expected {"v": 1, "turns": {turn_id: {"values": [...]}}}')
        rows = []
        for turn, entry in turns.items():
            entry = entry if isinstance(entry, dict) else {"values": entry}
            values = entry.get("values")
            values = [] if values is None else values if isinstance(values, list) else [values]
            rows.append({"turn": str(turn), "speaker": entry.get("speaker"), "agent_id": entry.get("agent_id"),
                         "step_type": entry.get("step_type"), "values": [str(item) for item in values]})
        return rows

    @classmethod
    def agreement(cls, judgements: Judgements, scheme: dict, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        return []


def _one_json_value(entries: Entries) -> Any:
    texts = [value for _, value in entries if value not in (None, "")]
    if not texts:
        return None
    text = texts[-1]
    try:
        return json.loads(text) if isinstance(text, str) else text
    except ValueError as error:
        raise PotatoValueError(f"value: not valid JSON ({error})") from None


POTATO_ADAPTERS: Tuple[Type[PotatoAdapter], ...] = (TurnLevelAdapter, RadioAdapter, MultiselectAdapter,
                                                    TrajectoryEvalAdapter)
"""Checked in order: a turn-level radio is read as turn-level."""


def potato_adapter_for(scheme: dict, config: Optional[dict] = None) -> Optional[Type[PotatoAdapter]]:
    """The adapter for one of Potato's schemes; a turn-level scheme bound to our trace view
    (``config`` names it) is read per step and mode by :mod:`.turn_tags`."""
    from .turn_tags import TraceTurnTagsAdapter

    on_trace_view = TraceTurnTagsAdapter.for_scheme(scheme, config)
    if on_trace_view is not None:
        return on_trace_view
    return next((adapter for adapter in POTATO_ADAPTERS if adapter.accepts(scheme)), None)
