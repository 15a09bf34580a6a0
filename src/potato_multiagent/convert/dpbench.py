"""DPBench (dining philosophers run by LLM agents): one record per episode.

A log is JSON Lines: a ``header``, ``timestep`` lines (``table_state.forks[i].holder`` is the
philosopher holding fork i after the timestep's decisions; ``decisions`` are the philosophers'
``action``, ``message`` and ``reasoning``), then ``episode_end`` with the environment's
``deadlock`` flag, which goes to gold.

- Steps: every decision, in file order (``agent`` the philosopher, ``timestep``, ``action``,
  ``message``, ``thought`` = reasoning, ``content`` = the three in words).
- ``calls`` (resource ``fork_<i>``), half-open intervals in timesteps:
  a hold ``[t1, t2)`` from the timestep a philosopher is first seen holding a fork to the one it
  no longer does (still held at the end: the last timestep + 1); a wait ``[t, t + 1)`` on the
  other fork when a philosopher holding exactly one fork decides ``wait`` or fails a grab; and, at
  an ``episode_end`` with ``deadlock: true``, a wait ``[T, T + 1)`` (T the last timestep) by each
  hungry philosopher holding exactly one fork. Philosopher i's left fork is fork i, its right
  fork is fork (i + 1) mod n, as in DPBench's table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

from .sources import Converted, ConvertError, Item

SUMMARY = "DPBench episodes: decisions -> steps, fork holds and waits -> calls (fork_<i>), deadlock -> gold"

GRABS = {"grab_left": 0, "grab_right": 1}
"""A grab's target as a position in (left fork, right fork)."""


@dataclass(frozen=True)
class Timestep:
    number: int
    holders: List[Optional[int]]
    """Fork index -> the philosopher id holding it after this timestep (None: on the table)."""
    names: Dict[int, str]
    hungry: frozenset
    decisions: List[dict]
    item: Item


def convert_file(path: Path, items: List[Item]) -> Iterator[Converted]:
    header: dict = {}
    episodes: Dict[object, List[Timestep]] = {}
    endings: Dict[object, dict] = {}
    for item in items:
        kind = item.require("type", str, "the line's type (header, timestep or episode_end)")
        if kind == "header":
            header = item.value.get("config") if isinstance(item.value.get("config"), dict) else {}
        elif kind == "timestep":
            episodes.setdefault(item.value.get("episode_id"), []).append(_timestep(item))
        elif kind == "episode_end":
            endings[item.value.get("episode_id")] = item.value
    if not episodes:
        raise ConvertError(path, None, "input", "no timestep line: not a DPBench episode log")
    for episode_id, timesteps in episodes.items():
        record_id = path.stem if len(episodes) == 1 else f"{path.stem}-{episode_id}"
        ending, names = endings.get(episode_id), _all_names(timesteps)
        record = {"id": record_id, **_context(header), "steps": _steps(timesteps),
                  "calls": _holds(timesteps, names) + _waits(timesteps, ending, names)}
        gold = {"deadlock": ending["deadlock"]} if isinstance(ending, dict) and "deadlock" in ending else None
        yield Converted(record=record, gold=gold, item=timesteps[0].item)


def _context(config: dict) -> dict:
    return {key: config[key] for key in ("mode", "communication", "num_philosophers") if key in config}


def _timestep(item: Item) -> Timestep:
    number = item.require("timestep", int, "the timestep number")
    state = item.require("table_state", dict, "the table state")
    forks = state.get("forks")
    if not isinstance(forks, list) or not all(isinstance(fork, dict) for fork in forks):
        raise item.error("table_state.forks", "expected a list of {holder} objects")
    philosophers = state.get("philosophers") if isinstance(state.get("philosophers"), list) else []
    names = {p["id"]: p.get("name") or f"P{p['id']}" for p in philosophers if isinstance(p, dict) and "id" in p}
    hungry = frozenset(p["id"] for p in philosophers if isinstance(p, dict) and p.get("state") == "hungry")
    decisions = item.require("decisions", list, "the philosophers' decisions (a list)")
    for position, decision in enumerate(decisions):
        if not isinstance(decision, dict) or not isinstance(decision.get("philosopher_name"), str):
            raise item.error(f"decisions[{position}].philosopher_name", "expected the philosopher's name")
    return Timestep(number, [fork.get("holder") for fork in forks], names, hungry, decisions, item)


def _steps(timesteps: List[Timestep]) -> List[dict]:
    steps = []
    for timestep in timesteps:
        for decision in timestep.decisions:
            step = {"agent": decision["philosopher_name"], "timestep": timestep.number,
                    "action": decision.get("action"), "content": _words(decision)}
            if decision.get("message") is not None:
                step["message"] = decision["message"]
            if decision.get("reasoning") is not None:
                step["thought"] = decision["reasoning"]
            steps.append(step)
    return steps


def _words(decision: dict) -> str:
    lines = [str(decision.get("action"))]
    if decision.get("message"):
        lines.append(f"message: {decision['message']}")
    if decision.get("reasoning"):
        lines.append(f"reasoning: {decision['reasoning']}")
    return "\n".join(lines)


def _call(name: str, tool: str, fork: int, start: int, end: int) -> dict:
    return {"agent": name, "tool": tool, "resource": f"fork_{fork}", "start": start, "end": end}


def _holds(timesteps: List[Timestep], names: Dict[object, str]) -> List[dict]:
    """One hold per stretch of timesteps a philosopher keeps a fork, in order of start, then fork."""
    open_holds: Dict[int, Tuple[int, int]] = {}
    holds = []
    for timestep in timesteps:
        for fork, holder in enumerate(timestep.holders):
            held = open_holds.get(fork)
            if held is not None and held[0] != holder:
                holds.append((held[1], fork, _call(names[held[0]], "hold", fork, held[1], timestep.number)))
                del open_holds[fork]
            if holder is not None and fork not in open_holds:
                open_holds[fork] = (holder, timestep.number)
    after_last = timesteps[-1].number + 1
    for fork, (holder, start) in open_holds.items():
        holds.append((start, fork, _call(names[holder], "hold", fork, start, after_last)))
    return [call for _, _, call in sorted(holds, key=lambda entry: entry[:2])]


def _waits(timesteps: List[Timestep], ending: Optional[dict], names: Dict[object, str]) -> List[dict]:
    """Waits by decision (``wait`` or a failed grab), then the deadlock's waits at the last timestep."""
    waits: Dict[Tuple[int, int, int], dict] = {}
    for timestep in timesteps:
        for decision in timestep.decisions:
            philosopher = decision.get("philosopher_id")
            target = _waited_fork(timestep, philosopher, decision.get("action"))
            if target is not None:
                waits.setdefault((timestep.number, target, philosopher),
                                 _call(names[philosopher], "wait", target, timestep.number, timestep.number + 1))
    if isinstance(ending, dict) and ending.get("deadlock") is True:
        last = timesteps[-1]
        for philosopher in sorted(last.hungry):
            target = _waited_fork(last, philosopher, "wait")
            if target is not None:
                waits.setdefault((last.number, target, philosopher),
                                 _call(names[philosopher], "wait", target, last.number, last.number + 1))
    return [waits[key] for key in sorted(waits)]


def _waited_fork(timestep: Timestep, philosopher: Optional[int], action: object) -> Optional[int]:
    """The fork a philosopher holding exactly one fork waits for, given its decision; else None."""
    if not isinstance(philosopher, int) or isinstance(philosopher, bool) or not timestep.holders:
        return None
    own = _own_forks(philosopher, len(timestep.holders))
    held = [fork for fork in own if timestep.holders[fork] == philosopher]
    if len(held) != 1:
        return None
    other = next(fork for fork in own if fork != held[0])
    failed_grab = action in GRABS and timestep.holders[own[GRABS[action]]] != philosopher
    return other if action == "wait" or failed_grab else None


def _own_forks(philosopher: int, fork_count: int) -> Tuple[int, int]:
    return philosopher % fork_count, (philosopher + 1) % fork_count


def _all_names(timesteps: List[Timestep]) -> Dict[object, str]:
    """Philosopher id -> name, from the decisions and the table; an id seen only as a holder is ``P<id>``."""
    names: Dict[object, str] = {}
    for timestep in timesteps:
        for decision in timestep.decisions:
            if isinstance(decision.get("philosopher_id"), int):
                names.setdefault(decision["philosopher_id"], decision["philosopher_name"])
        for philosopher, name in timestep.names.items():
            names.setdefault(philosopher, name)
    for timestep in timesteps:
        for holder in timestep.holders:
            if holder is not None:
                names.setdefault(holder, f"P{holder}")
    return names
