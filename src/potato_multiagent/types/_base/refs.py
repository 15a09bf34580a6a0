"""Saved step references: a step index stored with the identity of the step it was saved on.

Every place a type stores a step index (the decisive step, a milestone's step, an episode's turns, a
judged tool call's or handoff's steps) stores beside it the step's identity
(:func:`potato_multiagent.trace.step_ref`) in a field named after it: ``decisive_step_ref``,
``milestone_step_refs``, ``turn_refs``, ``step_ref``, ``from_step_ref``. A reference is *stale* when
its step's identity is no longer the one saved: the trace changed under it. Stale references are
reported (never followed silently): by ``check`` and the widgets, in the words of :func:`step_problems`,
and mended only by an annotator (the page's Re-point) or by ``migrate-values --rebase``.
docs/step-references.md is the user's page; ``web/base.js`` (``stepProblems``) says the same words.

A type lists its references with ``Scheme.references(data)`` (the raw stored JSON, shape-valid):
one :class:`StepReference` each, whose ``write`` puts a new index and identity into that data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Optional

from ...trace import Derivation, StepRefs
from .words import Problem, problem, word


@dataclass
class StepReference:
    """One step index of a stored value, with the identity it was saved with (None: saved before
    identities were stored)."""

    field: str
    """The index's path in messages (``decisive_step``, ``[2].from_step``, ``x.instances[0].turns[1]``)."""
    index: int
    ref: Optional[str]
    write: Callable[[int, Optional[str]], None]
    """Put a new index and identity into the stored data this reference was read from."""


def refs_of(derivation: Derivation) -> StepRefs:
    """The derivation's step identities, computed once per derivation and only as asked."""
    refs = getattr(derivation, "_step_refs", None)
    if refs is None or refs.steps is not derivation.steps:
        refs = StepRefs(derivation.steps)
        derivation._step_refs = refs
    return refs


def is_stale(index: int, ref: Optional[str], derivation: Derivation) -> bool:
    """Whether a reference saved with ``ref`` no longer names step ``index`` (one saved without an
    identity cannot be checked and is never stale)."""
    return ref is not None and refs_of(derivation).ref(index) != ref


def step_problems(field: str, index: int, ref: Optional[str], derivation: Derivation) -> List[Problem]:
    """The problem of one stored step reference (data, :func:`.words.problem`): none; the step is not in the trace
    (``not_in_trace``, for a reference saved without an identity); or it is stale, with the step
    the index names now and where the step it was saved on is now."""
    steps = derivation.steps
    if ref is None:
        return [] if index < len(steps) else [problem("not_in_trace", field=field, value=index)]
    refs = refs_of(derivation)
    if refs.ref(index) == ref:
        return []
    where = _where(refs.where(ref), derivation)
    if index < len(steps):
        return [problem("stale_step", field=field, number=index + 1, ref=ref, now=agent_words(steps[index].agent),
                        where=where)]
    return [problem("stale_gone", field=field, number=index + 1, ref=ref, where=where)]


def stale_references(references: List[StepReference], derivation: Derivation) -> List[StepReference]:
    """The references of a value that are stale."""
    return [reference for reference in references if is_stale(reference.index, reference.ref, derivation)]


def agent_words(agent: Optional[str]) -> str:
    return agent if agent is not None else word("no_agent")


def _where(indices: List[int], derivation: Derivation) -> str:
    if len(indices) == 1:
        return word("step_moved", number=indices[0] + 1, agent=agent_words(derivation.steps[indices[0]].agent))
    if indices:
        return word("step_moved_among", numbers=", ".join(f"#{index + 1}" for index in indices))
    return word("step_lost")


def json_ref(value: Any) -> Optional[str]:
    """A stored identity as a reference reads it (anything but a text is none)."""
    return value if isinstance(value, str) else None


def put_ref(container: dict, key: str, ref: Optional[str]) -> None:
    """Store an identity under ``key`` (none: remove the key)."""
    if ref is None:
        container.pop(key, None)
    else:
        container[key] = ref
