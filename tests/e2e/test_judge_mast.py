"""`potato-multiagent judge --method mast` as a user runs it: over a task with a scripted
OpenAI-compatible server on 127.0.0.1 (Potato's `openai` endpoint, `base_url`), the judgments put
into the task (`--into-task`), `potato start`, and in Chromium the judge's tag on its step, hidden
until the annotator has tagged something, then accepted and saved; `agreement --judgments --gold`
gives the figures computed here by hand.
"""

from __future__ import annotations

import json
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent.cli import main
from potato_multiagent.taxonomy import preset
from tests.scripted_llm import ScriptedLLM

from .harness import current_instance_id, login, wait_saved_json
from .test_mast import RUNS, cli, kappa, step   # the same two runs as the MAST test, and its helpers

TAXONOMY = preset("mast")
TID = TAXONOMY.id
# The judge: on trip-1, 1.3 on #3 and 3.2 for the whole run; on trip-2, nothing.
ANSWERS = {"Berlin": {"present": [{"mode": "3.2", "note": "nobody checks the price"}],
                      "steps": [{"step": 3, "mode": "1.3", "note": "the same search twice", "severity": "major"}]},
           "hotel": {"present": [], "steps": []}}


def no_mode_but(*codes: str) -> dict:
    return {code: int(code in codes) for code in TAXONOMY.codes}


# MAD-style labels, as `convert --from mast` writes them to gold (a yes or no per mode for the run).
GOLD = [{"id": "trip-1", "gold": {"mast": {"marked": ["1.3", "2.4"], "annotation": no_mode_but("1.3", "2.4")}}},
        {"id": "trip-2", "gold": {"mast": {"marked": [], "annotation": no_mode_but()}}}]


@pytest.fixture(scope="module")
def judged_task(potato_task, tmp_path_factory):
    source = tmp_path_factory.mktemp("judge-mast")
    (source / "data").mkdir()
    (source / "data" / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUNS), encoding="utf-8")
    (source / "gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in GOLD), encoding="utf-8")
    config = {"annotation_task_name": f"e2e judge mast {uuid.uuid4().hex[:8]}", "task_dir": ".",
              "data_files": ["data/runs.jsonl"], "item_properties": {"id_key": "id", "text_key": "task"},
              "output_annotation_dir": "annotation_output", "plugins": ["multiagent"], "require_password": False,
              "instance_display": {"fields": [{"key": "task", "type": "text", "label": "Task"},
                                              {"key": "steps", "type": "multiagent.trace", "label": "Run",
                                               "layout": "lanes", "display_options": {"resizable": False}}]},
              "annotation_schemes": [{"annotation_type": "multiagent.mast", "name": "mast",
                                      "description": "MAST failure modes"}]}
    (source / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")

    def answer(prompt, request):
        return json.dumps(next(said for key, said in ANSWERS.items() if key in prompt))

    with ScriptedLLM(answer) as llm:
        assert main(["judge", "--config", str(source / "config.yaml"), "--method", "mast", "-o",
                     str(source / "judgments.jsonl"), "--endpoint-type", "openai", "--model", "scripted",
                     "--base-url", llm.base_url, "--source", "gpt-judge", "--into-task"]) == 0
        assert len(llm.requests) == 2
    assert yaml.safe_load((source / "config.yaml").read_text())["annotation_schemes"][0]["show_judgments"] \
        == "after_answer"
    return potato_task(source)


def test_the_judges_tag_shows_on_its_step_after_the_answer_is_accepted_and_scored(judged_task, page):
    page.set_viewport_size({"width": 1400, "height": 900})
    user = f"mast-judged-{uuid.uuid4().hex[:6]}"
    login(page, judged_task.base_url, user)
    assert current_instance_id(page) == "trip-1"
    form = page.locator('form.annotation-form[data-schema-name="mast"]')
    expect(form).to_have_attribute("data-ma-ready", "true")
    judged = step(page, 2).locator(".ma-mode-judgment")
    expect(judged).to_have_count(0)                       # hidden until the annotator has tagged something

    # the annotator's own tag first: 2.4 on #4, with its chip
    fourth = step(page, 3)
    fourth.locator(".ma-trace-modes .ma-trace-tags-toggle").click()
    chip = fourth.get_by_role("button", name="2.4 Information withholding", exact=True)
    chip.click()
    expect(chip).to_have_attribute("aria-pressed", "true")

    # now the judge's tag shows on #3 (and on no other step), and is accepted there
    expect(judged).to_have_text("judge gpt-judge: 1.3 Step repetition (major) \u2014 "
                                "\u2018the same search twice\u2019 Accept")
    expect(page.locator("section.ma-trace .ma-mode-judgment")).to_have_count(1)
    step(page, 2).get_by_role("button", name="Accept gpt-judge\u2019s tag 1.3 Step repetition on #3").click()
    expect(step(page, 2).locator(".ma-mode-accept")).to_have_attribute("aria-disabled", "true")
    saved = {"taxonomy": TID, "steps": [
        {"step": 2, "mode": "1.3", "note": "the same search twice", "severity": "major", "from_judgment": "gpt-judge"},
        {"step": 3, "mode": "2.4", "note": "", "severity": None}], "run": []}
    wait_saved_json(judged_task, user, "trip-1", "mast", saved)

    # the judge against the annotator, and against MAD-style gold
    config = judged_task.task_dir / "config.yaml"
    made = cli("agreement", config, "--judgments", judged_task.task_dir / "judgments.jsonl", "--gold",
               judged_task.task_dir / "gold.jsonl", "--json")
    assert made.returncode == 0, made.stderr
    rows = [r for r in json.loads(made.stdout)["judgments"] if r["source"] == "gpt-judge"]
    by = lambda measure, who: next(r for r in rows if (r["measure"], r["annotator"]) == (measure, who))  # noqa: E731
    # trip-1 only (the annotator saved nothing on trip-2): 5 steps x 14 modes = 70 step units, the judge
    # 1 yes (1.3 #3), the annotator 2 (1.3 #3, 2.4 #4): 69 agree
    step_kappa = by("step level, all modes: Cohen's kappa", user)
    assert (step_kappa["value"], step_kappa["items"]) == (pytest.approx(kappa(69, 70, 1, 2)), 70)
    # 14 (run, mode) units: the judge {1.3, 3.2}, the annotator {1.3, 2.4}: 12 agree
    assert by("trace level, all modes: Cohen's kappa", user)["value"] == pytest.approx(kappa(12, 14, 2, 2))
    assert by("step level, 1.3 Step repetition: Cohen's kappa", user)["value"] == pytest.approx(1)
    # the one value on the items it judged took its answer
    assert by("accepted by annotators", None)["value"] == pytest.approx(1)
    # vs gold, both runs: 28 (run, mode) pairs; the judge says 1.3 and 3.2 on trip-1, gold 1.3 and 2.4;
    # trip-2 is empty on both sides: 26 right, precision 1 of 2, recall 1 of 2
    assert by("trace level vs gold, all modes: accuracy", None)["value"] == pytest.approx(26 / 28)
    assert by("trace level vs gold, all modes: precision", None)["value"] == pytest.approx(1 / 2)
    assert by("trace level vs gold, all modes: recall", None)["value"] == pytest.approx(1 / 2)
    assert by("trace level vs gold, 3.2 No or incomplete verification: precision", None)["value"] == 0
