"""``multiagent.plan_adherence``: one row per departure (the verdict on each); agreement on the
verdict and on the departed steps.

A value without departures is one row with no step, so a run judged "kept" has its verdict in the
table too."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from potato_multiagent.trace import Derivation
from potato_multiagent.types._base.adapter import (INSTANCE, Adapter, Judgements, per_judge, step_agent, step_text,
                                                   step_words)
from potato_multiagent.types._base.statistics import Figure, krippendorff_alpha, mean_pairwise_jaccard

from .scheme import PlanAdherenceConfig, PlanAdherenceValue


class PlanAdherenceAdapter(Adapter):
    step_columns = ("step",)
    item_key = ("step",)

    @classmethod
    def columns(cls, config: PlanAdherenceConfig) -> tuple:
        return ("verdict", "step", "kind", "agent", "step_text")

    @classmethod
    def rows(cls, value: PlanAdherenceValue, derivation: Derivation, config: PlanAdherenceConfig) -> List[Dict[str, Any]]:
        if not value.departures:
            return [{"verdict": value.verdict, "step": None, "kind": None, "agent": None, "step_text": None}]
        return [{"verdict": value.verdict, "step": departure.step, "kind": departure.kind,
                 "agent": step_agent(derivation, departure.step), "step_text": step_text(derivation, departure.step)}
                for departure in value.departures]

    @classmethod
    def describe(cls, rows: List[dict], config: PlanAdherenceConfig) -> Dict[str, str]:
        """The verdict, and each departed step with its kind (the step's agent and text are context)."""
        found = {"verdict": str(rows[0]["verdict"]) if rows else "None"}
        found.update((f"departure at {step_words(row['step'])}", row["kind"]) for row in rows if row["step"] is not None)
        return found

    not_judged = "no departure"

    @classmethod
    def agreement(cls, judgements: Judgements, config: PlanAdherenceConfig, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        verdicts = judgements.rows.drop_duplicates([INSTANCE, "user"])
        steps = per_judge(judgements, "steps", lambda row: [] if row["step"] is None else [row["step"]])
        return [krippendorff_alpha("verdict alpha (nominal)", verdicts, (INSTANCE,), "verdict", "nominal"),
                mean_pairwise_jaccard("departed steps Jaccard", steps, (INSTANCE,), "steps")]
