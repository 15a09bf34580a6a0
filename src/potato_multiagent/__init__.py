"""potato-multiagent: annotate teams of LLM agents in Potato, by agent, by step, by handoff.

>>> from potato_multiagent import derive, validate_value
"""

from .schemes import validate_value
from .trace import Derivation, derive

__all__ = ["Derivation", "derive", "validate_value"]
__version__ = "0.1.0"
