"""The ``multiagent.tool_call_review`` type: see scheme.py."""
