"""From Potato's built-in ``tool_contention``: its keys are pairwise indices into an order-dependent
list; nothing says which region they meant, so each is reported as not migratable."""

from __future__ import annotations

from typing import Any

from ...trace import Derivation
from .._base import Outcome

REPLACES = "tool_contention"
"""The built-in type whose saved values this migrates (``migrate-config`` renames it to ours)."""

REPLACED_KEYS = frozenset({"calls_key", "agent_key", "resource_key", "contention_labels"})
"""The config keys Potato 2.12.1's built-in of that name reads (its registry.py): ``migrate-config``
only renames the type, so our ``Config`` accepts every one of them."""


def migrate(value: Any, derivation: Derivation) -> Outcome:
    """The built-in's value in our shape (``Outcome.value``), or None when it is already ours."""
    if not isinstance(value, dict) or "regions" in value:
        return Outcome()
    keys = sorted((value.get("contentions") or {}), key=str)
    return Outcome(left=[f"contentions '{key}': the built-in's pair index depends on the order of the "
                         f"calls and names no resource, interval or agents, so no region can be "
                         f"chosen for it; label it again" for key in keys])
