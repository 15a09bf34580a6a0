"""AG2 (MathChat) trajectories held as text: a JSON list of ``{content, role, name}`` messages, or
Python dict literals one after another (``{'content': [...], 'role': 'assistant', 'name': ...}``).
Each message is one step, as it is.
"""

from __future__ import annotations

import ast
import io
import json
import tokenize
from typing import List, Optional

from .common import LogSplit

NAMES = ("ag2", "autogen")
MESSAGE_KEYS = {"content", "name", "role"}


def split(text: str) -> Optional[LogSplit]:
    messages = messages_in_text(text)
    return LogSplit(layout="AG2 messages", steps=messages) if messages else None


def messages_in_text(text: str) -> Optional[List[dict]]:
    """Messages written as a JSON list, or as Python dict literals one after another (MAD's AG2 text)."""
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            return None
        return parsed if isinstance(parsed, list) and parsed and all(
            isinstance(m, dict) and MESSAGE_KEYS & set(m) for m in parsed) else None
    if stripped.startswith("{"):
        return _dict_literals(stripped)
    return None


def _dict_literals(text: str) -> Optional[List[dict]]:
    """``{...}{...}`` read with Python's own tokenizer (braces inside strings do not count)."""
    offsets = _line_offsets(text)
    messages, depth, start = [], 0, None
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.OP or token.string not in "{}":
                continue
            position = offsets[token.start[0] - 1] + token.start[1]
            if token.string == "{":
                start = position if depth == 0 else start
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    message = ast.literal_eval(text[start:position + 1])
                    if not isinstance(message, dict) or not (MESSAGE_KEYS & set(message)):
                        return None
                    messages.append(message)
    except (tokenize.TokenError, SyntaxError, ValueError, IndentationError):
        return None
    return messages or None


def _line_offsets(text: str) -> List[int]:
    offsets, total = [], 0
    for line in io.StringIO(text):
        offsets.append(total)
        total += len(line)
    return offsets + [total]
