"""The contract each annotation type's ``adapter.py`` fulfils for export and agreement.

An adapter turns one valid stored value into tidy rows (one per judged item, joined with the
derived context the item refers to) and computes the type's agreement figures from the table of
every annotator's rows. Export adds ``instance_id``, ``user`` and ``timestamp`` to each row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Dict, Iterable, List, Optional, Tuple

import pandas as pd

from ...trace import Derivation
from .statistics import USER

INSTANCE = "instance_id"


@dataclass(frozen=True)
class Judgements:
    """What agreement reads: the scheme's table, and who saved a valid value for which instance.

    ``judges`` matters where an empty judgement is a judgement: an annotator who saved a value
    that marks nothing (no turn of a behaviour) has no row for it, yet disagrees with one who did.
    """

    rows: pd.DataFrame
    judges: pd.DataFrame
    """One row per (``instance_id``, ``user``) with a valid saved value."""


class Adapter:
    """One annotation type's export and agreement.

    Each type's ``types/<type>/adapter.py`` defines one subclass (``item_key``/``float_columns``
    where needed) with three classmethods:

    - ``columns(config) -> tuple[str, ...]``: the adapter's own columns, in order (export puts
      ``instance_id, user, timestamp`` first);
    - ``rows(value, derivation, config) -> list[dict]``: one row per judged item of one stored
      value, with the derived context it refers to;
    - ``agreement(judgements, config, gold, within) -> list[Figure]``: figures between annotators,
      and against ``gold`` (instance id -> gold object) when the type has any.
    """

    item_key: ClassVar[Tuple[str, ...]] = ()
    """Columns that identify a judged item within an instance (empty: the instance is the item)."""
    float_columns: ClassVar[Tuple[str, ...]] = ()
    """Columns that stay floating point even when every value is integral (times in seconds)."""
    step_columns: ClassVar[Tuple[str, ...]] = ()
    """Columns holding 0-based step indices (an int or a list of ints); each gets a companion
    ``<column>_number`` (index + 1, the ``#N`` the widgets show) right after it."""
    bulk_column: ClassVar[Optional[str]] = None
    """A boolean column that is true for a value the annotator set in bulk (``agreement
    --exclude-bulk`` leaves those rows out)."""
    parts: ClassVar[Dict[str, Tuple[str, Tuple[str, ...]]]] = {}
    """When the rows are two kinds of thing, they are written as separate tables: ``{value of
    the part column: (table suffix, its columns)}``; ``part_column`` says which column it is."""
    part_column: ClassVar[Optional[str]] = None

    gold_figures: ClassVar[bool] = False
    """Whether ``agreement`` has figures against gold of its own (Who&When's agent and step, MAST's
    modes): ``agreement --judgments`` gives a judge them too."""

    not_judged: ClassVar[str] = "not judged"
    """The decision, in the type's own words, of a unit one value leaves out (``not reviewed``)."""

    @classmethod
    def describe(cls, rows: List[dict], config: Any) -> Dict[str, str]:
        """``{unit label: decision in words}`` of one value's rows, what adjudication and judge
        agreement compare. This default labels a row by its ``item_key`` columns (the instance when
        there are none) and words every other column; a type overrides it to leave out context
        (derived text, free-text reasons) that is not a decision."""
        found = {}
        for row in rows:
            unit = " ".join(f"{key} {row.get(key)}" for key in cls.item_key) or "value"
            found[unit] = "; ".join(f"{key} {value}" for key, value in row.items() if key not in cls.item_key)
        return found

    @classmethod
    def unit(cls) -> Tuple[str, ...]:
        """What two annotators' rows must share to be judgements of the same item."""
        return (INSTANCE,) + cls.item_key


def number_column(column: str) -> str:
    """The ``#N`` companion of a 0-based step column: ``decisive_step`` -> ``decisive_step_number``."""
    return f"{column}_number"


def step_words(step: Any) -> str:
    """A 0-based step index as annotators see it, in words: ``#N`` = index + 1."""
    return "no step" if step is None else f"#{int(step) + 1}"


def step_number(index: Any) -> Any:
    """``#N`` = index + 1, for one index or a list of them (None stays None)."""
    if isinstance(index, (list, tuple)):
        return [None if item is None else item + 1 for item in index]
    return None if index is None else index + 1


def per_judge(judgements: Judgements, column: str, values: Callable[[dict], Iterable[Any]]) -> pd.DataFrame:
    """One row per judge (``instance_id``, ``user``) with, in ``column``, the set of ``values(row)``
    over their rows; a judge whose rows give nothing (or who has no row) gets the empty set."""
    sets: Dict[tuple, set] = {}
    for row in judgements.rows.to_dict("records"):
        sets.setdefault((row[INSTANCE], row[USER]), set()).update(values(row))
    judges = judgements.judges
    return pd.DataFrame({INSTANCE: judges[INSTANCE], USER: judges[USER],
                         column: [frozenset(sets.get(key, ())) for key in zip(judges[INSTANCE], judges[USER])]})


def step_text(derivation: Derivation, index: Optional[int]) -> Optional[str]:
    """The text of step ``index`` (None for no step, or one past the trace)."""
    if index is None or not 0 <= index < len(derivation.steps):
        return None
    return derivation.steps[index].text


def step_agent(derivation: Derivation, index: Optional[int]) -> Optional[str]:
    """The agent of step ``index`` (None for no step, one past the trace, or a step without agent)."""
    if index is None or not 0 <= index < len(derivation.steps):
        return None
    return derivation.steps[index].agent
