"""``multiagent.failure_attribution``: one row per attribution; agent- and step-level figures.

Between annotators: agent-level exact agreement (with Krippendorff's nominal alpha, and Cohen's
kappa for two annotators), step-level exact agreement and agreement within ±k steps. Against
gold, Who&When's measures: agent-level accuracy (the responsible agent is the gold agent) and
step-level accuracy (the decisive step is the gold step), plus step accuracy within ±k, pooled and
per annotator. A judgement that names no agent (or no step) counts as wrong against gold. A row
also carries the annotator's ``certainty`` (confident / uncertain, or empty) and the other
``plausible_steps`` (0-based, most plausible first, empty when none; their ``#N`` in
``plausible_steps_number``);
``agreement --gold`` scores them (``judge/scoring.py``).
Gold objects name the agent ``mistake_agent`` (or ``responsible_agent``) and the step
``mistake_step`` (or ``decisive_step``), an int or a string of digits.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

import pandas as pd

from .scheme import FailureAttributionValue
from ...trace import Derivation
from .._base.statistics import Figure, USER, cohen_kappa, krippendorff_alpha, pairwise_rate
from .._base.adapter import INSTANCE, Adapter, Judgements, step_agent, step_text, step_words

AGENT, STEP = "responsible_agent", "decisive_step"
CERTAINTY, PLAUSIBLE = "certainty", "plausible_steps"


class FailureAttributionAdapter(Adapter):
    not_judged = 'nothing'
    gold_figures = True
    @classmethod
    def describe(cls, rows: List[dict], config) -> Dict[str, str]:
        """Each judged unit of one value with its decision in words (adjudication, judge agreement)."""
        row = rows[0]
        agent = row["responsible_agent"] if row["responsible_agent"] is not None else "no agent"
        return {"attribution": f"{agent} {step_words(row['decisive_step'])}"}

    step_columns = (STEP, PLAUSIBLE)

    @classmethod
    def columns(cls, config) -> tuple:
        return (AGENT, STEP, "reason", "step_agent", "step_text", CERTAINTY, PLAUSIBLE)

    @classmethod
    def rows(cls, value: FailureAttributionValue, derivation: Derivation, config) -> List[Dict[str, Any]]:
        step = value.decisive_step
        return [{AGENT: value.responsible_agent, STEP: step,
                 "reason": value.reason, "step_agent": step_agent(derivation, step),
                 "step_text": step_text(derivation, step), CERTAINTY: value.certainty,
                 PLAUSIBLE: [entry.step for entry in value.plausible_steps] or None}]

    @classmethod
    def agreement(cls, judgements: Judgements, config, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        table, unit = judgements.rows, cls.unit()
        figures = [
            pairwise_rate("agent agreement (exact)", table, unit, AGENT, lambda a, b: a == b),
            krippendorff_alpha("agent alpha (nominal)", table, unit, AGENT, "nominal"),
            cohen_kappa("agent kappa (Cohen)", table, unit, AGENT),
            pairwise_rate("step agreement (exact)", table, unit, STEP, lambda a, b: a == b),
            pairwise_rate(f"step agreement (within ±{within})", table, unit, STEP,
                          lambda a, b: abs(int(a) - int(b)) <= within),
        ]
        if gold is not None:
            figures.extend(_gold_accuracy(table, gold, within))
        return figures


def _gold_accuracy(table: pd.DataFrame, gold: Mapping[str, dict], within: int) -> List[Figure]:
    answers = {instance: _gold_answer(entry) for instance, entry in gold.items()}
    judgements = [row for row in table.to_dict("records") if answers.get(row[INSTANCE]) is not None]
    measures = {
        "agent accuracy vs gold": lambda agent, step, gold_agent, gold_step: agent is not None and agent == gold_agent,
        "step accuracy vs gold": lambda agent, step, gold_agent, gold_step: step is not None and step == gold_step,
        f"step accuracy within ±{within} vs gold": lambda agent, step, gold_agent, gold_step:
            step is not None and gold_step is not None and abs(step - gold_step) <= within,
    }
    figures = []
    for measure, correct in measures.items():
        results = [(row[USER], row[INSTANCE], correct(_known(row[AGENT]), _known(row[STEP]), *answers[row[INSTANCE]]))
                   for row in judgements]
        figures.append(_accuracy(measure, results, None))
        for user in sorted({user for user, _, _ in results}):
            figures.append(_accuracy(measure, [result for result in results if result[0] == user], user))
    return figures


def _accuracy(measure: str, results: List[tuple], user: Optional[str]) -> Figure:
    """``results`` are ``(user, instance, correct)`` triples."""
    if not results:
        return Figure(measure, None, 0, 0, annotator=user, note="no judged instance has gold")
    return Figure(measure, sum(correct for _, _, correct in results) / len(results),
                  len({instance for _, instance, _ in results}), len({who for who, _, _ in results}), annotator=user)


def _known(value: Any) -> Any:
    """A cell's value, with pandas' missing markers as None."""
    return None if value is None or pd.isna(value) else value


def _gold_answer(entry: Any) -> Optional[tuple]:
    """``(agent, step)`` from a gold object, or None when it holds no attribution."""
    if not isinstance(entry, dict):
        return None
    agent = entry.get("mistake_agent", entry.get(AGENT))
    step = entry.get("mistake_step", entry.get(STEP))
    if isinstance(step, str) and step.isascii() and step.isdigit():
        step = int(step)
    if not isinstance(step, int) or isinstance(step, bool):
        step = None
    if not isinstance(agent, str) and step is None:
        return None
    return (agent if isinstance(agent, str) else None, step)
