"""TRAIL's span trees through `convert --from openinference` (tests/fixtures/trail, see its README).

The trace, by hand: `main` and `answer_single_question` carry neither input nor output, so they add
no step; the other seven spans are steps in order of start time: 0 `CodeAgent.run` (the agent
`CodeAgent`), 1 `Step 1`, 2 the first model call, 3 `web_search` (status Error: HTTP 429), 4 `Step 2`,
5 the second model call, 6 `final_answer`. The labels name spans b2d3... (the failing search: step
3), c3e4... (the second model call: step 5) and 6b5a... (`answer_single_question`: no step).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow
import pyarrow.parquet
import pytest

from potato_multiagent import derive
from potato_multiagent.convert import ConvertError, LabelSource, convert_inputs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trail"
TRACE_ID = "5b7f6e3a9c4d2e1f0a8b7c6d5e4f3a2b"
TRACE = FIXTURES / "GAIA" / f"{TRACE_ID}.json"
LABELS = FIXTURES / "processed_annotations_gaia" / f"{TRACE_ID}.json"
SPANS = ["a1c2e3f4a5b6c7d8", "b2d3e4f5a6b7c8d9", "c3e4f5a6b7c8d9e0", "d4f5a6b7c8d9e0f1"]


def test_the_nested_tree_becomes_steps_each_keeping_its_span_id():
    conversion = convert_inputs("openinference", [TRACE])
    [record] = conversion.records
    assert record["id"] == TRACE_ID
    assert [(step["span"], step["span_id"]) for step in record["steps"]] == [
        ("CodeAgent.run", "7c6b5a4f3e2d1c0b"), ("Step 1", "9d8c7b6a5f4e3d2c"),
        ("LiteLLMModel.__call__", SPANS[0]), ("web_search", SPANS[1]), ("Step 2", "8e7d6c5b4a3f2e1d"),
        ("LiteLLMModel.__call__", SPANS[2]), ("final_answer", SPANS[3])]
    # timestamp + ISO 8601 duration: the search started 16:44:40.402110 and took PT1.003114S
    assert (record["steps"][3]["started_at"], record["steps"][3]["ended_at"]) == (
        "2025-03-19T16:44:40.402110Z", "2025-03-19T16:44:41.405224Z")
    derivation = derive(record)
    assert derivation.agents == ["CodeAgent"]
    # the failing span's step carries the error its status gives
    assert derivation.steps[3].error == "HTTPError: 429 Client Error: Too Many Requests for url: https://serpapi.com/search"
    assert [(call["step"], call["tool"], call["arguments"], call["error"] is not None) for call in derivation.tool_calls] == [
        (3, "web_search", {"query": "Mercedes Sosa studio albums 2000 2009"}, True),
        (6, "final_answer", {"args": ["3"], "sanitize_inputs_outputs": True, "kwargs": {}}, False)]
    assert conversion.gold == []  # the labels are in a file of their own


def test_labels_from_trails_annotation_files_land_on_the_failing_spans_step():
    conversion = convert_inputs("openinference", [TRACE], labels=LabelSource(FIXTURES / "processed_annotations_gaia",
                                                                              key="trace_id"))
    [line] = conversion.gold
    errors = line["gold"]["errors"]
    assert [(error["location"], error["category"], error["step_index"]) for error in errors] == [
        (SPANS[1], "Rate Limiting", 3), (SPANS[2], "Language-only", 5), ("6b5a4f3e2d1c0b9a", "Goal Deviation", None)]
    assert line["gold"]["scores"][0]["overall"] == 2.75
    assert derive(conversion.records[0]).steps[errors[0]["step_index"]].error is not None
    assert conversion.warnings == [f"{LABELS}:1: errors[2].location: {TRACE_ID}: no step of this run is at span "
                                   f"'6b5a4f3e2d1c0b9a': in gold with no step"]
    assert (conversion.labelled, conversion.unlabelled, conversion.unmatched_labels) == (1, [], [])
    assert "Rate Limiting" not in json.dumps(conversion.records)


def test_without_gold_key_each_annotation_file_names_its_trace_by_its_file_name():
    conversion = convert_inputs("openinference", [TRACE], labels=LabelSource(LABELS))
    assert conversion.gold[0]["gold"]["errors"][0]["step_index"] == 3


def test_huggingface_rows_of_json_text_carry_their_labels_to_gold(tmp_path):
    """PatronusAI/TRAIL on Hugging Face: Parquet rows {trace, labels}, both JSON kept as text."""
    table = pyarrow.table({"trace": [TRACE.read_text(encoding="utf-8")], "labels": [LABELS.read_text(encoding="utf-8")]})
    pyarrow.parquet.write_table(table, tmp_path / "gaia-00000-of-00001.parquet")
    conversion = convert_inputs("openinference", [tmp_path])
    [record] = conversion.records
    assert len(record["steps"]) == 7
    [line] = conversion.gold
    assert [error["step_index"] for error in line["gold"]["errors"]] == [3, 5, None]
    assert conversion.warnings == [f"{tmp_path / 'gaia-00000-of-00001.parquet'}:row 1: labels.errors[2].location: "
                                   f"{TRACE_ID}: '6b5a4f3e2d1c0b9a' has no step around it: the error is in gold with no step"]


def test_a_duration_that_is_not_iso_8601_is_named(tmp_path):
    trace = json.loads(TRACE.read_text(encoding="utf-8"))
    trace["spans"][0]["duration"] = "9.2 seconds"
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace), encoding="utf-8")
    with pytest.raises(ConvertError) as error:
        convert_inputs("openinference", [path])
    assert str(error.value) == f"{path}:1: duration: expected an ISO 8601 duration such as PT1.5S, found '9.2 seconds'"
