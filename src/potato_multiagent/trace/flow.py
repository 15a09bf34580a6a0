"""Edges and handoffs: one pass over the steps that have an agent.

Speaker changes alone miss who was addressed (AutoGen sender/receiver, Magentic-One's
``Orchestrator (-> WebSurfer)``) and turn explicit handoff events into fake agents; this pass reads
both, so a fully addressed trace gives exactly its sender -> receiver edges with their true counts.
"""

from __future__ import annotations

from typing import Iterable, List, Optional

from .steps import HANDOFF, TOOL_RESULT, Step


def edges_and_handoffs(steps: Iterable[Step]) -> tuple[List[dict], List[dict]]:
    """``(edges, handoffs)`` as the JSON lists of the derivation output.

    >>> from .steps import Step
    >>> e, h = edges_and_handoffs([Step(0, "A", None, None, "turn", ""), Step(1, "B", None, None, "turn", "")])
    >>> e, [(x["from"], x["to"], x["step"], x["from_step"]) for x in h]
    ([{'from': 'A', 'to': 'B', 'count': 1, 'steps': [1]}], [('A', 'B', 1, 0)])
    """
    edges: dict = {}
    handoffs: List[dict] = []

    def add_edge(source: str, target: str, step: int) -> None:
        edge = edges.setdefault((source, target), {"from": source, "to": target, "count": 0, "steps": []})
        edge["count"] += 1
        edge["steps"].append(step)

    def add_handoff(source: str, target: str, step: int, from_step: int, explicit: bool) -> None:
        handoffs.append({"index": len(handoffs), "step": step, "from_step": from_step,
                         "from": source, "to": target, "explicit": explicit})

    previous_agent: Optional[str] = None
    previous_addressed = False
    previous_index = -1
    for step in steps:
        agent = step.agent
        if agent is None or step.kind == TOOL_RESULT:
            continue  # transparent: no agent, or a tool answering its caller
        if previous_agent is not None and previous_agent != agent:
            if not previous_addressed:
                add_edge(previous_agent, agent, step.index)
            add_handoff(previous_agent, agent, step.index, previous_index, False)
        if step.to is not None:
            add_edge(agent, step.to, step.index)
        previous_index = step.index
        if step.kind == HANDOFF:
            add_handoff(agent, step.to, step.index, step.index, True)
            # control is with the target, who has addressed no one yet
            previous_agent, previous_addressed = step.to, False
        else:
            previous_agent, previous_addressed = agent, step.to is not None
    return list(edges.values()), handoffs
