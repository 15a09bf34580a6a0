"""Every JSON block of a page made inert (src/potato_multiagent/guard.py), as functions and on a
Flask app; the browser's verdict on a real Potato page is tests/e2e/test_inert_record.py's."""

from __future__ import annotations

import json
import re
import sys

import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st
from potato.server_utils.json import easy_json

from potato_multiagent.guard import guard_pages, inert_json, inert_json_scripts

CLOSING = "</script><script>window.__pwned=1</script>"
COMMENT = "<!--<script>"
HOSTILE = {"text": f"a {CLOSING} b {COMMENT} c </SCRIPT > </style> \\ \" ' <\\/x>",
           "steps": [{"agent": CLOSING, "content": [COMMENT, {"nested": CLOSING}]}], "n": 1.5, "nan": float("nan")}


def potato_var_elems(var_elems: dict) -> str:
    """The markup Potato 2.12.1's flask_server.py writes for its var_elems (its f-string, copied)."""
    return "".join(f'<script id="{key}" ' + ' type="application/json"> ' + f' {easy_json(value)} </script>'
                   for key, value in var_elems.items())


def page(body: str) -> str:
    return f"<!doctype html><html><head><title>t</title></head><body><div>{body}</div><p>after</p></body></html>"


def json_blocks(html: str) -> dict:
    """id -> the text between each JSON script's start tag and the first `</script` after it: what
    the browser takes as the element's text once nothing in it can end it early."""
    return {found.group(1): found.group(2)
            for found in re.finditer(r'<script id="([^"]+)"\s+type="application/json">(.*?)</script', html, re.S)}


def test_every_var_elem_is_inert_and_reads_the_same():
    elems = {"instance": {"text": HOSTILE["text"]}, "emphasis": [], "instance_data": HOSTILE,
             "suggestions": [CLOSING], "bws_items": [{"x": COMMENT}]}
    served = inert_json_scripts(page(potato_var_elems(elems)))
    blocks = json_blocks(served)
    assert list(blocks) == list(elems)
    for key, text in blocks.items():
        assert "</" not in text and "<!--" not in text, key
        read = json.loads(text)   # what JSON.parse gives the page (NaN aside: Python reads it too)
        assert json.dumps(read, sort_keys=True) == json.dumps(elems[key], sort_keys=True), key
    assert served.endswith("<p>after</p></body></html>")


def test_only_the_json_text_changes():
    before = page(potato_var_elems({"instance": {"text": CLOSING}}))
    after = inert_json_scripts(before)
    assert after.replace("<\\/", "</") == before
    assert after.count("</script") == before.count("</script") - 2


def test_a_page_without_anything_to_escape_is_the_same_object():
    html = page(potato_var_elems({"instance": {"text": "plain"}, "emphasis": []}) + "<script>if (a</b) {}</script>")
    assert inert_json_scripts(html) is html


def test_scripts_that_run_comments_and_text_are_left_alone():
    html = page("<!-- <script type=\"application/json\"> {\"a\": \"</x>\"} </script> -->"
                "<script>var s = '<script type=\"application/json\">'; if (a</b) {}</script>"
                "<script type=\"module\">let t = \"</div>\";</script>"
                "&lt;/script&gt; <textarea>&lt;!--</textarea>"
                "<script type=\"application/json\">not json </x></script>")
    assert inert_json_scripts(html) is html


@pytest.mark.parametrize("start_tag", ["<script type='application/json'>", "<SCRIPT TYPE=APPLICATION/JSON>",
                                       '<script data-x="type=text/javascript" type="application/ld+json">',
                                       '<script type="importmap">', '<script type="application/json; charset=utf-8">'])
def test_any_spelling_of_a_json_script_is_escaped(start_tag):
    html = page(f'{start_tag}{{"a": "{CLOSING}"}}</script><p>x</p>')
    served = inert_json_scripts(html)
    assert f'{start_tag}{{"a": "{inert_json(CLOSING)}"}}</script><p>x</p>' in served


def test_a_classic_script_is_never_escaped_even_with_a_json_looking_body():
    html = page('<script type="text/javascript">{"a": "</"}</script>')
    assert inert_json_scripts(html) is html


def test_a_block_deeper_than_python_reads_is_escaped_too():
    """Potato's json.dumps ran higher up the stack than the guard does: a record nested almost as deep
    as Python allows still gets its end found (by brackets, without recursion)."""
    deep = '{"a": ' * 5000 + json.dumps(CLOSING) + "}" * 5000
    served = inert_json_scripts(page(f'<script type="application/json">{deep}</script><p>x</p>'))
    assert inert_json(json.dumps(CLOSING)) in served and CLOSING not in served
    assert served.endswith("}</script><p>x</p></div><p>after</p></body></html>")


def test_a_block_without_its_end_tag_or_unreadable_is_left():
    html = page('<script type="application/json">{"a": "</x>"}<script type="application/json">{"b": </x>}</script>')
    assert inert_json_scripts(html) is html


def test_every_html_answer_of_an_app_is_guarded_and_nothing_else():
    app = Flask(__name__)
    body = potato_var_elems({"instance_data": {"steps": [CLOSING]}})

    @app.route("/annotate")
    def annotate():
        return page(body)

    @app.route("/api")
    def api():
        return app.response_class(body, mimetype="application/json")

    @app.route("/stream")
    def stream():
        return app.response_class((part for part in [body]), mimetype="text/html")

    guard_pages()
    guard_pages()   # a second registration adds no second pass
    client = app.test_client()
    answer = client.get("/annotate").get_data(as_text=True)
    assert inert_json(CLOSING) in answer and CLOSING not in answer
    assert answer.count("<\\/") == 2   # once per `</`: escaped once, not twice
    assert client.get("/api").get_data(as_text=True) == body
    assert client.get("/stream").get_data(as_text=True) == body


def test_potatos_soup_pass_sees_the_blocks_inert(monkeypatch):
    """Potato renders its annotation page, reads it back with BeautifulSoup (html.parser) and writes
    it out again: a block whose `</script>` is still there comes out rewritten as markup, no longer
    JSON. With the plugin, `potato.flask_server.render_template` makes the blocks inert first."""
    from types import SimpleNamespace

    from bs4 import BeautifulSoup

    record = {"steps": ["<script>__fire('x')</script> a -> b <img src=x onerror=y>"]}
    rendered = page(potato_var_elems({"instance_data": record}))
    soup_pass = lambda html: str(BeautifulSoup(html, "html.parser"))   # as flask_server.py does
    unguarded = json_blocks(soup_pass(rendered))
    with pytest.raises(ValueError):
        json.loads(unguarded["instance_data"])

    flask_server = SimpleNamespace(render_template=lambda name, **context: rendered)
    monkeypatch.setitem(sys.modules, "potato.flask_server", flask_server)
    app = Flask(__name__)

    @app.route("/annotate")
    def annotate():
        return soup_pass(flask_server.render_template("base_template_v2.html"))

    guard_pages()
    guard_pages()
    assert flask_server.render_template.multiagent_inert and flask_server.render_template.__wrapped__("x") == rendered
    answer = app.test_client().get("/annotate").get_data(as_text=True)
    assert json.loads(json_blocks(answer)["instance_data"]) == record


PIECES = ['"', "\\", "\\\\", '\\"', "a", "</script>", "</SCRIPT >", "<!--", "<script>", "/", "<", "-->"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), st.lists(st.sampled_from(PIECES), max_size=6).map("".join))
def test_any_text_of_quotes_backslashes_and_closers_is_made_inert_and_reads_the_same(text, other):
    """The guard's quick path (a block's end found without reading its JSON, when nothing in it
    needs escaping) must never take a forged ``</script`` inside a string for the end: the quotes
    and backslashes before it decide, whatever their mix."""
    value = {"text": text, "list": [other, text], "n": 1}
    served = inert_json_scripts(page(potato_var_elems({"instance_data": value, "emphasis": [other]})))
    blocks = json_blocks(served)
    assert list(blocks) == ["instance_data", "emphasis"]
    for key, expected in (("instance_data", value), ("emphasis", [other])):
        assert "</" not in blocks[key] and "<!--" not in blocks[key], key
        assert json.loads(blocks[key]) == expected, key
    assert served.endswith("<p>after</p></body></html>")
