"""Where the documentation is, for people who installed the package rather than cloned it.

The build puts ``docs/`` into the wheel (``potato_multiagent/docs/``, setup.py); a source checkout
reads ``docs/`` beside ``src/``. There is no documentation website (README.md, "Documentation"), so
a message that sends the reader to a page names the command that finds it on their machine,
``potato-multiagent docs trace-view`` (:func:`see`), never a ``docs/...`` path they do not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

PACKAGE = Path(__file__).resolve().parent


class DocsError(Exception):
    """A page that does not exist, or no documentation with this copy of the package."""


def folder() -> Optional[Path]:
    """The documentation folder: the installed copy, else the source checkout's ``docs/``."""
    candidates = [PACKAGE / "docs"]
    if PACKAGE.parent.name == "src":
        candidates.append(PACKAGE.parent.parent / "docs")
    return next((path for path in candidates if (path / "index.md").is_file()), None)


def pages(docs: Path) -> List[str]:
    """Every page's name as :func:`page` takes it (``cli``, ``types/handoff_review``), index first."""
    names = sorted(path.relative_to(docs).with_suffix("").as_posix() for path in docs.rglob("*.md"))
    return sorted(names, key=lambda name: name != "index")


def page(name: str) -> Path:
    """The file of a page: ``cli``, ``cli.md``, ``types/handoff_review`` or just ``handoff_review``."""
    docs = folder()
    if docs is None:
        raise DocsError("the documentation is not installed with this copy of potato-multiagent "
                        f"(no docs/ in {PACKAGE}); reinstall it from a wheel or a source archive")
    stem = name.strip().removesuffix(".md").strip("/")
    for candidate in (docs / f"{stem}.md", docs / "types" / f"{stem}.md"):
        if candidate.is_file() and docs in candidate.resolve().parents:
            return candidate
    raise DocsError(f"no page {name!r} (pages: {', '.join(pages(docs))})")


def see(name: str) -> str:
    """How a message sends the reader to a page: the command that prints where it is."""
    return f"potato-multiagent docs {name}"


def title(path: Path) -> str:
    """A page's first heading, without the ``#``."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""
