"""Every saved value of a task, sorted into tidy rows, invalid values and hidden values.

Export, agreement and the notebook API all read a task through :func:`collect`, so they agree
on what counts: a value is *valid* when ``Scheme.validate`` finds no problem (the same check as
``potato-multiagent check``); an invalid value holding a stale step reference (docs/step-references.md)
is marked ``stale`` and counted apart; a value saved while ``display_logic`` hid its scheme is left
out and counted, whether valid or not; an empty value is nothing saved. Potato's own types used in
the same task (radio, multiselect, trajectory_eval, turn-level schemes) get tables too, read by
:mod:`.potato_types`; Potato validated them, so only an answer that cannot be read is invalid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Type

import pandas as pd

from ..types import Scheme, adapter_for
from ..types._base import stale_references
from ..task import Task, scheme_type
from ..trace import Derivation, derive
from ..trace.jsjson import strict_loads
from ..types._base.adapter import INSTANCE, Adapter, Judgements, number_column, step_number
from .potato_types import PotatoValueError, potato_adapter_for
from ..types._base.statistics import USER
from .timing import time_frame

TIMESTAMP = "timestamp"
COMMON_COLUMNS = (INSTANCE, USER, TIMESTAMP)


@dataclass(frozen=True)
class SchemeTable:
    """One scheme with a readable config and an adapter: one of ours, or one of Potato's own types
    used in the same task (``scheme`` is then None and ``config`` the scheme's dict)."""

    name: str
    type_name: str
    config: Any
    adapter: Type[Adapter]
    scheme: Optional[Type[Scheme]] = None
    rows: List[dict] = field(default_factory=list)
    judges: List[Tuple[str, str]] = field(default_factory=list)
    """``(instance_id, user)`` of every valid value, including one that marks nothing."""

    @property
    def columns(self) -> Tuple[str, ...]:
        return COMMON_COLUMNS + with_number_columns(self.adapter.columns(self.config), self.adapter.step_columns)

    def add_rows(self, where: Dict[str, Any], rows: List[dict]) -> None:
        """Rows of one saved value, with the common columns and the ``#N`` companions."""
        for row in rows:
            numbers = {number_column(column): step_number(row.get(column)) for column in self.adapter.step_columns}
            self.rows.append({**where, **row, **numbers})

    def frame(self) -> pd.DataFrame:
        """Every row as one DataFrame with pandas' nullable dtypes (``Int64``, ``string``,
        ``boolean``); list cells stay lists. Agreement reads this; see :meth:`frames` for output."""
        return typed_frame(self.rows, self.columns, self.adapter.float_columns)

    def judgements(self) -> Judgements:
        return Judgements(rows=self.frame(), judges=pd.DataFrame(self.judges, columns=[INSTANCE, USER]))

    def frames(self) -> Dict[str, pd.DataFrame]:
        """The tables a user gets, by name: the scheme's name, or ``<scheme>.<part>`` for each part
        of an adapter whose rows are two kinds of thing (the graph's agents and edges)."""
        adapter = self.adapter
        if not adapter.parts:
            return {self.name: self.frame()}
        frames = {}
        for kind, (suffix, part_columns) in adapter.parts.items():
            columns = COMMON_COLUMNS + with_number_columns(part_columns, adapter.step_columns)
            rows = [row for row in self.rows if row[adapter.part_column] == kind]
            frames[f"{self.name}.{suffix}"] = typed_frame(rows, columns, adapter.float_columns)
        return frames


def with_number_columns(columns: Tuple[str, ...], step_columns: Tuple[str, ...]) -> Tuple[str, ...]:
    """``columns`` with ``<column>_number`` right after each 0-based step column."""
    return tuple(name for column in columns
                 for name in ((column, number_column(column)) if column in step_columns else (column,)))


def typed_frame(rows: List[dict], columns: Tuple[str, ...], float_columns: Tuple[str, ...] = ()) -> pd.DataFrame:
    """Rows as a DataFrame with nullable dtypes; a column of lists stays a column of lists."""
    frame = pd.DataFrame([{column: row.get(column) for column in columns} for row in rows],
                         columns=list(columns)).convert_dtypes()
    for column in float_columns:
        if column in frame:
            frame[column] = frame[column].astype("Float64")
    return frame


@dataclass
class Collection:
    tables: Dict[str, SchemeTable]
    invalid: List[dict]
    """``{scheme, instance_id, user, timestamp, problems, value, stale}`` for values that fail
    validation; ``stale``: one of the value's step references no longer names its step."""
    hidden: List[dict]
    """``{scheme, instance_id, user, timestamp}`` for values saved while their scheme was hidden."""
    skipped: List[str]
    """Why a scheme of ours is in no table (bad config, or a type without an adapter yet)."""
    times: Optional[pd.DataFrame] = None
    """Minutes per run per annotator, from Potato's timing (:mod:`.timing`)."""

    @property
    def stale(self) -> List[dict]:
        """The invalid values that hold a stale step reference."""
        return [value for value in self.invalid if value.get("stale")]


def collect(task: Task) -> Collection:
    tables, skipped = _scheme_tables(task)
    records = task.records()
    invalid, hidden = _collect_ours(task, tables, records)
    potato_invalid, potato_hidden = _collect_potato_types(task, tables, records)
    positions = {instance: position for position, instance in enumerate(records)}
    for table in tables.values():
        table.rows.sort(key=lambda row: (positions.get(row[INSTANCE], len(positions)), row[USER]))
    answered = {judge for table in tables.values() for judge in table.judges}
    return Collection(tables=tables, invalid=invalid + potato_invalid, hidden=hidden + potato_hidden,
                      skipped=skipped, times=time_frame(task.item_times(), answered, list(records)))


def _collect_ours(task: Task, tables: Dict[str, SchemeTable], records: Dict[str, Any]) -> Tuple[List[dict], List[dict]]:
    """Rows of our schemes' valid values; ``(invalid, hidden)`` for the rest."""
    derivations: Dict[Tuple[str, str], Derivation] = {}
    invalid: List[dict] = []
    hidden: List[dict] = []
    for saved in task.saved_values():
        table = tables.get(saved.scheme)
        if table is None or table.scheme is None or saved.value in (None, ""):
            continue
        where = {"scheme": saved.scheme, INSTANCE: saved.instance_id, USER: saved.user, TIMESTAMP: saved.saved_at}
        if saved.hidden:
            hidden.append(where)
            continue
        if saved.instance_id not in records:
            invalid.append({**where, "problems": ["the instance is not in the task's data files"], "value": saved.value,
                            "stale": False})
            continue
        derivation = _derivation(derivations, table.config.derive_options(), saved.instance_id,
                                 records[saved.instance_id])
        problems = table.scheme.validate(saved.value, records[saved.instance_id], table.config, derivation)
        if problems:
            invalid.append({**where, "problems": problems, "value": saved.value,
                            "stale": _holds_stale_reference(table.scheme, saved.value, derivation)})
            continue
        value = table.scheme.Value.model_validate(_parsed(saved.value))
        table.judges.append((saved.instance_id, saved.user))
        table.add_rows({INSTANCE: saved.instance_id, USER: saved.user, TIMESTAMP: saved.saved_at},
                       table.adapter.rows(value, derivation, table.config))
    return invalid, hidden


def _collect_potato_types(task: Task, tables: Dict[str, SchemeTable],
                          records: Dict[str, Any]) -> Tuple[List[dict], List[dict]]:
    """Rows of the answers to Potato's own types (radio, multiselect, trajectory_eval, turn-level)."""
    potato = {name: table for name, table in tables.items() if table.scheme is None}
    derivations: Dict[Tuple[str, str], Derivation] = {}
    invalid: List[dict] = []
    hidden: List[dict] = []
    if not potato:
        return invalid, hidden  # no second pass over the saved states
    for saved in task.saved_answers(potato):
        table = potato[saved.scheme]
        where = {"scheme": saved.scheme, INSTANCE: saved.instance_id, USER: saved.user, TIMESTAMP: saved.saved_at}
        if saved.hidden:
            hidden.append(where)
            continue
        if saved.instance_id not in records:
            invalid.append({**where, "problems": ["the instance is not in the task's data files"], "value": saved.value,
                            "stale": False})
            continue
        derivation = (_derivation(derivations, table.adapter.derive_options(table.config), saved.instance_id,
                                  records[saved.instance_id]) if table.adapter.needs_derivation else None)
        try:
            rows = table.adapter.rows(saved.value, derivation, table.config)
        except PotatoValueError as error:
            invalid.append({**where, "problems": [str(error)], "value": saved.value, "stale": False})
            continue
        if rows:
            table.judges.append((saved.instance_id, saved.user))
            table.add_rows({INSTANCE: saved.instance_id, USER: saved.user, TIMESTAMP: saved.saved_at}, rows)
    return invalid, hidden


def _scheme_tables(task: Task) -> Tuple[Dict[str, SchemeTable], List[str]]:
    """A table for each of our schemes and each of Potato's types we read, in config order."""
    tables: Dict[str, SchemeTable] = {}
    skipped: List[str] = []
    ours = {id(scheme) for scheme in task.our_schemes()}
    for scheme_dict in task.all_schemes():
        name = str(scheme_dict.get("name"))
        if id(scheme_dict) not in ours:
            potato_adapter = potato_adapter_for(scheme_dict, task.config)
            if potato_adapter is not None:
                type_name = str(scheme_dict.get("annotation_type")) + (" (turn_level)" if scheme_dict.get("turn_level") else "")
                tables[name] = SchemeTable(name, type_name, scheme_dict, potato_adapter)
            continue
        scheme = scheme_type(scheme_dict)
        if scheme is None:
            skipped.append(f"{name}: annotation_type {scheme_dict.get('annotation_type')!r} is not provided by this plugin")
            continue
        config, problems = scheme.parse_config(scheme_dict)
        if config is None:
            skipped.append(f"{name}: config problems ({'; '.join(problems)}); run potato-multiagent check")
            continue
        adapter = adapter_for(scheme.widget)
        if adapter is None:
            skipped.append(f"{name}: {scheme.type_name()} has no export or agreement support yet")
            continue
        tables[name] = SchemeTable(name, scheme.type_name(), config, adapter, scheme)
    return tables, skipped


def _derivation(cache: Dict[Tuple[str, str], Derivation], options: dict, instance_id: str,
                record: Any) -> Derivation:
    key = (instance_id, json.dumps(options, sort_keys=True))
    if key not in cache:
        cache[key] = derive(record, **options)
    return cache[key]


def _holds_stale_reference(scheme: Type[Scheme], value: Any, derivation: Derivation) -> bool:
    """Whether a value that failed validation holds a step reference whose step changed (a value
    whose shape is wrong holds none that can be read)."""
    try:
        data = _parsed(value)
        scheme.Value.model_validate(data)
    except ValueError:
        return False
    return bool(stale_references(scheme.references(data), derivation))


def _parsed(value: Any) -> Any:
    return strict_loads(value) if isinstance(value, str) else value

