"""``multiagent.mast``: two tables, step tags and the run's modes; agreement at both levels and against gold.

- ``<scheme>.steps``: one row per step tag (item, step, mode, annotator), with the step's agent, the
  mode's name and category, the tag's note, severity, ``step_ref`` and ``from_judgment``.
- ``<scheme>.trace``: one row per (item, mode, annotator) for *every* mode of the taxonomy, as
  MAST's own per-trace labels are a yes or no per mode: ``present`` (tagged on a step or marked for
  the whole run), ``located`` and the ``steps`` it was tagged on, ``whole_run`` (marked without a
  step) with that mark's note and severity.

Every row carries the ``taxonomy`` id. Agreement, per mode and over all modes, with Cohen's kappa
(two annotators) and Krippendorff's nominal alpha (any number), as the MAST paper reports them:

- step level: every step of an item judged by two or more annotators is a unit per mode, tagged or
  not (an annotator's saved value counts as judging every step of the run, tags or none);
- trace level: every (item, mode) is a unit, present or not.

Against gold (``agreement --gold``): each annotator's run modes against the item's gold modes
(:func:`gold_modes`), accuracy, precision and recall per mode and over all modes; and, where gold
carries this scheme's own value (adjudicated gold), precision and recall of the step tags.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Tuple

import pandas as pd

from ...taxonomy import Taxonomy
from ...trace import Derivation
from .._base.adapter import INSTANCE, Adapter, Judgements, step_agent, step_words
from .._base.statistics import USER, Figure, cohen_kappa, krippendorff_alpha
from .scheme import MastConfig, MastValue

LEVEL, STEP_LEVEL, TRACE_LEVEL = "level", "step", "trace"
TAGGED = "tagged"
STEP_COLUMNS = ("taxonomy", "step", "step_ref", "step_agent", "mode", "mode_name", "category", "note", "severity",
                "from_judgment")
TRACE_COLUMNS = ("taxonomy", "mode", "mode_name", "category", "present", "located", "steps", "whole_run", "note",
                 "severity", "from_judgment", "run_steps")


class MastAdapter(Adapter):
    not_judged = 'not tagged'
    gold_figures = True
    @classmethod
    def describe(cls, rows: List[dict], config) -> Dict[str, str]:
        """Each step tag (``#4 (Coder) 1.3 Step repetition``: tagged), and each mode of the run (``whole
        run: 1.3 Step repetition``: present or absent, wherever it was tagged)."""
        found = {}
        for row in rows:
            label = f"{row['mode']} {row['mode_name']}" if row["mode_name"] else row["mode"]
            if row["level"] == "step":
                agent = row["step_agent"] if row["step_agent"] is not None else "no agent"
                found[f"{step_words(row['step'])} ({agent}) {label}"] = "tagged"
            else:
                found[f"whole run: {label}"] = "present" if row["present"] else "absent"
        return found

    item_key = (LEVEL, "step", "mode")
    step_columns = ("step", "steps")
    part_column = LEVEL
    parts = {STEP_LEVEL: ("steps", STEP_COLUMNS), TRACE_LEVEL: ("trace", TRACE_COLUMNS)}

    @classmethod
    def columns(cls, config: MastConfig) -> tuple:
        return (LEVEL,) + tuple(dict.fromkeys(STEP_COLUMNS + TRACE_COLUMNS))

    @classmethod
    def rows(cls, value: MastValue, derivation: Derivation, config: MastConfig) -> List[Dict[str, Any]]:
        taxonomy = config.taxonomy_model()
        rows = []
        for tag in sorted(value.steps, key=lambda tag: (tag.step, _order(taxonomy, tag.mode))):
            mode = taxonomy.mode(tag.mode)
            rows.append({LEVEL: STEP_LEVEL, "taxonomy": value.taxonomy, "step": tag.step, "step_ref": tag.step_ref,
                         "step_agent": step_agent(derivation, tag.step), "mode": tag.mode,
                         "mode_name": mode.name if mode else None, "category": mode.category if mode else None,
                         "note": tag.note, "severity": tag.severity, "from_judgment": tag.from_judgment})
        present = value.run_modes()
        for mode in taxonomy.modes:
            found = present.get(mode.code)
            mark = found["whole_run"] if found else None
            rows.append({LEVEL: TRACE_LEVEL, "taxonomy": value.taxonomy, "mode": mode.code, "mode_name": mode.name,
                         "category": mode.category, "present": found is not None,
                         "located": bool(found and found["steps"]), "steps": list(found["steps"]) if found else [],
                         "whole_run": mark is not None, "note": mark.note if mark else None,
                         "severity": mark.severity if mark else None,
                         "from_judgment": mark.from_judgment if mark else None,
                         "run_steps": len(derivation.steps)})
        return rows

    @classmethod
    def agreement(cls, judgements: Judgements, config: MastConfig, gold: Optional[Mapping[str, dict]],
                  within: int) -> List[Figure]:
        taxonomy = config.taxonomy_model()
        rows = judgements.rows
        step_units = step_unit_table(rows, judgements.judges, taxonomy.codes)
        trace_units = trace_unit_table(rows)
        figures: List[Figure] = []
        for level, units, unit in ((STEP_LEVEL, step_units, [INSTANCE, "step"]), (TRACE_LEVEL, trace_units, [INSTANCE])):
            for mode in taxonomy.modes:
                figures.extend(_both(f"{level} level, {mode.label}", units[units["mode"] == mode.code], unit))
            figures.extend(_both(f"{level} level, all modes", units, unit + ["mode"]))
        if gold is not None:
            figures.extend(gold_figures(rows, gold, config.name, taxonomy))
        return figures


def _order(taxonomy: Taxonomy, code: str) -> int:
    codes = taxonomy.codes
    return codes.index(code) if code in codes else len(codes)


def _both(label: str, frame: pd.DataFrame, unit: List[str]) -> List[Figure]:
    return [cohen_kappa(f"{label}: Cohen's kappa", frame, unit, TAGGED),
            krippendorff_alpha(f"{label}: Krippendorff's alpha (nominal)", frame, unit, TAGGED, "nominal")]


def _records(rows: pd.DataFrame, level: str) -> List[dict]:
    return [row for row in rows.to_dict("records") if row[LEVEL] == level]


def step_unit_table(rows: pd.DataFrame, judges: pd.DataFrame, modes: List[str]) -> pd.DataFrame:
    """(item, step, mode, annotator, tagged 0/1) for every step of every item two or more annotators
    judged, and every mode."""
    tagged = {(row[INSTANCE], int(row["step"]), row["mode"], row[USER]) for row in _records(rows, STEP_LEVEL)}
    run_steps = {row[INSTANCE]: int(row["run_steps"]) for row in _records(rows, TRACE_LEVEL)}
    users: Dict[Any, List[Any]] = {}
    for instance, user in zip(judges[INSTANCE], judges[USER]):
        users.setdefault(instance, []).append(user)
    out = []
    for instance, who in users.items():
        who = sorted(set(who), key=str)
        if len(who) < 2 or instance not in run_steps:
            continue
        for step in range(run_steps[instance]):
            for mode in modes:
                for user in who:
                    out.append((instance, step, mode, user, int((instance, step, mode, user) in tagged)))
    return pd.DataFrame(out, columns=[INSTANCE, "step", "mode", USER, TAGGED])


def trace_unit_table(rows: pd.DataFrame) -> pd.DataFrame:
    """(item, mode, annotator, tagged 0/1): the trace rows, present as 0/1."""
    out = [(row[INSTANCE], row["mode"], row[USER], int(bool(row["present"]))) for row in _records(rows, TRACE_LEVEL)]
    return pd.DataFrame(out, columns=[INSTANCE, "mode", USER, TAGGED])


# --------------------------------------------------------------------------- gold


def gold_modes(entry: Any, scheme: str, taxonomy: Taxonomy) -> Tuple[Optional[Dict[str, Optional[bool]]], str]:
    """The run's modes a gold entry says, as ``{code: True | False | None (unknown)}`` over this taxonomy,
    or ``(None, why)`` when it says them in another taxonomy (``why`` empty: it says none).

    Read, in this order: ``schemes.<scheme>`` (this scheme's own value, as adjudication writes it);
    ``mast`` (what ``convert --from mast`` writes for MAD's records: ``annotation``, the full
    dataset's ``{code: 1 | 0 | null}``, else ``votes``, the human-labelled file's ``{code: {annotator:
    bool}}`` with a majority present and the modes nobody marked unknown; a label the converter
    could not map to a code, in ``unmapped``, leaves the entry out); ``mast_annotation`` (MAD's full dataset: ``{code: 1 | 0 | null}``); ``failure_mode_votes``
    (MAD's human-labelled file, per mode every annotator's mark; a majority is present) and
    ``failure_modes`` (the labels present, by code, name or both). A label that names no mode of this
    taxonomy means the labels are another taxonomy's (MAD's rounds 1-3 renumber and rename modes):
    the entry is left out rather than read as this one.
    """
    if not isinstance(entry, dict):
        return None, ""
    own = (entry.get("schemes") or {}).get(scheme) if isinstance(entry.get("schemes"), dict) else None
    if own is not None:
        try:
            value = MastValue.model_validate(own)
        except ValueError:
            return None, f"gold schemes.{scheme} is not a value of this scheme"
        if value.taxonomy != taxonomy.id:
            return None, f"gold schemes.{scheme} was made under {value.taxonomy}"
        present = value.run_modes()
        return {code: code in present for code in taxonomy.codes}, ""
    converted = entry.get("mast")
    if isinstance(converted, dict):
        if converted.get("unmapped"):
            written = str(converted["unmapped"][0].get("written", "")) if isinstance(converted["unmapped"][0], dict) else ""
            return None, f"gold mast has a label no code of {taxonomy.id} names ('{written}')"
        if isinstance(converted.get("annotation"), dict):
            return _coded(converted["annotation"].items(), taxonomy, "mast.annotation")
        if isinstance(converted.get("votes"), dict):
            return _coded(((code, _majority(marks)) for code, marks in converted["votes"].items()), taxonomy,
                          "mast.votes")
    if isinstance(entry.get("mast_annotation"), dict):
        return _coded(entry["mast_annotation"].items(), taxonomy, "mast_annotation")
    if isinstance(entry.get("failure_mode_votes"), dict):
        votes = entry["failure_mode_votes"]
        return _coded(((label, _majority(marks)) for label, marks in votes.items()), taxonomy, "failure_mode_votes")
    if isinstance(entry.get("failure_modes"), list):
        found: Dict[str, Optional[bool]] = {code: False for code in taxonomy.codes}
        for label in entry["failure_modes"]:
            mode = taxonomy.find(label)
            if mode is None:
                return None, f"gold failure_modes names '{label}', not a mode of {taxonomy.id}"
            found[mode.code] = True
        return found, ""
    return None, ""


def _majority(marks: Any) -> Optional[bool]:
    values = [mark for mark in (marks.values() if isinstance(marks, dict) else []) if isinstance(mark, bool)]
    return None if not values else sum(values) * 2 > len(values)


def _coded(pairs: Iterable[Tuple[Any, Any]], taxonomy: Taxonomy, field: str) -> Tuple[Optional[dict], str]:
    """Every label of a per-mode vector must name a mode of this taxonomy (a vector of another version
    would otherwise be compared mode by mode under the wrong names)."""
    found: Dict[str, Optional[bool]] = {code: None for code in taxonomy.codes}
    for label, mark in pairs:
        mode = taxonomy.find(str(label))
        if mode is None:
            return None, f"gold {field} names '{str(label).strip().splitlines()[0]}', not a mode of {taxonomy.id}"
        found[mode.code] = None if mark is None else bool(mark)
    return found, ""


def gold_figures(rows: pd.DataFrame, gold: Mapping[str, dict], scheme: str, taxonomy: Taxonomy) -> List[Figure]:
    """Trace level: accuracy, precision and recall per mode and over all modes (pooled, and over all
    modes per annotator); step level, where gold has this scheme's value: precision and recall."""
    said = _run_modes_by_judge(rows)
    truth: Dict[str, Dict[str, Optional[bool]]] = {}
    left_out: Dict[str, str] = {}
    for instance in sorted({instance for instance, _ in said}, key=str):
        modes, why = gold_modes(gold.get(instance), scheme, taxonomy)
        if modes is not None:
            truth[instance] = modes
        elif why:
            left_out[instance] = why
    note = _left_out_note(left_out)
    pairs = [(instance, user, code, code in modes, truth[instance][code])
             for (instance, user), modes in said.items() if instance in truth
             for code in taxonomy.codes if truth[instance][code] is not None]
    figures: List[Figure] = []
    for mode in taxonomy.modes:
        figures.extend(_scores(f"trace level vs gold, {mode.label}", [p for p in pairs if p[2] == mode.code], None, note))
    figures.extend(_scores("trace level vs gold, all modes", pairs, None, note))
    for user in sorted({p[1] for p in pairs}, key=str):
        figures.extend(_scores("trace level vs gold, all modes", [p for p in pairs if p[1] == user], user, note))
    figures.extend(_step_gold(rows, gold, scheme, taxonomy))
    return figures


def _run_modes_by_judge(rows: pd.DataFrame) -> Dict[Tuple[str, str], Set[str]]:
    found: Dict[Tuple[str, str], Set[str]] = {}
    for row in _records(rows, TRACE_LEVEL):
        modes = found.setdefault((row[INSTANCE], row[USER]), set())
        if bool(row["present"]):
            modes.add(row["mode"])
    return found


def _left_out_note(left_out: Mapping[str, str]) -> str:
    if not left_out:
        return ""
    first = next(iter(left_out.items()))
    return f"{len(left_out)} item(s) left out: their gold is not in this taxonomy (e.g. {first[0]}: {first[1]})"


def _scores(label: str, pairs: List[tuple], user: Optional[str], note: str) -> List[Figure]:
    """``pairs``: (instance, user, mode, said, gold) judgements."""
    items = len({p[0] for p in pairs})
    annotators = len({p[1] for p in pairs})
    if not pairs:
        empty = note or "no judged item has gold for this mode"
        return [Figure(f"{label}: {measure}", None, 0, 0, user, empty) for measure in ("accuracy", "precision", "recall")]
    true_positive = sum(1 for p in pairs if p[3] and p[4])
    said = sum(1 for p in pairs if p[3])
    truly = sum(1 for p in pairs if p[4])
    return [
        Figure(f"{label}: accuracy", sum(p[3] == p[4] for p in pairs) / len(pairs), items, annotators, user, note),
        Figure(f"{label}: precision", true_positive / said if said else None, items, annotators, user,
               note if said else "never said present: precision is undefined"),
        Figure(f"{label}: recall", true_positive / truly if truly else None, items, annotators, user,
               note if truly else "never present in gold: recall is undefined"),
    ]


def _step_gold(rows: pd.DataFrame, gold: Mapping[str, dict], scheme: str, taxonomy: Taxonomy) -> List[Figure]:
    """Step tags against gold's own value of this scheme (adjudicated gold): precision and recall, pooled."""
    gold_tags: Dict[str, Set[Tuple[int, str]]] = {}
    for instance, entry in gold.items():
        own = ((entry or {}).get("schemes") or {}).get(scheme) if isinstance(entry, dict) else None
        if own is None:
            continue
        try:
            value = MastValue.model_validate(own)
        except ValueError:
            continue
        if value.taxonomy == taxonomy.id:
            gold_tags[instance] = {tag.key() for tag in value.steps}
    if not gold_tags:
        return []
    judged = {key for key in _run_modes_by_judge(rows) if key[0] in gold_tags}
    said: Dict[Tuple[str, str], Set[Tuple[int, str]]] = {key: set() for key in judged}
    for row in _records(rows, STEP_LEVEL):
        if (row[INSTANCE], row[USER]) in said:
            said[(row[INSTANCE], row[USER])].add((int(row["step"]), row["mode"]))
    true_positive = sum(len(tags & gold_tags[instance]) for (instance, _), tags in said.items())
    given = sum(len(tags) for tags in said.values())
    truly = sum(len(gold_tags[instance]) for instance, _ in said)
    items, annotators = len({i for i, _ in said}), len({u for _, u in said})
    return [Figure("step level vs gold, all modes: precision", true_positive / given if given else None, items,
                   annotators, None, "" if given else "no step tag to compare"),
            Figure("step level vs gold, all modes: recall", true_positive / truly if truly else None, items,
                   annotators, None, "" if truly else "gold tags no step")]
