"""The one hostile record and the seven hostile schemes, as Potato task files.

`record.json` and `schemes.yaml` hold the payloads; a string `"@big:NAME@"` stands for a 100 KB
string made here, so the repository stays small. Every payload calls `window.__fire(MARKER)` (and
sets `window.__pwned`): the page's init script (`FIRE_PROBE`) records which markers ran, so a page
with our widgets can be compared with a Potato page without them.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
BIG_SIZE = 100_000
BIG_PLACEHOLDER = re.compile(r"@big:([a-z-]+)@")
# Repeated to fill a big string: every kind of payload, and no digits, so that a `49` on the page
# can only come from an evaluated `{{ 7*7 }}`.
BIG_CHUNK = ("{{ 7*7 }} {# <script>window.__pwned=1,__fire('big-script')</script> \" onmouseover=\"window.__pwned=1 "
             "'><img src=x onerror=window.__pwned=1,__fire('big-img')> -> \u202e\u200b ")

FIRE_PROBE = """
window.__fired = [];
window.__fire = (marker) => { window.__fired.push(marker); };
"""

RECORD_ID = "hostile-run"
DATA_FILE = "data/hostile.jsonl"
CONFIG_FILE = "hostile.yaml"


def big(name: str, size: int = BIG_SIZE) -> str:
    """A 100 KB string (or `size` characters) starting with `big NAME:` (so each one is told
    apart) made of payloads."""
    head = f"big {name}: "
    body = BIG_CHUNK * (size // len(BIG_CHUNK) + 1)
    return (head + body)[:size]


def _expand(data: Any, size: int) -> Any:
    if isinstance(data, str):
        match = BIG_PLACEHOLDER.fullmatch(data)
        return big(match.group(1), size) if match else data
    if isinstance(data, list):
        return [_expand(item, size) for item in data]
    if isinstance(data, dict):
        return {key: _expand(value, size) for key, value in data.items()}
    return data


def record(big_size: int = BIG_SIZE) -> dict:
    """The hostile record, big strings expanded to `big_size` characters (100 KB unless told:
    the contract test uses short ones, the pages of big strings are test_hostile_input's)."""
    return _expand(json.loads((HERE / "record.json").read_text(encoding="utf-8")), big_size)


def schemes(big_size: int = BIG_SIZE) -> list[dict]:
    """The seven schemes, in the page's order, big strings expanded to `big_size` characters."""
    return _expand(yaml.safe_load((HERE / "schemes.yaml").read_text(encoding="utf-8")), big_size)


def scheme(name: str, big_size: int = BIG_SIZE) -> dict:
    return next(item for item in schemes(big_size) if item["name"] == name)


TEXT_DISPLAY = [{"key": "task", "type": "text", "label": "Task"}]
TRACE_DISPLAY = TEXT_DISPLAY + [{"key": "steps", "type": "agent_trace", "label": "Run",
                                 "display_options": {"show_step_numbers": True, "speaker_key": "agent",
                                                     "text_key": "content"}}]


def task_config(title: str, annotation_schemes: list[dict], display: list[dict] = TEXT_DISPLAY,
                plugins: tuple[str, ...] = ("multiagent",)) -> str:
    """A Potato config serving the hostile record with `annotation_schemes` under `display`
    (`plugins=()` serves a page on which none of our code runs)."""
    config = {
        "annotation_task_name": f"hostile: {title} {uuid.uuid4().hex[:8]}",
        "task_dir": ".",
        "data_files": [DATA_FILE],
        "item_properties": {"id_key": "id", "text_key": "task"},
        "output_annotation_dir": "annotation_output",
        "plugins": list(plugins),
        "require_password": False,
        "instance_display": {"fields": display},
        "annotation_schemes": annotation_schemes,
    }
    return yaml.safe_dump(config, allow_unicode=True, sort_keys=False, width=float("inf"))


# A second, harmless run (also the run broken stored values are seeded on): with one instance,
# one saved answer finishes the task and /annotate shows Potato's "Thank you" page instead.
PLAIN_ID = "plain-run"
PLAIN_RECORD = {
    "id": PLAIN_ID, "task": "A plain run",
    "steps": [{"agent": "Planner", "content": "plan"},
              {"agent": "Coder", "content": "code",
               "tool_calls": [{"id": "c1", "function": {"name": "run", "arguments": "{}"}}]},
              {"agent": "Reviewer", "content": "review"}],
    "calls": [{"agent": "Planner", "tool": "read", "resource": "db", "start": 0, "end": 10},
              {"agent": "Coder", "tool": "write", "resource": "db", "start": 5, "end": 15}],
}


def task_files(config_text: str, big_size: int = BIG_SIZE) -> dict[str, str]:
    """The files a `potato_task(...)` copy needs: the config, and the data (the hostile record
    first, its big strings `big_size` characters long)."""
    lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in (record(big_size), PLAIN_RECORD))
    return {CONFIG_FILE: config_text, DATA_FILE: lines}
