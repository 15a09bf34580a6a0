"""The ``multiagent.emergent_behavior`` type: see scheme.py."""
