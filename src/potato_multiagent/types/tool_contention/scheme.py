"""``multiagent.tool_contention``: label each shared-resource contention region on a timeline.

Regions come from the derivation (``derivation.contentions``): whole transitive clusters of calls
that overlap on one resource, with two or more agents. The stored value keeps the seed's map
``{"contentions": {idx: label}}`` and adds ``regions``, one self-describing entry per labelled
region (resource, interval, agents and the calls' identities), which is what restore and
validation match on: a region is identified by its resource, interval and set of agents, never by
its index alone. See docs/types/tool_contention.md.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any, Dict, List, Optional, Tuple

from pydantic import BaseModel, ConfigDict, Field, Strict, StrictBool, StrictStr

from ...trace import Derivation
from ...trace.jsjson import js_number
from .._base import FreeText, Labels, NonNegativeJsonInt, Problem, Scheme, SchemeConfig, not_in_trace, problem
from .._base.proposal import Choice, Survey, when

DEFAULT_LABELS = ["deadlock", "circular_wait", "race_condition", "benign"]

Seconds = Annotated[float, Strict(), Field(allow_inf_nan=False)]
"""A time as the derivation gives it: seconds (for ISO times, since 1970-01-01T00:00:00Z)."""

Index = NonNegativeJsonInt
"""The position of a call in the calls list, or of a region in the derivation."""


class ToolContentionConfig(SchemeConfig):
    """The labels offered for each region, and whether a label can carry a note."""

    contention_labels: Labels = Field(
        default_factory=lambda: list(DEFAULT_LABELS), min_length=1,
        description="The labels offered for every region; at least one, unique, none blank.")
    allow_note: StrictBool = Field(True, description="Offer a free-text \"Note\" beside each region's label.")


class CallIdentity(BaseModel):
    """One call of a labelled region, as the derivation lists it in ``calls``."""

    model_config = ConfigDict(extra="forbid")

    index: Index = Field(description="Position of the call in the record's calls list.")
    agent: StrictStr
    resource: StrictStr
    start: Seconds
    end: Seconds


class RegionMark(BaseModel):
    """One labelled region, identified by resource, interval and agents."""

    model_config = ConfigDict(extra="forbid")

    index: Index = Field(description="The region's index in the derivation when labelled (the key in `contentions`).")
    resource: StrictStr
    start: Seconds
    end: Seconds
    agents: List[StrictStr] = Field(min_length=2, description="The agents in the region (order is not significant).")
    calls: List[CallIdentity] = Field(min_length=2, description="The calls that make up the region.")
    label: StrictStr = Field(description="One of the configured contention_labels.")
    note: FreeText = Field(description="Free text; may be empty.")
    from_judgment: Optional[StrictStr] = Field(
        None, description="The source of the judgment whose label the annotator accepted for this region "
        "(docs/judgments.md); absent when the label is the annotator's own.")


class ToolContentionValue(BaseModel):
    """The stored value: the seed's ``{idx: label}`` map and the self-describing ``regions``."""

    model_config = ConfigDict(extra="forbid")

    contentions: Dict[StrictStr, StrictStr] = Field(description="Region index (as a string) -> label, the seed's map.")
    regions: List[RegionMark] = Field(description="One entry per labelled region; restore matches these.")


RegionKey = Tuple[str, float, float, Tuple[str, ...]]


def region_key(region) -> RegionKey:
    """What identifies a region: resource, interval and the set of its agents.

    Two regions on one resource never overlap, so this never names two regions of one trace.
    """
    get = region.get if isinstance(region, dict) else lambda name: getattr(region, name)
    return get("resource"), float(get("start")), float(get("end")), tuple(sorted(get("agents")))


def describe_region(region) -> str:
    """``fork_0 [4, 5) P0, P2``: the words for a region in messages (the widget says the same)."""
    resource, start, end, _ = region_key(region)
    agents = region["agents"] if isinstance(region, dict) else region.agents
    return f"{resource} [{js_number(start)}, {js_number(end)}) {', '.join(agents)}"


def describe_call(call: CallIdentity) -> str:
    return f"{call.agent} on {call.resource} [{js_number(call.start)}, {js_number(call.end)})"


class ToolContention(Scheme):
    Config = ToolContentionConfig
    Value = ToolContentionValue
    summary = "Label each shared-resource contention region on a multi-lane timeline of the agents' calls."
    proposal_order = 50

    @classmethod
    def propose(cls, found: Survey) -> Choice:
        return when(found.with_contention, "contention", {
            "annotation_type": "multiagent.tool_contention", "name": "contention",
            "description": "Classify every conflict over a shared resource."},
            f"{found.with_contention} {found.of_runs()} have timed calls of two agents overlapping on one shared resource",
            f"{found.with_timed_calls} {found.of_runs()} have timed calls, but no two agents overlap on a resource"
            if found.with_timed_calls else "no run has timed calls on shared resources")


    @classmethod
    def trace_problems(cls, value: ToolContentionValue, derivation: Derivation,
                       config: ToolContentionConfig) -> List[Problem]:
        regions = {region_key(region): region for region in derivation.contentions}
        calls = {call["index"]: call for call in derivation.calls}
        problems: List[Problem] = []
        seen: Dict[RegionKey, int] = {}
        for position, mark in enumerate(value.regions):
            field = f"regions[{position}]"
            problems += _label_problems(field, mark, config)
            key = region_key(mark)
            if key in seen:
                problems.append(problem("repeats_entry", field=field, first=f"regions[{seen[key]}]"))
                continue
            seen[key] = position
            region = regions.get(key)
            if region is None:
                problems.append(not_in_trace(field, describe_region(mark)))
                continue
            problems += _matched_region_problems(field, mark, region, calls)
        return problems + _map_problems(value)

    @classmethod
    def settle(cls, data: Any, derivation: Derivation) -> Tuple[List[str], List[str]]:
        """Each labelled region found again by its resource, interval and agents, and each of its
        calls by agent, resource and interval: their indices are this trace's, and ``contentions``
        is keyed by the new indices."""
        regions = {region_key(region): region for region in derivation.contentions}
        calls = {call["index"]: call for call in derivation.calls}
        moved: List[str] = []
        left: List[str] = []
        for position, mark in enumerate(data["regions"]):
            field = f"regions[{position}]"
            region = regions.get(region_key(mark))
            if region is None:
                left.append(f"{field}: {describe_region(mark)} is not in this trace")
                continue
            if mark["index"] != region["index"]:
                moved.append(f"moved {field} (region {describe_region(mark)}) #{mark['index'] + 1} -> #{region['index'] + 1}")
                mark["index"] = region["index"]
            free = [calls[index] for index in region["calls"]]
            for call in mark["calls"]:
                same = next((found for found in free if _call_key(found) == _call_key(call)), None)
                if same is not None:
                    free.remove(same)
                    call["index"] = same["index"]
        data["contentions"] = {str(mark["index"]): mark["label"] for mark in data["regions"]}
        return moved, left


def _label_problems(field: str, mark: RegionMark, config: ToolContentionConfig) -> List[Problem]:
    problems = []
    if mark.label not in config.contention_labels:
        problems.append(problem("not_configured", field=f"{field}.label", value=mark.label, key="contention_labels"))
    if mark.note and not config.allow_note:
        problems.append(problem("notes_off", field=f"{field}.note", key="allow_note"))
    return problems


def _matched_region_problems(field: str, mark: RegionMark, region: dict, calls: Dict[int, dict]) -> List[Problem]:
    """A mark whose region is in the trace: its index and its calls must be that region's."""
    problems = []
    if mark.index != region["index"]:
        problems.append(problem("not_as_in_trace", field=f"{field}.index", expected=region["index"], got=mark.index))
    region_calls = Counter(_call_key(calls[index]) for index in region["calls"])
    for position, call in enumerate(mark.calls):
        key = _call_key(call.model_dump())
        if region_calls[key] > 0:
            region_calls[key] -= 1
        else:
            problems.append(not_in_trace(f"{field}.calls[{position}]", describe_call(call)))
    return problems


def _call_key(call: dict) -> tuple:
    """A call's identity within a region: who, where and when (its list position may change)."""
    return call["agent"], call["resource"], float(call["start"]), float(call["end"])


def _map_problems(value: ToolContentionValue) -> List[Problem]:
    """The seed's ``contentions`` map must say exactly what ``regions`` says."""
    expected: Dict[str, Optional[str]] = {}
    first: Dict[str, int] = {}
    problems = []
    for position, mark in enumerate(value.regions):
        key = str(mark.index)
        if key in expected:
            problems.append(problem("repeats_entry", field=f"regions[{position}].index",
                                    first=f"regions[{first[key]}].index"))
        else:
            first[key] = position
        expected[key] = mark.label
    for key, label in value.contentions.items():
        if key not in expected:
            problems.append(problem("no_entry_in", field="contentions", value=key, source="regions"))
        elif label != expected[key]:
            problems.append(problem("not_as_in", field="contentions", value=key, expected=expected[key], got=label,
                                    source="regions"))
    for key in expected:
        if key not in value.contentions:
            problems.append(problem("missing_in_map", field="contentions", value=key, source="regions"))
    return problems
