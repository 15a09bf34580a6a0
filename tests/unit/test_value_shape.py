"""The browser's value check (web/value_shape.js) and the pydantic Value models agree.

Each scheme's pydantic model is the one definition of its stored shape; the widget checks values
against the JSON Schema the model emits. This test feeds the same values to both and requires the
same verdict (valid or not), so the two can never drift apart.
"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from potato_multiagent.types import SCHEMES

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def pydantic_accepts(scheme, value) -> bool:
    try:
        scheme.Value.model_validate(value)
        return True
    except ValidationError:
        return False


def assert_same_verdicts(node_shapes, scheme, values):
    """`node_shapes` is the conftest fixture: value_shape.js in one node process."""
    schema = scheme.Value.model_json_schema()
    for value, problems in zip(values, node_shapes.problems(schema, values)):
        assert (problems == []) == pydantic_accepts(scheme, value), (scheme.type_name(), value, problems)


json_scalars = st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-3, 3, allow_nan=False) | st.text(max_size=3)


@pytest.mark.parametrize("type_name", sorted(SCHEMES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_js_and_pydantic_agree_on_random_values(node_shapes, type_name, data):
    scheme = SCHEMES[type_name]
    fields = list(scheme.Value.model_fields)
    candidate = st.dictionaries(st.sampled_from(fields + ["extra"]), json_scalars, max_size=len(fields) + 1)
    values = data.draw(st.lists(candidate | json_scalars | st.lists(json_scalars, max_size=2), min_size=1, max_size=30))
    assert_same_verdicts(node_shapes, scheme, values)


def test_failure_attribution_edge_values(node_shapes):
    scheme = SCHEMES["multiagent.failure_attribution"]
    base = {"responsible_agent": "A", "decisive_step": 0, "reason": ""}
    assert_same_verdicts(node_shapes, scheme, [
        base, {**base, "decisive_step": None}, {**base, "responsible_agent": None},
        {**base, "decisive_step": -1}, {**base, "decisive_step": 1.5}, {**base, "decisive_step": 1.0}, {**base, "decisive_step": True},
        {**base, "decisive_step": "1"}, {**base, "reason": None}, {**base, "x": 1},
        {k: v for k, v in base.items() if k != "reason"}, [], None, "text"])
