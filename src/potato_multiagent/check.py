"""``potato-multiagent check``: our config keys and every saved value of a task, in one report.

``potato validate --strict`` only sees unknown keys; it never sees ``steps_key: 3`` or a stored
value that names an agent the trace does not have. This report does, one line per finding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import List

from .schemes import SCHEMES
from .trace import derive
from .task import Task, TaskError, scheme_type

PLUGIN_NAME = "multiagent"


@dataclass(frozen=True)
class Finding:
    where: str
    message: str
    level: str = "error"

    def __str__(self) -> str:
        prefix = "warning: " if self.level == "warning" else ""
        return f"{self.where}: {prefix}{self.message}"


def check_config(task: Task) -> tuple[List[Finding], dict]:
    """Findings for our schemes' configs, and the parsed config of every good scheme by name."""
    findings, configs = [], {}
    plugins = task.config.get("plugins") or []
    if (task.our_schemes() or _has_trace_view(task.config)) and PLUGIN_NAME not in plugins:
        findings.append(Finding("config", f"plugins does not list '{PLUGIN_NAME}'"))
    for scheme in task.our_schemes():
        name = scheme.get("name", "?")
        where = f"config / {name}"
        cls = scheme_type(scheme)
        if cls is None:
            known = ", ".join(sorted(SCHEMES))
            findings.append(Finding(where, f"annotation_type: {scheme.get('annotation_type')!r} is not "
                                           f"provided by this plugin (known: {known})"))
            continue
        config, problems = cls.parse_config(scheme)
        findings.extend(Finding(where, problem) for problem in problems)
        if config is not None:
            configs[name] = (cls, config)
    findings.extend(trace_view_findings(task.config))
    return findings, configs


def trace_view_findings(config: dict) -> List[Finding]:
    """The ``multiagent.trace`` display fields' keys (docs/trace-view.md), one finding per bad key."""
    from .trace_view import parse_trace_view_config, trace_fields

    findings = []
    for position, field in trace_fields(config):
        _, problems = parse_trace_view_config(field)
        where = f"config / instance_display.fields[{position}]"
        findings.extend(Finding(where, problem) for problem in problems)
    return findings


def check_task(task: Task) -> List[Finding]:
    """Every finding of the task: config first, then saved values by user and instance."""
    findings, configs = check_config(task)
    records = task.records()
    derivations: dict = {}  # (instance, options) -> derivation: each record is derived once per options
    for saved in task.saved_values():
        where = f"{saved.instance_id} / {saved.user} / {saved.scheme}"
        if saved.scheme not in configs:
            continue  # its config finding already says why it cannot be checked
        if saved.instance_id not in records:
            findings.append(Finding(where, "the instance is not in the task's data files"))
            continue
        cls, config = configs[saved.scheme]
        options = config.derive_options()
        key = (saved.instance_id, json.dumps(options, sort_keys=True))
        if key not in derivations:
            derivations[key] = derive(records[saved.instance_id], **options)
        problems = cls.validate(saved.value, records[saved.instance_id], config, derivations[key])
        findings.extend(Finding(where, problem) for problem in problems)
        if saved.hidden and saved.value not in (None, ""):
            findings.append(Finding(where, "saved while display_logic hides this scheme; kept, but left "
                                           "out of export and agreement", level="warning"))
    return findings


def run_check(config_path: str) -> tuple[int, List[str]]:
    """``(exit code, report lines)``: 1 when any error (not warning) was found."""
    try:
        findings = check_task(Task(config_path))
    except TaskError as error:
        return 1, [f"error: {error}"]
    errors = [finding for finding in findings if finding.level == "error"]
    summary = f"{len(errors)} problem(s), {len(findings) - len(errors)} warning(s)"
    return (1 if errors else 0), [str(finding) for finding in findings] + [summary]


def _has_trace_view(config: dict) -> bool:
    from .trace_view import trace_fields

    return bool(trace_fields(config))
