"""``multiagent.emergent_behavior``: collective behaviour as sets of turns across agents.

Some failures belong to no single agent: collusion, groupthink, a cascading error, role drift.
For each configured behaviour the annotator marks one or more *instances* (two separate
groupthink episodes are two instances), each a set of turns, possibly by different agents, with
a note. Turns are the derivation's steps, by 0-based index (shown as ``#N`` = index + 1).

Stored value (a superset of the seed's ``{behavior: {turns, note}}``, non-empty behaviours only)::

    {"groupthink": {"turns": [1, 2, 3, 7, 8], "note": "first\\nsecond",
                    "instances": [{"turns": [1, 2, 3], "note": "first"},
                                  {"turns": [7, 8], "note": "second"}]}}

``instances`` is authoritative; ``turns`` is their sorted union and ``note`` their non-empty notes
joined by a line break, so readers of the seed shape keep working. A seed value without
``instances`` reads as one instance. ``{}`` records the explicit choice "no emergent behaviour
observed" (clearing every mark stores nothing, ``""``).
"""

from __future__ import annotations

from typing import Annotated, Any, Dict, Iterator, List, Optional, Tuple

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, RootModel, StrictBool, StrictStr

from ...trace import Derivation
from .._base import (MAX_TEXT, FreeText, Labels, Problem, Scheme, SchemeConfig, StepIndex, StepReference, json_ref, problem,
                     step_problems, unique_list)
from .._base.proposal import Choice, Survey

MAX_JOINED_NOTES = 10 * MAX_TEXT
"""The seed's ``note`` joins its instances' notes, each at most ``MAX_TEXT`` characters."""

DEFAULT_BEHAVIORS = ["collusion", "groupthink", "cascading_error", "role_drift"]


TurnSet = unique_list(StepIndex)
"""Step indices, each at most once (the JSON Schema says ``uniqueItems`` so the browser agrees)."""


class EmergentBehaviorConfig(SchemeConfig):
    behaviors: Labels = Field(list(DEFAULT_BEHAVIORS), min_length=1,
                                       description="The behaviours offered, in this order; at least one, unique, none empty or only whitespace.")
    allow_note: StrictBool = Field(True, description="A note per episode; with false no note can be written (stored notes are still shown).")


class BehaviorInstance(BaseModel):
    """One occurrence of a behaviour: the turns taking part in it, and a note."""

    model_config = ConfigDict(extra="forbid")

    turns: TurnSet = Field(description="0-based indices of the participating steps.")
    turn_refs: List[Optional[StrictStr]] = Field(
        None, description="The identity of each turn's step when it was marked, in the order of `turns` "
        "(null: not known); absent in values saved before identities were stored (docs/step-references.md).")
    note: FreeText = Field(description="Free text; may be empty.")


class BehaviorEntry(BaseModel):
    """Everything marked for one behaviour."""

    model_config = ConfigDict(extra="forbid")

    turns: TurnSet = Field(description="The seed's field: the sorted union of the instances' turns.")
    note: StrictStr = Field(max_length=MAX_JOINED_NOTES, description="The seed's field: the instances' non-empty notes, one per line.")
    instances: List[BehaviorInstance] = Field(None, min_length=1,
                                              description="Each occurrence on its own; absent in a seed value.")
    from_judgment: Optional[StrictStr] = Field(None, description="The source of the shown judgment whose episodes "
                                               "of this behaviour the annotator accepted; absent when marked "
                                               "independently (dropped when the behaviour is edited after accepting).")

    def instance_list(self) -> List[BehaviorInstance]:
        """The instances; a seed value without ``instances`` is one instance."""
        if self.instances is None:
            return [BehaviorInstance(turns=self.turns, note=self.note)]
        return self.instances


class EmergentBehaviorValue(RootModel[Dict[StrictStr, BehaviorEntry]]):
    """``{behavior: entry}``; ``{}`` is the explicit "no emergent behaviour observed"."""


class EmergentBehavior(Scheme):
    Config = EmergentBehaviorConfig
    Value = EmergentBehaviorValue
    summary = "Mark, per collective behaviour, each instance's set of turns across agents, with a note."
    proposal_order = 80

    @classmethod
    def propose(cls, found: Survey) -> Choice:
        return Choice("emergent", None, "emergent_behavior needs the behaviours to look for: add it by hand "
                                        "(see: potato-multiagent docs emergent_behavior)")


    @classmethod
    def trace_problems(cls, value: EmergentBehaviorValue, derivation: Derivation,
                       config: EmergentBehaviorConfig) -> List[Problem]:
        problems: List[Problem] = []
        for behavior, entry in value.root.items():
            if behavior not in config.behaviors:
                problems.append(problem("not_configured", field="value", value=behavior, key="behaviors"))
            problems.extend(_consistency_problems(behavior, entry))
            for field, turn, ref in _turns_with_paths(behavior, entry):
                problems += step_problems(field, turn, ref, derivation)
        return problems

    @classmethod
    def references(cls, data: Any) -> List[StepReference]:
        found = []
        for behavior, entry in data.items():
            for position, instance in enumerate(entry.get("instances") or []):
                refs = _refs_of(instance)
                for turn_position, turn in enumerate(instance["turns"]):
                    found.append(StepReference(f"{behavior}.instances[{position}].turns", turn,
                                               json_ref(refs[turn_position]) if refs else None,
                                               _turn_writer(entry, instance, turn_position)))
        return found

    @classmethod
    def settle(cls, data: Any, derivation: Derivation) -> Tuple[List[str], List[str]]:
        """Each entry's ``turns`` is the sorted union of its instances' turns again."""
        for entry in data.values():
            if entry.get("instances"):
                entry["turns"] = sorted({turn for instance in entry["instances"] for turn in instance["turns"]})
        return [], []


def _refs_of(instance: dict) -> Optional[list]:
    refs = instance.get("turn_refs")
    return refs if isinstance(refs, list) and len(refs) == len(instance["turns"]) else None


def _turn_writer(entry: dict, instance: dict, position: int):
    def write(index: int, ref: Optional[str]) -> None:
        if _refs_of(instance) is None:
            instance["turn_refs"] = [None] * len(instance["turns"])
        instance["turns"][position] = index
        instance["turn_refs"][position] = ref
    return write


def _consistency_problems(behavior: str, entry: BehaviorEntry) -> List[Problem]:
    """The rules a JSON Schema cannot state: nothing empty, and the seed fields match the instances."""
    problems = []
    for position, instance in enumerate(entry.instance_list()):
        if not instance.turns and instance.note == "":
            where = f"{behavior}.instances[{position}]" if entry.instances is not None else behavior
            problems.append(problem("marked_nothing", field=where))
    for position, instance in enumerate(entry.instances or []):
        if instance.turn_refs is not None and len(instance.turn_refs) != len(instance.turns):
            problems.append(problem("refs_per_turn", field=f"{behavior}.instances[{position}].turn_refs",
                                    expected=len(instance.turns), got=len(instance.turn_refs)))
    if entry.instances is not None:
        union = _union_of(entry.instances)
        if entry.turns != union:
            problems.append(problem("not_union", field=f"{behavior}.turns", expected=union))
    return problems


def _turns_with_paths(behavior: str, entry: BehaviorEntry) -> Iterator[Tuple[str, int, Optional[str]]]:
    """Each stored turn with the path of its list (the instances' lists when there are any) and
    the identity it was saved with (None when unknown)."""
    if entry.instances is None:
        for turn in entry.turns:
            yield f"{behavior}.turns", turn, None
        return
    for position, instance in enumerate(entry.instances):
        refs = instance.turn_refs if instance.turn_refs is not None and len(instance.turn_refs) == len(instance.turns) \
            else [None] * len(instance.turns)
        for turn, ref in zip(instance.turns, refs):
            yield f"{behavior}.instances[{position}].turns", turn, ref


def _union_of(instances: List[BehaviorInstance]) -> List[int]:
    """The seed's ``turns``: every instance's turns, sorted, each once."""
    return sorted({turn for instance in instances for turn in instance.turns})
