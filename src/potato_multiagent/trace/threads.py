"""Threads of work: steps that run side by side (agents-as-tools, fan-out branches) and who
started them (docs/derivation.md#threads).

Interleaved by time, parallel agents look like a conversation; a ``thread`` on each step keeps
them apart, and ``parent_thread`` says which thread started one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence

from .names import is_name
from .steps import Step


def resolve_parents(steps: List[Step], raw_steps: Sequence[Any]) -> List[Step]:
    """Give every step of a thread that thread's parent: the first ``parent_thread`` among its
    steps that is a name other than the thread itself (none: started from the root thread)."""
    parents: Dict[str, str] = {}
    for step in steps:
        thread = step.thread
        if thread is None or thread in parents:
            continue
        declared = raw_steps[step.index].get("parent_thread")
        if is_name(declared) and declared != thread:
            parents[thread] = declared
    if not parents:
        return steps
    return [replace(step, parent_thread=parents[step.thread]) if step.thread in parents else step
            for step in steps]


def next_in_thread(steps: Sequence[Step]) -> List[Optional[int]]:
    """For each step, the index of the next step of the same thread (the root is one thread)."""
    following: Dict[Optional[str], int] = {}
    result: List[Optional[int]] = [None] * len(steps)
    for step in reversed(steps):
        result[step.index] = following.get(step.thread)
        following[step.thread] = step.index
    return result
