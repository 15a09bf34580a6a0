"""Each widget mounted without Potato (tests/e2e/mount.py), on the record and config its e2e file
opens first: a value handed over on `potato:instance-ready` (what Potato's in-page reload does,
`restore_in_page`) is drawn, the focused control keeps focus, and the value is not rewritten.

No server: these moved here from the e2e files of each type, whose tests still prove what
reaches Potato's saving (autosave, reload, Next/Prev). Failure attribution's are in
test_dom_failure_attribution.py.
"""

from __future__ import annotations

import re

import pytest
import yaml
from playwright.sync_api import expect

from . import test_agent_interaction_graph as aig
from . import test_agent_scorecard as asc
from . import test_emergent_behavior as eb
from . import test_handoff_review as hr
from . import test_tool_call_review as tcr
from . import test_tool_contention as tc
from .harness import restore_in_page
from .mount import mount


@pytest.mark.e2e
def test_graph_re_renders_from_the_hidden_input_and_keeps_focus(page, tmp_path):
    mount(page, tmp_path, aig.MAGENTIC, [aig.SCHEME])
    aig.node(page, "human").focus()
    marks = {("Orchestrator", "FileSurfer"): "critical"}
    stored = aig.value(["FileSurfer", "human"], marks)
    restore_in_page(page, "graph", stored)
    aig.expect_marks(page, ["FileSurfer", "human"], marks)
    assert aig.focused_label(page) == "Agent human, on the critical path (2 of 2)"
    expect(aig.summary(page)).to_have_text(
        "Critical path: FileSurfer -> human. Flagged edges: Orchestrator to FileSurfer (critical). "
        "No edge from FileSurfer to human in this trace.")
    assert aig.hidden_value(page) == stored   # the re-render reads the value; it does not rewrite it


@pytest.mark.e2e
def test_scorecard_re_renders_from_the_hidden_input(page, tmp_path):
    mount(page, tmp_path, asc.HOSTILE_RUN, [asc.SCORECARD])
    assert asc.checked_choice(page, asc.SMITH, "contribution") is None
    restore_in_page(page, asc.SCHEMA, asc.COMPLETE)
    assert asc.checked_choice(page, asc.SMITH, "contribution") == 5
    assert asc.checked_choice(page, "Team", asc.PACE) == "na"
    expect(asc.milestone_box(page, asc.CHECKED)).to_be_checked()
    expect(asc.step_picker(page, asc.CHECKED)).to_have_value("4")
    asc.expect_complete(page)
    # a restored value is shown, not announced: the summary is no live region, the status line is silent
    expect(asc.summary(page)).not_to_have_attribute("aria-live", re.compile(".*"))
    expect(asc.summary(page).locator("xpath=ancestor::form[1]").locator("[data-ma-sync-notice]")).to_have_text("")
    expect(asc.summary(page)).to_have_text(
        f"{asc.CELLS} of {asc.CELLS} cells scored or not applicable. Milestones reached: {asc.CHECKED}.")
    assert asc.hidden_value(page) == asc.COMPLETE   # the re-render reads the value; it does not rewrite it


@pytest.mark.e2e
def test_emergent_re_renders_from_the_hidden_input_and_keeps_focus(page, tmp_path):
    mount(page, tmp_path, eb.HOSTILE, [eb.scheme_config(eb.CONFIG)])
    eb.turn(page, 3, "A->B").focus()
    value = {"role_drift": eb.entry(([2, 6], "A->B starts acting as the summariser"))}
    eb.assert_valid(value, eb.HOSTILE)
    restore_in_page(page, "emergent", value)
    assert eb.focused_label(page) == "Turn 3 (A->B)"  # the same logical control keeps focus
    expect(eb.summary(page)).to_contain_text("role_drift: episode 1, 2 turns across 2 agents")
    eb.pick_episode(page, "role_drift", 1).click()
    expect(eb.turn(page, 3, "A->B")).to_have_attribute("aria-pressed", "true")
    expect(eb.note_box(page, "role_drift", 1)).to_have_value("A->B starts acting as the summariser")
    expect(eb.form(page)).not_to_have_attribute("data-ma-error", re.compile(".*"))
    assert eb.hidden_value(page) == value  # the re-render reads the value; it does not rewrite it


@pytest.mark.e2e
def test_handoff_review_re_renders_from_the_hidden_input_and_keeps_focus(page, tmp_path):
    mount(page, tmp_path, hr.FIRST, [hr.e2e_config()["annotation_schemes"][0]])
    second = hr.handoffs_of(hr.FIRST)[1]
    hr.quality_radio(page, second, 3).check()
    hr.quality_radio(page, second, 3).focus()
    value = [hr.entry_of(second, quality=5, flags=["garbling"], note="restored")]
    restore_in_page(page, "handoffs", value)

    expect(hr.quality_radio(page, second, 5)).to_be_checked()
    expect(hr.flag_button(page, second, "garbling")).to_have_attribute("aria-pressed", "true")
    expect(hr.note_box(page, second)).to_have_value("restored")
    assert hr.focused(page)["card"] == 1 and hr.focused(page)["focus"] == "q:3"  # the same control keeps focus
    assert hr.hidden_value(page) == value  # the re-render reads the value; it does not rewrite it
    expect(hr.summary(page)).to_have_text("1 of 4 handoffs reviewed, 1 flagged.")


@pytest.mark.e2e
def test_tool_call_review_re_renders_from_the_hidden_input_and_keeps_focus(page, tmp_path):
    scheme = next(s for s in yaml.safe_load(tcr.CONFIG)["annotation_schemes"] if s["name"] == tcr.SCHEMA)
    mount(page, tmp_path, tcr.HOSTILE, [scheme])
    calls = tcr.calls_of(tcr.HOSTILE)
    focused = tcr.verdict(tcr.card(page, tcr.HOSTILE_TITLES[3]), "wrong_args")
    focused.focus()
    value = [tcr.judgement(calls[3], 0, "wrong_args", "restored"), tcr.judgement(calls[0], 0, "correct")]
    restore_in_page(page, tcr.SCHEMA, value)

    expect(focused).to_be_checked()
    expect(focused).to_be_focused()
    expect(tcr.verdict(tcr.card(page, tcr.HOSTILE_TITLES[0]), "correct")).to_be_checked()
    expect(tcr.card(page, tcr.HOSTILE_TITLES[3]).get_by_label("Notes")).to_have_value("restored")
    expect(tcr.review_form(page).locator(".ma-summary")).to_contain_text("2 of 4 tool calls judged")
    assert tcr.hidden_value(page) == value


@pytest.mark.e2e
def test_tool_contention_re_renders_from_the_hidden_input_keeping_focus(page, tmp_path):
    mount(page, tmp_path, tc.BY_ID[tc.MIGRATION], [tc.SCHEME])
    note = tc.region(page, tc.MIGRATION_REGION).get_by_label("Note")
    button = tc.region(page, tc.MIGRATION_REGION).get_by_role("button", name="Region 1", exact=True)
    button.focus()
    value = tc.value_for(tc.BY_ID[tc.MIGRATION], {0: "deadlock"}, note="restored")
    restore_in_page(page, "contention", value)
    expect(tc.region(page, tc.MIGRATION_REGION).get_by_role("radio", name="deadlock")).to_be_checked()
    expect(note).to_have_value("restored")
    expect(button).to_be_focused()
    expect(tc.form(page).locator(".ma-summary")).to_contain_text("1 of 1 contention regions labelled")
    tc.expect_complete(page)
    assert tc.hidden_value(page) == value   # the re-render reads the value; it does not rewrite it
