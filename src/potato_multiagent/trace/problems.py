"""Problems: what the derivation could not read, said once, with the field it concerns."""

from __future__ import annotations


def problem(path: str, code: str, message: str) -> dict:
    """One problem entry: ``code`` is for programs, ``message`` names the field for a person.

    >>> problem("calls[2].start", "time_missing", "no start time")["message"]
    'calls[2].start: no start time'
    """
    return {"path": path, "code": code, "message": f"{path}: {message}"}
