"""``multiagent.tool_contention``: one row per labelled region; alpha on labels by region identity.

A region is identified by its resource, interval and set of agents (``region`` column, in the words
the widget uses: ``fork_0 [4, 5) P0, P2``), never by its index, which shifts when calls are added.
Rows carry the interval in seconds (ISO times as seconds since the epoch), the agents, the calls'
input positions and tools, the label and the note. A region an annotator left unlabelled is
missing for them.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from .scheme import ToolContentionConfig, ToolContentionValue, describe_region, region_key
from ...trace import Derivation
from .._base.statistics import Figure, krippendorff_alpha
from .._base.adapter import Adapter, Judgements, step_words


class ToolContentionAdapter(Adapter):
    not_judged = 'unlabelled'
    @classmethod
    def describe(cls, rows: List[dict], config) -> Dict[str, str]:
        """Each judged unit of one value with its decision in words (adjudication, judge agreement)."""
        return {f"region {row['region']}": f"label {row['label']}" for row in rows if row["label"] is not None}

    item_key = ("region",)
    float_columns = ("start", "end")

    @classmethod
    def columns(cls, config: ToolContentionConfig) -> tuple:
        return ("region", "region_index", "resource", "start", "end", "agents", "calls", "tools", "label", "note")

    @classmethod
    def rows(cls, value: ToolContentionValue, derivation: Derivation, config: ToolContentionConfig) -> List[Dict[str, Any]]:
        regions = {region_key(region): region for region in derivation.contentions}
        tools = {call["index"]: call["tool"] for call in derivation.calls}
        rows = []
        for mark in value.regions:
            region = regions[region_key(mark)]
            rows.append({"region": describe_region(region), "region_index": region["index"],
                         "resource": region["resource"], "start": region["start"], "end": region["end"],
                         "agents": list(region["agents"]), "calls": list(region["calls"]),
                         "tools": [tools.get(index) for index in region["calls"]],
                         "label": mark.label, "note": mark.note})
        return rows

    @classmethod
    def agreement(cls, judgements: Judgements, config: ToolContentionConfig, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        return [krippendorff_alpha("label alpha (nominal)", judgements.rows, cls.unit(), "label", "nominal")]
