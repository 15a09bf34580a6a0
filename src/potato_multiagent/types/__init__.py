"""Layer 4: the annotation types, one folder each; the folders are the registry.

A folder ``types/<type>/`` holding a ``scheme.py`` is a type named ``multiagent.<type>``: its
Config, Value and trace problems (``scheme.py``), its export and agreement (``adapter.py``), its
migration from Potato's built-in (``migration.py``), its template (``template.html``), its browser
rules and view (``marks.js``, ``view.js``; ``widget.js`` until ported) and CSS (``style.css``) and its rule cases (``cases.json``). Folders whose
name starts with ``_`` hold what types share. Adding a type is adding a folder (see
docs/writing-a-scheme.md).

Only the schemes are imported here: adapters and migrations (which bring pandas) load on first
use, so the plugin stays quick to load inside Potato.
"""

from __future__ import annotations

import importlib
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Optional, Type

from .. import bundling
from ..bundling import TYPE_SCRIPTS, WEB_SCRIPTS
from ._base import Scheme, SchemeConfig

HERE = Path(__file__).parent
PACKAGE = HERE.parent
"""The plugin's package folder; the asset paths are relative to it (Potato serves them joined into
one script and one style sheet, from a folder of that bundle alone: ``served.py``)."""
WEB = PACKAGE / "web"
"""The browser files every type shares: derivation, value check, widget runtime, base CSS."""


class TypeFolder:
    """One annotation type: its folder and what the folder defines."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.name = folder.name
        self.scheme: Type[Scheme] = _defined_in(self._module("scheme"), Scheme)
        self.scheme.widget = self.name

    def _module(self, part: str) -> ModuleType:
        return importlib.import_module(f"{__name__}.{self.name}.{part}")

    @cached_property
    def adapter(self):
        """The type's export/agreement adapter class (``adapter.py``)."""
        from ._base.adapter import Adapter

        return _defined_in(self._module("adapter"), Adapter)

    @cached_property
    def migration(self) -> Optional[ModuleType]:
        """The type's ``migration.py`` (``REPLACES``, and ``migrate`` when the built-in's shape differs)."""
        if not (self.folder / "migration.py").is_file():
            return None
        return self._module("migration")


def _defined_in(module: ModuleType, base: type) -> Any:
    """The one subclass of ``base`` that ``module`` itself defines."""
    found = [value for value in vars(module).values()
             if isinstance(value, type) and issubclass(value, base) and value is not base
             and value.__module__ == module.__name__ and value.__name__ != base.__name__]
    found = [cls for cls in found if not any(other is not cls and issubclass(other, cls) for other in found)]
    if len(found) != 1:
        names = ", ".join(cls.__name__ for cls in found) or "none"
        raise ImportError(f"{module.__name__} must define exactly one {base.__name__} subclass (found: {names})")
    return found[0]


def _discover() -> Dict[str, TypeFolder]:
    return {folder.name: TypeFolder(folder) for folder in bundling.type_folders(HERE)}


TYPES: Dict[str, TypeFolder] = _discover()
"""Every type by its folder name (``failure_attribution``), in folder order."""

SCHEMES: Dict[str, Type[Scheme]] = {folder.scheme.type_name(): folder.scheme for folder in TYPES.values()}
"""Every type's scheme class by its Potato name (``multiagent.failure_attribution``)."""


def scheme_for(annotation_type: str) -> Type[Scheme]:
    """The scheme class of a type name; the bare name (``failure_attribution``) is accepted too."""
    scheme = SCHEMES.get(annotation_type) or SCHEMES.get(f"multiagent.{annotation_type}")
    if scheme is None:
        known = ", ".join(sorted(SCHEMES))
        raise KeyError(f"unknown annotation type {annotation_type!r} (known: {known})")
    return scheme


def adapter_for(widget: str):
    """The export/agreement adapter of a type by its folder name (None for no such type)."""
    folder = TYPES.get(widget)
    return folder.adapter if folder is not None else None


def scripts() -> List[str]:
    """The scripts every page loads, in order (the order's rules: :mod:`..bundling`)."""
    return bundling.scripts(PACKAGE)


def styles() -> List[str]:
    """The style sheets every page loads, in order (:mod:`..bundling`)."""
    return bundling.styles(PACKAGE)


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


__all__ = ["SCHEMES", "TYPES", "TYPE_SCRIPTS", "WEB_SCRIPTS", "Scheme", "SchemeConfig", "TypeFolder", "adapter_for",
           "scheme_for", "scripts", "styles", "validate_value"]
