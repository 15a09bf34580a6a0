"""HTML from Jinja templates, safe for Potato's second pass.

Potato renders generator output through Jinja again at request time, so ``{{ 7*7 }}`` or ``{#``
from a description, a label or trace data would be evaluated or swallow the page. Every value a
template prints therefore goes through :func:`_finalize`: HTML-escaped, then ``{``/``}`` written
as character references, which the browser shows literally and Jinja never sees as syntax.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any, Optional

from pathlib import Path

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape


PACKAGE = Path(__file__).parent
SHARED_TEMPLATES = PACKAGE / "types" / "_base"
"""The frame every type's ``template.html`` extends (``scheme.html``), and the error card."""


def dom_id(name: str, role: str) -> str:
    """A stable element id for ``role`` within the scheme ``name``, safe for id-list attributes.

    ``aria-labelledby`` splits on whitespace, and scheme names may contain spaces or anything else.
    """
    return f"ma-{role}-{hashlib.sha1(name.encode('utf-8')).hexdigest()[:12]}"


def escape_braces(markup: str) -> Markup:
    """Replace ``{`` and ``}`` with character references (in already-escaped markup)."""
    return Markup(str(markup).replace("{", "&#123;").replace("}", "&#125;"))


def _finalize(value: Any) -> Markup:
    return escape_braces(escape("" if value is None else value))


@lru_cache(maxsize=None)
def environment(folder: Optional[Path] = None) -> Environment:
    """The Jinja environment of the package's templates, or of one type's folder (its
    ``template.html``, beside the shared frame it extends): a type outside the package has its
    templates in its own folder."""
    places = [folder, SHARED_TEMPLATES] if folder is not None else [SHARED_TEMPLATES, PACKAGE]
    env = Environment(loader=ChoiceLoader([FileSystemLoader(place) for place in places]),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      finalize=_finalize, trim_blocks=True, lstrip_blocks=True)
    env.filters["json"] = lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    env.filters["dom_id"] = dom_id
    return env


def render_template(template: str, folder: Optional[Path] = None, **context: Any) -> str:
    """Render ``template`` (a path in the package, a shared one by name, or, with ``folder``, a
    template of that type folder) with every printed value escaped for HTML and for Jinja."""
    return environment(folder).get_template(template).render(**context)
