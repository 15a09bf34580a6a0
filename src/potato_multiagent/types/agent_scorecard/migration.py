"""From Potato's built-in ``agent_scorecard``: its saved values are already in our shape (ours is a
superset), so ``migrate-values`` only checks them; ``migrate-config`` renames the type."""

REPLACES = "agent_scorecard"
"""The built-in type this one replaces (``migrate-config`` renames it to ours)."""
