"""Layer 7: a Potato task on disk: its config, its records and what annotators saved.

The CLI (``check``) and, later, the notebook API read tasks through this one module, so paths
resolve the way Potato resolves them: ``task_dir`` against the config's folder, data files
against the config's folder then ``task_dir``, ``output_annotation_dir`` against ``task_dir``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional

import yaml

from .files import read_text, user_state_files
from .types import SCHEMES

HISTORY_FILE = "annotation_history.jsonl"


class TaskError(Exception):
    """A task cannot be read; the message names the file and the field."""


@dataclass(frozen=True)
class ItemTime:
    """How long one annotator worked on one item, by Potato's own measure."""

    user: str
    instance_id: str
    active_ms: Optional[int]
    """Potato's ``BehavioralData.active_time_ms()``: the gaps between the page's interaction events
    on the item, each capped at five minutes (a tab left open is not work), summed over visits.
    None when Potato's record for the item cannot be read (``problem`` says why)."""
    problem: str = ""


@dataclass(frozen=True)
class SavedValue:
    """One value an annotator saved for one of our schemes."""

    user: str
    instance_id: str
    scheme: str
    value: Any
    hidden: bool
    """True when the scheme's ``display_logic`` hid it, given the user's other answers."""
    saved_at: Optional[str] = None
    """When Potato last stored it: the ``timestamp`` of the last matching entry of the user's
    ``annotation_history.jsonl`` (the server's local time, as Potato writes it), if any."""


def read_records(path: Path) -> List[Any]:
    """The items of a JSON (array or single object) or JSON Lines data file, as Potato reads them."""
    text = read_text(path)
    try:
        data = json.loads(text)
        return data if isinstance(data, list) else [data]
    except ValueError:
        pass
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except ValueError as error:
                raise TaskError(f"{path}:{number}: not a JSON line ({error})") from None
    return records


def yaml_problem(error: yaml.YAMLError) -> str:
    """A YAML error on one line: where, and what (PyYAML's own text spans several lines)."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}" if mark is not None else problem


def last_saved_times(history_path: Path) -> Dict[tuple, str]:
    """``{(instance_id, scheme): timestamp}`` of the last label action Potato logged for each.

    A missing file gives ``{}``; a torn last line (the server writing) is skipped. The log only
    dates values (``timestamp`` columns), so one that cannot be read as text gives ``{}`` too,
    never a traceback.
    """
    times: Dict[tuple, str] = {}
    try:
        lines = history_path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return times
    for line in lines:
        try:
            action = json.loads(line)
        except ValueError:
            continue
        if isinstance(action, dict) and str(action.get("action_type", "")).endswith("_label"):
            times[(str(action.get("instance_id")), action.get("schema_name"))] = action.get("timestamp")
    return times


class Task:
    """A Potato task folder read through its config file."""

    def __init__(self, config_path: str | Path):
        self.config_path = Path(config_path).resolve()
        text = read_text(config_path)
        try:
            self.config = yaml.safe_load(text) or {}
        except yaml.YAMLError as error:
            raise TaskError(f"{config_path}: cannot read the config ({yaml_problem(error)})") from None
        if not isinstance(self.config, dict):
            raise TaskError(f"{config_path}: the config is not a mapping")
        self.config_dir = self.config_path.parent
        self.task_dir = (self.config_dir / str(self.config.get("task_dir") or ".")).resolve()
        _scheme_files_from(self.task_dir, self.config)

    # -- schemes --------------------------------------------------------------------------------
    def all_schemes(self) -> List[dict]:
        schemes = self.config.get("annotation_schemes") or []
        return [scheme for scheme in schemes if isinstance(scheme, dict)]

    def our_schemes(self) -> List[dict]:
        """Every scheme whose type is one of ours (or claims to be: ``multiagent.*``)."""
        return [scheme for scheme in self.all_schemes()
                if str(scheme.get("annotation_type", "")).startswith("multiagent.")]

    # -- records --------------------------------------------------------------------------------
    @property
    def id_key(self) -> str:
        return str((self.config.get("item_properties") or {}).get("id_key", "id"))

    def data_paths(self) -> List[Path]:
        paths = []
        for entry in self.config.get("data_files") or []:
            name = entry.get("path") if isinstance(entry, dict) else entry
            candidates = [self.config_dir / str(name), self.task_dir / str(name)]
            found = next((path for path in candidates if path.is_file()), None)
            if found is None:
                raise TaskError(f"{self.config_path}: data_files: {name!r} not found")
            paths.append(found)
        return paths

    def records(self) -> Dict[str, Any]:
        """Every record by its instance id (``item_properties.id_key``)."""
        records = {}
        for path in self.data_paths():
            for position, record in enumerate(read_records(path)):
                if isinstance(record, dict) and self.id_key in record:
                    records[str(record[self.id_key])] = record
                else:
                    raise TaskError(f"{path}: item {position} has no {self.id_key!r} (item_properties.id_key)")
        return records

    # -- saved values ---------------------------------------------------------------------------
    @property
    def output_dir(self) -> Path:
        return self.task_dir / str(self.config.get("output_annotation_dir") or "annotation_output")

    def saved_values(self) -> Iterator[SavedValue]:
        """Every value saved for one of our schemes, by every user, in a stable order."""
        ours = {scheme.get("name") for scheme in self.our_schemes()}
        for user, instance_id, pairs, hidden, saved_at in self._saved_pairs():
            for label, value in pairs:
                scheme = label.get("schema") if isinstance(label, dict) else None
                if scheme in ours:
                    yield SavedValue(user, instance_id, scheme, value, scheme in hidden,
                                     saved_at.get((instance_id, scheme)))

    def saved_answers(self, names: Iterable[str]) -> Iterator[SavedValue]:
        """What each user saved for each of the named schemes (Potato's own types), one
        :class:`SavedValue` per user, instance and scheme whose ``value`` is the scheme's
        ``[(label_name, value)]`` entries in stored order (a radio stores one, a multiselect one
        per ticked box plus ``free_response``)."""
        wanted = set(names)
        for user, instance_id, pairs, hidden, saved_at in self._saved_pairs():
            entries: Dict[str, list] = {}
            for label, value in pairs:
                if isinstance(label, dict) and label.get("schema") in wanted:
                    entries.setdefault(label["schema"], []).append((str(label.get("name") or ""), value))
            for scheme, scheme_entries in entries.items():
                yield SavedValue(user, instance_id, scheme, scheme_entries, scheme in hidden,
                                 saved_at.get((instance_id, scheme)))

    def item_times(self) -> Iterator[ItemTime]:
        """The time each user spent on each record of the task (items Potato keeps a timing record
        for; one it cannot read comes with ``active_ms`` None and the ``problem``)."""
        from potato.interaction_tracking import BehavioralData

        records = self.records()
        for _, user, state in self._user_states():
            behaviour = state.get("instance_id_to_behavioral_data") or {}
            for instance_id, data in behaviour.items() if isinstance(behaviour, dict) else ():
                if instance_id not in records or not isinstance(data, dict):
                    continue  # a phase page (consent, training) or an item no longer in the data
                try:
                    active = BehavioralData.from_dict(data).active_time_ms()
                except (TypeError, ValueError, KeyError, AttributeError) as error:
                    yield ItemTime(user, instance_id, None, f"Potato's timing record (instance_id_to_behavioral_data "
                                                            f"in user_state.json) cannot be read ({error})")
                    continue
                yield ItemTime(user, instance_id, int(active))

    def _user_states(self) -> Iterator[tuple]:
        """``(path, user, state)`` of every user_state.json, users in name order; one that cannot be
        read is a :class:`TaskError` naming it."""
        for state_path in user_state_files(self.output_dir):
            try:
                state = json.loads(read_text(state_path))
            except ValueError as error:
                raise TaskError(f"{state_path}: cannot read the saved state ({error})") from None
            yield state_path, str(state.get("user_id") or state_path.parent.name), state

    def _saved_pairs(self) -> Iterator[tuple]:
        """``(user, instance_id, [label, value] pairs, hidden schemes, last-saved times)`` for every
        instance of every user_state.json, users in name order."""
        for state_path, user, state in self._user_states():
            saved_at = last_saved_times(state_path.parent / HISTORY_FILE)
            per_instance = state.get("instance_id_to_label_to_value") or {}
            for instance_id, pairs in per_instance.items():
                pairs = [pair for pair in pairs if isinstance(pair, (list, tuple)) and len(pair) == 2]
                yield user, instance_id, pairs, self._hidden_schemes(instance_id, pairs), saved_at

    def _hidden_schemes(self, instance_id: str, pairs: list) -> set:
        """Schemes hidden by ``display_logic`` given these answers (Potato's own evaluator)."""
        schemes = self.all_schemes()
        if not any(scheme.get("display_logic") for scheme in schemes):
            return set()
        from potato.server_utils.display_logic import compute_hidden_schemas, flatten_phase_annotations

        types = {scheme.get("name"): scheme.get("annotation_type") for scheme in schemes}
        answers = flatten_phase_annotations({instance_id: pairs}, schema_types=types)
        return compute_hidden_schemas(schemes, answers)


SCHEME_FILE_KEYS = ("modes_file",)
"""Scheme keys naming a file, read relative to ``task_dir`` (where Potato runs, so the page and the
commands read the same file)."""


def _scheme_files_from(task_dir: Path, config: dict) -> None:
    """Make each scheme's relative file keys absolute, in place: the commands run from anywhere, and
    a task written elsewhere from this config (``adjudicate``) still finds them."""
    for scheme in config.get("annotation_schemes") or []:
        if not isinstance(scheme, dict):
            continue
        for key in SCHEME_FILE_KEYS:
            value = scheme.get(key)
            if isinstance(value, str) and value and not Path(value).is_absolute():
                scheme[key] = str(task_dir / value)


def scheme_type(scheme: dict) -> Optional[type]:
    """Our scheme class for a scheme dict, or None for a type we do not provide."""
    return SCHEMES.get(str(scheme.get("annotation_type")))
