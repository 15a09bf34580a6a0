"""``multiagent.handoff_review``: flag misalignment on each handoff A -> B and rate its quality.

The handoffs are the derivation's (SPEC §3): speaker changes, addressed messages and explicit
handoff events, each with its ``from_step`` (the last step before control moved) and ``step``
(the step where it arrived). The stored value is the seed's list of
``{index, step, from, to, flags, quality}``, one entry per handoff the annotator touched, plus what
makes an entry identify its handoff on its own: ``from_step`` and ``explicit``. Restore matches
entries to handoffs by identity ``(from_step, step, from, to)``, never by position.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Dict, List, Optional, Tuple

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, RootModel, StrictBool,
                      StrictInt, StrictStr, field_validator)

from ...trace import Derivation
from .._base import (FreeText, Labels, NonNegativeJsonInt, Scheme, SchemeConfig, StepIndex, StepReference, above_bound, json_int,
                     Problem, is_stale, json_ref, not_in_trace, problem, put_ref, step_problems, unique_list)

DEFAULT_FLAGS = ["info_loss", "dropped_constraint", "garbling", "goal_drift"]
SNAKE_CASE = re.compile(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+")


def flag_label(flag: str) -> str:
    """What the annotator reads for a flag name (as the widget): a snake_case identifier reads as
    words (``info_loss`` -> ``info loss``); any other label is shown exactly as configured."""
    return flag.replace("_", " ") if SNAKE_CASE.fullmatch(flag) else flag


class HandoffReviewConfig(SchemeConfig):
    """The shared trace keys, plus the flags, the quality scale and whether notes are taken."""

    flags: Labels = Field(default_factory=lambda: list(DEFAULT_FLAGS), min_length=1,
                                   description="The misalignment flags offered, in this order; at least one, unique, none empty or only whitespace. A snake_case flag is shown with `_` read as a space (`info_loss` reads `info loss`); any other label is shown exactly as configured. Two flags that would read the same (`info_loss`, `info loss`) are refused.")
    quality_scale: StrictInt = Field(5, ge=2, le=10, description="Quality is rated 1 (poor) .. `quality_scale` (good).")
    allow_note: StrictBool = Field(True, description="A free-text \"Note\" per handoff, for evidence.")

    @field_validator("flags")
    @classmethod
    def _flags_read_apart(cls, flags: List[str]) -> List[str]:
        """Distinct flags can still read the same (``info_loss`` and ``info loss``)."""
        labels: Dict[str, str] = {}
        for flag in flags:
            label = flag_label(flag)
            if label in labels:
                raise ValueError(f"'{labels[label]}' and '{flag}' would both read '{label}'")
            labels[label] = flag
        return flags


Position = NonNegativeJsonInt
Quality = json_int(ge=1)
FlagList = unique_list(StrictStr)


class HandoffReviewEntry(BaseModel):
    """The review of one handoff: the seed's fields plus what identifies the handoff."""

    model_config = ConfigDict(extra="forbid")

    index: Position = Field(description="Position of the handoff in the derivation's list (the seed's key).")
    step: StepIndex = Field(description="0-based step where control arrived.")
    from_step: StepIndex = Field(description="0-based step before the handoff (equal to step for an explicit event).")
    step_ref: Optional[StrictStr] = Field(None, description="The identity of `step` when the handoff was reviewed "
                                          "(docs/step-references.md); absent in values saved before.")
    from_step_ref: Optional[StrictStr] = Field(None, description="The identity of `from_step` when the handoff was "
                                               "reviewed; absent in values saved before.")
    from_: StrictStr = Field(alias="from", description="The agent handing over.")
    to: StrictStr = Field(description="The agent receiving.")
    explicit: StrictBool = Field(description="True for an explicit handoff event in the trace.")
    flags: FlagList = Field(description="Configured flags the annotator set, each once.")
    quality: Optional[Quality] = Field(description="1..quality_scale, or null when not rated.")
    note: FreeText = Field("", description="Free-text evidence (written when allow_note is on).")
    bulk: StrictBool = Field(False, description="True when 'Mark all unreviewed handoffs as fine' set this entry.")
    from_judgment: Optional[StrictStr] = Field(
        None, description="The source of the judgment whose flags and quality the annotator accepted for this "
        "handoff (docs/judgments.md); absent when the review is the annotator's own.")

    def identity(self) -> Tuple[int, int, str, str]:
        return (self.from_step, self.step, self.from_, self.to)

    def described(self) -> str:
        """The entry's handoff in words, for 'not in this trace' messages (same words as the widget)."""
        return f"{self.from_} to {self.to}, from_step {self.from_step}, step {self.step}"


class HandoffReviewValue(RootModel[List[HandoffReviewEntry]]):
    """The stored JSON list, one entry per reviewed (or noted) handoff."""


def _handoff_identity(handoff: dict) -> Tuple[int, int, str, str]:
    return (handoff["from_step"], handoff["step"], handoff["from"], handoff["to"])


class HandoffReview(Scheme):
    Config = HandoffReviewConfig
    Value = HandoffReviewValue
    summary = "Flag misalignment on each handoff A -> B and rate its quality; long runs paged."
    proposal_order = 30
    proposed_for = "with_handoffs"
    proposed_as = {"name": "handoffs", "description": "Review every handoff: what was lost or garbled, and how good was it?"}
    proposed_because = ("{count} {runs} pass control between agents", "no run passes control between agents")

    @classmethod
    def trace_problems(cls, value: HandoffReviewValue, derivation: Derivation,
                       config: HandoffReviewConfig) -> List[Problem]:
        handoffs = {_handoff_identity(handoff): handoff for handoff in derivation.handoffs}
        first_position: Dict[Tuple[int, int, str, str], int] = {}
        problems: List[Problem] = []
        for position, entry in enumerate(value.root):
            where = f"[{position}]"
            problems.extend(_identity_problems(where, entry, handoffs, derivation, first_position))
            problems.extend(_config_problems(where, entry, config))
            first_position.setdefault(entry.identity(), position)
        return problems

    @classmethod
    def references(cls, data: Any) -> List[StepReference]:
        def writer(entry: dict, field: str):
            def write(index: int, ref: Optional[str]) -> None:
                entry[field] = index
                put_ref(entry, f"{field}_ref", ref)
            return write

        return [StepReference(f"[{k}].{field}", entry[field], json_ref(entry.get(f"{field}_ref")), writer(entry, field))
                for k, entry in enumerate(data) for field in ("from_step", "step")]

    @classmethod
    def settle(cls, data: Any, derivation: Derivation) -> Tuple[List[str], List[str]]:
        """Each entry's ``index`` and ``explicit`` are its handoff's in ``derivation`` again (an entry
        whose steps are still stale is left: that was reported already)."""
        handoffs = {_handoff_identity(handoff): handoff for handoff in derivation.handoffs}
        left = []
        for k, entry in enumerate(data):
            if any(is_stale(entry[field], json_ref(entry.get(f"{field}_ref")), derivation) for field in STEP_FIELDS):
                continue
            handoff = handoffs.get((entry["from_step"], entry["step"], entry["from"], entry["to"]))
            if handoff is None:
                left.append(f"[{k}]: no handoff of this trace is {HandoffReviewEntry.model_validate(entry).described()}")
                continue
            entry["index"], entry["explicit"] = handoff["index"], handoff["explicit"]
        return [], left


STEP_FIELDS = ("from_step", "step")


def _identity_problems(where: str, entry: HandoffReviewEntry, handoffs: dict, derivation: Derivation,
                       first_position: dict) -> List[Problem]:
    """Whether the entry names one handoff of this trace, once (its steps first: a step that changed
    since the review makes everything else about the entry moot)."""
    stale = [problem for field in STEP_FIELDS if getattr(entry, f"{field}_ref") is not None
             for problem in step_problems(f"{where}.{field}", getattr(entry, field), getattr(entry, f"{field}_ref"),
                                          derivation)]
    if stale:
        return stale
    step_count = len(derivation.steps)
    out_of_range = [not_in_trace(f"{where}.{field}", getattr(entry, field))
                    for field in ("from_step", "step") if getattr(entry, field) >= step_count]
    if out_of_range:
        return out_of_range
    handoff = handoffs.get(entry.identity())
    if handoff is None:
        return [not_in_trace(where, entry.described())]
    problems = []
    if entry.identity() in first_position:
        problems.append(problem("repeats_entry", field=where, first=f"[{first_position[entry.identity()]}]"))
    if entry.index != handoff["index"]:
        problems.append(problem("not_as_in_trace", field=f"{where}.index", expected=handoff["index"], got=entry.index))
    if entry.explicit != handoff["explicit"]:
        problems.append(problem("not_as_in_trace", field=f"{where}.explicit", expected=handoff["explicit"],
                                got=entry.explicit))
    return problems


def _config_problems(where: str, entry: HandoffReviewEntry, config: HandoffReviewConfig) -> List[Problem]:
    """Marks the scheme's config does not offer: unknown flags, quality past the scale, notes when off."""
    problems = [problem("not_configured", field=f"{where}.flags", value=flag, key="flags")
                for flag in entry.flags if flag not in config.flags]
    if entry.quality is not None and entry.quality > config.quality_scale:
        problems.append(above_bound(f"{where}.quality", entry.quality, config.quality_scale))
    if entry.note and not config.allow_note:
        problems.append(problem("notes_off", field=f"{where}.note", key="allow_note"))
    return problems
