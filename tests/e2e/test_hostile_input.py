"""Hostile input against all seven types on one page (issue 8; SPEC §6).

One record (`tests/e2e/hostile/record.json`) puts attribute-breaking strings, `<script>`,
`<img onerror>`, `->`, quotes, right-to-left and zero-width characters, `{{ 7*7 }}`, `{#` and
100 KB strings in every field the widgets show, and one config (`hostile/schemes.yaml`) does the
same to every description and label. Every payload calls `__fire(MARKER)`, recorded by the page.

Potato core runs some of these payloads on its own (docs/security.md): its `instance_data` script
element is written without escaping `</script>`, so a `</script>` in any top-level string or list
field ends the element and the rest of the record is parsed as HTML. With our plugin on, every
page's JSON blocks are made inert (guard.py), so the pages here are checked as served: nothing
runs at all, where the same record on Potato alone runs its payloads. The record that closes
script elements in every field, in all three trace-view layouts, is test_inert_record.py's.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
from playwright.sync_api import expect

from potato_multiagent import derive

from .harness import login, step_picker, step_picker_options
from .hostile import (CONFIG_FILE, FIRE_PROBE, HERE, TRACE_DISPLAY, big, record, scheme, schemes,
                      task_config, task_files)

RECORD = record()
DERIVATION = derive(RECORD).to_dict()
AGENTS = DERIVATION["agents"]
A_ATTR, A_IMG, A_SCRIPT, A_ARROW, A_BIDI, A_BIG = AGENTS
TOOLS = [call["tool"] for call in DERIVATION["tool_calls"]]
RESOURCES = [region["resource"] for region in DERIVATION["contentions"]]
CALL_TOOLS = [call["tool"] for call in RECORD["calls"]]
SEVEN = schemes()
SCHEMA_NAMES = [item["name"] for item in SEVEN]
FORMS = "form.multiagent-form"

# What each widget must show verbatim: the names of the trace and the labels of its config.
SHOWN = {
    "attribution": AGENTS,
    "graph": AGENTS,
    "handoffs": AGENTS + scheme("handoffs")["flags"] + [RECORD["steps"][0]["content"]],
    "scorecard": AGENTS + scheme("scorecard")["agent_dimensions"] + scheme("scorecard")["team_dimensions"]
    + scheme("scorecard")["milestones"],
    "contention": AGENTS + RESOURCES + CALL_TOOLS + scheme("contention")["contention_labels"],
    "emergent": AGENTS + scheme("emergent")["behaviors"],
    "review": TOOLS + [A_ATTR, A_IMG, A_SCRIPT, A_ARROW] + scheme("review")["verdict_options"]
    + ["<img src=x onerror=window.__pwned=1,__fire('arg-img')>",
       "<script>window.__pwned=1,__fire('arg-script')</script>"],
    # the severities show beside a tag, and this page has none
    "mast": [mode[key] for mode in scheme("mast")["taxonomy"]["modes"] for key in ("code", "name")],
}

# Fires every inline handler an injected attribute could have added, without clicking anything.
PROVOKE = """() => {
    for (const element of document.querySelectorAll('*')) {
        for (const type of ['mouseover', 'mouseenter', 'focus', 'pointerover', 'animationstart']) {
            element.dispatchEvent(new Event(type));
        }
    }
}"""

# Everything of a form an annotator or a screen reader meets: text, accessible names, titles and
# option labels, with the attribute values the widgets set.
FORM_TEXT = """form => {
    const parts = [form.textContent];
    for (const element of form.querySelectorAll('*')) {
        for (const name of ['aria-label', 'title', 'aria-description', 'label']) {
            if (element.hasAttribute(name)) { parts.push(element.getAttribute(name)); }
        }
        if (element.tagName === 'OPTION') { parts.push(element.label); }
    }
    return parts.join('\\n');
}"""

# What a script could leave in our forms: elements and attributes that run code.
ACTIVE_CONTENT = """() => [...document.querySelectorAll('form.multiagent-form, form.multiagent-form *')].flatMap(el => {
    const found = [];
    if (['SCRIPT', 'IMG', 'IFRAME', 'OBJECT', 'EMBED'].includes(el.tagName)) { found.push(el.tagName); }
    for (const attribute of el.attributes) {
        if (/^on/i.test(attribute.name)) { found.push(el.tagName + ' ' + attribute.name); }
        if (/^\\s*javascript:/i.test(attribute.value)) { found.push(el.tagName + ' ' + attribute.name + '=js'); }
    }
    return found;
})"""


def escape_instance_data(route) -> None:
    """Serve a page without our plugin (no guard) with Potato's `instance_data` leak escaped, to
    take the verdict on another of its findings alone."""
    response = route.fetch()
    html = response.text()
    start = html.find('<script id="instance_data"')
    end = html.find('<script id="suggestions"', start)
    if start < 0 or end < 0:
        route.fulfill(response=response)
        return
    body_start = html.index(">", start) + 1
    closing = html.rindex("</script>", body_start, end)
    inner = html[body_start:closing].replace("</", "<\\/")
    route.fulfill(response=response, body=html[:body_start] + inner + html[closing:])


# --------------------------------------------------------------------------- servers and pages


BUILT_IN_DESCRIPTION = "Run ok? <img src=x onerror=window.__pwned=1,__fire('desc-radio')>"


def built_in_radio() -> dict:
    """A plain built-in radio, required, whose description carries markup."""
    return {"annotation_type": "radio", "name": "plain", "description": BUILT_IN_DESCRIPTION,
            "labels": ["yes", "no"], "label_requirement": {"required": True}}


def our_schemes() -> list[dict]:
    """The seven schemes, the handoff review required, and the built-in radio: Next provokes
    Potato's required banner with two legends that carry markup."""
    return [dict(item, label_requirement={"required": True}) if item["name"] == "handoffs" else item
            for item in SEVEN] + [built_in_radio()]


@pytest.fixture(scope="module")
def ours(potato_task):
    return potato_task(HERE, config=CONFIG_FILE, files=task_files(task_config("seven types", our_schemes())))


@pytest.fixture(scope="module")
def baseline(potato_task):
    """The same record on a page without our plugin: Potato's agent_trace display and a radio."""
    return potato_task(HERE, config=CONFIG_FILE,
                       files=task_files(task_config("baseline", [built_in_radio()], TRACE_DISPLAY, plugins=())))


def log_in(page, task, prefix: str) -> str:
    """A fresh annotator on the hostile record (`login` opens /annotate itself, so a Playwright
    route on it sees the page)."""
    user = f"{prefix}-{uuid.uuid4().hex[:10]}"
    login(page, task.base_url, user)
    return user


def wait_widgets(page) -> None:
    for name in SCHEMA_NAMES:
        expect(form(page, name)).to_have_attribute("data-ma-ready", "true", timeout=30_000)


def form(page, name: str):
    return page.locator(f'{FORMS}[data-schema-name="{name}"]')


def fired(page) -> set[str]:
    return set(page.evaluate("window.__fired"))


def provoke(page) -> None:
    page.evaluate(PROVOKE)
    page.wait_for_timeout(300)


def hidden(page, name: str) -> str:
    return page.locator(f'input.annotation-input[name="{name}:::{name}"]').input_value()


# --------------------------------------------------------------------------- no script runs


@pytest.mark.e2e
def test_no_script_runs_on_the_seven_types_as_served(ours, page, dialogs):
    log_in(page, ours, "quiet")
    wait_widgets(page)
    provoke(page)
    assert page.evaluate("typeof window.__pwned") == "undefined", fired(page)
    assert fired(page) == set() and dialogs == []
    assert page.evaluate(ACTIVE_CONTENT) == []


@pytest.mark.e2e
def test_what_potato_alone_runs_nothing_runs_with_the_plugin(ours, baseline, page, dialogs):
    log_in(page, baseline, "baseline")
    provoke(page)
    potato_alone = fired(page)
    assert {"agent-script", "tool-img", "call-tool"} <= potato_alone, (
        "Potato's instance_data leak (docs/security.md) no longer runs these: update the doc", potato_alone)

    log_in(page, ours, "with-ours")
    wait_widgets(page)
    provoke(page)
    assert fired(page) == set()
    assert page.evaluate(ACTIVE_CONTENT) == [] and dialogs == []


def press_next_while_incomplete(page) -> None:
    page.click("#next-btn")
    expect(page.locator("#required-fields-error")).to_be_visible()
    page.wait_for_timeout(500)


@pytest.mark.e2e
def test_potatos_required_banner_runs_markup_from_a_built_in_description(baseline, page, dialogs):
    page.route(re.compile(r"/annotate"), escape_instance_data)
    log_in(page, baseline, "banner")
    assert fired(page) == set()
    press_next_while_incomplete(page)
    assert fired(page) == {"desc-radio"}, "Potato inserts the legend text with innerHTML (docs/security.md)"


@pytest.mark.e2e
def test_with_our_plugin_the_required_banner_shows_every_legend_as_text(ours, page, dialogs):
    log_in(page, ours, "banner-text")
    wait_widgets(page)
    press_next_while_incomplete(page)
    banner = page.locator("#required-fields-error")
    expect(banner).to_contain_text(scheme("handoffs")["description"])
    expect(banner).to_contain_text(BUILT_IN_DESCRIPTION)
    expect(banner.locator("strong")).to_have_count(2)
    assert banner.locator("img, script").count() == 0
    assert fired(page) == set() and dialogs == []


# --------------------------------------------------------------------------- shown verbatim


@pytest.fixture(scope="module")
def shown_page(ours, browser):
    """One logged-in page on the seven types, as served (read-only checks share it)."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(FIRE_PROBE)
    log_in(page, ours, "reader")
    wait_widgets(page)
    yield page
    context.close()


@pytest.mark.e2e
@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_name_and_label_shows_verbatim(shown_page, name):
    text = form(shown_page, name).evaluate(FORM_TEXT)
    missing = [value[:60] for value in SHOWN[name] if shown_part(value) not in text]
    assert missing == [], f"{name} does not show these verbatim"


def shown_part(value: str) -> str:
    """What must appear verbatim: the whole value, or the start of a 100 KB one (widgets may cut
    a name that long in labels and accessible names; the stored value keeps it whole)."""
    return value if len(value) < 1000 else value[:40]


@pytest.mark.e2e
@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_description_is_the_legend_and_braces_are_never_evaluated(shown_page, name):
    expect(form(shown_page, name).locator("legend.ma-legend")).to_have_text(scheme(name)["description"])
    text = form(shown_page, name).evaluate(FORM_TEXT)
    assert "{{ 7*7 }}" in text and "49" not in text
    assert "{#" in text
    expect(shown_page.locator("#next-btn")).to_be_visible()  # `{#` did not swallow the rest of the page


@pytest.mark.e2e
def test_accessible_names_carry_hostile_names_whole(shown_page):
    graph = form(shown_page, "graph")
    for agent in (A_ATTR, A_IMG, A_SCRIPT, A_ARROW, A_BIDI):
        expect(graph.get_by_role("button", name=f"Agent {agent}", exact=True)).to_have_count(1)
    scorecard = form(shown_page, "scorecard")
    dimension = scheme("scorecard")["agent_dimensions"][0]
    expect(scorecard.get_by_role("radiogroup", name=f"{A_IMG}: {dimension}", exact=True)).to_have_count(1)
    review = form(shown_page, "review")
    verdict = scheme("review")["verdict_options"][1]
    expect(review.get_by_role("radio", name=verdict, exact=True)).not_to_have_count(0)
    expect(form(shown_page, "attribution").get_by_label("Responsible agent")
           .locator("option", has_text=A_BIDI)).to_have_count(1)


@pytest.mark.e2e
def test_the_step_picker_searches_and_shows_hostile_steps_as_text(ours, page, dialogs):
    """Issue 18's step picker: options, search and the chosen step's text are inert text."""
    log_in(page, ours, "picker")
    wait_widgets(page)
    attribution = form(page, "attribution")
    box = step_picker(attribution)
    box.fill(A_IMG)                                 # search by an agent name full of markup
    options = step_picker_options(attribution)
    expect(options.first).to_have_text(re.compile(r"^#2 "))
    assert A_IMG in options.first.text_content()
    box.fill("#3")
    expect(options.first).to_have_text(re.compile(r"^#3 "))
    box.press("Enter")                              # step #3: 100 KB of text with a script in it
    chosen = attribution.locator('[data-ma="chosen"]')
    expect(chosen).to_contain_text("Step #3 \u00b7 " + A_SCRIPT)
    expect(chosen).to_contain_text("big step-text: {{ 7*7 }} {# <script>")
    assert len(chosen.locator(".ma-fa-chosen-text").first.text_content()) < 1_000  # folded
    chosen.get_by_text("Show the whole step").click()
    expect(chosen.locator("details .ma-fa-chosen-text")).to_contain_text("big step-text")
    assert json.loads(hidden(page, "attribution"))["decisive_step"] == 2
    provoke(page)
    assert fired(page) == set() and dialogs == []
    assert page.evaluate(ACTIVE_CONTENT) == []


def test_big_strings_are_100_kb_and_distinct():
    assert len(big("agent")) == 100_000 and big("agent") != big("tool")
    assert A_BIG == big("agent") and "49" not in A_BIG
