"""End-to-end contract of `multiagent.tool_contention` in a real Potato 2.12.1 page.

The widget's DOM contract, as these tests read it:
- `form.annotation-form[data-schema-name="contention"]`, `data-ma-ready="true"` once rendered;
- one SVG timeline with a lane per agent (`role=group`, "Calls of AGENT"); each call a block
  (`role=button`) named "AGENT TOOL on RESOURCE from T1 to T2, region K"; one call block is in the tab order
  and arrow keys move between calls; region bands are one `path.ma-tc-band-*` per lane;
- each region a group "Region K: RESOURCE, T1 to T2, AGENTS" holding a "Region K" toggle button
  (`aria-pressed`), a radio group "Label", a "Note" text field and, when linked, a button that
  labels the whole linked set;
- the hidden `input.annotation-input[name="contention:::contention"]` holding
  `{"contentions": {idx: label}, "regions": [...]}`, autosaved by Potato;
- `data-incomplete-reason` on the form while regions are unlabelled.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive, validate_value

from .harness import (
    click_next_expecting_block,
    EXAMPLES_DIR,
    annotation_pairs,
    current_instance_id,
    go_next,
    go_prev,
    login,
    navigation_started,
    open_annotate,
    returning_user_state,
    wait_saved_json,
)

TYPE = "multiagent.tool_contention"
EXAMPLE = "tool-contention"
SCHEMA = "contention"
DESCRIPTION = "Label {{ 7*7 }} contention {# not a comment"
ODD_LABEL = "<b>odd</b> {{ x }}"
LABELS = ["deadlock", "circular_wait", "race_condition", "benign", ODD_LABEL]
PWN_AGENT = '<img src=x onerror="window.__pwned=1">'
LONG_TOOL = "T" * 100_000

HOSTILE = {"id": "hostile-004", "task": "Hostile names", "calls": [
    {"agent": PWN_AGENT, "tool": 'x" onmouseover="window.__pwned=2', "resource": "{{ 7*7 }}", "start": 0, "end": 5},
    {"agent": 'Agent "Smith"', "tool": LONG_TOOL, "resource": "{{ 7*7 }}", "start": 1, "end": 6},
]}
SCHEME = {"annotation_type": TYPE, "name": SCHEMA, "description": DESCRIPTION, "contention_labels": LABELS,
          "label_requirement": {"required": True}}


def task_config(name: str, data_files: list[str], scheme: dict) -> str:
    return yaml.safe_dump({
        "annotation_task_name": name, "task_dir": ".", "data_files": data_files,
        "item_properties": {"id_key": "id", "text_key": "task"}, "output_annotation_dir": "annotation_output",
        "plugins": ["multiagent"], "require_password": False, "annotation_schemes": [scheme]})


def read_records(*files: str) -> list[dict]:
    lines = []
    for name in files:
        lines += (EXAMPLES_DIR / EXAMPLE / "data" / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


RECORDS = read_records("numeric.jsonl", "iso.jsonl") + [HOSTILE]
BY_ID = {record["id"]: record for record in RECORDS}
MIGRATION, CYCLE, DEPLOY = "schema-migration-001", "circular-wait-002", "deploy-window-003"


def value_for(record: dict, labels: dict[int, str], note: str = "") -> dict:
    """The value the widget stores for `{region index: label}` on `record`."""
    derivation = derive(record).to_dict()
    calls = {call["index"]: call for call in derivation["calls"]}
    regions = []
    for index, label in sorted(labels.items()):
        region = derivation["contentions"][index]
        regions.append({**{key: region[key] for key in ("index", "resource", "start", "end", "agents")},
                        "calls": [{key: calls[i][key] for key in ("index", "agent", "resource", "start", "end")}
                                  for i in region["calls"]],
                        "label": label, "note": note})
    return {"contentions": {str(index): label for index, label in sorted(labels.items())}, "regions": regions}


def valid(value: dict, record_id: str) -> bool:
    return validate_value(TYPE, SCHEME, json.dumps(value), BY_ID[record_id]) == []


# Returning users seeded before the server starts: each starts on the instance its test needs.
RUN = uuid.uuid4().hex[:8]
STARTS_ON = {f"cycle-a-{RUN}": CYCLE, f"cycle-b-{RUN}": CYCLE, f"cycle-tab-{RUN}": CYCLE, f"iso-{RUN}": DEPLOY, f"zoom-{RUN}": DEPLOY,
             f"hostile-{RUN}": "hostile-004", f"ghost-{RUN}": MIGRATION}
GHOST = {"index": 0, "resource": "orders_db", "start": 10, "end": 23, "agents": ["Migrator", "Reporter"],
         "calls": [{"index": 0, "agent": "Migrator", "resource": "orders_db", "start": 10, "end": 19},
                   {"index": 2, "agent": "Reporter", "resource": "orders_db", "start": 15, "end": 23}],
         "label": "deadlock", "note": "seeded before the server started"}
GHOST_VALUE = {"contentions": {"0": "deadlock"}, "regions": [GHOST]}


def seeded_users() -> dict:
    users = {}
    for user, first in STARTS_ON.items():
        ordering = [first] + [record["id"] for record in RECORDS if record["id"] != first]
        answers = annotation_pairs({MIGRATION: {SCHEMA: json.dumps(GHOST_VALUE)}}) if user.startswith("ghost") else {}
        users[user] = returning_user_state(user, ordering, answers)
    return users


@pytest.fixture(scope="module")
def task(potato_task):
    files = {"e2e.yaml": task_config(f"Tool contention e2e {RUN}", ["data/numeric.jsonl", "data/iso.jsonl",
                                                                      "data/e2e-hostile.jsonl"], SCHEME),
             "data/e2e-hostile.jsonl": json.dumps(HOSTILE) + "\n"}
    return potato_task(EXAMPLE, config="e2e.yaml", files=files, users=seeded_users())


@pytest.fixture
def user(task, page) -> str:
    """A fresh annotator, logged in and looking at the first instance."""
    name = f"tc-{uuid.uuid4().hex[:12]}"
    login(page, task.base_url, name)
    assert current_instance_id(page) == MIGRATION
    expect(form(page)).to_have_attribute("data-ma-ready", "true")
    return name


def returning(page, task, prefix: str) -> str:
    name = f"{prefix}-{RUN}"
    login(page, task.base_url, name)
    assert current_instance_id(page) == STARTS_ON[name]
    expect(form(page)).to_have_attribute("data-ma-ready", "true")
    return name


# --------------------------------------------------------------------------- page helpers


def form(page):
    return page.locator(f'form.annotation-form[data-schema-name="{SCHEMA}"]')


def region(page, name: str):
    return form(page).get_by_role("group", name=name, exact=True)


def block(page, name: str):
    """A call block by its words; its name goes on with the region Enter chooses (", region 1")."""
    return form(page).get_by_role("button", name=re.compile("^" + re.escape(name) + "(, |$)"))


def hidden_value(page):
    raw = page.locator(f'input.annotation-input[name="{SCHEMA}:::{SCHEMA}"]').input_value()
    return json.loads(raw) if raw else None


def focused_name(page) -> str | None:
    return page.evaluate("document.activeElement && document.activeElement.getAttribute('aria-label')")


def region_names(page) -> list[str]:
    return form(page).locator(".ma-tc-region").evaluate_all("nodes => nodes.map(n => n.getAttribute('aria-label'))")


def band_count(page, agent: str) -> int:
    """How many region bands (open or labelled) the lane of `agent` draws."""
    lane = form(page).get_by_role("group", name=f"Calls of {agent}", exact=True)
    return sum(path.count("M") for path in lane.locator("path.ma-tc-band").evaluate_all(
        "nodes => nodes.map(n => n.getAttribute('d'))"))


def choose_label(page, region_name: str, label: str) -> None:
    region(page, region_name).get_by_role("radiogroup", name="Label").get_by_role("radio", name=label, exact=True).check()


def expect_complete(page) -> None:
    expect(form(page)).not_to_have_attribute("data-incomplete-reason", re.compile(".*"))


MIGRATION_REGION = "Region 1: orders_db, 10 to 22, Migrator, Backfiller, Reporter"


# --------------------------------------------------------------------------- config


# --------------------------------------------------------------------------- the timeline


@pytest.mark.e2e
def test_a_three_agent_overlap_is_one_region_banded_in_its_agents_lanes(task, page, user):
    assert region_names(page) == [MIGRATION_REGION]
    group = region(page, MIGRATION_REGION)
    expect(group.get_by_role("radiogroup", name="Label").get_by_role("radio")).to_have_count(len(LABELS))
    for agent in ("Migrator", "Backfiller", "Reporter"):
        assert band_count(page, agent) == 1, agent
    expect(block(page, "Migrator alter_table on orders_db from 10 to 19")).to_be_visible()
    expect(block(page, "Backfiller ping on config_store from 8 to 8 (zero length)")).to_have_count(1)
    # Each lane draws only its own agent's calls: 8 accepted calls, 1 left out.
    expect(form(page).locator("rect.ma-tc-call")).to_have_count(8)


@pytest.mark.e2e
def test_calls_left_out_are_listed_with_the_reason(task, page, user):
    notices = form(page).locator(".ma-notices")
    expect(notices).to_contain_text("1 call(s) are left out of the timeline")
    left_out = form(page).locator("details.ma-tc-left-out")
    left_out.locator("summary").click()
    expect(left_out.locator("li")).to_have_text(["Call 8 (calls[7]): its end is before its start."])


@pytest.mark.e2e
def test_iso_calls_render_on_a_utc_clock_axis(task, page):
    returning(page, task, "iso")
    labels = form(page).locator(".ma-tc-tick-label").evaluate_all("nodes => nodes.map(n => n.textContent)")
    assert len(labels) >= 3 and all(re.fullmatch(r"\d\d:\d\d:\d\d", label) for label in labels), labels
    assert labels[0] >= "09:00:00"   # the axis starts at the first call, not at the epoch
    expect(form(page).locator(".ma-tc-axis-caption")).to_contain_text("UTC")
    expect(block(page, "Releaser deploy on staging_cluster from 09:00:00 to 09:04:30")).to_be_visible()
    assert region_names(page) == ["Region 1: staging_cluster, 09:00:00 to 09:07:15, Releaser, Tester, CacheWarmer",
                                  "Region 2: artifact_store, 09:07:30 to 09:08:10, Tester, Releaser"]
    left_out = form(page).locator("details.ma-tc-left-out")
    left_out.locator("summary").click()
    expect(left_out.locator("li")).to_contain_text(["Call 6 (calls[5]): its times mix numbers and ISO date-times"])


@pytest.mark.e2e
def test_zoom_to_a_region_and_back(task, page):
    returning(page, task, "zoom")
    calls = form(page).locator("rect.ma-tc-call")
    expect(calls).to_have_count(5)
    second = region(page, "Region 2: artifact_store, 09:07:30 to 09:08:10, Tester, Releaser")
    second.get_by_role("button", name="Zoom to region 2").click()
    # A quarter of the region's length on each side, kept inside the timeline (it ends at 09:08:10).
    expect(form(page).locator(".ma-tc-window")).to_have_text("Showing 09:07:10 to 09:08:10.")
    expect(calls).to_have_count(3)   # only the calls inside the window are drawn
    expect(second.get_by_role("button", name="Region 2", exact=True)).to_have_attribute("aria-pressed", "true")
    expect(form(page).locator("rect.ma-tc-call-chosen")).to_have_count(2)
    form(page).get_by_role("button", name="Show all").click()
    expect(calls).to_have_count(5)
    expect(form(page).locator(".ma-tc-window")).to_have_text("Showing the whole timeline.")


# --------------------------------------------------------------------------- labelling


@pytest.mark.e2e
def test_mouse_labels_are_saved_exactly_and_restored(task, page, user):
    choose_label(page, MIGRATION_REGION, "race_condition")
    note = region(page, MIGRATION_REGION).get_by_label("Note")
    note.fill('Backfill ran during the "ALTER" <b>{{ x }}</b>')
    note.blur()
    expected = value_for(BY_ID[MIGRATION], {0: "race_condition"}, note='Backfill ran during the "ALTER" <b>{{ x }}</b>')
    saved = wait_saved_json(task, user, MIGRATION, SCHEMA, expected)
    assert valid(saved, MIGRATION)
    expect_complete(page)

    open_annotate(page, task.base_url)
    group = region(page, MIGRATION_REGION)
    expect(group.get_by_role("radio", name="race_condition")).to_be_checked()
    expect(group.get_by_label("Note")).to_have_value(expected["regions"][0]["note"])

    go_next(page)
    assert go_prev(page) == MIGRATION
    expect(region(page, MIGRATION_REGION).get_by_role("radio", name="race_condition")).to_be_checked()
    assert hidden_value(page) == expected


@pytest.mark.e2e
def test_choosing_a_region_outlines_its_calls(task, page, user):
    button = region(page, MIGRATION_REGION).get_by_role("button", name="Region 1", exact=True)
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(form(page).locator("rect.ma-tc-call-chosen")).to_have_count(3)
    expect(form(page).locator(".ma-tc-selection .ma-tc-chosen")).to_have_count(4)   # 3 lane outlines + "R1"
    expect(form(page).locator(".ma-summary")).to_contain_text("Chosen: " + MIGRATION_REGION)
    button.click()
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(form(page).locator("rect.ma-tc-call-chosen")).to_have_count(0)


@pytest.mark.e2e
def test_keyboard_only_labelling(task, page, user):
    form(page).get_by_role("button", name="Zoom in").focus()
    page.keyboard.press("Tab")
    assert focused_name(page) == "Migrator read_config on config_store from 4 to 6"   # the first call
    page.keyboard.press("End")
    assert focused_name(page) == "Migrator alter_table on orders_db from 10 to 19, region 1"
    page.keyboard.press("ArrowDown")
    assert focused_name(page) == "Backfiller ping on config_store from 8 to 8 (zero length)"
    page.keyboard.press("ArrowRight")
    assert focused_name(page) == "Backfiller bulk_insert on orders_db from 12 to 17, region 1"
    page.keyboard.press("Enter")
    expect(region(page, MIGRATION_REGION).get_by_role("button", name="Region 1", exact=True)).to_have_attribute(
        "aria-pressed", "true")
    assert focused_name(page) == "Backfiller bulk_insert on orders_db from 12 to 17, region 1"   # focus stays on the call

    page.keyboard.press("Tab")   # to the region's toggle, then its zoom button, then the label radios
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.type") == "radio"
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")   # native radio keys: move and choose
    expect(region(page, MIGRATION_REGION).get_by_role("radio", name="circular_wait")).to_be_checked()
    page.keyboard.press("Tab")   # Clear label
    page.keyboard.press("Tab")   # Note
    page.keyboard.type("seen by keyboard")
    page.keyboard.press("Tab")
    wait_saved_json(task, user, MIGRATION, SCHEMA, value_for(BY_ID[MIGRATION], {0: "circular_wait"}, "seen by keyboard"))
    assert current_instance_id(page) == MIGRATION


@pytest.mark.e2e
def test_arrow_keys_inside_the_widget_never_change_the_instance(task, page, user):
    choose_label(page, MIGRATION_REGION, "benign")
    expect_complete(page)   # so nothing but the widget could stop Potato's arrow navigation
    block(page, "Reporter select_totals on orders_db from 15 to 22").click()
    radio = region(page, MIGRATION_REGION).get_by_role("radio", name="benign")
    for target in (None, radio):
        if target is not None:
            target.focus()
        for key in ("ArrowRight", "ArrowLeft", "ArrowLeft", "ArrowRight"):
            page.keyboard.press(key)
            assert not navigation_started(page), key
            assert current_instance_id(page) == MIGRATION


@pytest.mark.e2e
def test_tab_from_a_call_of_the_chosen_region_reaches_that_regions_labels(task, page):
    """Choosing Region 2 on the timeline, then Tab: its own button and labels, not Region 1's,
    which come first in the page."""
    name = returning(page, task, "cycle-tab")
    second = region(page, "Region 2: lock_y, 1 to 10, Worker B, Worker A")
    block(page, "Worker B hold on lock_y from 1 to 10, region 2").click()   # focuses the call, chooses its region
    assert focused_name(page) == "Worker B hold on lock_y from 1 to 10, region 2"
    expect(second.get_by_role("button", name="Region 2", exact=True)).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Tab")
    expect(second.get_by_role("button", name="Region 2", exact=True)).to_be_focused()
    page.keyboard.press("Tab")   # its zoom button, then its labels
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    expect(second.get_by_role("radio", name="deadlock")).to_be_checked()
    wait_saved_json(task, name, CYCLE, SCHEMA, value_for(BY_ID[CYCLE], {1: "deadlock"}))


@pytest.mark.e2e
def test_linked_regions_can_be_labelled_as_one_deadlock(task, page):
    name = returning(page, task, "cycle-a")
    first = region(page, "Region 1: lock_x, 0 to 10, Worker A, Worker B")
    expect(first.locator(".ma-tc-links")).to_contain_text("Linked with Region 2")
    expect(region(page, "Region 3: lock_z, 12 to 14, Worker C, Worker A").locator(".ma-tc-links")).to_have_count(0)
    choose_label(page, "Region 1: lock_x, 0 to 10, Worker A, Worker B", "deadlock")
    first.get_by_role("button", name="Give all 2 linked regions this label").click()
    expect(region(page, "Region 2: lock_y, 1 to 10, Worker B, Worker A").get_by_role("radio", name="deadlock")).to_be_checked()
    saved = wait_saved_json(task, name, CYCLE, SCHEMA, value_for(BY_ID[CYCLE], {0: "deadlock", 1: "deadlock"}))
    assert valid(saved, CYCLE)


@pytest.mark.e2e
def test_bands_span_only_their_agents_lanes_and_keys_move_between_regions(task, page):
    returning(page, task, "cycle-b")
    assert [band_count(page, agent) for agent in ("Worker A", "Worker B", "Worker C")] == [3, 2, 1]
    buttons = form(page).locator("button.ma-tc-choose")
    buttons.first.focus()
    page.keyboard.press("ArrowDown")
    expect(buttons.nth(1)).to_be_focused()
    page.keyboard.press("End")
    expect(buttons.nth(2)).to_be_focused()
    block(page, "Worker A hold on lock_x from 0 to 10").click()
    expect(buttons.nth(0)).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("PageDown")
    expect(buttons.nth(1)).to_have_attribute("aria-pressed", "true")
    assert focused_name(page) == "Worker B hold on lock_y from 1 to 10, region 2"   # the next region's first call
    assert current_instance_id(page) == CYCLE


# --------------------------------------------------------------------------- Potato's contract


@pytest.mark.e2e
def test_unlabelled_regions_block_next_with_a_count(task, page, user):
    click_next_expecting_block(page, DESCRIPTION, MIGRATION)
    expect(form(page)).to_have_attribute("data-incomplete-reason", "0 of 1 contention regions labelled")
    choose_label(page, MIGRATION_REGION, "deadlock")
    expect_complete(page)
    assert go_next(page) == CYCLE


@pytest.mark.e2e
def test_saved_labels_not_in_the_trace_are_shown_kept_and_removable(task, page):
    name = returning(page, task, "ghost")
    stale = form(page).locator('[data-ma="stale-list"]')
    expect(stale).to_be_visible()
    expect(stale).to_contain_text("orders_db, 10 to 23, Migrator, Reporter, labelled deadlock (not in this trace)")
    expect(form(page).locator(".ma-notices")).to_contain_text(
        "regions[0]: 'orders_db [10, 23) Migrator, Reporter' is not in this trace")
    assert hidden_value(page) == GHOST_VALUE
    expect(region(page, MIGRATION_REGION).get_by_role("radio", name="deadlock")).not_to_be_checked()

    choose_label(page, MIGRATION_REGION, "benign")
    labelled = value_for(BY_ID[MIGRATION], {0: "benign"})
    both = {"contentions": {"0": "benign"}, "regions": labelled["regions"] + [GHOST]}
    wait_saved_json(task, name, MIGRATION, SCHEMA, both)
    stale.get_by_role("button", name=re.compile("^Remove saved mark")).click()
    expect(stale).to_be_hidden()
    assert valid(wait_saved_json(task, name, MIGRATION, SCHEMA, labelled), MIGRATION)


@pytest.mark.e2e
def test_hostile_names_stay_text(task, page):
    name = returning(page, task, "hostile")
    region_name = 'Region 1: {{ 7*7 }}, 0 to 6, ' + PWN_AGENT + ', Agent "Smith"'
    assert region_names(page) == [region_name]
    pwn_block = block(page, PWN_AGENT + ' x" onmouseover="window.__pwned=2 on {{ 7*7 }} from 0 to 5')
    pwn_block.hover()
    pwn_block.click()
    long_name = form(page).locator("rect.ma-tc-call").nth(1).get_attribute("aria-label")
    assert long_name.startswith('Agent "Smith" TTTT') and "\u2026 on {{ 7*7 }} from 1 to 6" in long_name
    assert len(long_name) < 300
    assert form(page).locator("img, b").count() == 0
    assert page.evaluate("window.__pwned") is None
    choose_label(page, region_name, ODD_LABEL)
    saved = wait_saved_json(task, name, "hostile-004", SCHEMA, value_for(HOSTILE, {0: ODD_LABEL}))
    assert valid(saved, "hostile-004")


# --------------------------------------------------------------------------- 5,000 calls

# Ten "deadlock" labels of the page, each read back from the hidden input at once (the handler is
# synchronous): how many regions the stored value labels after each click. Speed is bench/'s business.
LABEL_TEN = """() => {
  const form = document.querySelector('form[data-schema-name="contention"]');
  const hidden = form.querySelector('input.annotation-input');
  const radios = [...form.querySelectorAll('.ma-tc-labels input[type=radio]')].filter(r => r.value === 'deadlock');
  const changed = [];
  for (const radio of radios.slice(0, 10)) {
    const before = hidden.value;
    radio.click();
    changed.push(hidden.value !== before);
  }
  return changed;
}"""


def five_thousand_calls() -> dict:
    """2,500 resources, each held by two agents at overlapping times: 5,000 calls, 2,500 regions."""
    calls = []
    for k in range(2500):
        calls.append({"agent": f"agent_{k % 10}", "tool": "lock", "resource": f"res_{k}", "start": 4 * k, "end": 4 * k + 3})
        calls.append({"agent": f"agent_{(k + 1) % 10}", "tool": "lock", "resource": f"res_{k}",
                      "start": 4 * k + 1, "end": 4 * k + 5})
    return {"id": "five-thousand", "task": "5,000 calls", "calls": calls}


@pytest.mark.e2e
def test_five_thousand_calls_render_a_window_and_each_click_stores_a_label(potato_task, page):
    scheme = {"annotation_type": TYPE, "name": SCHEMA, "description": "5,000 calls"}
    files = {"big.yaml": task_config(f"Tool contention 5000 {RUN}", ["data/big.jsonl"], scheme),
             "data/big.jsonl": json.dumps(five_thousand_calls()) + "\n"}
    big = potato_task(EXAMPLE, config="big.yaml", files=files)
    login(page, big.base_url, f"big-{uuid.uuid4().hex[:8]}")
    expect(form(page)).to_have_attribute("data-ma-ready", "true")
    # Issue 18: the timeline opens on a window of its first calls (not one block per call of the
    # run) and says how many lie outside it; "Show all" draws each lane's calls as one shape.
    drawn = form(page).locator("rect.ma-tc-call")
    expect(drawn).not_to_have_count(0)
    assert 100 <= drawn.count() <= 300, drawn.count()
    expect(form(page).locator(".ma-tc-outside-words")).to_contain_text("of 5,000 calls in view")
    form(page).get_by_role("button", name="Show all").click()
    expect(form(page).locator(".ma-tc-window")).to_have_text("Showing the whole timeline.")
    expect(drawn).to_have_count(0)
    expect(form(page).locator("path.ma-tc-dense")).to_have_count(10)   # one per agent's lane
    expect(form(page).locator(".ma-tc-outside-words")).to_contain_text("Too many calls in view")
    expect(form(page).locator(".ma-tc-region")).to_have_count(20)   # a page of the 2,500 regions
    assert page.evaluate(LABEL_TEN) == [True] * 10
