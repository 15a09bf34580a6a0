"""The trace view mounted without Potato (tests/e2e/mount.py): it derives the page's record with the
derive options its server config carries, through the runtime's one cached page derivation, on a
page with no widget at all and on a page with all seven.

No server: what reaches Potato's saving from the trace view (acting, turn tags) stays in
test_trace_view.py against a real server.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from potato_multiagent import types

from .mount import mount, page_html

RECORD = {"id": "nested", "run": {"turns": [
    {"speaker": "Planner", "content": "Split the trip into flights and hotels.", "to": "Flights"},
    {"speaker": "Flights", "content": "Found a flight at 9:05.", "to": "Hotels"},
    {"speaker": "Hotels", "content": "Booked the Grand.", "to": "Planner"},
]}}
"""Steps at a dotted path, agents under `speaker`: the defaults (`steps`, `agent`) find nothing."""

VIEW = {"key": "run", "type": "multiagent.trace", "label": "Run", "layout": "lanes",
        "steps_key": "run.turns", "agent_key": "speaker"}


def row_agents(page) -> list:
    page.wait_for_function("document.querySelectorAll('section.ma-trace li.ma-trace-row').length > 0",
                           polling=100, timeout=15_000)
    return page.locator("section.ma-trace li.ma-trace-row .ma-trace-agent").all_text_contents()


@pytest.mark.e2e
def test_a_trace_view_alone_derives_with_the_options_of_its_config(page, tmp_path):
    mount(page, tmp_path, RECORD, [], displays=[VIEW])
    assert page.locator("form.multiagent-form").count() == 0
    assert row_agents(page) == ["Planner", "Flights", "Hotels"]
    assert page.locator("section.ma-trace .ma-trace-meta").text_content() == (
        "3 steps, 3 agents, 2 handoffs, 0 tool calls")


@pytest.mark.e2e
def test_with_all_eight_widgets_the_trace_view_shares_their_derivation(page, tmp_path):
    schemes = [{"annotation_type": name, "name": name.split(".")[1], "description": name,
                "steps_key": "run.turns", "agent_key": "speaker"} for name in types.SCHEMES]
    assert len(schemes) == 8
    mount(page, tmp_path, RECORD, schemes, displays=[VIEW])
    assert row_agents(page) == ["Planner", "Flights", "Hotels"]
    shared = page.evaluate("""() => {
      const view = document.querySelector('section.ma-trace').__maTraceView;
      return Array.from(document.querySelectorAll('form.multiagent-form[data-ma-config]')).map((form) =>
        window.PotatoMultiagent.pageDerivation(JSON.parse(form.getAttribute('data-ma-config'))).derivation
          === view.derivation);
    }""")
    assert shared == [True] * 8


@pytest.mark.e2e
def test_a_bundle_loaded_twice_runs_one_runtime_and_one_trace_view(page, tmp_path):
    """The plugin's script on a page twice (a copied tag): the first copy's runtime stays the
    page's (web/page.js), and the second copy's parts run on it and on the views the first drew
    (kept on their sections): the rows are drawn once and a key moves the view by one step."""
    html = page_html(RECORD, [], displays=[VIEW])
    script = re.search(r'<script src="[^"]+"></script>', html).group(0)
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "twice.html").write_text(html.replace(script, script + "\n" + script), encoding="utf-8")
    page.goto((tmp_path / "twice.html").as_uri())
    assert row_agents(page) == ["Planner", "Flights", "Hotels"]
    page.locator('section.ma-trace li.ma-trace-row .ma-trace-step[data-step="0"]').focus()
    page.keyboard.press("ArrowDown")
    expect(page.locator('section.ma-trace .ma-trace-step[data-step="1"]')).to_be_focused()
