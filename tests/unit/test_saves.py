"""saves.refusals: which posted values of ours the server refuses (the e2e tests post them for real:
tests/e2e/test_save_refusal.py, and tests/e2e/test_broken_stored_values.py for values broken before)."""

from __future__ import annotations

import json

from potato_multiagent.saves import refusals
from potato_multiagent.types import SCHEMES

OURS = {"attribution": SCHEMES["multiagent.failure_attribution"]}
GOOD = json.dumps({"responsible_agent": "Coder", "decisive_step": 1, "reason": ""})
BROKEN = json.dumps({"responsible_agent": 3, "decisive_step": "two", "reason": None})
BROKEN_AFTER_AN_EDIT = json.dumps({"responsible_agent": "Coder", "decisive_step": "two", "reason": ""})


def test_a_bad_value_is_refused_over_a_good_one_or_none():
    for stored in ({}, {"attribution": [GOOD]}, {"attribution": [""]}):
        refused = refusals(iter([("attribution", BROKEN)]), OURS, stored)
        assert list(refused) == ["attribution"], stored
        assert refused["attribution"][0].startswith("responsible_agent: should be a text")


def test_a_value_of_a_scheme_whose_stored_value_is_broken_already_goes_through():
    """The page keeps a broken value until the annotator acts, so it rides along in every save of
    the item, and an edit may keep its broken part: neither may stop the save."""
    stored = {"attribution": [BROKEN]}
    assert refusals(iter([("attribution", BROKEN), ("outcome", "ok")]), OURS, stored) == {}
    assert refusals(iter([("attribution", BROKEN_AFTER_AN_EDIT)]), OURS, stored) == {}


def test_empty_values_and_potatos_own_schemes_are_never_refused():
    assert refusals(iter([("attribution", ""), ("attribution", None), ("outcome", "[[[")]), OURS) == {}
