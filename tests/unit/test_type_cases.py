"""Every type's ``cases.json``: the referee of its rules (docs/writing-a-scheme.md, "cases.json").

Each case is a record, a config and a stored value with the problems the type must report: a
``marks`` case states them as data (a code and its parameters, docs/problems.md), which Python's
``trace_problems`` and the type's ``marks.js`` must both find exactly, and ``validate_value`` must
say in the table's words; a ``shape`` case states words, which the browser's value check
(``web/value_shape.js``, against the JSON Schema the widget receives) must say too. Every code a
type's rules can report has a case. New types are picked up from their folders.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from potato_multiagent import validate_value
from potato_multiagent.trace import derive
from potato_multiagent.types import SCHEMES, TYPES, WEB
from potato_multiagent.types._base.words import WORDS, say

NODE = shutil.which("node")
SHAPE_IN_NODE = """
const {checkShape} = require(process.argv[1]);
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(cases.map((c) => checkShape(c.value, c.schema))));
"""


def load_cases():
    for name, folder in TYPES.items():
        document = json.loads((folder.folder / "cases.json").read_text(encoding="utf-8"))
        assert document["type"] == f"multiagent.{name}", f"{name}/cases.json names another type"
        for case in document["cases"]:
            yield pytest.param(document, case, id=f"{name}: {case['name']}")


CASES = list(load_cases())


def scheme_config(case: dict) -> dict:
    return {"name": "case", "description": "case", **case.get("config", {})}


def sort_key(item) -> str:
    return json.dumps(item, sort_keys=True)


@pytest.mark.parametrize("document, case", CASES)
def test_python_reports_the_case_problems(document, case):
    """A marks case is compared as data (codes and parameters, straight from ``trace_problems``);
    what ``check`` shows is then the table's words of exactly those."""
    record = document["records"][case["record"]]
    found = validate_value(document["type"], scheme_config(case), json.dumps(case["value"]), record)
    assert sorted(found) == sorted(say(item) for item in case["problems"])
    if case["kind"] == "marks":
        scheme = SCHEMES[document["type"]]
        config, _ = scheme.parse_config(scheme_config(case))
        data = scheme.trace_problems(scheme.Value.model_validate(case["value"]), derive(record, **config.derive_options()),
                                     config)
        assert sorted(data, key=sort_key) == sorted(case["problems"], key=sort_key)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_browser_words_shape_problems_as_python_does():
    shape_cases = [(document, case) for document, case in (param.values for param in CASES) if case["kind"] == "shape"]
    assert len(shape_cases) >= len(TYPES), "every type has a shape case"
    payload = []
    for document, case in shape_cases:
        scheme = SCHEMES[document["type"]]
        config, _ = scheme.parse_config(scheme_config(case))
        payload.append({"value": case["value"], "schema": scheme.widget_config(config)["value_schema"]})
    out = subprocess.run([NODE, "-e", SHAPE_IN_NODE, str(WEB / "value_shape.js")], input=json.dumps(payload),
                         capture_output=True, text=True, check=True, timeout=60)
    for (document, case), from_js in zip(shape_cases, json.loads(out.stdout)):
        assert sorted(from_js) == sorted(case["problems"]), (document["type"], case["name"])


@pytest.mark.parametrize("name", sorted(TYPES))
def test_a_type_folder_holds_the_whole_type(name):
    folder = TYPES[name]
    for file_name in ("scheme.py", "adapter.py", "template.html", "cases.json"):
        assert (folder.folder / file_name).is_file(), f"types/{name}/ has no {file_name}"
    for file_name in ("marks.js", "view.js"):
        assert (folder.folder / file_name).is_file(), f"types/{name}/ has no {file_name}"
    for method in ("columns", "rows", "agreement"):
        assert callable(getattr(folder.adapter, method, None)), f"types/{name}/adapter.py lacks {method}"
    # migration.py is optional: the built-in this type replaces, or None for one that replaces none (mast)
    assert folder.migration is None or folder.migration.REPLACES is None or isinstance(folder.migration.REPLACES, str)
    kinds = {case["kind"] for case in json.loads((folder.folder / "cases.json").read_text())["cases"]}
    assert kinds == {"marks", "shape"}, f"types/{name}/cases.json needs both kinds of case"



HELPER_CODES = {"not_in_trace(": {"not_in_trace"}, "notInTrace(": {"not_in_trace"}, "above_bound(": {"at_most"},
                "aboveBound(": {"at_most"}, "step_problems(": {"not_in_trace"}, "stepProblems(": {"not_in_trace"}}
"""What the shared helpers a scheme.py or marks.js calls can find (a stale identity, stale_step or
stale_gone, is a rule of refs.py with cases of its own in every type that stores identities)."""


def codes_in_source(name: str) -> set:
    """Every problem code a type's scheme.py and marks.js can report, read from their text."""
    codes = set()
    for file_name in ("scheme.py", "marks.js"):
        text = (TYPES[name].folder / file_name).read_text(encoding="utf-8")
        codes |= set(re.findall(r"""problem\(\s*["'](\w+)["']""", text))
        for call, found in HELPER_CODES.items():
            if call in text:
                codes |= found
    return codes


@pytest.mark.parametrize("name", sorted(TYPES))
def test_every_rule_of_a_type_has_a_case_stated_as_data(name):
    cases = json.loads((TYPES[name].folder / "cases.json").read_text(encoding="utf-8"))["cases"]
    stated = [item for case in cases if case["kind"] == "marks" for item in case["problems"]]
    assert all(isinstance(item, dict) for item in stated), f"{name}: a marks case states words, not data"
    assert all(item["code"] in WORDS for item in stated), f"{name}: a case names a code with no words"
    missing = codes_in_source(name) - {item["code"] for item in stated}
    assert not missing, f"{name}: no case reports {sorted(missing)}"
