"""The runtime's one "Saved but not in this trace" list, on handoff review mounted without Potato
(tests/e2e/mount.py): each saved mark that has no place in the trace is named with a Remove
button; the list stays bounded however many there are ("and N more."); "Remove all" stores the
value without any of them; after a Remove the focus stays in the list.

What reaches Potato's saving (the hidden input, then user_state.json) is proven by
test_handoff_review.py::test_saved_reviews_missing_from_the_trace_are_shown_and_kept.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from . import test_handoff_review as hr
from .harness import restore_in_page, same_value
from .mount import mount

KEPT = hr.entry_of(hr.handoffs_of(hr.FIRST)[3], quality=4)


def aliens(count: int) -> list[dict]:
    """`count` reviews saved for another trace's handoffs (agents this run does not have)."""
    return [dict(hr.ALIEN, **{"from": f"Alice{i}", "to": f"Bob{i}"}) for i in range(count)]


def stale_list(page):
    return hr.form(page).locator("[data-ma=stale-list]")


@pytest.mark.e2e
def test_many_stale_reviews_are_listed_bounded_and_removed_all_at_once(page, tmp_path):
    mount(page, tmp_path, hr.FIRST, [hr.e2e_config()["annotation_schemes"][0]])
    stored = aliens(25) + [KEPT]
    restore_in_page(page, hr.SCHEMA, stored)
    items = stale_list(page).locator("li")
    expect(items).to_have_count(21)   # 20 named, then one line for the rest
    expect(items.first).to_contain_text("Alice0 to Bob0, from_step 0, step 1 (not in this trace)")
    expect(items.last).to_have_text("and 5 more.")
    assert hr.hidden_value(page) == stored   # listed, not rewritten

    stale_list(page).get_by_role("button", name="Remove saved mark: Alice3 to Bob3", exact=False).click()
    # the value without that review: the entries with a card first, then the rest in their order
    assert same_value(hr.hidden_value(page), [KEPT] + aliens(3) + aliens(25)[4:])
    focused = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert focused.startswith("Remove saved mark: Alice4 to Bob4")   # the next Remove, in the same place

    stale_list(page).get_by_role("button", name="Remove all saved marks not in this trace").click()
    expect(stale_list(page)).to_be_hidden()
    assert same_value(hr.hidden_value(page), [KEPT])
    expect(hr.announced(page)).to_have_text("Removed 24 saved marks not in this trace.")


@pytest.mark.e2e
def test_one_stale_review_has_no_remove_all(page, tmp_path):
    mount(page, tmp_path, hr.FIRST, [hr.e2e_config()["annotation_schemes"][0]])
    restore_in_page(page, hr.SCHEMA, aliens(1) + [KEPT])
    expect(stale_list(page).locator("li")).to_have_count(1)
    expect(stale_list(page).get_by_role("button", name="Remove all saved marks not in this trace")).to_be_hidden()
