"""Run order for the parallel suite: the longest modules first.

pytest-xdist (`--dist loadscope`, scripts/test.sh) hands whole modules to workers in the order they
were collected. Collected in path order, the module that takes longest (the bench's end-to-end smoke
run, 80 s and more) came last and left the other workers idle while it ran. Longest first is the
classic fix for that tail. The list is a schedule, not a rule: a module missing from it runs after
these, in path order, and every order is correct.
"""

from __future__ import annotations

LONGEST_FIRST = [
    "tests/package/test_wheel.py",
    "tests/e2e/test_saving.py",   # mostly waiting: delayed saves, a server restarted twice
    "tests/unit/test_bench_smoke.py",
    "tests/e2e/test_handoff_review.py",
    "tests/e2e/test_hostile_input.py",
    "tests/e2e/test_trace_view.py",
    "tests/e2e/test_broken_stored_values.py",
    "tests/e2e/test_accessibility.py",
    "tests/e2e/test_agent_interaction_graph.py",
    "tests/e2e/test_contract.py",
    "tests/e2e/test_data_safety.py",
    "tests/e2e/test_agent_scorecard.py",
    "tests/e2e/test_emergent_behavior.py",
    "tests/e2e/test_tool_call_review.py",
    "tests/e2e/test_tool_contention.py",
    "tests/e2e/test_long_trace_dom.py",
    "tests/e2e/test_annotator_journey.py",
    "tests/conformance/test_parity.py",
    "tests/unit/test_value_shape.py",
    "tests/realdata/test_convert_realdata.py",
]


def pytest_collection_modifyitems(config, items):
    rank = {path: position for position, path in enumerate(LONGEST_FIRST)}
    unlisted = len(LONGEST_FIRST)
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], unlisted))   # stable: path order kept within
