"""End-to-end contract of `multiagent.handoff_review` in a real Potato 2.12.1 page.

The widget's DOM contract, as these tests read it:
- `form.annotation-form[data-schema-name="handoffs"]` with a `<legend>` (the description, literally)
  and `data-ma-ready="true"` once rendered;
- one card per derived handoff on the page: `role=group` named "Handoff K: FROM to TO"; inside it
  toggle buttons with `aria-pressed` named by the flag ("info loss"), a `radiogroup` named
  "Quality" of native radios, a textarea labelled "Note", a "Clear review" button and a status line;
- toolbar: a "Show" select (all / unreviewed / flagged), "Jump to handoff" + "Go", the button
  "Mark all unreviewed handoffs as fine"; the pager (web/pager.js) with "Previous page" / "Next page" (50 a page);
- the hidden `input.annotation-input[name="handoffs:::handoffs"]` holding the list of reviewed
  handoffs `[{index, step, from_step, from, to, explicit, flags, quality, note[, bulk]}]`;
- `data-incomplete-reason` "N of M handoffs reviewed" while a handoff is unreviewed.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive, validate_value

from .harness import (
    EXAMPLES_DIR, REPO_ROOT, annotation_pairs, click_next_expecting_block, current_instance_id, go_next, go_prev,
    login, navigation_started, open_annotate, opened_handoff_card, returning_user_state, same_value, wait_saved_json
)

EXAMPLE = "handoff-review"
TYPE = "multiagent.handoff_review"
SCHEMA = "handoffs"
TEST_CONFIG = "e2e-handoff-review.yaml"
HOSTILE_DESCRIPTION = "Review {{ 7*7 }} handoffs {# not a comment"
DATA_ORDER = ["data/hostile-names.jsonl", "data/single-agent.jsonl", "data/magentic-one-style.jsonl",
              "data/explicit-handoff.jsonl", "data/pipeline.jsonl"]
NOTE = 'B dropped the "no brand names" rule <b>here</b> {{ x }}'


# --------------------------------------------------------------------------- the task under test


def example_config() -> dict:
    return yaml.safe_load((EXAMPLES_DIR / EXAMPLE / "config.yaml").read_text(encoding="utf-8"))


def e2e_config() -> dict:
    """The example's config, serving the hostile run first, with a hostile description."""
    config = example_config()
    config["annotation_task_name"] = "e2e: handoff review with hostile names"
    config["data_files"] = DATA_ORDER
    config["annotation_schemes"][0]["description"] = HOSTILE_DESCRIPTION
    return config


def scheme_config(config: dict) -> dict:
    return next(scheme for scheme in config["annotation_schemes"] if scheme["name"] == SCHEMA)


def read_records(folder: Path, data_files: list[str]) -> list[dict]:
    records = []
    for data_file in data_files:
        lines = (folder / data_file).read_text(encoding="utf-8").splitlines()
        records.extend(json.loads(line) for line in lines if line.strip())
    return records


RECORDS = read_records(EXAMPLES_DIR / EXAMPLE, DATA_ORDER)
FIRST = RECORDS[0]  # the run with hostile names and an explicit handoff event


def handoffs_of(record: dict, steps_key: str = "steps") -> list[dict]:
    return derive(record, steps_key=steps_key).handoffs


def entry_of(handoff: dict, **changes) -> dict:
    """The entry the widget stores for a handoff (notes on, as the example configures)."""
    return {"index": handoff["index"], "step": handoff["step"], "from_step": handoff["from_step"],
            "from": handoff["from"], "to": handoff["to"], "explicit": handoff["explicit"],
            "flags": [], "quality": None, "note": "", **changes}


def card_name(handoff: dict) -> str:
    return f"Handoff {handoff['index'] + 1}: {handoff['from']} to {handoff['to']}"


GHOST_USER = f"ghost-{uuid.uuid4().hex[:8]}"
ALIEN = {"index": 0, "step": 1, "from_step": 0, "from": "Alice", "to": "Bob", "explicit": False,
         "flags": ["garbling"], "quality": 2, "note": ""}
GHOST_VALUE = [ALIEN, entry_of(handoffs_of(FIRST)[3], quality=4)]


@pytest.fixture(scope="module")
def task(potato_task):
    ghost = returning_user_state(GHOST_USER, [record["id"] for record in RECORDS],
                                 annotation_pairs({FIRST["id"]: {SCHEMA: json.dumps(GHOST_VALUE)}}))
    return potato_task(EXAMPLE, config=TEST_CONFIG, files={TEST_CONFIG: yaml.safe_dump(e2e_config())},
                       users={GHOST_USER: ghost})


@pytest.fixture
def user(task, page) -> str:
    """A fresh annotator, logged in and looking at the first instance."""
    name = f"hr-{uuid.uuid4().hex[:12]}"
    login(page, task.base_url, name)
    assert current_instance_id(page) == FIRST["id"]
    expect(form(page)).to_have_attribute("data-ma-ready", "true")
    return name


# --------------------------------------------------------------------------- page helpers


def form(page):
    return page.locator(f'form.annotation-form[data-schema-name="{SCHEMA}"]')


def cards(page):
    return form(page).get_by_role("group", name=re.compile(r"^Handoff \d+: "))


def card(page, handoff: dict):
    return form(page).get_by_role("group", name=card_name(handoff), exact=True)


def flag_button(page, handoff: dict, label: str):
    return opened_handoff_card(card(page, handoff)).get_by_role("button", name=label, exact=True)


def quality_radio(page, handoff: dict, value: int):
    group = opened_handoff_card(card(page, handoff)).get_by_role("radiogroup", name="Quality")
    return group.get_by_role("radio", name=re.compile(rf"^{value}\b"))


def note_box(page, handoff: dict):
    return opened_handoff_card(card(page, handoff)).get_by_label("Note", exact=True)


def hidden_value(page):
    raw = page.locator(f'input.annotation-input[name="{SCHEMA}:::{SCHEMA}"]').input_value()
    return json.loads(raw) if raw else None


def summary(page):
    return form(page).locator(".ma-summary")


def announced(page):
    """The form's status line (the runtime's ui.announce): what an action did, then the progress."""
    return form(page).locator("[data-ma-sync-notice]")


def card_names_on_page(page) -> list[str]:
    return cards(page).evaluate_all("nodes => nodes.map(n => n.getAttribute('aria-label'))")


def focused(page) -> dict:
    return page.evaluate("""() => {
        const el = document.activeElement;
        const card = el.closest('[data-ma-handoff]');
        return {tag: el.tagName, focus: el.getAttribute('data-ma-focus'),
                card: card ? Number(card.getAttribute('data-ma-handoff')) : null,
                checked: el.checked === true, pressed: el.getAttribute('aria-pressed')};
    }""")


def tab_until(page, predicate, limit: int = 60) -> dict:
    """Press Tab until the focused element satisfies `predicate(focused(page))`; return it."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        state = focused(page)
        if predicate(state):
            return state
    raise AssertionError(f"Tab never reached the control; last focus {focused(page)}")


def expect_complete(page) -> None:
    expect(form(page)).not_to_have_attribute("data-incomplete-reason", re.compile(".*"))


def test_example_records_carry_what_the_example_promises():
    by_id = {record["id"]: handoffs_of(record) for record in read_records(EXAMPLES_DIR / EXAMPLE, DATA_ORDER)}
    assert [h["explicit"] for h in by_id["support-003"]].count(True) == 1
    assert ("Orchestrator", "WebSurfer") in {(h["from"], h["to"]) for h in by_id["magentic-004"]}
    assert len(by_id["pipeline-001"]) == 4 and len(by_id["addressed-002"]) == 3
    assert by_id["single-agent-006"] == []
    agents = {name for handoffs in by_id.values() for h in handoffs for name in (h["from"], h["to"])}
    assert {'Agent "Smith"', "<b>Bold</b>", "A->B", "{{ 7*7 }}"} <= agents
    assert not any(name.endswith(")") for name in agents)  # no "Orchestrator (thought)" agent


# --------------------------------------------------------------------------- rendering


@pytest.mark.e2e
def test_one_card_per_handoff_named_by_its_agents(task, page, user):
    expected = [card_name(h) for h in handoffs_of(FIRST)]
    assert expected[1] == "Handoff 2: <b>Bold</b> to A->B"
    assert card_names_on_page(page) == expected
    for handoff in handoffs_of(FIRST):  # the title reads "FROM to TO" too (its arrow is hidden from screen readers)
        expect(card(page, handoff).get_by_role("heading", name=card_name(handoff), exact=True)).to_be_visible()
    assert form(page).locator("b", has_text="Bold").count() == 0  # names stay text


@pytest.mark.e2e
def test_explicit_handoff_event_is_marked_in_words_and_is_no_agent(task, page, user):
    explicit = [h for h in handoffs_of(FIRST) if h["explicit"]]
    assert len(explicit) == 1 and (explicit[0]["from"], explicit[0]["to"]) == ("A->B", "{{ 7*7 }}")
    event_card = card(page, explicit[0])
    expect(event_card).to_contain_text(f"Explicit handoff event at #{explicit[0]['step'] + 1}")
    expect(event_card).to_contain_text("Handoff event, #4 \u00B7 A->B")
    expect(event_card).to_contain_text("First message after, #5 \u00B7 {{ 7*7 }}")
    assert cards(page).filter(has_text="Explicit handoff event").count() == 1


@pytest.mark.e2e
def test_cards_quote_the_last_message_before_and_the_first_after(task, page, user):
    first = handoffs_of(FIRST)[0]
    quote = card(page, first)
    expect(quote).to_contain_text('Last message before, #1 \u00B7 Agent "Smith"')
    expect(quote).to_contain_text('Quoting the title: "Outage at 03:00".')
    expect(quote).to_contain_text("First message after, #2 \u00B7 <b>Bold</b>")
    after = FIRST["steps"][1]["content"]
    expect(quote).not_to_contain_text("onerror")             # the second line waits behind "Show full message"
    expand = quote.get_by_role("button", name="Show full message")
    expect(expand).to_have_attribute("aria-expanded", "false")
    expand.click()
    expect(quote.get_by_role("button", name="Show less")).to_have_attribute("aria-expanded", "true")
    expect(quote.locator(".ma-hr-excerpt-full")).to_have_text(after)
    assert quote.locator("img, i").count() == 0
    assert page.evaluate("window.__pwned") is None


# --------------------------------------------------------------------------- value


@pytest.mark.e2e
def test_mouse_review_is_saved_exactly_and_restored(task, page, user):
    second, explicit = handoffs_of(FIRST)[1], handoffs_of(FIRST)[2]
    flag_button(page, second, "info loss").click()
    flag_button(page, second, "goal drift").click()
    quality_radio(page, second, 2).check()
    note_box(page, second).fill(NOTE)
    quality_radio(page, explicit, 4).check()
    expected = [entry_of(second, flags=["info_loss", "goal_drift"], quality=2, note=NOTE),
                entry_of(explicit, quality=4)]
    saved = wait_saved_json(task, user, FIRST["id"], SCHEMA, expected)
    assert validate_value(TYPE, scheme_config(e2e_config()), saved, FIRST) == []
    expect(card(page, second).locator(".ma-hr-status")).to_have_text(
        "Reviewed: quality 2 of 5, flagged: info loss, goal drift.")

    # The rest as fine, so that the required question lets Next go; the two reviews stay as given.
    form(page).get_by_role("button", name="Mark all unreviewed handoffs as fine").click()
    first, last = handoffs_of(FIRST)[0], handoffs_of(FIRST)[3]
    expected = [entry_of(first, quality=5, bulk=True), *expected, entry_of(last, quality=5, bulk=True)]
    saved = wait_saved_json(task, user, FIRST["id"], SCHEMA, expected)
    assert validate_value(TYPE, scheme_config(e2e_config()), saved, FIRST) == []

    def expect_restored():
        expect(form(page)).to_have_attribute("data-ma-ready", "true")
        # reviewed cards are drawn as one line: the status, and "Show review" opens the card
        for reviewed in (second, explicit, first):
            expect(card(page, reviewed).locator(".ma-hr-body")).to_be_hidden()
            expect(card(page, reviewed).locator(".ma-hr-status")).to_be_visible()
        expect(card(page, second).locator(".ma-hr-status")).to_have_text(
            "Reviewed: quality 2 of 5, flagged: info loss, goal drift.")
        for reviewed in (second, explicit, first):
            toggle = card(page, reviewed).get_by_role("button", name="Show review")
            expect(toggle).to_have_attribute("aria-expanded", "false")
            toggle.click()
            expect(card(page, reviewed).get_by_role("button", name="Hide review")).to_have_attribute(
                "aria-expanded", "true")
        expect(flag_button(page, second, "info loss")).to_have_attribute("aria-pressed", "true")
        expect(flag_button(page, second, "garbling")).to_have_attribute("aria-pressed", "false")
        expect(quality_radio(page, second, 2)).to_be_checked()
        expect(note_box(page, second)).to_have_value(NOTE)
        expect(quality_radio(page, explicit, 4)).to_be_checked()
        expect(quality_radio(page, first, 5)).to_be_checked()
        assert same_value(hidden_value(page), expected)

    open_annotate(page, task.base_url)
    expect_restored()
    go_next(page)
    assert go_prev(page) == FIRST["id"]
    expect_restored()


@pytest.mark.e2e
def test_keyboard_only_review(task, page, user):
    first = handoffs_of(FIRST)[0]
    form(page).get_by_label("Show").focus()
    state = tab_until(page, lambda s: s["card"] == 0 and s["focus"] == "flag:garbling")
    page.keyboard.press("Space")
    expect(flag_button(page, first, "garbling")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Enter")
    expect(flag_button(page, first, "garbling")).to_have_attribute("aria-pressed", "false")
    page.keyboard.press("Space")

    state = tab_until(page, lambda s: s["card"] == 0 and (s["focus"] or "").startswith("q:"))
    assert state["focus"] == "q:1" and not state["checked"]  # one tab stop, on the first radio
    for key, quality in [("ArrowRight", 2), ("ArrowRight", 3), ("ArrowLeft", 2), ("ArrowDown", 3), ("ArrowUp", 2)]:
        page.keyboard.press(key)
        assert focused(page)["focus"] == f"q:{quality}" and focused(page)["checked"], key
        assert not navigation_started(page), key
    page.keyboard.press("Tab")
    assert focused(page)["focus"] == "note"
    page.keyboard.type("keyboard only")

    expected = [entry_of(first, flags=["garbling"], quality=2, note="keyboard only")]
    wait_saved_json(task, user, FIRST["id"], SCHEMA, expected)
    assert current_instance_id(page) == FIRST["id"]


@pytest.mark.e2e
def test_jump_pager_and_filter_work_from_the_keyboard(task, page, user):
    jump = form(page).get_by_label("Jump to handoff")
    jump.fill("3")
    jump.press("Enter")
    assert focused(page)["card"] == 2 and focused(page)["tag"] == "DIV"
    expect(announced(page)).to_have_text(f"Showing {card_name(handoffs_of(FIRST)[2])}.")
    jump.fill("99")
    jump.press("Enter")
    expect(jump).to_have_attribute("aria-invalid", "true")
    expect(announced(page)).to_have_text("There is no handoff 99: this run has handoffs 1 to 4.")

    flag_button(page, handoffs_of(FIRST)[3], "garbling").click()
    form(page).get_by_label("Show").select_option("flagged")
    assert card_names_on_page(page) == [card_name(handoffs_of(FIRST)[3])]
    form(page).get_by_label("Show").select_option("unreviewed")
    assert card_names_on_page(page) == [card_name(h) for h in handoffs_of(FIRST)[:3]]
    expect(form(page).get_by_role("button", name="Next page")).to_have_attribute("aria-disabled", "true")


CONTROLS = {
    "flag": lambda page: flag_button(page, handoffs_of(FIRST)[0], "info loss"),
    "quality": lambda page: quality_radio(page, handoffs_of(FIRST)[0], 3),
    "note": lambda page: note_box(page, handoffs_of(FIRST)[0]),
    "filter": lambda page: form(page).get_by_label("Show"),
    "jump": lambda page: form(page).get_by_label("Jump to handoff"),
    "expand": lambda page: card(page, handoffs_of(FIRST)[0]).get_by_role("button", name="Show full message"),
    "bulk": lambda page: form(page).get_by_role("button", name="Mark all unreviewed handoffs as fine"),
    "pager": lambda page: form(page).get_by_role("button", name="Next page"),
    "next": lambda page: form(page).get_by_role("button", name="Next unreviewed handoff"),
}


@pytest.mark.e2e
def test_arrow_keys_inside_the_widget_never_change_the_instance(task, page, user):
    """Each control in turn, on one page (one login instead of one per control); the pager and the
    filter, which change what is shown, come last."""
    # Complete first, so nothing but the widget could stop Potato's arrow navigation.
    form(page).get_by_role("button", name="Mark all unreviewed handoffs as fine").click()
    card(page, handoffs_of(FIRST)[0]).get_by_role("button", name="Show review").click()   # folded by the bulk mark
    for control in ARROW_ORDER:
        expect_complete(page)
        CONTROLS[control](page).focus()
        for key in ("ArrowRight", "ArrowLeft", "ArrowRight"):
            page.keyboard.press(key)
            assert not navigation_started(page), f"{key} in the {control} started a navigation"
            assert current_instance_id(page) == FIRST["id"], control


ARROW_ORDER = ["flag", "quality", "note", "expand", "jump", "next", "bulk", "pager", "filter"]
assert sorted(ARROW_ORDER) == sorted(CONTROLS)


# --------------------------------------------------------------------------- required completeness


@pytest.mark.e2e
def test_required_review_blocks_next_until_every_handoff_is_reviewed(task, page, user):
    click_next_expecting_block(page, HOSTILE_DESCRIPTION, FIRST["id"])
    quality_radio(page, handoffs_of(FIRST)[0], 3).check()
    expect(form(page)).to_have_attribute("data-incomplete-reason", "1 of 4 handoffs reviewed")
    expect(click_next_expecting_block(page, HOSTILE_DESCRIPTION, FIRST["id"])).to_contain_text("(1 of 4 handoffs reviewed)")

    form(page).get_by_role("button", name="Mark all unreviewed handoffs as fine").click()
    expect_complete(page)
    expect(announced(page)).to_have_text(
        "Marked 3 unreviewed handoffs as fine: quality 5 of 5, no flags. 4 of 4 handoffs reviewed, 0 flagged.")
    handoffs = handoffs_of(FIRST)
    expected = [entry_of(handoffs[0], quality=3)] + [entry_of(h, quality=5, bulk=True) for h in handoffs[1:]]
    saved = wait_saved_json(task, user, FIRST["id"], SCHEMA, expected)
    assert validate_value(TYPE, scheme_config(e2e_config()), saved, FIRST) == []
    expect(card(page, handoffs[1]).locator(".ma-hr-status")).to_have_text(
        "Marked fine in bulk: quality 5 of 5, no flags.")
    assert go_next(page) == RECORDS[1]["id"]


@pytest.mark.e2e
def test_undo_takes_back_the_bulk_rating(task, page, user):
    bulk = form(page).get_by_role("button", name="Mark all unreviewed handoffs as fine")
    bulk.click()
    undo = form(page).get_by_role("button", name="Undo \u201CMark all as fine\u201D")
    undo.click()
    expect(undo).to_be_hidden()
    assert focused(page)["tag"] == "BUTTON" and page.evaluate("document.activeElement.textContent").startswith("Mark all")
    expect(form(page)).to_have_attribute("data-incomplete-reason", "0 of 4 handoffs reviewed")
    assert hidden_value(page) is None


@pytest.mark.e2e
def test_marked_fine_in_bulk_the_cards_fold_to_a_line_at_once(task, page, user):
    """"Mark all unreviewed handoffs as fine" leaves every card of the page one line (its status and
    "Show review"), without a reload; the form is shorter by what the open card held."""
    height = "(node) => node.getBoundingClientRect().height"
    before = form(page).evaluate(height)
    opened = card(page, handoffs_of(FIRST)[0]).locator(".ma-hr-body").evaluate(height)
    form(page).get_by_role("button", name="Mark all unreviewed handoffs as fine").click()
    for handoff in handoffs_of(FIRST):
        expect(card(page, handoff).locator(".ma-hr-body")).to_be_hidden()
        expect(card(page, handoff).locator(".ma-hr-status")).to_have_text("Marked fine in bulk: quality 5 of 5, no flags.")
        expect(card(page, handoff).get_by_role("button", name="Show review")).to_be_visible()
    assert form(page).evaluate(height) < before - 0.9 * opened
    form(page).get_by_role("button", name="Undo \u201cMark all as fine\u201d").click()
    expect(card(page, handoffs_of(FIRST)[0]).locator(".ma-hr-body")).to_be_visible()


@pytest.mark.e2e
def test_next_unreviewed_walks_the_unreviewed_cards_in_order_from_the_keyboard(task, page, user):
    """The first card is under review (open) from the start; "Next unreviewed handoff" (or N) folds it
    and opens the next unreviewed one with focus on its first flag, skipping reviewed ones, wrapping."""
    handoffs = handoffs_of(FIRST)
    expect(card(page, handoffs[0]).locator(".ma-hr-body")).to_be_visible()
    expect(card(page, handoffs[2]).locator(".ma-hr-body")).to_be_hidden()
    flag_button(page, handoffs[1], "garbling").click()   # the second is reviewed: the walk skips it
    button = form(page).get_by_role("button", name="Next unreviewed handoff")
    button.focus()
    page.keyboard.press("Enter")
    expect(flag_button(page, handoffs[2], "info loss")).to_be_focused()
    expect(card(page, handoffs[0]).locator(".ma-hr-body")).to_be_hidden()
    page.keyboard.press("Space")   # reviewed by the keyboard where focus landed
    expect(flag_button(page, handoffs[2], "info loss")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("n")   # the button's key, from inside the card
    expect(card(page, handoffs[3]).get_by_role("button", name="info loss", exact=True)).to_be_focused()
    page.keyboard.press("N")
    expect(card(page, handoffs[0]).get_by_role("button", name="info loss", exact=True)).to_be_focused()
    assert current_instance_id(page) == FIRST["id"]


@pytest.mark.e2e
def test_a_required_run_without_handoffs_is_answered_in_one_action(task, page, user):
    form(page).get_by_role("button", name="Mark all unreviewed handoffs as fine").click()
    assert go_next(page) == RECORDS[1]["id"] == "single-agent-006"
    expect(form(page).locator(".ma-hr-empty")).to_contain_text("No handoffs in this run: nothing to review.")
    assert cards(page).count() == 0
    expect_complete(page)
    page.click("#next-btn")  # Potato still wants a non-empty answer
    expect(page.locator("#required-fields-error")).to_be_visible()
    assert current_instance_id(page) == RECORDS[1]["id"]

    form(page).get_by_role("button", name="Mark all unreviewed handoffs as fine").click()
    expect(announced(page)).to_have_text("This run has no handoffs; recorded that there was nothing to review. "
                                       "0 of 0 handoffs reviewed, 0 flagged.")
    assert wait_saved_json(task, user, RECORDS[1]["id"], SCHEMA, []) == []
    assert go_next(page) == RECORDS[2]["id"]


# --------------------------------------------------------------------------- restore by identity


@pytest.mark.e2e
def test_saved_reviews_missing_from_the_trace_are_shown_and_kept(task, page):
    login(page, task.base_url, GHOST_USER)
    expect(form(page)).to_have_attribute("data-ma-ready", "true")
    handoffs = handoffs_of(FIRST)
    # The seed restored by position and put Alice -> Bob's "garbling" on handoff 1; here it stays apart.
    expect(flag_button(page, handoffs[0], "garbling")).to_have_attribute("aria-pressed", "false")
    expect(card(page, handoffs[0]).locator(".ma-hr-status")).to_have_text("Not reviewed yet.")
    # handoff 4 was reviewed before this page was drawn: one line, opened by "Show review"
    expect(card(page, handoffs[3]).locator(".ma-hr-status")).to_have_text("Reviewed: quality 4 of 5, no flags.")
    card(page, handoffs[3]).get_by_role("button", name="Show review").click()
    expect(quality_radio(page, handoffs[3], 4)).to_be_checked()
    orphans = form(page).locator("[data-ma=stale-list]")
    expect(orphans).to_be_visible()
    expect(orphans).to_contain_text("Alice to Bob, from_step 0, step 1 (not in this trace): quality 2 of 5, "
                                    "flagged: garbling.")
    expect(form(page).locator(".ma-notices")).to_contain_text(
        "[0]: 'Alice to Bob, from_step 0, step 1' is not in this trace")
    assert hidden_value(page) == GHOST_VALUE  # kept until the annotator removes it

    orphans.get_by_role("button", name=re.compile("^Remove saved mark: Alice to Bob")).click()
    expect(orphans).to_be_hidden()
    wait_saved_json(task, GHOST_USER, FIRST["id"], SCHEMA, [GHOST_VALUE[1]])


# --------------------------------------------------------------------------- 5,000 steps

AGENTS = ["Planner", "Coder", "Tester", "Reviewer", "Researcher"]


def long_run(steps: int) -> dict:
    """A run of `steps` steps: turns that change speaker about every other step, addressed turns and
    an explicit handoff event every 97 steps (about steps / 2 handoffs)."""
    history = []
    for index in range(steps):
        speaker = AGENTS[(index // 2) % len(AGENTS)]
        if index % 97 == 5:
            history.append({"type": "handoff", "from_agent": speaker, "to_agent": AGENTS[(index + 1) % 5],
                            "content": f"Handing over task {index}."})
        elif index % 11 == 3:
            history.append({"role": speaker, "to": AGENTS[(index + 3) % 5], "content": f"Please check item {index}."})
        else:
            history.append({"role": speaker, "content": f"Step {index}: working on part {index % 13}.\nDetails."})
    return {"id": "long-5000", "question": "A long synthetic run.", "history": history}


def history_task_source(tmp_path_factory, name: str, records: list[dict]) -> Path:
    """A task folder serving `records` (steps under `history`) with a not-required handoff review."""
    source = tmp_path_factory.mktemp(name) / name
    (source / "data").mkdir(parents=True)
    (source / "data" / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    config = {
        "annotation_task_name": f"e2e: handoff review {name}", "task_dir": ".", "data_files": ["data/runs.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "question"}, "output_annotation_dir": "annotation_output",
        "plugins": ["multiagent"], "require_password": False,
        "annotation_schemes": [{"annotation_type": TYPE, "name": SCHEMA, "description": "Review the handoffs",
                                "steps_key": "history"}],
    }
    (source / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return source


# One click, read back from the hidden input at once (the handler is synchronous). How fast it
# is belongs to bench/, not to a test.
CLICK = """(selector) => {
  const form = document.querySelector('form[data-schema-name="handoffs"]');
  const hidden = form.querySelector('input.annotation-input');
  const before = hidden.value;
  form.querySelector(selector).click();
  return hidden.value !== before;
}"""

# The browser derivation's handoffs of the record on the page.
DERIVED_HANDOFFS = """() => {
  return PotatoMultiagent.pageDerivation({derive_options: {steps_key: 'history'}}).derivation.handoffs.length;
}"""


@pytest.fixture(scope="module")
def scale_task(potato_task, tmp_path_factory):
    return potato_task(history_task_source(tmp_path_factory, "scale", [long_run(5_000)]))


@pytest.mark.e2e
def test_5000_steps_render_one_page_and_a_click_stores_the_flag(scale_task, page):
    record = long_run(5_000)
    handoffs = handoffs_of(record, "history")
    assert len(handoffs) > 2_000
    login(page, scale_task.base_url, f"scale-{uuid.uuid4().hex[:8]}")
    expect(form(page)).to_have_attribute("data-ma-ready", "true")

    assert page.evaluate(DERIVED_HANDOFFS) == len(handoffs)
    assert cards(page).count() == 20   # a long list: 20 to a page, one line each but the first
    assert form(page).locator("*").count() < 3_000, "one page of cards, not every handoff"
    expect(cards(page).first.locator(".ma-hr-body")).to_be_visible()
    expect(cards(page).nth(1).locator(".ma-hr-body")).to_be_hidden()
    # more than 30 handoffs: the run opens on "unreviewed only" (all of them, nothing reviewed yet)
    expect(form(page).get_by_label("Show")).to_have_value("unreviewed")
    expect(form(page).locator('[data-ma="page-where"]')).to_have_text(
        f"1\u201320 of {len(handoffs):,} unreviewed handoffs")

    assert page.evaluate(CLICK, 'button.ma-hr-flag[data-ma-flag="garbling"]')
    assert same_value(hidden_value(page), [entry_of(handoffs[0], flags=["garbling"])])
    assert page.evaluate(CLICK, 'button[data-ma="bulk"]')
    assert len(hidden_value(page)) == len(handoffs)
    expect_complete(page)

    jump = form(page).get_by_label("Jump to handoff")
    jump.fill("2000")
    jump.press("Enter")
    assert focused(page)["card"] == 1_999
    assert card_names_on_page(page)[0] == card_name(handoffs[1_980])


# --------------------------------------------------------------------------- threads of work

# Two researchers run in parallel threads started by the manager (agents-as-tools), then the
# manager goes on: delegations and returns, and no handoff between the researchers.
THREADED = {"id": "threaded-001", "question": "A fan-out run.", "history": [
    {"agent": "Manager", "content": "Research A and B."},
    {"agent": "R1", "thread": "t1", "content": "Looking at A."},
    {"agent": "R2", "thread": "t2", "content": "Looking at B."},
    {"agent": "R1", "thread": "t1", "content": "A is 4."},
    {"agent": "R2", "thread": "t2", "content": "B is 5."},
    {"agent": "Manager", "content": "A is 4 and B is 5."},
]}


@pytest.fixture(scope="module")
def threaded_task(potato_task, tmp_path_factory):
    return potato_task(history_task_source(tmp_path_factory, "threads", [THREADED]))


@pytest.mark.e2e
def test_parallel_threads_show_delegations_and_returns_not_sibling_handoffs(threaded_task, page):
    handoffs = handoffs_of(THREADED, "history")
    assert [(h["from"], h["to"], h["kind"]) for h in handoffs] == [
        ("Manager", "R1", "delegation"), ("Manager", "R2", "delegation"),
        ("R1", "Manager", "return"), ("R2", "Manager", "return")]
    login(page, threaded_task.base_url, f"threads-{uuid.uuid4().hex[:8]}")
    expect(form(page)).to_have_attribute("data-ma-ready", "true")
    assert card_names_on_page(page) == [card_name(handoff) for handoff in handoffs]
    expect(card(page, handoffs[0]).locator(".ma-hr-kind")).to_have_text("Delegation: #1 starts a thread of work at #2")
    expect(card(page, handoffs[3]).locator(".ma-hr-kind")).to_have_text(
        "Return: a thread of work ends at #5, control is back at #6")
    flag_button(page, handoffs[2], "info loss").click()
    expect(flag_button(page, handoffs[2], "info loss")).to_have_attribute("aria-pressed", "true")
    assert same_value(hidden_value(page), [entry_of(handoffs[2], flags=["info_loss"])])


# --------------------------------------------------------------------------- real data


def corpus_or_skip() -> Path:
    """../shared/corpus (POTATO_MA_CORPUS); skips when missing, fails under CI=true."""
    folder = Path(os.environ.get("POTATO_MA_CORPUS") or REPO_ROOT.parent / "shared" / "corpus")
    if not folder.is_dir():
        message = f"real-data corpus not found at {folder}; set POTATO_MA_CORPUS to its folder"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return folder


def hand_crafted_runs() -> list[dict]:
    """Who&When Hand-Crafted (Magentic-One) runs, gold labels left out: every field reaches the page."""
    files = sorted((corpus_or_skip() / "who_and_when" / "Hand-Crafted").glob("*.json"), key=lambda p: int(p.stem))
    runs = []
    for path in files:
        run = json.loads(path.read_text(encoding="utf-8"))
        runs.append({"id": f"hand-crafted-{path.stem}", "question": run["question"], "history": run["history"]})
    return runs


@pytest.fixture(scope="module")
def real_task(potato_task, tmp_path_factory):
    runs = hand_crafted_runs()
    return potato_task(history_task_source(tmp_path_factory, "who-and-when", runs)), runs


@pytest.mark.e2e
@pytest.mark.realdata
def test_every_handoff_of_every_hand_crafted_run_renders_a_card(real_task, page):
    task, runs = real_task
    login(page, task.base_url, f"real-{uuid.uuid4().hex[:8]}")
    for position, run in enumerate(runs):
        if position:
            assert go_next(page) == run["id"]
        assert current_instance_id(page) == run["id"]
        expect(form(page)).to_have_attribute("data-ma-ready", "true")
        shown = card_names_on_page(page)
        while form(page).get_by_role("button", name="Next page").get_attribute("aria-disabled") == "false":
            form(page).get_by_role("button", name="Next page").click()
            shown += card_names_on_page(page)
        assert shown == [card_name(h) for h in handoffs_of(run, "history")], run["id"]
    assert any("Orchestrator to WebSurfer" in name for name in shown)
