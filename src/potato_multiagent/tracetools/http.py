"""JSON over HTTP with the standard library, so no trace tool's client is a runtime dependency."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Optional


class Unreachable(Exception):
    """The server did not answer at all (refused, timed out, no such host)."""


class HttpError(Exception):
    """The server answered with an error status; ``status`` and ``detail`` say which and why."""

    def __init__(self, status: int, detail: str):
        super().__init__(f"HTTP {status}: {detail}")
        self.status, self.detail = status, detail


def request_json(method: str, url: str, body: Any = None, headers: Optional[Dict[str, str]] = None,
                 timeout: float = 30) -> Any:
    """The decoded JSON answer (None for an empty one); :class:`Unreachable` or :class:`HttpError`."""
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Accept": "application/json",
                                              **({"Content-Type": "application/json"} if data else {}),
                                              **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        raise HttpError(error.code, _detail(error)) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise Unreachable(f"cannot reach {_origin(url)}: {reason}") from None
    return json.loads(text) if text.strip() else None


def with_query(url: str, params: Dict[str, Any]) -> str:
    """``url`` with the query parameters that are not None (a list repeats its parameter)."""
    pairs = [(key, item) for key, value in params.items() if value is not None
             for item in (value if isinstance(value, (list, tuple)) else [value])]
    return f"{url}?{urllib.parse.urlencode(pairs)}" if pairs else url


def _detail(error: urllib.error.HTTPError) -> str:
    """What the server said about the error (FastAPI's ``detail``), in one line."""
    try:
        text = error.read().decode("utf-8", "replace")
    except OSError:
        return error.reason or ""
    try:
        detail = json.loads(text).get("detail", text)
    except (ValueError, AttributeError):
        detail = text
    return " ".join(str(detail).split())[:500]


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
