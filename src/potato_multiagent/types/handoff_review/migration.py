"""From Potato's built-in ``handoff_review``: entries ``{index, step, from, to, flags, quality?}`` gain
``from_step``/``explicit`` by matching ``(step, from, to)`` against our handoffs (never by
``index``: the built-in counted only speaker changes, so its ordinals are not ours)."""

from __future__ import annotations

from typing import Any, List

from ...trace import Derivation
from .._base import Outcome

REPLACES = "handoff_review"
"""The built-in type whose saved values this migrates (``migrate-config`` renames it to ours)."""

REPLACED_KEYS = frozenset({"steps_key", "agent_key", "flags", "quality_scale"})
"""The config keys Potato 2.12.1's built-in of that name reads (its registry.py): ``migrate-config``
only renames the type, so our ``Config`` accepts every one of them."""


def migrate(value: Any, derivation: Derivation) -> Outcome:
    """The built-in's value in our shape (``Outcome.value``), or None when it is already ours."""
    if not isinstance(value, list):
        return Outcome()
    outcome = Outcome()
    entries = [_migrate_handoff(position, entry, derivation.handoffs, outcome) for position, entry in enumerate(value)]
    if outcome.changes:
        outcome.value = entries
    return outcome


def _migrate_handoff(position: int, entry: Any, handoffs: List[dict], outcome: Outcome) -> Any:
    if not isinstance(entry, dict) or "from_step" in entry:
        return entry
    identity = (entry.get("step"), entry.get("from"), entry.get("to"))
    matches = [h for h in handoffs if (h["step"], h["from"], h["to"]) == identity]
    words = f"[{position}] {entry.get('from')} to {entry.get('to')} at step {entry.get('step')}"
    if len(matches) != 1:
        outcome.left.append(f"{words} matches {len(matches)} handoffs of this trace")
        return entry
    handoff = matches[0]
    outcome.changes.append(f"{words}: from_step {handoff['from_step']}, explicit "
                           f"{'true' if handoff['explicit'] else 'false'}, index {handoff['index']}")
    return {**entry, "index": handoff["index"], "from_step": handoff["from_step"],
            "explicit": handoff["explicit"], "quality": entry.get("quality")}
