"""``potato-multiagent migrate-values``: values saved by Potato's built-in types, made ours.

After ``migrate-config`` a scheme keeps its name, so Potato still hands each widget the value the
built-in saved. Each type's ``types/<type>/migration.py`` says what its built-in's value needs
(graph, handoff and tool-call values gain what names a mark by identity, found with our
derivation; tool contention's pairwise indices are reported as not migratable); this module reads
the task, applies them, checks every value and writes the files. A value already in our shape is
left alone, so a second run changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

from .files import PathError, read_text, user_state_files, why_not, write_text_whole
from .task import Task, TaskError, scheme_type
from .trace import derive
from .types import TYPES
from .types._base import Outcome
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

    def lines(self) -> List[str]:
        return ([f"{self.where}: {change}" for change in self.changes]
                + [f"{self.where}: not migrated: {reason}" for reason in self.left]
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
        outcome = _migrate(cls.widget, value, derivation)
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
