"""Proves the e2e harness against Potato's own built-in radio type, independently of our widgets:
start a server, log in, answer, see the autosave on disk, and move between instances."""

from __future__ import annotations

import textwrap
import uuid

import pytest
from playwright.sync_api import expect
from playwright.sync_api import Error as PlaywrightError

from .harness import (
    annotation_pairs,
    current_instance_id,
    go_next,
    go_prev,
    login,
    navigation_started,
    open_annotate,
    radio_answer,
    returning_user_state,
    wait_saved,
)

pytestmark = pytest.mark.e2e

CONFIG = textwrap.dedent(
    """\
    annotation_task_name: "Harness smoke test"
    task_dir: .
    data_files:
      - data/items.jsonl
    item_properties:
      id_key: id
      text_key: text
    output_annotation_dir: annotation_output
    require_password: false
    annotation_schemes:
      - annotation_type: radio
        name: mood
        description: "How does the text sound?"
        labels: [calm, tense]
    """
)
ITEM_IDS = ["item-1", "item-2", "item-3"]
ITEMS = "".join(f'{{"id": "{item_id}", "text": "The text of {item_id}."}}\n' for item_id in ITEM_IDS)
SEEDED_USER = f"seeded-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def task(potato_task, tmp_path_factory):
    source = tmp_path_factory.mktemp("smoke-source") / "smoke"
    (source / "data").mkdir(parents=True)
    (source / "config.yaml").write_text(CONFIG, encoding="utf-8")
    (source / "data" / "items.jsonl").write_text(ITEMS, encoding="utf-8")
    seeded = returning_user_state(SEEDED_USER, ITEM_IDS, {"item-1": [radio_answer("mood", "tense")]})
    return potato_task(source, users={SEEDED_USER: seeded})


def fresh_user() -> str:
    return f"user-{uuid.uuid4().hex[:12]}"


def radio(page, label: str):
    return page.locator(f'form[data-schema-name="mood"] input[type="radio"][value="{label}"]')


def test_server_log_is_readable(task):
    assert task.log_path.exists()
    assert (task.task_dir / "config.yaml").exists()


def test_answer_is_autosaved_and_survives_navigation(task, page):
    user = fresh_user()
    login(page, task.base_url, user, via_form=True)
    assert current_instance_id(page) == "item-1"

    radio(page, "tense").check()
    # A radio is stored under the chosen label's name, with that name as its value.
    assert wait_saved(task, user, "item-1", "mood", lambda value: value is not None) == "tense"
    assert task.saved_labels(user)["item-1"]["mood"] == {"tense": "tense"}

    assert go_next(page) == "item-2"
    expect(radio(page, "tense")).not_to_be_checked()
    assert go_prev(page) == "item-1"
    expect(radio(page, "tense")).to_be_checked()

    open_annotate(page, task.base_url)
    assert current_instance_id(page) == "item-1"
    expect(radio(page, "tense")).to_be_checked()


def test_arrow_key_on_the_page_starts_navigation(task, page):
    """The arrow-key checks elsewhere rely on `navigation_started` seeing Potato's
    document-wide ArrowRight handler fire; this shows that it does."""
    login(page, task.base_url, fresh_user())
    assert not navigation_started(page)
    page.locator("body").press("ArrowRight")
    # Seen in flight, or already over: under load Potato can finish moving before the check runs.
    assert navigation_started(page) or moved_to(page, "item-2")
    # (while Potato replaces the page the element may be missing for a moment: read it null-safe)
    page.wait_for_function("document.getElementById('instance_id')?.value === 'item-2'")


def moved_to(page, instance: str) -> bool:
    try:
        return page.evaluate("document.getElementById('instance_id').value") == instance
    except PlaywrightError:   # the page is being replaced: it is moving
        return True


def test_seeded_user_state_is_restored(task, page):
    login(page, task.base_url, SEEDED_USER)
    assert current_instance_id(page) == "item-1"
    expect(radio(page, "tense")).to_be_checked()


def test_annotation_pairs_builds_potato_shape():
    assert annotation_pairs({"i1": {"s": "v"}}) == {"i1": [[{"schema": "s", "name": "s"}, "v"]]}
