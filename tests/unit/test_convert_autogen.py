"""`convert --from autogen`: AgentChat messages and AG2 chats written here in AutoGen's documented shapes.

AgentChat (`autogen_agentchat.messages`): every message has `source` and a `type` discriminator;
`HandoffMessage` adds `target` (and `context`); `ToolCallRequestEvent.content` is a list of
`FunctionCall {id, arguments, name}`; `ToolCallExecutionEvent.content` a list of
`FunctionExecutionResult {content, name, call_id, is_error}`. A run's `TaskResult` dumps as
`{"messages": [...], "stop_reason": ...}`. AG2's `ChatResult.chat_history` is OpenAI-style messages
with `name` and `role`.
"""

import json

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import ConvertError, convert_inputs

TASK_RESULT = {
    "messages": [
        {"source": "user", "models_usage": None, "metadata": {}, "content": "Book LIS to OSL on 14 March.",
         "type": "TextMessage"},
        {"source": "planner", "models_usage": {"prompt_tokens": 40, "completion_tokens": 9}, "metadata": {},
         "content": "Transferred to booker.", "target": "booker",
         "context": [{"content": "Book LIS to OSL on 14 March.", "source": "user", "type": "UserMessage"}],
         "type": "HandoffMessage"},
        {"source": "booker", "models_usage": None, "metadata": {}, "type": "ToolCallRequestEvent",
         "content": [{"id": "call_1", "name": "search_flights",
                      "arguments": "{\"from\": \"LIS\", \"to\": \"OSL\", \"date\": \"2025-03-14\"}"}]},
        {"source": "booker", "models_usage": None, "metadata": {}, "type": "ToolCallExecutionEvent",
         "content": [{"content": "[\"TP123 12:40 EUR 189\"]", "name": "search_flights", "call_id": "call_1",
                      "is_error": False}]},
        {"source": "booker", "models_usage": None, "metadata": {}, "content": "Booked TP123 on 15 March.",
         "type": "ToolCallSummaryMessage"},
        {"source": "booker", "models_usage": None, "metadata": {}, "content": "Back to you.", "target": "planner",
         "context": [], "type": "HandoffMessage"},
        {"source": "planner", "models_usage": None, "metadata": {}, "content": "Done.", "type": "StopMessage"},
    ],
    "stop_reason": "Text 'Done.' mentioned",
}

AG2_CHAT = {
    "id": "ag2-chat-7",
    "chat_history": [
        {"content": "Compute 6 * 7.", "role": "assistant", "name": "user_proxy"},
        {"content": None, "role": "assistant", "name": "coder", "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "python", "arguments": "{\"code\": \"6*7\"}"}}]},
        {"content": "42", "role": "tool", "name": "user_proxy",
         "tool_responses": [{"tool_call_id": "call_9", "role": "tool", "content": "42"}]},
        {"content": "The answer is 42.", "role": "user", "name": "coder"},
    ],
}


def convert(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return convert_inputs("autogen", [path]).records


def test_a_task_result_keeps_one_step_per_message_and_its_explicit_handoffs(tmp_path):
    [record] = convert(tmp_path, "run.json", json.dumps(TASK_RESULT))
    assert record["id"] == "run"
    assert len(record["steps"]) == len(TASK_RESULT["messages"])
    derivation = derive(record)
    assert derivation.agents == ["user", "planner", "booker"]
    explicit = [(h["from"], h["to"], h["step"]) for h in derivation.handoffs if h["explicit"]]
    assert explicit == [("planner", "booker", 1), ("booker", "planner", 5)]
    assert [step.kind for step in derivation.steps] == ["turn", "handoff", "turn", "turn", "turn", "handoff", "turn"]


def test_a_handoff_step_keeps_source_and_target_but_not_the_handed_over_context_or_usage(tmp_path):
    [record] = convert(tmp_path, "run.json", json.dumps(TASK_RESULT))
    handoff = record["steps"][1]
    assert handoff == {"source": "planner", "metadata": {}, "content": "Transferred to booker.",
                       "target": "booker", "type": "HandoffMessage"}


def test_tool_call_events_become_derived_tool_calls_with_readable_text(tmp_path):
    [record] = convert(tmp_path, "run.json", json.dumps(TASK_RESULT))
    derivation = derive(record)
    [call] = derivation.tool_calls
    assert {key: call[key] for key in ("step", "id", "agent", "tool", "arguments", "result_step")} == {
        "step": 2, "id": "call_1", "agent": "booker", "tool": "search_flights",
        "arguments": {"from": "LIS", "to": "OSL", "date": "2025-03-14"}, "result_step": 3}
    assert derivation.steps[2].text == 'search_flights({"from": "LIS", "to": "OSL", "date": "2025-03-14"})'
    assert derivation.steps[3].text == 'search_flights: ["TP123 12:40 EUR 189"]'
    assert record["steps"][3]["content"][0]["content"] == TASK_RESULT["messages"][3]["content"][0]["content"]


def test_a_failed_tool_execution_says_so(tmp_path):
    failing = {"source": "booker", "type": "ToolCallExecutionEvent",
               "content": [{"content": "timeout", "name": "search_flights", "call_id": "c2", "is_error": True}]}
    [record] = convert(tmp_path, "fail.json", json.dumps({"messages": [failing]}))
    assert derive(record).steps[0].text == "search_flights (error): timeout"


def test_an_ag2_chat_keeps_its_messages_and_openai_tool_calls(tmp_path):
    [record] = convert(tmp_path, "chat.json", json.dumps(AG2_CHAT))
    history = AG2_CHAT["chat_history"]
    assert record["id"] == "ag2-chat-7"
    assert [record["steps"][k] for k in (0, 3)] == [history[0], history[3]]
    assert record["steps"][1] == {**history[1], "content": 'python({"code": "6*7"})'}
    assert record["steps"][2] == {"content": [{"type": "tool_result", "tool_use_id": "call_9", "name": "python",
                                               "is_error": False, "content": "42", "text": "python: 42"}],
                                  "role": "tool", "name": "user_proxy"}
    derivation = derive(record)
    assert derivation.agents == ["user_proxy", "coder"]
    assert [(call["agent"], call["tool"], call["arguments"]) for call in derivation.tool_calls] == [
        ("coder", "python", {"code": "6*7"})]


def test_json_lines_of_messages_are_one_conversation_named_after_the_file(tmp_path):
    lines = "\n".join(json.dumps(message) for message in TASK_RESULT["messages"])
    [record] = convert(tmp_path, "stream.jsonl", lines)
    assert record["id"] == "stream" and len(record["steps"]) == 7


def test_a_file_of_conversations_gives_one_record_each(tmp_path):
    records = convert(tmp_path, "runs.json", json.dumps([TASK_RESULT, AG2_CHAT]))
    assert [record["id"] for record in records] == ["runs-1", "ag2-chat-7"]


def test_a_multimodal_message_keeps_its_text_and_marks_images(tmp_path):
    message = {"source": "user", "type": "MultiModalMessage",
               "content": ["Is this seat free?", {"data": "iVBORw0KGgo=", "format": "png"}]}
    [record] = convert(tmp_path, "mm.json", json.dumps({"messages": [message]}))
    assert record["steps"][0]["content"] == "Is this seat free?\n[image]"


@pytest.mark.parametrize("text, message", [
    ('{"hello": "world"}', "1: item: neither an AutoGen conversation"),
    ('{"messages": [{"source": "a", "type": "ToolCallRequestEvent", "content": "oops"}]}',
     "1: messages[0].content: expected a list of objects, found a string"),
    ('{"messages": ["just text"]}', "1: messages[0]: expected a message object, found a string"),
    ('{"source": "a", "type": "TextMessage", "content": "hi"}\n{"source": "b", "type": "TextMessage", "content": "x"\n',
     "2: input: not a JSON line"),
])
def test_unknown_or_malformed_input_names_file_line_and_field(tmp_path, text, message):
    with pytest.raises(ConvertError) as error:
        convert(tmp_path, "bad.jsonl", text)
    assert str(error.value).startswith(f"{tmp_path / 'bad.jsonl'}:{message}")


def test_a_single_agents_state_is_refused_with_what_was_expected(tmp_path):
    state = {"type": "AssistantAgentState", "version": "1.0.0", "llm_context": {"messages": []}}
    with pytest.raises(ConvertError) as error:
        convert(tmp_path, "agent.json", json.dumps(state))
    assert str(error.value).startswith(f"{tmp_path / 'agent.json'}:1: item: neither an AutoGen conversation")
    assert "team.save_state() (type TeamState)" in str(error.value)


def test_a_team_state_needs_one_manager_thread(tmp_path):
    state = {"type": "TeamState", "version": "1.0.0", "agent_states": {"writer": {"type": "ChatAgentContainerState"}}}
    with pytest.raises(ConvertError) as error:
        convert(tmp_path, "team.json", json.dumps(state))
    assert str(error.value) == (f"{tmp_path / 'team.json'}:1: agent_states: expected one group chat manager state "
                                "with a message_thread, found 0")


def test_magentic_one_llm_call_lines_are_token_counts_not_steps(tmp_path, capsys):
    """LLMCallEvent lines as Magentic-One's LogHandler writes them (its utils.py; the scripted fixture has none)."""
    lines = [{"timestamp": "2024-11-02T10:00:00", "source": "UserProxy", "message": "Task", "type": "OrchestrationEvent"},
             {"timestamp": "2024-11-02T10:00:01", "prompt_tokens": 812, "completion_tokens": 90, "type": "LLMCallEvent"},
             {"timestamp": "2024-11-02T10:00:02", "source": "Orchestrator (thought)", "message": "Plan",
              "type": "OrchestrationEvent"}]
    (tmp_path / "run7").mkdir()
    [record] = convert(tmp_path, "run7/log.jsonl", "\n".join(json.dumps(line) for line in lines))
    assert record == {"id": "run7", "steps": [lines[0], lines[2]]}
    assert "LLMCallEvent lines (token counts of one model call each) x1" in capsys.readouterr().err


@pytest.mark.parametrize("message, error", [
    ("The script ran, then exited with Unix exit code: 2\nIts output was:\nusage: x", "exit code 2: usage: x"),
    ("The script ran but produced no output to console. The Unix exit code was: 1. If you were expecting output, "
     "consider revising the script to ensure content is printed to stdout.", "exit code 1"),
    ("The script ran, then exited with Unix exit code: 0\nIts output was:\n9.0\n", None),
])
def test_a_magentic_one_executor_report_with_a_nonzero_exit_code_is_an_error(tmp_path, message, error):
    line = {"timestamp": "2024-11-02T10:00:00", "source": "Executor", "message": message, "type": "OrchestrationEvent"}
    [record] = convert(tmp_path, "run.jsonl", json.dumps(line))
    assert record["steps"][0].get("error") == error


def test_conversation_fields_not_read_are_named_on_stderr(tmp_path, capsys):
    run = {**TASK_RESULT, "run_by": "nightly", "task": "Book LIS to OSL."}
    [record] = convert(tmp_path, "run.json", json.dumps(run))
    assert record["task"] == "Book LIS to OSL." and "run_by" not in record
    err = capsys.readouterr().err
    assert "run_by (a conversation field this converter does not read) x1" in err
    assert "models_usage (token counts) x1" in err and "context (the model context a HandoffMessage hands over" in err


def test_odd_call_ids_neither_crash_nor_link(tmp_path):
    messages = [{"source": "a", "type": "ToolCallRequestEvent", "content": [{"id": ["x"], "name": "t", "arguments": "{}"}]},
                {"source": "a", "type": "ToolCallExecutionEvent",
                 "content": [{"content": "boom", "name": "t", "call_id": ["x"], "is_error": True}]},
                {"source": "a", "type": "ToolCallSummaryMessage", "content": "boom", "tool_calls": None, "results": None}]
    [record] = convert(tmp_path, "odd.json", json.dumps({"messages": messages}))
    assert "error" not in record["steps"][0]["tool_calls"][0]
    assert record["steps"][1]["error"] == "boom"
    assert "tool_calls" not in record["steps"][2]
