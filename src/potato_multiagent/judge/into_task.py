"""``judge --into-task``: a judge's shown judgments written into the task's records, hidden from
each annotator until they have answered.

The records of every data file get the judgments of this source under the judgments key
(replacing what the same source said before: a judge run again is not shown twice). The judged
scheme gets ``show_judgments: after_answer`` in config.yaml unless it already says when to show
judgments (an author's choice is kept): a judge's answer shown before the annotator's own would
anchor it. The config is edited as text, one line added, so its comments and order stay.
"""

from __future__ import annotations

import json
from typing import Dict, List, Sequence

import yaml

from ..files import read_text, write_text_whole
from ..judgments import Judgment, JudgmentError, _is_judgments
from ..task import Task, read_records

AFTER_ANSWER = "after_answer"


def write_into_task(task: Task, judgments: Sequence[Judgment], scheme: str, key: str) -> List[str]:
    """Place ``judgments`` (one source, one scheme; the shown ones) and set the show mode; what was done, in lines."""
    by_id: Dict[str, Judgment] = {j.id: j for j in judgments if j.show}
    sources = {j.source for j in by_id.values()}
    lines = []
    for path in task.data_paths():
        records = read_records(path)
        placed = 0
        for record in records:
            judgment = by_id.get(str(record.get(task.id_key))) if isinstance(record, dict) else None
            if judgment is None:
                continue
            carried = record.get(key, {})
            if not _is_judgments(carried):
                raise JudgmentError([f"{path}: record {record.get(task.id_key)!r}: {key}: the record already has "
                                     f"this field and it does not hold judgments"])
            entries = [e for e in carried.get(scheme, []) if e.get("source") not in sources]
            carried[scheme] = entries + [judgment.entry()]
            record[key] = carried
            placed += 1
        if placed:
            text = ("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
                    if path.suffix == ".jsonl" else json.dumps(records, ensure_ascii=False, indent=2) + "\n")
            write_text_whole(path, text)
            lines.append(f"placed {placed} judgment(s) of {', '.join(sorted(sources))} into {path}")
    lines.append(_show_after_answer(task, scheme))
    return lines


def _show_after_answer(task: Task, scheme: str) -> str:
    config = next((s for s in task.all_schemes() if str(s.get("name")) == scheme), None)
    if config is None:
        raise JudgmentError([f"{task.config_path}: no scheme named {scheme!r}"])
    if "show_judgments" in config:
        return (f"{task.config_path.name}: {scheme} keeps show_judgments: {config['show_judgments']} "
                f"(the judge would show after_answer)")
    text = read_text(task.config_path)
    line, indent = _name_line(text, scheme)
    if line is None:
        raise JudgmentError([f"{task.config_path}: scheme {scheme!r}: add show_judgments: after_answer to it by "
                             f"hand (its name is not on a line of its own)"])
    lines = text.splitlines(keepends=True)
    lines.insert(line + 1, " " * indent + f"show_judgments: {AFTER_ANSWER}\n")
    write_text_whole(task.config_path, "".join(lines))
    return f"{task.config_path.name}: {scheme}: show_judgments: after_answer (judge answers show once answered)"


def _name_line(text: str, scheme: str):
    """``(line, column)`` of the ``name:`` key of the scheme called ``scheme`` in block style, or ``(None, 0)``."""
    root = yaml.compose(text)
    if not isinstance(root, yaml.MappingNode):
        return None, 0
    for key, value in root.value:
        if key.value != "annotation_schemes" or not isinstance(value, yaml.SequenceNode):
            continue
        for item in value.value:
            if not isinstance(item, yaml.MappingNode) or item.flow_style:
                continue
            for name_key, name_value in item.value:
                if name_key.value == "name" and name_value.value == scheme \
                        and name_value.end_mark.line == name_key.start_mark.line:
                    return name_key.start_mark.line, name_key.start_mark.column
    return None, 0

