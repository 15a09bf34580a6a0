"""Task folders and Potato servers for the measured pages.

Every page is a task folder holding one record and one config; ours and the built-in differ only
in `annotation_schemes`. Both load the plugin (so the same scripts reach both pages) and show the
same `instance_display` (the record's one-line `task`; the 5,000-step trace itself is not drawn
by a display, which would cost both sides the same and hide the widgets' difference).

Servers are started with `tests/e2e/harness.py`, on ports from the bench's own range (9750-9799).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import yaml

from tests.e2e import harness

from .scenarios import Scenario

PORTS = range(9750, 9800)
TASK_NAME_PREFIX = "potato-ma-bench"
CONFIG_FILE = "config.yaml"
DATA_FILE = "data/records.jsonl"


@dataclass
class PageSpec:
    """One measured page: its schemes and how to tell when it is ready."""

    label: str                                  # "failure_attribution ours", "all built-in"
    schemes: List[Dict[str, Any]]               # Potato scheme dicts
    marks: List[str] = field(default_factory=list)               # our schemes' ready marks
    builtin_items: List[Dict[str, Any]] = field(default_factory=list)  # [{selector, count}]
    trace_view: bool = False                    # shows our trace view (probe.js watches its rows)

    @property
    def owners(self) -> List[str]:
        """Who registers the page's widget listeners (probe.js's `owner`): our runtime (the bundle's
        core part), or each built-in's inline script by its schema name."""
        if self.marks:
            return ["core"]
        return [f"schema:{scheme['name']}" for scheme in self.schemes]

    @property
    def slug(self) -> str:
        return "-".join(self.label.split())


def ours_scheme(entry: Scenario) -> Dict[str, Any]:
    return {"annotation_type": entry.type_name, "name": entry.scheme_name,
            "description": f"{entry.widget} (ours)", **entry.ours.keys}


def builtin_scheme(entry: Scenario) -> Dict[str, Any]:
    return {"annotation_type": entry.builtin.annotation_type, "name": entry.scheme_name,
            "description": f"{entry.widget} (Potato built-in)", **entry.builtin.keys}


def form_selector(entry: Scenario) -> str:
    return f'form.annotation-form[data-schema-name="{entry.scheme_name}"]'


def ours_page(label: str, entries: List[Scenario]) -> PageSpec:
    return PageSpec(label, [ours_scheme(entry) for entry in entries],
                    marks=[f"multiagent:ready:{entry.scheme_name}" for entry in entries])


def builtin_page(label: str, entries: List[Scenario], record: Dict[str, Any]) -> PageSpec:
    items = [{"selector": f"{form_selector(entry)} {entry.builtin.item}", "count": entry.builtin.items(record)}
             for entry in entries]
    return PageSpec(label, [builtin_scheme(entry) for entry in entries], builtin_items=items)


TASK_DISPLAY = {"fields": [{"key": "task", "type": "text", "label": "Task"}]}


def write_task(folder: Path, spec: PageSpec, record: Dict[str, Any], name_prefix: str = TASK_NAME_PREFIX,
               instance_display: Optional[Dict[str, Any]] = None, plugins: Sequence[str] = ("multiagent",)) -> Path:
    """A task folder serving `record` with the page's schemes (by default the record's one-line
    task shown, our plugin loaded); returns the folder."""
    (folder / DATA_FILE).parent.mkdir(parents=True, exist_ok=True)
    (folder / DATA_FILE).write_text(json.dumps(record) + "\n", encoding="utf-8")
    config = {
        # Potato writes the generated page to a file named after the task: one name per page.
        "annotation_task_name": f"{name_prefix} {spec.label}",
        "task_dir": ".",
        "data_files": [DATA_FILE],
        "item_properties": {"id_key": "id", "text_key": "task"},
        "output_annotation_dir": "annotation_output",
        "plugins": list(plugins),
        "require_password": False,
        "instance_display": instance_display or TASK_DISPLAY,
        "annotation_schemes": spec.schemes,
    }
    (folder / CONFIG_FILE).write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return folder


def start_server(folder: Path, timeout: float = harness.SERVER_START_TIMEOUT_S,
                 env: Optional[Mapping[str, str]] = None) -> harness.PotatoTask:
    """`potato start` on the task folder (the harness's start_potato), on a port of `PORTS`; `env`:
    more environment variables for the server (bench.versus: another checkout's plugin).

    Other runs of the bench may be starting servers in the same range: the harness draws the port
    at random, accepts a server only when it owns its port, and tries another port when it does not.
    """
    return harness.start_potato(folder, CONFIG_FILE, timeout=timeout, ports=PORTS, env=env)
