"""What a type's ``migration.py`` gives back for one value saved by Potato's built-in type."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List


@dataclass
class Outcome:
    """What migrating one value gives: the new value (None: unchanged) and what to tell the user."""

    value: Any = None
    changes: List[str] = field(default_factory=list)
    left: List[str] = field(default_factory=list)
