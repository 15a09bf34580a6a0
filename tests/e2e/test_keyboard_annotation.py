"""A whole annotation by keyboard alone, on runs of 5, 59 and 130 steps (issue 40).

The team-evaluation example's questions (all eight types and Potato's radios) on three runs: the
example's 5-step pipeline, the first 59 steps of Who&When Hand-Crafted 19 and the 130 steps of
Who&When Hand-Crafted 11 (converted from the shared corpus by our converter). From the "Skip the
trace" link (the first Tab stop of the item) an annotator marks the run failed, names the
responsible agent and the decisive step (beyond the 40 steps the trace view draws on the long
runs), jumps to that step in the trace and tags a MAST mode there, comes back, writes a reason,
marks a critical path of two agents, marks every handoff reviewed and moves to the next item with
Potato's Right arrow on the outcome. Keys are pressed one at a time; after each the instance is the
same until the last one; every value is read back from Potato's user_state.json as entered. The
key presses (and the characters typed) are printed, one line per run (`-s`); the figure of record is
in docs/accessibility.md.

Also here: Tab alone walks from the first step of the 59-step run through every step and on to the
questions, with focus never falling to the page's body.
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

from potato_multiagent import derive
from potato_multiagent.convert import convert_inputs

from .harness import (
    EXAMPLES_DIR,
    current_instance_id,
    login,
    navigation_started,
    open_annotate,
    returning_user_state,
    wait_instance_ready,
    wait_saved,
    wait_saved_json,
)

pytestmark = pytest.mark.e2e

CORPUS = Path(os.environ.get("POTATO_MA_CORPUS") or Path(__file__).resolve().parents[3] / "shared" / "corpus")
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus")
HAND_CRAFTED = CORPUS / "who_and_when" / "Hand-Crafted"
REASON = "Wrong source."
MODE = "1.3"          # MAST 1.3 Step repetition: the third chip of its step


def who_and_when(number: int, steps: int | None = None) -> dict:
    if not HAND_CRAFTED.is_dir():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"real-data corpus not found at {CORPUS}", pytrace=False)
        pytest.skip(f"real-data corpus not found at {CORPUS}; set POTATO_MA_CORPUS")
    record = convert_inputs("who-and-when", [HAND_CRAFTED / f"{number}.json"]).records[0]
    if steps is not None:
        record["steps"] = record["steps"][:steps]
    record["id"] = f"who-and-when-{number}-{len(record['steps'])}"
    record["task"] = record["question"]
    return record


def pipeline() -> dict:
    lines = (EXAMPLES_DIR / "team-evaluation" / "data" / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    return next(json.loads(line) for line in lines if line.strip() and json.loads(line)["id"] == "pipeline-01")


@pytest.fixture(scope="module")
def runs() -> list[dict]:
    return [pipeline(), who_and_when(19, steps=59), who_and_when(11)]


USERS: dict[str, str] = {}


@pytest.fixture(scope="module")
def task(potato_task, runs):
    config = yaml.safe_load((EXAMPLES_DIR / "team-evaluation" / "config.yaml").read_text(encoding="utf-8"))
    config["annotation_task_name"] = f"e2e keyboard annotation {uuid.uuid4().hex[:8]}"
    ids = [run["id"] for run in runs]
    seeded = {}
    for key in ids + ["tab-59"]:
        first = ids[1] if key == "tab-59" else key
        USERS[key] = f"kb-{uuid.uuid4().hex[:10]}"
        seeded[USERS[key]] = returning_user_state(USERS[key], [first] + [i for i in ids if i != first], {})
    data = "".join(json.dumps(run) + "\n" for run in runs)
    return potato_task("team-evaluation", files={"config.yaml": yaml.safe_dump(config, sort_keys=False),
                                                 "data/runs.jsonl": data}, users=seeded)


FOCUSED = """() => {
    const e = document.activeElement;
    if (!e || e === document.body) { return {where: 'body'}; }
    const form = e.closest('form.annotation-form'), row = e.closest('section.ma-trace li.ma-trace-row');
    return {where: form ? form.getAttribute('data-schema-name') : (row ? 'step' : (e.closest('section.ma-trace') ? 'view' : 'page')),
            step: row ? Number(row.dataset.step) : null,
            name: e.getAttribute('aria-label') || e.getAttribute('name') || e.textContent.trim().slice(0, 60),
            role: e.getAttribute('role') || e.tagName.toLowerCase(), type: e.getAttribute('type'), value: e.value ?? null,
            chip: e.classList.contains('ma-mode-chip') ? e.dataset.mode : null};
}"""


class Keyboard:
    """Keys pressed one at a time and counted; after each the item is still the one being annotated."""

    def __init__(self, page):
        self.page = page
        self.instance = current_instance_id(page)
        self.presses = 0
        self.typed = 0

    def press(self, key: str) -> dict:
        self.page.keyboard.press(key)
        self.presses += 1
        where = self.page.evaluate(FOCUSED)
        assert where["where"] != "body", f"focus fell to the page's body after {key} (press {self.presses})"
        assert not navigation_started(self.page), f"Potato started moving to another item after {key} on {where}"
        assert current_instance_id(self.page) == self.instance, f"the item changed after {key} on {where}"
        return where

    def until(self, key: str, wanted, limit: int = 60) -> dict:
        """Press `key` until the focused element is `wanted` (a function of FOCUSED's answer)."""
        for _ in range(limit):
            where = self.press(key)
            if wanted(where):
                return where
        raise AssertionError(f"{key} did not reach the wanted control in {limit} presses; focus is on {where}")

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)
        self.typed += len(text)


def form(page, schema: str):
    return page.locator(f'form.annotation-form[data-schema-name="{schema}"]')


def annotate_by_keyboard(page, run: dict, decisive: int) -> dict:
    """The whole annotation of `run`, keys only, from the "Skip the trace" link; returns what was
    chosen as the widgets named it, and the counts."""
    expect(page.locator("form.multiagent-form:not([data-ma-ready='true'])")).to_have_count(0)
    skip = page.locator('section.ma-trace [data-ma="skip-trace"]')
    expect(skip).to_have_text(f"Skip the trace ({len(derive(run).steps)} steps)")
    skip.focus()
    keys = Keyboard(page)
    chosen: dict = {}

    # The outcome: Potato's radio group, "failure" reveals the attribution (display logic)
    assert keys.press("Enter")["where"] == "outcome"
    assert keys.press("ArrowDown")["value"] == "failure"
    expect(form(page, "attribution")).to_be_visible()

    # The attribution: the agent, then the decisive step typed by its number into the step box
    keys.until("Tab", lambda w: w["where"] == "attribution" and w["role"] == "select")
    keys.press("ArrowDown")
    chosen["agent"] = form(page, "attribution").get_by_label("Responsible agent").evaluate(
        "(select) => select.value")
    assert chosen["agent"]
    keys.press("Tab")
    expect(form(page, "attribution").get_by_role("combobox", name="Decisive step")).to_be_focused()
    for character in f"#{decisive}":   # the step box searches "#N" by number
        keys.press(character)
    keys.press("Enter")
    expect(form(page, "attribution").locator('[data-ma="chosen"]')).to_contain_text(f"#{decisive}")

    # The MAST mode on that step, in the trace: "Show #N in the trace", Tab to its chips, arrows, Enter
    link = form(page, "attribution").get_by_role("button", name=f"Show #{decisive} in the trace")
    keys.until("Tab", lambda w: w["where"] == "attribution" and w["name"] == f"Show #{decisive} in the trace")
    where = keys.press("Enter")
    assert (where["where"], where["step"]) == ("step", decisive - 1), where
    keys.until("Tab", lambda w: w["chip"] is not None, limit=20)
    where = keys.until("ArrowRight", lambda w: w["chip"] == MODE, limit=5)
    assert where["step"] == decisive - 1
    keys.press("Enter")
    expect(page.locator("section.ma-trace .ma-trace-status")).to_contain_text(f"tagged on #{decisive}")
    expect(page.locator("section.ma-trace .ma-mode-tip")).to_be_visible()   # the chip's definition
    where = keys.press("Escape")   # closes it first: the focus stays on the chip
    expect(page.locator("section.ma-trace .ma-mode-tip")).to_be_hidden()
    assert where["chip"] == MODE, where
    keys.press("Escape")   # then back to the link
    expect(link).to_be_focused()

    # The reason
    keys.until("Tab", lambda w: w["where"] == "attribution" and w["role"] == "textarea")
    keys.type(REASON)

    # The critical path: the first agent of the graph, along its first edge to the next agent
    first = keys.until("Tab", lambda w: w["where"] == "interaction_graph")
    keys.press("Enter")
    keys.press("ArrowRight")                                  # onto the agent's first edge
    second = keys.until("ArrowRight", lambda w: w["name"].startswith("Agent "), limit=10)
    keys.press("Space")
    chosen["critical"] = [re.match(r"Agent (\S+)", w["name"]).group(1) for w in (first, second)]

    # Every handoff reviewed at once
    keys.until("Tab", lambda w: w["name"] == "Mark all unreviewed handoffs as fine", limit=150)
    keys.press("Enter")

    # Next: back to the outcome (Potato's own radio) and Potato's Right arrow
    keys.until("Shift+Tab", lambda w: w["where"] == "outcome", limit=150)
    page.evaluate("window.__potatoReady = false")
    page.keyboard.press("ArrowRight")
    keys.presses += 1
    page.wait_for_function("(before) => window.__potatoReady === true"
                           " && document.getElementById('instance_id').value !== before", arg=keys.instance)
    wait_instance_ready(page)
    chosen["presses"], chosen["typed"] = keys.presses, keys.typed
    return chosen


@pytest.mark.parametrize("position, decisive", [(0, 2), (1, 45), (2, 100)], ids=["5-steps", "59-steps", "130-steps"])
def test_a_whole_annotation_by_keyboard_alone(task, runs, page, position, decisive):
    run = runs[position]
    user = USERS[run["id"]]
    page.set_viewport_size({"width": 1280, "height": 900})
    login(page, task.base_url, user)
    assert current_instance_id(page) == run["id"]

    chosen = annotate_by_keyboard(page, run, decisive)
    steps = derive(run).steps
    print(f"\nkeyboard only, {len(steps)} steps: {chosen['presses']} key presses "
          f"(and {chosen['typed']} characters typed)")
    assert chosen["presses"] < 188   # issue 40 counted 188 on the 5-step run, before this journey's changes

    wait_saved(task, user, run["id"], "outcome", lambda value: value == "failure")
    wait_saved_json(task, user, run["id"], "attribution",
                    {"responsible_agent": chosen["agent"], "decisive_step": decisive - 1, "reason": REASON})
    saved = task.saved(user)[run["id"]]
    graph = json.loads(saved["interaction_graph"])
    assert graph["critical_nodes"] == chosen["critical"]
    handoffs = json.loads(saved["handoffs"])
    assert len(handoffs) == len(derive(run).handoffs) > 0
    assert all(entry["quality"] == 5 and entry["flags"] == [] for entry in handoffs)
    mast = json.loads(saved["mast"])
    assert [(tag["step"], tag["mode"]) for tag in mast["steps"]] == [(decisive - 1, MODE)]


def test_tab_walks_every_step_of_a_59_step_run_and_on_to_the_questions(task, runs, page):
    """The view draws 40 of the 59 steps; Tab from the first step moves its window on, keeps focus
    on the step it was on (never the page's body), passes every step in order and reaches the first
    question (issue 40 found 400 Tabs circling the trace)."""
    run = runs[1]
    login(page, task.base_url, USERS["tab-59"])
    assert current_instance_id(page) == run["id"]
    expect(page.locator("form.multiagent-form:not([data-ma-ready='true'])")).to_have_count(0)
    page.locator("section.ma-trace li.ma-trace-row .ma-trace-step").first.focus()
    keys = Keyboard(page)
    steps = []
    where = keys.until("Tab", lambda w: (steps.append(w["step"]) if w["step"] is not None else None)
                       or w["where"] not in ("step", "view"), limit=1000)
    assert where["where"] == "outcome", where   # the first question after the view
    assert steps == sorted(steps) and set(steps) == set(range(len(derive(run).steps))), steps
    print(f"\nTab from #1 of {len(derive(run).steps)} steps to the first question: {keys.presses} presses")


def test_left_and_right_on_every_control_of_all_eight_types_leave_the_item(task, runs, page):
    """On the team-evaluation page (all eight types and the trace view, the attribution shown, the
    current step's chips unfolded), Left and Right on every focusable control of ours, in each
    layout, never reach the document, where Potato's Prev/Next listens."""
    from .test_trace_view import COUNT_ARROWS_AT_DOCUMENT, FOCUSABLE_OF_OURS

    run = runs[0]
    login(page, task.base_url, f"kb-arrows-{uuid.uuid4().hex[:8]}")
    assert current_instance_id(page) == run["id"]
    page.locator('form[data-schema-name="outcome"] input[value="failure"]').check()
    expect(form(page, "attribution")).to_be_visible()
    expect(page.locator("form.multiagent-form:not([data-ma-ready='true'])")).to_have_count(0)
    page.evaluate(COUNT_ARROWS_AT_DOCUMENT)
    pressed = 0
    for layout in ("lanes", "tree", "board"):
        page.locator(f'section.ma-trace .ma-trace-layout[data-layout="{layout}"]').click()
        page.evaluate("document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: 1}}))")   # its chips unfold
        expect(page.locator('section.ma-trace .ma-trace-step[data-step="1"] .ma-mode-chip').first).to_be_visible()
        for position in range(page.evaluate(FOCUSABLE_OF_OURS, None)):
            if page.evaluate(FOCUSABLE_OF_OURS, position):
                page.keyboard.press("ArrowLeft")
                page.keyboard.press("ArrowRight")
                pressed += 1
        assert current_instance_id(page) == run["id"], layout
    assert pressed > 300, pressed   # three layouts of the view and every form's controls
    assert page.evaluate("window.__arrowsAtDocument") == []


LIVE_WRITES = """
window.__liveWrites = [];
new MutationObserver((records) => {
    for (const record of records) {
        const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
        const live = node && node.closest('[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"]');
        if (live && live.textContent.trim()) { window.__liveWrites.push(live.className + ': ' + live.textContent.trim()); }
    }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""

LIVE_REGIONS = """() => [...document.querySelectorAll('section.ma-trace, form.multiagent-form')].map((root) => ({
    name: root.getAttribute('data-schema-name') || 'trace view',
    regions: [...root.querySelectorAll('[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"]')]
        .map((region) => region.className)}))"""


def accessibility_tree(page) -> list[dict]:
    """Chromium's accessibility tree (CDP): each node's role, name and heading level."""
    session = page.context.new_cdp_session(page)
    nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    session.detach()
    found = []
    for node in nodes:
        if node.get("ignored"):
            continue
        properties = {entry["name"]: entry["value"].get("value") for entry in node.get("properties", [])}
        found.append({"role": node.get("role", {}).get("value"), "name": node.get("name", {}).get("value", ""),
                      "level": properties.get("level"), "required": properties.get("required")})
    return found


def test_names_headings_and_one_silent_live_region_per_form(task, runs, page):
    """What a screen reader is given on the 5-step run, read from Chromium's accessibility tree: a
    heading per step, every tags toggle, chip group and step link named with its step; one polite
    live region per form and one in the trace view, none of them speaking while the page loads;
    the attribution's region saying it was revealed by the answer "failure", and the graph's what a
    key changed."""
    run = runs[0]
    page.add_init_script(LIVE_WRITES)
    user = f"kb-names-{uuid.uuid4().hex[:8]}"
    login(page, task.base_url, user)
    assert current_instance_id(page) == run["id"]
    expect(page.locator("form.multiagent-form:not([data-ma-ready='true'])")).to_have_count(0)
    page.wait_for_timeout(500)   # anything a late render would say
    assert [write for write in page.evaluate("window.__liveWrites") if "ma-" in write] == []
    regions = page.evaluate(LIVE_REGIONS)
    assert len(regions) == 9 and all(len(root["regions"]) == 1 for root in regions), regions

    tree = accessibility_tree(page)
    named = {(node["role"], node["name"]) for node in tree}
    headings = [node["name"] for node in tree if node["role"] == "heading" and node["level"] == 4
                and re.match(r"#\d+ ", node["name"])]
    assert [name.split()[0] for name in headings] == ["#1", "#2", "#3", "#4", "#5"], headings
    assert headings[0].startswith("#1 Researcher"), headings
    for number in range(1, 6):
        assert ("button", f"MAST failure modes: 0 chosen, on #{number}") in named
        assert ("group", f"MAST failure modes, #{number}") in named
        assert ("group", f"Actions on #{number}") in named
    # #1 calls a tool whose result is #2; Writer's draft (#4) is handed on from #3, the Editor's (#5) from #4
    for link in ("Show #2", "Show #3", "Show #4"):
        assert ("button", link) in named, link
    assert not [node for node in tree if node["role"] == "button" and re.fullmatch(r"#\d+", node["name"])]
    # an emergent-behaviour turn is described by its text (the run's first step, by hand)
    expect(form(page, "emergent").get_by_role("button", name="Turn 1 (Researcher)", exact=True)).to_have_accessible_description(
        "Looking up the Aurora 2 spec sheet.")

    # Potato's display logic reveals the attribution on "failure": its status line says so, and the
    # required question's two choices are required in the tree
    form(page, "outcome").locator('input[value="success"]').focus()
    page.keyboard.press("ArrowDown")
    expect(form(page, "attribution").locator("[data-ma-sync-notice]")).to_have_text(
        "Question shown: Which agent caused the failure, and at which step?")
    # Chromium updates its tree after the next layout of the revealed form: read it until it has
    required = set()
    for _ in range(50):
        required = {(node["role"], node["name"]) for node in accessibility_tree(page) if node["required"]}
        if ("combobox", "Decisive step") in required:
            break
        page.wait_for_timeout(100)
    assert ("combobox", "Decisive step") in required, required
    # Chromium does not expose aria-required on a <select>; the attribute is there for those that do
    expect(form(page, "attribution").get_by_label("Responsible agent")).to_have_attribute("aria-required", "true")

    graph = form(page, "interaction_graph")
    researcher = graph.get_by_role("button", name=re.compile(r"^Agent Researcher\b"))
    researcher.focus()
    page.keyboard.press("Enter")
    expect(graph.locator("[data-ma-sync-notice]")).to_have_text("Critical path: Researcher. No flagged edges.")

    # the page opened again, the attribution shown from the start: nothing is said. Both answers are
    # saved first: a reload inside Potato's autosave delay rightly keeps the graph's answer in the
    # browser, and the page then says so (the restore prompt; test_saving.py)
    wait_saved(task, user, run["id"], "outcome", lambda value: value == "failure")
    wait_saved(task, user, run["id"], "interaction_graph",
               lambda value: value is not None and json.loads(value)["critical_nodes"] == ["Researcher"])
    open_annotate(page, task.base_url)
    expect(form(page, "attribution")).to_be_visible()
    expect(page.locator("form.multiagent-form:not([data-ma-ready='true'])")).to_have_count(0)
    page.wait_for_timeout(500)   # anything a late render would say
    assert [write for write in page.evaluate("window.__liveWrites") if "ma-" in write] == []


AXE_SCRIPT = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
AXE_OURS = """async () => {
    const result = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']}});
    return result.violations.flatMap((v) => v.nodes.map((n) => ({id: v.id, impact: v.impact, target: n.target.join(' '),
        ours: !!document.querySelector(n.target.join(' '))?.closest('section.ma-trace, form.multiagent-form'),
        summary: n.failureSummary})));
}"""


@pytest.mark.parametrize("width", [1400, 320])
def test_axe_finds_no_serious_violation_of_ours_in_any_layout(task, runs, page, width):
    """axe-core (WCAG 2.2 AA and best practices) on the whole page of the 5-step run, attribution
    shown, in each layout of the trace view, with the tags folded and with a step's chips unfolded,
    at 1400 and 320 px: no serious or critical finding inside the trace view or our forms."""
    assert AXE_SCRIPT.exists(), "node_modules/axe-core is missing: run `bash scripts/setup.sh`"
    page.set_viewport_size({"width": width, "height": 900})
    login(page, task.base_url, f"kb-axe-{uuid.uuid4().hex[:8]}")
    page.locator('form[data-schema-name="outcome"] input[value="failure"]').check()
    expect(page.locator("form.multiagent-form:not([data-ma-ready='true'])")).to_have_count(0)
    page.add_script_tag(path=str(AXE_SCRIPT))
    serious = []
    for layout in ("lanes", "tree", "board"):
        page.locator(f'section.ma-trace .ma-trace-layout[data-layout="{layout}"]').click()
        for unfolded in (False, True):
            if unfolded:
                page.evaluate("document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: 1}}))")
                expect(page.locator('section.ma-trace .ma-trace-step[data-step="1"] .ma-mode-chip').first).to_be_visible()
            page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
            found = page.evaluate(AXE_OURS)
            serious += [f"{layout}{' unfolded' if unfolded else ''}: {f['id']} at {f['target']}: {f['summary'][:160]}"
                        for f in found if f["ours"] and f["impact"] in ("serious", "critical")]
    assert serious == [], "\n".join(serious)
