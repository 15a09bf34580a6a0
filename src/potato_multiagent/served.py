"""The folder Potato serves our browser files from: those files only, never the package's Python.

Potato serves one folder per plugin, all of it (``api.add_assets(folder, ...)``, at
``/plugin-static/multiagent/<path>``, potato/plugins.py). The package folder holds our Python and
templates, so it is not that folder: when the plugin registers, the scripts and styles the pages
load (``types.scripts()``, ``types.styles()``) are linked into a folder of their own, at the same
relative paths (the URLs stay as they were). Nothing is copied into git or the wheel.

Links follow edits of the files (an editable install). Where the system refuses links, the files
are copied, and the folder's name then covers their content, so a copy is never stale. The folder
is built under a temporary name and renamed into place: servers starting together share it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable, Optional


def served_folder(package: Path, files: Iterable[str], cache: Optional[Path] = None) -> Path:
    """A folder holding exactly ``files`` (paths relative to ``package``), made when missing."""
    files = sorted(set(files))
    root = cache if cache is not None else _cache_root()
    try:
        return _ensure(root, package, files, link=True)
    except OSError:
        return _ensure(root, package, files, link=False)


def _cache_root() -> Path:
    """The user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``); a private temporary folder if it is
    not writable (never a shared one: a link planted there by someone else would be served)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "potato-multiagent" / "served"
    try:
        base.mkdir(parents=True, exist_ok=True)
        if os.access(base, os.W_OK):
            return base
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="potato-multiagent-served-"))


def _ensure(root: Path, package: Path, files: list, link: bool) -> Path:
    target = root / _name(package, files, link)
    if target.is_dir():
        return target
    root.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=root))
    try:
        for name in files:
            _place(package / name, building / name, link)
        os.rename(building, target)
    except OSError:
        shutil.rmtree(building, ignore_errors=True)
        if not target.is_dir():   # not made by another server meanwhile: a real failure
            raise
    return target


def _place(source: Path, destination: Path, link: bool) -> None:
    if not source.is_file():
        raise FileNotFoundError(f"browser asset not found: {source}")
    destination.parent.mkdir(parents=True, exist_ok=True)
    if link:
        os.symlink(source, destination)
    else:
        shutil.copyfile(source, destination)


def _name(package: Path, files: list, link: bool) -> str:
    """Which package and files the folder holds (and, for copies, their content)."""
    digest = hashlib.sha256(str(package.resolve()).encode())
    for name in files:
        digest.update(b"\0" + name.encode())
        if not link:
            digest.update(b"\0" + (package / name).read_bytes())
    return ("links-" if link else "copies-") + digest.hexdigest()[:24]
