"""No Potato built-in is renamed to ``multiagent.mast``: MAST in Potato is either a turn-level
``multiselect`` bound to a trace display (what this project's examples used before this type) or a
``hierarchical_multiselect`` with ``taxonomy_preset: mast``. Both keep working as they are (the trace
view still shows turn-level chips on its steps, and ``export``/``agreement`` read them per step and
mode, analysis/turn_tags.py); ``migrate-config`` says where a turn-level MAST scheme could become
this type (docs/types/mast.md, "Coming from a turn-level multiselect")."""

REPLACES = None
"""No built-in type of this name to rename."""

REPLACED_KEYS: frozenset = frozenset()
"""None: no built-in is renamed to this type."""
