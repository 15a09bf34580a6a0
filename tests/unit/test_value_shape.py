"""The browser's value check (web/value_shape.js) and the pydantic Value models agree.

Each scheme's pydantic model is the one definition of its stored shape; the widget checks values
against the JSON Schema the model emits. This test feeds the same values to both and requires the
same verdict (valid or not), so the two can never drift apart.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from potato_multiagent.types import SCHEMES

NODE = shutil.which("node")
SHAPE_JS = Path(__file__).parents[2] / "src" / "potato_multiagent" / "web" / "value_shape.js"
# One node process for the module, one JSON line per batch of values: a node start per hypothesis
# example cost more than the checks themselves (about 26 s of the suite's CPU).
CHECK_LINES = """
const {checkShape} = require(process.argv[1]);
require('readline').createInterface({input: process.stdin}).on('line', line => {
  const {schema, values} = JSON.parse(line);
  process.stdout.write(JSON.stringify(values.map(v => checkShape(v, schema))) + '\\n');
});
"""

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


class NodeShapeChecker:
    """value_shape.js's checkShape in a node process that answers a line per batch."""

    def __init__(self) -> None:
        self._process = subprocess.Popen([NODE, "-e", CHECK_LINES, str(SHAPE_JS)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True)

    def problems(self, schema: dict, values: list) -> list:
        self._process.stdin.write(json.dumps({"schema": schema, "values": values}) + "\n")
        self._process.stdin.flush()
        answer = self._process.stdout.readline()
        assert answer, f"node exited with code {self._process.poll()} (value_shape.js)"
        return json.loads(answer)

    def close(self) -> None:
        self._process.stdin.close()
        self._process.wait(timeout=30)


@pytest.fixture(scope="module")
def node_shapes():
    checker = NodeShapeChecker()
    yield checker
    checker.close()


def pydantic_accepts(scheme, value) -> bool:
    try:
        scheme.Value.model_validate(value)
        return True
    except ValidationError:
        return False


def assert_same_verdicts(node_shapes, scheme, values):
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
