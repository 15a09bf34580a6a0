"""The folder Potato serves our browser files from: the bundle (bundling.py: one script and one
style sheet, named by their content), never the Python.

Potato serves one folder per plugin, all of it (``api.add_assets(folder, ...)``, at
``/plugin-static/multiagent/<path>``, potato/plugins.py). The package folder holds our Python and
templates, so it is not that folder.

An installed package serves the ``bundle/`` folder it was built with (setup.py) and writes
nothing. A source checkout has none: its parts are built by esbuild (bundling.py) when the plugin
registers, into the user's cache, in a folder named by a hash of the sources (``parts-<hash>``), and
joined into a folder named by the bundle's hash (``bundle-<hash>``), each built under a temporary
name and renamed into place: servers starting together share them, and an unchanged checkout
reuses them. Nothing is written into git. Types of other packages installed beside ours are built
the same way, also for an installed package.

A page loads only what its config uses (issue 34): the registered bundle holds everything (the
plugin registers before Potato hands it the config), and at the server's first request, when Potato
holds the config, :func:`serve_what_the_config_uses` joins the shared core, the types the config
names and the trace view if it shows one into a bundle of their own, and points the plugin's assets
at it: a source checkout joins it in the cache as above; an installed package, which writes
nothing into its own folder and may have no writable home, in a folder of Potato's package folder,
where Potato writes the pages it generates (``installed_cache_root``). A config whose phase reads
its questions from a file keeps everything.

Every start from a source checkout marks its folder as used (its time stamp) and removes the bundle
folders nobody has started for ``UNUSED_FOR_DAYS`` days: an edited checkout leaves its old bundle
behind (~400 KB each), but a page still open on a server that is running keeps its own (a server
started less than that long ago marked it).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Collection, Dict, Iterator, Mapping, Optional, Sequence, Set

from .bundling import (SHIPPED, SHIPPED_PARTS, TRACE_VIEW, Built, Bundle, build_parts, built_in, files, parts,
                       read_parts, shipped, sources_digest, used)

TYPE_PREFIX = "multiagent."
"""Our annotation types and our trace display are ``multiagent.<name>`` in a config."""
TRACE_DISPLAY = f"{TYPE_PREFIX}trace"

IMMUTABLE = "public, max-age=31536000, immutable"
"""Cache-Control of a bundle file, as Potato's own ``/static`` files with their ``h=`` hash get:
the name changes whenever the content does."""

_FOREVER: set = set()   # request paths (below the deployment's prefix) of the files serve_forever answers

UNUSED_FOR_DAYS = 30
"""A bundle folder no server has started from for this long is removed by the next start."""


def plugin_bundle(package: Path, folders: Mapping[str, Path], cache: Optional[Path] = None) -> Bundle:
    """The bundle the plugin registers, every part of it: the one an installed package came with,
    else (a source checkout, or types of other packages installed beside it: the shipped one holds
    the built-in types only) every part of ``folders`` (the registry's ``{type: folder}``) joined
    in the cache."""
    bundle = shipped(package)
    if bundle is not None and folders.keys() == built_in(package).keys():
        return bundle
    names = [part.name for part in parts(package, folders)]
    return served_bundle(built_parts(package, folders, cache), names, cache)


def built_parts(package: Path, folders: Mapping[str, Path], cache: Optional[Path] = None) -> Built:
    """Every part of the bundle: the installed package's (``bundle/parts``) when the types are its
    own, else built by esbuild into the cache, once for every content of the sources
    (``parts-<digest>``: servers starting together share it, an unchanged checkout reuses it)."""
    if shipped(package) is not None and folders.keys() == built_in(package).keys():
        return read_parts(package / SHIPPED / SHIPPED_PARTS)
    root = cache if cache is not None else cache_root()
    folder = root / f"parts-{sources_digest(package, folders)}"
    if not folder.is_dir():
        built = build_parts(package, parts(package, folders))
        _ensure(folder, {f"{name}{suffix}": text for name, pair in built.items()
                         for suffix, text in zip((".js", ".css"), pair)})
    os.utime(folder)
    return read_parts(folder)


def served_bundle(built: Built, names: Sequence[str], cache: Optional[Path] = None) -> Bundle:
    """The folder holding the parts ``names`` of ``built`` joined into one script and one sheet,
    made in the cache when missing."""
    made = files(built, names)
    digest = next(iter(made)).split(".")[1]
    root = cache if cache is not None else cache_root()
    folder = _ensure(root / f"bundle-{digest}", made)
    os.utime(folder)
    _remove_unused(root, keep=folder)
    return Bundle(folder, *made)


def cache_root() -> Path:
    """Where a source checkout's bundles go: the user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``),
    else, when that is not writable (a read-only home), one folder of the temporary directory that
    is the user's alone, the same on every start. A folder there that someone else owns or can
    write to is refused: a file planted in it would be served."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "potato-multiagent" / "served"
    if _writable(base):
        return base
    private = Path(tempfile.gettempdir()) / f"potato-multiagent-{_user()}"
    try:
        private.mkdir(mode=0o700, exist_ok=True)
    except OSError as error:
        raise OSError(f"cannot build the browser bundle: {base} is not writable and {private} cannot be "
                      f"made ({error.strerror}); set XDG_CACHE_HOME to a writable folder") from error
    found = os.lstat(private)
    if (not stat.S_ISDIR(found.st_mode) or stat.S_IMODE(found.st_mode) & 0o077
            or (hasattr(os, "getuid") and found.st_uid != os.getuid())):
        raise OSError(f"cannot build the browser bundle: {base} is not writable and {private} is not a "
                      f"folder of yours alone (mode 700); set XDG_CACHE_HOME to a writable folder")
    served = private / "served"
    served.mkdir(exist_ok=True)
    return served


def _user() -> str:
    """The user's id (or name where there are no ids): one temporary folder per user."""
    if hasattr(os, "getuid"):
        return str(os.getuid())
    import getpass

    return getpass.getuser()


def _remove_unused(root: Path, keep: Path) -> None:
    """Remove the bundle folders (and folders left half-built) of ``root`` not started from for
    ``UNUSED_FOR_DAYS`` days; one that cannot be removed now is left for a later start."""
    oldest_kept = time.time() - UNUSED_FOR_DAYS * 86_400
    for folder in root.iterdir():
        if folder != keep and folder.name.lstrip(".").startswith(("bundle-", "parts-")) and folder.is_dir():
            try:
                if folder.stat().st_mtime < oldest_kept:
                    shutil.rmtree(folder)
            except OSError:
                pass


def _ensure(target: Path, contents: dict) -> Path:
    """``target`` holding ``contents`` (name: text); built aside and renamed, so never seen half-made."""
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        for name, text in contents.items():
            (building / name).write_text(text, encoding="utf-8")
        os.rename(building, target)
    except OSError:
        shutil.rmtree(building, ignore_errors=True)
        if not target.is_dir():   # not made by another server meanwhile: a real failure
            raise
    return target


def serve_forever(url_path: str, bundle: Bundle) -> None:
    """Answer the bundle's two files (below ``url_path``) immutable and without the session cookie.

    Potato answers ``/plugin-static`` with ``Cache-Control: no-cache`` and, as its session is
    re-signed on every response, with ``Set-Cookie`` and ``Vary: Cookie``: every page asked the
    server about both files again (two 304s, a round trip on a real link, where Potato's own
    scripts come from the cache without asking). Flask's ``request_finished`` signal carries the
    finished response (session saved): for our two paths only, it becomes what Potato makes of its
    own hashed files. Connecting again (another config, a test) adds the paths, not a receiver."""
    from flask import request_finished

    _FOREVER.update(f"{url_path}/{name}" for name in (bundle.script, bundle.style))
    request_finished.connect(_answer_forever, weak=False)


def _answer_forever(sender, response, **_extra) -> None:
    from flask import request

    if request.path in _FOREVER and response.status_code in (200, 304):
        response.headers["Cache-Control"] = IMMUTABLE
        response.headers.remove("Set-Cookie")
        response.vary.discard("Cookie")


# -- what a config uses -----------------------------------------------------------------------------


def config_uses(config: Dict[str, Any]) -> Optional[Set[str]]:
    """What of ours a Potato config uses: the type folder of every ``multiagent.<type>`` annotation
    type and ``TRACE_VIEW`` for a ``multiagent.trace`` display, wherever the config holds them
    (phases included); None when that cannot be told from the config alone (a phase reads its
    questions from a file), and the page then loads everything."""
    from potato.server_utils.phase_files import question_file_phases

    if any(True for _ in question_file_phases(config)):
        return None
    used: Set[str] = set()
    for node in _dicts(config):
        annotation_type, display_type = node.get("annotation_type"), node.get("type")
        if isinstance(annotation_type, str) and annotation_type.startswith(TYPE_PREFIX):
            used.add(annotation_type[len(TYPE_PREFIX):])
        if display_type == TRACE_DISPLAY:
            used.add(TRACE_VIEW)
    return used


def _dicts(node: Any) -> Iterator[dict]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _dicts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _dicts(value)


def installed_cache_root(plugin_name: str) -> Path:
    """Where an installed package's config bundles go: ``plugin_bundles/<plugin>`` in Potato's package
    folder, which the server writes its generated pages into anyway; the user's cache
    (:func:`cache_root`) when that folder is not writable."""
    import potato

    folder = Path(potato.__file__).parent / "plugin_bundles" / plugin_name
    return folder if _writable(folder) else cache_root()


def _writable(folder: Path) -> bool:
    """Whether ``folder`` exists (made if missing) and this process can write into it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def config_bundle(package: Path, folders: Mapping[str, Path], uses: Optional[Collection[str]],
                  cache: Optional[Path] = None) -> Bundle:
    """The bundle of what a config uses (``uses`` from :func:`config_uses`), joined in the cache."""
    names = used([part.name for part in parts(package, folders)], uses)
    return served_bundle(built_parts(package, folders, cache), names, cache)


def serve_what_the_config_uses(plugin_name: str, url_path: str, package: Path, folders: Mapping[str, Path]) -> None:
    """From the server's first request on, serve the bundle of what Potato's config uses instead of
    the full one the plugin registered.

    Potato hands a plugin no config (it loads plugins while it checks the config, before it keeps
    it), but keeps the assets it reads for every page in the plugin's entry (``plugins.loaded()``:
    its folder, scripts and styles, read per request). So the first request, when the config is
    Potato's, builds the narrowed bundle and points the entry at it; Flask's ``request_started``
    signal comes before the request is handled, so the page it answers has it already."""
    from flask import request_started

    state = {"done": False, "lock": threading.Lock()}

    def narrow(sender, **_extra) -> None:
        if state["done"]:
            return
        with state["lock"]:
            if state["done"]:
                return
            from potato import plugins
            from potato.server_utils.config_module import config

            entry = plugins.loaded().get(plugin_name)
            if entry is None or not config.get("annotation_schemes") and not config.get("phases"):
                return   # not this config's plugin, or no config yet (a process that only checks)
            cache = installed_cache_root(plugin_name) if shipped(package) is not None else None
            bundle = config_bundle(package, folders, config_uses(config), cache)
            serve_forever(url_path, bundle)
            entry.static_dir, entry.scripts, entry.styles = str(bundle.folder), [bundle.script], [bundle.style]
            state["done"] = True

    request_started.connect(narrow, weak=False)
