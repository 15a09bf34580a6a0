"""The config keys of the ``multiagent.trace`` display, checked by pydantic.

One home for them: the display renders from this model, ``check`` reports its errors, and the
keys declared to Potato (so ``potato validate --strict`` knows them) are its fields.
"""

from __future__ import annotations

import difflib
from typing import Dict, List, Literal, Optional

from pydantic import ConfigDict, Field, StrictInt, StrictStr, ValidationError

from ..trace.options import DeriveOptions

LAYOUTS = ("lanes", "tree", "board")
DEFAULT_LAYOUT_MAP = {"sequential_pipeline": "lanes", "hierarchical_manager": "tree", "group_chat": "board"}
DISPLAY_TYPE = "multiagent.trace"


class TraceViewConfig(DeriveOptions):
    """One ``instance_display.fields`` entry of type ``multiagent.trace``: the derive options (the
    same keys, defaults and checks as every scheme's, from :class:`DeriveOptions`) and the view's own."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    key: StrictStr = Field(min_length=1, description="The record field Potato hands the display.")
    label: Optional[StrictStr] = Field(None, description="The view's heading and landmark name.")
    layout: Literal["auto", "lanes", "tree", "board"] = Field(
        "auto", description="auto (chosen from the derivation), lanes, tree or board.")
    layout_from: Optional[StrictStr] = Field(
        None, min_length=1, description="A radio scheme whose answer picks the layout (see layout_map).")
    layout_map: Dict[StrictStr, Literal["lanes", "tree", "board"]] = Field(
        default_factory=lambda: dict(DEFAULT_LAYOUT_MAP),
        description="The layout_from scheme's answer -> layout.")
    question_key: Optional[StrictStr] = Field(
        None, min_length=1, description="A record field holding the task's question, shown above the steps under "
        "\"Task\".")
    answer_key: Optional[StrictStr] = Field(
        None, min_length=1, description="A record field holding the task's reference answer, shown above the steps "
        "under \"Reference answer (from the dataset)\". Leave it out where the answer is what annotators judge: "
        "every record field is in the page source, shown or not.")
    fold_chars: StrictInt = Field(600, ge=80, description="Text longer than this is folded (full view on demand).")
    height: StrictStr = Field("70vh", min_length=1, description="The view's scroll height (a CSS length).")


def _flat(field: dict) -> dict:
    """Options written flat or under ``display_options`` (Potato accepts both; nested wins)."""
    merged = {k: v for k, v in field.items() if k != "display_options"}
    nested = field.get("display_options")
    if isinstance(nested, dict):
        merged.update(nested)
    return merged


POTATO_FIELD_KEYS = frozenset({"type", "span_target", "display_options", "resizable", "max_height", "min_height",
                               "_turn_schemes", "_run_tree"})
"""Keys Potato itself reads on any display field (the rest must be ours)."""


def parse_trace_view_config(field: dict) -> tuple[Optional[TraceViewConfig], List[str]]:
    """The parsed config, or None and one message per bad key, each naming the key.

    Potato does not check a plugin display's keys (``validate --strict`` passes ``layot: tree``),
    so an unknown key is reported here, with the nearest known key.
    """
    flat = _flat(field)
    known = set(TraceViewConfig.model_fields) | POTATO_FIELD_KEYS
    messages = [_unknown(key, known) for key in flat if key not in known]
    try:
        config = TraceViewConfig.model_validate(flat)
    except ValidationError as error:
        config = None
        for problem in error.errors():
            where = ".".join(str(part) for part in problem["loc"]) or "config"
            messages.append(f"{where}: {problem['msg']}")
    return (config, []) if not messages else (None, messages)


def _unknown(key: str, known: set) -> str:
    close = difflib.get_close_matches(str(key), sorted(known - POTATO_FIELD_KEYS), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"{key}: not a key of {DISPLAY_TYPE}{hint}"


def declared_options() -> dict:
    """The keys Potato is told this display reads, with their defaults."""
    defaults = {}
    for name, info in TraceViewConfig.model_fields.items():
        if name in ("key", "label"):
            continue
        defaults[name] = info.get_default(call_default_factory=True)
    return defaults


def trace_fields(config: dict) -> List[tuple[int, dict]]:
    """Every ``multiagent.trace`` field of a task config, with its position."""
    display = config.get("instance_display") if isinstance(config, dict) else None
    fields = display.get("fields") if isinstance(display, dict) else None
    if not isinstance(fields, list):
        return []
    return [(i, f) for i, f in enumerate(fields) if isinstance(f, dict) and f.get("type") == DISPLAY_TYPE]
