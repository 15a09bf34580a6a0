"""`potato-multiagent check` on a task that a real Potato 2.12.1 server and a real browser wrote.

Unit tests of `check` build `user_state.json` by hand; this module makes Potato write it: an
annotator marks a run failed and attributes it in the widget, Potato autosaves, and the
`potato-multiagent check` console script reads the task folder the server is serving.

`check` reports on every user of a task, so the scenarios share one server and run, in order, in
one test function: the report of each step is then exactly what the module's own users saved.

1. A valid attribution: exit 0, `0 problem(s), 0 warning(s)`.
2. An attribution hidden by `display_logic` (marked failed, attributed, then marked successful):
   Potato keeps the value, `check` warns about it and still exits 0. This exercises `task.py`'s
   display-logic evaluation on the radio shape Potato really writes.
3. The server stopped (nothing can re-save the file any more), the first value corrupted by hand:
   a step the record does not have, then a truncated JSON string: exit 1 and one line each.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive

from .harness import (
    EXAMPLES_DIR, choose_decisive_step, current_instance_id, login, same_value, user_state_path, wait_saved,
    wait_saved_json
)

EXAMPLE = "failure-attribution"
SCHEMA = "attribution"
OUTCOME = "outcome"
CHECK_TIMEOUT_S = 120


# --------------------------------------------------------------------------- the task under test


def load_config() -> dict:
    return yaml.safe_load((EXAMPLES_DIR / EXAMPLE / "config.yaml").read_text(encoding="utf-8"))


def attribution_config() -> dict:
    return next(scheme for scheme in load_config()["annotation_schemes"] if scheme["name"] == SCHEMA)


def first_record() -> dict:
    """Run 1: the first record of the config's first data file (Potato serves them in order)."""
    data_file = load_config()["data_files"][0]
    lines = (EXAMPLES_DIR / EXAMPLE / data_file).read_text(encoding="utf-8").splitlines()
    return json.loads(next(line for line in lines if line.strip()))


RUN_1 = first_record()
SCHEME = attribution_config()
DERIVATION = derive(RUN_1, steps_key=SCHEME["steps_key"], agent_key=SCHEME["agent_key"],
                    agents=SCHEME.get("agents")).to_dict()
STEP_COUNT = len(DERIVATION["steps"])

# Booker booked 15 March instead of 14 March: step #4 (index 3).
BLAME_AGENT = "Booker"
BLAME_STEP = 3


@pytest.fixture(scope="module")
def task(potato_task):
    return potato_task(EXAMPLE)


def test_the_attribution_chosen_below_is_one_of_run_1():
    """Guards the constants against edits of the example's data."""
    assert RUN_1["id"] == "trip-planner-001"
    assert BLAME_AGENT in DERIVATION["agents"]
    assert DERIVATION["steps"][BLAME_STEP]["agent"] == BLAME_AGENT
    assert STEP_COUNT == 5


# --------------------------------------------------------------------------- running check


def check_command() -> list[str]:
    """The installed console script next to the interpreter running the tests, else the module."""
    script = Path(sys.executable).with_name("potato-multiagent")
    return [str(script)] if script.exists() else [sys.executable, "-m", "potato_multiagent.cli"]


def run_check(task) -> tuple[int, list[str]]:
    """`potato-multiagent check <task_dir>/config.yaml`, from an unrelated working directory (the
    config path alone must locate data and output): (exit code, stdout lines)."""
    result = subprocess.run([*check_command(), "check", str(task.task_dir / "config.yaml")],
                            cwd=task.task_dir.parent, capture_output=True, text=True,
                            timeout=CHECK_TIMEOUT_S)
    lines = result.stdout.splitlines()
    assert lines, f"check printed nothing (exit {result.returncode}); stderr:\n{result.stderr}"
    return result.returncode, lines


def report(code: int, lines: list[str]) -> str:
    return f"exit {code}, report:\n" + "\n".join(lines)


def state_of(task, user: str) -> str:
    """The raw user_state.json, for failure messages."""
    path = user_state_path(task.task_dir, user)
    return path.read_text(encoding="utf-8") if path.exists() else f"({path} does not exist)"


# --------------------------------------------------------------------------- the page


def attribution_form(page):
    return page.locator(f'form.annotation-form[data-schema-name="{SCHEMA}"]')


def choose_outcome(page, outcome: str) -> None:
    page.locator(f'form[data-schema-name="{OUTCOME}"] input[type="radio"][value="{outcome}"]').check()


def attribute_failure(page, agent: str, step: int, reason: str) -> dict:
    """Mark the run failed, choose agent, step and reason in the widget; return the value it stores."""
    choose_outcome(page, "failure")
    form = attribution_form(page)
    expect(form).to_be_visible()
    expect(form).to_have_attribute("data-ma-ready", "true")
    form.get_by_label("Responsible agent").select_option(label=agent)
    choose_decisive_step(form, step + 1)
    form.get_by_label("Reason").fill(reason)
    form.get_by_label("Reason").blur()  # the widget stores typed text on blur at the latest
    return {"responsible_agent": agent, "decisive_step": step, "reason": reason}


def open_as_new_user(new_context, task, prefix: str):
    """A fresh annotator in a browser context of its own, on run 1: (user, page)."""
    user = f"{prefix}-{uuid.uuid4().hex[:10]}"
    page = new_context().new_page()
    login(page, task.base_url, user)
    assert current_instance_id(page) == RUN_1["id"]
    return user, page


def wait_saved_outcome(task, user: str, instance_id: str, outcome: str, timeout: float = 10.0) -> dict:
    """Wait until the only radio option Potato stored as chosen for `outcome` is `outcome`
    (a chosen radio label is stored with its own name as value); return the schema's labels."""
    labels: dict = {}

    def chosen() -> set:
        nonlocal labels
        labels = task.saved_labels(user).get(instance_id, {}).get(OUTCOME, {})
        return {label for label, value in labels.items() if value == label}

    wait_saved(task, user, instance_id, OUTCOME, lambda _value: chosen() == {outcome}, timeout)
    return labels


def set_saved_value(task, user: str, instance_id: str, schema: str, value: str) -> None:
    """Replace one stored value string in `user_state.json` (the server must be stopped)."""
    path = user_state_path(task.task_dir, user)
    state = json.loads(path.read_text(encoding="utf-8"))
    pairs = state["instance_id_to_label_to_value"][instance_id]
    matches = [pair for pair in pairs if pair[0].get("schema") == schema]
    assert len(matches) == 1, f"expected one stored {schema!r} on {instance_id!r}, got {matches}"
    matches[0][1] = value
    path.write_text(json.dumps(state), encoding="utf-8")


# --------------------------------------------------------------------------- the scenarios


@pytest.mark.e2e
def test_check_reports_what_potato_saved(task, new_context):
    instance = RUN_1["id"]

    # -- 1. a valid attribution, saved by Potato: no problem, no warning ------------------------
    valid_user, page = open_as_new_user(new_context, task, "check-ok")
    chosen = attribute_failure(page, BLAME_AGENT, BLAME_STEP, "Booked 15 March; the task said 14 March.")
    wait_saved_json(task, valid_user, instance, SCHEMA, chosen)
    wait_saved_outcome(task, valid_user, instance, "failure")
    page.close()  # both answers are on disk; with the page gone nothing re-saves this user's answers

    code, lines = run_check(task)
    assert code == 0 and lines == ["0 problem(s), 0 warning(s)"], report(code, lines)

    # -- 2. another user attributes, then marks the run successful: kept, and a warning -------
    hidden_user, page = open_as_new_user(new_context, task, "check-hidden")
    hidden_value = attribute_failure(page, "Verifier", 4, "It confirmed the wrong date.")
    wait_saved_json(task, hidden_user, instance, SCHEMA, hidden_value)
    choose_outcome(page, "success")
    expect(attribution_form(page)).to_be_hidden()
    wait_saved_outcome(task, hidden_user, instance, "success")
    page.close()
    assert same_value(json.loads(task.saved(hidden_user)[instance][SCHEMA]), hidden_value), (
        f"Potato did not keep the hidden attribution:\n{state_of(task, hidden_user)}")

    code, lines = run_check(task)
    warning = f"{instance} / {hidden_user} / {SCHEMA}: warning: saved while display_logic hides this scheme; "
    assert code == 0, report(code, lines)
    assert [line for line in lines if line.startswith(warning)] and lines[-1] == "0 problem(s), 1 warning(s)", (
        f"{report(code, lines)}\n--- {hidden_user}'s user_state.json ---\n{state_of(task, hidden_user)}")
    assert len(lines) == 2, report(code, lines)

    # -- 3. the first value corrupted by hand, with the server stopped -------------------------
    task.stop()
    where = f"{instance} / {valid_user} / {SCHEMA}"

    set_saved_value(task, valid_user, instance, SCHEMA, json.dumps({**chosen, "decisive_step": STEP_COUNT}))
    code, lines = run_check(task)
    assert code == 1, report(code, lines)
    assert f"{where}: decisive_step: '{STEP_COUNT}' is not in this trace" in lines, report(code, lines)
    assert lines[-1] == "1 problem(s), 1 warning(s)", report(code, lines)

    set_saved_value(task, valid_user, instance, SCHEMA, json.dumps(chosen)[:-7])
    code, lines = run_check(task)
    assert code == 1, report(code, lines)
    assert [line for line in lines if line.startswith(f"{where}: value: not valid JSON")], report(code, lines)
    assert lines[-1] == "1 problem(s), 1 warning(s)", report(code, lines)
