"""``potato-multiagent migrate-values``: values saved before, made what the widgets save now.

After ``migrate-config`` a scheme keeps its name, so Potato still hands each widget the value the
built-in saved. Each type's ``types/<type>/migration.py`` says what its built-in's value needs
(graph, handoff and tool-call values gain what names a mark by identity, found with our
derivation; tool contention's pairwise indices are reported as not migratable). Every saved step
reference without the identity of its step gains the identity the step at its index has now
(docs/step-references.md). This module reads the task, applies both, checks every value and writes
the files. A value already in our shape is left alone, so a second run changes nothing.

With ``rebase=(OLD_DATA, NEW_DATA)`` (``--rebase``) it moves instead: every saved step reference is
found by its identity in the new data and re-pointed there (:class:`Rebase`), after a re-conversion.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .files import PathError, read_text, user_state_files, why_not, write_text_whole
from .task import Task, TaskError, read_records, scheme_type
from .trace import Derivation, StepRefs, derive
from .types import TYPES
from .types._base import Outcome, agent_words, refs_of
from .trace.jsjson import StrictJSONError, strict_loads

BACKUP_SUFFIX = ".bak"


@dataclass
class ValueReport:
    """One saved value's migration, for the printed report."""

    where: str
    changes: List[str]
    left: List[str]
    problems: List[str]
    """What ``check`` still finds in the value after migration."""
    left_words: str = "not migrated"

    def lines(self) -> List[str]:
        return ([f"{self.where}: {change}" for change in self.changes]
                + [f"{self.where}: {self.left_words}: {reason}" for reason in self.left]
                + [f"{self.where}: still invalid: {problem}" for problem in self.problems])


# -- a task --------------------------------------------------------------------------------------


def compact(value: Any) -> str:
    """JSON as the widget's ``JSON.stringify`` writes it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _migrate(widget: str, value: Any, derivation) -> Outcome:
    """The type's own ``migrate`` (``types/<type>/migration.py``); a type without one keeps the value."""
    migration = TYPES[widget].migration
    migrate = getattr(migration, "migrate", None)
    return migrate(value, derivation) if migrate is not None else Outcome()


LISTED = 5
"""Step references named one by one in a line before "and N more"."""


def add_identities(cls: type, data: Any, derivation: Derivation) -> List[str]:
    """Give every step reference of ``data`` saved without an identity the identity of the step its
    index names now (in place); the fields given one, for the report."""
    refs = refs_of(derivation)
    added = []
    for reference in cls.references(data):
        if reference.ref is None and refs.ref(reference.index) is not None:
            reference.write(reference.index, refs.ref(reference.index))
            added.append(f"{reference.field} #{reference.index + 1}")
    return added


def listed(items: List[str]) -> str:
    shown = ", ".join(items[:LISTED])
    return shown + (f" and {len(items) - LISTED} more" if len(items) > LISTED else "")


class ValueMigration:
    """Every saved value of a task's schemes, migrated in memory; :meth:`write` puts it on disk."""

    def __init__(self, config_path: str | Path, rebase: Optional[Tuple[Path, Path]] = None):
        self.task = Task(config_path)
        self.rebase = Rebase(self.task, *rebase) if rebase is not None else None
        self.records = self.task.records() if rebase is None else {}
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
                where = f"{instance_id} / {user} / {scheme}"
                if scheme in self.schemes and self.rebase is not None:
                    new_text = self.rebase.value(where, instance_id, pair[1], *self.schemes[scheme])
                    if new_text is not None:
                        pair[1] = new_text
                        changed = True
                elif scheme in self.schemes and instance_id in self.records:
                    new_text = self._migrate_value(where, pair[1], self.records[instance_id], *self.schemes[scheme])
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
        outcome = _migrate(cls.widget, value, derivation)
        result = outcome.value if outcome.value is not None else value
        added = add_identities(cls, result, derivation) if _well_formed(cls, result) else []
        changes = outcome.changes + ([f"step identities added: {listed(added)}"] if added else [])
        problems = cls.validate(result, record, config, derivation)
        if changes or outcome.left or problems:
            self.reports.append(ValueReport(where, changes, outcome.left, problems))
        return compact(result) if outcome.value is not None or added else None

    def lines(self) -> List[str]:
        lines = [line for report in self.reports for line in report.lines()]
        return lines + (self.rebase.summary() if self.rebase is not None else [])

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


def _well_formed(cls: type, data: Any) -> bool:
    try:
        cls.Value.model_validate(data)
    except ValueError:
        return False
    return True


NOT_MAPPED = "not mapped"


class Rebase:
    """Saved step references moved from the steps of ``old_data`` to those of ``new_data`` by
    identity (docs/step-references.md, "After a re-conversion"). Records match by the task's ``id_key``."""

    def __init__(self, task: Task, old_data: Path, new_data: Path):
        self.old = self._records(task, Path(old_data))
        self.new = self._records(task, Path(new_data))
        self.moved = self.unmapped = self.in_place = 0
        self.reports: List[ValueReport] = []

    @staticmethod
    def _records(task: Task, path: Path) -> Dict[str, Any]:
        records = {}
        for position, record in enumerate(read_records(path)):
            if not (isinstance(record, dict) and task.id_key in record):
                raise TaskError(f"{path}: item {position} has no {task.id_key!r} (item_properties.id_key)")
            records[str(record[task.id_key])] = record
        return records

    def value(self, where: str, instance_id: str, stored: Any, cls: type, config: Any) -> Optional[str]:
        """The value's new JSON text, or None when it stays as it is; reports either way."""
        if stored in (None, ""):
            return None
        if instance_id not in self.old or instance_id not in self.new:
            missing = "OLD_DATA" if instance_id not in self.old else "NEW_DATA"
            references = self._count_references(stored, cls)
            if references:
                self.unmapped += references
                self.reports.append(ValueReport(where, [], [f"the instance is not in {missing}"], [], NOT_MAPPED))
            return None
        try:
            data = strict_loads(stored) if isinstance(stored, str) else stored
        except StrictJSONError as error:
            self.reports.append(ValueReport(where, [], [f"value: not valid JSON ({error})"], [], NOT_MAPPED))
            return None
        if not _well_formed(cls, data):
            self.reports.append(ValueReport(where, [], ["its shape is not the type's (potato-multiagent check says why)"],
                                            [], NOT_MAPPED))
            return None
        before = compact(data)
        options = config.derive_options()
        old, new = derive(self.old[instance_id], **options), derive(self.new[instance_id], **options)
        data, moved, left = self._move(cls, data, old, new)
        settled_moves, settled_left = cls.settle(data, new)
        moved, left = moved + settled_moves, left + settled_left
        self.moved += len(settled_moves)
        self.unmapped += len(settled_left)
        problems = cls.validate(data, self.new[instance_id], config, new)
        if moved or left or problems:
            self.reports.append(ValueReport(where, moved, left, problems, NOT_MAPPED))
        after = compact(data)
        return after if after != before else None

    def _move(self, cls: type, data: Any, old: Derivation, new: Derivation) -> Tuple[Any, List[str], List[str]]:
        """``data`` with its references moved, what moved and what could not be mapped. A move that
        would make the value invalid (an episode's turn moved onto a turn it already holds, whose
        own step is gone) is not made, and said."""
        old_refs, new_refs = refs_of(old), refs_of(new)
        moved, left = [], []
        planned = []   # (position in cls.references(data), target, identity, words)
        for position, reference in enumerate(cls.references(data)):
            saved = reference.ref if reference.ref is not None else old_refs.ref(reference.index)
            number = f"{reference.field} #{reference.index + 1}"
            if saved is None:
                left.append(f"{number}: the old data has no such step and it was saved without an identity")
                continue
            target, why = self._target(reference.index, saved, old_refs, new_refs)
            if target is None:
                left.append(f"{number}: {why}")
                continue
            words = (f"moved {number} -> #{target + 1} ({agent_words(new.steps[target].agent)})"
                     if target != reference.index else None)
            if target != reference.index or reference.ref != saved:
                planned.append((position, target, saved, words, number))
            else:
                self.in_place += 1
        data, kept = self._apply(cls, data, planned)
        for position, target, saved, words, number in planned:
            if (position, target) not in kept:
                left.append(f"{number}: its step is now #{target + 1}, where this list already holds another mark")
            elif words is not None:
                moved.append(words)
            else:
                self.in_place += 1
        self.moved += len(moved)
        self.unmapped += len(left)
        return data, moved, left

    @staticmethod
    def _apply(cls: type, data: Any, planned: list) -> Tuple[Any, set]:
        """``data`` with the planned writes made, and which were; all of them when the value stays
        well formed, else one by one, each kept only when the value stays well formed after it."""
        trial = copy.deepcopy(data)
        references = cls.references(trial)
        for position, target, saved, _, _ in planned:
            references[position].write(target, saved)
        if _well_formed(cls, trial):
            return trial, {(position, target) for position, target, *_ in planned}
        kept = set()
        for position, target, saved, _, _ in planned:
            trial = copy.deepcopy(data)
            cls.references(trial)[position].write(target, saved)
            if _well_formed(cls, trial):
                data = trial
                kept.add((position, target))
        return data, kept

    @staticmethod
    def _target(index: int, saved: str, old_refs: StepRefs, new_refs: StepRefs) -> Tuple[Optional[int], str]:
        """Where the step saved as ``saved`` at ``index`` of the old data is in the new data: the
        one step with that identity, or, among identical steps, the one at the same place in their
        order when old and new hold as many; else None and why."""
        old_where, new_where = old_refs.where(saved), new_refs.where(saved)
        if index in old_where and len(new_where) == len(old_where):
            return new_where[old_where.index(index)], ""
        if len(new_where) == 1 and len(old_where) <= 1:
            return new_where[0], ""
        if not new_where:
            return None, f"the step it was saved on ({saved}) is not in the new data"
        return None, (f"{len(new_where)} steps of the new data have its identity ({saved}), "
                      f"{len(old_where)} of the old: which one is not known")

    @staticmethod
    def _count_references(stored: Any, cls: type) -> int:
        try:
            data = strict_loads(stored) if isinstance(stored, str) else stored
            return len(cls.references(data)) if _well_formed(cls, data) else 0
        except StrictJSONError:
            return 0

    def summary(self) -> List[str]:
        return [line for report in self.reports for line in report.lines()] + [
            f"rebase: {self.moved} reference(s) moved, {self.unmapped} could not be mapped, "
            f"{self.in_place} already in place"]
