"""The layout `auto` picks from the derivation, in Python (trace_view/layout.py), on the cases that
referee it and its browser twin (trace_view/layout_cases.json; tests/js/trace_view.test.js)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from potato_multiagent.trace import derive
from potato_multiagent.trace_view.layout import BECAUSE, layout_rule

CASES = json.loads((Path(__file__).parents[2] / "src" / "potato_multiagent" / "trace_view" / "layout_cases.json")
                   .read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_layout_rule_on_its_cases(case):
    assert layout_rule(derive(case["record"])) == (case["layout"], case["because"])


def test_every_reason_code_has_a_case_and_words():
    assert {case["because"] for case in CASES} == set(BECAUSE)
