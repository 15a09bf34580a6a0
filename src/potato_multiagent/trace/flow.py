"""Edges and handoffs: one pass over the steps that have an agent, per thread of work.

Speaker changes alone miss who was addressed (AutoGen sender/receiver, Magentic-One's
``Orchestrator (-> WebSurfer)``) and turn explicit handoff events into fake agents; this pass reads
both, so a fully addressed trace gives exactly its sender -> receiver edges with their true counts.
"Previous" is kept per thread, so agents running in parallel never hand off to each other; a
thread's first step is a delegation from its parent, and the parent going on after it is a return.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional

from .steps import HANDOFF, TOOL_RESULT, Step

IMPLICIT, EXPLICIT, DELEGATION, RETURN = "implicit", "explicit", "delegation", "return"


def edges_and_handoffs(steps: Iterable[Step]) -> tuple[List[dict], List[dict]]:
    """``(edges, handoffs)`` as the JSON lists of the derivation output.

    >>> from .steps import Step
    >>> e, h = edges_and_handoffs([Step(0, "A", None, None, "turn", ""), Step(1, "B", None, None, "turn", "")])
    >>> e, [(x["from"], x["to"], x["step"], x["from_step"], x["kind"]) for x in h]
    ([{'from': 'A', 'to': 'B', 'count': 1, 'steps': [1]}], [('A', 'B', 1, 0, 'implicit')])
    """
    # agent-bearing steps only: steps with no agent, and tools answering their caller, are transparent
    steps = [step for step in steps if step.agent is not None and step.kind != TOOL_RESULT]
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

    def hand_over(previous: Optional[tuple], agent: str, step: int, kind: str) -> None:
        if previous is None:
            return
        from_agent, addressed, from_step = previous
        if from_agent == agent:
            return
        if not addressed:
            add_edge(from_agent, agent, step)
        handoffs.append({"index": len(handoffs), "step": step, "from_step": from_step,
                         "from": from_agent, "to": agent, "explicit": False, "kind": kind})

    last_of_thread = {step.thread: step.index for step in steps}
    # per thread, its previous agent-bearing step as (agent in control, whether they addressed
    # someone, step index): a plain tuple, built once per step at a fifth of a slotted object's cost
    previous: Dict[Optional[str], tuple] = {}
    running_children: Dict[Optional[str], List[str]] = {}
    for step in steps:
        agent, thread, index, to = step.agent, step.thread, step.index, step.to
        children = running_children.get(thread) if running_children else None  # most traces have no threads
        if children:
            ended = sorted((child for child in children if last_of_thread[child] < index),
                           key=last_of_thread.__getitem__)
            for child in ended:
                children.remove(child)
                hand_over(previous[child], agent, index, RETURN)
        if thread in previous:
            turn = previous[thread]
            if turn[0] != agent:  # the same agent going on hands nothing over
                hand_over(turn, agent, index, IMPLICIT)
        elif thread is not None:
            running_children.setdefault(step.parent_thread, []).append(thread)
            hand_over(previous.get(step.parent_thread), agent, index, DELEGATION)
        if to is not None:
            add_edge(agent, to, index)
        if step.kind == HANDOFF:
            handoffs.append({"index": len(handoffs), "step": index, "from_step": index,
                             "from": agent, "to": to, "explicit": True, "kind": EXPLICIT})
            # control is with the target, who has addressed no one yet
            previous[thread] = (to, False, index)
        else:
            previous[thread] = (agent, to is not None, index)
    return list(edges.values()), handoffs
