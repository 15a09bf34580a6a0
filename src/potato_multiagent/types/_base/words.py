"""The words of a problem, defined once, for ``check`` and for the browser.

A stored value's *shape* is checked twice: by the pydantic ``Value`` model here, and in the
browser against that model's JSON Schema (``web/value_shape.js``). Both must say the same thing,
so shape problems are worded from the JSON Schema, never from pydantic's own messages: pydantic
finds the fault (which field, what kind), :func:`shape_problem` words it with :data:`WORDS`
applied to the schema at that field, the way ``value_shape.js`` words what it finds.

:data:`WORDS` and :data:`TYPE_WORDS` are written to ``web/words.js`` (``python
scripts/docs_gen.py``) so the browser can read the same table.

>>> shape_problem({"type": "greater_than_equal", "loc": ("decisive_step",), "input": -1, "ctx": {"ge": 0}},
...               {"properties": {"decisive_step": {"type": "integer", "minimum": 0}}}, {"decisive_step": -1})
'decisive_step: should be at least 0, got -1'
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Tuple

from ...trace.jsjson import js_number

WORDS: Dict[str, str] = {
    "missing": "{field}: is missing",
    "not_a_field": "{field}: is not a field of this value",
    "expected": "{field}: should be {expected}, got {got}",
    "at_least": "{field}: should be at least {limit}, got {got}",
    "at_most": "{field}: should be at most {limit}, got {got}",
    "more_than": "{field}: should be more than {limit}, got {got}",
    "less_than": "{field}: should be less than {limit}, got {got}",
    "min_characters": "{field}: should have at least {limit} character(s)",
    "max_characters": "{field}: should have at most {limit} character(s)",
    "min_items": "{field}: should have at least {limit} item(s)",
    "max_items": "{field}: should have at most {limit} item(s)",
    "repeat": "{field}: repeats an earlier item",
    "not_json": "value: not valid JSON ({reason})",
    "not_in_trace": "{field}: '{value}' is not in this trace",
    "stale_step": "{field}: #{number} has changed since it was saved (saved on {ref}, now {now}); {where}",
    "stale_gone": "{field}: #{number} is not in this trace (saved on {ref}); {where}",
    "step_moved": "that step is now #{number} ({agent})",
    "step_moved_among": "that step is now one of {numbers}",
    "step_lost": "that step is not in this trace",
    "no_agent": "no agent",
    "repeats_entry": "{field}: repeats the entry at {first}",
    "ref_without_step": "{field}: saved without a step in {step_field}",
    "not_configured": "{field}: '{value}' is not one of the configured {key}",
    "notes_off": "{field}: notes are turned off for this scheme ({key}: false)",
    "not_as_in_trace": "{field}: should be {expected} as in this trace, got {got}",
    "other_taxonomy": "taxonomy: '{got}' is not this scheme's taxonomy '{want}' (answers made under two "
                      "taxonomies are never compared)",
    "unknown_mode": "{field}: '{value}' is not a mode of {taxonomy}",
    "severity_off": "{field}: severities are turned off for this scheme (allow_severity: false)",
    "run_off": "run: whole-run marks are turned off for this scheme (whole_run: false)",
    "none_with_tags": "none_found: true, but the value has tags",
    "off_in_config": "{field}: not recorded by this scheme ({key}: false)",
    "not_first_of": "{field}: should be {expected} (the first of {list_field}), got {got}",
    "no_entry_in": "{field}: '{value}' has no entry in {source}",
    "missing_in_map": "{field}: '{value}' is missing ({source} has an entry for it)",
    "not_as_in": "{field}: '{value}' should be '{expected}' as in {source}, got '{got}'",
    "ambiguous_edge": "{field}: '{value}' could be {count} edges of this trace; edge_marks must say which",
    "marked_nothing": "{field}: has neither a turn nor a note (store only what was marked)",
    "refs_per_turn": "{field}: should hold one identity per turn ({expected}), got {got}",
    "not_union": "{field}: should be {expected}, the sorted union of the instances' turns",
    "not_reached": "{field}: the milestone is not marked reached",
    "also_scored": "{field}: '{value}' is also scored",
}
"""Each kind of problem and its words; ``{field}`` is the path (``[0].flags``, ``value`` for the whole)."""

TYPE_WORDS: Dict[str, str] = {"string": "a text", "integer": "an integer", "number": "a number",
                              "boolean": "true or false", "null": "null", "array": "a list", "object": "an object"}
"""A JSON Schema type in words, as ``{expected}`` says it."""

LONG_TEXT = 40
"""A text longer than this is described by its length, never shown whole (a 100 KB name)."""

_BOUNDS = {"greater_than_equal": ("at_least", "ge"), "less_than_equal": ("at_most", "le"),
           "greater_than": ("more_than", "gt"), "less_than": ("less_than", "lt")}
_LENGTHS = {"string_too_short": ("min_characters", "min_length"), "string_too_long": ("max_characters", "max_length"),
            "too_short": ("min_items", "min_length"), "too_long": ("max_items", "max_length")}


def word(kind: str, **values: Any) -> str:
    """The problem ``kind`` of :data:`WORDS` with its values filled in."""
    return WORDS[kind].format(**values)


Problem = Dict[str, Any]
"""A trace problem as data: its code (a key of :data:`WORDS`) and its parameters,
``{"code": "not_configured", "field": "[0].flags", "value": "x", "key": "flags"}``. Cases compare
these; only :func:`say` turns one into words, so every type says one rule the same way."""


def problem(code: str, **params: Any) -> Problem:
    """A problem of ``code`` (which must have words) with its parameters."""
    if code not in WORDS:
        raise KeyError(f"no words for the problem code {code!r} (add it to WORDS)")
    return {"code": code, **params}


def say(found: Any) -> str:
    """A problem in words (a text is already words: a shape problem, worded by :func:`shape_problem`)."""
    if isinstance(found, dict):   # true/false/null as JSON and JS's String() write them
        return word(found["code"], **{key: json.dumps(value) if isinstance(value, bool) or value is None else value
                                      for key, value in found.items() if key != "code"})
    return found


def describe(value: Any) -> str:
    """A value as problems show it: never the whole of a long text, a list or an object."""
    if isinstance(value, str):
        return f"a text of {len(value)} characters" if len(value) > LONG_TEXT else json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return js_number(value)
    return str(value)


def expectation(schema: dict, root: dict) -> str:
    """What a JSON Schema accepts, in words: ``an integer ≥ 0 or null``."""
    schema = _resolve(schema, root)
    if "anyOf" in schema:
        return " or ".join(expectation(option, root) for option in schema["anyOf"])
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(item, ensure_ascii=False) for item in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    types = schema.get("type", [])
    types = types if isinstance(types, list) else [types]
    words = " or ".join(TYPE_WORDS.get(name, name) for name in types) or "a value"
    if isinstance(schema.get("minimum"), (int, float)):
        words += f" \u2265 {js_number(schema['minimum'])}"
    if isinstance(schema.get("maximum"), (int, float)):
        words += f" \u2264 {js_number(schema['maximum'])}"
    return words


def field_path(loc: tuple) -> str:
    """A pydantic location as the widget writes it: ``[0].flags``, ``groupthink.instances[1].turns``.

    >>> field_path((0, "flags")), field_path(("groupthink", "instances", 1, "turns")), field_path(())
    ('[0].flags', 'groupthink.instances[1].turns', 'value')
    """
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "value"


def shape_problem(error: dict, root: dict, value: Any) -> str:
    """One pydantic error (``ValidationError.errors()`` item) in the words of :data:`WORDS`.

    ``root`` is the model's JSON Schema and ``value`` what was validated. A fault inside a field
    that allows several shapes (``anyOf``: an integer or null) is worded at that field, as "should
    be one of those", because that is all the schema can say.
    """
    loc, schema = _schema_at(tuple(error["loc"]), root)
    kind = error["type"]
    cut = len(loc) < len(error["loc"])
    if kind == "missing" and not cut:
        return word("missing", field=field_path(loc))
    if kind == "extra_forbidden" and not cut:
        return word("not_a_field", field=field_path(loc))
    if kind == "value_error":   # a rule of ours, worded where it is raised
        return f"{field_path(error['loc'])}: {error['ctx']['error']}"
    if kind == "repeat":
        return word("repeat", field=field_path(tuple(error["loc"]) + (error["ctx"]["position"],)))
    if "anyOf" in schema:
        return word("expected", field=field_path(loc), expected=expectation(schema, root),
                    got=describe(_at(value, loc, error["input"])))
    if kind in _BOUNDS:
        name, key = _BOUNDS[kind]
        return word(name, field=field_path(loc), limit=js_number(error["ctx"][key]), got=describe(error["input"]))
    if kind in _LENGTHS:
        name, key = _LENGTHS[kind]
        return word(name, field=field_path(loc), limit=error["ctx"][key])
    return word("expected", field=field_path(loc), expected=expectation(schema, root), got=describe(error["input"]))


def _at(value: Any, loc: tuple, fallback: Any) -> Any:
    """The part of ``value`` at ``loc`` (pydantic reports the deeper input of a fault)."""
    try:
        for part in loc:
            value = value[part]
    except (KeyError, IndexError, TypeError):
        return fallback
    return value


def _resolve(schema: Any, root: dict) -> dict:
    for _ in range(32):
        if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str)):
            break
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = root.get("$defs", {}).get(name, {})
    return schema if isinstance(schema, dict) else {}


def _schema_at(loc: Tuple[Any, ...], root: dict) -> Tuple[Tuple[Any, ...], dict]:
    """The schema of the field at ``loc``, and ``loc`` cut where a field allows several shapes."""
    schema = _resolve(root, root)
    for depth, part in enumerate(loc):
        if "anyOf" in schema:
            return loc[:depth], schema
        child = _child(schema, part)
        if child is None:
            return loc[:depth + 1], {}
        schema = _resolve(child, root)
    return loc, schema


def _child(schema: dict, part: Any) -> Optional[dict]:
    if isinstance(part, int):
        items = schema.get("items")
        return items if isinstance(items, dict) else None
    properties = schema.get("properties", {})
    if part in properties:
        return properties[part]
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) else None
