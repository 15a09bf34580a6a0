"""Layer 1: pure derivation from a trace record (no Potato import, no I/O).

``derive(record, **options)`` is the one place the rules of docs/derivation.md live in Python;
``web/derive.js`` is its browser twin, and ``tests/conformance`` keeps the two equal.
"""

from .derivation import Derivation, derive
from .identity import StepRefs, step_ref
from .names import is_name, name_of
from .options import DeriveOptions, unique_names
from .steps import Step
from .times import parse_time

__all__ = ["DeriveOptions", "Derivation", "Step", "StepRefs", "derive", "is_name", "name_of", "parse_time",
           "step_ref", "unique_names"]
