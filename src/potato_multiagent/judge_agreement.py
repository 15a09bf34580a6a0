"""``agreement --judgments FILE``: each judge (source) against gold, against each annotator, and
how often annotators took its answer.

A judge is read as one more annotator: its values become rows through the type's own export
adapter, and the figures between it and one annotator are the ones the adapter computes between
two annotators (agent kappa and alpha, flag alpha, verdict kappa, ...), over the units both
judged. Against gold, failure attribution gets Who&When's agent and step accuracy and MAST tagging
its accuracy, precision and recall per mode (the adapters' own); every type whose gold line carries the scheme's value (``gold.schemes``, as adjudication
writes it) gets the share of units where the judge decided as gold did. *Accepted* is the share of
the annotators' saved values, on items the judge judged, that carry ``from_judgment: <source>``
(the widgets write it when an annotator accepts a shown judgment).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional

import pandas as pd

from .types._base.adapter import INSTANCE, Judgements
from .analysis.collect import COMMON_COLUMNS, TIMESTAMP, Collection, SchemeTable
from .types._base.statistics import USER, Figure
from .decisions import decisions, not_judged
from .judgments import Judgment, our_schemes
from .task import Task
from .trace import derive
from .trace.jsjson import StrictJSONError, strict_loads

if TYPE_CHECKING:
    from .judge import scoring

COLUMNS = ("scheme", "type", "source", "measure", "annotator", "value", "items", "annotators", "note")
JUDGE = "\u0000judge"
"""The judge's user key inside the tables (no annotator can be called this)."""
ACCEPTED = "accepted by annotators"


def judge_agreement_frame(task: Task, collection: Collection, judgments: List[Judgment],
                          gold: Optional[Mapping[str, dict]] = None, within: int = 1) -> pd.DataFrame:
    """One row per figure: per scheme (config order), per source (file order)."""
    records = task.records()
    raw = _raw_values(task)
    schemes = our_schemes(task.config)
    rows = []
    for name, table in collection.tables.items():
        sources = list(dict.fromkeys(j.source for j in judgments if j.scheme == name))
        for source in sources:
            mine = [j for j in judgments if j.scheme == name and j.source == source]
            figures = _figures(table, schemes[name], mine, records, raw.get(name, []), gold, within, source)
            rows.extend({"scheme": name, "type": table.scheme.type_name(), "source": source,
                         "measure": f.measure, "annotator": f.annotator, "value": f.value, "items": f.items,
                         "annotators": f.annotators, "note": f.note} for f in figures)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _figures(table: SchemeTable, scheme: dict, mine: List[Judgment], records: Mapping[str, Any], raw: List[tuple],
             gold: Optional[Mapping[str, dict]], within: int, source: str) -> List[Figure]:
    judge_rows = _judge_rows(table, mine, records)
    judged = {j.id for j in mine}
    figures: List[Figure] = []
    if gold is not None:
        figures.extend(_against_gold(table, scheme, mine, judge_rows, records, gold, within))
    annotations = table.frame()
    for user in sorted({user for _, user in table.judges}):
        pair_rows = pd.concat([judge_rows, annotations[annotations[USER] == user]], ignore_index=True)
        judges = pd.DataFrame([(j.id, JUDGE) for j in mine] + [(i, u) for i, u in table.judges if u == user],
                              columns=[INSTANCE, USER])
        for figure in table.adapter.agreement(Judgements(pair_rows.convert_dtypes(), judges), table.config, None,
                                              within):
            figures.append(Figure(figure.measure, figure.value, figure.items, figure.annotators, user, figure.note))
    figures.extend(_accepted(raw, judged, source))
    return figures


def _judge_rows(table: SchemeTable, mine: List[Judgment], records: Mapping[str, Any]) -> pd.DataFrame:
    rows = []
    for judgment in mine:
        record = records[judgment.id]
        value = table.scheme.Value.model_validate(judgment.value)
        derivation = derive(record, **table.config.derive_options())
        rows.extend({INSTANCE: judgment.id, USER: JUDGE, TIMESTAMP: None, **row}
                    for row in table.adapter.rows(value, derivation, table.config))
    return pd.DataFrame(rows, columns=list(COMMON_COLUMNS + table.adapter.columns(table.config)))


def _against_gold(table: SchemeTable, scheme: dict, mine: List[Judgment], judge_rows: pd.DataFrame,
                  records: Mapping[str, Any],
                  gold: Mapping[str, dict], within: int) -> List[Figure]:
    figures = []
    if table.adapter.gold_figures:
        judges = pd.DataFrame([(j.id, JUDGE) for j in mine], columns=[INSTANCE, USER])
        for figure in table.adapter.agreement(Judgements(judge_rows.convert_dtypes(), judges), table.config,
                                              gold, within):
            if "vs gold" in figure.measure and figure.annotator is None:
                figures.append(Figure(figure.measure, figure.value, figure.items, 1, None, figure.note))
    if any(table.name in ((entry or {}).get("schemes") or {}) for entry in gold.values()):
        figures.append(_unit_accuracy(table, scheme, mine, records, gold))
    return figures


def _unit_accuracy(table: SchemeTable, scheme: dict, mine: List[Judgment], records: Mapping[str, Any],
                   gold: Mapping[str, dict]) -> Figure:
    """Share of units (judge's and gold's together) where the judge decided as the gold value does."""
    measure = "unit accuracy vs gold (scheme value)"
    missing = not_judged(table.scheme.widget)
    matches, items = [], 0
    for judgment in mine:
        gold_value = ((gold.get(judgment.id) or {}).get("schemes") or {}).get(table.name)
        if gold_value is None:
            continue
        expected = decisions(scheme, gold_value, records[judgment.id])
        said = decisions(scheme, judgment.value, records[judgment.id])
        items += 1
        matches.extend(said.get(unit, missing) == expected.get(unit, missing) for unit in {**expected, **said})
    if not matches:
        return Figure(measure, None, items, 1, note="no judged item has this scheme's value in gold")
    return Figure(measure, sum(matches) / len(matches), items, 1)


def _raw_values(task: Task) -> Dict[str, List[tuple]]:
    """``{scheme: [(instance, user, parsed value)]}`` of every shown, non-empty saved value (valid or not:
    ``from_judgment`` is counted wherever the widget wrote it)."""
    found: Dict[str, List[tuple]] = {}
    for saved in task.saved_values():
        if saved.hidden or saved.value in (None, ""):
            continue
        try:
            value = strict_loads(saved.value) if isinstance(saved.value, str) else saved.value
        except StrictJSONError:
            continue
        found.setdefault(saved.scheme, []).append((saved.instance_id, saved.user, value))
    return found


def accepted_sources(value: Any) -> set:
    """Every ``from_judgment`` in a stored value, at any depth (a whole value, or one entry of a list); the
    scorecard's is a map from cell or milestone to the source."""
    found = set()
    if isinstance(value, dict):
        accepted = value.get("from_judgment")
        if isinstance(accepted, str):
            found.add(accepted)
        elif isinstance(accepted, dict):
            found |= {source for source in accepted.values() if isinstance(source, str)}
        for item in value.values():
            found |= accepted_sources(item)
    elif isinstance(value, list):
        for item in value:
            found |= accepted_sources(item)
    return found


def _accepted(raw: List[tuple], judged: set, source: str) -> List[Figure]:
    """Pooled and per annotator: the share of their values on judged items that took this source's answer."""
    on_judged = [(instance, user, source in accepted_sources(value)) for instance, user, value in raw
                 if instance in judged]
    figures = [_share(on_judged, None)]
    figures.extend(_share([entry for entry in on_judged if entry[1] == user], user)
                   for user in sorted({user for _, user, _ in on_judged}))
    return figures


def _share(entries: List[tuple], user: Optional[str]) -> Figure:
    if not entries:
        return Figure(ACCEPTED, None, 0, 0, user, note="no annotator saved a value on an item this source judged")
    return Figure(ACCEPTED, sum(took for _, _, took in entries) / len(entries),
                  len({instance for instance, _, _ in entries}), len({u for _, u, _ in entries}), user)


def judge_agreement_lines(frame: pd.DataFrame) -> List[str]:
    """The figures as text: a heading per scheme and source, one line per figure."""
    lines: List[str] = []
    for (scheme, source), figures in frame.groupby(["scheme", "source"], sort=False):
        lines.append(f"{scheme} ({figures['type'].iloc[0]}): judge {source!r}")
        for figure in figures.itertuples():
            label = figure.measure if pd.isna(figure.annotator) else f"{figure.measure} [{figure.annotator}]"
            value = "n/a" if pd.isna(figure.value) else f"{figure.value:.3f}"
            note = f"  ({figure.note})" if figure.note else ""
            lines.append(f"  {label:<44} {value:>6}   items {figure.items}, annotators {figure.annotators}{note}")
    return lines


# --------------------------------------------------------------------------- attribution vs gold, the field's way


def attribution_vs_gold(collection: Collection, judgments: List[Judgment], gold: Mapping[str, dict],
                        settings: "scoring.Settings") -> List[tuple]:
    """``[(scheme, [Scored])]`` for each failure-attribution scheme: each judge (source), each
    annotator and the annotators pooled, against gold (``judge/scoring.py``)."""
    from .judge import scoring

    found = []
    for name, table in collection.tables.items():
        if table.scheme is None or table.scheme.widget != "failure_attribution":
            continue
        answers = {record_id: answer for record_id, answer in
                   ((record_id, scoring.gold_answer(entry, name)) for record_id, entry in gold.items()) if answer}
        humans = [scoring.Prediction(str(row[INSTANCE]), row.get("responsible_agent"), row.get("decisive_step"),
                                     tuple(row.get("plausible_steps") or ()), row.get("certainty"))
                  for row in table.rows]
        judged: Dict[str, List] = {}
        methods: Dict[str, str] = {}
        for judgment in judgments:
            if judgment.scheme != name:
                continue
            value = table.scheme.Value.model_validate(judgment.value)
            judged.setdefault(judgment.source, []).append(scoring.Prediction(
                judgment.id, value.responsible_agent, value.decisive_step,
                tuple(entry.step for entry in value.plausible_steps)))
            if judgment.run and isinstance(judgment.run.get("method"), str):
                methods[judgment.source] = judgment.run["method"]
        every = humans + [p for predictions in judged.values() for p in predictions]
        with_ndcg = scoring.wants_ndcg(every, answers)
        groups = []
        for source, predictions in judged.items():
            groups += scoring.score_groups(f"judge {source!r}", "judge", predictions, answers, settings, with_ndcg,
                                           methods.get(source))
        users = sorted({str(row[USER]) for row in table.rows})
        for user in users:
            groups += scoring.score_groups(f"annotator {user}", "annotator",
                                           [p for p, row in zip(humans, table.rows) if str(row[USER]) == user],
                                           answers, settings, with_ndcg)
        if len(users) > 1:
            groups += scoring.score_groups("annotators pooled", "annotators", humans, answers, settings, with_ndcg)
        found.append((name, groups))
    return found
