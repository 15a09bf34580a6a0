"""Converters: traces from real frameworks into records our schemes read natively (SPEC §3).

``potato-multiagent convert --from FORMAT INPUT... -o records.jsonl [--gold gold.jsonl]``. Each
format is one module with ``convert_file(path, items)``; step k of the source is step k of the
record, so step indices in gold labels stay valid. Ground truth never enters a record (every record
field reaches the annotator's page source): it goes to the gold file as ``{"id", "gold"}`` lines.
A record that cannot be read is named (file:line, field, why) and left out, and the rest are
written; ``strict`` restores all-or-nothing. Each output appears whole (temp file, rename).
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Dict, Iterable, List, Optional, Sequence

from . import adk, autogen, crewai, detect, dpbench, langgraph, mast, openai_agents, openinference, otel_genai, \
    pydantic_ai, side_gold, who_and_when
from ..files import PathError, why_not
from .detect import AUTO, WrongFormat
from .side_gold import LabelSource
from .sources import Converted, ConvertError, Item, collect, each_item, input_files, read_items

FORMATS: Dict[str, ModuleType] = {
    "who-and-when": who_and_when,
    "autogen": autogen,
    "openai-agents": openai_agents,
    "otel-genai": otel_genai,
    "dpbench": dpbench,
    "mast": mast,
    "openinference": openinference,
    "langgraph": langgraph,
    "crewai": crewai,
    "adk": adk,
    "pydantic-ai": pydantic_ai,
}
"""Every format by its ``--from`` name; each module has ``SUMMARY`` and ``convert_file``."""


@dataclass(frozen=True)
class Conversion:
    records: List[dict]
    gold: List[dict]
    """``{"id": ..., "gold": {...}}`` for every record whose source carries ground truth."""
    skipped: List[ConvertError] = field(default_factory=list)
    """What could not be read and was left out, each naming file, line and field (never with strict)."""
    warnings: List[str] = field(default_factory=list)
    """What a task author should know about records that were converted."""
    recognised: List[tuple] = field(default_factory=list)
    """``--from auto``: ``(format, what the files look like, how many files)`` per format read."""
    layouts: Dict[str, Optional[str]] = field(default_factory=dict)
    """For text sources (MAST logs), per record id: the layout its text was split by, or None when
    it was kept as one step; ``fallbacks`` says why for those."""
    fallbacks: Dict[str, str] = field(default_factory=dict)
    labelled: Optional[int] = None
    """With labels from a side file (``--gold-from``): how many runs got one; None without."""
    unlabelled: List[str] = field(default_factory=list)
    """With ``--gold-from``: ids of the runs no label named."""
    unmatched_labels: List[str] = field(default_factory=list)
    """With ``--gold-from``: ``FILE:LINE: name`` of the labels that name no run."""


def convert_inputs(format_name: str, inputs: Sequence[Path], strict: bool = True,
                   labels: Optional[LabelSource] = None) -> Conversion:
    """Convert every input file (a folder stands for its JSON files).

    ``strict``: raise on the first problem. Otherwise a record, line or file that cannot be read
    is left out and listed in ``skipped``, and everything else converts. A file of another
    format's shape is refused (:class:`detect.WrongFormat`, whatever ``strict`` says); with
    ``format_name`` ``auto`` each file is read by the format its shape names (``recognised``);
    text logs are read only by a format named that reads them (``--from mast``). ``labels``: labels
    kept in a side file, joined to the runs' gold (:mod:`.side_gold`).
    """
    if format_name != detect.AUTO and format_name not in FORMATS:
        raise ValueError(f"unknown format {format_name!r} (known: {', '.join(FORMATS)}, {detect.AUTO})")
    skipped: List[ConvertError] = []
    files = input_files(inputs, _text_suffixes(format_name))
    recognised: Dict[str, List] = {}
    if format_name == detect.AUTO:
        groups: Dict[str, List[Path]] = {}
        for path in files:
            shape = _recognised(path, None if strict else skipped)
            if shape is not None:
                groups.setdefault(shape.formats[0], []).append(path)
                recognised.setdefault(shape.formats[0], [shape.what, 0])[1] += 1
    else:
        groups = {format_name: files}
    converted: List[Converted] = []
    for name, paths in groups.items():
        converted.extend(_converted(name, paths, None if strict else skipped))
    converted = _check_records(converted, None if strict else skipped)
    joined = side_gold.join(converted, labels, None if strict else skipped) if labels is not None else None
    if joined is not None:
        converted = joined.entries
    return Conversion(records=[entry.record for entry in converted],
                      gold=[{"id": entry.record["id"], "gold": entry.gold} for entry in converted
                            if entry.gold is not None],
                      skipped=skipped, warnings=[text for entry in converted for text in entry.warnings],
                      recognised=[(name, what, count) for name, (what, count) in recognised.items()],
                      layouts={entry.record["id"]: entry.layout for entry in converted
                               if entry.layout is not None or entry.fallback is not None},
                      fallbacks={entry.record["id"]: entry.fallback for entry in converted
                                 if entry.fallback is not None},
                      labelled=joined.labelled if joined is not None else None,
                      unlabelled=joined.unlabelled if joined is not None else [],
                      unmatched_labels=joined.unmatched if joined is not None else [])


def _text_suffixes(format_name: str) -> tuple:
    """The text logs a format reads besides JSON (none for ``auto``: logs need their format named)."""
    return getattr(FORMATS.get(format_name), "TEXT_SUFFIXES", ())


def _recognised(path: Path, skipped: Optional[List[ConvertError]]):
    """The shape ``auto`` reads a file as (a file that is not JSON at all is skipped when not strict)."""
    try:
        items = _read(path, [])
    except ConvertError as error:
        if skipped is None:
            raise
        skipped.append(error)
        return None
    return detect.choose(path, items)


def _converted(format_name: str, files: Sequence[Path], skipped: Optional[List[ConvertError]]) -> List[Converted]:
    module = FORMATS[format_name]
    converted: List[Converted] = []
    if hasattr(module, "convert_files"):  # span formats: one trace's spans may sit in several exporter batches
        _convert_all_files(format_name, files, converted, skipped)
    else:
        for path in files:
            _convert_one_file(format_name, path, converted, skipped)
    return converted


def _items(format_name: str, path: Path, skipped: Optional[List[ConvertError]]) -> List[Item]:
    """The file's items, once its shape is known not to be another format's."""
    items = _read(path, skipped, _text_suffixes(format_name))
    detect.check(format_name, path, items)
    return items


def _read(path: Path, skipped: Optional[List[ConvertError]], text_suffixes: Sequence[str] = ()) -> List[Item]:
    """The items of a file; AG2's runtime log mixes its own text lines with the JSON lines."""
    runtime_log = autogen.runtime_log_items(path)
    return runtime_log if runtime_log is not None else read_items(path, skipped, text_suffixes)


def _convert_one_file(format_name: str, path: Path, converted: List[Converted],
                      skipped: Optional[List[ConvertError]]) -> None:
    """Append the file's records; with ``skipped`` (not strict) each unreadable part goes there instead.

    A converter yields a record's error in place of the record (``each_item``) when its records are
    independent; an error it raises stops the rest of that file (span formats build a trace from all
    of a file's spans), never the other files.
    """
    def records():
        yield from FORMATS[format_name].convert_file(path, _items(format_name, path, skipped))

    converted.extend(collect(records(), skipped))


def _convert_all_files(format_name: str, files: Sequence[Path], converted: List[Converted],
                       skipped: Optional[List[ConvertError]]) -> None:
    """Span formats read every file at once (a trace's spans may sit in several exporter batches):
    a bad JSON line is skipped (not strict), while a file that cannot be read as a whole, or an
    error while building the traces, costs all of them (they may share traces)."""
    def records():
        yield from FORMATS[format_name].convert_files([(path, _items(format_name, path, skipped)) for path in files])

    converted.extend(collect(records(), skipped))


def write_conversion(conversion: Conversion, records_path: Path, gold_path: Optional[Path]) -> None:
    """Write the records (and the gold lines) so that each file appears complete or not at all."""
    outputs = [(records_path, conversion.records)]
    if gold_path is not None:
        outputs.append((gold_path, conversion.gold))
    staged: List[tuple] = []
    try:
        for path, rows in outputs:
            staged.append((_stage_jsonl(path, rows), path))
        for temporary, final in staged:
            try:
                os.replace(temporary, final)
            except OSError as error:
                raise PathError(final, why_not(error)) from None
    finally:  # a staged file never outlives the command, whatever failed
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)


def _stage_jsonl(path: Path, rows: Iterable[dict]) -> Path:
    """Write ``rows`` to a new hidden file beside ``path`` (created as any new file, umask applies)."""
    if path.is_dir():
        raise PathError(path, "is a folder; give a file name")
    staged = path.parent / f".{path.name}.{uuid.uuid4().hex}.tmp"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(staged, "x", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
    except BaseException as error:
        with contextlib.suppress(OSError):
            staged.unlink(missing_ok=True)
        if isinstance(error, OSError) and not isinstance(error, PathError):
            raise PathError(path, why_not(error)) from None
        raise
    return staged


def _check_records(converted: List[Converted], skipped: Optional[List[ConvertError]]) -> List[Converted]:
    """The records whose id is new across every input and which are strict JSON (the first keeps an id)."""
    first_seen: Dict[str, Item] = {}
    kept: List[Converted] = []
    for entry in converted:
        try:
            record_id = entry.record["id"]
            if record_id in first_seen:
                earlier = first_seen[record_id]
                raise entry.item.error("id", f"{record_id!r} is already the id of the record from "
                                             f"{earlier.path}:{earlier.line}")
            _check_strict_json(entry)
        except ConvertError as error:
            if skipped is None:
                raise
            skipped.append(error)
            continue
        first_seen[record_id] = entry.item
        kept.append(entry)
    return kept


def _check_strict_json(entry: Converted) -> None:
    """Records (and gold) are strict JSON (SPEC §3): NaN and Infinity, which Python's json reads, are refused."""
    try:
        json.dumps([entry.record, entry.gold], allow_nan=False)
    except ValueError:
        raise entry.item.error("item", "holds NaN or Infinity, which JSON does not allow") from None


__all__ = ["AUTO", "FORMATS", "WrongFormat", "Conversion", "ConvertError", "Converted", "Item", "LabelSource",
           "convert_inputs", "write_conversion"]
