"""What Potato 2.12.1's built-in multi-agent widgets build from a record, counted in Python.

The bench knows a built-in widget is ready when its page holds as many items (cards, options,
checkboxes, nodes) as the built-in's own rules produce for the record. These functions replay
those rules, read from `potato/server_utils/schemas/<type>.py` (the inline scripts' `agentOf`,
`extractHandoffs`, `extractCalls`, `getCalls` + `computeContentions`, `uniqueAgents`), with JS's
truthiness, so the count is exact. The rules are the built-ins', defects included: a step
without `agent`, `speaker` or `role` (an explicit handoff event) becomes a pseudo-agent
"agent N".
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Dict, List


def _truthy(value: Any) -> bool:
    """JS truthiness of a JSON value."""
    return value not in (None, False, 0, "") and not (isinstance(value, float) and value != value)


def _first_truthy(*values: Any) -> Any:
    return next((value for value in values if _truthy(value)), None)


def agent_of(step: Any, index: int, agent_key: str = "agent") -> str:
    """`s[agent_key] || s.speaker || s.role || ('agent ' + (i+1))`."""
    if isinstance(step, dict):
        found = _first_truthy(step.get(agent_key), step.get("speaker"), step.get("role"))
        if found is not None:
            return found if isinstance(found, str) else str(found)
    return f"agent {index + 1}"


def steps_of(record: Dict[str, Any], steps_key: str = "steps") -> List[Any]:
    steps = record.get(steps_key)
    return steps if isinstance(steps, list) else []


def speaker_changes(record: Dict[str, Any], agent_key: str = "agent") -> int:
    """handoff_review cards and agent_interaction_graph transitions: consecutive speaker changes."""
    agents = [agent_of(step, index, agent_key) for index, step in enumerate(steps_of(record))]
    return sum(1 for previous, current in zip(agents, agents[1:]) if previous != current)


def distinct_agents(record: Dict[str, Any], agent_key: str = "agent", roster: List[str] = ()) -> int:
    """agent_scorecard cards and agent_interaction_graph nodes: roster, then distinct `agentOf`."""
    seen = dict.fromkeys(roster)
    for index, step in enumerate(steps_of(record)):
        seen.setdefault(agent_of(step, index, agent_key))
    return len(seen)


def tool_call_cards(record: Dict[str, Any]) -> int:
    """tool_call_review cards: `s.tool_calls || [s.tool_call]`, else a step-level `tool`."""
    count = 0
    for step in steps_of(record):
        if not isinstance(step, dict):
            continue
        calls = step.get("tool_calls") if _truthy(step.get("tool_calls")) else (
            [step["tool_call"]] if _truthy(step.get("tool_call")) else None)
        if calls:
            count += len(calls)
        elif _truthy(step.get("tool")) or step.get("action_type") == "tool":
            count += 1
    return count


def pairwise_contentions(record: Dict[str, Any], calls_key: str = "calls", agent_key: str = "agent",
                         resource_key: str = "resource") -> int:
    """tool_contention cards: every pair of calls on one resource, by different agents, whose
    intervals overlap (`min(end) > max(start)`). Grouped by resource here; the built-in compares
    all pairs."""
    by_resource: Dict[Any, List[tuple]] = defaultdict(list)
    raw_calls = record.get(calls_key)
    for raw in raw_calls if isinstance(raw_calls, list) else []:
        call = raw if isinstance(raw, dict) else {}
        start = _js_number(call.get("start") or 0)
        end = _js_number(call.get("end") or call.get("start") or 0)
        resource = _first_truthy(call.get(resource_key), call.get("lock"))
        if end >= start and resource is not None:
            agent = str(_first_truthy(call.get(agent_key), call.get("role")) or "agent")
            by_resource[resource].append((start, end, agent))
    return sum(_overlapping_pairs(calls) for calls in by_resource.values())


def _js_number(value: Any) -> float:
    """`+value` for the JSON values a call holds: NaN (never >= anything) when not numeric."""
    if isinstance(value, bool):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _overlapping_pairs(calls: List[tuple]) -> int:
    calls = sorted(calls)
    pairs = 0
    for position, (start, end, agent) in enumerate(calls):
        for other_start, other_end, other_agent in calls[position + 1:]:
            if other_start >= end:
                break  # sorted by start: nothing later overlaps this call
            if other_agent != agent and min(end, other_end) > other_start:
                pairs += 1
    return pairs
