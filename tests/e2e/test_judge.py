"""`potato-multiagent judge --into-task` in a real Potato page: the judge's answer stays hidden until
the annotator has answered, can then be accepted; the annotator's uncertainty flag and ranked
plausible steps are saved and exported.

The judge asks a scripted OpenAI-compatible server on 127.0.0.1 through Potato's `openai` endpoint.
"""

from __future__ import annotations

import json
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent.cli import main
from tests.scripted_llm import ScriptedLLM

from .harness import choose_decisive_step, login, wait_saved_json

RECORD = {"id": "judged-run", "question": "Book the cheapest train to Oslo on 14 March.",
          "steps": [{"agent": "Planner", "content": "Find trains on 14 March, then book the cheapest."},
                    {"agent": "Searcher", "content": "Found: 08:10 (49 EUR), 12:40 (39 EUR)."},
                    {"agent": "Booker", "content": "Booked the 12:40 train on 15 March."},
                    {"agent": "Verifier", "content": "Booking confirmed. TERMINATE"}]}
ANSWER = {"agent": "Booker", "step": 3, "reason": "It booked 15 March.", "suggested_fix": "Book 14 March.",
          "confidence": 0.9, "plausible_steps": [2]}


@pytest.fixture(scope="module")
def judged_task(potato_task, tmp_path_factory):
    source = tmp_path_factory.mktemp("judge-into-task")
    (source / "data").mkdir()
    other = {**RECORD, "id": "other-run"}      # a second item, so the answered first one is not the task's end
    (source / "data" / "runs.jsonl").write_text(json.dumps(RECORD) + "\n" + json.dumps(other) + "\n", encoding="utf-8")
    config = {"annotation_task_name": f"e2e judge into task {uuid.uuid4().hex[:8]}", "task_dir": ".",
              "data_files": ["data/runs.jsonl"], "item_properties": {"id_key": "id", "text_key": "question"},
              "output_annotation_dir": "annotation_output", "plugins": ["multiagent"], "require_password": False,
              "annotation_schemes": [{"annotation_type": "multiagent.failure_attribution", "name": "attribution",
                                      "description": "Which agent caused the failure, and at which step?",
                                      "label_requirement": {"required": False}}]}
    (source / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    with ScriptedLLM(lambda prompt, request: json.dumps(ANSWER)) as llm:
        assert main(["judge", "--config", str(source / "config.yaml"), "--method", "structured", "-o",
                     str(source / "judgments.jsonl"), "--endpoint-type", "openai", "--model", "scripted",
                     "--base-url", llm.base_url, "--source", "judge", "--into-task"]) == 0
    assert yaml.safe_load((source / "config.yaml").read_text())["annotation_schemes"][0]["show_judgments"] \
        == "after_answer"
    return potato_task(source)


def test_the_judge_is_hidden_until_answered_then_accepted_with_certainty_and_plausible_steps(judged_task, page,
                                                                                              tmp_path, capsys):
    user = f"judged-{uuid.uuid4().hex[:8]}"
    login(page, judged_task.base_url, user)
    form = page.locator('form.annotation-form[data-schema-name="attribution"]')
    expect(form).to_have_attribute("data-ma-ready", "true")
    judgment = form.locator(".ma-fa-judgment")
    expect(judgment).to_have_count(0)

    # The annotator answers on their own first: only the agent is not enough.
    form.get_by_label("Responsible agent").select_option(label="Searcher")
    expect(judgment).to_have_count(0)
    choose_decisive_step(form, 2)
    expect(form.locator(".ma-fa-judgment-words")).to_have_text(["judge: Booker, #3 \u2014 'It booked 15 March.'"])

    form.get_by_role("button", name="Accept judge\u2019s answer").click()
    expect(form.get_by_role("button", name="Accepted judge\u2019s answer")).to_have_attribute("aria-disabled", "true")

    # Uncertain, and two more plausible steps: #2 then #1, reordered to #1 first.
    form.get_by_role("radio", name="Uncertain").check()
    plausible = form.get_by_role("combobox", name="Other plausible steps")
    for number in (2, 1):
        plausible.fill(f"#{number}")
        expect(form.get_by_role("listbox", name="Steps to add").get_by_role("option").first) \
            .to_have_text(f"#{number} \u00B7 " + ("Searcher" if number == 2 else "Planner") + " \u00B7 "
                          + RECORD["steps"][number - 1]["content"])
        plausible.press("Enter")
    items = form.locator(".ma-fa-plausible-item")
    expect(items).to_have_count(2)
    expect(items.locator(".ma-fa-plausible-words")).to_have_text([
        "#2 \u00B7 Searcher \u00B7 Found: 08:10 (49 EUR), 12:40 (39 EUR).",
        "#1 \u00B7 Planner \u00B7 Find trains on 14 March, then book the cheapest."])
    form.get_by_role("button", name="Up #1").click()
    expect(items.locator(".ma-fa-plausible-words")).to_have_text([
        "#1 \u00B7 Planner \u00B7 Find trains on 14 March, then book the cheapest.",
        "#2 \u00B7 Searcher \u00B7 Found: 08:10 (49 EUR), 12:40 (39 EUR)."])
    expected = {"responsible_agent": "Booker", "decisive_step": 2, "reason": ANSWER["reason"], "certainty": "uncertain",
                "plausible_steps": [{"step": 0}, {"step": 1}], "from_judgment": "judge"}
    wait_saved_json(judged_task, user, RECORD["id"], "attribution", expected)
    expect(form.locator("p.ma-summary")).to_contain_text(
        "Also plausible: #1, #2. Uncertain.")

    # Reloaded, the page shows what was saved.
    page.reload()
    expect(form).to_have_attribute("data-ma-ready", "true")
    expect(form.get_by_role("radio", name="Uncertain")).to_be_checked()
    expect(form.locator(".ma-fa-plausible-words")).to_have_count(2)

    # Exported: the flag and the ranked steps, with their #N.
    config = str(judged_task.task_dir / "config.yaml")
    assert main(["export", config, "--format", "jsonl", "--out", str(tmp_path / "out")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "out" / "attribution.jsonl").read_text().splitlines()]
    mine = [row for row in rows if row["user"] == user]
    assert [(r["responsible_agent"], r["decisive_step_number"], r["certainty"], r["plausible_steps"],
             r["plausible_steps_number"]) for r in mine] == [("Booker", 3, "uncertain", [0, 1], [1, 2])]
