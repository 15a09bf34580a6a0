"""The folder Potato serves our browser files from: one script and one style sheet, never the Python.

Potato serves one folder per plugin, all of it (``api.add_assets(folder, ...)``, at
``/plugin-static/multiagent/<path>``, potato/plugins.py). The package folder holds our Python and
templates, so it is not that folder. When the plugin registers, the scripts the pages load
(``types.scripts()``, in their load order) are joined into one script and the style sheets
(``types.styles()``) into one sheet, in a folder of their own: one request, one parse and one
evaluation instead of one per file (docs/performance.md section 11).

Each file keeps its own semantics: every page script is a self-contained UMD/IIFE (its
``'use strict'`` inside its function), and the files are joined with ``;`` on a line of its own,
each after a header comment naming it (``/* ==== web/words.js ==== */``), so a reader of the
bundle, or of a stack trace's line, can tell which file a line came from.

The bundle's name holds a hash of its content (``multiagent.<hash>.js``): Potato's ``?v=`` is
the plugin's version, which an edit does not change, so the name is what keeps a browser from
serving a changed plugin stale, and what lets browsers keep the files without asking again
(``serve_forever``). The folder is named by the same hash, built under a temporary
name and renamed into place: servers starting together share it, and an unchanged plugin reuses
it. Nothing is written into git or the wheel.

Every start marks its folder as used (its time stamp) and removes the bundle folders nobody has
started for ``UNUSED_FOR_DAYS`` days: an edited or upgraded plugin leaves its old bundle behind
(~600 KB each), but a page still open on a server that is running keeps its own (a server started
less than that long ago marked it).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import List, NamedTuple, Optional, Sequence, Tuple

BUNDLE_NAME = "multiagent"
"""The bundle's files are ``multiagent.<hash>.js`` and ``multiagent.<hash>.css``."""

IMMUTABLE = "public, max-age=31536000, immutable"
"""Cache-Control of a bundle file, as Potato's own ``/static`` files with their ``h=`` hash get:
the name changes whenever the content does."""

_FOREVER: set = set()   # request paths (below the deployment's prefix) of the files serve_forever answers

UNUSED_FOR_DAYS = 30
"""A bundle folder no server has started from for this long is removed by the next start."""


class Bundle(NamedTuple):
    """What the plugin registers: the folder Potato serves and the two files in it."""
    folder: Path
    script: str
    style: str


HEADER_OPEN, HEADER_CLOSE = "/* ==== ", " ==== */"


def header(name: str) -> str:
    """The comment line that opens each file's part of a bundle (valid in JS and CSS)."""
    return f"{HEADER_OPEN}{name}{HEADER_CLOSE}\n"


def first_lines(bundle_text: str) -> List[Tuple[int, str]]:
    """(line number, from 1, of each file's header; the file's name) in a bundle: which file a line
    of a stack trace came from (the bench's probe uses it to tell widget.js's listener)."""
    return [(number, line[len(HEADER_OPEN):-len(HEADER_CLOSE)])
            for number, line in enumerate(bundle_text.split("\n"), start=1)
            if line.startswith(HEADER_OPEN) and line.endswith(HEADER_CLOSE)]


def join_scripts(package: Path, names: Sequence[str]) -> str:
    """The scripts ``names`` (relative to ``package``) as one script, in order. A file need not
    end with a newline: its part does, then a ``;`` line ends a statement left open (``}())``)."""
    return "".join(header(name) + _text(package, name).rstrip("\n") + "\n;\n" for name in names)


def join_styles(package: Path, names: Sequence[str]) -> str:
    """The style sheets ``names`` as one sheet, in order (none of ours uses ``@import``, which
    would have to come first)."""
    return "".join(header(name) + _text(package, name).rstrip("\n") + "\n" for name in names)


def served_bundle(package: Path, scripts: Sequence[str], styles: Sequence[str],
                  cache: Optional[Path] = None) -> Bundle:
    """The folder holding ``scripts`` joined into one script and ``styles`` into one sheet, made
    when missing; a missing file is named."""
    script, style = join_scripts(package, scripts), join_styles(package, styles)
    digest = hashlib.sha256(script.encode() + b"\0" + style.encode()).hexdigest()[:20]
    files = {f"{BUNDLE_NAME}.{digest}.js": script, f"{BUNDLE_NAME}.{digest}.css": style}
    root = cache if cache is not None else _cache_root()
    folder = _ensure(root / f"bundle-{digest}", files)
    os.utime(folder)
    _remove_unused(root, keep=folder)
    return Bundle(folder, *files)


def _text(package: Path, name: str) -> str:
    path = package / name
    if not path.is_file():
        raise FileNotFoundError(f"browser asset not found: {path}")
    return path.read_text(encoding="utf-8")


def _cache_root() -> Path:
    """The user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``); a private temporary folder if it is
    not writable (never a shared one: a file planted there by someone else would be served)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "potato-multiagent" / "served"
    try:
        base.mkdir(parents=True, exist_ok=True)
        if os.access(base, os.W_OK):
            return base
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="potato-multiagent-served-"))


def _remove_unused(root: Path, keep: Path) -> None:
    """Remove the bundle folders (and folders left half-built) of ``root`` not started from for
    ``UNUSED_FOR_DAYS`` days; one that cannot be removed now is left for a later start."""
    oldest_kept = time.time() - UNUSED_FOR_DAYS * 86_400
    for folder in root.iterdir():
        if folder != keep and folder.name.lstrip(".").startswith("bundle-") and folder.is_dir():
            try:
                if folder.stat().st_mtime < oldest_kept:
                    shutil.rmtree(folder)
            except OSError:
                pass


def _ensure(target: Path, files: dict) -> Path:
    """``target`` holding ``files`` (name: text); built aside and renamed, so never seen half-made."""
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        for name, text in files.items():
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
