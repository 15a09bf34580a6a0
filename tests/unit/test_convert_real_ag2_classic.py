"""AG2 Classic runs the real framework wrote (tests/fixtures/real/ag2-classic/, scripts/fixtures/ag2_classic_runs.py).

Every expected value is written by hand from the scripted runs (the README's table). Read from
``autogen.opentelemetry``'s spans (``otel-genai``) and from the ``runtime_logging`` file
(``autogen``).
"""

from pathlib import Path

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import convert_inputs

from .framework_runs import handoffs, span_calls
from .framework_runs import one_record as read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "ag2-classic"
TASK = "What is 23% VAT on 240 EUR, and the total in USD?"
PLAN = "analyst: compute the VAT on 240 EUR at 23% and the price in USD."
ANSWER = "VAT is 55.20 EUR (total 295.20 EUR); the exchange-rate service failed, so no USD price. TERMINATE"


def one_record(fmt, name):
    return read(fmt, FIXTURES / name)


@pytest.mark.parametrize("name", ["groupchat.otlp.jsonl", "groupchat.console.json"])
def test_group_chat_from_spans(name):
    record = one_record("otel-genai", name)
    derivation = derive(record)
    assert derivation.agents == ["planner", "analyst", "user_proxy"]  # the manager only passes turns
    assert record["task"] == TASK
    assert span_calls(record) == [("analyst", "vat", "call_vat", {"amount": 240, "rate": 0.23}, "VAT 55.20 EUR, total 295.20 EUR", None),
                     ("analyst", "fx_rate", "call_fx", {"currency": "USD"}, None, "ExecutionError")]  # the caller's
    assert [step["error"] for step in record["steps"] if "error" in step] == ["ExecutionError"]
    turns = [(step.agent, step.text) for step in derivation.steps if "tool_call" not in record["steps"][step.index]]
    assert turns == [("planner", PLAN), ("analyst", 'vat({"amount": 240, "rate": 0.23})\nfx_rate({"currency": "USD"})'),
                     ("user_proxy", "VAT 55.20 EUR, total 295.20 EUR\n\nError: rate service unreachable for USD"),
                     ("analyst", ANSWER)]  # each turn once
    assert handoffs(derivation) == [
        ("planner", "analyst", "implicit"), ("analyst", "user_proxy", "implicit"), ("user_proxy", "analyst", "implicit")]


def test_crash_from_spans():
    record = one_record("otel-genai", "crash.otlp.jsonl")
    assert derive(record).agents == ["analyst"]
    assert [(step["agent"], step["span"], step["error"]) for step in record["steps"] if "error" in step] == [
        ("analyst", "chat scripted", "RuntimeError: model service unreachable")]
    assert record["error"] == "RuntimeError: model service unreachable"


def test_group_chat_from_the_runtime_log():
    conversion = convert_inputs("autogen", [FIXTURES / "groupchat.runtime_log.jsonl"])
    [record] = conversion.records
    derivation = derive(record)
    assert conversion.skipped == []  # AG2's own text lines are not records that failed
    assert derivation.agents == ["user_proxy", "planner", "analyst"]
    assert [step.text for step in derivation.steps] == [
        TASK, PLAN, 'vat({"amount": 240, "rate": 0.23})\nfx_rate({"currency": "USD"})',
        "vat: VAT 55.20 EUR, total 295.20 EUR\nfx_rate (error): Error: rate service unreachable for USD", ANSWER]
    assert [(c["agent"], c["tool"], c["id"], c["arguments"], c["error"], c["result_step"])
            for c in derivation.tool_calls] == [
        ("analyst", "vat", "call_vat", {"amount": 240, "rate": 0.23}, None, 3),
        ("analyst", "fx_rate", "call_fx", {"currency": "USD"}, "Error: rate service unreachable for USD", 3)]
    assert len(record["steps"]) == 5  # the manager's copies to every agent are no steps


def test_the_runtime_log_and_the_saved_chat_agree():
    logged = one_record("autogen", "groupchat.runtime_log.jsonl")
    saved = one_record("autogen", "groupchat.chat_result.json")
    assert [step.get("name") for step in logged["steps"]] == [step.get("name") for step in saved["steps"]]
    assert [step.get("content") for step in logged["steps"]] == [step.get("content") for step in saved["steps"]]


def test_crash_runtime_log_holds_the_one_message_sent():
    record = one_record("autogen", "crash.runtime_log.jsonl")
    assert [(step["name"], step["content"]) for step in record["steps"]] == [("user_proxy", "What is 23% VAT on 240 EUR?")]
