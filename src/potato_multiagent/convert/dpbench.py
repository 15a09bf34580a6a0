"""DPBench (dining philosophers run by LLM agents): one record per episode.

A log is JSON Lines: a ``header``, ``timestep`` lines (``table_state.forks[i].holder`` is the
philosopher holding fork i after the timestep's decisions; ``decisions`` are the philosophers'
``action``, ``message`` and ``reasoning``), then ``episode_end`` with the environment's
``deadlock`` flag, which goes to gold.

- Steps: one per decision a philosopher really made, in the order made (``agent`` the
  philosopher, ``timestep`` when it was made, ``action``, ``message``, ``thought`` = reasoning,
  ``content`` = the three in words). In simultaneous mode that is every decision of every line.
  In sequential mode DPBench's runner logs, on every timestep line, every philosopher's latest
  decision (its graph state keeps them all), and the first line only once all have decided: the
  philosophers act in turn, philosopher ``(t - 1) mod n`` at timestep t, so a line at timestep t
  adds that philosopher's decision only, and the first line (timestep T) holds the decisions made
  at the timesteps up to T, each dated by that turn order. A line whose other decisions differ from
  the line before is refused (the log would not be what this reading assumes).
- ``calls`` (resource ``fork_<i>``), half-open intervals in timesteps:
  a hold ``[t1, t2)`` from the timestep a philosopher is first seen holding a fork to the one it
  no longer does (still held at the end: the last timestep + 1); a wait ``[t, t + 1)`` on the
  other fork when a philosopher holding exactly one fork decides ``wait`` or fails a grab (judged
  on the table logged after the decision's own timestep: the first decisions of a sequential
  episode, made before the first logged table, give no wait, and a fork one of them grabbed that
  the first table shows held by the grabber is held from the grab's timestep); and, at
  an ``episode_end`` with ``deadlock: true``, a wait ``[T, T + 1)`` (T the last timestep) by each
  hungry philosopher holding exactly one fork. Philosopher i's left fork is fork i, its right
  fork is fork (i + 1) mod n, as in DPBench's table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple, Union

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


@dataclass(frozen=True)
class Decision:
    """A decision a philosopher really made, at the timestep it made it."""

    number: int
    fields: dict
    table_known: bool
    """The table logged right after this decision's timestep is its line's (not an earlier turn's)."""


def convert_file(path: Path, items: List[Item]) -> Iterator[Union[Converted, ConvertError]]:
    """One record per episode; an episode with an unreadable line is left out, naming the line."""
    config: dict = {}
    episodes: Dict[object, List[Timestep]] = {}
    endings: Dict[object, dict] = {}
    problems: Dict[object, List[ConvertError]] = {}
    for item in items:
        episode_id = item.value.get("episode_id") if isinstance(item.value, dict) else None
        try:
            kind = item.require("type", str, "the line's type (header, timestep or episode_end)")
            if kind == "header":
                config = item.value.get("config") if isinstance(item.value.get("config"), dict) else {}
            elif kind == "timestep":
                episodes.setdefault(episode_id, []).append(_timestep(item))
            elif kind == "episode_end":
                endings[episode_id] = item.value
        except ConvertError as error:
            problems.setdefault(episode_id, []).append(error)
    unplaced = problems.pop(None, []) if None not in episodes else []
    yield from unplaced
    if not episodes:
        if not unplaced and not problems:
            raise ConvertError(path, None, "input", "no timestep line: not a DPBench episode log")
        yield from (error for errors in problems.values() for error in errors)
        return
    for episode_id, timesteps in episodes.items():
        if problems.get(episode_id):
            yield from problems[episode_id]
            continue
        record_id = path.stem if len(episodes) == 1 else f"{path.stem}-{episode_id}"
        try:
            yield _episode(record_id, config, timesteps, endings.get(episode_id))
        except ConvertError as error:
            yield error


def _episode(record_id: str, config: dict, timesteps: List[Timestep], ending: Optional[dict]) -> Converted:
    names = _all_names(timesteps)
    decisions = _decisions(timesteps, config)
    record = {"id": record_id, **_context(config), "steps": _steps(decisions),
              "calls": _holds(timesteps, names, _grabs_before_first_table(decisions))
              + _waits(timesteps, decisions, ending, names)}
    gold = {"deadlock": ending["deadlock"]} if isinstance(ending, dict) and "deadlock" in ending else None
    return Converted(record=record, gold=gold, item=timesteps[0].item)


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


def _decisions(timesteps: List[Timestep], config: dict) -> List[Tuple[Timestep, Decision]]:
    """The decisions really made, each with the line that logged it, in the order made."""
    if config.get("mode") != "sequential":
        return [(timestep, Decision(timestep.number, decision, True))
                for timestep in timesteps for decision in timestep.decisions]
    count = config.get("num_philosophers")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        count = len(timesteps[0].holders) or len(timesteps[0].decisions)
    first = timesteps[0]
    made = sorted(((first.number - (first.number - 1 - _philosopher(first, d, k)) % count, d)
                   for k, d in enumerate(first.decisions)), key=lambda entry: entry[0])
    found = [(first, Decision(number, decision, number == first.number)) for number, decision in made]
    for previous, timestep in zip(timesteps, timesteps[1:]):
        found.append((timestep, Decision(timestep.number, _turn_decision(previous, timestep, count), True)))
    return found


def _philosopher(timestep: Timestep, decision: dict, position: int) -> int:
    philosopher = decision.get("philosopher_id")
    if not isinstance(philosopher, int) or isinstance(philosopher, bool):
        raise timestep.item.error(f"decisions[{position}].philosopher_id", "expected the philosopher's number")
    return philosopher


def _turn_decision(previous: Timestep, timestep: Timestep, count: int) -> dict:
    """The one new decision of a sequential line: by the philosopher whose turn the timestep is."""
    actor = (timestep.number - 1) % count
    before = {_philosopher(previous, d, k): d for k, d in enumerate(previous.decisions)}
    new = None
    for position, decision in enumerate(timestep.decisions):
        philosopher = _philosopher(timestep, decision, position)
        if philosopher == actor:
            new = decision
        elif philosopher in before and before[philosopher] != decision:
            raise timestep.item.error(
                f"decisions[{position}]", f"{decision['philosopher_name']} decided anew at timestep "
                f"{timestep.number}, the turn of philosopher {actor} in sequential mode")
    if new is None:
        raise timestep.item.error("decisions", f"no decision by philosopher {actor}, whose turn timestep "
                                               f"{timestep.number} is in sequential mode")
    return new


def _steps(decisions: List[Tuple[Timestep, Decision]]) -> List[dict]:
    steps = []
    for _, made in decisions:
        decision = made.fields
        step = {"agent": decision["philosopher_name"], "timestep": made.number,
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


def _grabs_before_first_table(decisions: List[Tuple[Timestep, Decision]]) -> Dict[Tuple[int, object], int]:
    """(fork, philosopher) -> the timestep of a grab made before the first logged table, when that
    table shows the philosopher holding the fork (sequential mode: the first turns are not logged)."""
    grabs: Dict[Tuple[int, object], int] = {}
    for timestep, made in decisions:
        philosopher, action = made.fields.get("philosopher_id"), made.fields.get("action")
        if made.table_known or action not in GRABS or not isinstance(philosopher, int) or not timestep.holders:
            continue
        fork = _own_forks(philosopher, len(timestep.holders))[GRABS[action]]
        if timestep.holders[fork] == philosopher:
            grabs.setdefault((fork, philosopher), made.number)
    return grabs


def _holds(timesteps: List[Timestep], names: Dict[object, str],
           earlier_grabs: Dict[Tuple[int, object], int]) -> List[dict]:
    """One hold per stretch of timesteps a philosopher keeps a fork, in order of start, then fork."""
    open_holds: Dict[int, Tuple[int, int]] = {}
    holds = []
    for position, timestep in enumerate(timesteps):
        for fork, holder in enumerate(timestep.holders):
            held = open_holds.get(fork)
            if held is not None and held[0] != holder:
                holds.append((held[1], fork, _call(names[held[0]], "hold", fork, held[1], timestep.number)))
                del open_holds[fork]
            if holder is not None and fork not in open_holds:
                start = earlier_grabs.get((fork, holder), timestep.number) if position == 0 else timestep.number
                open_holds[fork] = (holder, start)
    after_last = timesteps[-1].number + 1
    for fork, (holder, start) in open_holds.items():
        holds.append((start, fork, _call(names[holder], "hold", fork, start, after_last)))
    return [call for _, _, call in sorted(holds, key=lambda entry: entry[:2])]


def _waits(timesteps: List[Timestep], decisions: List[Tuple[Timestep, Decision]], ending: Optional[dict],
           names: Dict[object, str]) -> List[dict]:
    """Waits by decision (``wait`` or a failed grab), then the deadlock's waits at the last timestep."""
    waits: Dict[Tuple[int, int, int], dict] = {}
    for timestep, made in decisions:
        if not made.table_known:
            continue
        philosopher = made.fields.get("philosopher_id")
        target = _waited_fork(timestep, philosopher, made.fields.get("action"))
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
