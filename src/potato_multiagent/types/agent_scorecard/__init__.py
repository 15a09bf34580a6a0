"""The ``multiagent.agent_scorecard`` type: see scheme.py."""
