"""Timed resource calls and the contention regions among them.

Overlap is found by a sweep per resource (O(n log n)), never pairwise, and a region is a whole
transitive cluster: a three-agent overlap is one region with three participants, not three pairs.
"""

from __future__ import annotations

from collections import defaultdict
from operator import itemgetter
from typing import Any, List, Optional

from .names import first_name, resource_name
from .problems import problem
from .times import parse_time


def read_calls(raw: list, agent_key: str, resource_key: str, problems: List[dict]) -> List[dict]:
    """The calls that pass every check, as ``{index, agent, tool, resource, start, end, kind}``.

    Each rejected call adds exactly one problem, for the first check it fails.
    """
    agent_fields = (agent_key,) if agent_key == "agent" else (agent_key, "agent")
    accepted: List[dict] = []
    list_kind: Optional[str] = None
    for k, call in enumerate(raw):
        entry = _read_call(call, k, agent_fields, resource_key, problems)
        if entry is None:
            continue
        kind = entry["kind"]
        if kind == list_kind or list_kind is None:  # the first accepted call sets the list's kind
            list_kind = kind
            accepted.append(entry)
        else:
            problems.append(problem(f"calls[{k}]", "time_kind_mixed", f"times are {kind}s, earlier calls use {list_kind}s"))
    return accepted


def _read_call(call: Any, k: int, agent_fields: tuple, resource_key: str, problems: List[dict]) -> Optional[dict]:
    """The entry of a call that passes its own checks, else None with the problem of the first
    check it fails appended (``readTimedCall`` in derive.js); paths are built only for problems."""
    if not isinstance(call, dict):
        problems.append(problem(f"calls[{k}]", "call_not_object", "a call must be an object"))
        return None
    agent = first_name(call, agent_fields)
    if agent is None:
        problems.append(problem(f"calls[{k}].agent", "call_agent_missing", f"no agent name in {' or '.join(agent_fields)}"))
        return None
    resource = resource_name(call.get(resource_key))
    if resource is None:
        problems.append(problem(f"calls[{k}].resource", "call_resource_missing", f"no resource in {resource_key}"))
        return None
    start_kind, start = parse_time(call.get("start"))
    if start_kind is None:
        problems.append(_time_problem(call, k, "start"))
        return None
    end_kind, end = parse_time(call.get("end"))
    if end_kind is None:
        problems.append(_time_problem(call, k, "end"))
        return None
    if start_kind != end_kind:
        problems.append(problem(f"calls[{k}]", "time_kind_mixed", f"start is a {start_kind} but end is a {end_kind}"))
        return None
    if end < start:
        problems.append(problem(f"calls[{k}]", "time_reversed", "end is before start"))
        return None
    return {"index": k, "agent": agent, "tool": first_name(call, ("tool", "name")), "resource": resource,
            "start": start, "end": end, "kind": start_kind}


def _time_problem(call: dict, k: int, field: str) -> dict:
    """The problem of a time that is not one: missing (or null), else unparseable."""
    if call.get(field) is None:
        return problem(f"calls[{k}].{field}", "time_missing", f"no {field} time")
    return problem(f"calls[{k}].{field}", "time_unparseable", f"{field} is neither a number nor an ISO time")


_START = itemgetter("start")


def contention_regions(calls: List[dict]) -> List[dict]:
    """Regions where two or more agents hold one resource over overlapping half-open intervals.

    ``calls`` are :func:`read_calls`'s, in index order; each resource's calls are sorted by
    (start, index) as a stable sort by start alone, which saves a key tuple per call.
    """
    by_resource = defaultdict(list)
    for call in calls:
        if call["end"] > call["start"]:  # a zero-length call touches nothing
            by_resource[call["resource"]].append(call)
    regions = []
    for resource, held in by_resource.items():
        held.sort(key=_START)
        first, cluster_end = 0, held[0]["end"]  # the cluster is held[first:k], contiguous once sorted
        for k in range(1, len(held)):
            call = held[k]
            if call["start"] < cluster_end:
                end = call["end"]
                if end > cluster_end:  # max(), keeping the earlier value on a tie (1 and 1.0 print apart)
                    cluster_end = end
            else:
                if k - first > 1:  # most clusters are one call, which contends with no one
                    _add_region(regions, resource, held, first, k, cluster_end)
                first, cluster_end = k, call["end"]
        if len(held) - first > 1:
            _add_region(regions, resource, held, first, len(held), cluster_end)
    regions.sort(key=lambda region: (region["start"], region["resource"], region["calls"][0]))
    for index, region in enumerate(regions):
        region["index"] = index
    return regions


def _add_region(regions: List[dict], resource: str, held: List[dict], first: int, stop: int, end: float) -> None:
    """Add the region of the cluster ``held[first:stop]`` (two calls or more), unless a single
    agent made every call in it."""
    cluster = held[first:stop]
    agents = list(dict.fromkeys([call["agent"] for call in cluster]))  # cluster is in (start, index) order
    if len(agents) > 1:
        indices = [call["index"] for call in cluster]
        indices.sort()
        regions.append({"index": None, "resource": resource, "start": cluster[0]["start"], "end": end,
                        "calls": indices, "agents": agents})
