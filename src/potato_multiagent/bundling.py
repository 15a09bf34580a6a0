"""The build step of the browser half: the ES modules of ``web/`` and of each type's folder, bundled
by esbuild into *parts*, and the parts a page uses joined into one script and one style sheet,
each named by a hash of its content (``multiagent.<hash>.js``, ``.css``).

The parts (:func:`parts`): ``core`` (``web/page.js``: the runtime, with every module it imports,
made the page's one global, ``PotatoMultiagent``), ``trace_view`` (``web/trace_view.js`` and its
modules), one per type (its ``view.js``, which imports its ``marks.js`` and ``view_*.js``) and one
per type's part of the trace view (``<type>.trace``, its ``trace.js``). The imports are the
dependency graph: there is no load order to keep by hand. Every part but the core reads the runtime
from the page's global (its imports of ``'potato-multiagent'`` do, ``build_web.mjs``), so a page
joins only the parts its config uses (:func:`used`) and still runs one runtime; a part that would
carry a second copy of a core module is refused when it is built.

esbuild (pinned in ``package.json``) runs in node, once for every part (``build_web.mjs``), when the
wheel is built: ``setup.py`` calls :func:`build`, which writes the parts and the whole bundle into
``bundle/``, so an installed package needs no node and writes nothing. A source checkout has no
``bundle/``: served.py builds the parts when the plugin loads, into the user's cache, once per
content of the sources (:func:`sources_digest`). Types of other distributions (the registry finds
them: ``types``) are built the same way, beside the built-in ones, so a server with one installed
needs node and esbuild (docs/writing-a-scheme.md).

Parts are joined with a header comment naming each (``/* ==== core ==== */``), so a reader of the
bundle, or of a stack trace's line, can tell which part a line came from; the script opens with
V8's compile hint (:data:`COMPILE_HINT`). The name holds the content's hash because Potato's
``?v=`` is the plugin's version, which an edit does not change: the name is what keeps a browser
from serving a changed plugin stale (served.py).

This module imports nothing of the package: the build loads it by its path.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Collection, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

SHIPPED = "bundle"
"""The folder of the built package holding the bundle (``potato_multiagent/bundle/``): built into
the wheel, never present in a source checkout."""

SHIPPED_PARTS = "parts"
"""The folder of ``bundle/`` holding every part, ``<part>.js`` and ``<part>.css``: what a config's
own bundle is joined from."""

BUNDLE_NAME = "multiagent"
"""The bundle's files are ``multiagent.<hash>.js`` and ``multiagent.<hash>.css``."""

BUILD_SCRIPT = "build_web.mjs"
"""The node script that runs esbuild on the parts (in the package: a type of your own is built by it
too)."""

CORE = "core"
"""The runtime's part, loaded by every page."""

TRACE_VIEW = "trace_view"
"""The trace view's part, and its name among what a page uses (``uses``: type names and this)."""

TRACE_PART = ".trace"
"""A type's part of the trace view is ``<type>.trace`` (MAST's failure-mode chips on the steps):
loaded with the type when the page shows a trace view, and never otherwise."""


class Part(NamedTuple):
    """One part of the bundle: its entry module and its style sheets, in order."""
    name: str
    entry: Path
    styles: Tuple[Path, ...] = ()


class Bundle(NamedTuple):
    """What the plugin registers: the folder Potato serves and the two files in it."""
    folder: Path
    script: str
    style: str


Built = Dict[str, Tuple[str, str]]
"""Built parts: ``{part name: (script, style)}``."""


# -- what goes in ------------------------------------------------------------------------------------

def type_folders(types_folder: Path) -> List[Path]:
    """The built-in annotation types' folders, in order: every folder of ``types/`` holding a
    ``scheme.py`` (one starting with ``_`` or ``.`` holds what types share)."""
    return sorted(path for path in types_folder.iterdir()
                  if path.is_dir() and not path.name.startswith(("_", ".")) and (path / "scheme.py").is_file())


def built_in(package: Path) -> Dict[str, Path]:
    """The built-in types' folders by name."""
    return {folder.name: folder for folder in type_folders(package / "types")}


def parts(package: Path, folders: Mapping[str, Path]) -> List[Part]:
    """Every part, in the order a page loads them: the core, the trace view, then each type of
    ``folders`` (``{name: folder}``) followed by its part of the trace view where it has one."""
    web = package / "web"
    found = [Part(CORE, web / "page.js", (web / "multiagent.css", web / "windowing.css")),
             Part(TRACE_VIEW, web / "trace_view.js", (web / "trace_view.css",))]
    for name, folder in folders.items():
        found.append(Part(name, folder / "view.js", tuple(path for path in [folder / "style.css"] if path.is_file())))
        if (folder / "trace.js").is_file():
            found.append(Part(name + TRACE_PART, folder / "trace.js"))
    return found


def used(names: Sequence[str], uses: Optional[Collection[str]]) -> List[str]:
    """The part names of ``names`` a page loads, in their order: the core always; the trace view and
    the types' parts of it when the page shows one; each type it uses. ``uses``: the types and the
    trace view (``TRACE_VIEW``) the page uses; None: every part."""
    if uses is None:
        return list(names)
    with_trace = TRACE_VIEW in uses

    def loaded(name: str) -> bool:
        if name == CORE:
            return True
        if name == TRACE_VIEW:
            return with_trace
        if name.endswith(TRACE_PART):
            return with_trace and name[:-len(TRACE_PART)] in uses
        return name in uses
    return [name for name in names if loaded(name)]


def sources_digest(package: Path, folders: Mapping[str, Path]) -> str:
    """A hash of everything the parts are built from (every module and sheet of ``web/`` and of the
    type folders, the build script, the pinned esbuild): built parts are reused while it holds."""
    digest = hashlib.sha256()
    files = [package / BUILD_SCRIPT, package / "package.json"]
    for folder in [package / "web", *folders.values()]:
        files += sorted(path for path in folder.iterdir() if path.suffix in (".js", ".mjs", ".css"))
    for path in files:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(_esbuild_version(package).encode())
    return digest.hexdigest()[:20]


# -- building (node and esbuild) --------------------------------------------------------------------

def build_parts(package: Path, every: Sequence[Part]) -> Built:
    """Every part of ``every`` built by esbuild (``build_web.mjs``): ``{name: (script, style)}``."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("building the browser bundle needs node (Node.js 20 or later) on PATH, and esbuild "
                           "(`npm ci` in the checkout); an installed potato-multiagent comes with its bundle built")
    job = {"core": CORE, "parts": [{"name": part.name, "entry": str(part.entry),
                                    "styles": [str(path) for path in part.styles]} for part in every]}
    modules = _node_modules(package)
    paths = [str(modules)] if modules is not None else []
    environment = {**os.environ, "NODE_PATH": os.pathsep.join(paths + [os.environ.get("NODE_PATH", "")]).strip(os.pathsep)}
    done = subprocess.run([node, str(package / BUILD_SCRIPT)], input=json.dumps(job), capture_output=True,
                          text=True, encoding="utf-8", env=environment)
    if done.returncode != 0:
        raise RuntimeError(f"building the browser bundle failed: {done.stderr.strip()}")
    answer = json.loads(done.stdout)
    return {part.name: (answer[part.name]["script"], answer[part.name]["style"]) for part in every}


def _node_modules(package: Path) -> Optional[Path]:
    """The ``node_modules`` holding esbuild nearest above ``package`` (a source checkout's), else
    the one NODE_PATH names (a wheel built from the sdist: ``NODE_PATH=$PWD/node_modules python -m
    build``, docs/releasing.md), else None."""
    places = [folder / "node_modules" for folder in package.resolve().parents]
    places += [Path(path) for path in os.environ.get("NODE_PATH", "").split(os.pathsep) if path]
    return next((place for place in places if (place / "esbuild" / "package.json").is_file()), None)


def _esbuild_version(package: Path) -> str:
    """The version of the esbuild a build would use ('' when none is found)."""
    modules = _node_modules(package)
    if modules is None:
        return ""
    return json.loads((modules / "esbuild" / "package.json").read_text(encoding="utf-8")).get("version", "")


# -- joining ----------------------------------------------------------------------------------------

HEADER_OPEN, HEADER_CLOSE = "/* ==== ", " ==== */"

COMPILE_HINT = "//# allFunctionsCalledOnLoad\n"
"""The script's first line: V8 (Chrome 136 and later) then compiles every function of the bundle
when the script loads, off the main thread, and keeps them in the code cache with it. A page of
ours calls most of its functions before it is ready (the derivation, the forms in sight, the trace
view); compiled lazily, each was compiled on the main thread at its first call, on every load.
With it a warm load at 200 steps spends 11-14 ms less of the main thread's CPU (init's page and
the seven types'), and init's page is ready about 20 ms sooner (bench.versus). Other
engines read a comment."""


def header(name: str) -> str:
    """The comment line that opens each part of a bundle (valid in JS and CSS)."""
    return f"{HEADER_OPEN}{name}{HEADER_CLOSE}\n"


def first_lines(bundle_text: str) -> List[Tuple[int, str]]:
    """(line number, from 1, of each part's header; the part's name) in a bundle: which part a line
    of a stack trace came from."""
    return [(number, line[len(HEADER_OPEN):-len(HEADER_CLOSE)])
            for number, line in enumerate(bundle_text.split("\n"), start=1)
            if line.startswith(HEADER_OPEN) and line.endswith(HEADER_CLOSE)]


def files(built: Built, names: Sequence[str]) -> Dict[str, str]:
    """The bundle's two files (name: text), the script first: the parts ``names`` of ``built``
    joined in that order (the script after :data:`COMPILE_HINT`), named by a hash of both. A
    part's script is one statement (esbuild's IIFE) and ends with a newline."""
    missing = [name for name in names if name not in built]
    if missing:
        raise KeyError(f"no such part of the browser bundle: {', '.join(missing)}")
    script = COMPILE_HINT + "".join(header(name) + built[name][0] for name in names)
    style = "".join(header(name) + built[name][1] + "\n" for name in names if built[name][1])
    digest = hashlib.sha256(script.encode() + b"\0" + style.encode()).hexdigest()[:20]
    return {f"{BUNDLE_NAME}.{digest}.js": script, f"{BUNDLE_NAME}.{digest}.css": style}


# -- the wheel's bundle -----------------------------------------------------------------------------

def write_parts(built: Built, folder: Path) -> None:
    """Each built part as ``<part>.js`` and ``<part>.css`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, (script, style) in built.items():
        (folder / f"{name}.js").write_text(script, encoding="utf-8")
        (folder / f"{name}.css").write_text(style, encoding="utf-8")


def read_parts(folder: Path) -> Built:
    """The parts :func:`write_parts` wrote."""
    return {path.stem: (path.read_text(encoding="utf-8"), path.with_suffix(".css").read_text(encoding="utf-8"))
            for path in sorted(folder.glob("*.js"))}


def build(package: Path, folder: Optional[Path] = None) -> Bundle:
    """Write the bundle of ``package`` into ``folder`` (by default ``package/bundle``, which must not
    exist yet: a build starts from a clean tree): every part of the built-in types into
    ``parts/``, and all of them joined, the bundle the plugin registers. The package's own types
    only, never an outside type the building environment happens to have."""
    folder = folder if folder is not None else package / SHIPPED
    every = parts(package, built_in(package))
    built = build_parts(package, every)
    folder.mkdir(parents=True)
    write_parts(built, folder / SHIPPED_PARTS)
    made = files(built, [part.name for part in every])
    for name, text in made.items():
        (folder / name).write_text(text, encoding="utf-8")
    return Bundle(folder, *made)


def shipped(package: Path) -> Optional[Bundle]:
    """The bundle an installed package came with, or None in a source checkout (no ``bundle/``)."""
    folder = package / SHIPPED
    if not folder.is_dir():
        return None
    found = {suffix: sorted(path.name for path in folder.glob(f"{BUNDLE_NAME}.*{suffix}")) for suffix in (".js", ".css")}
    if (len(found[".js"]) != 1 or len(found[".css"]) != 1 or found[".js"][0][:-3] != found[".css"][0][:-4]
            or not (folder / SHIPPED_PARTS / f"{CORE}.js").is_file()):
        raise FileNotFoundError(f"{folder}: the installed bundle should be one {BUNDLE_NAME}.<hash>.js, its .css and "
                                f"{SHIPPED_PARTS}/ (found {found['.js'] + found['.css'] or 'nothing'}); "
                                f"reinstall potato-multiagent")
    return Bundle(folder, found[".js"][0], found[".css"][0])
