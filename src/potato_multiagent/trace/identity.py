"""A step's identity: what a saved step reference carries beside the step's index.

An index says where a step was when the annotator saved; the identity says which step it was, so a
reference whose trace changed (a re-conversion inserted, removed or edited steps) is found stale
instead of pointing silently at another step (docs/step-references.md). ``web/derive.js`` has the
same functions (``stepRef``, ``stepsWithRef``); ``tests/conformance/identity.json`` keeps them equal.

- ``id:<source id>`` when the step carries its source's own id (``Step.source_id``: ``span_id``,
  ``message_id`` or ``id``);
- else ``fp:<16 hex digits>``: the start of the SHA-256 of the UTF-8 of
  ``JSON.stringify([agent, qualifier, text])``, where a text that is strict JSON starting with ``{``
  or ``[`` is first written again with every object's keys in code-point order (the page reads the
  record through Potato's ``tojson``, which sorts keys, while a data file keeps its own order).

Identical steps (the same agent, qualifier and text, no id) have the same identity: they are told
apart by their place among the steps with that identity (:meth:`StepRefs.occurrence`).
"""

from __future__ import annotations

import hashlib
from typing import Any, Dict, List, Optional

from .jsjson import StrictJSONError, js_stringify, strict_loads
from .steps import Step

SOURCE = "id:"
FINGERPRINT = "fp:"
FINGERPRINT_DIGITS = 16
MAX_SORTED_DEPTH = 200
"""JSON text nested deeper is fingerprinted as it is (both languages read that deep alike)."""


class _TooDeep(Exception):
    pass


def step_ref(step: Step) -> str:
    """The identity of one derived step.

    >>> step_ref(Step(0, "A", None, None, "turn", "hello"))
    'fp:1261c877807fe2c2'
    >>> step_ref(Step(0, "A", None, None, "turn", "hello", source_id="span-7"))
    'id:span-7'
    """
    if step.source_id is not None:
        return SOURCE + step.source_id
    hashed = js_stringify([step.agent, step.qualifier, fingerprinted_text(step.text)])
    return FINGERPRINT + hashlib.sha256(hashed.encode("utf-8")).hexdigest()[:FINGERPRINT_DIGITS]


def fingerprinted_text(text: str) -> str:
    """``text``, or, when it is strict JSON starting with ``{`` or ``[`` nested at most
    ``MAX_SORTED_DEPTH`` levels, that JSON with sorted keys."""
    if text[:1] not in ("{", "["):
        return text
    try:
        return js_stringify(_sorted_keys(strict_loads(text), 1))
    except (StrictJSONError, _TooDeep):
        return text


def _sorted_keys(value: Any, depth: int) -> Any:
    if isinstance(value, (dict, list)) and depth > MAX_SORTED_DEPTH:
        raise _TooDeep
    if isinstance(value, dict):
        return {key: _sorted_keys(value[key], depth + 1) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(item, depth + 1) for item in value]
    return value


class StepRefs:
    """The identities of one derivation's steps, computed when first asked for."""

    def __init__(self, steps: List[Step]):
        self.steps = steps
        self._refs: Dict[int, str] = {}
        self._where: Optional[Dict[str, List[int]]] = None

    def ref(self, index: int) -> Optional[str]:
        """The identity of step ``index``; None when the trace has no such step."""
        if not 0 <= index < len(self.steps):
            return None
        if index not in self._refs:
            self._refs[index] = step_ref(self.steps[index])
        return self._refs[index]

    def where(self, ref: str) -> List[int]:
        """Every step index with identity ``ref``, in step order."""
        if self._where is None:
            self._where = {}
            for index in range(len(self.steps)):
                self._where.setdefault(self.ref(index), []).append(index)
        return self._where.get(ref, [])

    def matches(self, index: int, ref: Optional[str]) -> bool:
        """Whether a reference to ``index`` saved with identity ``ref`` still names that step (a
        reference saved without one cannot be checked, and counts as matching)."""
        return ref is None or self.ref(index) == ref

    def occurrence(self, index: int) -> int:
        """The place of step ``index`` among the steps with its identity (0 for the first)."""
        return self.where(self.ref(index)).index(index)
