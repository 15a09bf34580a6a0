"""`convert --from openai-agents`: a trace written here in the Agents SDK's exported shape.

`Trace.export()` gives `{"object": "trace", "id", "workflow_name", "group_id", "metadata"}` and
`Span.export()` gives `{"object": "trace.span", "id", "trace_id", "parent_id", "started_at",
"ended_at", "span_data": {...}, "error"}` with `span_data.type` agent (`name`, `handoffs`, `tools`),
handoff (`from_agent`, `to_agent`), function (`name`, `input`, `output`), generation (`input`,
`output`, `model`). Processors receive spans when they end, so files list them in end order.
"""

import json

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import ConvertError, convert_inputs

TRACE_ID = "trace_0f1e2d3c4b5a69788796a5b4c3d2e1f0"


def span(span_id, parent, start, end, data):
    return {"object": "trace.span", "id": span_id, "trace_id": TRACE_ID, "parent_id": parent,
            "started_at": f"2025-03-14T10:00:{start}+00:00", "ended_at": f"2025-03-14T10:00:{end}+00:00",
            "span_data": data, "error": None}


TRACE = {"object": "trace", "id": TRACE_ID, "workflow_name": "Flight desk", "group_id": None, "metadata": None}
SPANS_BY_START = [
    span("span_triage", None, "00.000000", "00.950000",
         {"type": "agent", "name": "Triage", "handoffs": ["Booker"], "tools": [], "output_type": "str"}),
    span("span_gen", "span_triage", "00.100000", "00.800000",
         {"type": "generation", "input": [{"role": "user", "content": "Book LIS-OSL"}],
          "output": [{"role": "assistant", "content": "Routing you to Booker."}], "model": "gpt-4o",
          "model_config": {}, "usage": {"input_tokens": 12, "output_tokens": 5}}),
    span("span_handoff", "span_triage", "00.900000", "00.900000",
         {"type": "handoff", "from_agent": "Triage", "to_agent": "Booker"}),
    span("span_booker", None, "01.000000", "02.400000",
         {"type": "agent", "name": "Booker", "handoffs": [], "tools": ["search_flights", "book_flight"],
          "output_type": "str"}),
    span("span_search_b", "span_booker", "01.100000", "01.600000",
         {"type": "function", "name": "search_flights", "input": "{\"from\": \"LIS\", \"to\": \"OSL\"}",
          "output": "[\"TP123\"]", "mcp_data": None}),
    span("span_checker", None, "01.200000", "01.800000",
         {"type": "agent", "name": "Checker", "handoffs": [], "tools": ["search_flights"], "output_type": "str"}),
    span("span_search_c", "span_checker", "01.300000", "01.500000",
         {"type": "function", "name": "search_flights", "input": "{\"from\": \"LIS\"}", "output": "[]",
          "mcp_data": None}),
    span("span_book", "span_booker", "01.700000", "02.200000",
         {"type": "function", "name": "book_flight", "input": "{\"flight\": \"TP123\"}", "output": "QX7P2",
          "mcp_data": None}),
]
END_ORDER = sorted(SPANS_BY_START, key=lambda item: item["ended_at"])


def convert(tmp_path, text, name="trace.json"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return convert_inputs("openai-agents", [path]).records


def test_spans_in_end_order_become_steps_in_start_order(tmp_path):
    [record] = convert(tmp_path, json.dumps([TRACE] + END_ORDER))
    assert record["id"] == TRACE_ID and record["workflow"] == "Flight desk"
    assert [step["span"] for step in record["steps"]] == [
        "Triage", "generation", "handoff", "Booker", "search_flights", "Checker", "search_flights", "book_flight"]


def test_agents_handoffs_and_text_come_from_the_span_tree(tmp_path):
    [record] = convert(tmp_path, json.dumps([TRACE] + END_ORDER))
    derivation = derive(record)
    assert derivation.agents == ["Triage", "Booker", "Checker"]
    assert [(h["from"], h["to"], h["step"]) for h in derivation.handoffs if h["explicit"]] == [("Triage", "Booker", 2)]
    assert derivation.steps[1].agent == "Triage" and derivation.steps[1].text == "Routing you to Booker."
    assert derivation.steps[4].text == '["TP123"]'


def test_function_spans_are_tool_calls_and_timed_calls_that_contend_on_the_same_tool(tmp_path):
    [record] = convert(tmp_path, json.dumps([TRACE] + END_ORDER))
    derivation = derive(record)
    assert [(c["step"], c["id"], c["agent"], c["tool"], c["arguments"]) for c in derivation.tool_calls] == [
        (4, "span_search_b", "Booker", "search_flights", {"from": "LIS", "to": "OSL"}),
        (6, "span_search_c", "Checker", "search_flights", {"from": "LIS"}),
        (7, "span_book", "Booker", "book_flight", {"flight": "TP123"})]
    assert record["calls"][0] == {"agent": "Booker", "tool": "search_flights", "resource": "search_flights",
                                  "start": "2025-03-14T10:00:01.100000+00:00",
                                  "end": "2025-03-14T10:00:01.600000+00:00", "step": 4}
    [region] = derivation.contentions
    assert (region["resource"], region["agents"], region["calls"]) == ("search_flights", ["Booker", "Checker"], [0, 1])
    assert derivation.problems == []


def test_the_exporter_batch_and_json_lines_give_the_same_record(tmp_path):
    [from_array] = convert(tmp_path, json.dumps([TRACE] + END_ORDER))
    [from_batch] = convert(tmp_path, json.dumps({"data": [TRACE] + END_ORDER}), "batch.json")
    [from_lines] = convert(tmp_path, "\n".join(json.dumps(item) for item in [TRACE] + END_ORDER), "spans.jsonl")
    assert from_array == from_batch == from_lines


def test_an_unfinished_function_span_is_a_step_but_no_timed_call(tmp_path):
    running = {**SPANS_BY_START[4], "ended_at": None}
    [record] = convert(tmp_path, json.dumps([SPANS_BY_START[3], running]))
    assert record["steps"][1]["tool_call"]["name"] == "search_flights"
    assert "calls" not in record


@pytest.mark.parametrize("item, message", [
    ({"object": "trace.span", "id": "s", "trace_id": TRACE_ID}, "span_data: expected the span's data"),
    ({**SPANS_BY_START[0], "started_at": "yesterday"}, "started_at: expected an ISO 8601 time, found 'yesterday'"),
    ({**SPANS_BY_START[0], "trace_id": None}, "trace_id: expected the trace id, found null"),
    ([1, 2], "item: expected a trace or span object, found an array"),
])
def test_malformed_spans_name_file_line_and_field(tmp_path, item, message):
    with pytest.raises(ConvertError) as error:
        convert(tmp_path, json.dumps(SPANS_BY_START[3]) + "\n" + json.dumps(item) + "\n", "bad.jsonl")
    assert str(error.value).startswith(f"{tmp_path / 'bad.jsonl'}:2: {message}")
