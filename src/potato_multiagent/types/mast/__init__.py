"""The ``multiagent.mast`` type: failure modes (MAST by default) on steps and on the run; see scheme.py."""
