"""A batch: one method over many runs, written run by run so an interrupted batch resumes.

Two files. The judgments file (``-o``) holds one judgments line per judged run, in the format
every command reads (docs/judgments.md), with a ``run`` object saying how it was made (method,
model, endpoint, prompt version, calls, tokens, seconds; confidence and suggested fix when the
method gives them). The run log beside it (``NAME.runs.jsonl``) holds one line per run tried:
its status (``judged``, ``unparseable`` with every raw answer, ``refused`` with why, ``failed``
with the endpoint's error) and the same figures. A run judged, unparseable or refused is skipped
when the batch runs again; a failed one (the endpoint did not answer) is tried again.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from ..trace import derive
from ..types import scheme_for, validate_value
from . import prompts
from .methods import METHODS, Answer, Ledger, Refused, Run, Settings, Unparseable
from .model import ModelError

FINAL = ("judged", "unparseable", "refused")
FAILURES_IN_A_ROW = 3
"""Failed runs in a row that stop the batch: the endpoint is down, and every other run would fail too."""
PROBLEM_KEYS = ("question", "task", "query", "problem", "prompt", "instruction", "goal")
"""Record fields read, in this order, for the problem the run was to solve (``--task-key`` picks one)."""
REFERENCE_KEYS = ("ground_truth", "answer", "reference")
"""Gold fields read, in this order, for the reference answer (``--reference GOLD``)."""


@dataclass
class Batch:
    method: str
    source: str
    scheme: Mapping[str, Any]
    """The judged scheme's config (its derive options and name; for ``mast``, its taxonomy)."""
    settings: Settings
    show: bool = True
    problem_key: Optional[str] = None
    references: Optional[Mapping[str, Any]] = None
    """Gold objects by id (``--reference``); None: the prompts give no reference answer."""
    id_key: str = "id"


@dataclass
class Summary:
    counts: Dict[str, int] = field(default_factory=lambda: {"judged": 0, "unparseable": 0, "refused": 0,
                                                              "failed": 0, "skipped": 0})
    lines: List[str] = field(default_factory=list)
    """One line per run that did not end judged, naming it."""


def log_path(out: Path) -> Path:
    """``judgments.jsonl`` -> ``judgments.runs.jsonl``."""
    name = out.name[:-len(".jsonl")] if out.name.endswith(".jsonl") else out.name
    return out.with_name(f"{name}.runs.jsonl")


def run_batch(batch: Batch, records: Iterable[dict], out: Path,
              progress: Callable[[str], None] = lambda line: None) -> Summary:
    """Judge every record not already done; each result is on disk before the next run starts."""
    log = log_path(out)
    done = _done(out, log, batch)
    summary = Summary()
    config, problems = scheme_for(str(batch.scheme["annotation_type"])).parse_config(dict(batch.scheme))
    if config is None:
        raise ValueError(f"scheme {batch.scheme.get('name')!r}: {'; '.join(problems)}")
    options = config.derive_options()
    failed_in_a_row = 0
    for record in records:
        record_id = str(record.get(batch.id_key))
        if record_id in done:
            summary.counts["skipped"] += 1
            continue
        if failed_in_a_row >= FAILURES_IN_A_ROW:
            summary.counts["not tried"] = summary.counts.get("not tried", 0) + 1
            continue
        status, entry = _judge_one(batch, record, record_id, config, options)
        if status == "judged":
            _append(out, entry["judgment"])
        _append(log, entry["log"])
        summary.counts[status] += 1
        failed_in_a_row = failed_in_a_row + 1 if status == "failed" else 0
        if status != "judged":
            summary.lines.append(f"{status}: {record_id}: {entry['log'].get('problem', '')}")
        progress(f"{record_id}: {status}")
    if summary.counts.get("not tried"):
        summary.lines.append(f"stopped after {FAILURES_IN_A_ROW} runs in a row failed at the endpoint; "
                             f"{summary.counts['not tried']} run(s) not tried")
    return summary


def _judge_one(batch: Batch, record: dict, record_id: str, config: Any, options: dict) -> Tuple[str, dict]:
    ledger = Ledger()
    taxonomy = config.taxonomy_model() if hasattr(config, "taxonomy_model") else None
    run_info: Dict[str, Any] = {"method": batch.method, "model": batch.settings.model.name,
                                "endpoint": batch.settings.model.endpoint_type,
                                "prompt_version": prompts.prompt_version(batch.method, taxonomy)}
    log: Dict[str, Any] = {"id": record_id, "scheme": str(batch.scheme.get("name")), "source": batch.source,
                           **run_info}
    try:
        derivation = derive(record, **options)
        if not derivation.steps:
            raise Refused("the run has no steps")
        text = prompts.run_text(derivation, _problem(record, batch.problem_key), _reference(batch, record_id))
        answer: Answer = METHODS[batch.method](Run(record_id, derivation, text, config), batch.settings,
                                                       ledger)
        problems = validate_value(str(batch.scheme["annotation_type"]), dict(batch.scheme), answer.value, record)
        if problems:
            raise Unparseable("; ".join(problems))
        status = "judged"
    except Unparseable as error:
        status, log["problem"] = "unparseable", str(error)
    except Refused as error:
        status, log["problem"] = "refused", str(error)
    except ModelError as error:
        status, log["problem"] = "failed", str(error)
    except Exception as error:  # noqa: BLE001 - one run's surprise never ends the batch; it is retried
        status, log["problem"] = "failed", f"unexpected {type(error).__name__}: {error}"
    figures = {"calls": ledger.calls, "input_tokens": ledger.input_tokens, "output_tokens": ledger.output_tokens,
               "seconds": round(ledger.seconds, 3)}
    log.update(status=status, **figures, answers=ledger.answers)
    entry: Dict[str, Any] = {"log": log}
    if status == "judged":
        log["value"] = answer.value
        log.update(answer.details)
        judgment = {"id": record_id, "scheme": log["scheme"], "source": batch.source, "value": answer.value}
        if not batch.show:
            judgment["show"] = False
        judgment["run"] = {**run_info, **figures, **answer.details}
        entry["judgment"] = judgment
    return status, entry


def _problem(record: dict, key: Optional[str]) -> str:
    for name in ([key] if key else PROBLEM_KEYS):
        value = record.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _reference(batch: Batch, record_id: str) -> Optional[str]:
    if batch.references is None:
        return None
    gold = batch.references.get(record_id) or {}
    for key in REFERENCE_KEYS:
        if gold.get(key) not in (None, ""):
            value = gold[key]
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return None


# --------------------------------------------------------------------------- files


def _append(path: Path, entry: dict) -> None:
    """One line, flushed to disk before the batch goes on (a kill loses at most the run in progress)."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def _lines(path: Path) -> List[dict]:
    """The whole lines of a file this batch wrote; a last line cut off by a kill is removed."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        kept = text[:text.rfind("\n") + 1]
        path.write_text(kept, encoding="utf-8")
        text = kept
    entries = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def _done(out: Path, log: Path, batch: Batch) -> Set[str]:
    """Ids this source has already judged for this scheme, or ended unparseable or refused."""
    scheme = str(batch.scheme.get("name"))
    mine = lambda entry: entry.get("scheme") == scheme and entry.get("source") == batch.source  # noqa: E731
    done = {str(entry.get("id")) for entry in _lines(out) if mine(entry)}
    done |= {str(entry.get("id")) for entry in _lines(log) if mine(entry) and entry.get("status") in FINAL}
    return done
