"""`convert --from mast`: MAD records written here in the shape of MAD_human_labelled_dataset.json.

A record is `{round, mas_name, benchmark_name, trace_id, trace, annotations}`; `trace` is text: for
AG2 runs a JSON object with `problem_statement`, `trajectory` (`{content, role, name}` messages),
`other_data` and the labellers' `note`; for other systems a raw log. `annotations` list each failure
mode (`"1.5 Unaware of stopping conditions\\n\\n<definition>"`) with each annotator's mark.
"""

import json

import pytest

from potato_multiagent import derive
from potato_multiagent.convert import ConvertError, convert_inputs

AG2_TRACE = {
    "instance_id": "gsm-17",
    "problem_statement": ["A box holds 12 pens. How many pens are in 3 boxes?"],
    "other_data": {"correct": True, "answer": "36"},
    "trajectory": [
        {"content": ["Let's use Python to solve a math problem.", "Query requirements: ..."],
         "role": "assistant", "name": "mathproxyagent"},
        {"content": ["12 * 3 = 36, so \\boxed{36}."], "role": "user", "name": "assistant"},
        {"content": ["Continue. Please keep solving the problem."], "role": "assistant", "name": "mathproxyagent"},
    ],
    "note": {"text": ["The proxy keeps asking to continue after the answer."],
             "options": {"Unaware of stopping conditions": "yes"}},
}


def mad_record(mas_name, trace, marks):
    modes = ["1.1 Poor task constraint compliance\n\nFailure to adhere to the task's constraints.",
             "1.5 Unaware of stopping conditions\n\nNot recognising when to stop.",
             "3.3 Ignoring suggestions from agents\n\nDisregarding input from other agents."]
    annotations = [{"failure mode": mode, **{f"annotator_{k + 1}": mark for k, mark in enumerate(votes)}}
                   for mode, votes in zip(modes, marks)]
    return {"round": "Round 1", "mas_name": mas_name, "benchmark_name": "GSM-Plus", "trace_id": 17,
            "trace": trace, "annotations": annotations}


AG2_RECORD = mad_record("AG2", json.dumps(AG2_TRACE), [(False, False, False), (True, True, True), (True, False, False)])
METAGPT_RECORD = mad_record(
    "MetaGPT", json.dumps({"run_id": 4, "prompt": "write a palindrome checker",
                           "content": "2025-01-17 11:40:27 | INFO | Alice(SimpleCoder): to do SimpleWriteCode"}),
    [(False, False, False)] * 3)


def convert(tmp_path, data, name="mad.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return convert_inputs("mast", [path])


def test_an_ag2_trajectory_becomes_steps_with_its_agents(tmp_path):
    conversion = convert(tmp_path, AG2_RECORD)
    [record] = conversion.records
    assert record["id"] == "AG2-GSM-Plus-17"
    assert record["task"] == "A box holds 12 pens. How many pens are in 3 boxes?"
    assert record["steps"] == AG2_TRACE["trajectory"]
    derivation = derive(record)
    assert derivation.agents == ["mathproxyagent", "assistant"]
    assert derivation.steps[0].text == "Let's use Python to solve a math problem.\nQuery requirements: ..."


def test_failure_modes_by_majority_the_note_and_the_answer_go_to_gold_only(tmp_path):
    conversion = convert(tmp_path, AG2_RECORD)
    [line] = conversion.gold
    assert line["id"] == "AG2-GSM-Plus-17"
    # round 1's "1.5 Unaware of stopping conditions" is the final taxonomy's 1.5, its "3.3 Ignoring
    # suggestions from agents" the final 2.5 (marked by one annotator of three: not by a majority)
    assert line["gold"]["mast"]["marked"] == ["1.5"]
    assert line["gold"]["mast"]["votes"]["2.5"] == {"annotator_1": True, "annotator_2": False, "annotator_3": False}
    assert line["gold"]["mast"]["written"] == {"1.1": "1.1 Poor task constraint compliance",
                                               "1.5": "1.5 Unaware of stopping conditions",
                                               "2.5": "3.3 Ignoring suggestions from agents"}
    assert line["gold"]["note"] == AG2_TRACE["note"] and line["gold"]["other_data"] == AG2_TRACE["other_data"]
    served = json.dumps(conversion.records)
    assert "keeps asking" not in served and "other_data" not in served and "annotator_1" not in served


METAGPT_LOG = (
    "2025-01-17 11:40:27.872 | INFO     | metagpt.roles.role:_act:391 - Alice(SimpleCoder): to do SimpleWriteCode\n"
    "```python\ndef is_palindrome(text):\n    return text == text[::-1]\n```\n"
    "2025-01-17 11:40:30.812 | INFO     | __main__:_act:85 - Bob(SimpleTester): to do SimpleWriteTest\n"
    "```python\nassert is_palindrome('abba')\n```\n"
    "2025-01-17 11:40:31.002 | INFO     | metagpt.utils.cost_manager:update_cost:57 - Total running cost: $0.004\n"
    "2025-01-17 11:40:34.802 | INFO     | metagpt.roles.role:_act:391 - Charlie(SimpleReviewer): to do SimpleWriteReview\n")


def test_a_metagpt_log_splits_into_steps_at_the_speaker_lines_metagpt_writes(tmp_path):
    trace = json.dumps({"run_id": 4, "prompt": "write a palindrome checker", "content": METAGPT_LOG,
                        "timestamp": "2025-01-17 11:40:27", "cost": 0.039, "log_file": "logs/4.txt"})
    conversion = convert(tmp_path, {**METAGPT_RECORD, "trace": trace})
    [record] = conversion.records
    assert record["task"] == "write a palindrome checker"
    assert (record["run_id"], record["cost"], record["log_file"]) == (4, 0.039, "logs/4.txt")
    assert record["steps"] == [
        {"time": "2025-01-17 11:40:27.872", "agent": "Alice", "agent_role": "SimpleCoder",
         "content": "to do SimpleWriteCode\n```python\ndef is_palindrome(text):\n    return text == text[::-1]\n```"},
        {"time": "2025-01-17 11:40:30.812", "agent": "Bob", "agent_role": "SimpleTester",
         "content": "to do SimpleWriteTest\n```python\nassert is_palindrome('abba')\n```"},
        {"time": "2025-01-17 11:40:31.002", "content": "Total running cost: $0.004"},  # no speaker: no agent
        {"time": "2025-01-17 11:40:34.802", "agent": "Charlie", "agent_role": "SimpleReviewer",
         "content": "to do SimpleWriteReview"}]
    derivation = derive(record)
    assert derivation.agents == ["Alice", "Bob", "Charlie"]
    assert [(h["from"], h["to"]) for h in derivation.handoffs] == [("Alice", "Bob"), ("Bob", "Charlie")]
    assert conversion.warnings == []


def test_a_log_without_known_speaker_markers_is_one_step_and_a_warning_naming_the_record(tmp_path):
    conversion = convert(tmp_path, [AG2_RECORD, {**METAGPT_RECORD, "mas_name": "ChatDev",
                                                 "trace": "[2025-31-03 19:09:41 INFO] writing code"}])
    assert conversion.records[1]["steps"] == [{"content": "[2025-31-03 19:09:41 INFO] writing code"}]
    [warning] = conversion.warnings
    why = ("no ChatDev layout found in its text (tried: AG2, MetaGPT, ChatDev, HyperAgent, AppWorld, "
           "Magentic-One, OpenManus)")
    assert warning == f"{tmp_path / 'mad.json'}:1: trace: ChatDev-GSM-Plus-17: {why}: the whole log is one step"
    assert conversion.fallbacks == {"ChatDev-GSM-Plus-17": why}
    assert conversion.layouts == {"AG2-GSM-Plus-17": "AG2 messages", "ChatDev-GSM-Plus-17": None}


def test_the_taxonomy_round_and_every_unplaced_field_go_to_gold(tmp_path):
    record = {**AG2_RECORD, "annotator_notes": "checked twice",
              "trace": json.dumps({**AG2_TRACE, "seed": 42})}
    [line] = convert(tmp_path, record).gold
    assert line["gold"]["round"] == "Round 1"
    assert line["gold"]["other_fields"] == {"annotator_notes": "checked twice", "trace.seed": 42}


def test_the_full_dataset_layout_converts_ag2_text_trajectories_and_keeps_mast_annotation_in_gold(tmp_path):
    """MAD_full_dataset.json: `trace` is {key, index, trajectory} with the AG2 messages as Python
    dict literals one after another (as that file writes them), `mast_annotation` codes 1/0/null."""
    trajectory = ("{'content': ['Solve: 3 boxes of 12 pens?', 'Use {braces} freely'], 'role': 'assistant', "
                  "'name': 'mathproxyagent'}\n{'content': ['12 * 3 = 36'], 'role': 'user', 'name': 'assistant'}")
    record = {"mas_name": "AG2", "llm_name": "gpt-4o", "benchmark_name": "GSM-Plus", "trace_id": 7,
              "trace": {"key": "gsm-7", "index": 7, "trajectory": trajectory},
              "mast_annotation": {"1.1": 0, "1.5": 1, "3.3": None}}
    conversion = convert(tmp_path, [record])
    [converted] = conversion.records
    assert converted["id"] == "AG2-GSM-Plus-gpt-4o-7"
    assert (converted["llm_name"], converted["key"], converted["index"]) == ("gpt-4o", "gsm-7", 7)
    assert converted["steps"] == [
        {"content": ["Solve: 3 boxes of 12 pens?", "Use {braces} freely"], "role": "assistant", "name": "mathproxyagent"},
        {"content": ["12 * 3 = 36"], "role": "user", "name": "assistant"}]
    assert conversion.gold == [{"id": "AG2-GSM-Plus-gpt-4o-7", "gold": {
        "mast": {"marked": ["1.5"], "annotation": {"1.1": 0, "1.5": 1, "3.3": None}}}}]
    assert "mast_annotation" not in json.dumps(conversion.records)


def test_one_unreadable_record_does_not_fail_the_file(tmp_path, capsys):
    from potato_multiagent.cli import main

    path = tmp_path / "mad.json"
    path.write_text(json.dumps([AG2_RECORD, {**METAGPT_RECORD, "trace": 12}, AG2_RECORD | {"trace_id": 18}],
                               indent=2), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    second_record_line = lines.index("  {", lines.index("  {") + 1) + 1
    assert main(["convert", "--from", "mast", str(path), "-o", str(tmp_path / "out.jsonl")]) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (f"skipped: {path}:{second_record_line}: trace: expected the trace (a string or "
                                   f"an object), found a number")
    ids = [json.loads(line)["id"] for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert ids == ["AG2-GSM-Plus-17", "AG2-GSM-Plus-18"]


@pytest.mark.parametrize("trace, steps", [
    ("42", [{"content": "42"}]),
    (json.dumps([{"name": "A", "content": "x"}]), [{"name": "A", "content": "x"}]),
])
def test_a_trace_of_json_text_that_is_no_object_is_a_list_of_messages_or_the_log_itself(tmp_path, trace, steps):
    [record] = convert(tmp_path, {**METAGPT_RECORD, "trace": trace}).records
    assert record["steps"] == steps


def test_a_trajectory_that_is_neither_messages_nor_text_is_named(tmp_path):
    with pytest.raises(ConvertError) as error:
        convert(tmp_path, {**AG2_RECORD, "trace": {"trajectory": 7}})
    assert str(error.value) == f"{tmp_path / 'mad.json'}:1: trace.trajectory: expected a list of messages or log text, found a number"


# The MAST authors' YAML-like flattening of a JSON trace, in the layout issue 29 reads in
# MAD_full_dataset.json (not in the corpus): top-level instance_id/problem_statement/other_data/
# trajectory, each message a `content:` key 6 spaces in (after the list dash) with its body lines 12
# spaces in, then `role:` and `name:` at the key's indentation; HyperAgent's trace a list of lines.
AG2_FLATTENED = (
    "instance_id: gsm-17\n"
    "problem_statement:\n"
    "- A box holds 12 pens. How many pens are in 3 boxes?\n"
    "other_data:\n"
    "  correct: true\n"
    "  answer: '36'\n"
    "trajectory:\n"
    "    - content:\n"
    "            Let's use Python to solve a math problem.\n"
    "\n"
    "            Query requirements: print the answer: in \\boxed{}.\n"
    "      role: assistant\n"
    "      name: mathproxyagent\n"
    "    - content:\n"
    "            - 12 * 3 = 36\n"
    "            - so \\boxed{36}.\n"
    "      role: user\n"
    "      name: assistant\n")


def test_the_flattened_yaml_trajectory_of_the_full_dataset_becomes_its_messages(tmp_path):
    record = {"mas_name": "AG2", "llm_name": "gpt-4o", "benchmark_name": "GSM-Plus", "trace_id": 17,
              "trace": {"key": "gsm-17", "index": 17, "trajectory": AG2_FLATTENED},
              "mast_annotation": {"1.1": 0, "1.3": 1}}
    conversion = convert(tmp_path, [record])
    [converted] = conversion.records
    assert converted["steps"] == [
        {"content": "Let's use Python to solve a math problem.\n\nQuery requirements: print the answer: in \\boxed{}.",
         "role": "assistant", "name": "mathproxyagent"},
        {"content": ["12 * 3 = 36", "so \\boxed{36}."], "role": "user", "name": "assistant"}]
    assert converted["task"] == "A box holds 12 pens. How many pens are in 3 boxes?"
    assert (converted["instance_id"], converted["key"]) == ("gsm-17", "gsm-17")
    [gold] = conversion.gold
    assert gold["gold"]["other_data"] == {"correct": True, "answer": "36"}
    assert gold["gold"]["mast"]["marked"] == ["1.3"]
    assert "correct" not in json.dumps(conversion.records)
    assert [step.agent for step in derive(converted).steps] == ["mathproxyagent", "assistant"]


def test_a_flattened_hyperagent_trace_is_its_log_lines_joined_and_split(tmp_path):
    flattened = (
        "instance_id: astropy__astropy-12907\n"
        "problem_statement:\n"
        "- Modeling's `separability_matrix` does not compute separability correctly\n"
        "trajectory:\n"
        "    - HyperAgent_astropy__astropy-12907 - INFO - Initialized HyperAgent instance astropy__astropy-12907\n"
        "    - 'HyperAgent_astropy__astropy-12907 - INFO - Planner''s Response: Thought: read the code.'\n"
        "    - ''\n"
        "    - 'Intern Name: Codebase Navigator'\n"
        "    - 'Subgoal: Open separable.py.'\n"
        "    - HyperAgent_astropy__astropy-12907 - INFO - Inner-Navigator-Assistant's Response: Thought: open it.\n"
        "    - 'Action:'\n"
        "    - '```python'\n"
        "    - result = open_file._run(relative_file_path=\"astropy/modeling/separable.py\")\n"
        "    - '```'\n"
        "    - 'HyperAgent_astropy__astropy-12907 - INFO - Navigator->Planner: It is in _cstack.'\n")
    record = {"mas_name": "HyperAgent", "llm_name": "claude", "benchmark_name": "SWE-Bench-Lite", "trace_id": 1,
              "trace": {"key": "k", "index": 1, "trajectory": flattened}, "mast_annotation": {"1.1": 0}}
    conversion = convert(tmp_path, [record])
    [converted] = conversion.records
    derivation = derive(converted)
    assert [step.agent for step in derivation.steps] == [None, "Planner", "Navigator", "Navigator"]
    assert converted["steps"][1] == {"agent": "Planner", "to": "Navigator", "intern": "Codebase Navigator",
                                     "subgoal": "Open separable.py.",
                                     "content": "Thought: read the code.\n\nIntern Name: Codebase Navigator\n"
                                                "Subgoal: Open separable.py."}
    assert [(c["step"], c["tool"], c["arguments"]) for c in derivation.tool_calls] == [
        (2, "open_file", {"relative_file_path": "astropy/modeling/separable.py"})]
    assert [(h["from"], h["to"], h["kind"]) for h in derivation.handoffs] == [("Planner", "Navigator", "delegation")]
    assert conversion.layouts == {converted["id"]: "HyperAgent log"} and conversion.warnings == []


def test_a_folder_of_bare_logs_is_one_record_per_log_by_its_markers(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "magentic.log").write_text(
        "noise\nSCENARIO.PY STARTING !#!#\n---------- user ----------\nAdd 2 and 2.\n"
        "---------- MagenticOneOrchestrator ----------\nFINAL ANSWER: 4\nSCENARIO.PY COMPLETE !#!#\n", encoding="utf-8")
    (tmp_path / "runs" / "notes.txt").write_text("nothing a system writes\n", encoding="utf-8")
    conversion = convert_inputs("mast", [tmp_path / "runs"], strict=False)
    magentic, notes = conversion.records
    assert magentic == {"id": "magentic", "system": "Magentic-One", "steps": [
        {"agent": "user", "content": "Add 2 and 2."}, {"agent": "MagenticOneOrchestrator", "content": "FINAL ANSWER: 4"}]}
    assert notes["steps"] == [{"content": "nothing a system writes\n"}]
    assert conversion.fallbacks == {"notes": "no known layout found in its text (tried: AG2, MetaGPT, ChatDev, HyperAgent, "
                                              "AppWorld, Magentic-One, OpenManus)"}
    assert conversion.gold == []


def test_an_openmanus_error_line_is_its_turns_error_and_a_tool_result_keeps_its_tools_log(tmp_path):
    """OpenManus's loguru layout (GAIA_OpenManus_trace18 of the corpus) with an `| ERROR |` line,
    as OpenManus writes when a turn's thinking fails."""
    log = tmp_path / "manus.log"
    log.write_text(
        "2025-03-31 20:33:33.258 | INFO     | app.agent.base:run:140 - Executing step 1/20\n"
        "2025-03-31 20:33:34.369 | INFO     | app.agent.toolcall:think:81 - ✨ Manus's thoughts: Search first.\n"
        "2025-03-31 20:33:34.369 | INFO     | app.agent.toolcall:think:82 - 🛠️ Manus selected 1 tools to use\n"
        "2025-03-31 20:33:34.369 | INFO     | app.agent.toolcall:think:86 - 🧰 Tools being prepared: ['web_search']\n"
        "2025-03-31 20:33:34.370 | INFO     | app.agent.toolcall:think:89 - 🔧 Tool arguments: {\"query\":\"moon\"}\n"
        "2025-03-31 20:33:34.371 | INFO     | app.agent.toolcall:execute_tool:180 - 🔧 Activating tool: 'web_search'...\n"
        "2025-03-31 20:33:35.600 | INFO     | app.tool.web_search:_try_all_engines:299 - 🔎 Attempting search with Google...\n"
        "2025-03-31 20:33:47.818 | INFO     | app.agent.toolcall:act:150 - 🎯 Tool 'web_search' completed its mission! "
        "Result: 384,400 km\n"
        "2025-03-31 20:33:47.818 | INFO     | app.agent.base:run:140 - Executing step 2/20\n"
        "2025-03-31 20:33:49.001 | ERROR    | app.agent.toolcall:think:97 - 🚨 Oops! The Manus's thinking process "
        "hit a snag: rate limit\n", encoding="utf-8")
    [record] = convert_inputs("mast", [log]).records
    assert record["steps"] == [
        {"time": "2025-03-31 20:33:33.258", "agent_step": 1, "max_steps": 20, "agent": "Manus", "content": "Search first.",
         "tool_calls": [{"name": "web_search", "arguments": {"query": "moon"}}]},
        {"role": "tool", "tool_name": "web_search", "time": "2025-03-31 20:33:47.818", "content": "384,400 km",
         "log": "🔎 Attempting search with Google..."},
        {"time": "2025-03-31 20:33:47.818", "agent_step": 2, "max_steps": 20, "content": "",
         "error": "🚨 Oops! The Manus's thinking process hit a snag: rate limit"}]
    derivation = derive(record)
    assert [step.agent for step in derivation.steps] == ["Manus", "Manus", None]
    assert derivation.tool_calls[0]["result_step"] == 1
