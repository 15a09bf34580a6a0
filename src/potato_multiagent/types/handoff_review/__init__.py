"""The ``multiagent.handoff_review`` type: see scheme.py."""
