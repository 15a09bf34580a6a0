"""``multiagent.failure_attribution``: which agent caused the failure, at which step, and why.

The Who&When triple (Zhang et al., ICML 2025). Steps are 0-based indices into the trace's step
list (as Who&When's ``mistake_step``); the widget shows them as ``#N`` = index + 1.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from ...trace import Derivation
from .._base import (FreeText, NonNegativeJsonInt, Scheme, SchemeConfig, StepIndex, StepReference, json_ref,
                     Problem, not_in_trace, problem, put_ref, step_problems)
from .._base.proposal import Choice, Survey, when


DECISIVE_STEP_HELP = ("The decisive step is the earliest step whose error, had it been fixed, would have "
                      "changed the outcome of the run (Who&When's definition), not the step where the "
                      "failure became visible.")


class FailureAttributionConfig(SchemeConfig):
    """The shared trace keys (the agents and steps come from the record) and the picker's help."""

    step_help: StrictStr = Field(DECISIVE_STEP_HELP, description="The line under the step picker saying what "
                                 "the decisive step is (issue 15); an empty string shows none.")
    ask_certainty: bool = Field(True, description="Offer the annotator a Confident / Uncertain flag on the "
                                "attribution (stored as `certainty`; `agreement` also reports confident labels "
                                "alone). `false` hides it.")
    max_plausible_steps: NonNegativeJsonInt = Field(4, description="How many other plausible steps, ranked, the "
                                                    "annotator may add beside the decisive one (stored as "
                                                    "`plausible_steps`; scored by nDCG@k); 0 hides the control.")


class PlausibleStep(BaseModel):
    """One more step that could be the decisive one (a place for the step's identity beside its index)."""

    model_config = ConfigDict(extra="forbid")

    step: StepIndex = Field(description="0-based index of the step.")
    step_ref: Optional[StrictStr] = Field(None, description="The step's identity when it was added "
                                          "(docs/step-references.md); absent in values saved before.")


class FailureAttributionValue(BaseModel):
    """The stored value, exactly as the annotator chose it."""

    model_config = ConfigDict(extra="forbid")

    responsible_agent: Optional[StrictStr] = Field(description="The agent held responsible, by its full name.")
    decisive_step: Optional[StepIndex] = Field(description="0-based index of the decisive step.")
    decisive_step_ref: Optional[StrictStr] = Field(
        None, description="The identity of the decisive step when it was chosen (docs/step-references.md); "
        "absent in values saved before identities were stored.")
    reason: FreeText = Field(description="Free text; may be empty.")
    certainty: Optional[Literal["confident", "uncertain"]] = Field(None, description="The annotator's flag on the "
                                                                   "attribution; absent when not given.")
    plausible_steps: List[PlausibleStep] = Field(default_factory=list, description="Other steps that could be the "
                                                           "decisive one, most plausible first; absent when none.")
    from_judgment: Optional[StrictStr] = Field(None, description="The source of the shown judgment whose agent and "
                                               "step the annotator accepted; absent when chosen independently "
                                               "(cleared when agent or step is edited after accepting).")


class FailureAttribution(Scheme):
    Config = FailureAttributionConfig
    Value = FailureAttributionValue
    summary = "Pick the responsible agent, the decisive step and the reason of a failed run."
    proposal_order = 10

    @classmethod
    def gold_top(cls, gold: Dict[str, Any], value: Any) -> Dict[str, Any]:
        """Who&When's gold keys, from the adjudicated attribution (its ``mistake_*`` keys replaced)."""
        gold = {key: item for key, item in gold.items() if key not in ("mistake_agent", "mistake_step")}
        gold["responsible_agent"], gold["decisive_step"] = value.get("responsible_agent"), value.get("decisive_step")
        return gold

    @classmethod
    def propose(cls, found: Survey) -> Choice:
        return when(found.multi_agent, "attribution", {
            "annotation_type": "multiagent.failure_attribution", "name": "attribution",
            "description": "Which agent caused the failure, and at which step?", "label_requirement": {"required": True},
            "display_logic": {"show_when": [{"schema": "outcome", "operator": "equals", "value": "failure"}]}},
            f"{found.multi_agent} {found.of_runs()} have two or more agents: who failed, and when, shown only when "
            f"the outcome is 'failure'", "no run has two agents: there is no one to attribute a failure to among others")


    @classmethod
    def trace_problems(cls, value: FailureAttributionValue, derivation: Derivation,
                       config: FailureAttributionConfig) -> List[Problem]:
        problems = []
        if value.responsible_agent is not None and value.responsible_agent not in derivation.agents:
            problems.append(not_in_trace("responsible_agent", value.responsible_agent))
        if value.decisive_step is not None:
            problems += step_problems("decisive_step", value.decisive_step, value.decisive_step_ref, derivation)
        elif value.decisive_step_ref is not None:
            problems.append(problem("ref_without_step", field="decisive_step_ref", step_field="decisive_step"))
        seen = {value.decisive_step}
        for position, entry in enumerate(value.plausible_steps):
            where = f"plausible_steps[{position}].step"
            found = step_problems(where, entry.step, entry.step_ref, derivation)
            if found:
                problems += found
            elif entry.step in seen:
                problems.append(problem("repeat", field=where))
            seen.add(entry.step)
        return problems

    @classmethod
    def references(cls, data: Any) -> List[StepReference]:
        """The decisive step and each plausible step, with the identity each was saved with."""
        found = []
        if data.get("decisive_step") is not None:
            def write(index: int, ref: Optional[str]) -> None:
                data["decisive_step"] = index
                put_ref(data, "decisive_step_ref", ref)

            found.append(StepReference("decisive_step", data["decisive_step"], json_ref(data.get("decisive_step_ref")),
                                       write))
        plausible = data.get("plausible_steps")
        for position, entry in enumerate(plausible if isinstance(plausible, list) else []):
            if not isinstance(entry, dict) or not isinstance(entry.get("step"), int):
                continue

            def write_entry(index: int, ref: Optional[str], entry: dict = entry) -> None:
                entry["step"] = index
                put_ref(entry, "step_ref", ref)

            found.append(StepReference(f"plausible_steps[{position}].step", entry["step"], json_ref(entry.get("step_ref")),
                                       write_entry))
        return found
