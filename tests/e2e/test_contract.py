"""The contract every type keeps in a real Potato page, one test per type (drivers in drivers.py).

All seven types share one page over the hostile record (`tests/e2e/hostile/`: markup, quotes,
`{{ 7*7 }}`, right-to-left and long strings in every name and label; 300 characters long here, the
100 KB ones are test_hostile_input.py's) and a plain second run:

- the description is the legend, literally; the task config passes `potato validate --strict`;
- one mark made as an annotator makes it is stored exactly (hand-written expected value, read from
  `user_state.json`) and passes our own validation of the stored value;
- a reload restores the mark, and so do Next then Previous, with nothing new written;
- the Left/Right arrow keys inside the widget's controls never turn Potato's page;
- no payload runs and no active content appears in our forms, whatever the annotator did;
- on a task where the seven are required, Next on the untouched page is blocked naming each one.

The pages are checked as served: with our plugin on, Potato's own `instance_data` leak
(docs/security.md) is made inert by the plugin's guard, so nothing may run at all.
"""

from __future__ import annotations

import json
import subprocess
import uuid

import pytest
from playwright.sync_api import expect

from potato_multiagent import validate_value

from .drivers import BIG_SIZE, DRIVERS, RECORD, form, schemes
from .harness import (click_next_expecting_block, current_instance_id, go_next, go_prev, login, navigation_started,
                      open_annotate, potato_command, same_value, wait_saved)
from .hostile import CONFIG_FILE, HERE, PLAIN_ID, RECORD_ID, task_config, task_files
from .test_hostile_input import ACTIVE_CONTENT, provoke

SCHEMES = schemes()
NAMES = list(DRIVERS)


@pytest.fixture(scope="module")
def task(potato_task):
    return potato_task(HERE, config=CONFIG_FILE, files=task_files(task_config("contract", SCHEMES), BIG_SIZE))


@pytest.fixture(scope="module")
def required_task(potato_task):
    required = [dict(item, label_requirement={"required": True}) for item in SCHEMES]
    return potato_task(HERE, config=CONFIG_FILE, files=task_files(task_config("contract, required", required), BIG_SIZE))


@pytest.fixture
def hostile_page(page, dialogs):
    """A page that records every payload that runs (conftest's `dialogs`) and fails on any dialog
    but leaving."""
    yield page
    assert dialogs == []


def open_as_new_user(page, task, prefix: str) -> str:
    """Log in a fresh annotator (`login` opens /annotate itself, so the route sees the page)."""
    user = f"{prefix}-{uuid.uuid4().hex[:10]}"
    login(page, task.base_url, user)
    wait_widgets(page)
    assert current_instance_id(page) == RECORD_ID
    return user


def wait_widgets(page) -> None:
    for name in NAMES:
        expect(form(page, name)).to_have_attribute("data-ma-ready", "true", timeout=30_000)


def hidden(page, name: str) -> str:
    return page.locator(f'input.annotation-input[name="{name}:::{name}"]').input_value()


def expect_inert(page) -> None:
    """Nothing the hostile strings carry has run, or could run, on this page."""
    provoke(page)
    assert set(page.evaluate("window.__fired")) == set()
    assert page.evaluate(ACTIVE_CONTENT) == []


def press_arrows_in(page, controls: list, name: str) -> None:
    for index, control in enumerate(controls):
        control.focus()
        for key in ("ArrowRight", "ArrowLeft", "ArrowRight"):
            page.keyboard.press(key)
            assert not navigation_started(page), f"{key} in {name}'s control {index} started a navigation"
            assert current_instance_id(page) == RECORD_ID, f"{name}'s control {index}"


@pytest.mark.e2e
def test_the_contract_task_passes_potato_validate_strict(task):
    result = subprocess.run([*potato_command(), "validate", "--strict", CONFIG_FILE], cwd=task.task_dir,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.e2e
@pytest.mark.parametrize("name", NAMES)
def test_one_mark_is_stored_exactly_and_survives_reload_and_next_prev(task, hostile_page, name):
    page, driver = hostile_page, DRIVERS[name]
    user = open_as_new_user(page, task, f"contract-{name}")
    expect(form(page, name).locator("legend").first).to_have_text(driver.config["description"])

    driver.act(page)
    raw = wait_saved(task, user, RECORD_ID, name, lambda saved: bool(saved) and saved == hidden(page, name))
    assert same_value(json.loads(raw), driver.expected)
    assert validate_value(driver.annotation_type, driver.config, raw, RECORD) == []
    expect_inert(page)

    open_annotate(page, task.base_url)
    wait_widgets(page)
    assert same_value(json.loads(hidden(page, name)), driver.expected)
    assert task.saved(user)[RECORD_ID][name] == raw, "a reload writes nothing new"
    assert go_next(page) == PLAIN_ID
    assert go_prev(page) == RECORD_ID
    wait_widgets(page)
    assert same_value(json.loads(hidden(page, name)), driver.expected)
    assert same_value(json.loads(task.saved(user)[RECORD_ID][name]), driver.expected), "nothing but the mark is written"
    # Last, as the keys may change the controls' own values (a radio group, a <select>).
    press_arrows_in(page, driver.controls(page), name)
    expect_inert(page)


@pytest.mark.e2e
def test_every_untouched_required_widget_blocks_next_naming_its_question(required_task, hostile_page):
    """One page for the seven (a login each would cost seven): Potato's alert names every question
    whose widget reports itself unanswered, so each description is checked apart."""
    open_as_new_user(hostile_page, required_task, "required")
    first, *others = NAMES
    message = click_next_expecting_block(hostile_page, DRIVERS[first].config["description"], RECORD_ID)
    for name in others:
        expect(message).to_contain_text(DRIVERS[name].config["description"])
