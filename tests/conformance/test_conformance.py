"""The Python derivation against every case of the shared conformance corpus."""

import pytest

from potato_multiagent import derive
from potato_multiagent.trace import step_ref

from .corpus import cases, comparable

CASES = list(cases())


def test_corpus_is_substantial_and_names_are_unique():
    names = [case_id.split(" / ", 1)[1] for case_id, _ in CASES]
    assert len(CASES) >= 80
    assert len(set(names)) == len(names)


def test_every_case_states_the_whole_derivation():
    keys = {"steps", "agents", "edges", "handoffs", "tool_calls", "calls", "contentions", "problems"}
    incomplete = [case_id for case_id, case in CASES if set(case["expected"]) != keys]
    assert incomplete == []


@pytest.mark.parametrize("case", [case for _, case in CASES], ids=[case_id for case_id, _ in CASES])
def test_python_derivation_matches_the_corpus(case):
    result = derive(case["record"], **case.get("options", {})).to_dict()
    assert comparable(result) == case["expected"]


IDENTITY_CASES = [(case_id, case) for case_id, case in CASES if "step_refs" in case]


def test_the_identity_rule_has_cases():
    assert len(IDENTITY_CASES) >= 8


@pytest.mark.parametrize("case", [case for _, case in IDENTITY_CASES], ids=[case_id for case_id, _ in IDENTITY_CASES])
def test_python_step_identities_match_the_corpus(case):
    derivation = derive(case["record"], **case.get("options", {}))
    assert [step_ref(step) for step in derivation.steps] == case["step_refs"]
