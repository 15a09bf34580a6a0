"""``multiagent.tool_call_review``: one row per judged call; kappa and alpha on verdicts.

Each stored judgement is resolved to the derivation's call it names (by call id, or step +
position + tool), so rows carry the call's index in the trace (its identity across annotators),
agent, tool, arguments (as JSON text) and the text of its step and of its result step. With
``multi_verdict`` each configured verdict also gets a boolean column ``verdict_<name>`` and its own
alpha. An entry without a verdict (notes only) is no judgement of the call.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional

from .scheme import CallIndex, ToolCallJudgement, ToolCallReviewConfig, ToolCallReviewValue
from ...trace import Derivation
from .._base.statistics import Figure, cohen_kappa, krippendorff_alpha
from .._base.adapter import Adapter, Judgements, step_text, step_words


def verdict_column(verdict: str) -> str:
    return f"verdict_{verdict}"


class ToolCallReviewAdapter(Adapter):
    not_judged = 'no verdict'
    @classmethod
    def describe(cls, rows: List[dict], config) -> Dict[str, str]:
        """Each judged unit of one value with its decision in words (adjudication, judge agreement)."""
        found = {}
        for row in rows:
            if row["verdict"] is None:
                continue
            unit = f"call {row['tool']} by {row['agent']} at {step_words(row['step'])}"
            if getattr(config, "multi_verdict", False):
                given = [v for v in config.verdict_options if row.get(f"verdict_{v}")]
                found[unit] = f"verdicts {', '.join(given)}"
            else:
                found[unit] = f"verdict {row['verdict']}"
        return found

    item_key = ("call_index",)
    step_columns = ("step", "result_step")

    @classmethod
    def columns(cls, config: ToolCallReviewConfig) -> tuple:
        options = tuple(verdict_column(v) for v in config.verdict_options) if config.multi_verdict else ()
        return ("call_index", "call_id", "step", "position", "agent", "tool", "arguments", "verdict", *options,
                "notes", "step_text", "result_step", "result_text")

    @classmethod
    def rows(cls, value: ToolCallReviewValue, derivation: Derivation, config: ToolCallReviewConfig) -> List[Dict[str, Any]]:
        calls = CallIndex(derivation.tool_calls)
        rows = []
        for entry in value.root:
            call = calls.find(entry)
            result_step = call.get("result_step")
            rows.append({
                "call_index": call["index"], "call_id": call["id"], "step": call["step"],
                "position": calls.positions[call["index"]], "agent": call["agent"], "tool": call["tool"],
                "arguments": None if call["arguments"] is None else json.dumps(call["arguments"], ensure_ascii=False),
                "verdict": entry.verdict,
                **(_verdict_flags(entry, config) if config.multi_verdict else {}),
                "notes": entry.notes, "step_text": step_text(derivation, call["step"]),
                "result_step": result_step, "result_text": step_text(derivation, result_step)})
        return rows

    @classmethod
    def agreement(cls, judgements: Judgements, config: ToolCallReviewConfig, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        rows, unit = judgements.rows, cls.unit()
        figures = [krippendorff_alpha("verdict alpha (nominal)", rows, unit, "verdict", "nominal"),
                   cohen_kappa("verdict kappa (Cohen)", rows, unit, "verdict")]
        if config.multi_verdict:
            figures.extend(krippendorff_alpha(f"verdict '{v}' alpha (nominal)", rows, unit, verdict_column(v), "nominal")
                           for v in config.verdict_options)
        return figures


def _verdict_flags(entry: ToolCallJudgement, config: ToolCallReviewConfig) -> Dict[str, Optional[bool]]:
    """``verdict_<name>`` for each option: given or not; empty for a verdict-less entry (notes only)."""
    given = entry.verdicts if entry.verdicts is not None else [entry.verdict]
    judged = entry.verdict is not None
    return {verdict_column(v): (v in given) if judged else None for v in config.verdict_options}
