"""What every MAST log splitter shares: the result of a split and the pieces of a log entry.

A splitter reads one system's log text and returns a :class:`LogSplit` (steps, the record fields
the log states such as the task, ground truth such as AppWorld's evaluation, and what it left
out), or None when the text does not have that system's markers, so another system can be tried.
"""

from __future__ import annotations

import ast
import json
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass
class LogSplit:
    """One log cut into steps at its system's own markers."""

    layout: str
    """The layout's name, as the survey and the docs say it (``ChatDev log (2025 form)``)."""
    steps: List[dict]
    context: Dict[str, Any] = field(default_factory=dict)
    """Record fields the log states (``task``, AppWorld's ``task_id``)."""
    gold: Dict[str, Any] = field(default_factory=dict)
    """Ground truth the log states (AppWorld's final ``evaluation``): never shown."""
    left_out: Counter = field(default_factory=Counter)
    """Bookkeeping lines that are not steps, by kind (token counts, install output, HTTP requests)."""

    def note(self) -> Optional[str]:
        """What was left out, in one line (None when nothing was)."""
        if not self.left_out:
            return None
        return ", ".join(f"{count} {kind}" for kind, count in sorted(self.left_out.items()))


def body_text(lines: List[str], dedent: bool = False) -> str:
    """The lines of an entry as one text, blank lines around it removed (indentation kept unless
    ``dedent``: AppWorld indents every block under its header)."""
    text = "\n".join(line.rstrip("\r") for line in lines)
    if dedent:
        text = textwrap.dedent(text)
    return text.strip("\n").rstrip()


def system_step(event: str, text: str, **fields: Any) -> dict:
    """A step the log writes but no agent takes (a configuration table, a run starting): shown in
    order, with no agent, so it adds no edge and no handoff. ``fields`` must not be agent fields
    (``agent``, ``sender``, ``source``, ``speaker``, ``name``, ``role``): the derivation reads them."""
    step = {"event": event, "content": text}
    step.update({key: value for key, value in fields.items() if value is not None})
    return step


def literal_or_source(node: ast.AST, source: str) -> Any:
    """A call argument's value when it is a Python literal, else its source text."""
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ast.get_source_segment(source, node) or ast.dump(node)


def call_arguments(call: ast.Call, source: str) -> Dict[str, Any]:
    """A Python call's arguments as a JSON object: keywords by name, positional ones under ``args``."""
    arguments: Dict[str, Any] = {}
    if call.args:
        arguments["args"] = [literal_or_source(argument, source) for argument in call.args]
    for keyword in call.keywords:
        name = keyword.arg if keyword.arg is not None else "**"
        arguments[name] = literal_or_source(keyword.value, source)
    return json.loads(json.dumps(arguments, default=repr))  # tuples, sets: as JSON has them


def dotted_name(node: ast.AST) -> Optional[str]:
    """``apis.spotify.show_playlist_library`` for that attribute chain, None for anything else."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def parse_python(source: str) -> Optional[ast.Module]:
    """The code as a syntax tree, or None when it is not valid Python (a log can cut code short).
    Give it dedented code: argument values are read back from ``source`` by position."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
