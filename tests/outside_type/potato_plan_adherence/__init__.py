"""The ``multiagent.plan_adherence`` type, in a package of its own: see scheme.py."""
