"""What ``potato-multiagent init`` tells a type about the runs, and what the type answers: whether
``init`` proposes it (the scheme it writes, and why), or leaves it out (and why)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class Survey:
    """What the converted runs contain, counted per run (a run counts once per feature)."""

    runs: int
    multi_agent: int
    """Runs with two or more agents."""
    with_handoffs: int
    with_tool_calls: int
    with_timed_calls: int
    with_contention: int
    """Runs where two agents' timed calls overlap on one resource (a contention region)."""
    with_gold: int
    gold_keys: Tuple[str, ...] = ()
    speaker_key: str = "role"
    """The step field most steps name their agent in, ``role`` aside: Potato's trace display reads
    a ``{role, content}`` step without its ``speaker_key`` by itself."""
    text_key: str = "content"
    task_key: Optional[str] = None
    """A record field every run has that says what it was asked (shown above the trace)."""
    layouts: Tuple[Tuple[str, str, int], ...] = ()
    """``(layout, reason code, runs)`` of the trace view's layout rule (:func:`trace_view.layout.layout_rule`),
    most runs first."""

    def of_runs(self) -> str:
        """``of N run(s)``, how a reason counts runs."""
        return f"of {self.runs} run(s)"


@dataclass(frozen=True)
class Choice:
    name: str
    scheme: Optional[dict]
    """The annotation scheme written to the config; None for a type left out."""
    reason: str
    offered: Optional[dict] = None
    """For a type left out that init could write: its scheme, added when ``--judgments`` judges it."""


def when(count: int, name: str, scheme: dict, reason: str, reason_not: str) -> Choice:
    """Propose ``scheme`` when ``count`` runs have what it needs; else leave it out, offered."""
    return Choice(name, scheme, reason) if count else Choice(name, None, reason_not, offered=scheme)
