"""``multiagent.agent_scorecard``: one row per score cell and per milestone; alpha per dimension.

``scope`` says what a row is: an ``agent`` cell (an agent x an agent dimension), a ``team`` cell
(a team dimension), or a ``milestone``. Cells are rows when scored or marked not applicable (a
cell not scored yet is no judgement); every configured milestone is a row of every saved value,
``reached`` true or false. Agent rows also carry how many steps the agent took in the trace.

Agreement: ordinal alpha per dimension over the scored cells (a cell marked not applicable is
missing), agent cells matched by (agent, dimension); nominal alpha over milestones.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from .scheme import AgentScorecardConfig, AgentScorecardValue
from ...trace import Derivation
from .._base.statistics import Figure, krippendorff_alpha
from .._base.adapter import Adapter, Judgements, step_words

AGENT_SCOPE, TEAM_SCOPE, MILESTONE_SCOPE = "agent", "team", "milestone"


class AgentScorecardAdapter(Adapter):
    not_judged = 'not scored'
    @classmethod
    def describe(cls, rows: List[dict], config) -> Dict[str, str]:
        """Each judged unit of one value with its decision in words (adjudication, judge agreement)."""
        found = {}
        for row in rows:
            if row["scope"] == "milestone":
                reached = f"reached at {step_words(row['reached_step'])}" if row["reached_step"] is not None else "reached"
                found[f"milestone '{row['item']}'"] = reached if row["reached"] else "not reached"
            else:
                who = row["agent"] if row["scope"] == "agent" else "team"
                found[f"{who} '{row['item']}'"] = "not applicable" if row["not_applicable"] else f"score {row['score']}"
        return found

    item_key = ("scope", "agent", "item")
    step_columns = ("reached_step",)

    @classmethod
    def columns(cls, config: AgentScorecardConfig) -> tuple:
        return ("scope", "agent", "item", "score", "not_applicable", "reached", "reached_step", "agent_steps")

    @classmethod
    def rows(cls, value: AgentScorecardValue, derivation: Derivation, config: AgentScorecardConfig) -> List[Dict[str, Any]]:
        steps_by_agent: Dict[str, int] = {}
        for step in derivation.steps:
            if step.agent is not None:
                steps_by_agent[step.agent] = steps_by_agent.get(step.agent, 0) + 1
        rows = []
        for agent in _agents_judged(value):
            not_applicable = set(value.not_applicable.agents.get(agent, []))
            scores = value.agents.get(agent, {})
            for dimension in config.agent_dimensions:
                if dimension in scores or dimension in not_applicable:
                    rows.append(_cell(AGENT_SCOPE, agent, dimension, scores.get(dimension),
                                      dimension in not_applicable, steps_by_agent.get(agent, 0)))
        for dimension in config.team_dimensions:
            if dimension in value.team or dimension in value.not_applicable.team:
                rows.append(_cell(TEAM_SCOPE, None, dimension, value.team.get(dimension),
                                  dimension in value.not_applicable.team, None))
        for milestone in config.milestones:
            rows.append({"scope": MILESTONE_SCOPE, "agent": None, "item": milestone, "score": None,
                         "not_applicable": None, "reached": bool(value.milestones.get(milestone, False)),
                         "reached_step": value.milestone_steps.get(milestone), "agent_steps": None})
        return rows

    @classmethod
    def agreement(cls, judgements: Judgements, config: AgentScorecardConfig, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        rows, unit, scale = judgements.rows, cls.unit(), range(1, config.scale + 1)
        figures = []
        for scope, dimensions in ((AGENT_SCOPE, config.agent_dimensions), (TEAM_SCOPE, config.team_dimensions)):
            for dimension in dimensions:
                cells = rows[(rows["scope"] == scope) & (rows["item"] == dimension)]
                figures.append(krippendorff_alpha(f"{scope} '{dimension}' alpha (ordinal)", cells, unit, "score",
                                                  "ordinal", value_domain=scale))
        if config.milestones:
            milestones = rows[rows["scope"] == MILESTONE_SCOPE]
            figures.append(krippendorff_alpha("milestones alpha (nominal)", milestones, unit, "reached", "nominal"))
        return figures


def _agents_judged(value: AgentScorecardValue) -> List[str]:
    """Agents with a scored or not-applicable cell, in the order the value lists them."""
    return list(dict.fromkeys([*value.agents, *value.not_applicable.agents]))


def _cell(scope: str, agent: Optional[str], dimension: str, score: Optional[int], not_applicable: bool,
          agent_steps: Optional[int]) -> Dict[str, Any]:
    return {"scope": scope, "agent": agent, "item": dimension, "score": None if not_applicable else score,
            "not_applicable": not_applicable, "reached": None, "reached_step": None, "agent_steps": agent_steps}
