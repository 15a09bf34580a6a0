"""Layer 4: the annotation types, one folder each; the folders are the registry.

A folder ``types/<type>/`` holding a ``scheme.py`` is a type named ``multiagent.<type>``: its
Config, Value and trace problems (``scheme.py``), its export and agreement (``adapter.py``), its
migration from Potato's built-in (``migration.py``), its template (``template.html``), its browser
rules and view (``marks.js``, ``view.js``: ES modules), its CSS (``style.css``) and its rule cases (``cases.json``). Folders whose
name starts with ``_`` hold what types share. Adding a type is adding a folder (see
docs/writing-a-scheme.md). A type can live in a package of its own: its folder is that package,
declared under the entry-point group ``potato_multiagent.types`` (``plan_adherence =
my_package.plan_adherence``); it is found and used exactly as a built-in one.

Only the schemes are imported here: adapters and migrations (which bring pandas) load on first
use, so the plugin stays quick to load inside Potato.
"""

from __future__ import annotations

import importlib
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Optional, Tuple, Type

from ..bundling import type_folders
from ._base import Scheme, SchemeConfig

HERE = Path(__file__).parent
PACKAGE = HERE.parent
"""The plugin's package folder; the asset paths are relative to it (Potato serves them joined into
one script and one style sheet, from a folder of that bundle alone: ``served.py``)."""
WEB = PACKAGE / "web"
"""The browser files every type shares: derivation, value check, widget runtime, base CSS."""

ENTRY_POINTS = "potato_multiagent.types"
"""The entry-point group of annotation types outside this package: ``<type> = <package>``, the
package being a type folder (docs/writing-a-scheme.md, *A type in its own package*)."""


class TypeFolder:
    """One annotation type: its folder and what the folder defines.

    ``name`` is the folder's name for a built-in type, the entry point's for an outside one;
    ``package`` is the folder's importable name."""

    def __init__(self, folder: Path, name: Optional[str] = None, package: Optional[str] = None):
        self.folder = folder
        self.name = name or folder.name
        self.package = package or f"{__name__}.{self.name}"
        self.scheme: Type[Scheme] = _defined_in(self._module("scheme"), Scheme)
        self.scheme.widget = self.name
        self.scheme.folder = folder

    def _module(self, part: str) -> ModuleType:
        return importlib.import_module(f"{self.package}.{part}")

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


def outside_types() -> Dict[str, Tuple[str, Optional[Path]]]:
    """The types other distributions declare: ``{type name: (package, its folder)}``, by name; the
    folder is None when the package cannot be found. Found without importing the package (its
    parent package, for a dotted name, is imported)."""
    from importlib.metadata import entry_points
    from importlib.util import find_spec

    found: Dict[str, Tuple[str, Optional[Path]]] = {}
    for entry in sorted(entry_points(group=ENTRY_POINTS), key=lambda entry: entry.name):
        try:
            spec = find_spec(entry.value)
        except (ImportError, ValueError):
            spec = None
        places = list(spec.submodule_search_locations or []) if spec is not None else []
        found.setdefault(entry.name, (entry.value, Path(places[0]) if places else None))
    return found


def _discover() -> Tuple[Dict[str, TypeFolder], Dict[str, str]]:
    """The built-in types, then the outside ones (:func:`outside_types`); an outside type that
    cannot be loaded is left out, with the reason why (by name), so a config without it still
    starts and one naming it is told why it is unknown."""
    found = {folder.name: TypeFolder(folder) for folder in type_folders(HERE)}
    failed: Dict[str, str] = {}
    for name, (package, folder) in outside_types().items():
        where = f"entry point {name!r} of group {ENTRY_POINTS!r} ({package})"
        if name in found:
            failed[name] = f"{where}: a built-in type is named {name!r}"
        elif not name.isidentifier():
            failed[name] = f"{where}: a type's name is a Python identifier (letters, digits, _)"
        elif folder is None:
            failed[name] = f"{where}: no package {package!r} is installed"
        else:
            try:
                found[name] = TypeFolder(folder, name, package)
            except Exception as error:   # anything its code raises: the built-in types still load
                failed[name] = f"{where}: {type(error).__name__}: {error}"
    return found, failed


TYPES: Dict[str, TypeFolder]
NOT_LOADED: Dict[str, str]
TYPES, NOT_LOADED = _discover()
"""``TYPES``: every type by its name (``failure_attribution``), the built-in ones in folder order,
then the outside ones; ``NOT_LOADED``: the outside types that failed to load, with the reason."""

SCHEMES: Dict[str, Type[Scheme]] = {folder.scheme.type_name(): folder.scheme for folder in TYPES.values()}
"""Every type's scheme class by its Potato name (``multiagent.failure_attribution``)."""


def scheme_for(annotation_type: str) -> Type[Scheme]:
    """The scheme class of a type name; the bare name (``failure_attribution``) is accepted too."""
    scheme = SCHEMES.get(annotation_type) or SCHEMES.get(f"multiagent.{annotation_type}")
    if scheme is None:
        raise KeyError(f"unknown annotation type: {unknown_type(annotation_type)}")
    return scheme


def unknown_type(annotation_type: str) -> str:
    """Why a type name is unknown, in words: the known ones, and the reason when it names an outside
    type that failed to load."""
    known = ", ".join(sorted(SCHEMES))
    failed = NOT_LOADED.get(annotation_type.split(".", 1)[-1])
    return (f"{annotation_type!r} is not provided by this plugin (known: {known})"
            + (f"; it failed to load: {failed}" if failed else ""))


def adapter_for(widget: str):
    """The export/agreement adapter of a type by its folder name (None for no such type)."""
    folder = TYPES.get(widget)
    return folder.adapter if folder is not None else None


def folders() -> Dict[str, Path]:
    """Every type's folder by its name, in the registry's order: what the page's bundle is built
    from (bundling.py; a type that failed to load has none)."""
    return {name: folder.folder for name, folder in TYPES.items()}


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


__all__ = ["ENTRY_POINTS", "NOT_LOADED", "SCHEMES", "TYPES", "Scheme", "SchemeConfig", "TypeFolder", "adapter_for",
           "folders", "outside_types", "scheme_for", "unknown_type", "validate_value"]
