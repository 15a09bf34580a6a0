"""``potato-multiagent migrate-config``: move a config from Potato's built-in multi-agent types to ours.

The rewrite is line-based on purpose: YAML libraries drop comments and reflow lines, and a
researcher's config is full of both. Only four kinds of line change; everything else is kept
byte for byte, and running it twice changes nothing the second time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List

PLUGIN = "multiagent"


def _built_in_types() -> tuple:
    """The built-in types ours replace: each type folder's ``migration.py`` says which (``REPLACES``)."""
    from .types import TYPES

    return tuple(folder.migration.REPLACES for folder in TYPES.values()
                 if folder.migration is not None and folder.migration.REPLACES is not None)


BUILT_IN_TYPES = _built_in_types()

_TYPE_LINE = re.compile(r"""^(?P<head>\s*(?:-\s+)?annotation_type:\s*)(?P<quote>["']?)(?P<type>[A-Za-z_.]+)(?P=quote)(?P<tail>\s*(?:#.*)?)$""")
_PLUGINS_LINE = re.compile(r"^plugins:\s*(?P<rest>.*?)\s*(?P<comment>#.*)?$")
_FLOW_LIST = re.compile(r"^\[(?P<items>.*)\]$")
_TURN_NUMBERS = re.compile(r"\bshow_turn_numbers\b")
_TOP_LEVEL_KEY = re.compile(r"^[A-Za-z_][\w-]*\s*:")
_DISPLAY_TYPE_LINE = re.compile(r"""^(?P<head>\s*(?:-\s+)?type:\s*)(?P<quote>["']?)agent_trace(?P=quote)(?P<tail>\s*(?:#.*)?)$""")
TRACE_VIEW_TYPE = "multiagent.trace"
_NUMBERS_ON = re.compile(r"\bshow_(?:turn|step)_numbers(?P<space>\s*):\s*(?:true|True|TRUE|yes)\b")
_ITEM_START = re.compile(r"^(?P<indent>\s*)-\s")
_DISPLAY_TYPE = re.compile(r"""(?<![\w.])type:\s*["']?(?P<type>[\w.]+)""")
_OUTPUT_FORMAT = re.compile(r"""^output_annotation_format:\s*(?P<quote>["']?)(?P<format>[\w-]+)(?P=quote)(?P<tail>\s*(?:#.*)?)$""")


@dataclass
class Migration:
    """The rewritten text and what changed, in words."""

    text: str
    changes: List[str] = field(default_factory=list)
    offers: List[str] = field(default_factory=list)
    """Moves not made unless asked (``--trace-view``), in words."""


def migrate_config_text(text: str, trace_view: bool = False) -> Migration:
    """Rewrite built-in multi-agent types to ours, turn the plugin on, and fix the two keys of
    Potato's own examples that 2.12.1's ``validate --strict`` rejects.

    >>> m = migrate_config_text("annotation_schemes:\\n  - annotation_type: handoff_review  # cards\\n")
    >>> print(m.text)
    annotation_schemes:
      - annotation_type: multiagent.handoff_review  # cards
    plugins:
      - multiagent
    <BLANKLINE>
    """
    lines = text.splitlines(keepends=True)
    changes: List[str] = []
    offers: List[str] = []
    renamed = False
    for number, line in enumerate(lines):
        body, newline = _split_newline(line)
        display = _DISPLAY_TYPE_LINE.match(body)
        if display and trace_view:
            lines[number] = f"{display['head']}{display['quote']}{TRACE_VIEW_TYPE}{display['quote']}{display['tail']}{newline}"
            changes.append(f"line {number + 1}: display type agent_trace -> {TRACE_VIEW_TYPE} (numbered as our "
                           "widgets number steps; see: potato-multiagent docs trace-view)")
            renamed = True
            continue
        if display:
            offers.append(f"line {number + 1}: agent_trace can become {TRACE_VIEW_TYPE} (steps numbered as our "
                          "widgets number them, layouts, links from the widgets): run again with --trace-view")
        match = _TYPE_LINE.match(body)
        if match and match["type"] in BUILT_IN_TYPES:
            new_type = f"{PLUGIN}.{match['type']}"
            lines[number] = f"{match['head']}{match['quote']}{new_type}{match['quote']}{match['tail']}{newline}"
            changes.append(f"line {number + 1}: annotation_type {match['type']} -> {new_type}")
            renamed = True
        elif _OUTPUT_FORMAT.match(body):
            old = _OUTPUT_FORMAT.match(body)
            # Potato 2.12 reads the deprecated key as an export format and has no exporter "json"
            new_format = "jsonl" if old["format"] == "json" else old["format"]
            lines[number] = f"export_annotation_format: {new_format}{old['tail']}{newline}"
            changes.append(f"line {number + 1}: output_annotation_format: {old['format']} -> "
                           f"export_annotation_format: {new_format} (the key Potato 2.12 reads)")
        elif (_TURN_NUMBERS.search(body) and not body.lstrip().startswith("#")
              and _display_type(lines, number) == "agent_trace"):  # dialogue displays keep show_turn_numbers
            lines[number] = _TURN_NUMBERS.sub("show_step_numbers", body) + newline
            changes.append(f"line {number + 1}: show_turn_numbers -> show_step_numbers (the agent_trace option "
                           "Potato 2.12 accepts)")
    if renamed or any(f"{PLUGIN}." in line for line in lines):
        changes.extend(_agent_trace_numbers_off(lines))
        changes.extend(_enable_plugin(lines))
    offers.extend(_turn_level_mast_offers(text))
    return Migration("".join(lines), changes, offers)


def _turn_level_mast_offers(text: str) -> List[str]:
    """Where a turn-level multiselect or radio tags MAST's modes (this project's examples before
    ``multiagent.mast``): it keeps working as it is; say what the type would add, and that the tags
    it saved are not converted."""
    import yaml

    from .taxonomy import preset

    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    schemes = config.get("annotation_schemes") if isinstance(config, dict) else None
    mast = preset("mast")
    offers = []
    for scheme in schemes if isinstance(schemes, list) else []:
        if not (isinstance(scheme, dict) and scheme.get("turn_level")
                and scheme.get("annotation_type") in ("multiselect", "radio")):
            continue
        labels = [label.get("name") if isinstance(label, dict) else label for label in scheme.get("labels") or []]
        if not labels or not all(mast.find(label) for label in labels):
            continue
        name = str(scheme.get("name"))
        where = next((f"line {number}: " for number, line in enumerate(text.splitlines(), start=1)
                      if re.match(rf"""^\s*(?:-\s+)?name:\s*["']?{re.escape(name)}["']?\s*(?:#.*)?$""", line)), "")
        offers.append(f"{where}{name} tags MAST modes with a turn-level {scheme['annotation_type']}: it keeps working "
                      f"(chips on the trace view's steps, exported per step and mode). annotation_type: "
                      f"multiagent.mast (no labels, turn_level or turn_binding) adds each mode's definition, a "
                      f"note and a severity per tag, modes for the whole run, judgments and adjudication "
                      f"(see: potato-multiagent docs mast); the tags saved so far are not converted")
    return offers


def _agent_trace_numbers_off(lines: List[str]) -> List[str]:
    """Turn off ``agent_trace``'s own step numbers, in place: it numbers only action and thought
    steps, with a counter of its own, which contradicts our ``#N`` = index + 1 of every step."""
    changes = []
    for number, line in enumerate(lines):
        body, newline = _split_newline(line)
        if body.lstrip().startswith("#") or not _NUMBERS_ON.search(body):
            continue
        if _display_type(lines, number) != "agent_trace":
            continue
        lines[number] = _NUMBERS_ON.sub("show_step_numbers\\g<space>: false", body) + newline
        changes.append(f"line {number + 1}: agent_trace show_step_numbers -> false (it numbers only action and "
                       "thought steps; our widgets and exports number every step #N = index + 1)")
    return changes


def _display_type(lines: List[str], number: int) -> str:
    """The ``type`` of the list item (an ``instance_display`` field) that line ``number`` is in."""
    def indent(text: str) -> int:
        return len(text) - len(text.lstrip())

    here = _split_newline(lines[number])[0]
    start = None
    for position in range(number, -1, -1):
        body = _split_newline(lines[position])[0]
        item = _ITEM_START.match(body)
        if item and (position == number or len(item["indent"]) < indent(here)):
            start = position
            break
    if start is None:
        return ""
    item_indent = indent(_split_newline(lines[start])[0])
    for position in range(start, len(lines)):
        body = _split_newline(lines[position])[0]
        if position > start and body.strip() and indent(body) <= item_indent:
            break
        found = _DISPLAY_TYPE.search(body.split("#")[0])
        if found:
            return found["type"]
    return ""


def _split_newline(line: str) -> tuple[str, str]:
    stripped = line.rstrip("\r\n")
    return stripped, line[len(stripped):]


def _enable_plugin(lines: List[str]) -> List[str]:
    """Add ``multiagent`` to the top-level ``plugins`` list (creating it if needed), in place."""
    for number, line in enumerate(lines):
        body, newline = _split_newline(line)
        match = _PLUGINS_LINE.match(body)
        if not match:
            continue
        rest, comment = match["rest"], match["comment"] or ""
        flow = _FLOW_LIST.match(rest)
        if flow:
            items = [item.strip().strip("'\"") for item in flow["items"].split(",") if item.strip()]
            if PLUGIN in items:
                return []
            joined = ", ".join([item.strip() for item in flow["items"].split(",") if item.strip()] + [PLUGIN])
            lines[number] = f"plugins: [{joined}]" + (f"  {comment}" if comment else "") + newline
            return [f"line {number + 1}: added {PLUGIN} to plugins"]
        if rest == "":
            block = _block_items(lines, number + 1)
            if PLUGIN in [item for _, item, _ in block]:
                return []
            indent = block[0][2] if block else "  "
            position = block[-1][0] + 1 if block else number + 1
            lines.insert(position, f"{indent}- {PLUGIN}{newline or chr(10)}")
            return [f"line {position + 1}: added {PLUGIN} to plugins"]
    ending = "" if not lines or lines[-1].endswith("\n") else "\n"
    lines.append(f"{ending}plugins:\n  - {PLUGIN}\n")
    return [f"line {len(lines)}: added plugins: [{PLUGIN}]"]


def _block_items(lines: List[str], start: int) -> List[tuple]:
    """``(line number, item, indent)`` of the block list that starts at ``start``."""
    items = []
    for number in range(start, len(lines)):
        body, _ = _split_newline(lines[number])
        if not body.strip() or body.lstrip().startswith("#"):
            continue
        if _TOP_LEVEL_KEY.match(body):
            break
        item = re.match(r"^(\s*)-\s*(['\"]?)([^'\"#\s]+)\2", body)
        if not item:
            break
        items.append((number, item.group(3), item.group(1)))
    return items
