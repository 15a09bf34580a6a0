"""End-to-end contract of `multiagent.failure_attribution` in a real Potato 2.12.1 page.

The widget's DOM contract, as these tests read it:
- `form.annotation-form[data-schema-name="attribution"]` with a `<legend>` (the description,
  literally) and `data-ma-ready="true"` once rendered;
- three controls found by accessible name: "Responsible agent" (select), "Decisive step" (a
  searchable combobox whose listbox "Steps to choose from" draws a window of options), "Reason"
  (textarea);
- the hidden `input.annotation-input[name="attribution:::attribution"]` holding
  `{"responsible_agent": str|null, "decisive_step": int|null, "reason": str}`, autosaved by Potato;
- agent options: the roster, then the observed agents, by full name; step options `#N agent
  snippet` (N = index + 1); the step box shows the chosen option's words; a stored mark the trace
  lacks is a selected agent option, or step box words, saying "not in this trace";
- `data-incomplete-reason` on the form while agent or step is missing, absent once both are chosen.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive, validate_value
from tests.step_identity import fingerprint

from .harness import (
    click_next_expecting_block,
    choose_decisive_step,
    step_picker,
    step_picker_options,
    CONFIGS_DIR,
    EXAMPLES_DIR,
    annotation_pairs,
    current_instance_id,
    go_next,
    go_prev,
    login,
    open_annotate,
    radio_answer,
    returning_user_state,
    wait_saved_json,
)

EXAMPLE = "failure-attribution"
TEST_CONFIG_FILE = CONFIGS_DIR / "failure-attribution-hostile.yaml"
TEST_CONFIG = "e2e-hostile.yaml"
SCHEMA = "attribution"
HOSTILE_DESCRIPTION = "Who {{ 7*7 }} failed {# not a comment"
REASON = "It claimed <b>html</b> was safe and left {{ x }} as it was."

GHOST_USER = f"ghost-{uuid.uuid4().hex[:8]}"
GHOST_VALUE = {"responsible_agent": "Ghost", "decisive_step": 99, "reason": "seeded before the server started"}


# --------------------------------------------------------------------------- the task under test


def load_config() -> dict:
    return yaml.safe_load(TEST_CONFIG_FILE.read_text(encoding="utf-8"))


def attribution_config() -> dict:
    return next(scheme for scheme in load_config()["annotation_schemes"] if scheme["name"] == SCHEMA)


def load_records() -> list[dict]:
    """The instances the test config serves, in order."""
    records = []
    for data_file in load_config()["data_files"]:
        lines = (EXAMPLES_DIR / EXAMPLE / data_file).read_text(encoding="utf-8").splitlines()
        records.extend(json.loads(line) for line in lines if line.strip())
    return records


RECORDS = load_records()
FIRST = RECORDS[0]  # the run with hostile agent names


def first_step_ref(index: int) -> str:
    """The identity of FIRST's step ``index`` (its steps carry no ids and plain texts)."""
    step = FIRST["steps"][index]
    return fingerprint(step["agent"], step["content"])


def derivation_of(record: dict) -> dict:
    scheme = attribution_config()
    return derive(record, steps_key=scheme["steps_key"], agent_key=scheme["agent_key"],
                  agents=scheme.get("agents")).to_dict()


@pytest.fixture(scope="module")
def task(potato_task):
    ghost_answers = annotation_pairs({FIRST["id"]: {SCHEMA: json.dumps(GHOST_VALUE)}})
    ghost_answers[FIRST["id"]].append(radio_answer("outcome", "failure"))
    ghost = returning_user_state(GHOST_USER, [record["id"] for record in RECORDS], ghost_answers)
    return potato_task(EXAMPLE, config=TEST_CONFIG, files={TEST_CONFIG: TEST_CONFIG_FILE},
                       users={GHOST_USER: ghost})


@pytest.fixture
def user(task, page) -> str:
    """A fresh annotator, logged in and looking at the first instance."""
    name = f"fa-{uuid.uuid4().hex[:12]}"
    login(page, task.base_url, name)
    assert current_instance_id(page) == FIRST["id"]
    return name


# --------------------------------------------------------------------------- page helpers


def attribution_form(page):
    return page.locator(f'form.annotation-form[data-schema-name="{SCHEMA}"]')


def agent_select(page):
    return attribution_form(page).get_by_label("Responsible agent")


def step_select(page):
    """The step picker (a combobox; the name is kept from the <select> it replaced)."""
    return step_picker(attribution_form(page))


def reason_box(page):
    return attribution_form(page).get_by_label("Reason")


def hidden_value(page):
    raw = page.locator(f'input.annotation-input[name="{SCHEMA}:::{SCHEMA}"]').input_value()
    return json.loads(raw) if raw else None


def choose_outcome(page, outcome: str) -> None:
    page.locator(f'form[data-schema-name="outcome"] input[type="radio"][value="{outcome}"]').check()


def open_attribution(page) -> None:
    """Mark the run failed, which shows the attribution (display_logic), and wait for the widget."""
    choose_outcome(page, "failure")
    expect(attribution_form(page)).to_be_visible()
    expect(attribution_form(page)).to_have_attribute("data-ma-ready", "true")


def options(select) -> list[dict]:
    return select.evaluate(
        "s => [...s.options].map(o => ({value: o.value, label: o.label, selected: o.selected}))"
    )


def chosen_labels(select) -> list[str]:
    """Labels of the options that stand for a choice (the empty placeholder left out)."""
    return [option["label"] for option in options(select) if option["value"] != ""]


def selected_label(select) -> str:
    return next(option["label"] for option in options(select) if option["selected"])


def step_words(page) -> str:
    """What the step box shows: the chosen step's option words ("" when none is chosen)."""
    return step_select(page).input_value()


def step_option(page, index: int) -> dict:
    """The option of step `index` (0-based), labelled `#index+1 ...`: searched for by its number,
    the first match (matches come in step order); the search is then dropped with Escape."""
    box = step_select(page)
    box.fill(f"#{index + 1}")
    first = step_picker_options(attribution_form(page)).first
    expect(first).to_have_text(re.compile(rf"^#{index + 1}(?!\d)"))
    found = {"label": first.text_content(), "setsize": first.get_attribute("aria-setsize")}
    box.press("Escape")
    return found


def choose_agent(page, agent: str) -> None:
    agent_select(page).select_option(label=agent)


def choose_step(page, index: int) -> None:
    choose_decisive_step(attribution_form(page), index + 1)


def expect_complete(page) -> None:
    expect(attribution_form(page)).not_to_have_attribute("data-incomplete-reason", re.compile(".*"))


def expect_incomplete(page) -> None:
    expect(attribution_form(page)).to_have_attribute("data-incomplete-reason", re.compile(r"\S"))


def expect_restored(page, agent: str, step: int, reason: str) -> None:
    expect(attribution_form(page)).to_have_attribute("data-ma-ready", "true")
    assert selected_label(agent_select(page)) == agent
    assert step_words(page) == step_option(page, step)["label"]
    expect(reason_box(page)).to_have_value(reason)


# --------------------------------------------------------------------------- config


# --------------------------------------------------------------------------- rendering


@pytest.mark.e2e
def test_attribution_is_hidden_until_the_run_is_marked_failed(task, page, user):
    expect(attribution_form(page)).to_be_hidden()
    open_attribution(page)
    expect(agent_select(page)).to_be_visible()
    expect(step_select(page)).to_be_visible()
    expect(reason_box(page)).to_be_visible()


# --------------------------------------------------------------------------- value


@pytest.mark.e2e
def test_choice_is_saved_exactly_and_restored(task, page, user):
    open_attribution(page)
    choose_agent(page, 'Agent "Smith"')
    choose_step(page, 2)
    reason_box(page).fill(REASON)
    expected = {"responsible_agent": 'Agent "Smith"', "decisive_step": 2, "decisive_step_ref": first_step_ref(2),
                "reason": REASON}

    saved = wait_saved_json(task, user, FIRST["id"], SCHEMA, expected)
    assert validate_value("multiagent.failure_attribution", attribution_config(), saved, FIRST) == []

    open_annotate(page, task.base_url)
    expect_restored(page, 'Agent "Smith"', 2, REASON)

    go_next(page)
    assert go_prev(page) == FIRST["id"]
    expect_restored(page, 'Agent "Smith"', 2, REASON)
    assert hidden_value(page) == expected


@pytest.mark.e2e
def test_stored_marks_missing_from_the_trace_are_shown_and_kept(task, page):
    login(page, task.base_url, GHOST_USER)
    open_attribution(page)
    agent_label = selected_label(agent_select(page))
    assert "Ghost" in agent_label and "not in this trace" in agent_label
    assert "not in this trace" in step_words(page)
    assert hidden_value(page) == GHOST_VALUE


# --------------------------------------------------------------------------- Potato's navigation


@pytest.mark.e2e
def test_attribution_without_agent_blocks_next_and_says_what_is_missing(task, page, user):
    """Potato adds the widget's `data-incomplete-reason` to its message only once the hidden
    input holds a value, so a step is chosen here and the agent is not."""
    open_attribution(page)
    choose_step(page, 2)
    expect_incomplete(page)
    shortfall = attribution_form(page).get_attribute("data-incomplete-reason").strip()

    message = click_next_expecting_block(page, HOSTILE_DESCRIPTION, FIRST["id"])
    expect(message).to_contain_text(f"({shortfall})")


@pytest.mark.e2e
def test_success_hides_the_attribution_and_does_not_block_next(task, page, user):
    choose_outcome(page, "success")
    expect(attribution_form(page)).to_be_hidden()
    assert go_next(page) == RECORDS[1]["id"]


# --------------------------------------------------------------------------- re-render (SPEC §6)


def summary(page):
    return attribution_form(page).locator(".ma-summary")


# --------------------------------------------------------------------------- the runtime's step events


@pytest.mark.e2e
def test_the_step_link_and_the_trace_views_step_action(task, page, user):
    """The runtime's step hooks (issue 13) on a page without a trace view: the chosen step's `#N`
    is plain text (a link would have nothing to show; tests/e2e/test_trace_view.py follows the
    links), the form declares the action it takes, and the trace view's "choose as decisive step"
    action (`multiagent:step-action`) chooses it here, stored like a pick in the combobox; an
    action aimed at another scheme changes nothing."""
    open_attribution(page)
    choose_step(page, 2)
    expect(attribution_form(page).locator('[data-ma="step-number"]')).to_have_text("#3")
    expect(attribution_form(page).get_by_role("button", name=re.compile("in the trace"))).to_have_count(0)
    expect(attribution_form(page)).to_have_attribute("data-ma-step-actions", "decisive")

    # As web/trace_view.js sends it: cancelable; the widget that takes the action cancels it.
    act = """([target, index]) => !document.dispatchEvent(new CustomEvent('multiagent:step-action',
        {cancelable: true, detail: {action: 'decisive', index: index, target: target}}))"""
    assert page.evaluate(act, [SCHEMA, 1]) is True
    expect(step_select(page)).to_have_value(re.compile(r"^#2 "))
    expected = {"responsible_agent": None, "decisive_step": 1, "decisive_step_ref": first_step_ref(1), "reason": ""}
    wait_saved_json(task, user, FIRST["id"], SCHEMA, expected)
    assert page.evaluate(act, ["another_scheme", 0]) is False
    assert hidden_value(page) == expected
    expect(step_select(page)).to_have_value(re.compile(r"^#2 "))


BUNDLE_HEADER = re.compile(r"^/\* ==== (\S+) ==== \*/$", re.MULTILINE)


def test_the_page_loads_the_code_of_its_one_type_and_of_no_other(task, page, user):
    """Pay only for what the page uses (issue 34): this config names failure_attribution and no
    trace view, so the page's one script and one sheet hold the shared core and that type alone."""
    loaded = page.evaluate("""() => performance.getEntriesByType('resource').map((entry) => entry.name)
      .filter((name) => name.includes('/plugin-static/multiagent/'))""")
    assert len(loaded) == 2, loaded
    bundled = {}
    for url in loaded:
        response = page.request.get(url)
        assert response.ok, url
        bundled[url.split("?")[0].rsplit(".", 1)[1]] = BUNDLE_HEADER.findall(response.text())
    # the runtime's part and the type's; no other type's, no trace view (the type has no style sheet)
    assert bundled == {"js": ["core", "failure_attribution"], "css": ["core"]}
