"""What one stored value decides, unit by unit, in words: the common ground of adjudication and
of a judge's accuracy against gold.

A *unit* is what agreement matches across annotators (the attribution of a run, a handoff by its
identity, a call, a region, a behaviour, a score cell, an edge); its *decision* is the judged part
in words (``WebSurfer #4``, ``flags: lost_context; quality 2``, ``verdict wrong_tool``). Units come
from the type's export adapter rows, so they are identified exactly as export and agreement
identify them; each type's adapter words them (``describe``, ``not_judged`` in
``types/<type>/adapter.py``). Free text (a reason, a note) is context, not a decision: two annotators who pick
the same agent and step for different words agree.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from .types import adapter_for, scheme_for
from .types._base.adapter import Adapter
from .trace import Derivation, derive
from .trace.jsjson import strict_loads

Decisions = Dict[str, str]
"""``{unit label: decision in words}``."""


def not_judged(widget: str) -> str:
    """The decision of a unit a value leaves out, in the type's own words (its adapter's
    ``not_judged``; ``not judged`` for a type that says nothing)."""
    adapter = adapter_for(widget)
    return adapter.not_judged if adapter is not None else Adapter.not_judged


def decisions(scheme: Mapping[str, Any], value: Any, record: Any,
              derivation: Optional[Derivation] = None) -> Decisions:
    """The decisions of one *valid* stored value (object or JSON text) of ``scheme`` (a config dict)."""
    cls = scheme_for(str(scheme["annotation_type"]))
    config, problems = cls.parse_config(dict(scheme))
    if config is None:
        raise ValueError(f"{scheme.get('name')}: config problems: {'; '.join(problems)}")
    parsed = cls.Value.model_validate(strict_loads(value) if isinstance(value, str) else value)
    if derivation is None:
        derivation = derive(record, **config.derive_options())
    adapter = adapter_for(cls.widget)
    return adapter.describe(adapter.rows(parsed, derivation, config), config)


def differences(widget: str, by_judge: Mapping[str, Decisions]) -> Dict[str, Dict[str, str]]:
    """``{unit: {judge: decision}}`` for every unit on which the judges' decisions differ
    (a unit one judge left out counts as the type's "not judged" word, e.g. ``not reviewed``)."""
    missing = not_judged(widget)
    units = list(dict.fromkeys(unit for found in by_judge.values() for unit in found))
    differing = {}
    for unit in units:
        said = {judge: found.get(unit, missing) for judge, found in by_judge.items()}
        if len(set(said.values())) > 1:
            differing[unit] = said
    return differing
