"""Fixtures shared by the unit tests."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

NODE = shutil.which("node")
SHAPE_JS = Path(__file__).parents[2] / "src" / "potato_multiagent" / "web" / "value_shape.js"
CHECK_LINES = """
const {checkShape} = require(process.argv[1]);
require('readline').createInterface({input: process.stdin}).on('line', line => {
  const {schema, values} = JSON.parse(line);
  process.stdout.write(JSON.stringify(values.map(v => checkShape(v, schema))) + '\\n');
});
"""


class NodeShapeChecker:
    """value_shape.js's checkShape in one node process that answers a JSON line per batch of
    values: a node start per batch (175 of them in test_value_shape's hypothesis examples) took
    36.5 s of that module's time in a full run, one process 3.2 s."""

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
    """The browser's value check (web/value_shape.js), for tests that compare it with pydantic."""
    if NODE is None:
        pytest.skip("node is not installed")
    checker = NodeShapeChecker()
    yield checker
    checker.close()
