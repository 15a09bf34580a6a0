"""From Potato's built-in ``emergent_behavior``: its saved values are already in our shape (ours is a
superset), so ``migrate-values`` only checks them; ``migrate-config`` renames the type."""

REPLACES = "emergent_behavior"
"""The built-in type this one replaces (``migrate-config`` renames it to ours)."""

REPLACED_KEYS = frozenset({"steps_key", "agent_key", "behaviors", "allow_note"})
"""The config keys Potato 2.12.1's built-in of that name reads (its registry.py): ``migrate-config``
only renames the type, so our ``Config`` accepts every one of them."""
