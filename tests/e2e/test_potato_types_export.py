"""Potato's own types beside ours, as the real server saves them, come out of export and load_task.

On the team-evaluation example an annotator answers the outcome radio and the orchestration radio
(a label and its "Other" text), tags one step for MAST with
Potato's trajectory_eval (added to the example's config for this test) (incorrect, a severity, a failure mode, a rationale) in Chromium; then
`potato-multiagent export` and `load_task(...).annotations(...)` must read what Potato wrote to
`user_state.json`, with the step's `#N` and the agent our derivation names.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid

import yaml

from potato_multiagent import derive, load_task

from .harness import EXAMPLES_DIR, current_instance_id, login, wait_saved

MAST = "mast_traj"
SUBTYPE = "FM-2.3 Task derailment"
MAST_TRAJECTORY_EVAL = {
    # The MAST tagging team-evaluation had before the trace view's inline tags: Potato's
    # trajectory_eval, still a supported way and exported beside ours.
    "annotation_type": "trajectory_eval", "name": MAST, "description": "MAST step tagging",
    "steps_key": "steps", "step_text_key": "content",
    "error_types": [{"name": "Inter-Agent Misalignment", "subtypes": ["FM-2.2 Fail to ask for clarification", SUBTYPE]}]}


def with_trajectory_eval(name: str) -> str:
    """team-evaluation's config with MAST tagging through Potato's trajectory_eval as well."""
    config = yaml.safe_load((EXAMPLES_DIR / "team-evaluation" / "config.yaml").read_text(encoding="utf-8"))
    config["annotation_task_name"] = name
    config["annotation_schemes"].append(MAST_TRAJECTORY_EVAL)
    return yaml.safe_dump(config, sort_keys=False)


def mast_card(page, index: int):
    return page.locator(f'form[data-schema-name="{MAST}"] .traj-step-card[data-step-index="{index}"]')


def wait_free_response_saved(task, user: str, instance: str, schema: str, timeout: float = 10.0) -> None:
    """The "Other" text is its own label (`free_response`) of the radio's scheme: wait for it."""
    deadline = time.monotonic() + timeout
    while "free_response" not in task.saved_labels(user).get(instance, {}).get(schema, {}):
        assert time.monotonic() < deadline, task.saved_labels(user)
        time.sleep(0.2)


def test_outcome_and_mast_step_tags_saved_by_potato_are_exported_beside_ours(potato_task, page, tmp_path):
    task = potato_task("team-evaluation", files={"config.yaml": with_trajectory_eval(f"mast export {uuid.uuid4().hex[:6]}")})
    user = f"mast-{uuid.uuid4().hex[:8]}"
    login(page, task.base_url, user)
    instance = current_instance_id(page)

    page.locator('form[data-schema-name="outcome"] input[type="radio"][value="failure"]').check()
    pattern = page.locator('form[data-schema-name="orchestration_pattern"]')
    pattern.locator('input[type="radio"][value="hub_and_spoke"]').check()
    pattern.locator('input[label_name="free_response"]').fill("hub with a critic")
    pattern.locator('input[label_name="free_response"]').press("Tab")
    card = mast_card(page, 2)
    card.locator('.traj-correctness-btn[data-value="incorrect"]').click()
    card.locator(".traj-error-type").select_option(f"Inter-Agent Misalignment::{SUBTYPE}")
    card.locator('input.traj-severity-radio[value="major"]').check()
    card.locator(".traj-rationale").fill("asked for the range, wrote about price")
    mast_card(page, 0).locator('.traj-correctness-btn[data-value="correct"]').click()

    wait_saved(task, user, instance, "outcome", lambda value: value is not None)
    wait_free_response_saved(task, user, instance, "orchestration_pattern")
    wait_saved(task, user, instance, MAST,
               lambda value: value is not None and "asked for the range, wrote about price" in value
               and '"correct"' in value)

    loaded = load_task(task.task_dir / "config.yaml")
    outcome = loaded.annotations("outcome")
    assert outcome[["instance_id", "user", "label"]].values.tolist() == [[instance, user, "failure"]]
    pattern_rows = loaded.annotations("orchestration_pattern")
    assert pattern_rows[["label", "free_response"]].values.tolist() == [["hub_and_spoke", "hub with a critic"]]
    mast = loaded.annotations(MAST)
    record = loaded.records()[instance]
    agents = [step.agent for step in derive(record).steps]
    assert [(row["step"], row["step_number"], row["step_agent"], row["correctness"]) for row in mast.to_dict("records")] \
        == [(0, 1, agents[0], "correct"), (2, 3, agents[2], "incorrect")]
    tagged = mast.iloc[1]
    assert (tagged["severity"], tagged["error_type"], tagged["error_subtype"], tagged["rationale"]) == (
        "major", "Inter-Agent Misalignment", SUBTYPE, "asked for the range, wrote about price")

    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "potato_multiagent.cli", "export",
                             str(task.task_dir / "config.yaml"), "--format", "jsonl", "--out", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (out / f"{MAST}.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(row["user"], row["step_number"], row["error_subtype"]) for row in rows] == [
        (user, 1, None), (user, 3, SUBTYPE)]
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["invalid"] == []


def with_multiselects(name: str) -> str:
    """team-evaluation's config with a multiselect and a turn-level multiselect on the trace display."""
    config = yaml.safe_load((EXAMPLES_DIR / "team-evaluation" / "config.yaml").read_text(encoding="utf-8"))
    config["annotation_task_name"] = name
    config["annotation_schemes"] += [
        {"annotation_type": "multiselect", "name": "modes", "description": "Which failure modes?",
         "labels": ["derailment", "withholding", "reset"]},
        {"annotation_type": "multiselect", "name": "turn_errors", "description": "Errors in this turn",
         "labels": ["hallucination", "wrong_tool"], "turn_level": True, "turn_binding": {"field": "steps"}}]
    return yaml.safe_dump(config, sort_keys=False)


def test_multiselect_and_turn_level_answers_saved_by_potato_are_exported(potato_task, page):
    task = potato_task("team-evaluation", files={"config.yaml": with_multiselects(f"multiselect export {uuid.uuid4().hex[:6]}")})
    user = f"multi-{uuid.uuid4().hex[:8]}"
    login(page, task.base_url, user)
    instance = current_instance_id(page)
    modes = page.locator('form[data-schema-name="modes"]')
    modes.locator('input[type="checkbox"][value="derailment"]').check()
    modes.locator('input[type="checkbox"][value="reset"]').check()
    slot = page.locator('.turn-anno-slot[data-turn-id="t2"]')
    slot.locator('.ma-trace-tags-toggle').click()   # a step's chips are folded until it is current or unfolded
    slot.locator('.ta-chip[data-ta-schema="turn_errors"][data-value="wrong_tool"]').click()

    wait_saved(task, user, instance, "turn_errors", lambda value: value is not None and "wrong_tool" in value)
    deadline = time.monotonic() + 10
    while set(task.saved_labels(user).get(instance, {}).get("modes", {})) != {"derailment", "reset"}:
        assert time.monotonic() < deadline, task.saved_labels(user)
        time.sleep(0.2)

    loaded = load_task(task.task_dir / "config.yaml")
    assert loaded.annotations("modes")[["user", "labels"]].values.tolist() == [[user, ["derailment", "reset"]]]
    turns = loaded.annotations("turn_errors")  # bound to the trace view: one row per (step, mode)
    assert [(row["user"], row["turn"], row["step"], row["mode"]) for row in turns.to_dict("records")] == [
        (user, "t2", 2, "wrong_tool")]
    assert loaded.invalid().empty
