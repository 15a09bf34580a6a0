"""The ``multiagent.trace`` display: a bounded shell the browser fills in (``trace_view.js``).

The record is already in the page (Potato's ``[data-instance-json]``), so the server sends only
the options and the first window of steps (what an annotator sees before scripts run); the browser
derives with ``derive.js`` and renders only the visible steps, whatever the trace's length.
"""

from __future__ import annotations

from typing import Any, List

from potato.server_utils.displays.base import BaseDisplay

from ..rendering import render_template
from ..trace import derive
from .config import DISPLAY_TYPE, TraceViewConfig, declared_options, parse_trace_view_config

FIRST_WINDOW = 30
"""Steps the server renders before scripts run; the browser replaces them with its window."""

SNIPPET_CHARS = 160
TURN_SLOT_TYPES = ("radio", "multiselect")
"""Turn-level scheme types the view renders as chips on a step (others: a notice)."""


class TraceDisplay(BaseDisplay):
    name = DISPLAY_TYPE
    required_fields: List[str] = []
    optional_fields = declared_options()
    description = ("A multi-agent run laid out by its orchestration (lanes, tree or board), "
                   "numbered as the multiagent widgets number steps, with per-step tags.")

    def has_inline_label(self, field_config: dict) -> bool:
        return True   # the view names its own landmark with the label

    def get_css_classes(self, field_config: dict) -> list:
        return super().get_css_classes(field_config) + ["ma-trace-field"]

    def render(self, field_config: dict, data: Any) -> str:
        """The shell, or an error card naming the bad key; never raises."""
        config, problems = parse_trace_view_config(field_config)
        if config is None:
            return render_template("trace_view/error.html", key=field_config.get("key", "?"), problems=problems)
        turn_schemes, skipped = _turn_schemes(field_config.get("_turn_schemes") or [])
        return render_template("trace_view/template.html", config=config,
                               browser_config=_browser_config(config, turn_schemes),
                               skipped=skipped, first=_first_window(config, data))


def _browser_config(config: TraceViewConfig, turn_schemes: list) -> dict:
    options = config.browser_config(exclude={"key", "label"})
    options["field_key"] = config.key
    options["label"] = config.label or "Trace"
    options["turn_schemes"] = turn_schemes
    return options


def _turn_schemes(schemes: list) -> tuple[list, list]:
    """What the browser needs of each turn-level scheme bound to this field, and those it cannot show."""
    shown, skipped = [], []
    for scheme in schemes:
        if scheme.get("annotation_type") not in TURN_SLOT_TYPES:
            skipped.append(str(scheme.get("name", "")))
            continue
        labels = [label.get("name", "") if isinstance(label, dict) else str(label)
                  for label in scheme.get("labels") or []]
        binding = scheme.get("turn_binding") or {}
        shown.append({"name": str(scheme.get("name", "")), "type": scheme["annotation_type"],
                      "label": str(scheme.get("turn_label", scheme.get("description", scheme.get("name", "")))),
                      "labels": labels,
                      "binding": {k: binding[k] for k in ("agents", "speakers", "step_types", "tools", "turn_range")
                                  if k in binding}})
    return shown, skipped


def _first_window(config: TraceViewConfig, data: Any) -> list:
    """The first steps as (number, agent, snippet), when the display's field holds the steps."""
    head = config.steps_key.split(".", 1)[0]
    if head != config.key or data is None:
        return []
    if isinstance(data, list) and config.steps_key == config.key:
        data = data[:FIRST_WINDOW]   # a step's number, agent and text never depend on later steps
    derivation = derive({config.key: data}, **config.derive_options())
    return [{"number": step.index + 1, "agent": _agent_label(step), "text": _snippet(step.text)}
            for step in derivation.steps[:FIRST_WINDOW]]


def _agent_label(step) -> str:
    if step.agent is None:
        return "(no agent)"
    return f"{step.agent} ({step.qualifier})" if step.qualifier else step.agent


def _snippet(text: str) -> str:
    line = next((part for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= SNIPPET_CHARS else line[:SNIPPET_CHARS - 1] + "\u2026"
