"""potato-multiagent: annotate teams of LLM agents in Potato, by agent, by step, by handoff.

>>> from potato_multiagent import derive, load_task, validate_value
"""

from .types import validate_value
from .trace import Derivation, derive

__all__ = ["Derivation", "derive", "load_task", "validate_value"]
__version__ = "0.1.0"


def __getattr__(name: str):
    # load_task brings pandas; importing it lazily keeps the plugin quick to load inside Potato.
    if name == "load_task":
        from .notebook import load_task

        return load_task
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
