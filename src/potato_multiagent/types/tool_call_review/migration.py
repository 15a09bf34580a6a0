"""From Potato's built-in ``tool_call_review``: entries gain ``id``/``position`` by matching
``(step, tool)`` when exactly one call fits."""

from __future__ import annotations

import json
from typing import Any

from ...trace import Derivation
from .._base import Outcome
from .scheme import call_positions

REPLACES = "tool_call_review"
"""The built-in type whose saved values this migrates (``migrate-config`` renames it to ours)."""

REPLACED_KEYS = frozenset({"steps_key", "verdict_options"})
"""The config keys Potato 2.12.1's built-in of that name reads (its registry.py): ``migrate-config``
only renames the type, so our ``Config`` accepts every one of them."""


def migrate(value: Any, derivation: Derivation) -> Outcome:
    """The built-in's value in our shape (``Outcome.value``), or None when it is already ours."""
    if not isinstance(value, list):
        return Outcome()
    calls = derivation.tool_calls
    positions = call_positions(calls)
    outcome = Outcome()
    entries = []
    for k, entry in enumerate(value):
        if not isinstance(entry, dict) or "position" in entry or "id" in entry:
            entries.append(entry)
            continue
        matches = [(call, place) for call, place in zip(calls, positions)
                   if call["step"] == entry.get("step") and call["tool"] == entry.get("tool")]
        words = f"[{k}] {entry.get('tool')} at step {entry.get('step')}"
        if len(matches) != 1:
            outcome.left.append(f"{words} matches {len(matches)} calls of this trace")
            entries.append(entry)
            continue
        call, place = matches[0]
        outcome.changes.append(f"{words}: position {place}, id {json.dumps(call['id'])}, index {call['index']}")
        entries.append({**entry, "index": call["index"], "position": place, "id": call["id"]})
    if outcome.changes:
        outcome.value = entries
    return outcome
