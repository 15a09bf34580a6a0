"""From Potato's built-in ``emergent_behavior``: its saved values are already in our shape (ours is a
superset), so ``migrate-values`` only checks them; ``migrate-config`` renames the type."""

REPLACES = "emergent_behavior"
"""The built-in type this one replaces (``migrate-config`` renames it to ours)."""
