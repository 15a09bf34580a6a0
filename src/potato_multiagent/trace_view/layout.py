"""The layout ``auto`` picks from a run's derivation (``web/trace_view_model.js`` ``layoutRule`` holds
the same rule for the page; ``layout_cases.json`` referees both).

``init`` uses it to say, in its reasons, how the runs it wrote will be laid out. The page then
also weighs the pane's width (lanes only when each gets 280 px): that half needs the browser.
"""

from __future__ import annotations

from typing import Tuple

from ..trace import Derivation

BECAUSE = {
    "threads": "the run has threads (a manager and its workers)",
    "addressed": "a group chat: most turns name the agent they address",
    "turns_return": "a group chat: the turn comes back to an agent after others spoke",
    "few_agents": "fewer than three agents",
    "pipeline": "a pipeline: each agent speaks in one stretch",
}
"""Each reason code, as ``init`` words it."""


def layout_rule(derivation: Derivation) -> Tuple[str, str]:
    """``(layout, reason code)``: tree for threads; board for a group chat of three or more agents
    (at least half of the agents' turns name an addressee, or the turn comes back to an agent
    after another spoke); lanes for fewer than three agents or a pipeline, where lanes read as a
    staircase of one stretch per agent."""
    threaded = any(step.thread for step in derivation.steps) or any(
        handoff.get("kind") in ("delegation", "return") for handoff in derivation.handoffs)
    if threaded:
        return "tree", "threads"
    if len(derivation.agents) < 3:
        return "lanes", "few_agents"
    bearing = [step for step in derivation.steps if step.agent is not None and step.kind != "tool_result"]
    if bearing and 2 * sum(1 for step in bearing if step.to) >= len(bearing):
        return "board", "addressed"
    finished = set()
    for previous, step in zip(bearing, bearing[1:]):
        if step.agent != previous.agent:
            finished.add(previous.agent)
            if step.agent in finished:
                return "board", "turns_return"
    return "lanes", "pipeline"
