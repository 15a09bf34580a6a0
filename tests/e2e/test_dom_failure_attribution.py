"""Failure attribution mounted without Potato (tests/e2e/mount.py): what the widget shows and does
in its own page (options, the step picker, completeness) and with a value Potato hands it on
`potato:instance-ready`. No server: Potato's saving is proven in test_failure_attribution.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from potato_multiagent import validate_value

from .harness import restore_in_page
from .mount import mount
from .harness import decisive_step_count, step_picker_options
from .test_failure_attribution import (FIRST, REASON, SCHEMA, agent_select, attribution_config, attribution_form,
                                       choose_agent, choose_step, chosen_labels, derivation_of, expect_complete,
                                       expect_incomplete, expect_restored, hidden_value, selected_label, step_option,
                                       step_select, step_words, summary)


@pytest.fixture
def mounted(page, tmp_path):
    """The hostile e2e config's attribution scheme on its first (hostile-names) record."""
    mount(page, tmp_path, FIRST, [attribution_config()])
    return page


@pytest.mark.e2e
def test_instance_ready_re_renders_from_the_hidden_input(mounted):
    page = mounted
    assert selected_label(agent_select(page)).startswith("\u2014")  # the placeholder: nothing chosen
    assert 'Agent "Smith"' not in summary(page).inner_text()

    step = derivation_of(FIRST)["steps"][2]
    value = {"responsible_agent": 'Agent "Smith"', "decisive_step": 2, "reason": REASON}
    assert validate_value("multiagent.failure_attribution", attribution_config(), value, FIRST) == []
    restore_in_page(page, SCHEMA, value)

    expect(summary(page)).to_contain_text('Agent "Smith"')
    # a restored value is shown, not announced: the summary is no live region, the status line is silent
    expect(summary(page)).not_to_have_attribute("aria-live", re.compile(".*"))
    expect(summary(page).locator("xpath=ancestor::form[1]").locator("[data-ma-sync-notice]")).to_have_text("")
    expect_restored(page, 'Agent "Smith"', 2, REASON)   # (it types "#3" in the step box, which is said)
    expect(attribution_form(page)).not_to_have_attribute("data-ma-error", re.compile(".*"))
    expect_complete(page)
    words = summary(page).inner_text()
    assert 'Agent "Smith"' in words and "#3" in words and step["agent"] in words, words
    assert "Reason given" in words, words
    assert hidden_value(page) == value  # the re-render reads the value; it does not rewrite it


@pytest.mark.e2e
def test_instance_ready_shows_a_restored_agent_missing_from_the_trace(mounted):
    page = mounted
    ghost = {"responsible_agent": "Ghost", "decisive_step": 2, "reason": REASON}
    restore_in_page(page, SCHEMA, ghost)

    agent_label = selected_label(agent_select(page))
    assert "Ghost" in agent_label and "not in this trace" in agent_label, agent_label
    assert step_words(page) == step_option(page, 2)["label"]
    words = summary(page).inner_text()
    assert "Ghost" in words and "not in this trace" in words, words
    assert hidden_value(page) == ghost  # kept until the annotator removes it


# --------------------------------------------------------------------------- moved from test_failure_attribution.py (no server needed)


@pytest.mark.e2e
def test_agent_options_are_full_names_roster_first(mounted):
    page = mounted
    expected = derivation_of(FIRST)["agents"]
    assert expected[0] == "Auditor" and 'Agent "Smith"' in expected and "{{ 7*7 }}" in expected
    assert chosen_labels(agent_select(page)) == expected
    # Markup in names and step text stays text: no element made from it.
    assert attribution_form(page).locator("b", has_text="Bold").count() == 0
    assert attribution_form(page).locator("i", has_text="the database").count() == 0


@pytest.mark.e2e
def test_step_options_read_number_agent_and_snippet(mounted):
    page = mounted
    steps = derivation_of(FIRST)["steps"]
    assert decisive_step_count(attribution_form(page)) == len(steps)
    for step in steps:
        label = step_option(page, step["index"])["label"]
        assert step["agent"] in label
        assert step["text"][:10] in label  # the start of the step's one-line snippet
        assert "[object Object]" not in label


@pytest.mark.e2e
def test_step_picker_searches_by_agent_and_text_and_escape_keeps_the_choice(mounted):
    page = mounted
    """Issue 18 / 15: the step picker is searched by number, agent and text; Escape drops a search."""
    form = attribution_form(page)
    box = step_select(page)
    options = step_picker_options(form)
    steps = derivation_of(FIRST)["steps"]

    help_id = box.get_attribute("aria-describedby")   # what "decisive step" means, said to screen readers
    expect(form.locator(f'[id="{help_id}"]')).to_contain_text("earliest step whose error")
    box.fill("{{ 7*7 }}")                       # an agent name (and text) with braces: literal search
    expect(options).to_have_text([re.compile(r"^#3 "), re.compile(r"^#4 ")])
    box.fill("{% disk")                         # words of step #4's text, in any order
    expect(options).to_have_text([re.compile(r"^#4 ")])
    box.fill("nothing like this")
    expect(options).to_have_count(0)
    expect(form.locator('[data-ma="step-status"]')).to_contain_text("No step matches")
    box.press("Escape")
    expect(box).to_have_value("")               # nothing chosen yet: nothing put back
    assert hidden_value(page) is None

    choose_step(page, 3)
    chosen = form.locator('[data-ma="chosen"]')
    expect(chosen).to_contain_text(f"Step #4 \u00b7 {steps[3]['agent']}")
    expect(chosen).to_contain_text(steps[3]["text"])            # the step's whole (short) text, as text
    expect(chosen).to_contain_text("Before: #3 ")
    expect(chosen).to_contain_text("After: #5 ")

    box.fill("Bold")                            # a search, then Escape: the choice stays
    expect(options.first).to_have_text(re.compile(r"^#2 "))
    box.press("Escape")
    expect(box).to_have_value(re.compile(r"^#4 "))
    assert hidden_value(page)["decisive_step"] == 3

    box.press("ArrowDown")                      # opens on the chosen step
    expect(form.locator(".ma-combo-active")).to_have_text(re.compile(r"^#4 "))
    box.press("Home")
    expect(form.locator(".ma-combo-active")).to_have_text(re.compile(r"^#1 "))
    box.press("PageDown")                       # ten further, clamped to the last of five
    expect(form.locator(".ma-combo-active")).to_have_text(re.compile(r"^#5 "))
    box.press("Escape")
    expect(box).to_have_attribute("aria-expanded", "false")
    assert hidden_value(page)["decisive_step"] == 3

    box.fill("")                                # an emptied box and Enter: no step chosen
    box.press("Enter")
    expect(box).to_have_value("")
    expect(chosen).to_be_hidden()
    assert hidden_value(page) is None
    expect_incomplete(page)


@pytest.mark.e2e
def test_a_step_is_chosen_with_the_mouse(mounted):
    page = mounted
    form = attribution_form(page)
    step_select(page).click()                   # opens the list
    step_picker_options(form).filter(has_text=re.compile(r"^#2 ")).click()
    expect(step_select(page)).to_have_value(re.compile(r"^#2 "))
    assert hidden_value(page)["decisive_step"] == 1
    expect(step_select(page)).to_have_attribute("aria-expanded", "false")


@pytest.mark.e2e
def test_incomplete_until_agent_and_step_are_chosen(mounted):
    page = mounted
    expect_incomplete(page)
    choose_agent(page, 'Agent "Smith"')
    expect_incomplete(page)
    choose_step(page, 2)
    expect_complete(page)
