"""Every saved value of a task, sorted into tidy rows, invalid values and hidden values.

Export, agreement and the notebook API all read a task through :func:`collect`, so they agree
on what counts: a value is *valid* when ``Scheme.validate`` finds no problem (the same check as
``potato-multiagent check``); a value saved while ``display_logic`` hid its scheme is left out
and counted, whether valid or not; an empty value is nothing saved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple, Type

import pandas as pd

from ..schemes import Scheme, SchemeConfig
from ..task import Task, scheme_type
from ..trace import Derivation, derive
from ..trace.jsjson import strict_loads
from .adapters import Adapter, adapter_for
from .adapters.base import INSTANCE, Judgements
from .statistics import USER

TIMESTAMP = "timestamp"
COMMON_COLUMNS = (INSTANCE, USER, TIMESTAMP)


@dataclass(frozen=True)
class SchemeTable:
    """One of our schemes with a readable config and an adapter."""

    name: str
    scheme: Type[Scheme]
    config: SchemeConfig
    adapter: Type[Adapter]
    rows: List[dict] = field(default_factory=list)
    judges: List[Tuple[str, str]] = field(default_factory=list)
    """``(instance_id, user)`` of every valid value, including one that marks nothing."""

    @property
    def columns(self) -> Tuple[str, ...]:
        return COMMON_COLUMNS + self.adapter.columns(self.config)

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame with pandas' nullable dtypes (``Int64``, ``string``, ``boolean``)."""
        frame = pd.DataFrame(self.rows, columns=list(self.columns)).convert_dtypes()
        for column in self.adapter.float_columns:
            frame[column] = frame[column].astype("Float64")
        return frame

    def judgements(self) -> Judgements:
        return Judgements(rows=self.frame(), judges=pd.DataFrame(self.judges, columns=[INSTANCE, USER]))


@dataclass
class Collection:
    tables: Dict[str, SchemeTable]
    invalid: List[dict]
    """``{scheme, instance_id, user, timestamp, problems, value}`` for values that fail validation."""
    hidden: List[dict]
    """``{scheme, instance_id, user, timestamp}`` for values saved while their scheme was hidden."""
    skipped: List[str]
    """Why a scheme of ours is in no table (bad config, or a type without an adapter yet)."""
    turn_tags: Dict[str, Any] = field(default_factory=dict)
    """Potato's turn-level multiselect/radio schemes by name (``turn_tags.TurnTagTable``): MAST per step."""


def collect(task: Task) -> Collection:
    tables, skipped = _scheme_tables(task)
    records = task.records()
    positions = {instance: position for position, instance in enumerate(records)}
    derivations: Dict[Tuple[str, str], Derivation] = {}
    invalid: List[dict] = []
    hidden: List[dict] = []
    for saved in task.saved_values():
        table = tables.get(saved.scheme)
        if table is None or saved.value in (None, ""):
            continue
        where = {"scheme": saved.scheme, INSTANCE: saved.instance_id, USER: saved.user, TIMESTAMP: saved.saved_at}
        if saved.hidden:
            hidden.append(where)
            continue
        if saved.instance_id not in records:
            invalid.append({**where, "problems": ["the instance is not in the task's data files"], "value": saved.value})
            continue
        derivation = _derivation(derivations, table, saved.instance_id, records[saved.instance_id])
        problems = table.scheme.validate(saved.value, records[saved.instance_id], table.config, derivation)
        if problems:
            invalid.append({**where, "problems": problems, "value": saved.value})
            continue
        value = table.scheme.Value.model_validate(_parsed(saved.value))
        table.judges.append((saved.instance_id, saved.user))
        for row in table.adapter.rows(value, derivation, table.config):
            table.rows.append({INSTANCE: saved.instance_id, USER: saved.user, TIMESTAMP: saved.saved_at, **row})
    for table in tables.values():
        table.rows.sort(key=lambda row: (positions.get(row[INSTANCE], len(positions)), row[USER]))
    from .turn_tags import read_turn_tags

    return Collection(tables=tables, invalid=invalid, hidden=hidden, skipped=skipped, turn_tags=read_turn_tags(task))


def _scheme_tables(task: Task) -> Tuple[Dict[str, SchemeTable], List[str]]:
    tables: Dict[str, SchemeTable] = {}
    skipped: List[str] = []
    for scheme_dict in task.our_schemes():
        name = str(scheme_dict.get("name"))
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
        tables[name] = SchemeTable(name, scheme, config, adapter)
    return tables, skipped


def _derivation(cache: Dict[Tuple[str, str], Derivation], table: SchemeTable, instance_id: str,
                record: Any) -> Derivation:
    options = table.config.derive_options()
    key = (instance_id, json.dumps(options, sort_keys=True))
    if key not in cache:
        cache[key] = derive(record, **options)
    return cache[key]


def _parsed(value: Any) -> Any:
    return strict_loads(value) if isinstance(value, str) else value

