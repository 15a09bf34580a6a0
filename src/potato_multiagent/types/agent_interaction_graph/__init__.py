"""The ``multiagent.agent_interaction_graph`` type: see scheme.py."""
