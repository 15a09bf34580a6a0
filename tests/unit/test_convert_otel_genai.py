"""`convert --from otel-genai`: spans written here in OpenTelemetry's GenAI semantic conventions.

OTLP JSON (`resourceSpans[].scopeSpans[].spans[]` with `traceId`, `spanId`, `parentSpanId`,
`startTimeUnixNano`/`endTimeUnixNano` as decimal strings, typed `attributes`), and the flat shape
of the Python SDK's console exporter (`context.trace_id`, ISO `start_time`, an attributes map).
Attributes: `gen_ai.operation.name` (`invoke_agent`, `execute_tool`, `chat`), `gen_ai.agent.name`,
`gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`,
and the handoff attributes `gen_ai.handoff.from_agent`/`to_agent` some instrumentations add.
"""

import json

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import ConvertError, convert_inputs

TRACE_ID = "5b8efff798038103d269b633813fc60c"
BASE_NS = 1_741_946_400 * 10**9  # 2025-03-14T10:00:00Z


def attribute(key, value):
    return {"key": key, "value": {"stringValue": value}}


def otlp_span(span_id, parent, name, start_ms, end_ms, **attributes):
    return {"traceId": TRACE_ID, "spanId": span_id, "parentSpanId": parent or "", "name": name, "kind": 1,
            "startTimeUnixNano": str(BASE_NS + start_ms * 10**6), "endTimeUnixNano": str(BASE_NS + end_ms * 10**6),
            "attributes": [attribute(key.replace("__", "."), value) for key, value in attributes.items()],
            "status": {}}


SPANS = [
    otlp_span("a1", None, "invoke_agent Planner", 0, 3000, gen_ai__operation__name="invoke_agent",
              gen_ai__agent__name="Planner"),
    otlp_span("c1", "a1", "chat gpt-4o", 100, 400, gen_ai__operation__name="chat",
              gen_ai__output__messages="Booker should search flights."),
    otlp_span("h1", "a1", "Planner → Booker.handoff", 500, 500, gen_ai__handoff__from_agent="Planner",
              gen_ai__handoff__to_agent="Booker"),
    otlp_span("a2", "a1", "invoke_agent Booker", 1000, 2500, gen_ai__operation__name="invoke_agent",
              gen_ai__agent__name="Booker"),
    otlp_span("t1", "a2", "execute_tool search_flights", 1100, 1600, gen_ai__operation__name="execute_tool",
              gen_ai__tool__name="search_flights", gen_ai__tool__call__id="call_1",
              gen_ai__tool__call__arguments="{\"from\": \"LIS\"}", gen_ai__tool__call__result="[\"TP123\"]"),
    otlp_span("a3", "a1", "invoke_agent Checker", 1200, 1800, gen_ai__operation__name="invoke_agent",
              gen_ai__agent__name="Checker"),
    otlp_span("t2", "a3", "execute_tool search_flights", 1300, 1500, gen_ai__operation__name="execute_tool",
              gen_ai__tool__name="search_flights", gen_ai__tool__call__id="call_2"),
]


def otlp(spans):
    return {"resourceSpans": [{"resource": {"attributes": [attribute("service.name", "flight-desk")]},
                               "scopeSpans": [{"scope": {"name": "flight-desk"}, "spans": spans}]}]}


def convert(tmp_path, text, name="otlp.json"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return convert_inputs("otel-genai", [path]).records


def test_an_otlp_export_gives_one_record_per_trace_with_agents_from_the_span_tree(tmp_path):
    [record] = convert(tmp_path, json.dumps(otlp(list(reversed(SPANS)))))
    assert record["id"] == TRACE_ID
    derivation = derive(record)
    assert derivation.agents == ["Planner", "Booker", "Checker"]
    assert [step.agent for step in derivation.steps] == ["Planner", "Planner", "Planner", "Booker", "Booker",
                                                         "Checker", "Checker"]
    assert derivation.steps[1].text == "Booker should search flights."
    assert [(h["from"], h["to"], h["step"]) for h in derivation.handoffs if h["explicit"]] == [("Planner", "Booker", 2)]


def test_execute_tool_spans_are_tool_calls_with_ids_and_timed_calls_in_iso_time(tmp_path):
    [record] = convert(tmp_path, json.dumps(otlp(SPANS)))
    derivation = derive(record)
    assert [(c["step"], c["id"], c["agent"], c["tool"], c["arguments"]) for c in derivation.tool_calls] == [
        (4, "call_1", "Booker", "search_flights", {"from": "LIS"}), (6, "call_2", "Checker", "search_flights", None)]
    assert record["steps"][4]["result"] == '["TP123"]'
    assert record["calls"] == [
        {"agent": "Booker", "tool": "search_flights", "resource": "search_flights",
         "start": "2025-03-14T10:00:01.100000Z", "end": "2025-03-14T10:00:01.600000Z", "step": 4},
        {"agent": "Checker", "tool": "search_flights", "resource": "search_flights",
         "start": "2025-03-14T10:00:01.300000Z", "end": "2025-03-14T10:00:01.500000Z", "step": 6}]
    [region] = derivation.contentions
    assert (region["resource"], region["start"], region["end"], region["agents"]) == (
        "search_flights", BASE_NS / 1e9 + 1.1, BASE_NS / 1e9 + 1.6, ["Booker", "Checker"])


def test_collector_file_exports_one_otlp_document_per_line(tmp_path):
    lines = "\n".join(json.dumps(otlp([span])) for span in SPANS)
    [from_lines] = convert(tmp_path, lines, "collector.jsonl")
    [whole] = convert(tmp_path, json.dumps(otlp(SPANS)))
    assert from_lines == whole


def test_flat_spans_from_the_console_exporter(tmp_path):
    flat = [
        {"name": "invoke_agent Solver", "context": {"trace_id": "0xabc", "span_id": "0x1"}, "parent_id": None,
         "start_time": "2025-03-14T10:00:00.000000Z", "end_time": "2025-03-14T10:00:02.000000Z",
         "attributes": {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Solver"}},
        {"name": "execute_tool calc", "context": {"trace_id": "0xabc", "span_id": "0x2"}, "parent_id": "0x1",
         "start_time": "2025-03-14T10:00:00.500000Z", "end_time": "2025-03-14T10:00:00.700000Z",
         "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "calc",
                        "gen_ai.tool.call.arguments": "{\"x\": 2}"}},
    ]
    [record] = convert(tmp_path, json.dumps(flat), "console.json")
    assert record["id"] == "0xabc"
    assert derive(record).tool_calls[0]["agent"] == "Solver"
    assert record["calls"][0]["start"] == "2025-03-14T10:00:00.500000Z"


@pytest.mark.parametrize("span, message", [
    ({"context": {"span_id": "0x1"}, "attributes": {}}, "trace_id: every span needs its trace id (trace_id, traceId or context.trace_id)"),
    ({"trace_id": "t", "attributes": {}}, "span_id: every span needs its id (span_id, spanId or context.span_id)"),
    ({"trace_id": "t", "span_id": "s", "start_time_unix_nano": "soon", "attributes": {}},
     "start_time_unix_nano: expected nanoseconds since the epoch, found 'soon'"),
    ("text", "item: expected an OTLP export (resourceSpans) or a span with an attributes map, found a string"),
])
def test_malformed_spans_name_file_line_and_field(tmp_path, span, message):
    with pytest.raises(ConvertError) as error:
        convert(tmp_path, json.dumps(otlp(SPANS)) + "\n" + json.dumps(span) + "\n", "bad.jsonl")
    assert str(error.value) == f"{tmp_path / 'bad.jsonl'}:2: {message}"


MESSAGES = [{"role": "assistant", "parts": [{"type": "text", "content": "Booking TP123."},
                                            {"type": "tool_call", "id": "call_9", "name": "book_flight",
                                             "arguments": {"flight": "TP123"}}]}]


@pytest.mark.parametrize("messages", [MESSAGES, json.dumps(MESSAGES)], ids=["list", "json-string"])
def test_structured_output_messages_show_their_text_parts(tmp_path, messages):
    """`gen_ai.output.messages` as current conventions write it: a list of messages with `parts`
    (as a map value, or JSON text on exporters that only take strings)."""
    flat = [{"name": "chat gpt-4o", "context": {"trace_id": "0xabc", "span_id": "0x1"}, "parent_id": None,
             "attributes": {"gen_ai.operation.name": "chat", "gen_ai.output.messages": messages}}]
    [record] = convert(tmp_path, json.dumps(flat), "console.json")
    assert record["steps"][0]["content"] == 'Booking TP123.\nbook_flight({"flight": "TP123"})'


def test_a_broken_console_export_names_the_line(tmp_path):
    good = json.dumps({"name": "s", "context": {"trace_id": "0xabc", "span_id": "0x1"}, "attributes": {}}, indent=4)
    with pytest.raises(ConvertError) as error:
        convert(tmp_path, good + "\n" + good[:-20] + "\n", "console.json")
    assert str(error.value).startswith(f"{tmp_path / 'console.json'}:")
    assert "not valid JSON" in str(error.value)
