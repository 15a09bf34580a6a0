"""``potato-multiagent judge --method mast`` against a scripted OpenAI-compatible server on 127.0.0.1,
through Potato's ``openai`` endpoint with ``base_url``.

Expected prompts and values are written by hand from the records and answers below; definitions
are Potato's own (its MAST preset), read from Potato.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from potato_multiagent.cli import main
from potato_multiagent.judgments import read_judgments
from potato_multiagent.taxonomy import preset
from tests.scripted_llm import ScriptedLLM, Status
from tests.step_identity import fingerprint
from tests.unit.test_judge import lines, long_run

TAXONOMY = preset("mast")
TID = TAXONOMY.id
RUNS = [
    {"id": "trip-1", "task": "Book a flight Berlin-Lisbon on 12 June under EUR 200.",
     "steps": [{"agent": "Planner", "content": "Searcher: find fares for 12 June under EUR 200."},
               {"agent": "Searcher", "content": "Searching fares BER-LIS on 12 June."},
               {"agent": "Searcher", "content": "Searching fares BER-LIS on 12 June, again."},
               {"agent": "Booker", "content": "Booked TP 523 for EUR 240."}]},
    {"id": "trip-2", "task": "Find a hotel in Lisbon for two nights.",
     "steps": [{"agent": "Planner", "content": "Searcher: a hotel for two nights."},
               {"agent": "Searcher", "content": "Hotel Avenida, 12-14 June."}]},
]
TRIP_1 = {"present": [{"mode": "3.2", "note": "nobody checks the price"}, {"mode": "1.3", "note": "searched twice"}],
          "steps": [{"step": 3, "mode": "1.3", "note": "the same search again", "severity": "minor"},
                    {"step": 4, "mode": "FM-1.1", "note": "EUR 240 is over the budget", "severity": "major"}]}
TRIP_2 = {"present": [], "steps": []}


def answer(prompt: str, request: dict) -> str:
    return "```json\n" + json.dumps(TRIP_1) + "\n```" if "Berlin" in prompt else json.dumps(TRIP_2)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUNS), encoding="utf-8")
    return tmp_path


def judge(folder: Path, llm: ScriptedLLM, *extra: str, out: str = "judgments.jsonl", inputs=("runs.jsonl",)) -> int:
    return main(["judge", *[str(folder / name) for name in inputs], "--method", "mast", "-o", str(folder / out),
                 "--endpoint-type", "openai", "--model", "scripted-4o", "--base-url", llm.base_url, *extra])


def test_a_valid_answer_becomes_a_mast_value_with_step_tags_and_whole_run_marks(folder, capsys):
    with ScriptedLLM(answer) as llm:
        assert judge(folder, llm) == 0
        prompt, request = llm.requests[0]["prompt"], llm.requests[0]["body"]
    # the taxonomy's definitions, the problem and the history numbered as the page numbers it
    assert "The problem the agents worked on is: Book a flight Berlin-Lisbon on 12 June under EUR 200.\n" in prompt
    for mode in TAXONOMY.modes:
        assert f"- {mode.code} {mode.name}: {mode.definition}\n" in prompt
    assert "Task Verification & Termination:\n- 3.1 Premature termination:" in prompt
    assert ("#1 Planner: Searcher: find fares for 12 June under EUR 200.\n#2 Searcher: Searching fares BER-LIS on "
            "12 June.\n#3 Searcher: Searching fares BER-LIS on 12 June, again.\n#4 Booker: Booked TP 523 for "
            "EUR 240.\n") in prompt
    assert "A severity is one of minor, major, critical" in prompt
    # the endpoint is asked for the model's JSON schema, its codes enumerated
    schema = request["response_format"]["json_schema"]
    assert schema["name"] == "MastAnswer"
    assert schema["schema"]["$defs"]["MastStep"]["properties"]["mode"]["enum"][:3] == ["1.1", "1.2", "1.3"]

    judgments = lines(folder / "judgments.jsonl")
    assert [(j["id"], j["scheme"], j["source"]) for j in judgments] == [
        ("trip-1", "mast", "scripted-4o mast"), ("trip-2", "mast", "scripted-4o mast")]
    # #3 and #4 are 0-based 2 and 3; FM-1.1 names 1.1; 1.3 is located, so only 3.2 is a whole-run mark
    assert judgments[0]["value"] == {"taxonomy": TID, "steps": [
        {"step": 2, "step_ref": fingerprint("Searcher", "Searching fares BER-LIS on 12 June, again."), "mode": "1.3",
         "note": "the same search again", "severity": "minor"},
        {"step": 3, "step_ref": fingerprint("Booker", "Booked TP 523 for EUR 240."), "mode": "1.1",
         "note": "EUR 240 is over the budget", "severity": "major"}],
        "run": [{"mode": "3.2", "note": "nobody checks the price", "severity": None}]}
    assert judgments[1]["value"] == {"taxonomy": TID, "steps": [], "run": [], "none_found": True}
    run = judgments[0]["run"]
    assert run["method"] == "mast" and run["calls"] == 1 and re.fullmatch(r"mast/[0-9a-f]{8}", run["prompt_version"])
    assert run["input_tokens"] == len(prompt) // 4
    # every line reads as a judgments file does (the type's own check)
    assert [j.value["taxonomy"] for j in read_judgments(folder / "judgments.jsonl")] == [TID, TID]
    assert "judged 2, unparseable 0, refused 0, failed 0; 0 already done" in capsys.readouterr().out


def test_an_unknown_code_is_asked_again_then_recorded_unparseable_with_the_raw_text(folder, capsys):
    bad = json.dumps({"present": [{"mode": "FM-4.1", "note": "?"}], "steps": []})
    worse = json.dumps({"present": [], "steps": [{"step": 2, "mode": "Hallucination", "note": "?"}]})

    def unknown_on_trip_1(prompt, request):
        if "Berlin" not in prompt:
            return answer(prompt, request)
        return worse if "could not be used" in prompt else bad

    with ScriptedLLM(unknown_on_trip_1) as llm:
        assert judge(folder, llm) == 0
        retry = [p for p in llm.prompts() if "Berlin" in p][1]
    codes = ", ".join(TAXONOMY.codes)
    assert (f"Your previous answer could not be used (present.0.mode: 'FM-4.1' is not a mode of {TID} (codes: "
            f"{codes})). Answer again") in retry
    assert [j["id"] for j in lines(folder / "judgments.jsonl")] == ["trip-2"]
    log = {entry["id"]: entry for entry in lines(folder / "judgments.runs.jsonl")}
    assert log["trip-1"]["status"] == "unparseable"
    assert log["trip-1"]["answers"] == [bad, worse]
    assert log["trip-1"]["problem"] == f"steps.0.mode: 'Hallucination' is not a mode of {TID} (codes: {codes})"
    assert log["trip-1"]["calls"] == 2
    assert "unparseable: trip-1: steps.0.mode: 'Hallucination'" in capsys.readouterr().err


def test_a_step_not_shown_or_a_severity_not_configured_is_invalid_and_a_good_retry_is_judged(folder):
    def answers(prompt, request):
        if "Berlin" not in prompt:
            return answer(prompt, request)
        if "could not be used" in prompt:
            return json.dumps(TRIP_1)
        return json.dumps({"present": [], "steps": [{"step": 5, "mode": "1.3", "note": ""}]})

    with ScriptedLLM(answers) as llm:
        assert judge(folder, llm) == 0
        assert "(steps.0.step: step 5 is not a step shown (#1 to #4))" in llm.prompts()[1]
    first = lines(folder / "judgments.jsonl")[0]
    assert first["id"] == "trip-1" and first["run"]["calls"] == 2 and len(first["value"]["steps"]) == 2


def test_a_run_longer_than_the_context_is_judged_in_overlapping_parts_and_the_parts_united(tmp_path):
    (tmp_path / "runs.jsonl").write_text(json.dumps(long_run()) + "\n", encoding="utf-8")
    # The prompt without history is about 800 tokens (the definitions), a step about 110:
    # 2,600 tokens of context less 800 for the answer leave room for about 9 steps.

    def parts(prompt, request):
        part = re.search(r"this is part (\d) of (\d) of a run too long to show at once \(steps #(\d+) to #(\d+)",
                         prompt)
        if part.group(1) == "1":
            shared = int(part.group(4))   # part 1's last step is in part 2 too: both tag it
            return json.dumps({"present": [{"mode": "3.2", "note": "first part"}],
                               "steps": [{"step": 3, "mode": "1.3", "note": "repeats #1"},
                                         {"step": shared, "mode": "2.6", "note": "part 1"}]})
        shared = int(part.group(3)) + 1
        return json.dumps({"present": [{"mode": "3.2", "note": "second part"}, {"mode": "2.4", "note": "kept back"}],
                           "steps": [{"step": shared, "mode": "2.6", "note": "part 2"},
                                     {"step": 12, "mode": "1.3", "note": "again"}]})

    with ScriptedLLM(parts) as llm:
        assert judge(tmp_path, llm, "--context-tokens", "2600", "--overlap", "2") == 0
        prompts = llm.prompts()
    assert len(prompts) == 2
    first = re.search(r"part 1 of 2 .*\(steps #1 to #(\d+) of #12; parts overlap by 2 steps\)", prompts[0])
    second = re.search(r"part 2 of 2 .*\(steps #(\d+) to #12 of #12", prompts[1])
    assert first and second
    last_of_first, first_of_second = int(first.group(1)), int(second.group(1))
    assert first_of_second == last_of_first - 1                       # two steps shared
    assert f"#{last_of_first + 1} " not in prompts[0] and f"#{first_of_second - 1} " not in prompts[1]
    assert "list every mode that occurs in this part of the run" in prompts[0]
    judged = lines(tmp_path / "judgments.jsonl")[0]
    assert judged["run"]["calls"] == 2 and judged["run"]["context"] == "chunked: 2 parts, 2 steps overlap"
    # the shared step's tag once, with part 1's words (its 0-based index is #N - 1)
    assert [(t["step"], t["mode"], t["note"]) for t in judged["value"]["steps"]] == [
        (2, "1.3", "repeats #1"), (last_of_first - 1, "2.6", "part 1"), (11, "1.3", "again")]
    # 3.2 said by both parts: once, with the first part's words; 2.4 only in part 2; 1.3 and 2.6 are located
    assert judged["value"]["run"] == [{"mode": "2.4", "note": "kept back", "severity": None},
                                      {"mode": "3.2", "note": "first part", "severity": None}]


def test_a_step_that_alone_does_not_fit_is_refused_with_the_run_named(tmp_path, capsys):
    run = {"id": "huge", "task": "t", "steps": [{"agent": "A", "content": "y" * 20000}, {"agent": "B", "content": "z"}]}
    (tmp_path / "runs.jsonl").write_text(json.dumps(run) + "\n", encoding="utf-8")
    with ScriptedLLM(answer) as llm:
        assert judge(tmp_path, llm, "--context-tokens", "4000") == 0
        assert llm.requests == []
    assert "refused: huge: step #1 alone needs about" in capsys.readouterr().err
    assert [e["status"] for e in lines(tmp_path / "judgments.runs.jsonl")] == ["refused"]


def test_a_batch_resumes_skipping_judged_runs_and_retrying_failed_ones(folder):
    with ScriptedLLM(lambda p, r: Status(500) if "Lisbon for two" in p else answer(p, r)) as llm:
        assert judge(folder, llm) == 1
    assert [j["id"] for j in lines(folder / "judgments.jsonl")] == ["trip-1"]
    with ScriptedLLM(answer) as llm:
        assert judge(folder, llm) == 0
        assert len(llm.requests) == 1 and "Lisbon for two" in llm.requests[0]["prompt"]
        assert judge(folder, llm) == 0          # all done: nothing asked again
        assert len(llm.requests) == 1
    assert [j["id"] for j in lines(folder / "judgments.jsonl")] == ["trip-1", "trip-2"]


# --------------------------------------------------------------------------- a task's mast scheme


def write_task(folder: Path, schemes: list) -> Path:
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUNS), encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump({
        "annotation_task_name": "mast judged", "task_dir": ".", "data_files": ["data/runs.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "task"}, "plugins": ["multiagent"],
        "annotation_schemes": schemes}, sort_keys=False), encoding="utf-8")
    return folder / "config.yaml"


TRAIL = {"name": "trail", "version": "t1", "source": "a test taxonomy", "modes": [
    {"category": "Reasoning", "code": "R1", "name": "Hallucination", "definition": "Invents a fact."},
    {"category": "Execution", "code": "E1", "name": "Tool misuse", "definition": "Wrong tool or wrong arguments."}]}


def test_with_a_task_the_named_mast_scheme_its_modes_file_and_into_the_task(tmp_path, capsys):
    task = tmp_path / "task"
    task.mkdir()
    (task / "trail.yaml").write_text(yaml.safe_dump(TRAIL), encoding="utf-8")
    config = write_task(task, [
        {"annotation_type": "multiagent.mast", "name": "mast", "description": "MAST"},
        {"annotation_type": "multiagent.mast", "name": "trail", "description": "TRAIL", "modes_file": "trail.yaml",
         "allow_severity": False, "whole_run": False}])
    trail_answer = json.dumps({"present": [{"mode": "E1", "note": "ignored: whole_run is off"}],
                               "steps": [{"step": 2, "mode": "R1", "note": "no such fare", "severity": "major"}]})
    with ScriptedLLM(lambda p, r: trail_answer) as llm:
        base = ["judge", "--config", str(config), "--method", "mast", "-o", str(tmp_path / "j.jsonl"),
                "--endpoint-type", "openai", "--model", "m", "--base-url", llm.base_url]
        assert main(base) == 1
        assert ("expected one multiagent.mast scheme (found: mast, trail); name it with --scheme"
                in capsys.readouterr().err)
        assert main(base + ["--scheme", "trail", "--source", "judge", "--into-task"]) == 0
        prompt = llm.prompts()[0]
    assert "(trail@t1, a test taxonomy)" in prompt
    assert "Reasoning:\n- R1 Hallucination: Invents a fact.\nExecution:\n- E1 Tool misuse:" in prompt
    assert '"present"' not in prompt and "severity" not in prompt       # whole_run and severities are off
    value = {"taxonomy": "trail@t1", "steps": [{"step": 1, "step_ref": fingerprint("Searcher", "Searching fares "
             "BER-LIS on 12 June."), "mode": "R1", "note": "no such fare", "severity": None}], "run": []}
    assert lines(tmp_path / "j.jsonl")[0]["value"] == value
    records = lines(task / "data" / "runs.jsonl")
    assert records[0]["judgments"] == {"trail": [{"source": "judge", "value": value}]}
    schemes = yaml.safe_load(config.read_text())["annotation_schemes"]
    assert [s.get("show_judgments") for s in schemes] == [None, "after_answer"]


def test_init_with_a_mast_judge_places_it_on_the_mast_scheme_shown_after_the_answer(tmp_path):
    """`judge --from who-and-when --method mast` on Who&When's own files, then `init --judgments`."""
    folder = tmp_path / "Algorithm-Generated"
    folder.mkdir()
    (folder / "1.json").write_text(json.dumps({
        "question": "What is 6 times 7?", "ground_truth": "42",
        "history": [{"content": "Multiply.", "role": "assistant", "name": "Planner"},
                    {"content": "print(6 * 8)", "role": "assistant", "name": "Coder"}],
        "mistake_agent": "Coder", "mistake_step": "1", "mistake_reason": "6 * 8"}), encoding="utf-8")
    said = json.dumps({"present": [], "steps": [{"step": 2, "mode": "1.1", "note": "8, not 7"}]})
    with ScriptedLLM(lambda p, r: said) as llm:
        assert main(["judge", str(folder), "--from", "who-and-when", "--method", "mast", "-o",
                     str(tmp_path / "j.jsonl"), "--endpoint-type", "openai", "--model", "m",
                     "--base-url", llm.base_url, "--source", "judge"]) == 0
        assert "The problem the agents worked on is: What is 6 times 7?" in llm.prompts()[0]
    assert main(["init", "--from", "who-and-when", str(folder), "-o", str(tmp_path / "task"),
                 "--judgments", str(tmp_path / "j.jsonl")]) == 0
    schemes = yaml.safe_load((tmp_path / "task" / "config.yaml").read_text())["annotation_schemes"]
    assert next(s for s in schemes if s["name"] == "mast")["show_judgments"] == "after_answer"
    assert "show_judgments" not in next(s for s in schemes if s["name"] == "attribution")
    record = lines(tmp_path / "task" / "data" / "runs.jsonl")[0]
    assert record["judgments"] == {"mast": [{"source": "judge", "value": {"taxonomy": TID, "steps": [
        {"step": 1, "step_ref": fingerprint("Coder", "print(6 * 8)"), "mode": "1.1", "note": "8, not 7",
         "severity": None}], "run": []}}]}


def test_modes_file_for_record_files(folder):
    (folder / "trail.yaml").write_text(yaml.safe_dump(TRAIL), encoding="utf-8")
    with ScriptedLLM(lambda p, r: json.dumps({"present": [{"mode": "E1", "note": "n"}], "steps": []})) as llm:
        assert judge(folder, llm, "--modes-file", str(folder / "trail.yaml")) == 0
    assert [j["value"] for j in lines(folder / "judgments.jsonl")][0] == {
        "taxonomy": "trail@t1", "steps": [], "run": [{"mode": "E1", "note": "n", "severity": None}]}


def test_notes_off_drop_the_notes_and_modes_file_is_for_mast_alone(tmp_path, capsys):
    task = tmp_path / "task"
    task.mkdir()
    config = write_task(task, [{"annotation_type": "multiagent.mast", "name": "mast", "description": "MAST",
                                "allow_note": False}])
    with ScriptedLLM(answer) as llm:
        assert main(["judge", "--config", str(config), "--method", "mast", "-o", str(tmp_path / "j.jsonl"),
                     "--endpoint-type", "openai", "--model", "m", "--base-url", llm.base_url]) == 0
        assert main(["judge", str(task / "data" / "runs.jsonl"), "--method", "structured", "--modes-file", "x.yaml",
                     "-o", str(tmp_path / "s.jsonl"), "--endpoint-type", "openai", "--model", "m",
                     "--base-url", llm.base_url]) == 1
    assert "error: --modes-file is for --method mast" in capsys.readouterr().err
    value = lines(tmp_path / "j.jsonl")[0]["value"]
    assert [(t["mode"], t["note"]) for t in value["steps"]] == [("1.3", ""), ("1.1", "")]
    assert value["run"] == [{"mode": "3.2", "note": "", "severity": None}]
