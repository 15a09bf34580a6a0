"""``multiagent.handoff_review``: one row per reviewed handoff; alpha per flag and for quality.

Rows carry the handoff's identity (``from_step``, ``step``, ``from``, ``to``), whether it was
reviewed (a flag or a quality; a note alone is not a review, as in the widget), one boolean column
per configured flag (``flag_<name>``, empty when not reviewed), the quality, the note, and the text
of the two steps the handoff joins. Annotators' reviews are matched by handoff identity, never by
position; a handoff an annotator did not review is missing for them, not "no flag".
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from .scheme import HandoffReviewConfig, HandoffReviewEntry, HandoffReviewValue
from ...trace import Derivation
from .._base.statistics import Figure, krippendorff_alpha
from .._base.adapter import Adapter, Judgements, step_text, step_words


def flag_column(flag: str) -> str:
    return f"flag_{flag}"


class HandoffReviewAdapter(Adapter):
    not_judged = 'not reviewed'
    @classmethod
    def describe(cls, rows: List[dict], config) -> Dict[str, str]:
        """Each judged unit of one value with its decision in words (adjudication, judge agreement)."""
        found = {}
        for row in rows:
            unit = f"handoff {row['from']} {step_words(row['from_step'])} -> {row['to']} {step_words(row['step'])}"
            if not row["reviewed"]:
                continue
            flags = [flag for flag in config.flags if row.get(f"flag_{flag}")]
            words = [f"flags {', '.join(flags)}" if flags else "no flag"]
            if row["quality"] is not None:
                words.append(f"quality {row['quality']}")
            found[unit] = "; ".join(words)
        return found

    item_key = ("from_step", "step", "from", "to")
    step_columns = ("from_step", "step")
    bulk_column = "bulk"

    @classmethod
    def columns(cls, config: HandoffReviewConfig) -> tuple:
        return ("handoff_index", "from_step", "step", "from", "to", "explicit", "reviewed",
                *(flag_column(flag) for flag in config.flags), "quality", "note", "bulk", "from_text", "to_text")

    @classmethod
    def rows(cls, value: HandoffReviewValue, derivation: Derivation, config: HandoffReviewConfig) -> List[Dict[str, Any]]:
        return [cls._row(entry, derivation, config) for entry in value.root]

    @classmethod
    def _row(cls, entry: HandoffReviewEntry, derivation: Derivation, config: HandoffReviewConfig) -> Dict[str, Any]:
        reviewed = bool(entry.flags) or entry.quality is not None
        return {"handoff_index": entry.index, "from_step": entry.from_step, "step": entry.step,
                "from": entry.from_, "to": entry.to, "explicit": entry.explicit, "reviewed": reviewed,
                **{flag_column(flag): (flag in entry.flags) if reviewed else None for flag in config.flags},
                "quality": entry.quality, "note": entry.note, "bulk": entry.bulk,
                "from_text": step_text(derivation, entry.from_step), "to_text": step_text(derivation, entry.step)}

    @classmethod
    def agreement(cls, judgements: Judgements, config: HandoffReviewConfig, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        rows, unit = judgements.rows, cls.unit()
        figures = [krippendorff_alpha(f"flag '{flag}' alpha (nominal)", rows, unit, flag_column(flag), "nominal")
                   for flag in config.flags]
        figures.append(krippendorff_alpha("quality alpha (ordinal)", rows, unit, "quality", "ordinal",
                                          value_domain=range(1, config.quality_scale + 1)))
        return figures
