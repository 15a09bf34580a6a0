"""``multiagent.emergent_behavior``: one row per marked occurrence; Jaccard of turn sets.

A row is one occurrence of a behaviour (two separate groupthink episodes are two rows): its turns
(0-based step indices), the agents who took those turns, and the note. "No emergent behaviour
observed" (the value ``{}``) is one row of its own, ``none_observed`` true and no behaviour, so a
table tells "looked and found nothing" from "not annotated". Agreement per behaviour is
the Jaccard index of two annotators' turn sets (the union of their occurrences' turns) on the same
instance, averaged over annotator pairs. An annotator who saved a value without the behaviour
marked none of its turns (the empty set); a pair where neither marked it says nothing and is
skipped.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from .scheme import EmergentBehaviorConfig, EmergentBehaviorValue
from ...trace import Derivation
from .._base.statistics import Figure, mean_pairwise_jaccard
from .._base.adapter import INSTANCE, Adapter, Judgements, per_judge, step_words


class EmergentBehaviorAdapter(Adapter):
    not_judged = 'none'
    @classmethod
    def describe(cls, rows: List[dict], config) -> Dict[str, str]:
        """Each judged unit of one value with its decision in words (adjudication, judge agreement)."""
        turns: Dict[str, set] = {behavior: set() for behavior in config.behaviors}
        for row in rows:
            if not row["none_observed"]:
                turns.setdefault(row["behavior"], set()).update(row["turns"])
        return {f"behaviour '{behavior}'": (f"turns {', '.join(step_words(t) for t in sorted(marked))}" if marked else "none")
                for behavior, marked in turns.items()}

    item_key = ("behavior", "occurrence")
    step_columns = ("turns",)

    @classmethod
    def columns(cls, config: EmergentBehaviorConfig) -> tuple:
        return ("behavior", "occurrence", "turns", "agents", "note", "none_observed")

    @classmethod
    def rows(cls, value: EmergentBehaviorValue, derivation: Derivation,
             config: EmergentBehaviorConfig) -> List[Dict[str, Any]]:
        rows = []
        for behavior, entry in value.root.items():
            for number, occurrence in enumerate(entry.instance_list(), start=1):
                turns = sorted(occurrence.turns)
                agents = [derivation.steps[turn].agent for turn in turns]
                rows.append({"behavior": behavior, "occurrence": number, "turns": turns,
                             "agents": list(dict.fromkeys(agent for agent in agents if agent is not None)),
                             "note": occurrence.note, "none_observed": False})
        if not value.root:
            rows.append({"behavior": None, "occurrence": None, "turns": [], "agents": [], "note": "",
                         "none_observed": True})
        return rows

    @classmethod
    def agreement(cls, judgements: Judgements, config: EmergentBehaviorConfig, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        figures = []
        for behavior in config.behaviors:
            sets = per_judge(judgements, "turns",
                             lambda row, behavior=behavior: row["turns"] if row["behavior"] == behavior else [])
            figures.append(mean_pairwise_jaccard(f"'{behavior}' turn-set Jaccard", sets, (INSTANCE,), "turns"))
        return figures
