"""`convert --from autogen` on files AutoGen AgentChat 0.7.5 and AG2 0.14 wrote themselves.

The fixtures (tests/fixtures/real/{autogen,ag2}/, README there) come from scripted offline runs;
every expected value below is written by hand from that script (who spoke, which tool was called
with what, what it returned, which one failed), never read back from the converter.
"""

import json
from pathlib import Path

import pytest

from potato_multiagent import derive
from potato_multiagent.cli import main
from potato_multiagent.convert import convert_inputs

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def convert_one(relative: str) -> dict:
    [record] = convert_inputs("autogen", [REAL / relative]).records
    return record


def handoffs(derivation):
    return [(h["from"], h["to"], h["step"], h["explicit"]) for h in derivation.handoffs]


def edges(derivation):
    return [(e["from"], e["to"], e["count"], e["steps"]) for e in derivation.edges]


def calls(derivation):
    return [(c["step"], c["id"], c["agent"], c["tool"], c["arguments"], c["result_step"]) for c in derivation.tool_calls]


def texts(derivation):
    return [step.text for step in derivation.steps]


# --- round robin: writer and critic take turns, no tools -------------------------------------------

ROUND_ROBIN_TEXTS = ["Draft: Lisbon is the capital of Portugal.", "Add the population.",
                     "Revised: Lisbon, capital of Portugal, has 545,796 inhabitants.", "APPROVE"]


@pytest.mark.parametrize("fixture", ["autogen/round_robin.task_result.json", "autogen/round_robin.state.json"])
def test_round_robin_is_four_turns_in_turn_order(fixture):
    record = convert_one(fixture)
    derivation = derive(record)
    assert texts(derivation) == ["Write one fact about Lisbon."] + ROUND_ROBIN_TEXTS
    assert derivation.agents == ["user", "writer", "critic"]
    assert handoffs(derivation) == [("user", "writer", 1, False), ("writer", "critic", 2, False),
                                    ("critic", "writer", 3, False), ("writer", "critic", 4, False)]
    assert edges(derivation) == [("user", "writer", 1, [1]), ("writer", "critic", 2, [2, 4]),
                                 ("critic", "writer", 1, [3])]
    assert derivation.tool_calls == [] and derivation.problems == []


def test_a_task_result_keeps_its_stop_reason_and_a_state_its_kind():
    assert convert_one("autogen/round_robin.task_result.json")["stop_reason"] == "Text 'APPROVE' mentioned"
    state = convert_one("autogen/round_robin.state.json")
    assert state["id"] == "round_robin.state" and state["team_state"] == "RoundRobinManagerState"


def test_fields_left_out_are_named_on_stderr(capsys):
    convert_inputs("autogen", [REAL / "autogen" / "round_robin.state.json"])
    err = capsys.readouterr().err
    assert err.startswith(f"note: {REAL / 'autogen' / 'round_robin.state.json'}: left out of the records: ")
    for named in ("models_usage (token counts) x4", "the participants' agent_states",
                  "agent_states.RoundRobinGroupChatManager.next_speaker_index"):
        assert named in err


# --- swarm: explicit handoffs, parallel tool calls, a summary that repeats them ---------------------

SWARM_CALLS = [
    (1, "call_t1", "triage", "transfer_to_flights", {}, 2),
    (4, "call_f1", "flights", "search_flights", {"origin": "LIS", "destination": "OSL", "date": "2025-03-14"}, 5),
    (4, "call_f2", "flights", "seat_map", {"flight": "TP123"}, 5),
    (7, "call_f3", "flights", "transfer_to_triage", {}, 8),
]


@pytest.mark.parametrize("fixture", ["autogen/swarm.task_result.json", "autogen/swarm.state.json"])
def test_swarm_hands_off_explicitly_and_counts_each_call_once(fixture):
    record = convert_one(fixture)
    derivation = derive(record)
    assert derivation.agents == ["user", "triage", "flights"]
    assert [step.kind for step in derivation.steps] == ["turn"] * 3 + ["handoff"] + ["turn"] * 5 + ["handoff", "turn"]
    assert handoffs(derivation) == [("user", "triage", 1, False), ("triage", "flights", 3, True),
                                    ("flights", "triage", 9, True)]
    assert edges(derivation) == [("user", "triage", 1, [1]), ("triage", "flights", 1, [3]),
                                 ("flights", "triage", 1, [9])]
    assert calls(derivation) == SWARM_CALLS
    assert derivation.steps[5].text == ('search_flights: ["TP123 LIS-OSL 2025-03-14 12:40 EUR 189"]\n'
                                        "seat_map: TP123: 14C, 22A free")
    assert derivation.steps[10].text == "Your flight TP123 is on hold with seat 14C. TERMINATE"
    summary = record["steps"][6]
    assert summary["type"] == "ToolCallSummaryMessage" and "tool_calls" not in summary
    assert summary["summary_of"] == ["call_f1", "call_f2"]
    assert all("error" not in step for step in record["steps"])


# --- a failing tool -------------------------------------------------------------------------------

DECLINED = "card VISA-4242 declined by issuer (amount 189.0 EUR)"


def test_a_tool_that_raised_marks_its_call_and_its_result_step():
    record = convert_one("autogen/failing_tool.task_result.json")
    derivation = derive(record)
    assert derivation.agents == ["user", "booker", "reviewer"]
    assert handoffs(derivation) == [("user", "booker", 1, False), ("booker", "reviewer", 4, False)]
    assert calls(derivation) == [(1, "call_c1", "booker", "charge_card", {"amount_eur": 189.0, "card": "VISA-4242"}, 2)]
    assert record["steps"][1]["tool_calls"] == [{"id": "call_c1", "name": "charge_card",
                                                  "arguments": '{"amount_eur": 189.0, "card": "VISA-4242"}',
                                                  "error": DECLINED}]
    assert record["steps"][2]["error"] == DECLINED
    assert derivation.steps[2].text == f"charge_card (error): {DECLINED}"
    assert derivation.steps[3].text == "The card was declined; the booking is not paid."


def test_the_derivation_shows_the_failed_call_and_step():
    derived = derive(convert_one("autogen/failing_tool.task_result.json")).to_dict()
    assert [call["error"] for call in derived["tool_calls"]] == [DECLINED]
    assert [step["error"] for step in derived["steps"]] == [None, None, DECLINED, None, None]


# --- Magentic-One ---------------------------------------------------------------------------------

ORCHESTRATOR = "MagenticOneOrchestrator"


@pytest.mark.parametrize("fixture", ["autogen/magentic_one.task_result.json", "autogen/magentic_one.events.jsonl"])
def test_magentic_one_run_orchestrator_sends_researcher_then_writer(fixture):
    record = convert_one(fixture)
    derivation = derive(record)
    assert [(step.agent, step.text) for step in derivation.steps][2:] == [
        (ORCHESTRATOR, "Find the population of Lisbon."),
        ("researcher", 'web_search({"query": "Lisbon population"})'),
        ("researcher", "web_search: Lisbon population (2021 census): 545,796"),
        ("researcher", "Lisbon population (2021 census): 545,796"),
        (ORCHESTRATOR, "Write one sentence with the population."),
        ("writer", "Lisbon has 545,796 inhabitants (2021 census)."),
        (ORCHESTRATOR, "Lisbon has 545,796 inhabitants (2021 census)."),
    ]
    assert derivation.steps[1].text.startswith("\nWe are working to address the following user request:")
    assert derivation.agents == ["user", ORCHESTRATOR, "researcher", "writer"]
    assert handoffs(derivation) == [("user", ORCHESTRATOR, 1, False), (ORCHESTRATOR, "researcher", 3, False),
                                    ("researcher", ORCHESTRATOR, 6, False), (ORCHESTRATOR, "writer", 7, False),
                                    ("writer", ORCHESTRATOR, 8, False)]
    assert calls(derivation) == [(3, "call_w1", "researcher", "web_search", {"query": "Lisbon population"}, 4)]
    assert record["steps"][5]["summary_of"] == ["call_w1"]


def test_magentic_one_state_keeps_the_ledger_and_the_summary_is_the_only_record_of_the_call():
    record = convert_one("autogen/magentic_one.state.json")
    assert (record["task"], record["facts"], record["plan"]) == (
        "What is the population of Lisbon?", "1. The task asks for the population of Lisbon.",
        "- researcher looks it up\n- writer states it in one sentence")
    derivation = derive(record)
    assert [step.agent for step in derivation.steps] == [ORCHESTRATOR, ORCHESTRATOR, "researcher", ORCHESTRATOR,
                                                         "writer", ORCHESTRATOR]
    assert handoffs(derivation) == [(ORCHESTRATOR, "researcher", 2, False), ("researcher", ORCHESTRATOR, 3, False),
                                    (ORCHESTRATOR, "writer", 4, False), ("writer", ORCHESTRATOR, 5, False)]
    assert calls(derivation) == [(2, "call_w1", "researcher", "web_search", {"query": "Lisbon population"}, None)]
    assert derivation.steps[2].text == "Lisbon population (2021 census): 545,796"


# --- AG2 ------------------------------------------------------------------------------------------

FX_ERROR = "Error: rate service unreachable for USD"


@pytest.mark.parametrize("fixture", ["ag2/chat_result.json", "ag2/groupchat_messages.json"])
def test_ag2_group_chat_with_two_tool_calls_one_failing(fixture):
    record = convert_one(fixture)
    derivation = derive(record)
    assert derivation.agents == ["user_proxy", "planner", "analyst"]
    assert handoffs(derivation) == [("user_proxy", "planner", 1, False), ("planner", "analyst", 2, False),
                                    ("analyst", "user_proxy", 3, False), ("user_proxy", "analyst", 4, False)]
    assert calls(derivation) == [(2, "call_vat", "analyst", "vat", {"amount": 240, "rate": 0.23}, 3),
                                 (2, "call_fx", "analyst", "fx_rate", {"currency": "USD"}, 3)]
    assert derivation.steps[2].text == 'vat({"amount": 240, "rate": 0.23})\nfx_rate({"currency": "USD"})'
    assert derivation.steps[3].text == f"vat: VAT 55.20 EUR, total 295.20 EUR\nfx_rate (error): {FX_ERROR}"
    assert [call.get("error") for call in record["steps"][2]["tool_calls"]] == [None, FX_ERROR]
    assert "error" not in record["steps"][3], "one of two results failed: only that call is marked"
    assert derivation.steps[4].text.endswith("so no USD price. TERMINATE")


def test_ag2_chat_result_keeps_the_summary_and_names_its_bookkeeping(capsys):
    record = convert_one("ag2/chat_result.json")
    assert record["id"] == "chat_result"
    assert record["summary"] == "VAT is 55.20 EUR (total 295.20 EUR); the exchange-rate service failed, so no USD price. "
    assert "chat_id" not in record and "cost" not in record
    err = capsys.readouterr().err
    assert "chat_id (AG2 ChatResult bookkeeping) x1" in err and "cost (AG2 ChatResult bookkeeping) x1" in err


def test_the_derivation_marks_only_the_failed_ag2_call():
    derived = derive(convert_one("ag2/groupchat_messages.json")).to_dict()
    assert [call["error"] for call in derived["tool_calls"]] == [None, FX_ERROR]


def test_the_cli_converts_both_fixture_folders_at_once(tmp_path, capsys):
    output = tmp_path / "runs.jsonl"
    code = main(["convert", "--from", "autogen", str(REAL / "autogen"), str(REAL / "ag2"), "-o", str(output)])
    out = capsys.readouterr().out
    assert code == 0 and "wrote 22 record(s)" in out
    ids = [json.loads(line)["id"] for line in output.read_text(encoding="utf-8").splitlines()]
    assert ids == ["agents_as_tools.state", "agents_as_tools.task_result",
                   "code_execution.state", "code_execution.task_result", "code_executor_with_model.state",
                   "code_executor_with_model.task_result", "failing_tool.state", "failing_tool.task_result", "magentic_one.events", "magentic_one.state",
                   "magentic_one.task_result", "magentic_one_log", "nested_agents_as_tools.state",
                   "nested_agents_as_tools.task_result", "round_robin.state", "round_robin.task_result", "swarm.state",
                   "swarm.task_result", "chat_result", "code_execution_chat_result", "groupchat_messages",
                   "two_agent_chat_result"]


# --- the original Magentic-One's log.jsonl (autogen-magentic-one at a1fdbd969, autogen-core 0.4.3) ---

def test_magentic_one_log_reads_its_instructions_as_addressed_and_its_failed_script_as_an_error():
    record = convert_one("autogen/magentic_one_log/log.jsonl")
    assert record["id"] == "magentic_one_log"
    derivation = derive(record)
    assert derivation.agents == ["UserProxy", "Orchestrator", "Coder", "Executor"]
    assert [(step.index, step.qualifier, step.to) for step in derivation.steps if step.to] == [
        (3, "-> Coder", "Coder"), (7, "-> Executor", "Executor"), (11, "-> Coder", "Coder"), (15, "-> Executor", "Executor")]
    assert [step.agent for step in derivation.steps] == (
        ["UserProxy"] + ["Orchestrator"] * 4 + ["Coder"] + ["Orchestrator"] * 3 + ["Executor"]
        + ["Orchestrator"] * 3 + ["Coder"] + ["Orchestrator"] * 3 + ["Executor"] + ["Orchestrator"] * 4)
    assert handoffs(derivation) == [
        ("UserProxy", "Orchestrator", 1, False), ("Orchestrator", "Coder", 5, False), ("Coder", "Orchestrator", 6, False),
        ("Orchestrator", "Executor", 9, False), ("Executor", "Orchestrator", 10, False),
        ("Orchestrator", "Coder", 13, False), ("Coder", "Orchestrator", 14, False),
        ("Orchestrator", "Executor", 17, False), ("Executor", "Orchestrator", 18, False)]
    assert derivation.steps[20].text == "\nThe mean of 4, 8 and 15 is 9.0."
    failed = record["steps"][9]["error"]
    assert failed.startswith("exit code 1: Traceback (most recent call last):")
    assert failed.endswith("ZeroDivisionError: division by zero")
    assert [k for k, step in enumerate(record["steps"]) if "error" in step] == [9], "the fixed script (step 17) exits 0"
    assert derivation.tool_calls == [] and derivation.problems == []


def test_the_derivation_shows_the_failed_magentic_one_script():
    derived = derive(convert_one("autogen/magentic_one_log/log.jsonl")).to_dict()
    assert [step["index"] for step in derived["steps"] if step["error"]] == [9]


def test_ag2_two_agent_chat_names_the_nameless_tool_call_after_its_caller():
    source = json.loads((REAL / "ag2" / "two_agent_chat_result.json").read_text(encoding="utf-8"))
    assert "name" not in source["chat_history"][1], "AG2 writes the tool-call message without a name"
    record = convert_one("ag2/two_agent_chat_result.json")
    derivation = derive(record)
    assert record["steps"][1]["name"] == "analyst" and record["steps"][1]["role"] == "assistant"
    assert derivation.agents == ["user_proxy", "analyst"]
    assert handoffs(derivation) == [("user_proxy", "analyst", 1, False), ("analyst", "user_proxy", 2, False),
                                    ("user_proxy", "analyst", 3, False)]
    assert calls(derivation) == [(1, "call_vat", "analyst", "vat", {"amount": 240, "rate": 0.23}, 2)]
    assert derivation.steps[2].text == "vat: VAT 55.20 EUR, total 295.20 EUR"


# --- agents as tools, run concurrently (AgentTool): their messages interleave -----------------------

AGENT_TOOL_STEPS = [  # (source, agent written by the converter, thread)
    ("user", None, None), ("lead", None, None),
    ("user", "lead", None), ("user", "lead", None),  # the inner runs' task messages: lead handing over
    ("translator", None, "call_b"),
    ("fact_checker", None, "call_a"), ("fact_checker", None, "call_a"), ("fact_checker", None, "call_a"),
    ("lead", None, None), ("lead", None, None),
]


@pytest.mark.parametrize("fixture", ["autogen/agents_as_tools.task_result.json", "autogen/agents_as_tools.state.json"])
def test_agents_called_as_tools_run_in_threads_named_after_their_calls(fixture):
    record = convert_one(fixture)
    assert [(step["source"], step.get("agent"), step.get("thread")) for step in record["steps"]] == AGENT_TOOL_STEPS
    assert not any("parent_thread" in step for step in record["steps"]), "both calls start from the root thread"
    assert [record["steps"][k]["content"] for k in (2, 3)] == ["Is seat 14C on TP123 free?",
                                                               "Translate: TP123 leaves at 12:40."]
    derivation = derive(record)
    assert calls(derivation) == [
        (1, "call_a", "lead", "fact_checker", {"task": "Is seat 14C on TP123 free?"}, 8),
        (1, "call_b", "lead", "translator", {"task": "Translate: TP123 leaves at 12:40."}, 8),
        (5, "call_s1", "fact_checker", "seat_map", {"flight": "TP123"}, 6)]
    assert derivation.steps[8].text == ("fact_checker: fact_checker: TP123: 14C, 22A free\n"
                                        "translator: translator: O voo TP123 parte às 12:40.")
    assert record["steps"][7]["summary_of"] == ["call_s1"]


def test_agents_called_as_tools_are_delegations_and_returns_not_handoffs_between_them():
    derived = derive(convert_one("autogen/agents_as_tools.task_result.json")).to_dict()
    assert derived["agents"] == ["user", "lead", "translator", "fact_checker"]
    assert [(h["from"], h["to"], h["step"], h["kind"]) for h in derived["handoffs"]] == [
        ("user", "lead", 1, "implicit"), ("lead", "translator", 4, "delegation"),
        ("lead", "fact_checker", 5, "delegation"), ("translator", "lead", 8, "return"),
        ("fact_checker", "lead", 8, "return")]
    assert [(e["from"], e["to"], e["steps"]) for e in derived["edges"]] == [
        ("user", "lead", [1]), ("lead", "translator", [4]), ("lead", "fact_checker", [5]),
        ("translator", "lead", [8]), ("fact_checker", "lead", [8])]
    assert [step["thread"] for step in derived["steps"]] == [thread for _, _, thread in AGENT_TOOL_STEPS]


# --- code executors: a script that divides by zero, then the fixed one ---------------------------

def assert_division_by_zero(error):
    assert error.startswith("exit code 1: Traceback (most recent call last):")
    assert error.endswith("ZeroDivisionError: division by zero")


def test_code_executor_agent_reports_the_failed_script_as_an_error():
    record = convert_one("autogen/code_execution.task_result.json")
    derivation = derive(record)
    assert derivation.agents == ["user", "coder", "executor"]
    assert handoffs(derivation) == [("user", "coder", 1, False), ("coder", "executor", 2, False),
                                    ("executor", "coder", 3, False), ("coder", "executor", 4, False),
                                    ("executor", "coder", 5, False)]
    assert [k for k, step in enumerate(record["steps"]) if "error" in step] == [2]
    assert_division_by_zero(record["steps"][2]["error"])
    assert derivation.steps[4].text == "9.0\n"


def test_code_executor_agent_with_a_model_retries_and_its_failed_execution_is_an_error():
    record = convert_one("autogen/code_executor_with_model.task_result.json")
    derivation = derive(record)
    assert [step["type"] for step in record["steps"]] == [
        "TextMessage", "CodeGenerationEvent", "CodeExecutionEvent", "CodeGenerationEvent", "CodeGenerationEvent",
        "CodeExecutionEvent", "TextMessage"]
    assert derivation.agents == ["user", "analyst"]
    assert handoffs(derivation) == [("user", "analyst", 1, False)]
    assert derivation.steps[3].text == "Attempt number: 1\nProposed correction: len - 3 is zero; divide by len"
    assert derivation.steps[5].text == "9.0\n" and record["steps"][5]["result"]["exit_code"] == 0
    assert [k for k, step in enumerate(record["steps"]) if "error" in step] == [2]
    assert_division_by_zero(record["steps"][2]["error"])
    assert derivation.steps[2].text.startswith("The script ran, then exited with an error (POSIX exit code: 1)")


def test_ag2_code_execution_reply_that_failed_is_an_error():
    record = convert_one("ag2/code_execution_chat_result.json")
    derivation = derive(record)
    assert derivation.agents == ["user_proxy", "coder"]
    assert handoffs(derivation) == [("user_proxy", "coder", 1, False), ("coder", "user_proxy", 2, False),
                                    ("user_proxy", "coder", 3, False), ("coder", "user_proxy", 4, False),
                                    ("user_proxy", "coder", 5, False)]
    assert [k for k, step in enumerate(record["steps"]) if "error" in step] == [2]
    assert_division_by_zero(record["steps"][2]["error"])
    assert derivation.steps[4].text == "exitcode: 0 (execution succeeded)\nCode output: \n9.0\n"
    assert derivation.tool_calls == []


NESTED_STEPS = [  # (source, agent written by the converter, thread, parent_thread)
    ("user", None, None, None), ("lead", None, None, None), ("user", "lead", None, None),
    ("researcher", None, "call_l1", None), ("user", "researcher", "call_l1", None),
    ("summarizer", None, "call_r1", "call_l1"),
    ("researcher", None, "call_l1", None), ("researcher", None, "call_l1", None),
    ("lead", None, None, None), ("lead", None, None, None),
]


def test_an_agent_tool_inside_an_agent_tool_names_its_parent_thread():
    record = convert_one("autogen/nested_agents_as_tools.task_result.json")
    assert [(step["source"], step.get("agent"), step.get("thread"), step.get("parent_thread"))
            for step in record["steps"]] == NESTED_STEPS
    assert calls(derive(record)) == [
        (1, "call_l1", "lead", "researcher", {"task": "How many people live in Lisbon?"}, 8),
        (3, "call_r1", "researcher", "summarizer", {"task": "Summarise: Lisbon census 2021, 545,796."}, 6)]


def test_nested_agent_tools_are_delegations_down_and_returns_up():
    derived = derive(convert_one("autogen/nested_agents_as_tools.task_result.json")).to_dict()
    assert [(h["from"], h["to"], h["step"], h["kind"]) for h in derived["handoffs"]] == [
        ("user", "lead", 1, "implicit"), ("lead", "researcher", 3, "delegation"),
        ("researcher", "summarizer", 5, "delegation"), ("summarizer", "researcher", 6, "return"),
        ("researcher", "lead", 8, "return")]
