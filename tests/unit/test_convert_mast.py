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
    assert line["gold"]["failure_modes"] == ["Unaware of stopping conditions"]
    assert line["gold"]["failure_mode_votes"]["Ignoring suggestions from agents"] == {
        "annotator_1": True, "annotator_2": False, "annotator_3": False}
    assert line["gold"]["note"] == AG2_TRACE["note"] and line["gold"]["other_data"] == AG2_TRACE["other_data"]
    served = json.dumps(conversion.records)
    assert "keeps asking" not in served and "other_data" not in served and "annotator_1" not in served


@pytest.mark.parametrize("trace", [METAGPT_RECORD["trace"], "[2025-01-17 11:40] Alice: writing code"])
def test_a_raw_text_log_is_refused_saying_why(tmp_path, trace):
    with pytest.raises(ConvertError) as error:
        convert(tmp_path, [AG2_RECORD, {**METAGPT_RECORD, "trace": trace}])
    assert str(error.value).startswith(f"{tmp_path / 'mad.json'}:")
    assert ": trace: a raw-text log (MetaGPT), not a structured trajectory: only traces holding a " \
           "'trajectory' list of messages (as AG2 runs do) can be converted" in str(error.value)


def test_the_line_of_the_refused_record_in_a_json_array_is_where_it_starts(tmp_path):
    path = tmp_path / "mad.json"
    path.write_text(json.dumps([AG2_RECORD, METAGPT_RECORD], indent=2), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    second_record_line = lines.index("  {", lines.index("  {") + 1) + 1
    with pytest.raises(ConvertError) as error:
        convert_inputs("mast", [path])
    assert str(error.value).startswith(f"{path}:{second_record_line}: trace:")
