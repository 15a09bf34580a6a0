"""The MAST authors' flattening of a JSON trace into YAML-like text (MAD_full_dataset.json holds
AG2 and HyperAgent traces so): top-level ``instance_id:``, ``problem_statement:``, ``other_data:``
(the answer and whether it was correct), ``note:`` and ``trajectory:``, whose messages are a
``content:`` key (6 spaces in, after the list dash) with its body lines indented further (12
spaces), then ``role:`` and ``name:`` at the key's indentation; or, for HyperAgent, a list of log
lines. Read back into the trace object the JSON form holds.

The message bodies are read line by line, not as YAML: they are text with colons, dashes and
blank lines that a YAML reader would fold or refuse. The small sections (``other_data``,
``problem_statement``, ``note``) are read as YAML, and kept as text when they are not.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any, Dict, List, Optional, Tuple

import yaml

SECTION = re.compile(r"(?P<key>[A-Za-z_]\w*):(?P<inline>.*)")
CONTENT_KEY = re.compile(r"(?P<indent>\s*)(?P<dash>-\s+)?content:(?P<inline>.*)")
LIST_ITEM = re.compile(r"(?P<indent>\s*)-(?:\s+(?P<text>.*))?")
TRACE_SECTIONS = {"instance_id", "problem_statement", "trajectory"}


def parse(text: str) -> Optional[Dict[str, Any]]:
    """The trace object the text flattens, or None when it is not that layout (it needs a top-level
    ``trajectory:`` and ``instance_id:`` or ``problem_statement:``)."""
    sections = _sections(text)
    if "trajectory" not in sections or not (TRACE_SECTIONS - {"trajectory"}) & set(sections):
        return None
    trace: Dict[str, Any] = {}
    for key, (inline, block) in sections.items():
        if key == "trajectory":
            trace[key] = _trajectory(block)
        else:
            trace[key] = _small(inline, block)
    return trace


def _sections(text: str) -> Dict[str, Tuple[str, List[str]]]:
    sections: Dict[str, Tuple[str, List[str]]] = {}
    current: Optional[List[str]] = None
    for line in text.split("\n"):
        bare = line.rstrip("\r")
        match = SECTION.fullmatch(bare)
        if match and not bare[:1].isspace():
            current = []
            sections[match["key"]] = (match["inline"].strip(), current)
        elif current is not None:
            current.append(bare)
    return sections


def _small(inline: str, block: List[str]) -> Any:
    source = inline if inline else textwrap.dedent("\n".join(block))
    try:
        return yaml.safe_load(source) if source.strip() else None
    except yaml.YAMLError:
        return source.strip("\n")


def _trajectory(block: List[str]) -> List[Any]:
    keys = [(k, CONTENT_KEY.fullmatch(line)) for k, line in enumerate(block)]
    starts = [(k, match) for k, match in keys if match]
    if starts:
        return _messages(block, starts)
    return _strings(block)


def _messages(block: List[str], starts) -> List[dict]:
    messages = []
    for number, (k, match) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(block)
        column = len(match["indent"]) + len(match["dash"] or "")
        field_line = re.compile(r"\s{%d}(?P<key>\w+):(?P<inline>.*)" % column)
        message: Dict[str, Any] = {}
        key, inline, body = "content", match["inline"].strip(), []
        for line in block[k + 1:end]:
            other = field_line.fullmatch(line)
            if other and not line[column:column + 1].isspace():
                message[key] = _value(inline, body, column)
                key, inline, body = other["key"], other["inline"].strip(), []
            else:
                body.append(line)
        message[key] = _value(inline, body, column)
        messages.append(message)
    return messages


def _value(inline: str, body: List[str], column: int) -> Any:
    """A message field: its inline text, or its body lines (a list when every one is a ``- `` item)."""
    if inline and inline not in ("|", "|-", ">", ">-"):
        return _unquoted(inline)
    lines = textwrap.dedent("\n".join(body)).split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    items = [LIST_ITEM.fullmatch(line) for line in lines]
    if lines and all(item is not None and not item["indent"] for item in items):
        return [_unquoted(item["text"] or "") for item in items]
    return "\n".join(lines)


def _strings(block: List[str]) -> List[str]:
    """A list of strings (HyperAgent's log lines): ``- line`` items, continuation lines indented."""
    items: List[List[str]] = []
    indent: Optional[int] = None
    for line in block:
        item = LIST_ITEM.fullmatch(line)
        if item and (indent is None or len(item["indent"]) == indent):
            indent = len(item["indent"])
            items.append([item["text"] or ""])
        elif items:
            items[-1].append(line[(indent or 0) + 2:] if line[:(indent or 0) + 2].isspace() else line.strip())
    return [_unquoted("\n".join(lines)) for lines in items]


def _unquoted(text: str) -> str:
    """A YAML scalar as written, a quoted one unquoted; always text (messages hold text)."""
    stripped = text.strip()
    if stripped[:1] in ("'", '"'):
        try:
            value = yaml.safe_load(stripped)
        except yaml.YAMLError:
            return text
        return value if isinstance(value, str) else text
    return text
