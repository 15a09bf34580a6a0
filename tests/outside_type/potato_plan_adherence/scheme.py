"""``multiagent.plan_adherence``: did the team keep to its plan, and where did it depart from it?

The annotator says whether the run kept to the plan and marks each step where an agent departed
from it, with how (one of the configured kinds). Steps are 0-based indices into the trace's step
list, shown as ``#N`` = index + 1.
"""

from __future__ import annotations

from typing import List, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from potato_multiagent.trace import Derivation
from potato_multiagent.types._base import Labels, Problem, Scheme, SchemeConfig, StepIndex, not_in_trace, problem

KINDS = ["skipped a planned step", "did unplanned work", "changed the order"]


class PlanAdherenceConfig(SchemeConfig):
    """The kinds of departure offered."""

    kinds: Labels = Field(KINDS, min_length=1, description="The kinds of departure from the plan offered, "
                          "in this order.")


class Departure(BaseModel):
    """One step where an agent departed from the plan."""

    model_config = ConfigDict(extra="forbid")

    step: StepIndex = Field(description="0-based index of the step.")
    kind: StrictStr = Field(description="How it departed: one of the configured kinds.")


class PlanAdherenceValue(BaseModel):
    """The stored value: the verdict and the departures, in the order they were marked."""

    model_config = ConfigDict(extra="forbid")

    verdict: Optional[Literal["kept", "departed"]] = Field(description="Whether the run kept to its plan.")
    departures: List[Departure] = Field(default_factory=list, description="The steps where an agent departed "
                                        "from the plan.")


class PlanAdherence(Scheme):
    Config = PlanAdherenceConfig
    Value = PlanAdherenceValue
    summary = "Say whether a team kept to its plan and mark the steps where it departed from it."
    proposal_order = 90
    proposed_for = "multi_agent"
    proposed_as = {"name": "plan", "description": "Did the team keep to its plan?"}
    proposed_because = ("{count} {runs} have two or more agents: whether they kept to their plan",
                        "no run has two agents: there is no team plan to keep to")

    @classmethod
    def trace_problems(cls, value: PlanAdherenceValue, derivation: Derivation,
                       config: PlanAdherenceConfig) -> List[Problem]:
        problems: List[Problem] = []
        first = {}
        for position, departure in enumerate(value.departures):
            where = f"departures[{position}]"
            if departure.step >= len(derivation.steps):
                problems.append(not_in_trace(f"{where}.step", departure.step))
            if departure.kind not in config.kinds:
                problems.append(problem("not_configured", field=f"{where}.kind", value=departure.kind, key="kinds"))
            if departure.step in first:
                problems.append(problem("repeats_entry", field=where, first=f"departures[{first[departure.step]}]"))
            first.setdefault(departure.step, position)
        return problems
