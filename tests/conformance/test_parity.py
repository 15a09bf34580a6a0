"""Python and derive.js give the same output for random traces (hypothesis).

The corpus pins each rule with a hand-written case; this test looks for the inputs nobody
thought of. Each batch of examples goes to one node process (tests/conformance/derive_batch.js).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from potato_multiagent import derive
from potato_multiagent.trace import step_ref

BATCH_SCRIPT = Path(__file__).with_name("derive_batch.js")
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

# Characters chosen to hit the rules: the whitespace set and its near misses, brackets and arrows
# of the qualifier grammar, JSON punctuation, astral and right-to-left characters.
ALPHABET = st.sampled_from(list("AB ab_.-()[]{}\"':>→,01") + ["\t", "\n", "\u00a0", "\ufeff", "\u3000",
                                                                  "\u200b", "\x1c", "\u2028", "é", "😀", "\u202e"])
text = st.text(ALPHABET, max_size=12)
names = st.sampled_from(["A", "B", "C", " A", "A ", "Orchestrator (thought)", "Orchestrator (-> B)",
                         "B (→ C)", "X(y)", "A (x) (y)", "\ufeff", "", "user", "A->B", "tool", "function",
                         "Computer_terminal"]) | text
call_ids = st.sampled_from(["c1", "c2", "c3", "", " "])
threads = st.sampled_from(["t1", "t2", "t3", "", " ", "\ufeff", 3, None]) | st.fixed_dictionaries({"name": st.just("t1")})
errors = st.sampled_from(["boom", "", " ", True, 0, None]) | st.fixed_dictionaries({}, optional={
    "message": st.sampled_from(["timeout", "", 5]), "code": st.integers(0, 3)})
# the thread fields, drawn with every step shape so that threads interleave with calls and results
threaded = {"thread": threads, "parent_thread": threads, "error": errors}
json_scalar = st.none() | st.booleans() | st.integers(-2**53 + 1, 2**53 - 1) | \
    st.floats(allow_nan=False, allow_infinity=False, width=64) | text
json_value = st.recursive(json_scalar, lambda inner: st.lists(inner, max_size=3) |
                          st.dictionaries(st.sampled_from(["a", "b", "2", "10", "name", "id", "text"]), inner, max_size=3),
                          max_leaves=6)
agentish = names | st.fixed_dictionaries({}, optional={"name": names, "id": names}) | json_scalar
arguments = json_value | st.sampled_from(['{"q": 1}', "[1, 2]", "{bad", "[", "42", '"s"', "null", " {\"a\":1}",
                                           '{"a": NaN}', '{"a": 1e999}'])
call_object = st.fixed_dictionaries({}, optional={
    "id": call_ids | names, "call_id": call_ids, "name": names, "tool": names, "arguments": arguments, "args": arguments,
    "input": arguments, "function": st.fixed_dictionaries({}, optional={"name": names, "arguments": arguments}),
    "error": errors})
action = call_object | st.sampled_from(["search(x)", "Search[q]", "finish()", "finish", "  f ( a )  ", "free text",
                                        'lookup({"q": 1})', "f(x]", "f({bad)"]) | text
content_block = st.fixed_dictionaries({"type": st.sampled_from(["text", "tool_use", "tool_result", "image"])}, optional={
    "text": text | json_scalar, "id": call_ids, "name": names, "input": arguments, "tool_use_id": call_ids,
    "content": text | st.lists(st.fixed_dictionaries({"type": st.just("text")}, optional={"text": text}), max_size=2)})
time_value = st.integers(-5, 20) | st.floats(-5, 20, allow_nan=False) | st.booleans() | st.none() | st.sampled_from([
    "2024-01-01T00:00:00Z", "2024-01-01T00:00:05Z", "2024-01-01 00:00:03", "2024-01-01T00:00:02.1234567+00:00",
    "2024-02-30T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:00,5Z", "5", "0001-01-01T00:00:00Z"])
step = st.one_of(
    json_scalar,
    st.fixed_dictionaries({}, optional={
        "agent": agentish, "sender": agentish, "source": agentish, "speaker": agentish, "name": agentish,
        "role": agentish, "receiver": agentish, "to": agentish, "target": agentish, "recipient": agentish,
        "type": st.sampled_from(["handoff", "HandoffMessage", "HANDOFF", "message"]), "to_agent": agentish,
        "from_agent": agentish, "from": agentish, "content": json_value, "text": json_value, "thought": json_value,
        "action": action, "tool_calls": st.lists(call_object | json_scalar, max_size=3), "tool_call": call_object,
        "tool_call_id": call_ids, "call_id": call_ids, **threaded,
        "span_id": names | json_scalar, "message_id": names, "id": names | json_scalar,
    }) | st.fixed_dictionaries({"content": st.lists(content_block, max_size=3)},
                               optional={"role": st.sampled_from(["tool", "function", "user"]), "agent": agentish,
                                         **threaded}),
    # chat-shaped calls and tool results, so that results attributed to their caller are common
    st.fixed_dictionaries({"role": st.sampled_from(["assistant", "tool", "function", "tool (x)", "A"])}, optional={
        "tool_calls": st.lists(call_object, max_size=2), "tool_call_id": call_ids, "content": text,
        "agent": st.sampled_from(["tool", "function", "A", "Computer_terminal"]), "action": action, "to": names,
        **threaded}),
    # agents in threads of work: delegations, returns, parallel children
    st.fixed_dictionaries({"agent": st.sampled_from(["A", "B", "C", "M"])}, optional={
        "thread": threads, "parent_thread": threads, "to": st.sampled_from(["A", "B", "M"]),
        "type": st.just("handoff"), "to_agent": st.sampled_from(["A", "B"])}))
# runs made mostly of threaded agent steps, so that several children start and end around their parent
threaded_step = st.fixed_dictionaries({"agent": st.sampled_from(["A", "B", "C", "M"])}, optional={
    "thread": st.sampled_from(["t1", "t2", "t3"]), "parent_thread": st.sampled_from(["t1", "t2", "t3", "ghost"]),
    "to": st.sampled_from(["A", "M"]), "role": st.just("tool")})
call = json_scalar | st.fixed_dictionaries({}, optional={
    "agent": agentish, "name": names, "tool": names, "resource": names | st.integers(0, 3) | st.floats(0, 3),
    "start": time_value, "end": time_value})
record = st.fixed_dictionaries({"steps": st.lists(step, max_size=10)},
                               optional={"calls": st.lists(call, max_size=8) | json_scalar}) | \
    st.fixed_dictionaries({"steps": st.lists(threaded_step | step, min_size=3, max_size=12)})
options = st.fixed_dictionaries({}, optional={
    "agent_key": st.sampled_from(["agent", "role", "speaker", "constructor"]),
    "agents": st.lists(names, max_size=3), "agent_qualifiers": st.booleans()})



def _parse_js_integer(text):
    """Node writes a double such as 5.669752892354505e16 as the integer 56697528923545050; Python
    must read it back as the same double, not as an exact (and different) int."""
    value = int(text)
    return value if abs(value) <= 2**53 else float(text)


def _node_derive(batch):
    out = subprocess.run([NODE, str(BATCH_SCRIPT)], input=json.dumps(batch), capture_output=True, text=True,
                         check=True, timeout=60)
    return json.loads(out.stdout, parse_int=_parse_js_integer)


def _comparable(derivation):
    derivation = dict(derivation)
    derivation["problems"] = [(p["path"], p["code"]) for p in derivation["problems"]]
    return derivation


def _python_derive(example):
    derivation = derive(example["record"], **example["options"])
    return {**derivation.to_dict(), "step_refs": [step_ref(step) for step in derivation.steps]}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(batch=st.lists(st.fixed_dictionaries({"record": record, "options": options}), min_size=1, max_size=25))
def test_python_and_node_agree_on_random_traces(batch):
    # the record must survive a JSON round trip unchanged, as Potato serves it
    batch = json.loads(json.dumps(batch))
    from_node = _node_derive(batch)
    assert len(from_node) == len(batch)
    for example, node_result in zip(batch, from_node):
        python_result = _python_derive(example)
        assert _comparable(python_result) == _comparable(node_result), json.dumps(example, ensure_ascii=False)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(batch=st.lists(st.fixed_dictionaries({"record": record, "options": options}), min_size=1, max_size=25))
def test_step_identities_do_not_depend_on_the_order_of_keys(batch):
    """The page reads the record through Potato's `tojson`, which sorts every object's keys; a data
    file keeps its own order. A step's identity is the same either way (docs/derivation.md)."""
    batch = json.loads(json.dumps(batch))
    as_the_page_reads_it = json.loads(json.dumps(batch, sort_keys=True))
    from_node = _node_derive(as_the_page_reads_it)
    for example, node_result in zip(batch, from_node):
        assert _python_derive(example)["step_refs"] == node_result["step_refs"], json.dumps(example, ensure_ascii=False)
