"""A step's identity as the tests expect it, written from the rule (docs/derivation.md, "Step
identity") with the standard library, never with the package's own `step_ref`: tests state the
identities they expect by this, for steps whose text is plain (not JSON) and whose names hold no
lone surrogate (Python's json.dumps writes those as JSON.stringify does)."""

from __future__ import annotations

import hashlib
import json
from typing import Optional


def fingerprint(agent: Optional[str], text: str, qualifier: Optional[str] = None) -> str:
    """`fp:` and the first 16 hex digits of the SHA-256 of `JSON.stringify([agent, qualifier, text])`."""
    hashed = json.dumps([agent, qualifier, text], ensure_ascii=False, separators=(",", ":"))
    return "fp:" + hashlib.sha256(hashed.encode("utf-8")).hexdigest()[:16]


def source(step_id: str) -> str:
    """The identity of a step that carries its source's own id."""
    return "id:" + step_id
