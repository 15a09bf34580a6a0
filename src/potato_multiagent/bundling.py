"""The build step of the browser half: every page script minified and joined into one script,
every style sheet into one sheet, each named by a hash of its content (``multiagent.<hash>.js``,
``.css``).

One request, one parse and one evaluation instead of one per file (docs/performance.md).
Each file is minified on its own (rjsmin, rcssmin: comments and whitespace go, names stay, so
what a page loads is about 0.6 of the files' size) and keeps its own semantics: every page
script is a self-contained UMD/IIFE (its ``'use strict'`` inside its function), and the files are
joined with ``;`` on a line of its own, each after a header comment naming it
(``/* ==== web/words.js ==== */``), so a reader of the bundle, or of a stack trace's line, can
tell which file a line came from (the names are the source's; its lines are not). The name holds the
content's hash because Potato's ``?v=`` is the plugin's version, which an edit does not change:
the name is what keeps a browser from serving a changed plugin stale (served.py).

Where it runs: ``setup.py`` calls :func:`build` on the package it is putting into the wheel, so an
installed package serves the folder ``bundle/`` it came with and writes nothing; a source checkout
has no ``bundle/`` and served.py calls :func:`files` when the plugin loads. :func:`files` is the
one place that decides what the browser gets (a bundler replacing the joining swaps it).

Types outside the package (another distribution's folder, declared under the entry-point group
``potato_multiagent.types``: :func:`outside_types`) join a page the same way: their scripts and
style sheet come after the built-in types', named in the bundle by their path. The wheel's bundle
holds the built-in types only (:func:`build`); a server with outside types installed joins its own.

This module imports nothing of the package: the build loads it by its path. Outside the standard
library it needs only the two minifiers, imported where they are used: build requirements of the
wheel (pyproject.toml) and dependencies of the package, which joins a config's bundle at its first
request (served.py).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Collection, Dict, List, NamedTuple, Optional, Sequence, Tuple

SHIPPED = "bundle"
"""The folder of the built package holding the bundle (``potato_multiagent/bundle/``): built into
the wheel, never present in a source checkout."""

BUNDLE_NAME = "multiagent"
"""The bundle's files are ``multiagent.<hash>.js`` and ``multiagent.<hash>.css``."""

WEB_SCRIPTS = ("words.js", "derive.js", "value_shape.js", "windowing.js", "pager.js", "judgments.js", "base.js",
               "sync.js", "saving.js", "lazy.js", "banner.js", "runtime.js", "widget.js",
               "trace_view_model.js", "trace_view_judgments.js", "trace_view_rows.js", "trace_view.js",
               "graph_labels.js", "graph_grid.js", "graph_layout.js")
"""``web/`` scripts in the order they need each other: the problem words, the derivation, the value
check (uses the words), the windowed list, the pager (uses its page arithmetic), the judgments' reading (which a record carries,
whether they show), the runtime's pure base (words, value check, windowing, judgments), its two-tab
merge (base), the page's one save path (retries, status line, kept answers, flush and warning on
leave; base), building a form when it comes into view (base), Potato's
required banner written as text (base), ``define``'s half (the model and ``ui`` a type's render pass
gets; base, windowing, pager), then the core that installs all of them (it holds the page's record
and derivations, and ``define``); the trace view's parts (what a row shows, judgment
markers, a row's DOM on the core's ``h``), then the view itself (the core's ``pageDerivation``: one
derivation with the widgets, and a page with no widget still loads the core); the graph's labels,
the grid its columns are ordered and placed on, and its layered layout (pure, no DOM, used by the
interaction graph). ``node_shim.js`` is for node
tests only and is never loaded in the page (nor shipped in the wheel)."""

TRACE_VIEW = "trace_view"
"""The name of the trace view among what a page uses (``uses``: type folder names and this)."""

WEB_SCRIPTS_OF = {TRACE_VIEW: ("trace_view_model.js", "trace_view_judgments.js", "trace_view_rows.js", "trace_view.js"),
                  "agent_interaction_graph": ("graph_labels.js", "graph_grid.js", "graph_layout.js")}
"""``web/`` scripts only one part of the page uses: the trace view's, and the interaction graph's layout
(pure and tested under node, so in ``web/``). A page that does not use the part does not load them;
every other ``web/`` script is the shared core, loaded by every page."""

WEB_STYLES_OF = {TRACE_VIEW: ("trace_view.css",)}
"""``web/`` style sheets only one part of the page uses (as ``WEB_SCRIPTS_OF``)."""

TYPE_SCRIPTS = ("marks.js", "view.js")
"""A type's scripts in load order: its pure rules, then its view on the runtime (with the parts of
a view too long for one file, ``view_*.js``, just before it)."""

TYPE_TRACE_SCRIPT = "trace.js"
"""A type's part of the trace view (MAST's failure-mode chips on the steps): loaded after the type's
scripts when the page shows a trace view, and never otherwise."""


class Bundle(NamedTuple):
    """What the plugin registers: the folder Potato serves and the two files in it."""
    folder: Path
    script: str
    style: str


# -- what goes in, in which order -----------------------------------------------------------------

ENTRY_POINTS = "potato_multiagent.types"
"""The entry-point group of annotation types outside this package: ``<type> = <package>``, the
package being a type folder (docs/writing-a-scheme.md, *A type in its own package*)."""


def type_folders(types_folder: Path) -> List[Path]:
    """The built-in annotation types' folders, in order: every folder of ``types/`` holding a
    ``scheme.py`` (one starting with ``_`` or ``.`` holds what types share)."""
    return sorted(path for path in types_folder.iterdir()
                  if path.is_dir() and not path.name.startswith(("_", ".")) and (path / "scheme.py").is_file())


@lru_cache(maxsize=None)
def outside_types() -> Dict[str, Tuple[str, Optional[Path]]]:
    """The types other distributions declare: ``{type name: (package, its folder)}``, by name; the
    folder is None when the package cannot be found (the registry, which imports it, says why).
    Found without importing the package (its parent package, for a dotted name, is imported); read
    once per process (a scan of every installed distribution takes ~6 ms, and the page's bundle
    asks several times)."""
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


def all_type_folders(package: Path, outside: bool = True) -> Dict[str, Path]:
    """Every type's folder by its name: the built-in ones in folder order, then (with ``outside``)
    those of :func:`outside_types` whose name no built-in type has, by name."""
    folders = {folder.name: folder for folder in type_folders(package / "types")}
    if outside:
        for name, (_package, folder) in outside_types().items():
            if folder is not None and name not in folders:
                folders[name] = folder
    return folders


def scripts(package: Path, uses: Optional[Collection[str]] = None, outside: bool = True) -> List[str]:
    """The scripts a page loads, in order: ``WEB_SCRIPTS``, then each type's ``TYPE_SCRIPTS`` where
    it has them (relative to ``package``; an outside type's by their full path). ``uses``: the
    types and the trace view (``TRACE_VIEW``) the page uses; the others' scripts are left out
    (None: every one). ``outside``: whether the types of other distributions come too."""
    shared = [f"web/{name}" for name in WEB_SCRIPTS if _used(name, WEB_SCRIPTS_OF, uses)]
    with_trace = uses is None or TRACE_VIEW in uses
    return shared + [_name(package, folder / name) for folder in _used_folders(package, uses, outside)
                     for name in _script_names(folder, with_trace) if (folder / name).is_file()]


def _used(name: str, owned: Dict[str, Sequence[str]], uses: Optional[Collection[str]]) -> bool:
    """Whether a ``web/`` file is loaded: it belongs to the core, or to a part the page uses."""
    return uses is None or all(owner in uses for owner, names in owned.items() if name in names)


def _used_folders(package: Path, uses: Optional[Collection[str]], outside: bool) -> List[Path]:
    return [folder for name, folder in all_type_folders(package, outside).items() if uses is None or name in uses]


def _name(package: Path, path: Path) -> str:
    """How a bundle names a file: relative to the package, or its full path (an outside type's)."""
    try:
        return path.relative_to(package).as_posix()
    except ValueError:
        return str(path)


def _script_names(folder: Path, with_trace: bool) -> List[str]:
    """``TYPE_SCRIPTS`` of one folder, with its view parts (``view_*.js``, by name) just before ``view.js``
    (a view too long for one file is split into parts that register on ``PotatoMultiagent.viewParts``),
    then, on a page with a trace view, its part of it (``TYPE_TRACE_SCRIPT``)."""
    parts = sorted(path.name for path in folder.glob("view_*.js"))
    names = list(TYPE_SCRIPTS)
    return (names[:names.index("view.js")] + parts + names[names.index("view.js"):]
            + ([TYPE_TRACE_SCRIPT] if with_trace else []))


def styles(package: Path, uses: Optional[Collection[str]] = None, outside: bool = True) -> List[str]:
    """The style sheets: ``web/`` by name, then each type's ``style.css`` where it has one; ``uses``
    and ``outside`` as for :func:`scripts`."""
    shared = sorted(f"web/{path.name}" for path in (package / "web").glob("*.css")
                    if _used(path.name, WEB_STYLES_OF, uses))
    return shared + [_name(package, folder / "style.css") for folder in _used_folders(package, uses, outside)
                     if (folder / "style.css").is_file()]


# -- joining ----------------------------------------------------------------------------------------

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
    """The scripts ``names`` (relative to ``package``), each minified, as one script, in order. A
    file need not end with a newline: its part does, then a ``;`` line ends a statement left open
    (``}())``)."""
    return "".join(header(name) + minify_script(_text(package, name)) + "\n;\n" for name in names)


def join_styles(package: Path, names: Sequence[str]) -> str:
    """The style sheets ``names``, each minified, as one sheet, in order (none of ours uses
    ``@import``, which would have to come first)."""
    return "".join(header(name) + minify_style(_text(package, name)) + "\n" for name in names)


def minify_script(text: str) -> str:
    """A script without its comments and needless whitespace (rjsmin: it renames nothing and keeps
    every string, regular expression and the line breaks automatic semicolons need)."""
    import rjsmin

    return rjsmin.jsmin(text).rstrip("\n")


def minify_style(text: str) -> str:
    """A style sheet without its comments and needless whitespace (rcssmin)."""
    import rcssmin

    return rcssmin.cssmin(text).rstrip("\n")


def _text(package: Path, name: str) -> str:
    path = package / name
    if not path.is_file():
        raise FileNotFoundError(f"browser asset not found: {path}")
    return path.read_text(encoding="utf-8")


# -- the build step ---------------------------------------------------------------------------------


def files(package: Path, script_names: Optional[Sequence[str]] = None,
          style_names: Optional[Sequence[str]] = None) -> Dict[str, str]:
    """The bundle's two files (name: text), the script first: ``package``'s page scripts and style
    sheets (by default every one, in load order) joined, named by a hash of both."""
    script = join_scripts(package, scripts(package) if script_names is None else script_names)
    style = join_styles(package, styles(package) if style_names is None else style_names)
    digest = hashlib.sha256(script.encode() + b"\0" + style.encode()).hexdigest()[:20]
    return {f"{BUNDLE_NAME}.{digest}.js": script, f"{BUNDLE_NAME}.{digest}.css": style}


def build(package: Path, folder: Optional[Path] = None) -> Bundle:
    """Write the bundle of ``package`` into ``folder`` (by default ``package/bundle``, which must not
    exist yet: a build starts from a clean tree) and say what it holds: the package's own files,
    never an outside type the building environment happens to have."""
    folder = folder if folder is not None else package / SHIPPED
    made = files(package, scripts(package, outside=False), styles(package, outside=False))
    folder.mkdir(parents=True)
    for name, text in made.items():
        (folder / name).write_text(text, encoding="utf-8")
    return Bundle(folder, *made)


def shipped(package: Path) -> Optional[Bundle]:
    """The bundle an installed package came with, or None in a source checkout (no ``bundle/``)."""
    folder = package / SHIPPED
    if not folder.is_dir():
        return None
    found = {suffix: sorted(path.name for path in folder.glob(f"{BUNDLE_NAME}.*{suffix}")) for suffix in (".js", ".css")}
    if len(found[".js"]) != 1 or len(found[".css"]) != 1 or found[".js"][0][:-3] != found[".css"][0][:-4]:
        raise FileNotFoundError(f"{folder}: the installed bundle should be one {BUNDLE_NAME}.<hash>.js and its .css "
                                f"(found {found['.js'] + found['.css'] or 'nothing'}); reinstall potato-multiagent")
    return Bundle(folder, found[".js"][0], found[".css"][0])
