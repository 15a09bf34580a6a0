"""AutoGen: AgentChat runs (``TaskResult``, ``team.save_state()``, event streams) and AG2 chats.

Read, as the frameworks and their users write them (fixtures in ``tests/fixtures/real/``):

- a dumped AgentChat ``TaskResult`` (``{"messages": [...], "stop_reason"}``), an AG2 ``ChatResult``
  (``{"chat_history": [...], "summary", "cost", ...}``), a JSON array or JSON Lines of messages (an
  AgentChat ``run_stream()`` event stream, AG2's ``groupchat.messages``): one conversation each;
- ``team.save_state()`` (``{"type": "TeamState", "agent_states": {...}}``): the conversation is the
  group chat manager's ``message_thread``.
- the original Magentic-One's ``log.jsonl`` (``{timestamp, source, message, type}`` lines): one run
  named after its folder; its ``LLMCallEvent`` lines are token counts, not steps;
- AG2 Classic's ``runtime_logging`` file (its ``received_message`` events) and ag2 1.x's stream
  events (``serialize_value(event)`` per line): one run each.

Every message is one step, in order. Rules that make the derivation see what really happened:

- A ``ToolCallSummaryMessage`` repeats the calls of the request before it: it adds no call (its
  ``tool_calls`` become ``summary_of``, their ids), unless no earlier message requested them (a
  Magentic-One state keeps only the summary), when it is the only record of the calls.
- A call whose result failed (AgentChat ``is_error``, AG2's ``Error: ...`` result) carries ``error``;
  a result step whose results all failed carries ``error`` too, as does a code executor's report
  of a script that exited non-zero (Magentic-One's Executor, AgentChat's ``CodeExecutorAgent``).
- ``HandoffMessage`` keeps ``source`` and ``target`` (an explicit handoff for the derivation).
- Fields not kept (``models_usage``, a handoff's ``context``, the state's bookkeeping) are named on
  stderr, once per file.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .sources import Converted, ConvertError, Item, json_kind

SUMMARY = ("AutoGen AgentChat (TaskResult, team.save_state(), run_stream events; handoffs, tool calls and "
           "errors), AG2 chats (ChatResult, groupchat.messages, runtime_logging files) and ag2 1.x stream events")

CONVERSATION_KEYS = ("messages", "chat_history")
RECORD_FIELDS = ("task", "stop_reason", "summary")
"""Conversation fields copied into the record."""
LEFT_OUT_FIELDS = {
    "models_usage": "token counts",
    "context": "the model context a HandoffMessage hands over, a copy of earlier messages",
}
"""Message fields not copied into the step, each named on stderr with why."""
AG2_ERROR_PREFIX = "Error: "
"""AG2's ``execute_function`` reports a failed tool as a result starting with this."""
MAGENTIC_ONE_LOG = "log.jsonl"
"""Magentic-One's ``LogHandler`` writes one such file per logs folder: the record takes the folder's name."""
SCRIPT_EXIT = re.compile(r"The script ran, then exited with (?:Unix exit code: |an error \(POSIX exit code: )"
                         r"(-?\d+)\)?\nIts output was:\n(.*)"
                         r"|The script ran but produced no output to console\. "
                         r"The (?:Unix|POSIX) exit code was: (-?\d+)\..*", re.DOTALL)
"""How code executors report a script's end (Magentic-One's ``Executor``, AgentChat's ``CodeExecutorAgent``)."""
AG2_EXIT = re.compile(r"exitcode: (-?\d+) \(execution (?:failed|succeeded)\)\nCode output: (.*)", re.DOTALL)
"""How AG2's code execution reply reports a script's end."""
_Result = Tuple[Any, bool]


def convert_file(path: Path, items: List[Item]) -> Iterator[Converted]:
    notes = Counter()
    if items and any(is_runtime_log_entry(item.value) for item in items):
        yield _runtime_log(path, items, notes)
    elif items and all(is_ag2_event(item.value) for item in items):
        yield _ag2_events(path, items, notes)
    elif items and all(_is_team_state(item.value) for item in items):
        for position, item in enumerate(items, start=1):
            yield _team_state(item, _default_id(path, items, position), notes)
    elif items and all(_is_conversation(item.value) for item in items):
        for position, item in enumerate(items, start=1):
            yield _conversation(item, _default_id(path, items, position), notes)
    else:
        yield _message_file(path, items, notes)
    _report(path, notes)


# --- AG2 Classic's runtime_logging file --------------------------------------------------------

RUNTIME_LOG_START = "Started new session with Session ID: "
"""The first line AG2's file logger (``runtime_logging.start(logger_type="file")``) writes."""


def runtime_log_items(path: Path) -> Optional[List[Item]]:
    """The JSON lines of an AG2 runtime log, or None when the file is not one. AG2 writes its own
    messages among them (the session line, ``[file_logger] Failed to log ...``), which are not JSON."""
    try:
        with open(path, encoding="utf-8") as handle:
            first = handle.readline()
            if not first.startswith(RUNTIME_LOG_START):
                return None
            text = first + handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    items = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("{"):
            try:
                items.append(Item(json.loads(line), path, number))
            except ValueError:
                continue
    return items


def is_runtime_log_entry(value: Any) -> bool:
    """A line of AG2's file logger: an event (``event_name``, ``json_state``), a new agent
    (``agent_type``, ``args``), a model call (``request``, ``response``), a function use."""
    return isinstance(value, dict) and (
        {"event_name", "json_state", "source_name"} <= set(value)
        or {"agent_name", "agent_type", "session_id"} <= set(value)
        or {"request", "response", "invocation_id", "source_name"} <= set(value))


def _runtime_log(path: Path, items: List[Item], notes: Counter) -> Converted:
    """The conversation of an AG2 runtime log: every ``received_message`` event is a message, by its
    ``sender``; in a group chat the manager receives each message once and passes it on to every
    other agent, and those copies (sent by a ``GroupChatManager``) are no steps."""
    managers = {entry.value.get("agent_name") for entry in items if entry.value.get("agent_type") == "GroupChatManager"}
    managers |= {entry.value.get("source_name") for entry in items
                 if entry.value.get("agent_class") == "GroupChatManager"}
    located = []
    for entry in items:
        value = entry.value
        if value.get("event_name") != "received_message":
            notes[_runtime_note(value)] += 1
            continue
        try:
            state = value.get("json_state")
            state = json.loads(state) if isinstance(state, str) else state
        except ValueError:
            raise entry.error("json_state", "expected the event's state as JSON") from None
        if not isinstance(state, dict) or not isinstance(state.get("sender"), str):
            raise entry.error("json_state", "expected the received message and its sender")
        if state["sender"] in managers:
            notes["received_message events of a group chat manager passing a message on (copies)"] += 1
            continue
        said = state.get("message")
        message = {"content": said, "role": "user"} if not isinstance(said, dict) else dict(said)
        message["name"] = state["sender"]
        if isinstance(value.get("timestamp"), str):
            message["time"] = value["timestamp"]
        located.append((message, entry, "json_state.message"))
    if not located:
        raise ConvertError(path, None, "input", "the runtime log holds no received_message event: no conversation")
    session = next((entry.value.get("session_id") for entry in items if entry.value.get("session_id")), None)
    record = {"id": path.name.split(".")[0] or path.stem, "steps": _steps(located, notes)}
    if isinstance(session, str):
        record["session"] = session
    return Converted(record=record, gold=None, item=located[0][1])


def _runtime_note(value: dict) -> str:
    if "agent_type" in value:
        return "new-agent lines (each agent's settings)"
    if "request" in value:
        return "model calls (requests, responses, cost)"
    if "input_args" in value:
        return "function-use lines (the tool results are in the messages)"
    return f"{value.get('event_name') or 'other'} events"


# --- ag2 1.x stream events ----------------------------------------------------------------------

AG2_EVENTS = "ag2.events."
"""The module of ag2 1.x's events: ``serialize_value(event)`` names each by ``__event__``."""


def is_ag2_event(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("__event__"), str) \
        and value["__event__"].startswith(AG2_EVENTS)


def _ag2_events(path: Path, items: List[Item], notes: Counter) -> Converted:
    """One agent's stream (``run.stream.history``) as its conversation. Its events do not name the
    agent whose stream it is: its model's turns are the ``assistant``'s. A delegated agent
    (``TaskStarted``/``TaskCompleted``, ``agent.as_tool``) is a thread of its own, from its
    objective to its result. Containers that repeat other events (``ToolCallsEvent``,
    ``ToolCallEvent``, ``ToolResultsEvent``) and ``UsageEvent`` (token accounting) are no steps."""
    steps = []
    for item in items:
        value = item.value
        kind = value["__event__"].rsplit(".", 1)[-1]
        step = _ag2_event_step(kind, value)
        if step is None:
            notes[f"{kind} events (repeated in other events, or token accounting)"] += 1
            continue
        if isinstance(value.get("created_at"), (int, float)):
            step["time"] = value["created_at"]
        steps.append(step)
    if not steps:
        raise ConvertError(path, None, "input", "no ag2 event of a conversation (model request or response, tool "
                                                "result, task)")
    _fail_ag2_calls(steps)
    return Converted(record={"id": path.name.split(".")[0] or path.stem, "steps": steps}, gold=None, item=items[0])


def _ag2_event_step(kind: str, value: dict) -> Optional[dict]:
    if kind == "ModelRequest":
        return {"agent": "user", "type": kind, "content": "\n".join(_ag2_texts(value.get("parts")))}
    if kind == "ModelResponse":
        message = value.get("message") if isinstance(value.get("message"), dict) else {}
        calls = (value.get("tool_calls") or {}).get("calls") if isinstance(value.get("tool_calls"), dict) else []
        step = {"agent": "assistant", "type": kind, "content": message.get("content") or ""}
        shaped = [{"id": call.get("id"), "name": call.get("name"), "arguments": call.get("arguments")}
                  for call in calls or [] if isinstance(call, dict)]
        if shaped:
            step["tool_calls"] = shaped
        return step
    if kind in ("ToolResultEvent", "ToolErrorEvent"):
        error = value.get("error") if isinstance(value.get("error"), dict) else None
        text = ": ".join(str(part) for part in (error.get("__exception__"), error.get("message")) if part) if error \
            else "\n".join(_ag2_texts(((value.get("result") or {}).get("data") or {}).get("parts")))
        block = _result_block(value.get("parent_id"), value.get("name"), text, error is not None)
        step = {"role": "tool", "type": kind, "content": [block]}
        if error is not None:
            step["error"] = text
        return step
    if kind in ("TaskStarted", "TaskCompleted"):
        said = value.get("objective") if kind == "TaskStarted" else value.get("result")
        step = {"agent": value.get("agent_name"), "type": kind, "content": said if isinstance(said, str) else "",
                "thread": value.get("task_id")}
        if kind == "TaskCompleted" and value.get("error"):
            step["error"] = str(value["error"])
        return step
    return None


def _ag2_texts(parts: Any) -> List[str]:
    return [part["content"] for part in parts or [] if isinstance(part, dict) and isinstance(part.get("content"), str)]


def _fail_ag2_calls(steps: List[dict]) -> None:
    """A call whose result is a ``ToolErrorEvent`` failed: the call carries the error too."""
    failed = {block["tool_use_id"]: step["error"] for step in steps if step.get("type") == "ToolErrorEvent"
              for block in step["content"]}
    for step in steps:
        for call in step.get("tool_calls") or []:
            if call["id"] in failed:
                call["error"] = failed[call["id"]]


def _default_id(path: Path, items: List[Item], position: int) -> str:
    return path.stem if len(items) == 1 else f"{path.stem}-{position}"


def _is_team_state(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "TeamState" and "agent_states" in value


def _is_conversation(value: Any) -> bool:
    return isinstance(value, dict) and any(isinstance(value.get(key), list) for key in CONVERSATION_KEYS)


def _is_message(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    agentchat = isinstance(value.get("type"), str) and "source" in value
    ag2 = "content" in value and ("name" in value or "role" in value)
    return agentchat or ag2


def _message_file(path: Path, items: List[Item], notes: Counter) -> Converted:
    """A file of messages is one run; Magentic-One's ``LLMCallEvent`` lines (token counts) are no step."""
    accounting = [item for item in items if _is_llm_call_event(item.value)]
    if accounting:
        notes["LLMCallEvent lines (token counts of one model call each)"] += len(accounting)
        items = [item for item in items if not _is_llm_call_event(item.value)]
    if not items:
        raise ConvertError(path, None, "input", "the file holds no message")
    for item in items:
        if not _is_message(item.value):
            raise item.error("item", "neither an AutoGen conversation (an object with 'messages' or "
                                     "'chat_history'), a team.save_state() (type TeamState) nor a message "
                                     "(AgentChat {type, source, ...} or AG2 {name, role, content})")
    located = [(item.value, item, f"[{position}]") for position, item in enumerate(items)]
    record_id = path.parent.name if path.name == MAGENTIC_ONE_LOG and path.parent.name else path.stem
    return Converted(record={"id": record_id, "steps": _steps(located, notes)}, gold=None, item=items[0])


def _is_llm_call_event(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "LLMCallEvent" and "source" not in value


def _conversation(item: Item, default_id: str, notes: Counter) -> Converted:
    key = next(key for key in CONVERSATION_KEYS if isinstance(item.value.get(key), list))
    record_id = item.value.get("id")
    record = {"id": record_id if isinstance(record_id, str) and record_id else default_id}
    record.update({field: item.value[field] for field in RECORD_FIELDS if isinstance(item.value.get(field), str)})
    if item.value.get("human_input"):
        record["human_input"] = item.value["human_input"]
    for field in item.value:
        if field in ("chat_id", "cost"):
            notes[f"{field} (AG2 ChatResult bookkeeping)"] += 1
        elif field not in (key, "id", "human_input", *RECORD_FIELDS):
            notes[f"{field} (a conversation field this converter does not read)"] += 1
    located = [(message, item, f"{key}[{k}]") for k, message in enumerate(item.value[key])]
    record["steps"] = _steps(located, notes)
    return Converted(record=record, gold=None, item=item)


def _team_state(item: Item, default_id: str, notes: Counter) -> Converted:
    """``team.save_state()``: the manager's ``message_thread`` is the run; the Magentic-One ledger is context."""
    states = item.require("agent_states", dict, "the team's agent states (an object)")
    managers = [(name, state) for name, state in states.items()
                if isinstance(state, dict) and isinstance(state.get("message_thread"), list)]
    if len(managers) != 1:
        raise item.error("agent_states", f"expected one group chat manager state with a message_thread, "
                                         f"found {len(managers)}")
    manager, state = managers[0]
    record = {"id": default_id, "team_state": state.get("type")}
    for field in item.value:
        if field not in ("type", "agent_states"):
            notes[f"{field} (of the TeamState)"] += 1
    record.update({field: state[field] for field in ("task", "facts", "plan") if isinstance(state.get(field), str)})
    for field in state:
        if field not in ("message_thread", "type", "task", "facts", "plan"):
            notes[f"agent_states.{manager}.{field} (the manager's bookkeeping)"] += 1
    for name in states:
        if name != manager:
            notes["the participants' agent_states (their model contexts, copies of the thread)"] += 1
    field = f"agent_states.{manager}.message_thread"
    located = [(message, item, f"{field}[{k}]") for k, message in enumerate(state["message_thread"])]
    record["steps"] = _steps(located, notes)
    return Converted(record=record, gold=None, item=item)


def _steps(located: List[Tuple[Any, Item, str]], notes: Counter) -> List[dict]:
    """The messages of one conversation as steps; calls learn their results (and errors) from later messages."""
    for message, item, field in located:
        if not isinstance(message, dict):
            raise item.error(field, f"expected a message object, found {json_kind(message)}")
    results = _results_by_call(located)
    requested: Dict[str, str] = {}
    steps = [_step(message, item, field, results, requested, notes) for message, item, field in located]
    _name_ag2_callers(steps)
    _thread_agents_as_tools(steps)
    return steps


def _thread_agents_as_tools(steps: List[dict]) -> None:
    """Messages of agents called as tools (``AgentTool``) get the call's id as ``thread`` (THREADS.md).

    AgentChat streams the inner runs of concurrent ``AgentTool`` calls into the caller's run,
    interleaved, between the request and its execution event. An inner message belongs to the
    open call whose tool (named after its agent) is its ``source``. The inner run's task message
    (``source: user``, the call's ``task`` argument) is the caller handing the task over: it gets
    ``agent`` = the caller and stays in the caller's thread, so the called agent's first message
    is the delegation and the caller's execution event, after the inner runs, the returns.
    """
    open_requests: List[dict] = []
    for step in steps:
        source, kind = step.get("source"), step.get("type")
        if not isinstance(source, str) or not isinstance(kind, str):
            continue
        request = next((request for request in reversed(open_requests) if request["agent"] == source
                        and kind == "ToolCallExecutionEvent" and _answers(step, request)), None)
        if request is not None:
            open_requests.remove(request)
            _set_thread(step, request["thread"], request["parent"])
            continue
        call, handing_over = _inner_call(step, open_requests)
        if handing_over is not None:
            step["agent"] = handing_over["agent"]
            _set_thread(step, handing_over["thread"], handing_over["parent"])
        elif call is not None:
            _set_thread(step, call["thread"], call["parent"])
        if kind == "ToolCallRequestEvent" and isinstance(step.get("tool_calls"), list):
            thread, parent = step.get("thread"), step.get("parent_thread")
            open_requests.append({"agent": source, "thread": thread, "parent": parent, "calls": [
                {"id": _call_id(call.get("id")), "name": call.get("name"), "task": _task_argument(call),
                 "thread": _call_id(call.get("id")), "parent": thread} for call in step["tool_calls"]]})


def _answers(step: dict, request: dict) -> bool:
    ids = {call["id"] for call in request["calls"]} - {None}
    return any(_call_id(block.get("tool_use_id")) in ids for block in _result_blocks(step))


def _inner_call(step: dict, open_requests: List[dict]) -> Tuple[Optional[dict], Optional[dict]]:
    """The open call whose inner run ``step`` is part of (innermost first), or the request a task message hands over."""
    for request in reversed(open_requests):
        for call in request["calls"]:
            if call["thread"] is None:
                continue
            if step.get("source") == call["name"]:
                return call, None
            if step.get("source") == "user" and call["task"] is not None and step.get("content") == call["task"]:
                return None, request
    return None, None


def _task_argument(call: dict) -> Optional[str]:
    arguments = call.get("arguments")
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return None
    task = parsed.get("task") if isinstance(parsed, dict) else None
    return task if isinstance(task, str) else None


def _set_thread(step: dict, thread: Optional[str], parent: Optional[str]) -> None:
    if thread is not None:
        step["thread"] = thread
        if parent is not None:
            step["parent_thread"] = parent


def _name_ag2_callers(steps: List[dict]) -> None:
    """AG2 saves a two-agent chat's tool-call message without ``name``: it is the agent the executor answers.

    Left nameless, the derivation would take its ``role`` (``assistant``) for an agent of its own.
    """
    names = {step["name"] for step in steps if isinstance(step.get("name"), str) and "type" not in step}
    for position, step in enumerate(steps):
        if "name" in step or "type" in step or not isinstance(step.get("tool_calls"), list) or len(names) != 2:
            continue
        ids = {_call_id(call.get("id")) for call in step["tool_calls"] if isinstance(call, dict)} - {None}
        executor = next((later.get("name") for later in steps[position + 1:]
                         if any(_call_id(block.get("tool_use_id")) in ids for block in _result_blocks(later))), None)
        if executor in names:
            step["name"] = next(name for name in names if name != executor)


def _result_blocks(step: dict) -> List[dict]:
    content = step.get("content")
    return [block for block in content if isinstance(block, dict) and block.get("type") == "tool_result"] \
        if isinstance(content, list) else []


def _results_by_call(located: List[Tuple[Any, Item, str]]) -> Dict[str, _Result]:
    results: Dict[str, _Result] = {}
    for message, item, field in located:
        if message.get("type") in ("ToolCallExecutionEvent", "ToolCallSummaryMessage"):
            key = "content" if message["type"] == "ToolCallExecutionEvent" else "results"
            for result in _list_of_objects(message.get(key) or [], item, f"{field}.{key}"):
                outcome = (result.get("content"), bool(result.get("is_error")))
                results.setdefault(_call_id(result.get("call_id")), outcome)
        for response in _ag2_responses(message, item, field):
            content = response.get("content")
            results.setdefault(_call_id(response.get("tool_call_id")), (content, _ag2_failed(content)))
    results.pop(None, None)
    return results


def _step(message: dict, item: Item, field: str, results: Dict[str, _Result], requested: Dict[str, str],
          notes: Counter) -> dict:
    """One message as a step: AgentChat events and AG2 tool messages reshaped so the derivation reads them."""
    kind = message.get("type")
    step = {key: value for key, value in message.items() if key not in LEFT_OUT_FIELDS}
    for key in LEFT_OUT_FIELDS:
        if message.get(key):
            notes[f"{key} ({LEFT_OUT_FIELDS[key]})"] += 1
    if kind == "ToolCallRequestEvent":
        calls = _list_of_objects(message.get("content"), item, f"{field}.content")
        step["tool_calls"] = [_call(call, results, requested) for call in calls]
        step["content"] = _call_lines(calls)
    elif kind == "ToolCallExecutionEvent":
        blocks = [_result_block(result.get("call_id"), result.get("name"), result.get("content"),
                                bool(result.get("is_error")))
                  for result in _list_of_objects(message.get("content"), item, f"{field}.content")]
        _set_blocks(step, blocks)
    elif kind == "ToolCallSummaryMessage":
        _summary(step, message, item, field, results, requested)
    elif kind == "MultiModalMessage" and isinstance(message.get("content"), list):
        step["content"] = "\n".join(part if isinstance(part, str) else "[image]" for part in message["content"])
    elif isinstance(message.get("tool_calls"), list):
        _ag2_request(step, message, item, field, results, requested)
    elif kind in ("OrchestrationEvent", "AgentEvent"):
        _script_exit(step, message.get("message"))
    elif kind == "TextMessage":
        _script_exit(step, message.get("content"))
    elif kind == "CodeExecutionEvent" and isinstance(message.get("result"), dict):
        _code_execution(step, message["result"])
    elif "tool_responses" in message:
        blocks = [_result_block(response.get("tool_call_id"), requested.get(_call_id(response.get("tool_call_id"))),
                                response.get("content"), _ag2_failed(response.get("content")))
                  for response in _ag2_responses(message, item, field)]
        del step["tool_responses"]
        _set_blocks(step, blocks)
    elif kind is None:
        _script_exit(step, message.get("content"))
    return step


def _call(call: dict, results: Dict[str, _Result], requested: Dict[str, str]) -> dict:
    """An AgentChat ``FunctionCall`` as a flat call, with ``error`` when its result failed."""
    shaped = {key: call.get(key) for key in ("id", "name", "arguments")}
    call_id = _call_id(call.get("id"))
    if call_id is not None:
        requested[call_id] = call.get("name")
    content, failed = results.get(call_id, (None, False))
    if failed:
        shaped["error"] = _text(content)
    return shaped


def _summary(step: dict, message: dict, item: Item, field: str, results: Dict[str, _Result],
             requested: Dict[str, str]) -> None:
    """A summary repeats its request's calls: it names them (``summary_of``) and adds none, unless unrequested."""
    calls = _list_of_objects(message.get("tool_calls") or [], item, f"{field}.tool_calls")
    step.pop("tool_calls", None)
    repeated = [call for call in calls if _call_id(call.get("id")) in requested]
    fresh = [call for call in calls if _call_id(call.get("id")) not in requested]
    if repeated:
        step["summary_of"] = [call.get("id") for call in repeated]
    if fresh:
        step["tool_calls"] = [_call(call, results, requested) for call in fresh]
    outcomes = [results.get(_call_id(call.get("id")), (None, False)) for call in fresh]
    failures = [_text(content) for content, failed in outcomes if failed]
    if fresh and len(failures) == len(fresh):
        step["error"] = "\n".join(failures)


def _ag2_request(step: dict, message: dict, item: Item, field: str, results: Dict[str, _Result],
                 requested: Dict[str, str]) -> None:
    """AG2 OpenAI ``tool_calls``: kept, failed ones marked; AG2 writes ``"None"`` as content, shown as the calls."""
    calls = _list_of_objects(message["tool_calls"], item, f"{field}.tool_calls")
    shaped = []
    for call in calls:
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        call_id = _call_id(call.get("id"))
        if call_id is not None:
            requested[call_id] = function.get("name")
        content, failed = results.get(call_id, (None, False))
        shaped.append({**call, "error": _text(content)} if failed else call)
    step["tool_calls"] = shaped
    if message.get("content") in (None, "None", ""):
        step["content"] = _call_lines([{"name": (call.get("function") or {}).get("name"),
                                        "arguments": (call.get("function") or {}).get("arguments")} for call in calls])


def _script_exit(step: dict, report: Any) -> None:
    """A code executor's report of a script that exited non-zero is a failed step: ``error`` says code and output."""
    if not isinstance(report, str):
        return
    found, ag2 = SCRIPT_EXIT.fullmatch(report), AG2_EXIT.fullmatch(report)
    if found is not None:
        code, output = int(found.group(1) or found.group(3)), found.group(2) or ""
    elif ag2 is not None:
        code, output = int(ag2.group(1)), ag2.group(2)
    else:
        return
    if code != 0:
        step["error"] = f"exit code {code}" + (f": {output.strip()}" if output.strip() else "")


def _code_execution(step: dict, result: dict) -> None:
    """AgentChat ``CodeExecutionEvent``: shows the executor's output; a non-zero ``exit_code`` is an error."""
    output = result.get("output")
    if isinstance(output, str):
        step["content"] = output
    exit_code = result.get("exit_code")
    if isinstance(exit_code, int) and not isinstance(exit_code, bool) and exit_code != 0:
        _script_exit(step, output)
        if "error" not in step:
            shown = output.strip() if isinstance(output, str) else ""
            step["error"] = f"exit code {exit_code}" + (f": {shown}" if shown else "")


def _ag2_responses(message: dict, item: Item, field: str) -> List[dict]:
    if "tool_responses" not in message:
        return []
    return _list_of_objects(message["tool_responses"], item, f"{field}.tool_responses")


def _ag2_failed(content: Any) -> bool:
    return isinstance(content, str) and content.startswith(AG2_ERROR_PREFIX)


def _set_blocks(step: dict, blocks: List[dict]) -> None:
    """Results as ``tool_result`` blocks; the step fails when every result failed (a mixed step marks calls only)."""
    step["content"] = blocks
    if blocks and all(block["is_error"] for block in blocks):
        step["error"] = "\n".join(_text(block["content"]) for block in blocks)


def _list_of_objects(value: Any, item: Item, field: str) -> List[dict]:
    if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
        raise item.error(field, f"expected a list of objects, found {json_kind(value)}")
    return value


def _call_lines(calls: List[dict]) -> str:
    return "\n".join(f"{call.get('name')}({_text(call.get('arguments'))})" for call in calls)


def _result_block(call_id: Any, name: Optional[str], content: Any, is_error: bool) -> dict:
    marker = " (error)" if is_error else ""
    text = f"{name or call_id}{marker}: {_text(content)}"
    return {"type": "tool_result", "tool_use_id": call_id, "name": name, "is_error": is_error,
            "content": content, "text": text}


def _call_id(value: Any) -> Optional[str]:
    """A call id as the derivation reads one (a string), else None: ids link calls, results and threads."""
    return value if isinstance(value, str) and value.strip() else None


def _text(value: Optional[Any]) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _report(path: Path, notes: Counter) -> None:
    """Name every source field the records leave out, once per file (SPEC: never dropped silently)."""
    if notes:
        listed = "; ".join(f"{what} x{count}" for what, count in notes.items())
        print(f"note: {path}: left out of the records: {listed}", file=sys.stderr)
