"""Send one small multi-agent run to a Phoenix through the OpenTelemetry OTLP exporter.

Run with the Python of the Phoenix venv (``.venv-phoenix``, which has ``opentelemetry-sdk`` and
``opentelemetry-exporter-otlp-proto-http`` as ``arize-phoenix``'s dependencies):

    python send_run.py http://127.0.0.1:PORT PROJECT

The spans carry OpenInference attributes as the OpenAI-Agents instrumentation writes them: a
workflow ``AGENT`` span without a name of its own, one ``AGENT`` span per agent, ``LLM`` spans
with ``llm.output_messages``, a ``TOOL`` span per tool call and the ``handoff to X`` tool span.
Prints ``{"trace_id": ..., "spans": {name: span id}}`` as one JSON line.
"""

import json
import sys

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import Status, StatusCode

url, project = sys.argv[1], sys.argv[2]
provider = TracerProvider(resource=Resource.create({"openinference.project.name": project,
                                                    "service.name": "trip-planner"}))
provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{url}/v1/traces")))
tracer = provider.get_tracer("potato-multiagent-e2e")
ids = {}


def span(name, **attributes):
    current = tracer.start_as_current_span(name, attributes={"session.id": "trip-1", **attributes})
    return current


def remember(name, current):
    ids[name] = format(current.get_span_context().span_id, "016x")


with span("Agent workflow", **{"openinference.span.kind": "AGENT"}) as workflow:
    ids["trace_id"] = format(workflow.get_span_context().trace_id, "032x")
    with span("Planner", **{"openinference.span.kind": "AGENT", "agent.name": "Planner"}) as planner:
        remember("Planner", planner)
        with span("response", **{"openinference.span.kind": "LLM", "llm.model_name": "scripted",
                                  "llm.output_messages.0.message.role": "assistant",
                                  "llm.output_messages.0.message.content":
                                      "Flights first: the Researcher checks Berlin."}) as llm:
            remember("Planner response", llm)
        with span("handoff to Researcher", **{"openinference.span.kind": "TOOL", "input.value": "Planner",
                                             "output.value": "Researcher"}) as handoff:
            remember("handoff", handoff)
    with span("Researcher", **{"openinference.span.kind": "AGENT", "agent.name": "Researcher"}) as researcher:
        remember("Researcher", researcher)
        with span("search_flights", **{"openinference.span.kind": "TOOL", "tool.name": "search_flights",
                                       "tool.call.id": "call_1", "input.value": '{"city": "Berlin"}',
                                       "output.value": "error: city code expected"}) as tool:
            tool.set_status(Status(StatusCode.ERROR, "city code expected"))
            remember("search_flights", tool)
        with span("response", **{"openinference.span.kind": "LLM", "llm.model_name": "scripted",
                                  "llm.output_messages.0.message.role": "assistant",
                                  "llm.output_messages.0.message.content":
                                      "There are no flights to Berlin."}) as llm:
            remember("Researcher response", llm)

provider.force_flush()
provider.shutdown()
print(json.dumps({"trace_id": ids.pop("trace_id"), "spans": ids}))
