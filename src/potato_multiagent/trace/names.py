"""Names, whitespace and key lookup: the small rules every other part of the derivation uses.

Whitespace is exactly JavaScript's ``\\s`` set, written out, so that Python and ``derive.js``
agree on every character (Python's ``str.isspace`` and ``strip`` disagree with JS on U+001C-001F,
U+0085 and U+FEFF).
"""

from __future__ import annotations

import re
from typing import Any, Optional

WHITESPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""A regex character-class body for JS's ``\\s``."""

WS = f"[{WHITESPACE}]"
NON_WS = f"[^{WHITESPACE}]"

_ONLY_WHITESPACE = re.compile(f"{WS}*")
_WHITESPACE_CHARS = frozenset("\t\n\x0b\x0c\r \xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
                              + "".join(map(chr, range(0x2000, 0x200B))))
MAX_SAFE_INTEGER = 2**53 - 1


def is_name(value: Any) -> bool:
    """A name is a string that is neither empty nor only whitespace.

    >>> is_name(" Planner "), is_name("\\ufeff"), is_name("\\x1c"), is_name(3)
    (True, False, True, False)
    """
    if not isinstance(value, str) or not value:
        return False
    # fast path: almost every name starts with a visible character
    return value[0] not in _WHITESPACE_CHARS or _ONLY_WHITESPACE.fullmatch(value) is None


def name_of(value: Any) -> Optional[str]:
    """The name a value stands for: a name itself, or an object's ``name``, else its ``id``.

    >>> name_of({"name": " ", "id": "coder"}), name_of(7)
    ('coder', None)
    """
    if is_name(value):
        return value
    if isinstance(value, dict):
        for key in ("name", "id"):
            if is_name(value.get(key)):
                return value[key]
    return None


def first_name(obj: dict, keys) -> Optional[str]:
    """The name of the first key in ``keys`` whose value is a name, else None."""
    for key in keys:
        if key in obj:
            value = obj[key]
            if isinstance(value, str):  # the common case, without the calls of name_of
                if value and (value[0] not in _WHITESPACE_CHARS or is_name(value)):
                    return value
            elif isinstance(value, dict):
                found = name_of(value)
                if found is not None:
                    return found
    return None


def first_string_name(obj: dict, keys) -> Optional[str]:
    """The first value under ``keys`` that is a name and a string (a tool's name: an object
    there is not read for its ``name``), else None."""
    for key in keys:
        if key in obj and is_name(obj[key]):
            return obj[key]
    return None


def resource_name(value: Any) -> Optional[str]:
    """A resource is a name, or an integral number standing for its decimal integer string.

    >>> resource_name(1.0), resource_name(1e2), resource_name(1.5), resource_name(True)
    ('1', '100', None, None)
    """
    if isinstance(value, str):
        return value if is_name(value) else None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value) if abs(value) <= MAX_SAFE_INTEGER else None
    if isinstance(value, float):
        if value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
            return str(int(value))
        return None
    return name_of(value)


def lookup_path(record: Any, path: str) -> tuple[bool, Any]:
    """Follow a dotted path one own key at a time through objects: ``(found, value)``.

    A dotted key is always a path: ``"trace.steps"`` never matches a literal ``"trace.steps"`` key.
    """
    node = record
    for segment in path.split("."):
        if not isinstance(node, dict) or segment not in node:
            return False, None
        node = node[segment]
    return True, node
