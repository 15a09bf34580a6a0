"""Checks every registered type must pass, whatever it is (SPEC §2, §6; issue 8).

New types are picked up automatically: these tests run over ``SCHEMES``.
"""

from __future__ import annotations

import json
import re
import subprocess
from html import unescape
import sys

import pytest

from potato_multiagent.types import SCHEMES
from potato_multiagent.types import TYPES as TYPES_BY_NAME

TYPES = sorted(SCHEMES)
HOSTILE = 'Who {{ 7*7 }} failed {# "quoted" \'single\' <script>alert(1)</script> <img src=x onerror=alert(2)> ->'

def render(type_name: str, **keys) -> str:
    html, keybindings = SCHEMES[type_name].render({"annotation_type": type_name, "name": "scheme",
                                                   "description": "Describe", **keys})
    assert keybindings == []
    return html


def hostile_labels(type_name: str) -> dict:
    """Every list-of-labels key of the type's config, filled with hostile labels."""
    config = SCHEMES[type_name].Config
    keys = {}
    for key, field in config.model_fields.items():
        default = field.get_default(call_default_factory=True)
        if isinstance(default, list) and default and all(isinstance(item, str) for item in default) and key != "agents":
            keys[key] = [f"{HOSTILE} {n}" for n in range(len(default))]
    return keys


@pytest.mark.parametrize("type_name", TYPES)
def test_renders_potatos_form_contract_without_script(type_name):
    html = render(type_name, label_requirement={"required": True})
    widget = type_name.split(".", 1)[1]
    assert f'class="annotation-form multiagent-form multiagent-{widget}"' in html and "<legend" in html
    assert 'data-schema-name="scheme"' in html
    assert html.count('class="annotation-input') == 1, "only the hidden input carries annotation-input"
    hidden = re.search(r'<input type="hidden"[^>]*>', html).group(0)
    assert 'class="annotation-input multiagent-input"' in hidden
    assert 'validation="required"' in hidden and 'name="scheme:::scheme"' in hidden
    lowered = html.lower()
    assert "<script" not in lowered and "javascript:" not in lowered
    assert not re.search(r"\son[a-z]+\s*=", html), "no inline event handlers"


@pytest.mark.parametrize("type_name", TYPES)
def test_the_widget_gets_the_value_schema_of_the_model(type_name):
    """The browser checks a value against the same schema the server's Value model is (one referee)."""
    attribute = unescape(re.search(r'data-ma-config="([^"]*)"', render(type_name)).group(1))
    assert json.loads(attribute)["value_schema"] == SCHEMES[type_name].Value.model_json_schema()


@pytest.mark.parametrize("type_name", TYPES)
def test_hostile_description_and_labels_arrive_escaped_for_html_and_jinja(type_name):
    html = render(type_name, description=HOSTILE, agents=[HOSTILE, "{{ a }}"], **hostile_labels(type_name))
    assert "{" not in html and "}" not in html, "Potato renders generator output through Jinja again"
    assert "Who &#123;&#123; 7*7 &#125;&#125; failed &#123;# &#34;quoted&#34;" in html   # text, escaped
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "multiagent-error" not in html, "hostile text is text, not a configuration error"


@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("bad", [{"steps_key": 3}, {"agents": "Planner"}, {"agent_qualifiers": "yes"}])
def test_a_bad_config_renders_an_error_card_naming_the_key(type_name, bad):
    html = render(type_name, **bad)
    key = next(iter(bad))
    assert "multiagent-error" in html and f"<li>{key}:" in html
    assert "annotation-input" not in html and "Traceback" not in html


@pytest.mark.parametrize("type_name", TYPES)
def test_label_lists_must_be_unique_and_non_empty(type_name):
    for key in hostile_labels(type_name):
        for bad in ([], ["same", "same"]):
            config, problems = SCHEMES[type_name].parse_config({"name": "s", "description": "d", key: bad})
            assert config is None and any(line.startswith(f"{key}:") for line in problems), (key, bad, problems)


@pytest.mark.parametrize("type_name", TYPES)
def test_accepts_every_key_the_built_in_it_replaces_reads(type_name):
    """migrate-config only renames the built-in type: each key the built-in reads (its migration.py
    says which) must be one of ours."""
    migration = TYPES_BY_NAME[type_name.split(".", 1)[1]].migration
    replaced = migration.REPLACED_KEYS if migration is not None else frozenset()
    assert replaced <= set(SCHEMES[type_name].optional_fields())


@pytest.mark.parametrize("type_name", TYPES)
def test_empty_value_is_nothing_stored_and_garbage_is_named(type_name):
    scheme = SCHEMES[type_name]
    config, _ = scheme.parse_config({"name": "s", "description": "d"})
    record = {"steps": [{"agent": "A"}, {"agent": "B"}]}
    assert scheme.validate("", record, config) == []
    assert scheme.validate('{"truncated', record, config)[0].startswith("value: not valid JSON")
    assert scheme.validate("42", record, config), "a bare number is never a valid value"


def test_potato_lists_every_type():
    out = subprocess.run([sys.executable, "-m", "potato", "plugins", "multiagent"], capture_output=True, text=True,
                         check=True).stdout
    listed = re.search(r"annotation types:\s*(.*)", out).group(1)
    assert sorted(t.strip() for t in listed.split(",")) == TYPES
