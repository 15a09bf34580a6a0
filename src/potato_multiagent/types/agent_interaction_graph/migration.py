"""From Potato's built-in ``agent_interaction_graph``: ``{critical_nodes, edges: {"A->B": status}}``
gains ``edge_marks``, one per key that names exactly one derived edge (``->`` inside a name makes a
key ambiguous: reported, left)."""

from __future__ import annotations

from typing import Any

from ...trace import Derivation
from .._base import Outcome
from .scheme import edges_by_key

REPLACES = "agent_interaction_graph"
"""The built-in type whose saved values this migrates (``migrate-config`` renames it to ours)."""

REPLACED_KEYS = frozenset({"steps_key", "agent_key"})
"""The config keys Potato 2.12.1's built-in of that name reads (its registry.py): ``migrate-config``
only renames the type, so our ``Config`` accepts every one of them."""


def migrate(value: Any, derivation: Derivation) -> Outcome:
    """The built-in's value in our shape (``Outcome.value``), or None when it is already ours."""
    if not isinstance(value, dict) or "edge_marks" in value or not isinstance(value.get("edges"), dict):
        return Outcome()
    by_key = edges_by_key(derivation)
    outcome = Outcome()
    marks = []
    for key, status in value["edges"].items():
        named = by_key.get(key, [])
        if len(named) == 1:
            marks.append({"from": named[0][0], "to": named[0][1], "status": status})
            outcome.changes.append(f"edges '{key}': edge_marks gains {named[0][0]} to {named[0][1]}")
        elif named:
            outcome.left.append(f"edges '{key}' could be {len(named)} edges of this trace")
        else:
            outcome.left.append(f"edges '{key}' is no edge of this trace")
    if marks:
        outcome.value = {**value, "edge_marks": marks}
    return outcome
