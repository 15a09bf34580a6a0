"""The notebook API: a Potato task as records, derivations, graphs and DataFrames.

>>> from potato_multiagent import load_task
>>> task = load_task("config.yaml")                                      # doctest: +SKIP
>>> task.annotations("attribution")       # the rows `export` writes    # doctest: +SKIP
>>> task.agreement(gold="gold.jsonl")     # the figures `agreement` prints  # doctest: +SKIP

The same code runs behind ``potato-multiagent export`` and ``agreement``, so a notebook and the
command line never disagree. Saved annotations are read when first needed; call :meth:`reload`
after annotators saved more.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

import pandas as pd

from .analysis import Collection, agreement_frame, collect, read_gold
from .task import Task, scheme_type
from .trace import Derivation, derive


class LoadedTask:
    """One Potato task folder, read through its config file."""

    def __init__(self, config_path: Union[str, Path]):
        self.task = Task(config_path)
        self._records: Optional[Dict[str, Any]] = None
        self._collection: Optional[Collection] = None

    def __repr__(self) -> str:
        return f"LoadedTask({str(self.task.config_path)!r})"

    def reload(self) -> "LoadedTask":
        """Forget what was read, so the next call sees the files as they are now."""
        self._records, self._collection = None, None
        return self

    # -- data in --------------------------------------------------------------------------------
    def records(self) -> Dict[str, Any]:
        """Every record of the data files by instance id, in file order."""
        if self._records is None:
            self._records = self.task.records()
        return self._records

    def schemes(self) -> List[str]:
        """The names of the task's multiagent schemes, in config order."""
        return [str(scheme.get("name")) for scheme in self.task.our_schemes()]

    def derive(self, instance_id: str, scheme: Optional[str] = None) -> Derivation:
        """The derivation of one record with a scheme's options (``steps_key``, ``agent_key``, ...).

        ``scheme`` may be left out when every multiagent scheme of the task derives the same way.
        """
        record = self.records().get(str(instance_id))
        if record is None:
            raise KeyError(f"no record with id {instance_id!r} in {self.task.config_path}")
        return derive(record, **self._derive_options(scheme))

    def graph(self, instance_id: str, scheme: Optional[str] = None):
        """The agents of one record as a ``networkx.DiGraph`` (edges carry ``count`` and ``steps``)."""
        return self.derive(instance_id, scheme).graph()

    # -- data out -------------------------------------------------------------------------------
    def annotations(self, table: str) -> pd.DataFrame:
        """One table ``potato-multiagent export`` writes: a scheme's name (ours, or Potato's radio,
        multiselect, trajectory_eval or turn-level scheme in the same task), or ``<scheme>.agents``
        / ``<scheme>.edges`` for the interaction graph's two tables."""
        frames = {name: frame for scheme in self.collection().tables.values()
                  for name, frame in scheme.frames().items()}
        if table not in frames:
            known = ", ".join(frames) or "none"
            raise KeyError(f"no exported table named {table!r} (tables: {known})")
        return frames[table]

    def minutes_per_run(self) -> pd.DataFrame:
        """Minutes each annotator worked on each run, by Potato's own timing (``minutes_per_run`` of
        ``export``; ``answered`` is false for a run only opened; ``note`` says why ``minutes`` is blank)."""
        return self.collection().times

    def agreement(self, gold: Union[None, str, Path, Mapping[str, dict]] = None, within: int = 1,
                  exclude_bulk: bool = False) -> pd.DataFrame:
        """Agreement figures per scheme; ``gold`` is a gold file (``convert --gold``) or ``{id: gold}``;
        ``exclude_bulk`` leaves out values set in bulk (the ``bulk`` column counts them)."""
        if isinstance(gold, (str, Path)):
            gold = read_gold(Path(gold))
        return agreement_frame(self.collection(), gold, within, exclude_bulk=exclude_bulk)

    def invalid(self) -> pd.DataFrame:
        """Saved values that fail validation (left out of annotations and agreement); ``stale``
        says the value holds a step reference whose step changed (docs/step-references.md)."""
        return pd.DataFrame(self.collection().invalid,
                            columns=["scheme", "instance_id", "user", "timestamp", "problems", "value", "stale"])

    def collection(self) -> Collection:
        if self._collection is None:
            self._collection = collect(self.task)
        return self._collection

    # -- helpers --------------------------------------------------------------------------------
    def _derive_options(self, scheme: Optional[str]) -> dict:
        options = {}
        for scheme_dict in self.task.our_schemes():
            name = str(scheme_dict.get("name"))
            if scheme is not None and name != scheme:
                continue
            config = _config_of(scheme_dict)
            if config is not None:
                options[name] = config.derive_options()
        if scheme is not None and scheme not in options:
            raise KeyError(f"no multiagent scheme named {scheme!r} with a valid config")
        distinct = {json.dumps(value, sort_keys=True) for value in options.values()}
        if len(distinct) > 1:
            raise ValueError(f"the schemes {', '.join(options)} derive differently: pass scheme=NAME")
        return next(iter(options.values()), {})


def _config_of(scheme_dict: dict):
    cls = scheme_type(scheme_dict)
    return cls.parse_config(scheme_dict)[0] if cls is not None else None


def load_task(config_path: Union[str, Path]) -> LoadedTask:
    """Open a Potato task by its config file (``config.yaml``)."""
    return LoadedTask(config_path)
