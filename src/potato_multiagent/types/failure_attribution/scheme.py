"""``multiagent.failure_attribution``: which agent caused the failure, at which step, and why.

The Who&When triple (Zhang et al., ICML 2025). Steps are 0-based indices into the trace's step
list (as Who&When's ``mistake_step``); the widget shows them as ``#N`` = index + 1.
"""

from __future__ import annotations

from typing import List, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from ...trace import Derivation
from .._base import Scheme, SchemeConfig, StepIndex, not_in_trace


DECISIVE_STEP_HELP = ("The decisive step is the earliest step whose error, had it been fixed, would have "
                      "changed the outcome of the run (Who&When's definition), not the step where the "
                      "failure became visible.")


class FailureAttributionConfig(SchemeConfig):
    """The shared trace keys (the agents and steps come from the record) and the picker's help."""

    step_help: StrictStr = Field(DECISIVE_STEP_HELP, description="The line under the step picker saying what "
                                 "the decisive step is (issue 15); an empty string shows none.")


class FailureAttributionValue(BaseModel):
    """The stored value, exactly as the annotator chose it."""

    model_config = ConfigDict(extra="forbid")

    responsible_agent: Optional[StrictStr] = Field(description="The agent held responsible, by its full name.")
    decisive_step: Optional[StepIndex] = Field(description="0-based index of the decisive step.")
    reason: StrictStr = Field(description="Free text; may be empty.")
    from_judgment: Optional[StrictStr] = Field(None, description="The source of the shown judgment whose agent and "
                                               "step the annotator accepted; absent when chosen independently "
                                               "(cleared when agent or step is edited after accepting).")


class FailureAttribution(Scheme):
    Config = FailureAttributionConfig
    Value = FailureAttributionValue
    summary = "Pick the responsible agent, the decisive step and the reason of a failed run."

    @classmethod
    def trace_problems(cls, value: FailureAttributionValue, derivation: Derivation,
                       config: FailureAttributionConfig) -> List[str]:
        problems = []
        if value.responsible_agent is not None and value.responsible_agent not in derivation.agents:
            problems.append(not_in_trace("responsible_agent", value.responsible_agent))
        if value.decisive_step is not None and value.decisive_step >= len(derivation.steps):
            problems.append(not_in_trace("decisive_step", value.decisive_step))
        return problems
