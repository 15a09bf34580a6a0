"""The one pager (web/pager.js, `ui.pager`) in the lists that use it, mounted without Potato
(tests/e2e/mount.py): one markup and one wording ("a–b of N <noun>"), the page of item K opened
and K focused, a filter re-counting the list, a page turn announced on the form's status line,
and a button at an end that keeps the focus (aria-disabled, not disabled).

What reaches Potato's saving from these lists stays in each type's e2e file.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from . import test_agent_interaction_graph as aig
from . import test_emergent_behavior as eb
from . import test_handoff_review as hr
from . import test_tool_call_review as tcr
from .mount import mount

HANDOFF_SCHEME = {"annotation_type": hr.TYPE, "name": hr.SCHEMA, "description": "Review the handoffs",
                  "steps_key": "history"}


def pager(form):
    return form.locator('nav[data-ma="pager"]')


def where(form):
    return form.locator('[data-ma="page-where"]')


def status(form):
    return form.locator("[data-ma-sync-notice]")


def focused_hook(page) -> str | None:
    return page.evaluate("() => document.activeElement.getAttribute('data-ma')")


@pytest.mark.e2e
def test_handoff_pages_turn_by_button_and_keyboard_and_say_where_they_are(page, tmp_path):
    record = hr.long_run(400)
    total = len(hr.handoffs_of(record, "history"))
    assert total > 100
    mount(page, tmp_path, record, [HANDOFF_SCHEME])
    form = hr.form(page)
    expect(pager(form)).to_have_attribute("aria-label", "Pages of unreviewed handoffs")
    expect(where(form)).to_have_text(f"1\u201320 of {total} unreviewed handoffs")   # a long list: 20 a page
    previous = form.get_by_role("button", name="Previous page")
    following = form.get_by_role("button", name="Next page")
    expect(previous).to_have_attribute("aria-disabled", "true")
    expect(following).to_have_attribute("aria-disabled", "false")

    following.focus()
    page.keyboard.press("Enter")
    expect(where(form)).to_have_text(f"21\u201340 of {total} unreviewed handoffs")
    expect(status(form)).to_have_text(f"21\u201340 of {total} unreviewed handoffs.")
    assert hr.card_names_on_page(page)[0] == hr.card_name(hr.handoffs_of(record, "history")[20])
    assert focused_hook(page) == "page-next"   # the button keeps the focus

    last_page = (total - 1) // 20
    for _ in range(last_page - 1):
        page.keyboard.press("Enter")
    expect(where(form)).to_have_text(f"{last_page * 20 + 1}\u2013{total} of {total} unreviewed handoffs")
    expect(following).to_have_attribute("aria-disabled", "true")
    page.keyboard.press("Enter")   # at the end: nothing moves, the focus stays
    expect(where(form)).to_have_text(f"{last_page * 20 + 1}\u2013{total} of {total} unreviewed handoffs")
    assert focused_hook(page) == "page-next"
    expect(previous).to_have_attribute("aria-disabled", "false")


@pytest.mark.e2e
def test_handoff_jump_opens_the_page_of_k_and_a_filter_recounts(page, tmp_path):
    record = hr.long_run(400)
    handoffs = hr.handoffs_of(record, "history")
    total = len(handoffs)
    mount(page, tmp_path, record, [HANDOFF_SCHEME])
    form = hr.form(page)
    jump = form.get_by_label("Jump to handoff")
    jump.fill("120")
    jump.press("Enter")
    assert hr.focused(page)["card"] == 119
    expect(where(form)).to_have_text(f"101\u2013120 of {total} unreviewed handoffs")

    form.get_by_label("Show").select_option("flagged")
    expect(pager(form)).to_be_hidden()   # nothing to page: the empty line says why
    expect(status(form)).to_have_text("No flagged handoffs.")
    expect(form.locator('[data-ma="empty"]')).to_be_visible()
    form.get_by_label("Show").select_option("all")
    expect(pager(form)).to_have_attribute("aria-label", "Pages of handoffs")
    expect(where(form)).to_have_text(f"1\u201320 of {total} handoffs")
    expect(status(form)).to_have_text(f"1\u201320 of {total} handoffs.")

    hr.card(page, handoffs[1]).get_by_role("button", name="Show review").click()   # folded: one card is open
    hr.flag_button(page, handoffs[1], "garbling").click()
    form.get_by_label("Show").select_option("flagged")
    expect(where(form)).to_have_text("1\u20131 of 1 flagged handoffs")
    expect(form.get_by_role("button", name="Next page")).to_have_attribute("aria-disabled", "true")
    jump.fill("200")   # hidden by the filter: the list goes back to every handoff, on the page of 200
    jump.press("Enter")
    assert hr.focused(page)["card"] == 199
    expect(where(form)).to_have_text(f"181\u2013200 of {total} handoffs")


@pytest.mark.e2e
def test_tool_call_pager_hides_on_one_page_and_opens_the_page_of_a_call(page, tmp_path):
    record = tcr.long_trace(45)
    mount(page, tmp_path, record, [tcr.scheme_config()])
    form = tcr.review_form(page)
    expect(where(form)).to_have_text("1\u201320 of 45 tool calls")
    form.get_by_role("button", name="Next page").click()
    expect(where(form)).to_have_text("21\u201340 of 45 tool calls")
    expect(status(form)).to_have_text("21\u201340 of 45 tool calls.")
    form.get_by_role("combobox", name="Agent", exact=True).select_option(label="Agent 1")
    expect(pager(form)).to_be_hidden()   # 9 calls fit on one page
    expect(form.locator(".ma-tcr-matches")).to_have_text("9 of 45 tool calls match these filters.")
    expect(form.locator("li[data-ma-call]")).to_have_count(9)
    form.get_by_role("combobox", name="Agent", exact=True).select_option(label="All agents")
    expect(where(form)).to_have_text("1\u201320 of 45 tool calls")
    expect(form.locator(".ma-tcr-matches")).to_be_hidden()


@pytest.mark.e2e
def test_graph_details_page_an_agents_steps(page, tmp_path):
    steps = [{"agent": "Lead" if index % 2 == 0 else "Helper", "content": f"step {index}"} for index in range(130)]
    record = {"id": "long-graph", "steps": steps}
    mount(page, tmp_path, record, [aig.SCHEME])
    form = aig.graph_form(page)
    aig.node(page, "Lead").focus()
    expect(where(form)).to_have_text("1\u201350 of 65 steps")
    expect(form.locator('[data-ma-aig="details-text"]')).to_contain_text("65 steps by this agent: #1, #3")
    form.get_by_role("button", name="Next page").click()
    expect(where(form)).to_have_text("51\u201365 of 65 steps")
    expect(form.locator('[data-ma-aig="details-text"]')).to_contain_text("#101, #103")
    aig.node(page, "Helper").focus()   # another agent: its first page
    expect(where(form)).to_have_text("1\u201350 of 65 steps")


@pytest.mark.e2e
def test_emergent_lanes_say_the_turns_shown_while_a_lane_is_hidden(page, tmp_path):
    mount(page, tmp_path, eb.DEBATE, [eb.scheme_config(eb.CONFIG)])
    form = eb.form(page)
    expect(pager(form)).to_be_hidden()   # 11 turns fit on one page: no dead buttons in the tab order
    form.get_by_label("Moderator (4)", exact=True).uncheck()
    expect(pager(form)).to_have_attribute("aria-label", "Pages of turns shown")
    expect(where(form)).to_have_text("1\u20137 of 7 turns shown")
    expect(status(form)).to_have_text("Showing 3 of 4 lanes. 1\u20137 of 7 turns shown.")


@pytest.mark.e2e
def test_axe_finds_no_serious_violation_in_the_pagers(page, tmp_path):
    """Every list long enough to show its pager on one page (the examples' runs fit on one page,
    so test_accessibility's audit sees the pager of handoff review only)."""
    from .test_accessibility import AXE_SCRIPT, ours, run_axe

    assert AXE_SCRIPT.exists(), "node_modules/axe-core is missing: run `bash scripts/setup.sh`"
    record = hr.long_run(400)
    steps = [{"agent": "Lead" if index % 2 == 0 else "Helper", "content": f"step {index}"} for index in range(130)]
    record["steps"] = steps + tcr.long_trace(45)["steps"]
    mount(page, tmp_path, record, [HANDOFF_SCHEME, tcr.scheme_config(), aig.SCHEME])
    aig.node(page, "Lead").focus()
    for form in (hr.form(page), tcr.review_form(page), aig.graph_form(page)):
        expect(pager(form)).to_be_visible()
    page.add_script_tag(path=str(AXE_SCRIPT))
    inside, _ = ours(page, run_axe(page))
    serious = [finding for finding in inside if finding["impact"] in ("serious", "critical")]
    assert serious == [], "\n".join(f"{f['id']} at {f['node']['target']}: {f['node']['summary']}" for f in serious)


@pytest.mark.e2e
def test_marking_a_long_list_fine_keeps_the_page_it_was_on(page, tmp_path):
    """The bulk mark draws the page again (every card a line): the same page, 20 cards to it."""
    record = hr.long_run(400)
    total = len(hr.handoffs_of(record, "history"))
    mount(page, tmp_path, record, [HANDOFF_SCHEME])
    form = hr.form(page)
    form.get_by_label("Show").select_option("all")
    form.get_by_role("button", name="Next page").click()
    expect(where(form)).to_have_text(f"21\u201340 of {total} handoffs")
    form.get_by_role("button", name="Mark all unreviewed handoffs as fine").click()
    expect(where(form)).to_have_text(f"21\u201340 of {total} handoffs")
    expect(form.locator(".ma-hr-body:visible")).to_have_count(0)
