"""``multiagent.agent_interaction_graph``: the critical path and the flagged edges of a run.

Nodes are the derivation's agents, edges its ``edges`` (who passed control or wrote to whom, with
``count`` and ``steps``). The annotator clicks agents into an ordered critical path and cycles
each edge through normal -> critical -> problematic.

The stored value is a superset of the seed's ``{"critical_nodes": [...], "edges": {"A->B": s}}``.
An ``"A->B"`` key is ambiguous once a name contains ``->`` (``A->B->C`` is A->B to C or A to
B->C), so ``edge_marks: [{from, to, status}]`` is the authoritative part; the ``edges`` map is
written for every marked edge whose key names exactly one edge of the record. A value without
``edge_marks`` (the seed's shape) is read through its keys.
"""

from __future__ import annotations

from typing import Dict, List, Literal, Optional, Tuple

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from ...trace import Derivation
from .._base import Problem, Scheme, SchemeConfig, not_in_trace, problem

EdgeStatus = Literal["critical", "problematic"]


def edge_key(source: str, target: str) -> str:
    """The seed's key of an edge, ``"A->B"`` (ambiguous when a name contains ``->``)."""
    return f"{source}->{target}"


def edge_words(source: str, target: str) -> str:
    """An edge in messages, as the widget names it: ``A to B``."""
    return f"{source} to {target}"


class AgentInteractionGraphConfig(SchemeConfig):
    """Only the shared trace keys: the graph comes from the record."""


class EdgeMark(BaseModel):
    """One flagged edge, by the agents at its ends."""

    model_config = ConfigDict(extra="forbid")

    source: StrictStr = Field(alias="from", description="The agent the edge starts at, by its full name.")
    target: StrictStr = Field(alias="to", description="The agent the edge ends at, by its full name.")
    status: EdgeStatus = Field(description="critical or problematic (an unmarked edge is normal and not listed).")


class AgentInteractionGraphValue(BaseModel):
    """The stored value. The widget writes all three keys; the seed wrote the first two."""

    model_config = ConfigDict(extra="forbid")

    critical_nodes: List[StrictStr] = Field(
        default_factory=list, description="The critical path: agents by full name, in the order clicked.")
    edges: Dict[StrictStr, EdgeStatus] = Field(
        default_factory=dict, description="Seed map 'A->B' -> status, for marked edges whose key is unique in the record.")
    edge_marks: List[EdgeMark] = Field(
        default_factory=list, description="The flagged edges, authoritative; absent in a value written for the seed.")
    from_judgment: Optional[StrictStr] = Field(
        None, description="The source of the judgment the annotator accepted as this value (docs/judgments.md); "
        "dropped at the annotator's next edit. Ignored by agreement.")

    @property
    def written_for_the_seed(self) -> bool:
        """A value without ``edge_marks`` says which edges it marks only through its ``edges`` keys."""
        return "edge_marks" not in self.model_fields_set


class AgentInteractionGraph(Scheme):
    Config = AgentInteractionGraphConfig
    Value = AgentInteractionGraphValue
    summary = "Mark the critical path and flag edges on the directed graph of who passed control to whom."
    proposal_order = 20
    proposed_for = "multi_agent"
    proposed_as = {"name": "interaction_graph",
                   "description": "Mark the critical path through the team and flag problematic edges."}
    proposed_because = ("{count} {runs} have two or more agents talking to each other", "no run has two agents")

    @classmethod
    def trace_problems(cls, value: AgentInteractionGraphValue, derivation: Derivation,
                       config: AgentInteractionGraphConfig) -> List[Problem]:
        by_key = edges_by_key(derivation)
        return (_critical_node_problems(value.critical_nodes, derivation.agents)
                + _edge_mark_problems(value.edge_marks, by_key)
                + _edges_map_problems(value, by_key))


def edges_by_key(derivation: Derivation) -> Dict[str, List[Tuple[str, str]]]:
    """Every ``"A->B"`` key of the record with the edges it could name (more than one: ambiguous)."""
    by_key: Dict[str, List[Tuple[str, str]]] = {}
    for edge in derivation.edges:
        by_key.setdefault(edge_key(edge["from"], edge["to"]), []).append((edge["from"], edge["to"]))
    return by_key


def _critical_node_problems(nodes: List[str], agents: List[str]) -> List[Problem]:
    known = set(agents)
    problems = []
    for position, node in enumerate(nodes):
        if node in nodes[:position]:
            problems.append(problem("repeats_entry", field=f"critical_nodes[{position}]",
                                    first=f"critical_nodes[{nodes.index(node)}]"))
        elif node not in known:
            problems.append(not_in_trace(f"critical_nodes[{position}]", node))
    return problems


def _edge_mark_problems(marks: List[EdgeMark], edges_by_key: Dict[str, List[Tuple[str, str]]]) -> List[Problem]:
    in_trace = {edge for edges in edges_by_key.values() for edge in edges}
    first: Dict[Tuple[str, str], int] = {}
    problems = []
    for position, mark in enumerate(marks):
        edge = (mark.source, mark.target)
        if edge in first:
            problems.append(problem("repeats_entry", field=f"edge_marks[{position}]", first=f"edge_marks[{first[edge]}]"))
            continue
        first[edge] = position
        if edge not in in_trace:
            problems.append(not_in_trace(f"edge_marks[{position}]", edge_words(*edge)))
    return problems


def _edges_map_problems(value: AgentInteractionGraphValue,
                        edges_by_key: Dict[str, List[Tuple[str, str]]]) -> List[Problem]:
    """The seed map against the record, and against ``edge_marks`` when the value has them."""
    problems = []
    for key in value.edges:
        named = edges_by_key.get(key, [])
        if not named:
            problems.append(not_in_trace("edges", key))
        elif len(named) > 1:
            problems.append(problem("ambiguous_edge", field="edges", value=key, count=len(named)))
    if not value.written_for_the_seed:
        problems.extend(_map_agrees_with_marks(value.edges, value.edge_marks, edges_by_key))
    return problems


def _map_agrees_with_marks(edges: Dict[str, str], marks: List[EdgeMark],
                           edges_by_key: Dict[str, List[Tuple[str, str]]]) -> List[Problem]:
    """Every mark on an edge with a unique key is in the map with its status, and nothing else is."""
    status_of = {}
    for mark in marks:
        status_of.setdefault((mark.source, mark.target), mark.status)
    problems = []
    for key, named in edges_by_key.items():
        if len(named) != 1:
            continue
        marked = status_of.get(named[0])
        if marked is not None and key not in edges:
            problems.append(problem("missing_in_map", field="edges", value=key, source="edge_marks"))
        elif marked is not None and edges[key] != marked:
            problems.append(problem("not_as_in", field="edges", value=key, expected=marked, got=edges[key],
                                    source="edge_marks"))
        elif marked is None and key in edges:
            problems.append(problem("no_entry_in", field="edges", value=key, source="edge_marks"))
    return problems
