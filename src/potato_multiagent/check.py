"""``potato-multiagent check``: our config keys and every saved value of a task, in one report.

``potato validate --strict`` only sees unknown keys; it never sees ``steps_key: 3`` or a stored
value that names an agent the trace does not have. This report does, one line per finding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import List

from .types import unknown_type
from .trace import derive
from .task import Task, scheme_type

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
            findings.append(Finding(where, f"annotation_type: {unknown_type(str(scheme.get('annotation_type')))}"))
            continue
        config, problems = cls.parse_config(scheme)
        findings.extend(Finding(where, problem) for problem in problems)
        if config is not None:
            configs[name] = (cls, config)
    if configs:
        findings.extend(numbering_findings(task, {config.steps_key for _, config in configs.values()}))
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


NUMBERING_RULE = "our widgets and exports number every step #N = its index + 1"


def numbering_findings(task: Task, our_steps_keys: set) -> List[Finding]:
    """Warnings for displays on the same page that number steps another way than our ``#N``.

    Potato's ``agent_trace`` numbers only its action and thought steps, with a counter of its own
    (on by default), so on a Who&When run its "#19" can be our #36; ``trajectory_eval`` says
    "Step N" over the list at its own ``steps_key``.
    """
    findings = []
    display = task.config.get("instance_display")
    fields = display.get("fields") if isinstance(display, dict) else None
    for field in fields if isinstance(fields, list) else []:
        if not isinstance(field, dict) or field.get("type") != "agent_trace":
            continue
        options = field.get("display_options") if isinstance(field.get("display_options"), dict) else {}
        if options.get("show_step_numbers", True) is not False:
            findings.append(Finding(
                f"config / instance_display / {field.get('key')}",
                "agent_trace numbers only its action and thought steps, with a counter of its own, while "
                f"{NUMBERING_RULE}; set display_options: {{show_step_numbers: false}} so the page shows one "
                "numbering", level="warning"))
    for scheme in task.all_schemes():
        steps_key = str(scheme.get("steps_key") or "steps")
        if scheme.get("annotation_type") == "trajectory_eval" and our_steps_keys - {steps_key}:
            ours = ", ".join(repr(key) for key in sorted(our_steps_keys))
            findings.append(Finding(
                f"config / {scheme.get('name', '?')}",
                f"trajectory_eval numbers the steps of {steps_key!r} (Step N), our schemes those of {ours}: the "
                f"same number names different steps; give it steps_key: {sorted(our_steps_keys)[0]}",
                level="warning"))
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
    """``(exit code, report lines)``: 1 when any error (not warning) was found. A task that cannot
    be read raises :class:`TaskError` (or ``files.PathError``) for the command to report."""
    findings = check_task(Task(config_path))
    errors = [finding for finding in findings if finding.level == "error"]
    summary = f"{len(errors)} problem(s), {len(findings) - len(errors)} warning(s)"
    return (1 if errors else 0), [str(finding) for finding in findings] + [summary]


def _has_trace_view(config: dict) -> bool:
    from .trace_view import trace_fields

    return bool(trace_fields(config))
