"""Agreement figures over a tidy table: one row per (unit, annotator) judgement.

A *unit* is what several annotators judged: an instance, or an item within it (a handoff, a call,
a region) identified by its identity columns. Only units judged by two or more annotators count
("items"); "annotators" is how many distinct annotators judged those units. Krippendorff's alpha
comes from the ``krippendorff`` package and Cohen's kappa from scikit-learn; the only statistics
written here are match rates and Jaccard, both plain averages over annotator pairs.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

USER = "user"


@dataclass(frozen=True)
class Figure:
    """One reported number and what stands behind it."""

    measure: str
    value: Optional[float]
    items: int
    annotators: int
    annotator: Optional[str] = None
    """Set for a per-annotator figure (accuracy against gold); None when pooled."""
    note: str = ""


Units = List[Dict[Any, Any]]
"""The pairable units: for each, the value of every annotator who judged it (two or more)."""


def pairable_units(table: pd.DataFrame, unit: Sequence[str], column: str) -> Units:
    """Each unit judged by two or more annotators, as ``{user: value}`` (one pass over the rows;
    a missing value is no judgement; a second row of one annotator for one unit replaces the first)."""
    by_unit: Dict[tuple, Dict[Any, Any]] = {}
    for *key, user, value in table[list(unit) + [USER, column]].itertuples(index=False, name=None):
        if not _missing(value):
            by_unit.setdefault(tuple(key), {})[user] = value
    return [values for values in by_unit.values() if len(values) >= 2]


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or isinstance(value, float) and math.isnan(value)


def _counts(units: Units) -> Tuple[int, int]:
    return len(units), len({user for values in units for user in values})


def pairwise_rate(measure: str, table: pd.DataFrame, unit: Sequence[str], column: str,
                  agree: Callable[[Any, Any], bool]) -> Figure:
    """Share of annotator pairs, over every pairable unit, whose judgements ``agree``."""
    units = pairable_units(table, unit, column)
    outcomes = [agree(a, b) for values in units for a, b in itertools.combinations(values.values(), 2)]
    items, annotators = _counts(units)
    if not outcomes:
        return Figure(measure, None, 0, annotators, note="no item was judged by two annotators")
    return Figure(measure, float(np.mean(outcomes)), items, annotators)


def mean_pairwise_jaccard(measure: str, table: pd.DataFrame, unit: Sequence[str], column: str) -> Figure:
    """Jaccard of the annotators' sets, averaged over pairs; a pair with two empty sets is skipped."""
    units = pairable_units(table, unit, column)
    scores = []
    for values in units:
        for a, b in itertools.combinations([set(value) for value in values.values()], 2):
            if a | b:
                scores.append(len(a & b) / len(a | b))
    items, annotators = _counts(units)
    if not scores:
        return Figure(measure, None, items, annotators, note="no pair of annotators marked anything here")
    return Figure(measure, float(np.mean(scores)), items, annotators)


def krippendorff_alpha(measure: str, table: pd.DataFrame, unit: Sequence[str], column: str, level: str,
                       value_domain: Optional[Sequence[Any]] = None) -> Figure:
    """Krippendorff's alpha (``nominal``, ``ordinal`` or ``interval``) over the pairable units."""
    import krippendorff

    units = pairable_units(table, unit, column)
    items, annotators = _counts(units)
    undefined = _chance_corrected_undefined(units, "alpha")
    if undefined:
        return Figure(measure, None, items, annotators, note=undefined)
    matrix, domain = _reliability_matrix(units, level, value_domain)
    value = float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level, value_domain=domain))
    if math.isnan(value):
        return Figure(measure, None, items, annotators, note="no expected disagreement: alpha is undefined")
    return Figure(measure, value, items, annotators)


def _chance_corrected_undefined(units: Units, name: str) -> str:
    """Why a chance-corrected figure (alpha, kappa) has no value here, or "" when it has one.

    Chance agreement is estimated from the judgements themselves: with one item, or one value
    throughout, there is nothing to estimate it from, and the formula's 0 or 1 would mislead.
    """
    if not units:
        return "no item was judged by two annotators"
    if len(units) < 2:
        return f"one item: {name} needs two or more to estimate chance agreement"
    if len({value for values in units for value in values.values()}) < 2:
        return f"every judgement is the same value: {name} is undefined"
    return ""


def _reliability_matrix(units: Units, level: str,
                        value_domain: Optional[Sequence[Any]]) -> Tuple[np.ndarray, Optional[list]]:
    """Annotators x units, NaN where an annotator did not judge the unit; nominal values as codes."""
    users = sorted({user for values in units for user in values}, key=str)
    row_of = {user: position for position, user in enumerate(users)}
    matrix = np.full((len(users), len(units)), np.nan)
    if level == "nominal":
        labels = sorted({value for values in units for value in values.values()}, key=str)
        code = {label: position for position, label in enumerate(labels)}
        encode, domain = code.__getitem__, list(range(len(labels)))
    else:
        encode, domain = float, (list(value_domain) if value_domain is not None else None)
    for position, values in enumerate(units):
        for user, value in values.items():
            matrix[row_of[user], position] = encode(value)
    return matrix, domain


def cohen_kappa(measure: str, table: pd.DataFrame, unit: Sequence[str], column: str) -> Figure:
    """Cohen's kappa when exactly two annotators judged the same units (scikit-learn)."""
    from sklearn.metrics import cohen_kappa_score

    units = pairable_units(table, unit, column)
    items, annotators = _counts(units)
    if units and annotators != 2:
        return Figure(measure, None, items, annotators, note="Cohen's kappa needs exactly two annotators")
    undefined = _chance_corrected_undefined(units, "kappa")
    if undefined:
        return Figure(measure, None, items, annotators, note=undefined)
    first, second = sorted({user for values in units for user in values}, key=str)
    labels_a, labels_b = [str(values[first]) for values in units], [str(values[second]) for values in units]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value = cohen_kappa_score(labels_a, labels_b)
    if np.isnan(value):
        return Figure(measure, None, items, annotators, note="chance agreement is 1: kappa is undefined")
    return Figure(measure, float(value), items, annotators)
