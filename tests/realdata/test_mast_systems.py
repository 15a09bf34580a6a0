"""`convert --from mast` on one MAD record of every system in ../shared/corpus/mast, against tables
written by hand from each record's log (its header lines read one by one), never from the converter.

For every record: the number of steps, the agent of every step as the derivation reads it (None: a
step no agent takes, such as a ChatDev parameter table; a tool's result belongs to its caller),
the handoffs (from step, step, from agent, to agent, kind), the tool calls (step, tool, and the
arguments where the log states them), and the MAST labels in gold (the final taxonomy's codes).

Abbreviations in the agent strings are expanded by each table's own legend; ``-`` is no agent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import convert_inputs

pytestmark = pytest.mark.realdata


def convert(corpus: Path, name: str):
    conversion = convert_inputs("mast", [corpus / "mast" / name])
    [record] = conversion.records
    [gold] = conversion.gold
    assert gold["id"] == record["id"] and conversion.warnings == []
    return record, gold["gold"], derive(record), conversion


def agents(spec: str, legend: dict) -> list:
    return [None if word == "-" else legend.get(word, word) for word in spec.split()]


def handoffs(derivation) -> list:
    return [(h["from_step"], h["step"], h["from"], h["to"], h["kind"]) for h in derivation.handoffs]


def implicit(pairs, steps_agents: list) -> list:
    """Implicit handoffs written as (from step, step) pairs; the agents are those of the steps."""
    return [(a, b, steps_agents[a], steps_agents[b], "implicit") for a, b in pairs]


# --------------------------------------------------------------------------- AG2 (MathChat)

def test_ag2_messages_are_the_steps(corpus):
    record, gold, derivation, conversion = convert(corpus, "AG2_GSM-Plus_trace2.json")
    # ten messages: mathproxyagent asks, the assistant answers, five times
    expected = agents("P A P A P A P A P A", {"P": "mathproxyagent", "A": "assistant"})
    assert [step.agent for step in derivation.steps] == expected
    assert handoffs(derivation) == implicit([(k, k + 1) for k in range(9)], expected)
    assert derivation.tool_calls == []
    # round 1: "1.5 Unaware of stopping conditions" and "3.3 Ignoring suggestions from agents", all three
    assert gold["mast"]["marked"] == ["1.5", "2.5"]
    assert gold["other_data"]["correct"] is True and conversion.layouts == {record["id"]: "AG2 messages"}

    record, gold, derivation, _ = convert(corpus, "AG2_GSM-Plus_trace7.json")
    assert [step.agent for step in derivation.steps] == agents("P A P A", {"P": "mathproxyagent", "A": "assistant"})
    assert gold["mast"]["marked"] == ["3.2"]  # round 2's "3.3 Lack of result verification", all three
    assert gold["other_data"]["correct"] is False


# --------------------------------------------------------------------------- MetaGPT

def test_metagpt_log_lines(corpus):
    for name, marked in [("MetaGPT_ProgramDev_trace4.json", ["1.2", "1.3", "1.5", "2.1", "2.3", "2.6", "3.2", "3.3"]),
                         ("MetaGPT_ProgramDev_trace9.json", ["2.6"])]:
        record, gold, derivation, conversion = convert(corpus, name)
        expected = ["Alice", "Bob", "Charlie", "Bob", "Charlie"]
        assert [step.agent for step in derivation.steps] == expected
        assert handoffs(derivation) == implicit([(0, 1), (1, 2), (2, 3), (3, 4)], expected)
        assert derivation.tool_calls == []
        assert gold["mast"]["marked"] == marked
        assert conversion.layouts == {record["id"]: "MetaGPT log lines"}
    # trace 9 (round 2) marked "1.6 Backtracking interruption", a mode the final taxonomy dropped
    assert [entry["written"] for entry in gold["mast"]["unmapped"] if entry["marked"]] == ["1.6 Backtracking interruption"]


def test_metagpt_communication_log(corpus):
    record, gold, derivation, conversion = convert(corpus, "MetaGPT_MMLU_trace16.json")
    # one FROM block (Human to <all>), five NEW MESSAGES blocks of one message each
    expected = ["Human", "SimpleCoder", "SimpleTester", "SimpleReviewer", "SimpleTester", "SimpleReviewer"]
    assert [step.agent for step in derivation.steps] == expected
    assert record["steps"][0]["recipients"] == ["<all>"] and derivation.steps[0].to is None
    assert record["steps"][0]["action_name"] == "metagpt.actions.add_requirement.UserRequirement"
    assert record["steps"][0]["content"].startswith("The following are multiple choice questions")
    assert record["steps"][1]["content"].startswith("def find_answer():")
    assert record["steps"][3]["time"] == "2025-03-27 01:21:27"
    assert handoffs(derivation) == implicit([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], expected)
    assert derivation.tool_calls == []
    assert gold["mast"]["marked"] == ["1.1", "3.2", "3.3"]  # 2 of 3, 2 of 3, 3 of 3
    assert conversion.layouts == {record["id"]: "MetaGPT communication log"}


# --------------------------------------------------------------------------- Magentic-One

def test_magentic_one_console(corpus):
    record, gold, derivation, conversion = convert(corpus, "GAIA_Magentic_trace17.json")
    assert record["system"] == "Magentic-One"  # mas_name "GAIA", benchmark_name "Magentic": swapped
    expected = agents("user O O W O W O W O W O W O", {"O": "MagenticOneOrchestrator", "W": "WebSurfer"})
    assert [step.agent for step in derivation.steps] == expected
    assert record["steps"][0]["content"] == ("How many at bats did the Yankee with the most walks in the 1977 "
                                             "regular season have that same season?")
    assert record["steps"][12]["content"] == "FINAL ANSWER: 525"
    assert handoffs(derivation) == implicit(
        [(0, 1), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10), (10, 11), (11, 12)], expected)
    assert derivation.tool_calls == []
    assert gold["mast"]["marked"] == ["1.1", "3.2", "3.3"]
    assert "Installing" not in json.dumps(record)  # the testbed's setup before SCENARIO.PY STARTING


# --------------------------------------------------------------------------- ChatDev

CHATDEV = {"CEO": "Chief Executive Officer", "CPO": "Chief Product Officer", "CTO": "Chief Technology Officer",
           "P": "Programmer", "CR": "Code Reviewer", "STE": "Software Test Engineer", "C": "Counselor"}


def test_chatdev_program_dev(corpus):
    record, gold, derivation, conversion = convert(corpus, "ChatDev_ProgramDev_trace3.json")
    # The log's entries, the flask/HTTP/usage lines aside, one per step (0-84):
    # Preprocessing, [chatting], [RolePlaying], CEO start chat, CPO turn, CEO turn, Seminar Conclusion, ...
    expected = agents(
        "- - - CEO CPO CEO -"           # 0-6   DemandAnalysis
        " - - CEO CTO CEO -"            # 7-12  LanguageChoose
        " - - CTO P - - - - - - - -"    # 13-24 Coding, 4 Update Codes, Software Info, 2 Execute Detail
        " - - P CR - -"                 # 25-30 CodeReviewComment
        " - - CR P - - - -"             # 31-38 CodeReviewModification
        " - - P CR - -"                 # 39-44
        " - - CR P - - -"               # 45-51
        " - - P CR - -"                 # 52-57
        " - - CR P - - - - - -"         # 58-67 + Test Reports, Test Info
        " - - CTO P"                    # 68-71 EnvironmentDoc
        " - - C CEO - - -"              # 72-78 Reflection, 2 Seminar Conclusions, Software Info
        " - - CEO CPO - -", CHATDEV)    # 79-84 Manual, Post Info
    assert len(record["steps"]) == 85 and [step.agent for step in derivation.steps] == expected
    assert record["task"].startswith("Develop a classic Sudoku puzzle solver/creator that uses a 9x9 grid.")
    assert record["steps"][4] == {**record["steps"][4], "agent": "Chief Product Officer", "to": "Chief Executive Officer",
                                  "phase": "DemandAnalysis", "turn": 0, "time": "2025-01-17T11:36:46"}
    assert record["steps"][3]["to"] == "Chief Product Officer"  # the phase's assistant role, from [RolePlaying]
    assert record["steps"][74]["to"] == "Chief Executive Officer"  # Reflection: the Counselor starts, the CEO answers
    assert [record["steps"][k]["event"] for k in (0, 1, 2, 6, 18, 22, 23, 66, 67, 84)] == [
        "Preprocessing", "chatting", "RolePlaying", "Seminar Conclusion", "Update Codes", "Software Info",
        "Execute Detail", "Test Reports", "Test Info", "Post Info"]
    # each change of speaker among the agent steps (a phase's opener who spoke last keeps the turn)
    pairs = [(3, 4), (4, 5), (9, 10), (10, 11), (11, 15), (15, 16), (27, 28), (33, 34), (41, 42), (47, 48),
             (54, 55), (60, 61), (61, 70), (70, 71), (71, 74), (74, 75), (81, 82)]
    assert handoffs(derivation) == implicit(pairs, expected)
    assert derivation.tool_calls == []
    # round 1: 1.2 reasoning/action (2.6), 1.5, 2.2 step repetition (1.3), 2.4 reset (2.1), 2.5 derailment
    # (2.3), 2.6 role (1.2), 4.3 critical verification (3.3), 4.2 result verification (3.2); 3.4 unmapped
    assert gold["mast"]["marked"] == ["1.2", "1.3", "1.5", "2.1", "2.3", "2.6", "3.2", "3.3"]
    assert conversion.layouts == {record["id"]: "ChatDev log (2025 form)"}
    assert "flask app.py" not in json.dumps(record)


def test_chatdev_mmlu(corpus):
    record, gold, derivation, _ = convert(corpus, "ChatDev_MMLU_trace15.json")
    expected = agents(
        "- - - CEO CPO CEO -"           # 0-6   DemandAnalysis
        " - - CEO CTO CEO -"            # 7-12  LanguageChoose
        " - - CTO P - - - - -"          # 13-21 Coding
        " - - P CR - -"                 # 22-27 CodeReviewComment
        " - - CR P - - -"               # 28-34 CodeReviewModification
        " - - P CR - -"                 # 35-40
        " - - CR P - - -"               # 41-47
        " - - P CR - -"                 # 48-53
        " - - CR P - - - - -"           # 54-62 + 2 Test Reports
        " - - STE P - -"                # 63-68 TestErrorSummary
        " - - STE P - - - - - -"        # 69-78 TestModification
        " - - CTO P"                    # 79-82 EnvironmentDoc
        " - - C CEO - - -"              # 83-89 Reflection
        " - - CEO CPO - -", CHATDEV)    # 90-95 Manual
    assert len(record["steps"]) == 96 and [step.agent for step in derivation.steps] == expected
    pairs = [(3, 4), (4, 5), (9, 10), (10, 11), (11, 15), (15, 16), (24, 25), (30, 31), (37, 38), (43, 44),
             (50, 51), (56, 57), (57, 65), (65, 66), (66, 71), (71, 72), (72, 81), (81, 82), (82, 85), (85, 86),
             (92, 93)]
    assert handoffs(derivation) == implicit(pairs, expected)
    assert record["steps"][65]["to"] == "Programmer"  # the test engineer opens, the programmer answers
    assert gold["mast"]["marked"] == ["1.1", "3.2", "3.3"]


def test_chatdev_2023_form_from_its_own_log(tmp_path):
    """The 2023 form, written here in the layout of ChatDev's own WareHouse logs (OpenBMB/ChatDev,
    WareHouse/FlappyBird_THUNLP_20230726121145/20230726121145.log, Apache-2.0), as a bare .log."""
    log = tmp_path / "FlappyBird.log"
    log.write_text(
        "[2023-26-07 12:11:45 INFO] ChatDev Starts (20230726121145)\n\n"
        "[2023-26-07 12:11:45 INFO] PhaseType: PhaseType.DEMAND_ANALYSIS\n\n"
        "[2023-26-07 12:11:45 INFO] AI Assistant (Chief Product Officer) sys message:\nSystemMessage(...)\n\n\n"
        "[2023-26-07 12:11:45 INFO] AI User (Chief Executive Officer) sys message:\nSystemMessage(...)\n\n\n"
        "[2023-26-07 12:11:45 INFO] Task prompt:\nDesign a basic Flappy Bird game.\n\n\n"
        "[2023-26-07 12:11:45 INFO] AI User (Chief Executive Officer):\n\nChatDev has made products ...\n\n\n"
        "[2023-26-07 12:11:45 DEBUG] Starting new HTTP connection (1): 127.0.0.1:7890\n"
        "[2023-26-07 12:11:46 INFO] [OpenAI_Usage_Info]\nprompt_tokens: 445\n\n\n"
        "[2023-26-07 12:11:51 INFO] [0] AI Assistant (Chief Product Officer):\n\n"
        "I suggest we design the Flappy Bird game as a mobile application.\n\n\n"
        "[2023-26-07 12:11:51 INFO] [0] AI User (Chief Executive Officer):\n\nI agree with your suggestion.\n\n\n"
        "[2023-26-07 12:11:52 INFO] [1] AI Assistant (Chief Product Officer):\n\n<INFO> Mobile Application.\n\n"
        "[2023-26-07 12:11:52 INFO] [1] AI Assistant (Chief Product Officer) terminated the chat.\n\n",
        encoding="utf-8")
    conversion = convert_inputs("mast", [tmp_path])  # a folder of logs
    [record] = conversion.records
    assert record["id"] == "FlappyBird" and record["system"] == "ChatDev" and conversion.gold == []
    assert record["task"] == "Design a basic Flappy Bird game."
    derivation = derive(record)
    # ChatDev Starts, 2 sys messages, the CEO's phase prompt, CPO turn 0, CEO turn 0, CPO turn 1, terminated
    assert [step.agent for step in derivation.steps] == agents("- - - CEO CPO CEO CPO -", CHATDEV)
    assert [(s.get("phase"), s.get("turn"), s.get("to")) for s in record["steps"][3:7]] == [
        ("DEMAND_ANALYSIS", None, "Chief Product Officer"), ("DEMAND_ANALYSIS", 0, "Chief Executive Officer"),
        ("DEMAND_ANALYSIS", 0, "Chief Product Officer"), ("DEMAND_ANALYSIS", 1, "Chief Executive Officer")]
    assert record["steps"][4]["content"] == "I suggest we design the Flappy Bird game as a mobile application."
    assert record["steps"][4]["time"] == "2023-07-26T12:11:51"
    assert conversion.layouts == {"FlappyBird": "ChatDev log (2023 form)"}


# --------------------------------------------------------------------------- HyperAgent

HYPER = {"Pl": "Planner", "N": "Navigator", "X": "Executor", "E": "Editor"}


def test_hyperagent_log(corpus):
    record, gold, derivation, conversion = convert(corpus, "HyperAgent_SWE-Bench-Lite_trace1.json")
    # The entries of the 3,550 joined lines, a message logged k times in a row counted once (k is the
    # number of HyperAgent runs so far: each adds a handler), groups of "Initialized ..." lines one step:
    expected = agents(
        "- Pl N N N N N Pl N N N Pl X X X Pl E E Pl"          # 0-18    run 1
        " - Pl N N N N N Pl X X X Pl E E E Pl"                # 19-34   run 2, every message twice
        " - Pl N N N N N Pl N N N"                            # 35-45   run 3, every message three times
        " - Pl N N N N N N N N Pl N N N N Pl N N Pl X X X"    # 46-67   run 4
        " Pl N N N N N N Pl N N Pl N N N Pl N N Pl N N"       # 68-87
        " - Pl N N N N N N N N Pl X X X Pl E E E E Pl X X X X Pl -", HYPER)  # 88-113
    assert len(record["steps"]) == 114 and [step.agent for step in derivation.steps] == expected
    assert [k for k, s in enumerate(record["steps"]) if s.get("log_copies") == 2] == list(range(20, 35))
    assert [k for k, s in enumerate(record["steps"]) if s.get("log_copies") == 3] == list(range(36, 46))
    planners = [k for k, agent in enumerate(expected) if agent == "Planner"]
    # the intern each Planner turn names ("Codebase Navigator" is the Navigator); none in 18, 34, 112
    assert [record["steps"][k].get("to") for k in planners] == [
        "Navigator", "Navigator", "Executor", "Editor", None, "Navigator", "Executor", "Editor", None,
        "Navigator", "Navigator", "Navigator", "Navigator", "Navigator", "Executor", "Navigator", "Navigator",
        "Navigator", "Navigator", "Navigator", "Navigator", "Executor", "Editor", "Executor", None]
    assert record["steps"][1]["subgoal"].startswith("Locate the implementation of the `separability_matrix` function")
    # every intern's turns between two Planner turns: a delegation, and a return at the next Planner turn
    threads = [(1, 2, 6, 7), (7, 8, 10, 11), (11, 12, 14, 15), (15, 16, 17, 18), (20, 21, 25, 26),
               (26, 27, 29, 30), (30, 31, 33, 34), (36, 37, 41, 42), (42, 43, 45, 47), (47, 48, 55, 56),
               (56, 57, 60, 61), (61, 62, 63, 64), (64, 65, 67, 68), (68, 69, 74, 75), (75, 76, 77, 78),
               (78, 79, 81, 82), (82, 83, 84, 85), (85, 86, 87, 89), (89, 90, 97, 98), (98, 99, 101, 102),
               (102, 103, 106, 107), (107, 108, 111, 112)]
    assert handoffs(derivation) == [
        entry for planner, first, last, back in threads
        for entry in [(planner, first, "Planner", expected[first], "delegation"),
                      (last, back, expected[last], "Planner", "return")]]
    assert [record["steps"][k]["thread"] for k in (2, 8, 12, 16, 21, 44, 90, 108)] == [
        "Navigator", "Navigator #2", "Executor", "Editor", "Navigator #3", "Navigator #5", "Navigator #14",
        "Executor #5"]
    # the Action: code blocks of the interns' turns (none in the reports to the Planner)
    calls = [(2, "open_file"), (3, "open_file"), (4, "open_file"), (5, "python"), (8, "open_file"), (12, "bash"),
             (16, "python"), (21, "open_file"), (22, "open_file"), (23, "open_file"), (24, "python"), (27, "bash"),
             (31, "open_file_gen"), (37, "open_file"), (38, "open_file"), (39, "open_file"), (40, "python"),
             (43, "open_file"), (44, "python"), (44, "python"), (48, "open_file"), (49, "get_all_symbols"),
             (50, "open_file"), (51, "get_all_symbols"), (52, "get_folder_structure"), (53, "code_search"),
             (54, "open_file"), (57, "open_file"), (58, "open_file"), (65, "bash"), (69, "open_file"),
             (70, "open_file"), (71, "open_file"), (72, "open_file"), (79, "open_file"), (86, "open_file"),
             (90, "open_file"), (91, "open_file"), (92, "open_file"), (93, "code_search"), (94, "open_file"),
             (95, "open_file"), (99, "bash"), (103, "open_file_gen"), (104, "editor"), (108, "bash"), (109, "bash")]
    assert [(call["step"], call["tool"]) for call in derivation.tool_calls] == calls
    by_step = {call["step"]: call["arguments"] for call in derivation.tool_calls}
    assert by_step[2] == {"relative_file_path": "astropy/modeling/separable.py", "start_line": 65, "end_line": 101}
    assert by_step[53] == {"names": ["_operators"]}
    assert by_step[52] == {"relative_path": "astropy/modeling/", "depth": 2}
    assert by_step[104]["patch"] == "patch" and by_step[104]["start_line"] == 290  # a variable: its source
    assert by_step[12]["command"].startswith('echo "from astropy.modeling import models as m')
    assert gold["mast"]["marked"] == ["1.5", "2.5"]
    assert gold["other_data"]["patch"][0] == "diff --git a/astropy/modeling/separable.py b/astropy/modeling/separable.py"
    assert conversion.layouts == {record["id"]: "HyperAgent log"}


# --------------------------------------------------------------------------- AppWorld

def test_appworld_console(corpus):
    record, gold, derivation, conversion = convert(corpus, "AppWorld_Test-C_trace0.json")
    assert record["task_id"] == "692c77d_1"
    assert record["task"].startswith("Give a 5-star rating to all songs in my Spotify playlists")
    # Supervisor response (send_message), [Spotify loop: 3 responses with their outputs, the reply],
    # send_message API response, 3 Supervisor responses with outputs, a second send_message, [loop 2:
    # response, output, response (reply), the reply], API response, complete_task and its output
    expected = agents("S Sp Sp Sp Sp Sp Sp S S S S S S S S Sp Sp Sp Sp S S S", {"S": "Supervisor", "Sp": "Spotify"})
    assert len(record["steps"]) == 22 and [step.agent for step in derivation.steps] == expected
    assert [k for k, step in enumerate(derivation.steps) if step.kind == "tool_result"] == [2, 4, 7, 9, 11, 13, 16, 19, 21]
    assert [record["steps"][k].get("thread") for k in (1, 6, 7, 15, 18)] == ["Spotify", "Spotify", None,
                                                                            "Spotify #2", "Spotify #2"]
    assert handoffs(derivation) == [(0, 1, "Supervisor", "Spotify", "delegation"), (6, 8, "Spotify", "Supervisor", "return"),
                                    (14, 15, "Supervisor", "Spotify", "delegation"),
                                    (18, 20, "Spotify", "Supervisor", "return")]
    assert [(c["step"], c["tool"], c["arguments"]) for c in derivation.tool_calls] == [
        (0, "send_message", {"app_name": "spotify", "message": "Get my playlists"}),
        (1, "api_docs.show_api_descriptions", {"app_name": "spotify"}),
        (3, "api_docs.show_api_doc", {"app_name": "spotify", "api_name": "show_playlist_library"}),
        (5, "reply", {"args": ["Please provide the access token to retrieve your playlists."]}),
        (8, "supervisor.show_account_passwords", {}),
        (10, "api_docs.show_api_descriptions", {"app_name": "supervisor"}),
        (12, "send_message", {"app_name": "spotify", "message": "Get my playlists", "access_token": "%oxCE]q"}),
        (14, "send_message", {"app_name": "spotify", "message": "Get my playlists with access token %oxCE]q"}),
        (15, "spotify.show_playlist_library", {"access_token": "%oxCE]q", "page_index": 0, "page_limit": 5}),
        (17, "reply", {"args": ["The access token provided is invalid or expired. Please provide a valid access "
                                "token to retrieve your playlists."]}),
        (20, "supervisor.complete_task", {"status": "fail"})]
    assert [(c["step"], c["result_step"]) for c in derivation.tool_calls] == [
        (0, 7), (1, 2), (3, 4), (5, None), (8, 9), (10, 11), (12, 13), (14, 19), (15, 16), (17, None), (20, 21)]
    assert record["steps"][13]["error"] == "TypeError: send_message() got an unexpected keyword argument 'access_token'"
    assert record["steps"][16]["error"].startswith("Exception: Response status code is 401: {\"message\":")
    assert record["steps"][6] == {"agent": "Spotify", "to": "Supervisor", "thread": "Spotify",
                                  "content": "Please provide the access token to retrieve your playlists."}
    assert gold["mast"]["marked"] == ["1.5", "2.5"]
    assert gold["evaluation"]["success"] is False and gold["evaluation"]["num_tests"] == 7
    assert "Evaluation" not in json.dumps(record) and "no_op_fail" not in json.dumps(record)
    assert conversion.layouts == {record["id"]: "AppWorld console"}


# --------------------------------------------------------------------------- OpenManus

def test_openmanus_log(corpus):
    record, gold, derivation, conversion = convert(corpus, "GAIA_OpenManus_trace18.json")
    # __main__ "Processing", the plan, then per "Executing step": Manus's turn and each tool result;
    # "Marked step k as completed" by the PlanningFlow; the flow's summary, "Request processed", the result
    expected = agents(
        "- F"                                            # 0-1
        " M M M M M M M M M M M M M M M M M M M M M F"   # 2-23  steps 1-12 (results after 1,2,4,6-10,12)
        " M M M F M M M M M M M F M M M M F"             # 24-40 steps 13-20
        " M M M M M M M F - - -", {"F": "PlanningFlow", "M": "Manus"})  # 41-51 steps 1-4 again
    assert len(record["steps"]) == 52 and [step.agent for step in derivation.steps] == expected
    results = [3, 5, 8, 11, 13, 15, 17, 19, 22, 26, 29, 31, 34, 37, 39, 42, 44, 47]
    assert [k for k, step in enumerate(derivation.steps) if step.kind == "tool_result"] == results
    assert handoffs(derivation) == [(1, 2, "PlanningFlow", "Manus", "implicit"), (21, 23, "Manus", "PlanningFlow", "implicit"),
                                    (23, 24, "PlanningFlow", "Manus", "implicit"), (25, 27, "Manus", "PlanningFlow", "implicit"),
                                    (27, 28, "PlanningFlow", "Manus", "implicit"), (33, 35, "Manus", "PlanningFlow", "implicit"),
                                    (35, 36, "PlanningFlow", "Manus", "implicit"), (38, 40, "Manus", "PlanningFlow", "implicit"),
                                    (40, 41, "PlanningFlow", "Manus", "implicit"), (46, 48, "Manus", "PlanningFlow", "implicit")]
    tools = [(2, "browser_use"), (4, "browser_use"), (7, "browser_use"), (10, "python_execute"),
             (12, "python_execute"), (14, "python_execute"), (16, "python_execute"), (18, "python_execute"),
             (21, "terminate"), (25, "terminate"), (28, "python_execute"), (30, "python_execute"), (33, "terminate"),
             (36, "python_execute"), (38, "python_execute"), (41, "python_execute"), (43, "python_execute"),
             (46, "terminate")]
    assert [(c["step"], c["tool"]) for c in derivation.tool_calls] == tools
    assert [c["result_step"] for c in derivation.tool_calls] == results
    arguments = {c["step"]: c["arguments"] for c in derivation.tool_calls}
    assert arguments[2] == {"action": "web_search", "query": "Eliud Kipchoge marathon pace km/h"}
    assert arguments[4] == {"action": "extract_content", "goal": "Eliud Kipchoge's marathon pace in km/h"}
    assert arguments[21] == {"status": "success"}
    assert arguments[10]["code"].startswith("# Given values\npace_kph = 21.02")
    # python_execute answered {'observation': "name 'time_hours' is not defined", 'success': False} twice
    assert [(k, s["error"]) for k, s in enumerate(record["steps"]) if "error" in s] == [
        (15, "name 'time_hours' is not defined"), (39, "name 'time_hours' is not defined")]
    assert "Attempting search with Google" in record["steps"][3]["log"]  # the tool's own log lines
    assert record["steps"][1]["content"].startswith("Creating initial plan with ID: plan_1743478406")
    assert gold["mast"]["marked"] == []  # every mode unmarked; annotator 3's NaN on 3.2 and 3.3 is no vote
    assert gold["mast"]["votes"]["3.2"] == {"annotator_1": False, "annotator_2": False}
    assert conversion.layouts == {record["id"]: "OpenManus log (loguru)"}


def test_no_system_gives_a_single_step_or_one_step_per_line(corpus):
    """Over the whole folder: every record split by its system's layout, none fell back."""
    conversion = convert_inputs("mast", [corpus / "mast"])
    assert conversion.fallbacks == {} and conversion.warnings == []
    assert sorted(conversion.layouts.values()) == sorted([
        "AG2 messages", "AG2 messages", "AppWorld console", "ChatDev log (2025 form)", "ChatDev log (2025 form)",
        "Magentic-One console (AgentChat testbed)", "OpenManus log (loguru)", "HyperAgent log",
        "MetaGPT communication log", "MetaGPT log lines", "MetaGPT log lines"])
