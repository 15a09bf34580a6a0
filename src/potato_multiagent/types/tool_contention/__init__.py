"""The ``multiagent.tool_contention`` type: see scheme.py."""
