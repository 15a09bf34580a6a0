"""``multiagent.agent_interaction_graph``: two tables, one row per agent and one per edge.

A saved graph judges every element of the record's graph: each agent is on the critical path or
not, each edge is critical, problematic or (unmarked) normal. The agents table (``<scheme>.agents``)
has ``agent``, ``critical`` and its 1-based ``path_position``; the edges table (``<scheme>.edges``)
has ``from``, ``to``, ``status``, and the derived ``count`` and ``steps`` (with ``steps_number``).
Agreement reads both kinds of row in one frame (``element`` says which). A value written for the
seed (no ``edge_marks``) is read through its ``"A->B"`` keys.

Agreement: Jaccard of the critical-node sets per instance, averaged over annotator pairs; exact
agreement and Krippendorff's nominal alpha on edge statuses, edges matched by (from, to).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

from .scheme import (AgentInteractionGraphConfig, AgentInteractionGraphValue,
                                                edge_key)
from ...trace import Derivation
from .._base.statistics import Figure, krippendorff_alpha, mean_pairwise_jaccard, pairwise_rate
from .._base.adapter import INSTANCE, Adapter, Judgements, per_judge, step_words

AGENT_ELEMENT, EDGE_ELEMENT, NORMAL = "agent", "edge", "normal"


class AgentInteractionGraphAdapter(Adapter):
    not_judged = 'normal'
    @classmethod
    def describe(cls, rows: List[dict], config) -> Dict[str, str]:
        """Each judged unit of one value with its decision in words (adjudication, judge agreement)."""
        path = sorted((row for row in rows if row["element"] == "agent" and row["critical"]),
                      key=lambda row: row["path_position"])
        found = {"critical path": " -> ".join(row["agent"] for row in path) or "none"}
        for row in rows:
            if row["element"] == "edge" and row["status"] != "normal":
                found[f"edge {row['from']} -> {row['to']}"] = row["status"]
        return found

    item_key = ("element", "agent", "from", "to")
    step_columns = ("steps",)
    part_column = "element"
    parts = {AGENT_ELEMENT: ("agents", ("agent", "critical", "path_position")),
             EDGE_ELEMENT: ("edges", ("from", "to", "status", "count", "steps"))}

    @classmethod
    def columns(cls, config: AgentInteractionGraphConfig) -> tuple:
        return ("element", "agent", "critical", "path_position", "from", "to", "status", "count", "steps")

    @classmethod
    def rows(cls, value: AgentInteractionGraphValue, derivation: Derivation,
             config: AgentInteractionGraphConfig) -> List[Dict[str, Any]]:
        path = {agent: position for position, agent in enumerate(value.critical_nodes, start=1)}
        rows = [{"element": AGENT_ELEMENT, "agent": agent, "critical": agent in path,
                 "path_position": path.get(agent)} for agent in derivation.agents]
        statuses = _edge_statuses(value, derivation)
        rows.extend({"element": EDGE_ELEMENT, "from": edge["from"], "to": edge["to"],
                     "status": statuses.get((edge["from"], edge["to"]), NORMAL),
                     "count": edge["count"], "steps": list(edge["steps"])}
                    for edge in derivation.edges)
        return rows

    @classmethod
    def agreement(cls, judgements: Judgements, config: AgentInteractionGraphConfig,
                  gold: Optional[Mapping[str, dict]], within: int) -> List[Figure]:
        rows, unit = judgements.rows, cls.unit()
        critical = per_judge(judgements, "critical_nodes", lambda row: [row["agent"]]
                             if row["element"] == AGENT_ELEMENT and bool(row["critical"]) else [])
        edges = rows[rows["element"] == EDGE_ELEMENT]
        return [mean_pairwise_jaccard("critical nodes Jaccard", critical, (INSTANCE,), "critical_nodes"),
                pairwise_rate("edge status agreement (exact)", edges, unit, "status", lambda a, b: a == b),
                krippendorff_alpha("edge status alpha (nominal)", edges, unit, "status", "nominal")]


def _edge_statuses(value: AgentInteractionGraphValue, derivation: Derivation) -> Dict[Tuple[str, str], str]:
    """``(from, to) -> status`` of the marked edges: ``edge_marks``, or for a seed value its keys."""
    if not value.written_for_the_seed:
        return {(mark.source, mark.target): mark.status for mark in value.edge_marks}
    by_key = {edge_key(edge["from"], edge["to"]): (edge["from"], edge["to"]) for edge in derivation.edges}
    return {by_key[key]: status for key, status in value.edges.items() if key in by_key}
