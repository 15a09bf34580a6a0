"""The ``multiagent.failure_attribution`` type: see scheme.py."""
