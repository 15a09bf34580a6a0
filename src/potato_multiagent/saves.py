"""What the server refuses to store for our schemes: a value that does not pass its ``Value`` model.

Potato stores whatever string a save posts for a scheme. Our widgets only ever post values of their
type's shape, but anything else can post (an old page, a script, a proxy): a list for an object, NaN,
JSON that does not parse, a 1 MB reason, a list nested 5,000 deep. ``check``, ``export`` and
``agreement`` report or leave such values out later; this module refuses them when they arrive, so
the value stored before stays as it was.

Potato's save routes (``/updateinstance``, both of its payload formats, and ``/submit_annotation``)
are wrapped on the app Potato serves, once, when its first request starts (Flask's
``request_started`` signal; the plugin loads before Potato builds that app). The wrapper reads the
request, checks every value posted for one of our schemes with the type's ``Value`` model (the
shape only: marks the trace lacks are the page's to show, and a stale mark a value keeps must not
stop an annotator's next save), and answers a value that fails with HTTP 400 naming the scheme and
each problem, in the words of ``check``, without calling Potato: nothing of the request is stored.
A request with no value of ours, an empty value (Potato's "nothing stored") and every scheme of
Potato's own go through untouched; so does a value for a scheme whose stored value already fails
its model. The page keeps such a value as it is until the annotator acts (SPEC §6), so it rides
along in every save of the item, and acting on it may keep its broken part: refusing either would
refuse the annotator's other answers of the same save. The refusal keeps good values from
turning bad; ``check`` reports the ones that were bad already.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Type

from pydantic import ValidationError

from .trace.jsjson import StrictJSONError, strict_loads
from .types import SCHEMES, Scheme
from .types._base import format_validation_error
from .types._base.words import word

SAVE_ENDPOINTS = ("update_instance", "submit_annotation")
"""Potato 2.12.1's endpoints that store label values (routes.py)."""

LISTED = 5
"""Problems of one value named in the answer before "and N more"."""


def guard_saves() -> None:
    """Refuse, at Potato's save routes, values of our schemes that fail their ``Value`` model.
    Idempotent: connecting again adds no second receiver, wrapping again no second wrapper."""
    from flask import request_started

    request_started.connect(_wrap_save_routes, weak=False)


def _wrap_save_routes(sender, **_extra) -> None:
    views = sender.view_functions
    for endpoint in SAVE_ENDPOINTS:
        view = views.get(endpoint)
        if view is not None and not getattr(view, "multiagent_refusing", False):
            views[endpoint] = _refusing(view)


def _refusing(view: Callable) -> Callable:
    @functools.wraps(view)
    def refusing(*args, **kwargs):
        from flask import jsonify, request

        refused = refusals(_posted_values(request), _our_schemes(), _stored_values(request))
        if refused:
            return jsonify({"status": "error", "message": refusal_message(refused), "problems": refused}), 400
        return view(*args, **kwargs)

    refusing.multiagent_refusing = True
    return refusing


def _our_schemes() -> Dict[str, Type[Scheme]]:
    """Our schemes of the config Potato serves, by name."""
    from potato.server_utils.config_module import config

    schemes = config.get("annotation_schemes") if isinstance(config, dict) else None
    return {str(scheme.get("name")): SCHEMES[scheme.get("annotation_type")]
            for scheme in schemes or [] if isinstance(scheme, dict) and scheme.get("annotation_type") in SCHEMES}


def refusals(posted: Iterator[Tuple[str, Any]], ours: Dict[str, Type[Scheme]],
             stored: Optional[Dict[str, List[Any]]] = None) -> Dict[str, List[str]]:
    """``{scheme: problems}`` for every posted value of one of ``ours`` that fails its model, unless
    a value ``stored`` (``{scheme: values}``) holds for that scheme fails it too."""
    refused: Dict[str, List[str]] = {}
    if not ours:
        return refused
    stored = stored or {}
    for scheme, value in posted:
        cls = ours.get(scheme)
        if cls is None or value is None or value == "":
            continue
        if any(shape_problems(cls, held) for held in stored.get(scheme, ()) if held not in (None, "")):
            continue
        problems = shape_problems(cls, value)
        if problems:
            refused.setdefault(scheme, []).extend(problems)
    return refused


def shape_problems(cls: Type[Scheme], value: Any) -> List[str]:
    """What is wrong with a posted value's shape, in the words ``check`` uses; [] when none."""
    if not isinstance(value, str):
        return [word("expected", field="value", expected="the JSON text of the value", got=_kind(value))]
    try:
        data = strict_loads(value)
    except StrictJSONError as error:
        return [word("not_json", reason=error)]
    try:
        cls.Value.model_validate(data)
    except ValidationError as error:
        return format_validation_error(error, cls.Value, data)
    except RecursionError:   # parsed, yet too deep for the model's validation here
        return [word("not_json", reason="nested too deeply")]
    return []


def refusal_message(refused: Dict[str, List[str]]) -> str:
    """One sentence per refused scheme: ``Not stored: 'attribution': reason: should have ...``."""
    parts = []
    for scheme, problems in refused.items():
        listed = "; ".join(problems[:LISTED]) + (f"; and {len(problems) - LISTED} more" if len(problems) > LISTED else "")
        parts.append(f"{scheme!r}: {listed}")
    return "Not stored (the value of a multiagent scheme does not have its shape): " + " | ".join(parts)


def _kind(value: Any) -> str:
    return {list: "a list", dict: "an object", bool: "true or false", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def _posted_values(request) -> Iterator[Tuple[str, Any]]:
    """``(scheme, value)`` for every label value a save request posts, in any of Potato's formats:
    ``{"annotations": {"schema:label": value}}`` and ``{"schema", "state": [{name, value}]}``
    (``/updateinstance``), ``{"annotations": {schema: {label: value} | text}}`` as JSON or as the
    form field ``annotation_data`` (``/submit_annotation``)."""
    payload = request.get_json(silent=True) if request.is_json else None
    if request.endpoint == "submit_annotation" or request.path.rstrip("/").endswith("/submit_annotation"):
        annotations = payload.get("annotations") if isinstance(payload, dict) else _form_annotations(request)
        if isinstance(annotations, dict):
            for scheme, labels in annotations.items():
                if isinstance(labels, dict):
                    yield from ((str(scheme), value) for value in labels.values())
                else:
                    yield str(scheme), labels
        return
    if not isinstance(payload, dict):
        return
    annotations = payload.get("annotations")
    if isinstance(annotations, dict):
        for key, value in annotations.items():
            scheme = _scheme_of(key)
            if scheme is not None:
                yield scheme, value
    state = payload.get("state")
    if isinstance(payload.get("schema"), str) and isinstance(state, list):
        for entry in state:
            if isinstance(entry, dict):
                yield payload["schema"], entry.get("value")


def _stored_values(request) -> Dict[str, List[Any]]:
    """What Potato holds for the signed-in annotator on the posted item: ``{scheme: values}``
    (``{}`` when there is no session, no such item or no user state)."""
    from flask import session

    payload = request.get_json(silent=True) if request.is_json else None
    username = session.get("username")
    instance_id = payload.get("instance_id") if isinstance(payload, dict) else None
    if username is None or instance_id is None:
        return {}
    try:
        from potato.flask_server import get_user_state

        labels = get_user_state(username).get_label_annotations(str(instance_id))
    except Exception:   # no user state yet: nothing is stored to compare with
        return {}
    stored: Dict[str, List[Any]] = {}
    for label, value in (labels or {}).items():
        schema = getattr(label, "schema", None)
        if schema is not None:
            stored.setdefault(str(schema), []).append(value)
    return stored


def _form_annotations(request) -> Optional[dict]:
    text = request.form.get("annotation_data")
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _scheme_of(key: Any) -> Optional[str]:
    """The scheme of a ``schema:label`` key, as Potato splits it (its configured names decide)."""
    try:
        from potato.server_utils.annotation_keys import split_annotation_key
    except ImportError:   # a Potato without it: the separators alone
        split_annotation_key = None
    if split_annotation_key is not None:
        parsed = split_annotation_key(key)
        return parsed[0] if parsed else None
    if not isinstance(key, str):
        return None
    for separator in (":::", ":"):
        if separator in key:
            return key.split(separator, 1)[0]
    return None
