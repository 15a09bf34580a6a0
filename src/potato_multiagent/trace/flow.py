"""Edges and handoffs: one pass over the steps that have an agent, per thread of work.

Speaker changes alone miss who was addressed (AutoGen sender/receiver, Magentic-One's
``Orchestrator (-> WebSurfer)``) and turn explicit handoff events into fake agents; this pass reads
both, so a fully addressed trace gives exactly its sender -> receiver edges with their true counts.
"Previous" is kept per thread, so agents running in parallel never hand off to each other; a
thread's first step is a delegation from its parent, and the parent going on after it is a return.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional

from .steps import HANDOFF, TOOL_RESULT, Step

IMPLICIT, EXPLICIT, DELEGATION, RETURN = "implicit", "explicit", "delegation", "return"


@dataclass(slots=True)
class _Turn:
    """The previous agent-bearing step of a thread: who has control, whether they addressed
    someone, and that step's index. (A slotted dataclass: built once per step, it costs half of
    a NamedTuple.)"""

    agent: str
    addressed: bool
    index: int


def _acts(step: Step) -> bool:
    """Agent-bearing: steps with no agent, and tools answering their caller, are transparent."""
    return step.agent is not None and step.kind != TOOL_RESULT


def edges_and_handoffs(steps: Iterable[Step]) -> tuple[List[dict], List[dict]]:
    """``(edges, handoffs)`` as the JSON lists of the derivation output.

    >>> from .steps import Step
    >>> e, h = edges_and_handoffs([Step(0, "A", None, None, "turn", ""), Step(1, "B", None, None, "turn", "")])
    >>> e, [(x["from"], x["to"], x["step"], x["from_step"], x["kind"]) for x in h]
    ([{'from': 'A', 'to': 'B', 'count': 1, 'steps': [1]}], [('A', 'B', 1, 0, 'implicit')])
    """
    steps = [step for step in steps if _acts(step)]
    edges: dict = {}
    handoffs: List[dict] = []

    def add_edge(source: str, target: str, step: int) -> None:
        edge = edges.get((source, target))
        if edge is None:
            edge = edges[(source, target)] = {"from": source, "to": target, "count": 0, "steps": []}
        elif edge["steps"][-1] == step:
            return  # a step adds a given edge at most once
        edge["count"] += 1
        edge["steps"].append(step)

    def hand_over(previous: Optional[_Turn], agent: str, step: int, kind: str) -> None:
        if previous is None or previous.agent == agent:
            return
        if not previous.addressed:
            add_edge(previous.agent, agent, step)
        handoffs.append({"index": len(handoffs), "step": step, "from_step": previous.index,
                         "from": previous.agent, "to": agent, "explicit": False, "kind": kind})

    last_of_thread = {step.thread: step.index for step in steps}
    previous: Dict[Optional[str], _Turn] = {}
    running_children: Dict[Optional[str], List[str]] = {}
    for step in steps:
        agent, thread = step.agent, step.thread
        children = running_children.get(thread)
        if children:
            ended = sorted((child for child in children if last_of_thread[child] < step.index),
                           key=last_of_thread.__getitem__)
            for child in ended:
                children.remove(child)
                hand_over(previous[child], agent, step.index, RETURN)
        if thread in previous:
            hand_over(previous[thread], agent, step.index, IMPLICIT)
        elif thread is not None:
            running_children.setdefault(step.parent_thread, []).append(thread)
            hand_over(previous.get(step.parent_thread), agent, step.index, DELEGATION)
        if step.to is not None:
            add_edge(agent, step.to, step.index)
        if step.kind == HANDOFF:
            handoffs.append({"index": len(handoffs), "step": step.index, "from_step": step.index,
                             "from": agent, "to": step.to, "explicit": True, "kind": EXPLICIT})
            # control is with the target, who has addressed no one yet
            previous[thread] = _Turn(step.to, False, step.index)
        else:
            previous[thread] = _Turn(agent, step.to is not None, step.index)
    return list(edges.values()), handoffs
