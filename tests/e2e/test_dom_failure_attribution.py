"""Failure attribution mounted without Potato (tests/e2e/mount.py): what the widget does with a
value Potato hands it on `potato:instance-ready`. No server: Potato's saving is proven in
test_failure_attribution.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from potato_multiagent import validate_value

from .harness import restore_in_page
from .mount import mount
from .test_failure_attribution import (FIRST, REASON, SCHEMA, agent_select, attribution_config, attribution_form,
                                       derivation_of, expect_complete, expect_restored, hidden_value, selected_label,
                                       step_option, step_words, summary)


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

    expect_restored(page, 'Agent "Smith"', 2, REASON)
    expect(attribution_form(page)).not_to_have_attribute("data-ma-error", re.compile(".*"))
    expect_complete(page)
    expect(summary(page)).to_have_attribute("aria-live", "polite")
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
