"""Failure attribution scored the way the field scores it, for judges and annotators alike.

Per run, against gold (Who&When's ``mistake_agent`` and ``mistake_step``, or an adjudicated value):

- **agent accuracy**: the named agent is the gold agent (no agent named: wrong);
- **step accuracy**: the decisive step is the gold step (no step named: wrong);
- **step accuracy within ±d** for d = 1..K (Who&When reports ±1 to ±5): ``|step - gold step| <= d``;
- **nDCG@k** (MP-Bench), when a prediction ranks several steps (the decisive one, then its
  ``plausible_steps``) or gold holds several (its decisive step and ``plausible_steps``): binary
  relevance (a ranked step is relevant when it is a gold step), DCG = sum over ranks i <= k of
  rel_i / log2(i + 1), divided by the DCG of the gold steps ranked first.

Each figure is the mean over the units (one prediction of one run; a judge has one per run, an
annotator one per run they answered; pooled annotators one per answer), with a 95% percentile
bootstrap interval: ``rng = numpy.random.default_rng(seed)``, ``rng.integers(0, n, (resamples, n))``
draws the resampled units, and the 2.5th and 97.5th percentiles (numpy's linear rule) of their
means are the bounds. Figures are given for all runs and per Who&When subset when the ids name one
(``Algorithm-Generated-N``, ``Hand-Crafted-N``, as ``convert --from who-and-when`` writes them);
for annotators, also for their confident labels alone.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

SUBSET = re.compile(r"^(Algorithm-Generated|Hand-Crafted)-\d")
COLUMNS = ("scheme", "who", "kind", "method", "subset", "labels", "measure", "value", "low", "high", "units")


@dataclass(frozen=True)
class Prediction:
    """One attribution of one run, by a judge or an annotator."""

    id: str
    agent: Optional[str]
    step: Optional[int]
    plausible: Tuple[int, ...] = ()
    certainty: Optional[str] = None

    @property
    def ranked(self) -> List[int]:
        return list(dict.fromkeys(([self.step] if self.step is not None else []) + list(self.plausible)))


@dataclass(frozen=True)
class Gold:
    agent: Optional[str]
    step: Optional[int]
    steps: Tuple[int, ...]
    """Every gold step, the decisive one first."""


@dataclass
class Settings:
    within: int = 1
    k: int = 5
    seed: int = 0
    resamples: int = 1000


@dataclass(frozen=True)
class Score:
    measure: str
    value: Optional[float]
    low: Optional[float]
    high: Optional[float]
    units: int


@dataclass
class Scored:
    """The figures of one group (who, subset, labels)."""

    who: str
    kind: str
    subset: str
    labels: str
    scores: List[Score] = field(default_factory=list)
    method: Optional[str] = None


def _index(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    if isinstance(value, dict):
        return _index(value.get("step"))
    return None


def gold_answer(entry: Any, scheme: Optional[str] = None) -> Optional[Gold]:
    """The gold of a run: an adjudicated value of ``scheme`` (``schemes.<scheme>``) first, else
    ``mistake_agent``/``responsible_agent`` and ``mistake_step``/``decisive_step``, with
    ``plausible_steps`` (indices or ``{step}``) as further gold steps."""
    if not isinstance(entry, dict):
        return None
    settled = ((entry.get("schemes") or {}).get(scheme) if scheme else None)
    source = settled if isinstance(settled, dict) else entry
    agent = source.get("mistake_agent", source.get("responsible_agent"))
    step = _index(source.get("mistake_step", source.get("decisive_step")))
    agent = agent if isinstance(agent, str) else None
    if agent is None and step is None:
        return None
    more = [_index(item) for item in source.get("plausible_steps") or [] if _index(item) is not None]
    steps = tuple(dict.fromkeys(([step] if step is not None else []) + more))
    return Gold(agent, step, steps)


def subset_of(record_id: str) -> Optional[str]:
    found = SUBSET.match(record_id)
    return found.group(1) if found else None


def ndcg(ranked: Sequence[int], relevant: Iterable[int], k: int) -> float:
    relevant = set(relevant)
    dcg = sum(1 / math.log2(rank + 1) for rank, step in enumerate(ranked[:k], start=1) if step in relevant)
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(k, len(relevant)) + 1))
    return dcg / ideal if ideal else 0.0


def bootstrap(outcomes: Sequence[float], settings: Settings) -> Tuple[Optional[float], Optional[float]]:
    """The 95% percentile interval of the mean (see the module docstring for the draws)."""
    if not outcomes:
        return None, None
    values = np.asarray(outcomes, dtype=float)
    rng = np.random.default_rng(settings.seed)
    draws = rng.integers(0, len(values), size=(settings.resamples, len(values)))
    means = values[draws].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def _score(measure: str, outcomes: List[float], settings: Settings) -> Score:
    if not outcomes:
        return Score(measure, None, None, None, 0)
    low, high = bootstrap(outcomes, settings)
    return Score(measure, float(np.mean(outcomes)), low, high, len(outcomes))


def score(predictions: Sequence[Prediction], gold: Mapping[str, Gold], settings: Settings,
          with_ndcg: bool) -> List[Score]:
    """The figures of one group of predictions (those with gold only)."""
    pairs = [(p, gold[p.id]) for p in predictions if p.id in gold]
    scores = [
        _score("agent accuracy", [float(p.agent is not None and p.agent == g.agent) for p, g in pairs], settings),
        _score("step accuracy", [float(p.step is not None and p.step == g.step) for p, g in pairs], settings),
    ]
    for distance in range(1, settings.within + 1):
        scores.append(_score(f"step accuracy within ±{distance}",
                             [float(p.step is not None and g.step is not None and abs(p.step - g.step) <= distance)
                              for p, g in pairs], settings))
    if with_ndcg:
        scores.append(_score(f"nDCG@{settings.k}", [ndcg(p.ranked, g.steps, settings.k) for p, g in pairs if g.steps],
                             settings))
    return scores


def score_groups(who: str, kind: str, predictions: Sequence[Prediction], gold: Mapping[str, Gold],
                 settings: Settings, with_ndcg: bool, method: Optional[str] = None) -> List[Scored]:
    """All runs, then each Who&When subset the ids name; for annotators also their confident labels."""
    label_sets = [("all", list(predictions))]
    if kind != "judge":
        label_sets.append(("confident", [p for p in predictions if p.certainty == "confident"]))
    subsets = sorted({s for s in (subset_of(p.id) for p in predictions if p.id in gold) if s})
    groups = []
    for labels, chosen in label_sets:
        for subset in [None] + subsets:
            mine = [p for p in chosen if subset is None or subset_of(p.id) == subset]
            groups.append(Scored(who, kind, subset or "all runs", labels, score(mine, gold, settings, with_ndcg),
                                 method))
    return groups


def wants_ndcg(predictions: Iterable[Prediction], gold: Mapping[str, Gold]) -> bool:
    """nDCG is reported when some prediction ranks several steps or some gold holds several."""
    return any(len(p.ranked) > 1 for p in predictions) or any(len(g.steps) > 1 for g in gold.values())


def rows(scheme: str, groups: Sequence[Scored]) -> List[dict]:
    return [{"scheme": scheme, "who": g.who, "kind": g.kind, "method": g.method, "subset": g.subset,
             "labels": g.labels, "measure": s.measure, "value": s.value, "low": s.low, "high": s.high,
             "units": s.units} for g in groups for s in g.scores]


def lines(scheme: str, groups: Sequence[Scored], settings: Settings) -> List[str]:
    """The figures as text: a heading per group, one line per measure with its interval."""
    out = [f"{scheme}: attribution vs gold (95% bootstrap intervals, {settings.resamples} resamples, "
           f"seed {settings.seed})"]
    for group in groups:
        units = group.scores[0].units if group.scores else 0
        method = f" [{group.method}]" if group.method else ""
        labels = "" if group.kind == "judge" else f", {group.labels} labels"
        out.append(f"  {group.who}{method}: {group.subset}{labels} ({units} attribution(s))")
        for s in group.scores:
            if s.value is None:
                out.append(f"    {s.measure:<28}    n/a")
            else:
                out.append(f"    {s.measure:<28} {s.value:6.3f}  [{s.low:.3f}, {s.high:.3f}]")
    return out
