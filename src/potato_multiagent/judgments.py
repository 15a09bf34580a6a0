"""Judgments: other answers (an LLM judge, a baseline, other annotators) beside the annotator's own.

A judgments file is JSON Lines, one judgment a line::

    {"id": "run-7", "scheme": "attribution", "source": "gpt-4o judge", "value": {...}}
    {"id": "run-7", "scheme": "attribution", "source": "baseline", "value": {...}, "show": false}

``scheme`` names a scheme of the task's config; ``value`` is in that scheme's stored shape (an
object, or the JSON text Potato would store) and is checked by the same ``validate_value`` as an
annotator's saved value, against the record and the scheme's config. ``show`` (default true) says
whether the judgment goes into the record, where the page can show it; a judgment with
``"show": false`` is for evaluation only (``agreement --judgments``) and never enters a record,
since every record field reaches the annotator's browser. ``run`` (optional, an object) says how a
judge made it (``potato-multiagent judge`` writes method, model, prompt version, calls, tokens,
seconds); it is kept with the judgment and never enters a record.

In a record, the shown judgments sit under one key (default ``judgments``)::

    "judgments": {"attribution": [{"source": "gpt-4o judge", "value": {...}}]}

The derivation reads only ``steps_key`` and ``calls_key``, so this key is never a step; a key
that would be read as steps or calls is refused.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from .types import scheme_for, validate_value
from .trace.jsjson import StrictJSONError, strict_loads

DEFAULT_KEY = "judgments"
FIELDS = ("id", "scheme", "source", "value", "show", "run")


class JudgmentError(Exception):
    """Judgments that cannot be used; ``problems`` holds one line per bad line (file:line: field: why)."""

    def __init__(self, problems: Sequence[str]):
        super().__init__("\n".join(problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class Judgment:
    id: str
    scheme: str
    source: str
    value: Any
    """The parsed stored value (an object or a list)."""
    show: bool = True
    where: str = ""
    """``file:line`` it was read from, for messages."""
    run: Optional[dict] = None
    """How a judge made it (``judge`` writes it), or None."""

    def entry(self) -> dict:
        """What a record carries for it."""
        return {"source": self.source, "value": self.value}


# --------------------------------------------------------------------------- reading


def read_judgments(path: Path) -> List[Judgment]:
    """Every judgment of a file; :class:`JudgmentError` names each bad line (all of them, not the first)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise JudgmentError([f"{path}: cannot read the judgments file ({error})"]) from None
    judgments, problems = [], []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            judgments.append(_judgment(line, where))
        except ValueError as error:
            problems.append(f"{where}: {error}")
    if problems:
        raise JudgmentError(problems)
    return judgments


def _judgment(line: str, where: str) -> Judgment:
    try:
        entry = strict_loads(line)
    except StrictJSONError as error:
        raise ValueError(f"line: not a JSON line ({error})") from None
    if not isinstance(entry, dict):
        raise ValueError("line: expected an object {id, scheme, source, value}")
    unknown = sorted(set(entry) - set(FIELDS))
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown field (known: {', '.join(FIELDS)})")
    record_id = entry.get("id")
    if isinstance(record_id, bool) or not isinstance(record_id, (str, int)):
        raise ValueError("id: expected the record's id (a string)")
    for field in ("scheme", "source"):
        if not isinstance(entry.get(field), str) or not entry[field].strip():
            raise ValueError(f"{field}: expected a non-empty string")
    if "value" not in entry or entry["value"] is None:
        raise ValueError("value: missing (the judgment's answer, in the scheme's stored shape)")
    value = entry["value"]
    if isinstance(value, str):
        try:
            value = strict_loads(value)
        except StrictJSONError as error:
            raise ValueError(f"value: not valid JSON text ({error})") from None
    show = entry.get("show", True)
    if not isinstance(show, bool):
        raise ValueError("show: expected true or false")
    run = entry.get("run")
    if run is not None and not isinstance(run, dict):
        raise ValueError("run: expected an object (how the judge made it)")
    return Judgment(str(record_id), entry["scheme"], entry["source"], value, show, where, run)


# --------------------------------------------------------------------------- checking


def check_judgments(judgments: Iterable[Judgment], schemes: Mapping[str, dict],
                    records: Mapping[str, Any]) -> List[str]:
    """One problem per bad judgment: an unknown scheme or record, a repeated (id, scheme, source),
    or a value the scheme's ``validate_value`` rejects for that record."""
    problems, seen = [], {}
    for judgment in judgments:
        scheme = schemes.get(judgment.scheme)
        if scheme is None:
            known = ", ".join(schemes) or "none"
            problems.append(f"{judgment.where}: scheme: {judgment.scheme!r} is not a multiagent scheme of the "
                            f"config (known: {known})")
            continue
        if judgment.id not in records:
            problems.append(f"{judgment.where}: id: {judgment.id!r} is not a record of the data")
            continue
        identity = (judgment.id, judgment.scheme, judgment.source)
        if identity in seen:
            problems.append(f"{judgment.where}: source: {judgment.source!r} already judged {judgment.scheme!r} "
                            f"of {judgment.id!r} at {seen[identity]}")
            continue
        seen[identity] = judgment.where
        for problem in validate_value(str(scheme["annotation_type"]), scheme, judgment.value, records[judgment.id]):
            problems.append(f"{judgment.where}: {_value_field(problem)}")
    return problems


def _value_field(problem: str) -> str:
    """``responsible_agent: ...`` -> ``value.responsible_agent: ...`` (the field inside the line)."""
    if problem.startswith("value") or problem.startswith("config:"):
        return problem
    return f"value{problem}" if problem.startswith("[") else f"value.{problem}"


def our_schemes(config: Mapping[str, Any]) -> Dict[str, dict]:
    """The config's multiagent schemes with a type this plugin provides, by name."""
    found = {}
    for scheme in config.get("annotation_schemes") or []:
        if not isinstance(scheme, dict) or not str(scheme.get("annotation_type", "")).startswith("multiagent."):
            continue
        try:
            scheme_for(str(scheme["annotation_type"]))
        except KeyError:
            continue
        found[str(scheme.get("name"))] = scheme
    return found


def check_key(key: str, schemes: Mapping[str, dict]) -> Optional[str]:
    """Why ``key`` cannot hold judgments (it would be read as a scheme's steps or calls), or None."""
    if not key or not key.strip():
        return "--judgments-key: expected a non-empty field name"
    for name, scheme in schemes.items():
        for option in ("steps_key", "calls_key"):
            path = str(scheme.get(option) or option.split("_")[0])
            if path.split(".")[0] == key.split(".")[0]:
                return (f"--judgments-key: {key!r} is where scheme {name!r} reads its {option.split('_')[0]} "
                        f"({option}: {path}); choose another key")
    return None


# --------------------------------------------------------------------------- placing


def place_judgments(records: Sequence[dict], judgments: Iterable[Judgment], key: str = DEFAULT_KEY,
                    id_key: str = "id") -> List[dict]:
    """Copies of ``records`` carrying their shown judgments under ``key`` (``{scheme: [entry]}``).

    Judgments with ``show`` false stay out. A record that already has judgments under ``key``
    keeps them (new ones are added after); one whose ``key`` holds anything else is an error.
    """
    by_record: Dict[str, List[Judgment]] = {}
    for judgment in judgments:
        if judgment.show:
            by_record.setdefault(judgment.id, []).append(judgment)
    placed = []
    for record in records:
        shown = by_record.get(str(record.get(id_key)))
        if not shown:
            placed.append(record)
            continue
        record = copy.deepcopy(record)
        existing = record.get(key, {})
        if not _is_judgments(existing):
            raise JudgmentError([f"record {record.get(id_key)!r}: {key}: the record already has this field and it "
                                 f"does not hold judgments; choose another --judgments-key"])
        for judgment in shown:
            existing.setdefault(judgment.scheme, []).append(judgment.entry())
        record[key] = existing
        placed.append(record)
    return placed


def _is_judgments(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(entries, list) and all(isinstance(e, dict) and {"source", "value"} <= set(e) for e in entries)
        for entries in value.values())


def judgments_in_records(records: Mapping[str, dict], key: str = DEFAULT_KEY) -> List[Judgment]:
    """The judgments that records carry under ``key`` (as the page sees them)."""
    found = []
    for record_id, record in records.items():
        carried = record.get(key) if isinstance(record, dict) else None
        if not _is_judgments(carried):
            continue
        for scheme, entries in carried.items():
            found.extend(Judgment(record_id, scheme, str(e["source"]), e["value"], True, f"record {record_id!r}")
                         for e in entries)
    return found


def judgment_line(judgment: Judgment) -> str:
    """The JSON line of a judgment (the file format, ``show`` written only when false)."""
    entry = {"id": judgment.id, "scheme": judgment.scheme, "source": judgment.source, "value": judgment.value}
    if not judgment.show:
        entry["show"] = False
    if judgment.run is not None:
        entry["run"] = judgment.run
    return json.dumps(entry, ensure_ascii=False)


@dataclass(frozen=True)
class Attached:
    records: List[dict]
    shown: int
    evaluation_only: int


def attach_judgments(records: Sequence[dict], path: Path, schemes: Mapping[str, dict], key: str = DEFAULT_KEY,
                     id_key: str = "id") -> Attached:
    """Read, check (against ``schemes`` and these records) and place the judgments of ``path``.

    Raises :class:`JudgmentError` with every problem; nothing is placed unless every line is good.
    """
    problem = check_key(key, schemes)
    if problem:
        raise JudgmentError([problem])
    judgments = read_judgments(path)
    by_id = {str(record.get(id_key)): record for record in records if isinstance(record, dict)}
    problems = check_judgments(judgments, schemes, by_id)
    if problems:
        raise JudgmentError(problems)
    shown = sum(judgment.show for judgment in judgments)
    return Attached(place_judgments(records, judgments, key, id_key), shown, len(judgments) - shown)
