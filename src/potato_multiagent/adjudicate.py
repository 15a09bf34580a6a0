"""Adjudication as a task: where annotators disagree, a new Potato task with their answers as judgments.

``potato-multiagent adjudicate CONFIG -o DIR`` reads every valid saved value of the task (values
hidden by ``display_logic`` and invalid ones are left out, as in export), compares the annotators'
decisions per item and scheme (:mod:`.decisions`), and writes:

- ``DIR/config.yaml``: the task's config with a new ``annotation_task_name`` and the data below;
- ``DIR/data/adjudication.jsonl``: the records where annotators disagree, each carrying every
  annotator's value as a judgment (source ``annotator 1``, ``annotator 2``, ... or their names);
- ``DIR/gold.jsonl``: what every annotator agreed on, as gold lines (on an item sent to the
  adjudicator too: an agreed scheme stays gold unless the adjudicator changes it);
- ``DIR/disagreements.md`` and ``.jsonl``: per item and scheme, what differed, in words.

``potato-multiagent export DIR/config.yaml --as-gold OUT --merge-gold DIR/gold.jsonl`` then turns
the adjudicator's saved values (and the unanimous ones) into one gold file ``agreement --gold`` reads.
"""

from __future__ import annotations

import json
import os
import string
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

import yaml

from .decisions import decisions, differences
from .judgments import DEFAULT_KEY, Judgment, check_key, our_schemes, place_judgments
from .types import SCHEMES, scheme_for
from .task import Task
from .trace.jsjson import strict_loads

DATA_FILE = "data/adjudication.jsonl"
GOLD_FILE = "gold.jsonl"
REPORT_FILE = "disagreements.md"
REPORT_LINES_FILE = "disagreements.jsonl"


class AdjudicationError(Exception):
    """The adjudication task cannot be written; the message names the file or option."""


Values = Dict[Tuple[str, str], Dict[str, Any]]
"""``{(instance, scheme): {user: parsed value}}``: the valid, shown values of a task."""


def valid_values(task: Task) -> Tuple[Values, List[str]]:
    """Every valid value saved while its scheme was shown, and a line for each one left out."""
    schemes = our_schemes(task.config)
    records = task.records()
    values: Values = {}
    left_out: List[str] = []
    for saved in task.saved_values():
        if saved.scheme not in schemes or saved.value in (None, ""):
            continue
        where = f"{saved.instance_id} / {saved.user} / {saved.scheme}"
        if saved.hidden:
            left_out.append(f"{where}: saved while display_logic hid the scheme")
            continue
        if saved.instance_id not in records:
            left_out.append(f"{where}: the instance is not in the task's data files")
            continue
        scheme = schemes[saved.scheme]
        cls = scheme_for(str(scheme["annotation_type"]))
        config, problems = cls.parse_config(scheme)
        problems = problems or cls.validate(saved.value, records[saved.instance_id], config)
        if problems:
            left_out.append(f"{where}: invalid ({'; '.join(problems)})")
            continue
        parsed = strict_loads(saved.value) if isinstance(saved.value, str) else saved.value
        values.setdefault((saved.instance_id, saved.scheme), {})[saved.user] = parsed
    return values, left_out


def judge_labels(users: List[str], show_names: bool) -> Dict[str, str]:
    """``{user: label}``: ``annotator 1``, ``annotator 2``, ... in user-name order (blind), or the names."""
    ordered = sorted(users)
    return {user: (user if show_names else f"annotator {position}") for position, user in enumerate(ordered, start=1)}


def letter(position: int) -> str:
    return string.ascii_uppercase[position] if position < 26 else f"#{position + 1}"


@dataclass
class Settled:
    """One (instance, scheme) with enough annotators: their decisions and what differs."""

    instance: str
    scheme: str
    values: Dict[str, Any]
    differing: Dict[str, Dict[str, str]]

    @property
    def unanimous(self) -> bool:
        return not self.differing


@dataclass
class Adjudication:
    folder: Path
    labels: Dict[str, str]
    settled: List[Settled]
    to_adjudicate: List[str]
    """Instances written to the task, in data-file order."""
    gold: List[dict]
    too_few: List[str]
    left_out: List[str]
    schemes: List[str]
    report: List[str] = field(default_factory=list)

    def lines(self) -> List[str]:
        out = list(self.report)
        out += [f"left out {line}" for line in self.left_out]
        if self.too_few:
            out.append(f"left out {len(self.too_few)} item/scheme pair(s) judged by too few annotators: "
                       + ", ".join(self.too_few))
        if not self.to_adjudicate:
            out.append("nothing to adjudicate: every item judged by enough annotators is unanimous (no task written)")
        else:
            out.append(f"wrote {len(self.to_adjudicate)} item(s) to adjudicate to {self.folder / DATA_FILE} "
                       f"(schemes: {', '.join(self.schemes) or 'none'})")
        agreed = sum(1 for line in self.gold if line["gold"].get("agreed"))
        disputed = sum(1 for line in self.gold if line["id"] in self.to_adjudicate)
        notes = ([f"{disputed} on {'an item' if disputed == 1 else 'items'} to adjudicate"] if disputed else []) + (
            [f"{agreed} with only the failure-mode tags every annotator gave, to be completed by the adjudicator"]
            if agreed else [])
        out.append(f"wrote {len(self.gold)} gold line(s) of what every annotator agreed on"
                   + (f" ({'; '.join(notes)})" if notes else "") + f" to {self.folder / GOLD_FILE}")
        if self.to_adjudicate:
            out.append(f"wrote {self.folder / 'config.yaml'}; report: {self.folder / REPORT_FILE}")
            out.append(f"next: cd {self.folder} && potato start config.yaml")
        return out


def adjudicate(config_path: Path, folder: Path, min_annotators: int = 2, only_disagreements: bool = False,
               show_names: bool = False, key: str = DEFAULT_KEY) -> Adjudication:
    task = Task(config_path)
    schemes = our_schemes(task.config)
    problem = check_key(key, schemes)
    if problem:
        raise AdjudicationError(problem)
    records = task.records()
    values, left_out = valid_values(task)
    labels = judge_labels(sorted({user for by_user in values.values() for user in by_user}), show_names)
    settled, too_few = _compare(values, records, schemes, min_annotators)
    disagreeing = list(dict.fromkeys(s.instance for s in settled if not s.unanimous))
    kept_schemes = [name for name in schemes if not only_disagreements
                    or any(s.scheme == name and not s.unanimous for s in settled)]
    to_judge = [s for s in settled if s.instance in disagreeing and s.scheme in kept_schemes
                and (not s.unanimous or not only_disagreements)]
    judgments = [Judgment(s.instance, s.scheme, labels[user], value, True)
                 for s in to_judge for user, value in sorted(s.values.items(), key=lambda kv: labels[kv[0]])]
    task_records = [records[instance] for instance in disagreeing]
    # A scheme every annotator agrees on is gold, also on an item sent to the adjudicator for another
    # scheme: the adjudicator sees it (as judgments) and may change it, and export --as-gold then
    # takes the change; left alone, the agreement stands. Failure modes they differ on keep the tags
    # they all gave.
    unanimous = _unanimous_values([s for s in settled if s.unanimous])
    agreed = _agreed_parts([s for s in to_judge if not s.unanimous], schemes)
    result = Adjudication(folder, labels, settled, disagreeing,
                          gold_lines(unanimous, schemes, agreed=agreed, order=list(records)),
                          too_few, left_out, kept_schemes)
    result.report = report_lines(settled, labels)
    _write(folder, task, place_judgments(task_records, judgments, key, task.id_key), kept_schemes, result)
    return result


def _compare(values: Values, records: Mapping[str, Any], schemes: Mapping[str, dict],
             min_annotators: int) -> Tuple[List[Settled], List[str]]:
    order = {instance: position for position, instance in enumerate(records)}
    scheme_order = {name: position for position, name in enumerate(schemes)}
    settled, too_few = [], []
    for (instance, scheme), by_user in sorted(values.items(), key=lambda kv: (order[kv[0][0]], scheme_order[kv[0][1]])):
        if len(by_user) < min_annotators:
            too_few.append(f"{instance} / {scheme} ({len(by_user)})")
            continue
        widget = scheme_for(str(schemes[scheme]["annotation_type"])).widget
        found = {user: decisions(schemes[scheme], value, records[instance]) for user, value in by_user.items()}
        settled.append(Settled(instance, scheme, by_user, differences(widget, found)))
    return settled, too_few


def _unanimous_values(unanimous: List[Settled]) -> Dict[str, Dict[str, Any]]:
    """``{instance: {scheme: value}}``: the first annotator's value (by name) of each unanimous pair."""
    gold: Dict[str, Dict[str, Any]] = {}
    for s in unanimous:
        gold.setdefault(s.instance, {})[s.scheme] = s.values[sorted(s.values)[0]]
    return gold


def _agreed_parts(to_judge: List[Settled], schemes: Mapping[str, dict]) -> Dict[str, Dict[str, Any]]:
    """``{instance: {scheme: value}}`` for the schemes annotators differ on whose type sends what all
    of them gave to gold without asking again (``Scheme.agreed``: MAST's tags); ``export --as-gold``
    puts the adjudicator's answer over it (``Scheme.over_agreed``)."""
    found: Dict[str, Dict[str, Any]] = {}
    for s in to_judge:
        cls = scheme_for(str(schemes[s.scheme]["annotation_type"]))
        config, _ = cls.parse_config(schemes[s.scheme])
        agreed = cls.agreed(list(s.values.values()), config)
        if agreed is not None:
            found.setdefault(s.instance, {})[s.scheme] = agreed
    return found


def gold_lines(by_instance: Mapping[str, Mapping[str, Any]], schemes: Mapping[str, dict],
               how: str = "unanimous", agreed: Optional[Mapping[str, Mapping[str, Any]]] = None,
               order: Optional[List[str]] = None) -> List[dict]:
    """Gold lines ``{id, gold}`` that ``agreement --gold`` reads: every scheme's value under ``schemes``,
    and the failure attribution also as ``responsible_agent`` / ``decisive_step`` (when the task has one).
    ``agreed``: the failure-mode tags every annotator gave on an item still to adjudicate, under
    ``gold.agreed`` (not settled: ``agreement --gold`` reads only ``schemes``)."""
    agreed = agreed or {}
    instances = list(dict.fromkeys(list(by_instance) + list(agreed)))
    if order is not None:
        position = {instance: at for at, instance in enumerate(order)}
        instances.sort(key=lambda instance: position.get(instance, len(position)))
    lines = []
    for instance in instances:
        by_scheme = by_instance.get(instance, {})
        gold: Dict[str, Any] = {"schemes": dict(by_scheme), "settled": {name: how for name in by_scheme}}
        if agreed.get(instance):
            gold["agreed"] = dict(agreed[instance])
        lines.append({"id": instance, "gold": with_top_keys(gold, schemes)})
    return lines


def with_top_keys(gold: Dict[str, Any], schemes: Mapping[str, dict]) -> Dict[str, Any]:
    """The gold line's top keys its types give (``Scheme.gold_top``: failure attribution's
    ``responsible_agent`` / ``decisive_step``), from the value of each type the task has one scheme of."""
    by_type: Dict[Any, List[str]] = {}
    for name in gold.get("schemes", {}):
        cls = SCHEMES.get(str(schemes.get(name, {}).get("annotation_type")))
        if cls is not None:
            by_type.setdefault(cls, []).append(name)
    for cls, names in by_type.items():
        if len(names) == 1:
            gold = cls.gold_top(gold, gold["schemes"][names[0]])
    return gold


def report_lines(settled: List[Settled], labels: Mapping[str, str]) -> List[str]:
    """One line per differing unit: ``run-7 / attribution: A: WebSurfer #4; B: Orchestrator #19``."""
    names = _short_names(labels)
    lines = []
    for s in settled:
        for unit, said in s.differing.items():
            where = f"{s.instance} / {s.scheme}" + ("" if unit == "attribution" else f" / {unit}")
            lines.append(f"{where}: " + "; ".join(f"{names[user]}: {said[user]}"
                                                  for user in sorted(said, key=lambda u: labels[u])))
    return lines


def _short_names(labels: Mapping[str, str]) -> Dict[str, str]:
    """A, B, ... for blind labels (``annotator 1`` is A); the names themselves when shown."""
    blind = all(label.startswith("annotator ") for label in labels.values())
    if not blind:
        return dict(labels)
    return {user: letter(int(label.split()[-1]) - 1) for user, label in labels.items()}


# --------------------------------------------------------------------------- writing


def adjudication_config(task: Task, kept_schemes: List[str]) -> dict:
    """The task's config, serving the adjudication data under a new task name."""
    config = dict(task.config)
    ours = set(our_schemes(task.config))
    config["annotation_schemes"] = [scheme for scheme in task.all_schemes()
                                    if scheme.get("name") not in ours or scheme.get("name") in kept_schemes]
    config.update(_files_made_absolute(task, config))
    name = str(task.config.get("annotation_task_name") or task.config_path.parent.name)
    config.update({"annotation_task_name": f"Adjudication of {name} ({uuid.uuid4().hex[:8]})", "task_dir": ".",
                   "data_files": [DATA_FILE], "output_annotation_dir": "annotation_output"})
    return config


OWN_PATHS = ("annotation_task_name", "task_dir", "data_files", "output_annotation_dir")


def _files_made_absolute(task: Task, config: dict) -> dict:
    """Top-level settings naming a file or folder of the original task (a layout, a site dir) as an
    absolute path, so the adjudication task, written elsewhere, still finds them."""
    moved = {}
    for key, value in config.items():
        if key in OWN_PATHS or not isinstance(value, str) or not value or Path(value).is_absolute():
            continue
        for base in (task.config_dir, task.task_dir):
            if (base / value).exists():
                moved[key] = str((base / value).resolve())
                break
    return moved


def _write(folder: Path, task: Task, records: List[dict], kept_schemes: List[str], result: Adjudication) -> None:
    config_path = folder / "config.yaml"
    if config_path.exists():
        raise AdjudicationError(f"{config_path} already exists: choose a new folder (an adjudication task is "
                                f"written once; its annotators' work would be mixed with another's)")
    _write_whole(folder / GOLD_FILE, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in result.gold))
    _write_whole(folder / REPORT_FILE, _markdown(task, result))
    _write_whole(folder / REPORT_LINES_FILE, "".join(
        json.dumps({"id": s.instance, "scheme": s.scheme, "unit": unit,
                    "decisions": {result.labels[user]: said[user] for user in said}}, ensure_ascii=False) + "\n"
        for s in result.settled for unit, said in s.differing.items()))
    if not result.to_adjudicate:
        return  # a task of no item is no task: Potato would refuse an empty data file
    _write_whole(folder / DATA_FILE, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    header = (f"# Written by `potato-multiagent adjudicate {task.config_path.name}`: the items where annotators "
              f"disagree,\n# each carrying their answers as judgments. Start it with: potato start config.yaml\n")
    _write_whole(config_path, header + yaml.safe_dump(adjudication_config(task, kept_schemes), sort_keys=False,
                                                      allow_unicode=True))


def _markdown(task: Task, result: Adjudication) -> str:
    names = _short_names(result.labels)
    lines = [f"# Disagreements in {task.config.get('annotation_task_name') or task.config_path}", ""]
    if set(names.values()) != set(result.labels.values()):
        lines += ["Annotators (blind): " + ", ".join(f"{names[u]} = {result.labels[u]}"
                                                     for u in sorted(result.labels, key=result.labels.get)), ""]
    for instance in result.to_adjudicate:
        lines.append(f"## {instance}")
        for line in report_lines([s for s in result.settled if s.instance == instance], result.labels):
            lines.append(f"- {line.split(' / ', 1)[1]}")
        lines.append("")
    if not result.to_adjudicate:
        lines.append("No disagreement: every item judged by enough annotators is unanimous.")
    return "\n".join(lines).rstrip() + "\n"


def _write_whole(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    staged.write_text(text, encoding="utf-8")
    os.replace(staged, path)


# --------------------------------------------------------------------------- export --as-gold


@dataclass
class GoldExport:
    lines: List[dict]
    conflicts: List[str]
    left_out: List[str]
    merged: int = 0


def export_gold(config_path: Path, merge: Optional[Mapping[str, dict]] = None) -> GoldExport:
    """Gold lines from a task's saved values (the adjudicator's), over ``merge`` (``{id: gold}``, e.g.
    the unanimous ``gold.jsonl`` of ``adjudicate``): a saved value replaces the merged one of its scheme.
    Two users who saved different decisions for one item and scheme are a conflict, left out and named."""
    task = Task(config_path)
    schemes = our_schemes(task.config)
    records = task.records()
    values, left_out = valid_values(task)
    conflicts: List[str] = []
    saved: Dict[str, Dict[str, Any]] = {}
    for (instance, scheme), by_user in values.items():
        widget = scheme_for(str(schemes[scheme]["annotation_type"])).widget
        found = {user: decisions(schemes[scheme], value, records[instance]) for user, value in by_user.items()}
        differing = differences(widget, found)
        if differing:
            conflicts.extend(line for line in report_lines(
                [Settled(instance, scheme, by_user, differing)], {u: u for u in by_user}))
            continue
        saved.setdefault(instance, {})[scheme] = by_user[sorted(by_user)[0]]
    gold: Dict[str, Dict[str, Any]] = {}
    for instance, entry in (merge or {}).items():
        gold[instance] = json.loads(json.dumps(entry))
    for instance, by_scheme in saved.items():
        entry = gold.setdefault(instance, {})
        for name, value in by_scheme.items():
            cls = SCHEMES.get(str(schemes[name].get("annotation_type")))
            if cls is not None:
                by_scheme[name] = _over_agreed(cls, entry, name, value)
        entry.setdefault("schemes", {}).update(by_scheme)
        entry.setdefault("settled", {}).update({name: "adjudicated" for name in by_scheme})
        if isinstance(entry.get("agreed"), dict):
            entry["agreed"] = {name: value for name, value in entry["agreed"].items() if name not in by_scheme}
            if not entry["agreed"]:
                del entry["agreed"]
    order = {instance: position for position, instance in enumerate(records)}
    ordered = sorted(gold, key=lambda instance: (order.get(instance, len(order)), instance))
    lines = [{"id": instance, "gold": with_top_keys(gold[instance], schemes)} for instance in ordered]
    return GoldExport(lines, conflicts, left_out, merged=len(merge or {}))


def _over_agreed(cls: Any, entry: Mapping[str, Any], scheme: str, value: Any) -> Any:
    """The adjudicator's value over what annotators agreed on (unanimous gold, or the agreed part of an
    item they differed on), as its type puts one over the other (``Scheme.over_agreed``: MAST's
    agreed tags are never answered again nor dropped; other types take the adjudicator's value)."""
    base = ((entry.get("schemes") or {}).get(scheme) if isinstance(entry.get("schemes"), dict) else None) \
        or ((entry.get("agreed") or {}).get(scheme) if isinstance(entry.get("agreed"), dict) else None)
    return cls.over_agreed(base, value) if base is not None else value


def write_gold(lines: List[dict], path: Path) -> None:
    _write_whole(path, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
