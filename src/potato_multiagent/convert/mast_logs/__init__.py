"""The seven systems of MAD (MAST's dataset), each log split at its own markers.

One module per system (``NAMES``: how MAD's ``mas_name``/``benchmark_name`` call it; ``split(text)``:
a :class:`~.common.LogSplit`, or None when the text lacks that system's markers). The systems a
record names are tried first, then the others, so a log is read by its own layout even when a
record names its system oddly (MAD's Magentic-One record swaps ``mas_name`` and ``benchmark_name``)
or not at all (a bare ``.log`` file).
"""

from __future__ import annotations

from typing import Iterable, List, Optional, Tuple

from . import ag2, appworld, chatdev, hyperagent, magentic, metagpt, openmanus
from .common import LogSplit

SYSTEMS = {
    "AG2": ag2,
    "MetaGPT": metagpt,
    "ChatDev": chatdev,
    "HyperAgent": hyperagent,
    "AppWorld": appworld,
    "Magentic-One": magentic,
    "OpenManus": openmanus,
}


def named_systems(names: Iterable[object]) -> List[str]:
    """The systems whose names a record's ``mas_name``/``benchmark_name`` give (case and spaces aside)."""
    found: List[str] = []
    for name in names:
        if not isinstance(name, str):
            continue
        key = name.strip().lower().replace(" ", "")
        for system, module in SYSTEMS.items():
            if key in module.NAMES and system not in found:
                found.append(system)
    return found


def split_log(text: str, named: List[str]) -> Tuple[Optional[str], Optional[LogSplit]]:
    """``(system, split)`` by the first system whose markers the text has, the named ones first."""
    order = named + [system for system in SYSTEMS if system not in named]
    for system in order:
        split = SYSTEMS[system].split(text)
        if split is not None and split.steps:
            return system, split
    return None, None


__all__ = ["SYSTEMS", "LogSplit", "named_systems", "split_log"]
