"""From Potato's built-in ``failure_attribution``: its saved values are already in our shape (ours is a
superset), so ``migrate-values`` only checks them; ``migrate-config`` renames the type."""

REPLACES = "failure_attribution"
"""The built-in type this one replaces (``migrate-config`` renames it to ours)."""
