"""examples/judgments: the committed judgments file is valid for examples/failure-attribution, and
its baseline lines are what make_judgments.py writes; an LLM judge's #N reply becomes a 0-based step."""

import importlib.util
import json
from pathlib import Path

from potato_multiagent.judgments import attach_judgments, check_judgments, our_schemes, read_judgments
from potato_multiagent.task import Task

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "judgments"
TASK = ROOT / "examples" / "failure-attribution" / "config.yaml"


def make_judgments():
    spec = importlib.util.spec_from_file_location("make_judgments", EXAMPLE / "make_judgments.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_judgments_are_valid_for_the_failure_attribution_example():
    task = Task(TASK)
    judgments = read_judgments(EXAMPLE / "judgments.jsonl")
    assert check_judgments(judgments, our_schemes(task.config), task.records()) == []
    records = list(task.records().values())
    attached = attach_judgments(records, EXAMPLE / "judgments.jsonl", our_schemes(task.config))
    assert (attached.shown, attached.evaluation_only) == (3, 3)
    carried = {r["id"]: r["judgments"] for r in attached.records if "judgments" in r}
    assert carried["trip-planner-001"]["attribution"][0]["value"]["responsible_agent"] == "Booker"
    assert "last speaker" not in json.dumps(attached.records)


def test_the_baseline_lines_are_what_make_judgments_writes(capsys):
    module = make_judgments()
    records = [r for r in Task(TASK).records().values()
               if r["id"] in ("trip-planner-001", "ag2-spreadsheet-004", "m1-museum-hours-005")]
    written = module.judgment_lines(records, module.last_speaker, "last speaker", show=False)
    committed = [json.loads(line) for line in (EXAMPLE / "judgments.jsonl").read_text().splitlines()]
    assert sorted(map(json.dumps, written)) == sorted(json.dumps(c) for c in committed if c.get("show") is False)


def test_an_llm_reply_in_step_numbers_becomes_the_stored_shape_and_a_bad_one_is_left_out():
    module = make_judgments()
    record = Task(TASK).records()["trip-planner-001"]
    asked = []

    def reply(text):
        asked.append(text)
        return '{"agent": "Booker", "step": 4, "reason": "wrong date"}'

    assert module.llm_judge(record, reply) == {"responsible_agent": "Booker", "decisive_step": 3,
                                               "reason": "wrong date"}
    assert "#4 Booker: Booked flight LIS-OSL" in asked[0]
    problems = []
    lines = module.judgment_lines([record], lambda r: module.llm_judge(r, lambda t: '{"agent": "Pilot", "step": 9}'),
                                  "llm", problems=problems)
    assert lines == [] and problems[0].startswith("trip-planner-001: responsible_agent: 'Pilot' is not in this trace")
