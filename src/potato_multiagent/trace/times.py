"""Times: JSON numbers, or ISO 8601 strings read by one strict grammar on both sides.

Python's ``datetime.fromisoformat`` and JS's ``Date.parse`` each accept different strings (and
``Date.parse`` reads zone-less times as local time), so neither is used: the grammar below is the
contract, and the value is integer microseconds since the epoch divided by 1e6, computed the same
way in ``derive.js``.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Optional, Tuple

from .names import MAX_SAFE_INTEGER

_ISO = re.compile(
    r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})[T ](?P<h>[0-9]{2}):(?P<mi>[0-9]{2})"
    r"(?::(?P<s>[0-9]{2})(?:\.(?P<f>[0-9]{1,9}))?)?"
    r"(?P<zone>[Zz]|(?P<sign>[+-])(?P<oh>[0-9]{2}):?(?P<om>[0-9]{2}))?"
)
_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()

NUMBER = "number"
ISO = "iso"


def parse_iso(text: str) -> Optional[float]:
    """Seconds since the epoch for an ISO string of the grammar, else None.

    >>> parse_iso("1970-01-01T05:30:00+05:30"), parse_iso("2024-01-01 00:00"), parse_iso("2024-02-30T00:00Z")
    (0.0, 1704067200.0, None)
    """
    match = _ISO.fullmatch(text)
    if match is None:
        return None
    year, month, day = int(match["y"]), int(match["mo"]), int(match["d"])
    hour, minute, second = int(match["h"]), int(match["mi"]), int(match["s"] or 0)
    if year < 1 or hour > 23 or minute > 59 or second > 59:
        return None
    try:
        days = _dt.date(year, month, day).toordinal() - _EPOCH_ORDINAL
    except ValueError:
        return None
    offset = 0
    if match["sign"]:
        offset_hours, offset_minutes = int(match["oh"]), int(match["om"])
        if offset_hours > 23 or offset_minutes > 59:
            return None
        offset = (offset_hours * 3600 + offset_minutes * 60) * (1 if match["sign"] == "+" else -1)
    micros_fraction = int((match["f"] or "").ljust(6, "0")[:6])
    seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
    micros = seconds * 1_000_000 + micros_fraction
    if abs(micros) > MAX_SAFE_INTEGER:
        return None
    return micros / 1e6


def parse_time(value: Any) -> Tuple[Optional[str], Optional[float]]:
    """``(kind, seconds)`` for a time value; ``(None, None)`` when it is not a time."""
    if value.__class__ is float or value.__class__ is int:  # the common case, before the bool test
        return NUMBER, value
    if isinstance(value, bool):
        return None, None
    if isinstance(value, (int, float)):
        return NUMBER, value
    if isinstance(value, str):
        seconds = parse_iso(value)
        if seconds is not None:
            return ISO, seconds
    return None, None
