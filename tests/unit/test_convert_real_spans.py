"""Span converters on files the real frameworks wrote (tests/fixtures/real/, scripts/fixtures/).

The five scripted runs (scripts/fixtures/agents_scenarios.py) are recorded three ways: the OpenAI
Agents SDK's own trace export (``openai-agents``), the official OpenTelemetry OpenAI-Agents
instrumentation (``otel-genai``: console exporter default and one-per-line, OTLP JSON with base64
and hex ids) and the OpenInference instrumentation (``openinference``). Every expected value below
is written by hand from the scripted scenario: who ran, who handed off to whom, which tool was
called with what, what it returned, which failed, what ran in parallel.

Outcomes that need the thread rules of THREADS.md in the derivation (wt/derive) are marked
``xfail(strict=True)``: the lead flips them after merging.
"""

import json
from pathlib import Path

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import convert_inputs
from potato_multiagent.trace import parse_time

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"

OTEL_FILES = ("{}.console.json", "{}.lines.jsonl", "{}.otlp.json", "{}.otlp-hex.json")
SOURCES = [("openai-agents", "openai-agents", ("{}.json",)),
           ("otel-genai", "otel", OTEL_FILES),
           ("openinference", "openinference", OTEL_FILES)]


def sources_of(scenario):
    """``(format, [path])`` of every recording of one scenario."""
    return [pytest.param(fmt, [REAL / folder / pattern.format(scenario)], id=f"{fmt}:{pattern.format(scenario)}")
            for fmt, folder, patterns in SOURCES for pattern in patterns]


def split_sources():
    return [pytest.param(fmt, [REAL / folder / "split"], id=f"{fmt}:split") for fmt, folder, _ in SOURCES]


def convert(fmt, paths):
    [record] = convert_inputs(fmt, paths).records
    return record


def tool_steps(record):
    return [step for step in record["steps"] if "tool_call" in step]


def tool_call_facts(record):
    """``(agent, tool, arguments, result, error)`` of every tool call, in step order."""
    return [(step.get("agent"), step["tool_call"]["name"], json.loads(step["tool_call"]["arguments"]),
             step["result"], step.get("error")) for step in tool_steps(record)]


def seconds(value):
    return parse_time(value)[1]


def overlap(first, second):
    return seconds(first["started_at"]) < seconds(second["ended_at"]) and \
        seconds(second["started_at"]) < seconds(first["ended_at"])


def encloses(outer, inner):
    """The interval the fixture recorded for `outer` holds `inner`'s (span nesting, not a timing)."""
    return seconds(outer["started_at"]) <= seconds(inner["started_at"]) and \
        seconds(inner["ended_at"]) <= seconds(outer["ended_at"])


def explicit(derivation):
    return [(h["from"], h["to"]) for h in derivation.handoffs if h["explicit"]]


BOOKKEEPING_NAMES = {"task", "turn", "unknown", "Agent workflow", "Support desk", "Trip planning", "Booking",
                     "Weekend brief", "Ice report"}


# --- triage: Triage hands off to Refunds, which looks the order up --------------------------------

@pytest.mark.parametrize("fmt, paths", sources_of("triage"))
def test_triage_handoff(fmt, paths):
    record = convert(fmt, paths)
    derivation = derive(record)
    assert record["workflow"] == "Support desk"
    assert derivation.agents == ["Triage", "Refunds"]
    assert [(h["from"], h["to"], h["explicit"]) for h in derivation.handoffs] == [("Triage", "Refunds", True)]
    assert [(e["from"], e["to"], e["count"]) for e in derivation.edges] == [("Triage", "Refunds", 1)]
    assert tool_call_facts(record) == [("Refunds", "lookup_order", {"order_id": "A17"},
                                        "A17: paid 40 EUR, delivered", None)]
    [call] = derivation.tool_calls
    assert (call["agent"], call["tool"], call["arguments"]) == ("Refunds", "lookup_order", {"order_id": "A17"})
    assert derivation.steps[-1].agent == "Refunds"
    assert derivation.steps[-1].text == "Order A17 was paid and delivered; I have opened a refund."
    assert not {step["span"] for step in record["steps"]} & BOOKKEEPING_NAMES
    assert all("thread" not in step and "error" not in step for step in record["steps"])


@pytest.mark.parametrize("fmt, paths", sources_of("triage")[1:5])
def test_the_instrumentations_default_agent_name_never_names_an_agent(fmt, paths):
    """Every OTel span carries gen_ai.agent.name "OpenAI Agent"; the invoke_agent ancestor wins."""
    record = convert(fmt, paths)
    agents = {step.get("agent") for step in record["steps"]} | {step.get("from_agent") for step in record["steps"]}
    assert agents - {None} == {"Triage", "Refunds"}


# --- agents as tools: Planner asks FlightScout and HotelScout at once -----------------------------

@pytest.mark.parametrize("fmt, paths", sources_of("agents_as_tools"))
def test_agents_as_tools_run_as_threads_of_their_own(fmt, paths):
    record = convert(fmt, paths)
    derivation = derive(record)
    assert record["workflow"] == "Trip planning"
    assert derivation.agents == ["Planner", "FlightScout", "HotelScout"]
    assert explicit(derivation) == []
    assert sorted(tool_call_facts(record)) == sorted([
        ("Planner", "ask_flights", {"input": "Flights to Oslo"}, "TP123 or SK456.", None),
        ("Planner", "ask_hotels", {"input": "Hotels in Oslo"}, "Hotel Bristol.", None),
        ("FlightScout", "search_flights", {"to": "OSL"}, "TP123, SK456", None),
        ("HotelScout", "search_hotels", {"city": "Oslo"}, "Hotel Bristol", None)])
    for step in record["steps"]:
        expected_thread = {"Planner": None, "FlightScout": "FlightScout", "HotelScout": "HotelScout"}[step["agent"]]
        assert step.get("thread") == expected_thread
        assert "parent_thread" not in step  # both scouts were started from the root thread
    assert record["steps"][0]["agent"] == "Planner" and record["steps"][-1]["agent"] == "Planner"
    assert record["steps"][-1]["content"] == "Fly TP123 and stay at Hotel Bristol."


@pytest.mark.parametrize("fmt, paths", sources_of("agents_as_tools"))
def test_the_two_agent_tools_and_their_agents_ran_in_parallel(fmt, paths):
    record = convert(fmt, paths)
    asks = {step["tool_call"]["name"]: step for step in tool_steps(record) if step["agent"] == "Planner"}
    assert overlap(asks["ask_flights"], asks["ask_hotels"])
    searches = {step["tool_call"]["name"]: step for step in tool_steps(record) if step["agent"] != "Planner"}
    assert overlap(searches["search_flights"], searches["search_hotels"])
    for ask, search in (("ask_flights", "search_flights"), ("ask_hotels", "search_hotels")):
        assert encloses(asks[ask], searches[search])   # the agent tool's span holds its agent's


@pytest.mark.parametrize("fmt, paths", sources_of("agents_as_tools"))
def test_agents_as_tools_derive_delegations_and_returns_not_handoffs_between_the_scouts(fmt, paths):
    derivation = derive(convert(fmt, paths))
    assert sorted((h["from"], h["to"], h["kind"]) for h in derivation.handoffs) == [
        ("FlightScout", "Planner", "return"), ("HotelScout", "Planner", "return"),
        ("Planner", "FlightScout", "delegation"), ("Planner", "HotelScout", "delegation")]
    assert sorted((e["from"], e["to"]) for e in derivation.edges) == [
        ("FlightScout", "Planner"), ("HotelScout", "Planner"), ("Planner", "FlightScout"), ("Planner", "HotelScout")]


# --- failing tool: book_flight raises --------------------------------------------------------------

@pytest.mark.parametrize("fmt, paths", sources_of("failing_tool"))
def test_a_failing_tool_marks_its_step_and_call_with_the_error(fmt, paths):
    record = convert(fmt, paths)
    derivation = derive(record)
    assert record["workflow"] == "Booking"
    assert derivation.agents == ["Booker"]
    [(agent, tool, arguments, result, error)] = tool_call_facts(record)
    assert (agent, tool, arguments) == ("Booker", "book_flight", {"flight": "TP123"})
    assert result == "An error occurred while running the tool. Please try again."  # what the model was told
    assert error.startswith("Error running tool (non-fatal)") and "Tool execution failed" in error
    [step] = tool_steps(record)
    assert step["tool_call"]["error"] == error
    assert [s for s in record["steps"] if "error" in s] == [step]
    assert derivation.steps[-1].text == "Sorry, booking failed: the seat map is unavailable."


@pytest.mark.parametrize("fmt, paths", sources_of("failing_tool"))
def test_the_derived_tool_call_carries_the_error(fmt, paths):
    derivation = derive(convert(fmt, paths))
    [call] = derivation.tool_calls
    assert call["error"].startswith("Error running tool (non-fatal)")


# --- fan-out: ResearcherA and ResearcherB run together, then Summarizer ----------------------------

@pytest.mark.parametrize("fmt, paths", sources_of("fan_out"))
def test_fan_out_runs_are_concurrent_threads_contending_on_one_tool(fmt, paths):
    record = convert(fmt, paths)
    derivation = derive(record)
    assert record["workflow"] == "Ice report"
    assert sorted(derivation.agents) == ["ResearcherA", "ResearcherB", "Summarizer"]
    assert explicit(derivation) == []
    assert sorted(tool_call_facts(record)) == [
        ("ResearcherA", "search_papers", {"topic": "glaciers"}, "Glaciers retreat 30 m a year", None),
        ("ResearcherB", "search_papers", {"topic": "sea ice"}, "Sea ice thins 5% a decade", None)]
    for step in record["steps"]:
        assert step.get("thread") == {"ResearcherA": "ResearcherA", "ResearcherB": "ResearcherB",
                                      "Summarizer": None}[step["agent"]]
        assert "parent_thread" not in step
    assert [step["agent"] for step in record["steps"][-2:]] == ["Summarizer", "Summarizer"]
    assert derivation.steps[-1].text == "Ice is retreating on land and at sea."
    [region] = derivation.contentions  # the same tool at the same time
    assert (region["resource"], region["agents"]) == ("search_papers", ["ResearcherA", "ResearcherB"])


@pytest.mark.parametrize("fmt, paths", sources_of("fan_out"))
def test_fan_out_researchers_never_hand_off_to_each_other(fmt, paths):
    derivation = derive(convert(fmt, paths))
    pairs = {(h["from"], h["to"]) for h in derivation.handoffs} | {(e["from"], e["to"]) for e in derivation.edges}
    assert not pairs & {("ResearcherA", "ResearcherB"), ("ResearcherB", "ResearcherA")}


# --- swarm: Coordinator -> Researcher (two tools at once) -> Writer ---------------------------------

@pytest.mark.parametrize("fmt, paths", sources_of("swarm") + split_sources())
def test_swarm_handoffs_and_parallel_tool_calls(fmt, paths):
    record = convert(fmt, paths)
    derivation = derive(record)
    assert record["workflow"] == "Weekend brief"
    assert derivation.agents == ["Coordinator", "Researcher", "Writer"]
    assert [(h["from"], h["to"], h["explicit"]) for h in derivation.handoffs] == [
        ("Coordinator", "Researcher", True), ("Researcher", "Writer", True)]
    assert [(e["from"], e["to"]) for e in derivation.edges] == [("Coordinator", "Researcher"), ("Researcher", "Writer")]
    assert sorted(tool_call_facts(record)) == [
        ("Researcher", "get_events", {"city": "Oslo"}, "Jazz night", None),
        ("Researcher", "get_weather", {"city": "Oslo"}, "Oslo: 3C, snow", None)]
    weather, events = tool_steps(record)
    assert overlap(weather, events)
    assert [(c["agent"], c["tool"]) for c in record["calls"]] == [
        (weather["agent"], weather["tool_call"]["name"]), (events["agent"], events["tool_call"]["name"])]
    assert derivation.steps[-1].agent == "Writer"
    assert derivation.steps[-1].text == "Oslo this weekend: snow at 3C, and a jazz night."
    assert all("thread" not in step for step in record["steps"])


# --- formats of one recording ---------------------------------------------------------------------

TIME_KEYS = ("started_at", "ended_at", "start", "end")


def comparable(record):
    """The record without the console exporter's ``0x`` id prefix, and its times apart: the console
    exporter prints float-converted times, one microsecond off the OTLP nanoseconds at times."""
    record = json.loads(json.dumps(record).replace('"0x', '"'))
    times = [seconds(entry.pop(key)) for entry in record["steps"] + record.get("calls", [])
             for key in TIME_KEYS if key in entry]
    return record, times


@pytest.mark.parametrize("folder, fmt", [("otel", "otel-genai"), ("openinference", "openinference")])
def test_console_lines_otlp_base64_and_hex_give_the_same_record(folder, fmt):
    for scenario in ("triage", "agents_as_tools", "failing_tool", "fan_out", "swarm"):
        [(first, first_times), *others] = [comparable(convert(fmt, [REAL / folder / pattern.format(scenario)]))
                                           for pattern in OTEL_FILES]
        for record, times in others:
            assert record == first, scenario
            assert len(times) == len(first_times) and all(abs(a - b) < 2e-6 for a, b in zip(times, first_times))


def test_a_trace_split_over_two_exporter_batches_needs_both_files():
    first, second = sorted((REAL / "openai-agents" / "split").iterdir())
    whole = convert("openai-agents", [first, second])
    assert len(convert("openai-agents", [first])["steps"]) < len(whole["steps"]) == 11


def test_fields_not_shown_are_named_on_stderr(capsys):
    convert("openai-agents", [REAL / "openai-agents" / "triage.json"])
    convert("otel-genai", [REAL / "otel" / "triage.lines.jsonl"])
    convert("openinference", [REAL / "openinference" / "triage.lines.jsonl"])
    err = capsys.readouterr().err
    assert "triage.json: not shown in the records" in err and "generation span usage" in err
    assert "turn span data (usage)" in err
    assert "attribute gen_ai.input.messages" in err and "attribute gen_ai.usage.input_tokens" in err
    assert "attribute llm.token_count.prompt" in err and "attribute llm.input_messages.*.message.content" in err
    assert "span kind" in err and "resource attribute service.name" in err


# --- AutoGen's own spans: a Swarm whose runtime spans tie the traces by links ----------------------

AUTOGEN = REAL / "otel" / "autogen"


@pytest.mark.parametrize("name", ["swarm.otlp.json", "swarm.console.json"])
def test_autogen_spans_tied_by_links_are_one_run(name, capsys):
    [record] = convert_inputs("otel-genai", [AUTOGEN / name]).records
    derivation = derive(record)
    assert [(step["span"], step.get("agent")) for step in record["steps"]] == [
        ("invoke_agent Coordinator", "Coordinator"), ("execute_tool transfer_to_researcher", "Coordinator"),
        ("invoke_agent Researcher", "Researcher"), ("execute_tool get_weather", "Researcher"),
        ("execute_tool get_events", "Researcher"), ("invoke_agent Researcher", "Researcher"),
        ("execute_tool transfer_to_writer", "Researcher"), ("invoke_agent Writer", "Writer")]
    assert derivation.agents == ["Coordinator", "Researcher", "Writer"]
    assert [(h["from"], h["to"]) for h in derivation.handoffs] == [("Coordinator", "Researcher"), ("Researcher", "Writer")]
    calls = [(step["tool_call"]["id"], step["tool_call"]["name"], step.get("error")) for step in tool_steps(record)]
    assert calls == [("call_c1", "transfer_to_researcher", None), ("call_w1", "get_weather", None),
                     ("call_e1", "get_events", "RuntimeError: events service down"),
                     ("call_x1", "transfer_to_writer", None)]
    weather, events = tool_steps(record)[1:3]
    assert overlap(weather, events)  # AutoGen runs one response's tool calls concurrently
    err = capsys.readouterr().err
    assert err.count("holds only bookkeeping spans (create_agent") == 3
    assert "attribute message," in err


# --- smolagents traced by OpenInference: a manager with a managed agent ----------------------------

SMOLAGENTS = [pytest.param([REAL / "openinference" / "smolagents" / name], id=name)
              for name in ("manager.otlp.json", "manager.console.json")]
MANAGER = "ToolCallingAgent"  # smolagents names an unnamed agent by its class


@pytest.mark.parametrize("paths", SMOLAGENTS)
def test_smolagents_managed_agent_is_a_thread_and_the_failing_tool_is_marked(paths):
    record = convert("openinference", paths)
    derivation = derive(record)
    assert derivation.agents == [MANAGER, "researcher"]
    assert tool_call_facts(record) == [
        (MANAGER, "get_weather", {"city": "Oslo"}, "Oslo: 3C, snow", None),
        ("researcher", "search_events", {"city": "Oslo"}, "Jazz night", None),
        ("researcher", "final_answer", {"answer": "Jazz night on Saturday"}, "Jazz night on Saturday", None),
        (MANAGER, "book_table", {"venue": "Jazz club"}, None, "RuntimeError: booking service down"),
        (MANAGER, "final_answer", {"answer": "Snow, 3C; jazz night on Saturday (table not booked)."},
         "Snow, 3C; jazz night on Saturday (table not booked).", None)]
    for step in record["steps"]:
        assert step.get("thread") == ("researcher" if step["agent"] == "researcher" else None)
        assert "parent_thread" not in step
    [failed_step] = [step for step in record["steps"] if step["span"] == "Step 2" and step["agent"] == MANAGER]
    assert failed_step["error"].startswith("AgentToolExecutionError: Error executing tool 'book_table'")
    assert record["steps"][0]["content"] == "Snow, 3C; jazz night on Saturday (table not booked)."
    researcher_run = next(step for step in record["steps"] if step["span"] == "researcher.run")
    weather = next(step for step in tool_steps(record) if step["tool_call"]["name"] == "get_weather")
    assert overlap(researcher_run, weather)  # smolagents ran the two calls of step 1 in parallel


@pytest.mark.parametrize("paths", SMOLAGENTS)
def test_smolagents_managed_agent_derives_a_delegation_and_a_return(paths):
    derivation = derive(convert("openinference", paths))
    assert [(h["from"], h["to"], h["kind"]) for h in derivation.handoffs] == [
        (MANAGER, "researcher", "delegation"), ("researcher", MANAGER, "return")]


def test_batches_of_one_trace_meet_whether_their_ids_are_base64_or_hex(tmp_path):
    """One batch as protobuf JSON writes it (base64 ids), the other as the OTLP/JSON specification
    does (hex ids): the trace is still one record."""
    import base64

    first, second = sorted((REAL / "otel" / "split").iterdir())

    def to_hex(value):
        if isinstance(value, dict):
            return {key: base64.b64decode(item).hex() if key in ("traceId", "spanId", "parentSpanId") and item
                    else to_hex(item) for key, item in value.items()}
        return [to_hex(item) for item in value] if isinstance(value, list) else value

    hex_second = tmp_path / "batch_2_hex.json"
    hex_second.write_text(json.dumps(to_hex(json.loads(second.read_text(encoding="utf-8")))), encoding="utf-8")
    mixed = convert("otel-genai", [first, hex_second])
    assert mixed == convert("otel-genai", [first, second])
    assert [step.get("agent") for step in mixed["steps"]][-1] == "Writer"
