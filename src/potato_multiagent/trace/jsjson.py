"""JSON exactly as JavaScript reads and writes it.

A step's ``text`` may be compact JSON, and tool-call arguments may be JSON strings; both sides of
the derivation must produce the same characters, so Python imitates ``JSON.stringify`` (number
formatting, integer-like keys first, escapes) and ``JSON.parse`` (no NaN or Infinity).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_MAX_ARRAY_INDEX = 2**32 - 2
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')


class StrictJSONError(ValueError):
    """Raised for text that ``JSON.parse`` would reject, or that parses to a non-finite number."""


def _reject_constant(token: str) -> Any:
    raise StrictJSONError(f"{token} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise StrictJSONError(f"number {text} overflows")
    return value


_STRICT_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


_SCAN_ONCE = _STRICT_DECODER.scan_once
_SKIP_WHITESPACE = re.compile(r"[ \t\n\r]*").match
"""``json.decoder.WHITESPACE``: the whitespace ``decode`` skips around the value."""


def strict_loads(text: str) -> Any:
    """Parse like ``JSON.parse``, refusing NaN/Infinity and numbers that overflow to infinity.

    Text that parses is read by the decoder's scanner directly (half of ``decode``'s cost for a
    short tool-call argument string, of which a trace has thousands); anything else goes through
    ``decode``, so each error and its message are ``decode``'s.
    """
    try:
        value, end = _SCAN_ONCE(text, _SKIP_WHITESPACE(text).end())
        if _SKIP_WHITESPACE(text, end).end() == len(text):
            return value
    except (StopIteration, ValueError, RecursionError):
        pass
    try:
        return _STRICT_DECODER.decode(text)
    except StrictJSONError:
        raise
    except (ValueError, RecursionError) as error:
        raise StrictJSONError(str(error)) from None


def js_number(value: float | int) -> str:
    """``String(value)`` in JavaScript for a finite number.

    >>> js_number(1.0), js_number(1e21), js_number(1e-7), js_number(0.000001), js_number(-0.0)
    ('1', '1e+21', '1e-7', '0.000001', '0')
    """
    if isinstance(value, int):
        value = float(value) if abs(value) >= 1e21 else value
        if isinstance(value, int):
            return str(value)
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # position of the decimal point relative to the start of `digits` (value = 0.digits * 10**point)
    point = len(whole) + (int(exponent) if exponent else 0)
    if whole == "0":
        point -= len(fraction) - len(fraction.lstrip("0")) + 1
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= point <= 21:
        return sign + digits + "0" * (point - k)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * (-point) + digits
    e = point - 1
    exp = f"e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + (digits if k == 1 else digits[0] + "." + digits[1:]) + exp


def _escape_char(match: re.Match) -> str:
    char = match.group()
    return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04x}"


def _js_string(text: str) -> str:
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, text) + '"'


def _js_key_order(obj: dict) -> list:
    """JS lists integer-like keys (array indices) first, ascending, then the rest in insertion order."""
    indices = [k for k in obj if _ARRAY_INDEX.fullmatch(k) and int(k) <= _MAX_ARRAY_INDEX]
    if not indices:
        return list(obj)
    index_set = set(indices)
    return sorted(indices, key=int) + [k for k in obj if k not in index_set]


def js_stringify(value: Any) -> str:
    """``JSON.stringify(value)`` for a value that came from strict JSON.

    >>> js_stringify({"b": 1, "2": True, "a": [1.5, "é", 1.0]})
    '{"2":true,"b":1,"a":[1.5,"é",1]}'
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return js_number(value) if math.isfinite(value) else "null"
    if isinstance(value, str):
        return _js_string(value)
    if isinstance(value, list):
        return "[" + ",".join(js_stringify(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_js_string(k)}:{js_stringify(value[k])}" for k in _js_key_order(value)) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")
