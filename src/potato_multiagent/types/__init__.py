"""Layer 4: one class per annotation type, and ``validate_value`` over all of them.

Every module in this package that defines a :class:`Scheme` subclass with a ``widget`` is a type;
adding a module is all it takes to register one (see docs/writing-a-scheme.md).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Dict, List, Type

from .base import Scheme, SchemeConfig


def _discover() -> Dict[str, Type[Scheme]]:
    for module in pkgutil.iter_modules(__path__):
        if module.name != "base":
            importlib.import_module(f"{__name__}.{module.name}")
    found = [cls for cls in _subclasses(Scheme) if "widget" in vars(cls)]
    return {cls.type_name(): cls for cls in sorted(found, key=lambda cls: cls.widget)}


def _subclasses(cls) -> List[type]:
    direct = cls.__subclasses__()
    return direct + [sub for child in direct for sub in _subclasses(child)]


SCHEMES: Dict[str, Type[Scheme]] = _discover()
"""Every registered type by its Potato name (``multiagent.failure_attribution``)."""


def scheme_for(annotation_type: str) -> Type[Scheme]:
    """The scheme class of a type name; the bare name (``failure_attribution``) is accepted too."""
    scheme = SCHEMES.get(annotation_type) or SCHEMES.get(f"multiagent.{annotation_type}")
    if scheme is None:
        known = ", ".join(sorted(SCHEMES))
        raise KeyError(f"unknown annotation type {annotation_type!r} (known: {known})")
    return scheme


def validate_value(annotation_type: str, scheme_config: dict, value: Any, record: Any) -> List[str]:
    """Problems of one stored value; an empty list means it is valid.

    ``value`` is the JSON string Potato stored (or the parsed data); ``record`` is the instance
    it was stored for. A bad scheme config is reported as ``config: ...`` lines.

    >>> validate_value("multiagent.failure_attribution", {"name": "a", "description": "d"},
    ...                '{"responsible_agent": "Z", "decisive_step": 0, "reason": ""}',
    ...                {"steps": [{"agent": "A"}]})
    ["responsible_agent: 'Z' is not in this trace"]
    """
    scheme = scheme_for(annotation_type)
    config, problems = scheme.parse_config(scheme_config)
    if config is None:
        return [f"config: {line}" for line in problems]
    return scheme.validate(value, record, config)


__all__ = ["SCHEMES", "Scheme", "SchemeConfig", "scheme_for", "validate_value"]
