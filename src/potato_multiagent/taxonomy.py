"""Failure-mode taxonomies: MAST by default, or any other in the same shape from a file.

One model for every taxonomy a ``multiagent.mast`` scheme tags with: modes, each with a
``category``, a ``code``, a ``name``, a ``definition`` and an optional ``example``, in order. MAST
(Cemri et al. 2025: 14 modes in 3 categories) comes from Potato's own preset
(``potato.server_utils.failure_taxonomy``), so codes and names are Potato's (``1.3 Step
repetition``) and labels made with Potato's ``hierarchical_multiselect`` ``taxonomy_preset: mast``
read the same. Another taxonomy (TRAIL's categories, AgentRx's, a team's own) is a YAML or JSON
file::

    name: trail                         # optional: the file's stem
    version: "2025-05"                  # optional: a fingerprint of the modes
    source: "TRAIL (Deshpande et al. 2025), Table 2"
    modes:
      - {category: Reasoning, code: R1, name: Hallucination, definition: "...", example: "..."}

Every answer stores the taxonomy's :attr:`Taxonomy.id` (``name@version``). The version is the
file's own, or else a fingerprint of every mode's category, code and name (definitions are
explanations: rewording one keeps the version), so a renamed, renumbered or added mode gives
another id, and answers made under two ids are never compared as if they were one taxonomy.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import yaml

DEFAULT_PRESET = "mast"
MODE_FIELDS = ("category", "code", "name", "definition", "example")


class TaxonomyError(ValueError):
    """A taxonomy that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Mode:
    category: str
    code: str
    name: str
    definition: str
    example: str = ""

    @property
    def label(self) -> str:
        """How annotators and exports read the mode: ``1.3 Step repetition`` (Potato's own label)."""
        return f"{self.code} {self.name}"

    def to_dict(self) -> dict:
        found = {"category": self.category, "code": self.code, "name": self.name, "definition": self.definition}
        if self.example:
            found["example"] = self.example
        return found


@dataclass(frozen=True)
class Taxonomy:
    name: str
    version: str
    source: str
    modes: Tuple[Mode, ...]

    @property
    def id(self) -> str:
        """What every answer stores: ``mast@1a2b3c4d``."""
        return f"{self.name}@{self.version}"

    @property
    def codes(self) -> List[str]:
        return [mode.code for mode in self.modes]

    def mode(self, code: str) -> Optional[Mode]:
        return next((mode for mode in self.modes if mode.code == code), None)

    def categories(self) -> Dict[str, List[Mode]]:
        """Modes by category, both in the taxonomy's order."""
        grouped: Dict[str, List[Mode]] = {}
        for mode in self.modes:
            grouped.setdefault(mode.category, []).append(mode)
        return grouped

    def to_browser(self) -> dict:
        """What the page gets (in the scheme's config): the id and every mode with its definition."""
        return {"id": self.id, "name": self.name, "version": self.version, "source": self.source,
                "categories": [{"name": category, "modes": [mode.to_dict() for mode in modes]}
                               for category, modes in self.categories().items()]}

    def find(self, label: Any) -> Optional[Mode]:
        """The mode a label from elsewhere (a dataset's gold, a judge) names, or None.

        A label names a mode by its code (``1.3``, ``FM-1.3``), by its name, or by both (``1.3 Step
        repetition``). A label with a code must carry this taxonomy's name for that code too when it
        has a name (MAD's rounds 1-3 use ``1.1`` for *Poor task constraint compliance*): a code
        alone is trusted, a code with another mode's name is not this taxonomy's. Names compare
        without case, punctuation or spacing, and tolerate a letter's slip (MAD writes
        ``Information Witholding``).
        """
        if not isinstance(label, str) or not label.strip():
            return None
        text = label.strip().splitlines()[0].strip()
        code, name = _split_label(text)
        if code is not None:
            mode = self.mode(code)
            if mode is None:
                return None
            return mode if not name or _same_name(name, mode.name) else None
        matches = [mode for mode in self.modes if _same_name(text, mode.name)]
        return matches[0] if len(matches) == 1 else None


_CODE = re.compile(r"(?:FM-?)?(\d+(?:\.\d+)*)\b\s*[:.\-\u2013]?\s*(.*)\Z", re.IGNORECASE)


def _split_label(text: str) -> Tuple[Optional[str], str]:
    match = _CODE.match(text)
    if match is None:
        return None, text
    return match.group(1), match.group(2).strip()


def _folded(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _same_name(a: str, b: str) -> bool:
    """Equal without case, spacing and punctuation, or one letter apart (an omitted or doubled one)."""
    x, y = _folded(a), _folded(b)
    if x == y:
        return True
    if abs(len(x) - len(y)) != 1 or min(len(x), len(y)) < 8:
        return False
    short, long_ = sorted((x, y), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def fingerprint(modes: Tuple[Mode, ...]) -> str:
    """Eight hex digits of the modes' categories, codes and names, in order."""
    text = "\n".join(f"{mode.category}\t{mode.code}\t{mode.name}" for mode in modes)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


# --------------------------------------------------------------------------- Potato's presets


@lru_cache(maxsize=None)
def preset(name: str = DEFAULT_PRESET) -> Taxonomy:
    """A taxonomy Potato ships (``potato.server_utils.failure_taxonomy``: ``mast``)."""
    from potato.server_utils import failure_taxonomy

    try:
        raw = failure_taxonomy.get_preset(name)
    except KeyError as error:
        raise TaxonomyError(str(error.args[0])) from None
    modes = tuple(Mode(category, str(code), str(mode_name), str(definition))
                  for category, entries in raw.items() for code, mode_name, definition in entries)
    key = name.strip().lower()
    return Taxonomy(key, fingerprint(modes), f"potato.server_utils.failure_taxonomy preset '{key}'", modes)


def preset_names() -> List[str]:
    from potato.server_utils import failure_taxonomy

    return failure_taxonomy.list_presets()


# --------------------------------------------------------------------------- files


def load_file(path: Path) -> Taxonomy:
    """A taxonomy file (YAML or JSON), read again only when it changes on disk."""
    path = Path(path)
    try:
        stat = path.stat()
    except OSError as error:
        raise TaxonomyError(f"cannot read {path} ({error.strerror or error})") from None
    return _load_file(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=32)
def _load_file(path: str, mtime: int, size: int) -> Taxonomy:
    where = path
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TaxonomyError(f"{where}: cannot read it ({error})") from None
    try:
        data = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as error:
        raise TaxonomyError(f"{where}: not valid {'JSON' if path.endswith('.json') else 'YAML'} ({error})") from None
    return parse_taxonomy(data, default_name=Path(path).stem, where=where)


def parse_taxonomy(data: Any, default_name: str, where: str) -> Taxonomy:
    """A taxonomy from parsed data: ``{name?, version?, source?, modes: [...]}`` or the list of modes."""
    if isinstance(data, list):
        data = {"modes": data}
    if not isinstance(data, dict):
        raise TaxonomyError(f"{where}: expected an object with 'modes' (a list), or the list of modes")
    unknown = sorted(set(data) - {"name", "version", "source", "modes"})
    if unknown:
        raise TaxonomyError(f"{where}: {unknown[0]}: not a key of a taxonomy (known: name, version, source, modes)")
    entries = data.get("modes")
    if not isinstance(entries, list) or not entries:
        raise TaxonomyError(f"{where}: modes: expected a list of at least one mode")
    modes, seen = [], {}
    for position, entry in enumerate(entries):
        modes.append(_mode(entry, f"{where}: modes[{position}]"))
        code = modes[-1].code
        if code in seen:
            raise TaxonomyError(f"{where}: modes[{position}].code: '{code}' repeats modes[{seen[code]}]")
        seen[code] = position
    modes_tuple = tuple(modes)
    name = _text(data, "name", where, default_name)
    version = _text(data, "version", where, fingerprint(modes_tuple))
    if "@" in name or not name.strip():
        raise TaxonomyError(f"{where}: name: expected a name without '@'")
    return Taxonomy(name.strip(), version.strip(), _text(data, "source", where, where), modes_tuple)


def _text(data: dict, key: str, where: str, default: str) -> str:
    value = data.get(key, default)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise TaxonomyError(f"{where}: {key}: expected a text")
    return value


def _mode(entry: Any, where: str) -> Mode:
    if not isinstance(entry, dict):
        raise TaxonomyError(f"{where}: expected an object {{category, code, name, definition, example?}}")
    unknown = sorted(set(entry) - set(MODE_FIELDS))
    if unknown:
        raise TaxonomyError(f"{where}.{unknown[0]}: not a field of a mode (known: {', '.join(MODE_FIELDS)})")
    values = {}
    for field in MODE_FIELDS:
        value = entry.get(field, "" if field == "example" else None)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and field == "code":
            value = str(value)
        if not isinstance(value, str) or (field != "example" and not value.strip()):
            raise TaxonomyError(f"{where}.{field}: expected a text" + ("" if field == "example" else ", not empty"))
        values[field] = value.strip()
    if re.search(r"\s", values["code"]):
        raise TaxonomyError(f"{where}.code: expected a code without spaces, got '{values['code']}'")
    return Mode(**values)


def resolve(taxonomy: Any, file: Optional[str], base: Optional[Path] = None) -> Taxonomy:
    """The taxonomy a scheme names: its ``modes_file`` (relative to ``base``, else the working
    folder: where Potato runs, the task's folder) when given; else ``taxonomy``, Potato's preset by
    name or a taxonomy written inline (``{name, version, modes: [...]}``)."""
    if file:
        path = Path(file)
        if not path.is_absolute() and base is not None:
            path = base / path
        return load_file(path)
    if isinstance(taxonomy, dict):
        return _inline(json.dumps(taxonomy, sort_keys=True))
    return preset(taxonomy)


@lru_cache(maxsize=32)
def _inline(text: str) -> Taxonomy:
    return parse_taxonomy(json.loads(text), default_name="inline", where="inline")
