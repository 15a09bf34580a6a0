"""``potato-multiagent judge`` end to end: each method against a scripted OpenAI-compatible server on
127.0.0.1, reached through Potato's ``openai`` endpoint with ``base_url``.

The expected prompts, values and figures are written by hand from the records below.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from potato_multiagent.cli import main
from potato_multiagent.judgments import read_judgments
from tests.scripted_llm import ScriptedLLM, Status

RUNS = [
    {"id": "run-1", "question": "What is 6 times 7?",
     "steps": [{"agent": "Planner", "content": "Multiply the two numbers."},
               {"agent": "Coder", "content": "print(6 * 8)"},
               {"agent": "Computer_terminal", "content": "48"},
               {"agent": "Verifier", "content": "48 looks right. TERMINATE"}]},
    {"id": "run-2", "question": "Name the capital of Australia.",
     "steps": [{"agent": "Planner", "content": "Look it up."},
               {"agent": "Searcher", "content": "Sydney is the largest city."},
               {"agent": "Planner", "content": "Answer: Sydney"}]},
    {"id": "run-3", "question": "Sort 3, 1, 2.",
     "steps": [{"agent": "Coder", "content": "sorted([3, 1, 2], reverse=True)"},
               {"agent": "Verifier", "content": "[3, 2, 1]. TERMINATE"}]},
]
GOLD = [{"id": "run-1", "gold": {"mistake_agent": "Coder", "mistake_step": "1", "ground_truth": "42"}},
        {"id": "run-2", "gold": {"mistake_agent": "Searcher", "mistake_step": "1", "ground_truth": "Canberra"}},
        {"id": "run-3", "gold": {"mistake_agent": "Coder", "mistake_step": "0", "ground_truth": "1, 2, 3"}}]


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUNS), encoding="utf-8")
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in GOLD), encoding="utf-8")
    return tmp_path


def judge(folder: Path, llm: ScriptedLLM, method: str, *extra: str, out: str = "judgments.jsonl") -> int:
    return main(["judge", str(folder / "runs.jsonl"), "--method", method, "-o", str(folder / out),
                 "--endpoint-type", "openai", "--model", "scripted-4o", "--base-url", llm.base_url, *extra])


def lines(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def prompt_for(llm: ScriptedLLM, question: str) -> list:
    return [p for p in llm.prompts() if question in p]


# --------------------------------------------------------------------------- all at once


def all_at_once_answer(prompt: str, request: dict) -> str:
    if "6 times 7" in prompt:
        return "Agent Name: Coder\nStep Number: 2\nReason for Mistake: It multiplied 6 by 8."
    if "capital of Australia" in prompt:
        return "Agent Name: **Searcher**\nStep Number: #2\nReason for Mistake: Sydney is not the capital."
    return "Agent Name: coder\nStep Number: 1\nReason for Mistake: reverse=True sorts descending."


def test_all_at_once_prompts_hold_the_task_and_the_numbered_history_and_answers_become_judgments(folder, capsys):
    with ScriptedLLM(all_at_once_answer) as llm:
        assert judge(folder, llm, "all-at-once", "--reference", str(folder / "gold.jsonl")) == 0
        prompt = prompt_for(llm, "6 times 7")[0]
    assert "The problem is:  What is 6 times 7?\n" in prompt
    assert "The Answer for the problem is: 42\n" in prompt
    assert ("#1 Planner: Multiply the two numbers.\n#2 Coder: print(6 * 8)\n#3 Computer_terminal: 48\n"
            "#4 Verifier: 48 looks right. TERMINATE\n") in prompt
    assert "Agent Name: (Your prediction)" in prompt
    judgments = lines(folder / "judgments.jsonl")
    assert [(j["id"], j["value"]) for j in judgments] == [
        ("run-1", {"responsible_agent": "Coder", "decisive_step": 1, "reason": "It multiplied 6 by 8."}),
        ("run-2", {"responsible_agent": "Searcher", "decisive_step": 1, "reason": "Sydney is not the capital."}),
        ("run-3", {"responsible_agent": "Coder", "decisive_step": 0, "reason": "reverse=True sorts descending."}),
    ]
    run = judgments[0]["run"]
    assert judgments[0]["source"] == "scripted-4o all-at-once" and judgments[0]["scheme"] == "attribution"
    assert run["method"] == "all-at-once" and run["model"] == "scripted-4o" and run["endpoint"] == "openai"
    assert re.fullmatch(r"all-at-once/[0-9a-f]{8}", run["prompt_version"])
    assert run["calls"] == 1
    assert run["input_tokens"] == len(prompt) // 4
    assert run["output_tokens"] == len("Agent Name: Coder\nStep Number: 2\nReason for Mistake: It multiplied 6 by 8.") // 4
    assert run["seconds"] >= 0
    # Every line reads as a judgments file does.
    assert [j.value["decisive_step"] for j in read_judgments(folder / "judgments.jsonl")] == [1, 1, 0]
    assert "judged 3, unparseable 0, refused 0, failed 0; 0 already done" in capsys.readouterr().out


def test_without_a_reference_the_prompt_has_no_answer_line(folder):
    with ScriptedLLM(all_at_once_answer) as llm:
        assert judge(folder, llm, "all-at-once") == 0
        assert not any("The Answer for the problem is" in p for p in llm.prompts())


# --------------------------------------------------------------------------- step by step


def step_by_step_answer(prompt: str, request: dict) -> str:
    number = re.search(r"The most recent step \(#(\d+)\)", prompt).group(1)
    if "6 times 7" in prompt and number == "2":
        return "1. Yes.\n2. Reason: 6 * 8 is not the product asked for."
    if "capital" in prompt:
        return "1. No.\n2. Reason: fine."          # no step of run-2 is judged an error
    if "Sort" in prompt:
        return "1. yes\n2. Reason: descending order." if number == "1" else "1. No.\n2. Reason: -"
    return "1. No.\n2. Reason: nothing wrong."


def test_step_by_step_asks_step_after_step_until_an_error(folder):
    with ScriptedLLM(step_by_step_answer) as llm:
        assert judge(folder, llm, "step-by-step") == 0
        run_1 = prompt_for(llm, "6 times 7")
        run_2 = prompt_for(llm, "capital of Australia")
    assert len(run_1) == 2 and len(run_2) == 3
    assert "#1 Planner: Multiply the two numbers.\n\nThe most recent step (#1) was by 'Planner'." in run_1[0]
    assert ("history up to the current step:\n#1 Planner: Multiply the two numbers.\n#2 Coder: print(6 * 8)\n\n"
            "The most recent step (#2) was by 'Coder'.") in run_1[1]
    assert "(Step #2) contains an error" in run_1[1]
    values = {j["id"]: j["value"] for j in lines(folder / "judgments.jsonl")}
    assert values["run-1"] == {"responsible_agent": "Coder", "decisive_step": 1,
                               "reason": "6 * 8 is not the product asked for."}
    assert values["run-2"] == {"responsible_agent": None, "decisive_step": None,
                               "reason": "step-by-step judged no step an error"}
    assert values["run-3"]["decisive_step"] == 0
    calls = {j["id"]: j["run"]["calls"] for j in lines(folder / "judgments.jsonl")}
    assert calls == {"run-1": 2, "run-2": 3, "run-3": 1}


# --------------------------------------------------------------------------- binary search


def test_binary_search_halves_the_numbered_segments(folder):
    def answer(prompt, request):
        if "6 times 7" in prompt:
            return "lower half" if "segment from step #1 to step #4" in prompt else "Upper half."
        return "upper half"

    with ScriptedLLM(answer) as llm:
        assert judge(folder, llm, "binary-search") == 0
        run_1 = prompt_for(llm, "6 times 7")
    assert len(run_1) == 2
    assert "segment from step #1 to step #4:\n\n#1 Planner: Multiply the two numbers.\n" in run_1[0]
    assert "upper half (from step #1 to step #2) or the lower half (from step #3 to step #4)" in run_1[0]
    assert "segment from step #3 to step #4:\n\n#3 Computer_terminal: 48\n#4 Verifier:" in run_1[1]
    values = {j["id"]: j["value"] for j in lines(folder / "judgments.jsonl")}
    assert values["run-1"] == {"responsible_agent": "Computer_terminal", "decisive_step": 2,
                               "reason": "binary search narrowed the run to step #3"}
    assert values["run-2"]["decisive_step"] == 0 and values["run-3"]["decisive_step"] == 0


# --------------------------------------------------------------------------- structured


def structured_answer(prompt, request):
    if "6 times 7" in prompt:
        return ("```json\n" + json.dumps({"agent": "Coder", "step": 2, "reason": "6 * 8", "suggested_fix": "6 * 7",
                                           "confidence": 0.8, "plausible_steps": [4, 2, 3]}) + "\n```")
    return json.dumps({"agent": "Planner" if "capital" in prompt else "Coder", "step": 1, "reason": "r",
                       "suggested_fix": "f", "confidence": 0.5, "plausible_steps": []})


def test_structured_answers_json_checked_by_the_model_with_ranked_plausible_steps(folder):
    with ScriptedLLM(structured_answer) as llm:
        assert judge(folder, llm, "structured", "-k", "3") == 0
        request = llm.requests[0]["body"]
        prompt = llm.requests[0]["prompt"]
    schema = request["response_format"]["json_schema"]["schema"]
    assert set(schema["properties"]) == {"agent", "step", "reason", "suggested_fix", "confidence", "plausible_steps"}
    assert "The agents are: Planner, Coder, Computer_terminal, Verifier." in prompt
    assert "#2 Coder: print(6 * 8)" in prompt and "up to 2 other step numbers" in prompt
    first = lines(folder / "judgments.jsonl")[0]
    # #4 and #3 are the other plausible steps (the repeated #2 is the decisive one): 0-based 3 and 2.
    assert first["value"] == {"responsible_agent": "Coder", "decisive_step": 1, "reason": "6 * 8",
                              "plausible_steps": [{"step": 3}, {"step": 2}]}
    assert first["run"]["confidence"] == 0.8 and first["run"]["suggested_fix"] == "6 * 7"


# --------------------------------------------------------------------------- invalid answers


def test_an_invalid_answer_is_asked_again_then_recorded_unparseable_with_the_raw_text(folder, capsys):
    def answer(prompt, request):
        if "6 times 7" in prompt:
            return "I think the Coder did it." if "could not be used" not in prompt else "Still the Coder."
        if "capital" in prompt and "could not be used" not in prompt:
            return "Agent Name: Pilot\nStep Number: 2\nReason for Mistake: -"     # not an agent of run-2
        return "Agent Name: Searcher\nStep Number: 9\nReason for Mistake: -" if "capital" in prompt \
            else "Agent Name: Coder\nStep Number: 1\nReason for Mistake: -"

    with ScriptedLLM(answer) as llm:
        assert judge(folder, llm, "all-at-once") == 0
        retry = prompt_for(llm, "6 times 7")[1]
    assert "Your previous answer could not be used (expected 'Agent Name: ...' and 'Step Number: N')" in retry
    assert [j["id"] for j in lines(folder / "judgments.jsonl")] == ["run-3"]
    log = {entry["id"]: entry for entry in lines(folder / "judgments.runs.jsonl")}
    assert log["run-1"]["status"] == "unparseable"
    assert log["run-1"]["answers"] == ["I think the Coder did it.", "Still the Coder."]
    assert log["run-1"]["calls"] == 2
    assert log["run-2"]["status"] == "unparseable"
    assert log["run-2"]["problem"] == "step 9 is not a step of this run (#1 to #3)"
    assert log["run-3"]["status"] == "judged"
    err = capsys.readouterr()
    assert "unparseable: run-1: expected 'Agent Name: ...' and 'Step Number: N'" in err.err
    assert "judged 1, unparseable 2" in err.out


def test_an_invalid_then_valid_answer_is_judged_with_both_calls_counted(folder):
    def answer(prompt, request):
        if "could not be used" in prompt or "6 times 7" not in prompt:
            return all_at_once_answer(prompt, request)
        return "Agent Name: Nobody\nStep Number: 2"

    with ScriptedLLM(answer) as llm:
        assert judge(folder, llm, "all-at-once") == 0
    first = lines(folder / "judgments.jsonl")[0]
    assert first["id"] == "run-1" and first["run"]["calls"] == 2
    assert first["value"]["responsible_agent"] == "Coder"


def test_an_endpoint_failure_is_recorded_failed_and_retried_by_the_next_batch(folder, capsys):
    with ScriptedLLM(lambda p, r: Status(400) if "capital" in p else all_at_once_answer(p, r)) as llm:
        assert judge(folder, llm, "all-at-once") == 1
    assert [j["id"] for j in lines(folder / "judgments.jsonl")] == ["run-1", "run-3"]
    assert "run the same command again" in capsys.readouterr().err
    with ScriptedLLM(all_at_once_answer) as llm:
        assert judge(folder, llm, "all-at-once") == 0
        assert len(llm.requests) == 1 and "capital" in llm.requests[0]["prompt"]
    assert [j["id"] for j in lines(folder / "judgments.jsonl")] == ["run-1", "run-3", "run-2"]


# --------------------------------------------------------------------------- resume


def test_an_interrupted_batch_resumes_without_asking_again(folder):
    """The batch is killed while the model is answering run-2; run again, it asks only run-2 and run-3."""
    asked = []

    def slow_on_run_2(prompt, request):
        asked.append(prompt)
        if "capital" in prompt:
            llm.release.wait(60)
        return all_at_once_answer(prompt, request)

    llm = ScriptedLLM(slow_on_run_2)
    try:
        command = [sys.executable, "-m", "potato_multiagent.cli", "judge", str(folder / "runs.jsonl"), "--method",
                   "all-at-once", "-o", str(folder / "judgments.jsonl"), "--endpoint-type", "openai",
                   "--model", "scripted-4o", "--base-url", llm.base_url]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True)
        deadline = time.monotonic() + 60
        while not any("capital" in p for p in asked) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any("capital" in p for p in asked), process.communicate()
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    finally:
        llm.close()
    assert [j["id"] for j in lines(folder / "judgments.jsonl")] == ["run-1"]
    with ScriptedLLM(all_at_once_answer) as again:
        assert judge(folder, again, "all-at-once") == 0
        assert [("capital" in p, "Sort" in p) for p in again.prompts()] == [(True, False), (False, True)]
    assert [j["id"] for j in lines(folder / "judgments.jsonl")] == ["run-1", "run-2", "run-3"]


def test_a_line_cut_off_by_a_kill_is_dropped_and_the_run_judged_again(folder):
    with ScriptedLLM(all_at_once_answer) as llm:
        assert judge(folder, llm, "all-at-once") == 0
    path = folder / "judgments.jsonl"
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:text.rindex('{"id": "run-3"') + 20], encoding="utf-8")   # half of run-3's line
    log = folder / "judgments.runs.jsonl"
    log.write_text("".join(line + "\n" for line in log.read_text().splitlines()[:2]), encoding="utf-8")
    with ScriptedLLM(all_at_once_answer) as llm:
        assert judge(folder, llm, "all-at-once") == 0
        assert len(llm.requests) == 1 and "Sort" in llm.requests[0]["prompt"]
    assert [j["id"] for j in lines(path)] == ["run-1", "run-2", "run-3"]


# --------------------------------------------------------------------------- longer than the context


def long_run():
    return {"id": "long", "question": "Count to twelve.",
            "steps": [{"agent": "A" if i % 2 else "B", "content": f"number {i} " + "x" * 400} for i in range(1, 13)]}


def test_runs_longer_than_the_context(tmp_path, capsys):
    (tmp_path / "runs.jsonl").write_text(json.dumps(long_run()) + "\n", encoding="utf-8")
    # ~110 tokens a step; 2,000 tokens of context less 800 for the answer: about 8 steps fit.
    seen = []

    def answer(prompt, request):
        seen.append(prompt)
        if "JSON" in prompt:
            part = re.search(r"this is part (\d) of (\d)", prompt)
            if part and part.group(1) == "1":
                return json.dumps({"agent": None, "step": None, "reason": "", "confidence": 0.2})
            return json.dumps({"agent": "A", "step": 11, "reason": "r", "confidence": 0.6, "plausible_steps": [9]})
        return "1. Yes.\n2. Reason: r" if "(#12)" in prompt else "1. No.\n2. Reason: r"

    with ScriptedLLM(answer) as llm:
        assert judge(tmp_path, llm, "all-at-once", "--context-tokens", "2000") == 0
        assert llm.requests == []
        assert "refused: long: the run needs about" in capsys.readouterr().err
        assert [e["status"] for e in lines(tmp_path / "judgments.runs.jsonl")] == ["refused"]

        assert judge(tmp_path, llm, "structured", "--context-tokens", "2000", "--overlap", "2",
                     out="structured.jsonl") == 0
        parts = [p for p in seen if "JSON" in p]
        assert len(parts) == 2
        first_part = re.search(r"steps #1 to #(\d+) of #12", parts[0])
        second_part = re.search(r"steps #(\d+) to #12 of #12", parts[1])
        assert first_part and second_part
        assert int(second_part.group(1)) == int(first_part.group(1)) - 1     # two steps shared
        value = lines(tmp_path / "structured.jsonl")[0]["value"]
        assert value == {"responsible_agent": "A", "decisive_step": 10, "reason": "r",
                         "plausible_steps": [{"step": 8}]}

        seen.clear()
        assert judge(tmp_path, llm, "step-by-step", "--context-tokens", "2000", out="steps.jsonl") == 0
        assert len(seen) == 12
        assert "#1 A: number 1" in seen[5] and "left out" not in seen[5]
        assert "left out" in seen[11] and "#1 A: number 1" not in seen[11] and "#12 B: number 12" in seen[11]
        judged = lines(tmp_path / "steps.jsonl")[0]
        assert judged["value"]["decisive_step"] == 11 and "window" in judged["run"]["context"]


# --------------------------------------------------------------------------- into a task


def test_into_a_task_the_judgments_show_after_the_annotator_answered(tmp_path):
    task = tmp_path / "task"
    (task / "data").mkdir(parents=True)
    (task / "data" / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUNS), encoding="utf-8")
    (task / "config.yaml").write_text(
        "annotation_task_name: judged\n"
        "data_files: [data/runs.jsonl]\n"
        "item_properties: {id_key: id, text_key: question}\n"
        "plugins: [multiagent]\n"
        "annotation_schemes:\n"
        "  # the attribution\n"
        "  - annotation_type: multiagent.failure_attribution\n"
        "    name: attribution\n"
        "    description: Who and when?\n", encoding="utf-8")
    with ScriptedLLM(all_at_once_answer) as llm:
        args = ["judge", "--config", str(task / "config.yaml"), "--method", "all-at-once", "-o",
                str(tmp_path / "j.jsonl"), "--endpoint-type", "openai", "--model", "m", "--base-url", llm.base_url,
                "--into-task", "--source", "judge"]
        assert main(args) == 0
        assert main(args) == 0        # again: nothing asked, nothing shown twice, the config line not repeated
        assert len(llm.requests) == 3
    config = (task / "config.yaml").read_text(encoding="utf-8")
    assert "  # the attribution\n" in config
    assert config.count("show_judgments: after_answer") == 1
    assert yaml.safe_load(config)["annotation_schemes"][0]["show_judgments"] == "after_answer"
    records = [json.loads(line) for line in (task / "data" / "runs.jsonl").read_text().splitlines()]
    assert records[0]["judgments"] == {"attribution": [{"source": "judge", "value": {
        "responsible_agent": "Coder", "decisive_step": 1, "reason": "It multiplied 6 by 8."}}]}
    assert "run" not in json.dumps(records[0]["judgments"])


def test_trace_files_converted_on_the_fly_and_init_shows_a_judge_after_the_answer(tmp_path):
    """`judge --from who-and-when` reads Who&When's own files; `init --judgments` with its output sets
    after_answer on the judged scheme (a hand-written judgments file keeps the default)."""
    folder = tmp_path / "Algorithm-Generated"
    folder.mkdir()
    (folder / "1.json").write_text(json.dumps({
        "question": "What is 6 times 7?", "ground_truth": "42",
        "history": [{"content": "Multiply.", "role": "assistant", "name": "Planner"},
                    {"content": "print(6 * 8)", "role": "assistant", "name": "Coder"}],
        "mistake_agent": "Coder", "mistake_step": "1", "mistake_reason": "6 * 8"}), encoding="utf-8")
    with ScriptedLLM(lambda p, r: "Agent Name: Coder\nStep Number: 2\nReason for Mistake: 6 * 8") as llm:
        assert main(["judge", str(folder), "--from", "who-and-when", "--method", "all-at-once", "-o",
                     str(tmp_path / "j.jsonl"), "--endpoint-type", "openai", "--model", "m",
                     "--base-url", llm.base_url]) == 0
        assert "The problem is:  What is 6 times 7?" in llm.prompts()[0]
        assert "#2 Coder: print(6 * 8)" in llm.prompts()[0]
    assert lines(tmp_path / "j.jsonl")[0]["id"] == "Algorithm-Generated-1"
    assert main(["init", "--from", "who-and-when", str(folder), "-o", str(tmp_path / "task"),
                 "--judgments", str(tmp_path / "j.jsonl")]) == 0
    schemes = yaml.safe_load((tmp_path / "task" / "config.yaml").read_text())["annotation_schemes"]
    assert next(s for s in schemes if s["name"] == "attribution")["show_judgments"] == "after_answer"

    hand = tmp_path / "hand.jsonl"
    hand.write_text(json.dumps({key: value for key, value in lines(tmp_path / "j.jsonl")[0].items() if key != "run"})
                    + "\n", encoding="utf-8")
    assert main(["init", "--from", "who-and-when", str(folder), "-o", str(tmp_path / "task2"),
                 "--judgments", str(hand)]) == 0
    schemes = yaml.safe_load((tmp_path / "task2" / "config.yaml").read_text())["annotation_schemes"]
    assert "show_judgments" not in next(s for s in schemes if s["name"] == "attribution")


def test_a_batch_stops_when_the_endpoint_fails_three_runs_in_a_row(tmp_path, capsys):
    runs = [{**RUNS[0], "id": f"run-{n}"} for n in range(1, 6)]
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    with ScriptedLLM(lambda p, r: Status(400)) as llm:
        assert judge(tmp_path, llm, "all-at-once") == 1
    out = capsys.readouterr()
    assert "judged 0, unparseable 0, refused 0, failed 3, 2 not tried" in out.out
    assert "stopped after 3 runs in a row failed at the endpoint; 2 run(s) not tried" in out.err
    assert [e["status"] for e in lines(tmp_path / "judgments.runs.jsonl")] == ["failed"] * 3


def test_a_surprise_in_one_run_is_recorded_and_the_batch_goes_on(folder, monkeypatch):
    from potato_multiagent.judge import methods

    real = methods.METHODS["all-at-once"]

    def breaks_on_run_2(run, settings, ledger):
        if run.id == "run-2":
            raise KeyError("boom")
        return real(run, settings, ledger)

    monkeypatch.setitem(methods.METHODS, "all-at-once", breaks_on_run_2)
    with ScriptedLLM(all_at_once_answer) as llm:
        assert judge(folder, llm, "all-at-once") == 1
    assert [j["id"] for j in lines(folder / "judgments.jsonl")] == ["run-1", "run-3"]
    failed = [e for e in lines(folder / "judgments.runs.jsonl") if e["status"] == "failed"]
    assert [(e["id"], e["problem"]) for e in failed] == [("run-2", "unexpected KeyError: 'boom'")]
