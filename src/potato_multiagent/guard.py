"""What the plugin guards in every page a Potato server with the plugin on serves.

Potato 2.12.1 writes the record into its pages raw: ``flask_server.py`` joins its ``var_elems``
(``instance``, ``emphasis``, ``instance_data``, ``suggestions``, ``bws_items``) into
``<script id="..." type="application/json">`` elements with ``json.dumps``, which escapes neither
``</`` nor ``<!--``. A record text holding ``</script><script>...`` closes the element and runs; one
holding ``<!--<script>`` makes the browser read past the element's end and swallow the page. Web
agents quote page source all the time, so an ordinary browser-agent run can do either.

:func:`inert_json_scripts` makes every JSON block of a page inert without changing what the page's
scripts read: inside a JSON text ``<`` can only stand in a string, where ``<\\/`` decodes to ``</``
and ``\\u003c`` to ``<``. Each block's end is found by the JSON grammar, never by trusting the
closing tag the payload forged: a block that needs nothing is recognised by the quotes before its
first ``</`` (:func:`_end_if_nothing_to_do`), any other is read with ``raw_decode``.
:func:`guard_pages` applies it to every HTML page the server renders or answers (see there for why
both). The upstream fix, and what is tested, are in docs/security.md.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from typing import Callable, Optional, Tuple

_DECODER = json.JSONDecoder()
_SCRIPT_OR_COMMENT = re.compile(r"<!--|<script(?=[\s/>])", re.IGNORECASE)
_TAG_END = re.compile(r"""(?:[^>"']|"[^"]*"|'[^']*')*>""")
_ATTRIBUTE = re.compile(r"""([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")
_SCRIPT_CLOSE = re.compile(r"</script", re.IGNORECASE)
_END_OR_COMMENT = re.compile(r"</|<!--")
_ESCAPED_BACKSLASH = re.compile(r"\\\\")
_WHITESPACE = re.compile(r"[ \t\n\r\f]*")


def is_json_type(media_type: str) -> bool:
    """``application/json``, ``...+json`` or an import map: a script element the browser never runs."""
    essence = media_type.split(";")[0].strip().lower()
    return essence in ("application/json", "importmap") or essence.endswith("+json")


def inert_json(text: str) -> str:
    """A JSON text that cannot end or re-enter its script element, and parses to the same value.

    >>> inert_json('{"a": "</script><!--<script>"}')
    '{"a": "<\\\\/script>\\\\u003c!--<script>"}'
    """
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


def inert_json_scripts(html: str) -> str:
    """``html`` with the text of every JSON script element made inert (:func:`inert_json`).

    The page is read as the browser's tokenizer reads it where it matters: comments are skipped, a
    script element ends at the first ``</script`` unless it holds JSON, whose end is where its JSON
    value ends (followed by white space and ``</script``). A JSON block that does not parse, or is
    not followed by its end tag, is left as it is (it is not Potato's).
    """
    pieces = []
    copied = 0   # html[:copied] is in pieces
    position = 0
    while True:
        found = _SCRIPT_OR_COMMENT.search(html, position)
        if found is None:
            break
        if found.group() == "<!--":
            end = html.find("-->", found.end())
            if end < 0:
                break
            position = end + 3
            continue
        tag = _TAG_END.match(html, found.end())
        if tag is None:
            break
        block = _json_block(html, tag.end(), html[found.start():tag.end()])
        if block is not None:
            start, end, clean = block
            if not clean and (html.find("</", start, end) >= 0 or html.find("<!--", start, end) >= 0):
                pieces += [html[copied:start], inert_json(html[start:end])]
                copied = end
            position = end
            continue
        close = _SCRIPT_CLOSE.search(html, tag.end())
        if close is None:
            break
        position = close.end()
    return html if not pieces else "".join(pieces) + html[copied:]


def _attribute(start_tag: str, name: str) -> Optional[str]:
    """The value of attribute ``name`` of a start tag (``<script id="x" type="...">``), if present."""
    for found in _ATTRIBUTE.finditer(start_tag, len("<script")):
        if found.group(1).lower() == name:
            return next((value for value in found.groups()[1:] if value is not None), "")
    return None


def _json_block(html: str, body: int, start_tag: str) -> Optional[Tuple[int, int, bool]]:
    """``(start, end, clean)`` of the JSON value of the script element ``start_tag`` whose text starts
    at ``body``, when the element is a JSON block ending right after that value (``clean``: known to
    need nothing made inert); None otherwise."""
    if not is_json_type(_attribute(start_tag, "type") or ""):
        return None
    start = _WHITESPACE.match(html, body).end()
    unchanged = _end_if_nothing_to_do(html, start)
    if unchanged is not None:
        return start, unchanged, True
    try:
        _, end = _DECODER.raw_decode(html, start)
    except ValueError:
        return None
    except RecursionError:   # deeper than Python reads here (Potato wrote it higher up the stack)
        end = _end_of_nested(html, start)
        if end is None:
            return None
    if not _SCRIPT_CLOSE.match(html, _WHITESPACE.match(html, end).end()):
        return None
    return start, end, False


def _end_if_nothing_to_do(html: str, start: int) -> Optional[int]:
    """Where a JSON block starting at ``start`` ends when nothing in it needs making inert, found
    without reading its JSON (which costs ~150 ms for the 13 MB record of a 50,000-step page); None
    when something may need it, and the JSON grammar decides (:func:`_json_block`).

    The block needs nothing when its first ``</`` is a ``</script`` outside any JSON string with no
    ``<!--`` before it: in JSON, ``</`` and ``<!--`` stand only in strings, so that ``</script`` is
    where the value's text ends (for a block that is JSON at all; one that is not changes nowhere).
    Outside strings JSON has no quote or backslash, so the place is outside a string when the
    quotes before it that are not escaped (``\\"``, once the escaped backslashes ``\\\\`` are
    taken out) are even in number."""
    first = _END_OR_COMMENT.search(html, start)   # a regular expression scans a wide str faster than find
    if first is None or not _SCRIPT_CLOSE.match(html, first.start()):
        return None
    close = first.start()
    if _ESCAPED_BACKSLASH.search(html, start, close):
        text = html[start:close].replace("\\\\", "")
        quotes = text.count('"') - text.count('\\"')
    else:
        quotes = html.count('"', start, close) - html.count('\\"', start, close)
    return close if quotes % 2 == 0 else None


_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"|[\[\]{}]')


def _end_of_nested(html: str, start: int) -> Optional[int]:
    """Where the list or object at ``start`` ends, by its brackets outside strings (no recursion)."""
    if html[start:start + 1] not in ("[", "{"):
        return None
    depth = 0
    for token in _STRING_OR_BRACKET.finditer(html, start):
        bracket = token.group()
        if bracket in ("[", "{"):
            depth += 1
        elif bracket in ("]", "}"):
            depth -= 1
            if depth == 0:
                return token.end()
    return None


HTML = "text/html"
_RENDERED_INERT = "_multiagent_rendered_inert"
"""Set on ``flask.g`` once a request's page was made inert as Potato rendered it."""


def guard_pages() -> None:
    """Make every JSON block of every HTML page the server answers inert (:func:`inert_json_scripts`).

    Two places, because Potato reads its annotation page back with BeautifulSoup (``html.parser``)
    and writes it out again before answering: a ``</script>`` in a block ends the element for that
    parser too, and the record text after it is rewritten as markup (``->`` becomes ``-&gt;``,
    ``<img src=x onerror=...>`` gains quotes), so by the time the answer exists the block is no
    longer JSON. ``potato.flask_server.render_template``, which renders those pages, is therefore
    wrapped to make the blocks inert as the template is rendered, before that pass; every other
    HTML answer (pages rendered elsewhere) is made inert when Flask's ``request_finished`` signal
    carries it. Idempotent: a second registration wraps and connects nothing more."""
    from flask import request_finished

    request_finished.connect(_inert_page, weak=False)
    flask_server = sys.modules.get("potato.flask_server")   # loaded by `potato start`; not by `validate`
    render = getattr(flask_server, "render_template", None)
    if render is not None and not getattr(render, "multiagent_inert", False):
        flask_server.render_template = _rendered_inert(render)


def _rendered_inert(render: Callable[..., str]) -> Callable[..., str]:
    @functools.wraps(render)
    def render_inert(*args, **kwargs) -> str:
        from flask import g

        page = inert_json_scripts(render(*args, **kwargs))
        setattr(g, _RENDERED_INERT, True)
        return page

    render_inert.multiagent_inert = True
    return render_inert


def _inert_page(sender, response, **_extra) -> None:
    from flask import g

    if response.mimetype != HTML or response.is_streamed or response.direct_passthrough:
        return
    if getattr(g, _RENDERED_INERT, False):
        return   # rendered inert already (only Potato's own soup pass came after)
    page = response.get_data(as_text=True)
    inert = inert_json_scripts(page)
    if inert is not page:   # the same object when no block needed it
        response.set_data(inert)
