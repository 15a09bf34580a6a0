"""From Potato's built-in ``tool_contention``: its keys are pairwise indices into an order-dependent
list; nothing says which region they meant, so each is reported as not migratable."""

from __future__ import annotations

from typing import Any

from ...trace import Derivation
from .._base import Outcome

REPLACES = "tool_contention"
"""The built-in type whose saved values this migrates (``migrate-config`` renames it to ours)."""


def migrate(value: Any, derivation: Derivation) -> Outcome:
    """The built-in's value in our shape (``Outcome.value``), or None when it is already ours."""
    if not isinstance(value, dict) or "regions" in value:
        return Outcome()
    keys = sorted((value.get("contentions") or {}), key=str)
    return Outcome(left=[f"contentions '{key}': the built-in's pair index depends on the order of the "
                         f"calls and names no resource, interval or agents, so no region can be "
                         f"chosen for it; label it again" for key in keys])
