"""``potato-multiagent migrate-values``: values saved by Potato's built-in types, made ours.

After ``migrate-config`` a scheme keeps its name, so Potato still hands each widget the value the
built-in saved. Where the built-in's shape is a subset of ours, this adds what names the mark by
identity, found with our derivation:

- graph ``{critical_nodes, edges: {"A->B": status}}`` gains ``edge_marks``, one per key that
  names exactly one derived edge (``->`` inside a name makes a key ambiguous: reported, left);
- handoff entries ``{index, step, from, to, flags, quality?}`` gain ``from_step``/``explicit`` by
  matching ``(step, from, to)`` against our handoffs (never by ``index``: the built-in counted only
  speaker changes, so its ordinals are not ours);
- tool-call entries gain ``id``/``position`` by matching ``(step, tool)`` when exactly one call fits.

Tool contention's built-in keys are pairwise indices into an order-dependent list: nothing says
which region they meant, so each is reported as not migratable. Every other value is checked as
it is. A value already in our shape is left alone, so a second run changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from .files import PathError, read_text, user_state_files, why_not, write_text_whole
from .schemes.agent_interaction_graph import edge_key
from .schemes.tool_call_review import call_positions
from .task import Task, TaskError, scheme_type
from .trace import Derivation, derive
from .trace.jsjson import StrictJSONError, strict_loads

BACKUP_SUFFIX = ".bak"


@dataclass
class Outcome:
    """What migrating one value gives: the new value (None: unchanged) and what to tell the user."""

    value: Any = None
    changes: List[str] = field(default_factory=list)
    left: List[str] = field(default_factory=list)


@dataclass
class ValueReport:
    """One saved value's migration, for the printed report."""

    where: str
    changes: List[str]
    left: List[str]
    problems: List[str]
    """What ``check`` still finds in the value after migration."""

    def lines(self) -> List[str]:
        return ([f"{self.where}: {change}" for change in self.changes]
                + [f"{self.where}: not migrated: {reason}" for reason in self.left]
                + [f"{self.where}: still invalid: {problem}" for problem in self.problems])


# -- one value per type ------------------------------------------------------------------------


def migrate_graph(value: Any, derivation: Derivation) -> Outcome:
    if not isinstance(value, dict) or "edge_marks" in value or not isinstance(value.get("edges"), dict):
        return Outcome()
    by_key: Dict[str, List[Tuple[str, str]]] = {}
    for edge in derivation.edges:
        by_key.setdefault(edge_key(edge["from"], edge["to"]), []).append((edge["from"], edge["to"]))
    outcome = Outcome()
    marks = []
    for key, status in value["edges"].items():
        named = by_key.get(key, [])
        if len(named) == 1:
            marks.append({"from": named[0][0], "to": named[0][1], "status": status})
            outcome.changes.append(f"edges '{key}': edge_marks gains {named[0][0]} to {named[0][1]}")
        elif named:
            outcome.left.append(f"edges '{key}' could be {len(named)} edges of this trace")
        else:
            outcome.left.append(f"edges '{key}' is no edge of this trace")
    if marks:
        outcome.value = {**value, "edge_marks": marks}
    return outcome


def migrate_handoffs(value: Any, derivation: Derivation) -> Outcome:
    if not isinstance(value, list):
        return Outcome()
    outcome = Outcome()
    entries = [_migrate_handoff(position, entry, derivation.handoffs, outcome) for position, entry in enumerate(value)]
    if outcome.changes:
        outcome.value = entries
    return outcome


def _migrate_handoff(position: int, entry: Any, handoffs: List[dict], outcome: Outcome) -> Any:
    if not isinstance(entry, dict) or "from_step" in entry:
        return entry
    identity = (entry.get("step"), entry.get("from"), entry.get("to"))
    matches = [h for h in handoffs if (h["step"], h["from"], h["to"]) == identity]
    words = f"[{position}] {entry.get('from')} to {entry.get('to')} at step {entry.get('step')}"
    if len(matches) != 1:
        outcome.left.append(f"{words} matches {len(matches)} handoffs of this trace")
        return entry
    handoff = matches[0]
    outcome.changes.append(f"{words}: from_step {handoff['from_step']}, explicit "
                           f"{'true' if handoff['explicit'] else 'false'}, index {handoff['index']}")
    return {**entry, "index": handoff["index"], "from_step": handoff["from_step"],
            "explicit": handoff["explicit"], "quality": entry.get("quality")}


def migrate_tool_calls(value: Any, derivation: Derivation) -> Outcome:
    if not isinstance(value, list):
        return Outcome()
    calls = derivation.tool_calls
    positions = call_positions(calls)
    outcome = Outcome()
    entries = []
    for k, entry in enumerate(value):
        if not isinstance(entry, dict) or "position" in entry or "id" in entry:
            entries.append(entry)
            continue
        matches = [(call, place) for call, place in zip(calls, positions)
                   if call["step"] == entry.get("step") and call["tool"] == entry.get("tool")]
        words = f"[{k}] {entry.get('tool')} at step {entry.get('step')}"
        if len(matches) != 1:
            outcome.left.append(f"{words} matches {len(matches)} calls of this trace")
            entries.append(entry)
            continue
        call, place = matches[0]
        outcome.changes.append(f"{words}: position {place}, id {json.dumps(call['id'])}, index {call['index']}")
        entries.append({**entry, "index": call["index"], "position": place, "id": call["id"]})
    if outcome.changes:
        outcome.value = entries
    return outcome


def migrate_contention(value: Any, derivation: Derivation) -> Outcome:
    if not isinstance(value, dict) or "regions" in value:
        return Outcome()
    keys = sorted((value.get("contentions") or {}), key=str)
    return Outcome(left=[f"contentions '{key}': the built-in's pair index depends on the order of the "
                         f"calls and names no resource, interval or agents, so no region can be "
                         f"chosen for it; label it again" for key in keys])


MIGRATIONS: Dict[str, Callable[[Any, Derivation], Outcome]] = {
    "agent_interaction_graph": migrate_graph,
    "handoff_review": migrate_handoffs,
    "tool_call_review": migrate_tool_calls,
    "tool_contention": migrate_contention,
}
"""Types whose built-in shape needs more than a check; the others' built-in values are ours."""


# -- a task --------------------------------------------------------------------------------------


def compact(value: Any) -> str:
    """JSON as the widget's ``JSON.stringify`` writes it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class ValueMigration:
    """Every saved value of a task's schemes, migrated in memory; :meth:`write` puts it on disk."""

    def __init__(self, config_path: str | Path):
        self.task = Task(config_path)
        self.records = self.task.records()
        self.schemes = self._our_schemes()
        self.reports: List[ValueReport] = []
        self.states: Dict[Path, dict] = {}
        """Each user_state.json that changes, with its new content."""
        for state_path in user_state_files(self.task.output_dir):
            self._migrate_state(state_path)

    def _our_schemes(self) -> Dict[str, tuple]:
        schemes = {}
        for scheme in self.task.our_schemes():
            cls = scheme_type(scheme)
            config = cls.parse_config(scheme)[0] if cls else None
            if config is not None:
                schemes[config.name] = (cls, config)
        return schemes

    def _migrate_state(self, state_path: Path) -> None:
        try:
            state = json.loads(read_text(state_path))
        except ValueError as error:
            raise TaskError(f"{state_path}: cannot read the saved state ({error})") from None
        user = str(state.get("user_id") or state_path.parent.name)
        changed = False
        for instance_id, pairs in (state.get("instance_id_to_label_to_value") or {}).items():
            for pair in pairs:
                label = pair[0] if isinstance(pair, list) and len(pair) == 2 else None
                scheme = label.get("schema") if isinstance(label, dict) else None
                if scheme in self.schemes and instance_id in self.records:
                    new_text = self._migrate_value(f"{instance_id} / {user} / {scheme}", pair[1],
                                                   self.records[instance_id], *self.schemes[scheme])
                    if new_text is not None:
                        pair[1] = new_text
                        changed = True
        if changed:
            self.states[state_path] = state

    def _migrate_value(self, where: str, stored: Any, record: Any, cls: type, config: Any) -> Optional[str]:
        """The value's new JSON text, or None when it stays as it is; records a report either way."""
        if stored in (None, ""):
            return None
        try:
            value = strict_loads(stored) if isinstance(stored, str) else stored
        except StrictJSONError as error:
            self.reports.append(ValueReport(where, [], [], [f"value: not valid JSON ({error})"]))
            return None
        derivation = derive(record, **config.derive_options())
        outcome = MIGRATIONS.get(cls.widget, lambda *_: Outcome())(value, derivation)
        result = outcome.value if outcome.value is not None else value
        problems = cls.validate(result, record, config, derivation)
        if outcome.changes or outcome.left or problems:
            self.reports.append(ValueReport(where, outcome.changes, outcome.left, problems))
        return compact(result) if outcome.value is not None else None

    def lines(self) -> List[str]:
        return [line for report in self.reports for line in report.lines()]

    def write(self) -> List[Path]:
        """Write each changed user_state.json whole (temp file + rename), backing up the first original."""
        for path, state in self.states.items():
            backup = path.with_name(path.name + BACKUP_SUFFIX)
            if not backup.exists():
                try:
                    backup.write_bytes(path.read_bytes())
                except OSError as error:
                    raise PathError(path, f"cannot back it up as {backup.name} ({why_not(error)}); "
                                          "this file was not changed") from None
            write_text_whole(path, json.dumps(state, ensure_ascii=False))
        return list(self.states)
