"""Accessibility of all seven widgets as one product, on the team-evaluation page (issue 8).

- axe-core runs in the real page (all seven of our types plus Potato's own, the run marked failed
  so the attribution shows): no serious or critical violation inside `form.multiagent-form`; every
  other finding (ours minor/moderate, Potato's own page) is printed, not fixed here.
- One keyboard-only journey per type: Tab, Shift+Tab, arrows, Enter and Space from a control
  before the widget. After every key the focused element is in the viewport and uncovered, draws
  a focus indicator of its own, and is the control the annotator needs; after every change the
  live summary says it in words; Potato never starts a navigation. Focus survives Potato's
  re-render, and Potato saves the expected value.
- Colour independence: every marked state also carries text, `aria-pressed`/`checked`, a dash
  pattern or a marker; forced-colours and grayscale screenshots are saved under
  `test-results/accessibility/` for a person to look at.

Users are seeded before the server starts (one per test, never reused), each on the run its
widget needs first and with the outcome already "failure".
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError, expect

from potato_multiagent.taxonomy import preset

from .harness import (
    EXAMPLES_DIR,
    REPO_ROOT,
    annotation_pairs,
    current_instance_id,
    login,
    navigation_started,
    radio_answer,
    returning_user_state,
    wait_saved_json,
)

pytestmark = pytest.mark.e2e

EXAMPLE = "team-evaluation"
CONFIG = "a11y.yaml"
AXE_SCRIPT = REPO_ROOT / "node_modules" / "axe-core" / "axe.min.js"
RESULTS_DIR = REPO_ROOT / "test-results" / "accessibility"
VIEWPORT = {"width": 1280, "height": 900}


def load_records() -> list[dict]:
    lines = (EXAMPLES_DIR / EXAMPLE / "data" / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


RECORD_IDS = [record["id"] for record in load_records()]
PIPELINE = "pipeline-01"
CONTENTION = "contention-06"


def a11y_config() -> str:
    """The example's config under a task name of its own (Potato names its generated page after it)."""
    config = yaml.safe_load((EXAMPLES_DIR / EXAMPLE / "config.yaml").read_text(encoding="utf-8"))
    config["annotation_task_name"] = "Multi-agent accessibility audit"
    return yaml.safe_dump(config, sort_keys=False, allow_unicode=True)


def starting_on(first: str, answers: dict[str, dict[str, str]] | None = None) -> tuple[str, dict]:
    """A fresh user whose first instance is `first`, with that run already marked failed."""
    user = f"a11y-{uuid.uuid4().hex[:10]}"
    ordering = [first] + [record_id for record_id in RECORD_IDS if record_id != first]
    pairs = annotation_pairs(answers or {})
    pairs.setdefault(first, []).append(radio_answer("outcome", "failure"))
    return user, returning_user_state(user, ordering, pairs)


# --------------------------------------------------------------------------- stored states


def marked_contention(label: str) -> dict:
    """The contention run's first region (orders, three agents) labelled `label`."""
    calls = [
        {"index": 0, "agent": "W1", "resource": "orders", "start": 1772413200, "end": 1772413800},
        {"index": 3, "agent": "W2", "resource": "orders", "start": 1772413212, "end": 1772413800},
        {"index": 4, "agent": "W3", "resource": "orders", "start": 1772413320, "end": 1772413350},
    ]
    region = {"index": 0, "resource": "orders", "start": 1772413200, "end": 1772413800,
              "agents": ["W1", "W2", "W3"], "calls": calls, "label": label, "note": ""}
    return {"contentions": {"0": label}, "regions": [region]}


def judged_calls() -> dict[str, dict[str, str]]:
    """The pipeline run's one tool call judged, and a judgement of a call the run does not have."""
    value = [
        {"index": 0, "step": 0, "position": 0, "id": "call_r1", "tool": "web_search",
         "verdict": "wrong_args", "notes": ""},
        {"index": 5, "step": 3, "position": 0, "id": "call_ghost", "tool": "delete_everything",
         "verdict": "wrong_tool", "notes": ""},
    ]
    return {PIPELINE: {"tool_calls": json.dumps(value)}}


def marked_states() -> dict[str, dict[str, str]]:
    """One stored value per schema on the contention run, each with a marked state and (where the
    value allows it) a mark the trace does not contain, so every state the widgets draw shows."""
    values = {
        "attribution": {"responsible_agent": "Ghost", "decisive_step": 2, "reason": ""},
        "interaction_graph": {
            "critical_nodes": ["Scheduler", "W1"],
            "edges": {"Scheduler->W1": "critical", "W1->W2": "problematic"},
            "edge_marks": [
                {"from": "Scheduler", "to": "W1", "status": "critical"},
                {"from": "W1", "to": "W2", "status": "problematic"},
                {"from": "Ghost", "to": "W1", "status": "problematic"},
            ],
        },
        "handoffs": [
            {"index": 0, "step": 1, "from_step": 0, "from": "Scheduler", "to": "W1", "explicit": False,
             "flags": ["info_loss"], "quality": 2},
            {"index": 9, "step": 40, "from_step": 39, "from": "Ghost", "to": "W1", "explicit": False,
             "flags": [], "quality": 3},
        ],
        "scorecard": {"agents": {"W1": {"role fidelity": 4}, "Ghost": {"role fidelity": 2}},
                      "team": {}, "milestones": {"task understood": True}},
        "contention": marked_contention("deadlock"),
        "emergent": {"groupthink": {"turns": [1, 2], "note": "",
                                    "instances": [{"turns": [1, 2], "note": ""}]}},
        "mast": {"taxonomy": preset("mast").id, "steps": [
            {"step": 1, "mode": "1.3", "note": "asks again", "severity": "major"},
            {"step": 99, "mode": "2.4", "note": "", "severity": None}],
            "run": [{"mode": "3.2", "note": "nobody checks", "severity": "minor"}]},
    }
    return {CONTENTION: {schema: json.dumps(value) for schema, value in values.items()}}


# --------------------------------------------------------------------------- the server


JOURNEY_STARTS = {
    "failure_attribution": PIPELINE,
    "agent_interaction_graph": PIPELINE,
    "handoff_review": PIPELINE,
    "agent_scorecard": PIPELINE,
    "tool_call_review": PIPELINE,
    "tool_contention": CONTENTION,
    "emergent_behavior": PIPELINE,
}
USERS: dict[str, str] = {}


@pytest.fixture(scope="module")
def task(potato_task):
    seeded = {}
    for key, first in [*JOURNEY_STARTS.items(), ("axe", PIPELINE), ("trace", PIPELINE)]:
        USERS[key], seeded[USERS[key]] = starting_on(first)
    for key in ("colours", "axe-marked"):
        USERS[key], seeded[USERS[key]] = starting_on(CONTENTION, marked_states())
    USERS["verdicts"], seeded[USERS["verdicts"]] = starting_on(PIPELINE, judged_calls())
    return potato_task(EXAMPLE, config=CONFIG, files={CONFIG: a11y_config()}, users=seeded)


@pytest.fixture
def open_as(task, page):
    """Log in as one of the seeded users and wait until every widget has drawn."""

    def open_page(key: str):
        page.set_viewport_size(VIEWPORT)
        login(page, task.base_url, USERS[key])
        expect(page.locator("form.multiagent-form:not([data-ma-ready='true'])")).to_have_count(0)
        return page

    return open_page


def form(page, schema: str):
    return page.locator(f'form.multiagent-form[data-schema-name="{schema}"]')


# --------------------------------------------------------------------------- axe-core


def run_axe(page) -> list[dict]:
    """axe-core's violations on the whole page, each node with its CSS target and summary.

    Waits for running animations first: Potato fades a question in when display_logic shows it,
    and contrast measured mid-fade is the fade's, not the page's."""
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
    return page.evaluate(
        """async () => {
            const result = await axe.run(document);
            return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
              nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}));
        }"""
    )


def ours(page, violations: list[dict]) -> tuple[list[dict], list[dict]]:
    """Split axe's nodes into those inside our forms and the rest of Potato's page."""
    inside, outside = [], []
    for violation in violations:
        for node in violation["nodes"]:
            in_form = page.evaluate(
                "(t) => { const e = document.querySelector(t); return !!(e && e.closest('form.multiagent-form')); }",
                node["target"],
            )
            (inside if in_form else outside).append({**violation, "nodes": None, "node": node})
    return inside, outside


def print_findings(title: str, findings: list[dict]) -> None:
    """One line per rule: impact, rule, help, how many nodes, and the first few targets."""
    print(f"\n--- axe: {title}: {len(findings)} nodes")
    by_rule: dict[str, list[dict]] = {}
    for finding in findings:
        by_rule.setdefault(finding["id"], []).append(finding)
    for rule, nodes in by_rule.items():
        targets = ", ".join(node["node"]["target"] for node in nodes[:3])
        more = f" (+{len(nodes) - 3} more)" if len(nodes) > 3 else ""
        print(f"  [{nodes[0]['impact']}] {rule}: {nodes[0]['help']}; {len(nodes)} nodes: {targets}{more}")


@pytest.mark.parametrize("user", ["axe", "axe-marked"], ids=["fresh-pipeline-run", "contention-run-every-state-marked"])
def test_axe_finds_no_serious_violation_in_our_widgets(open_as, user):
    """On a fresh page, and on one where every widget shows its marked states and marks the
    trace does not contain."""
    assert AXE_SCRIPT.exists(), "node_modules/axe-core is missing: run `bash scripts/setup.sh`"
    page = open_as(user)
    expect(form(page, "attribution")).to_be_visible()
    page.add_script_tag(path=str(AXE_SCRIPT))

    inside, outside = ours(page, run_axe(page))
    print_findings("inside our widgets", inside)
    print_findings("Potato's own page (not ours; reported, not fixed)", outside)

    serious = [finding for finding in inside if finding["impact"] in ("serious", "critical")]
    assert serious == [], "\n".join(f"{f['id']} at {f['node']['target']}: {f['node']['summary']}" for f in serious)


def test_axe_and_forced_colours_on_the_trace_views_folded_mast_tags(open_as):
    """The trace view's MAST chips (the example's multiagent.mast, 14 modes) folded to a toggle and the
    chosen chip, unfolded by hand, and unfolded on the current step, with a chip's definition shown
    (hover) and the legend open beside the trace: no serious axe finding inside the view; in forced
    colours the pressed chip keeps its check mark and its system colours."""
    assert AXE_SCRIPT.exists(), "node_modules/axe-core is missing: run `bash scripts/setup.sh`"
    page = open_as("trace")
    trace = page.locator("section.ma-trace")
    chosen_step = trace.locator('.ma-trace-step[data-step="2"]')
    toggle = chosen_step.get_by_role("button", name="MAST failure modes: 0 chosen, on #3", exact=True)
    toggle.click()
    chosen_step.get_by_role("button", name="2.4 Information withholding", exact=True).click()
    toggle = chosen_step.get_by_role("button", name="MAST failure modes: 1 chosen, on #3", exact=True)
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    pressed = chosen_step.get_by_role("button", name="2.4 Information withholding", exact=True)
    expect(pressed).to_have_attribute("aria-pressed", "true")
    trace.locator('.ma-trace-step[data-step="0"] .ma-trace-tags-toggle').click()
    page.evaluate("document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: 4}}))")
    expect(trace.locator('.ma-trace-step[data-step="4"] .ma-trace-tags-toggle')).to_have_attribute("aria-expanded", "true")
    trace.get_by_role("button", name="Failure modes", exact=True).click()
    expect(trace.get_by_role("complementary", name="Failure modes")).to_be_visible()
    trace.locator('.ma-trace-step[data-step="4"]').get_by_role("button", name="1.3 Step repetition", exact=True).hover()
    expect(trace.locator(".ma-mode-tip")).to_be_visible()

    page.add_script_tag(path=str(AXE_SCRIPT))
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
    violations = page.evaluate("""async () => (await axe.run(document.querySelector('section.ma-trace'))).violations
        .map(v => ({id: v.id, impact: v.impact, targets: v.nodes.map(n => n.target.join(' '))}))""")
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == [], serious

    page.emulate_media(forced_colors="active")
    colours = pressed.evaluate("""(chip) => {
        const toggle = chip.closest('.ma-trace-tags').querySelector('.ma-trace-tags-toggle');
        return {mark: getComputedStyle(chip, '::before').content, chip: getComputedStyle(chip).backgroundColor,
                toggle: getComputedStyle(toggle).backgroundColor, border: getComputedStyle(toggle).borderStyle};
    }""")
    assert "\u2713" in colours["mark"] and colours["chip"] != colours["toggle"] and colours["border"] == "solid", colours
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    chosen_step.screenshot(path=str(RESULTS_DIR / "trace-folded-tags-forced-colours.png"), animations="disabled")
    page.emulate_media(forced_colors="none")


# --------------------------------------------------------------------------- keyboard journeys


# Potato's page scrolls smoothly (`scroll-behavior: smooth`): focus moves at once, the page follows.
# Visible means: the centre of the focused element is inside the viewport and nothing else (such
# as Potato's sticky top bar) is drawn over it.
FOCUS_SEEN = """() => {
    const el = document.activeElement, r = el.getBoundingClientRect();
    const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
    const inside = r.width > 0 && r.height > 0 && cx >= 0 && cy >= 0 && cx <= innerWidth && cy <= innerHeight;
    const hit = inside ? document.elementFromPoint(cx, cy) : null;
    return {inside, uncovered: !!hit && (el.contains(hit) || hit.contains(el)),
            where: `${el.tagName} "${el.getAttribute('aria-label') || el.textContent.trim().slice(0, 40)}"`
                   + ` at (${Math.round(r.left)}, ${Math.round(r.top)}), scrollY ${Math.round(scrollY)}`,
            hit: hit ? `${hit.tagName} ${hit.id} ${(hit.className.baseVal ?? hit.className).slice(0, 40)}` : null};
}"""

FOCUS_SEEN_AND_UNCOVERED = f"() => {{ const seen = ({FOCUS_SEEN})(); return seen.inside && seen.uncovered; }}"

FOCUS_REPORT = """() => {
    const el = document.activeElement;
    // The focus indicator is whatever changes when the element loses focus: an outline or a
    // box-shadow on it, an outline on its box (scorecard), a ring stroked on its SVG shape.
    const parts = [el, el.parentElement, ...el.querySelectorAll('*')].slice(0, 16);
    const look = () => parts.map(p => {
        const s = getComputedStyle(p);
        return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow,
                s.stroke, s.strokeWidth, s.strokeOpacity].join('|');
    }).join(';');
    const focusedLook = look();
    const focusVisible = el.matches(':focus-visible');
    el.blur();
    const blurredLook = look();
    el.focus({preventScroll: true});
    return {
        description: `${el.tagName.toLowerCase()} `
                     + `"${el.getAttribute('aria-label') || el.textContent.trim().slice(0, 60)}"`,
        focusVisible,
        indicator: focusedLook !== blurredLook,
        stillFocused: document.activeElement === el,
    };
}"""


class Journey:
    """Keys pressed one at a time, checking focus, the live summary and the instance after each."""

    def __init__(self, page, schema: str):
        self.page = page
        self.schema = schema
        self.instance = current_instance_id(page)

    def start_before(self) -> None:
        """Focus the last Tab stop before the widget, as if the annotator had just tabbed there."""
        self.wait_scroll_settled()
        self.page.evaluate(
            """(schema) => {
                const form = document.querySelector(`form.multiagent-form[data-schema-name="${schema}"]`);
                const lastStopBefore = () => {
                    const stops = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
                        .filter(e => e.tabIndex >= 0 && !e.disabled && e.checkVisibility({visibilityProperty: true})
                                     && (form.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_PRECEDING));
                    return stops[stops.length - 1];
                };
                // Focusing a stop can add stops after it (a graph node shows its steps' #N links):
                // move on until the last stop before the widget stays the last one.
                let start = lastStopBefore();
                for (let tries = 0; tries < 5; tries++) {
                    start.focus({preventScroll: true});
                    const last = lastStopBefore();
                    if (last === start) { break; }
                    start = last;
                }
                // Setting up the journey, not part of it: a smooth scroll Potato starts late can
                // cancel the scroll a focus() would do, so bring the start into view directly.
                start.scrollIntoView({block: 'center', behavior: 'instant'});
            }""",
            self.schema,
        )
        self.wait_focus_in_view("focusing the Tab stop before the widget")

    def wait_scroll_settled(self) -> None:
        """Wait until the page stops scrolling (Potato glides to its first question on load)."""
        self.page.wait_for_function(
            """() => new Promise(done => {
                const before = scrollY;
                setTimeout(() => done(scrollY === before), 250);
            })"""
        )

    def wait_focus_in_view(self, key: str) -> None:
        # A key pressed while the page is still gliding to the last focus would cut that glide
        # short; an annotator's next key never comes that fast.
        try:
            self.page.wait_for_function(FOCUS_SEEN_AND_UNCOVERED, timeout=10_000)  # slow glides under load
        except PlaywrightTimeoutError:
            seen = self.page.evaluate(FOCUS_SEEN)
            problem = "is covered by " + str(seen["hit"]) if seen["inside"] else "is outside the viewport"
            pytest.fail(f"after {key} the focused element {problem}: {seen['where']}")

    def press(self, key: str, focus, says: str | None = None) -> None:
        """Press `key`; `focus` (a locator) must then hold a visible focus, and the form's one live
        region (its status line) must match `says` (a regex) when the key changed something."""
        self.page.keyboard.press(key)
        expect(focus).to_be_focused()
        self.wait_focus_in_view(key)
        report = self.page.evaluate(FOCUS_REPORT)
        where = f"after {key} on {report['description']}"
        assert report["stillFocused"], where
        assert report["focusVisible"], f"no :focus-visible {where}"
        assert report["indicator"], f"focus draws no indicator {where}"
        if says is not None:
            # the form's one live region, its status line (the summary shows the same words, silently)
            live = form(self.page, self.schema).locator("[data-ma-sync-notice][aria-live=polite]")
            expect(live).to_have_text(re.compile(says))
        assert not navigation_started(self.page), f"Potato started moving to another instance {where}"
        assert current_instance_id(self.page) == self.instance, f"the instance changed {where}"

    def survives_rerender(self, focus) -> None:
        """Potato's `potato:instance-ready` makes every widget render again: focus stays put."""
        self.page.evaluate("document.dispatchEvent(new Event('potato:instance-ready'))")
        expect(focus).to_be_focused()
        self.wait_focus_in_view("a re-render")


def expect_active_option(widget, box, words: str) -> None:
    """The combobox is expanded and its aria-activedescendant is an option reading `words`."""
    expect(box).to_have_attribute("aria-expanded", "true")
    active = box.get_attribute("aria-activedescendant")
    assert active, "the combobox names no active option"
    expect(widget.locator(f'[role="listbox"] [id="{active}"]')).to_have_text(re.compile(words))


def test_keyboard_failure_attribution(task, open_as):
    page = open_as("failure_attribution")
    widget = form(page, "attribution")
    agent, step, reason = (widget.get_by_label(name) for name in ("Responsible agent", "Decisive step", "Reason"))
    journey = Journey(page, "attribution")

    journey.start_before()
    journey.press("Tab", agent)
    journey.press("ArrowDown", agent, says=r"Responsible agent: Researcher\.")
    # The step picker is a combobox (issue 18): arrows move through its listbox, Enter chooses.
    journey.press("Tab", step)
    journey.press("ArrowDown", step)
    expect_active_option(widget, step, r"^#1 ")
    journey.press("Enter", step, says=r"Decisive step: #1 \(Researcher\)\.")
    journey.press("ArrowDown", step)
    journey.press("ArrowDown", step)
    expect_active_option(widget, step, r"^#2 ")
    journey.press("Enter", step, says=r"Decisive step: #2 \(")
    trace_link = widget.get_by_role("button", name="Show #2 in the trace")   # the trace view's link
    plausible = widget.get_by_role("combobox", name="Other plausible steps")
    journey.press("Tab", trace_link)
    journey.press("Tab", plausible)
    journey.press("ArrowDown", plausible)
    expect_active_option(widget, plausible, r"^#1 ")
    journey.press("Enter", plausible, says=r"Also plausible: #1\.")
    confident, uncertain = (widget.get_by_role("radio", name=name) for name in ("Confident", "Uncertain"))
    journey.press("Tab", confident)
    journey.press("ArrowDown", uncertain, says=r"Uncertain\.")
    journey.press("Tab", reason)
    journey.press("Shift+Tab", uncertain)
    journey.press("Shift+Tab", plausible)
    journey.press("Shift+Tab", widget.get_by_role("button", name="Remove #1"))
    journey.press("Shift+Tab", trace_link)
    journey.press("Shift+Tab", step)
    journey.press("ArrowUp", step)
    journey.press("ArrowUp", step)
    expect_active_option(widget, step, r"^#1 ")
    journey.press("Enter", step, says=r"Decisive step: #1 \(Researcher\)\.")
    journey.survives_rerender(step)

    # #1 chosen as the decisive step leaves the plausible list
    wait_saved_json(task, USERS["failure_attribution"], PIPELINE, "attribution",
                    {"responsible_agent": "Researcher", "decisive_step": 0, "reason": "", "certainty": "uncertain"})


def test_keyboard_agent_scorecard(task, open_as):
    page = open_as("agent_scorecard")
    widget = form(page, "scorecard")
    cell = widget.get_by_role("radiogroup", name="Researcher: role fidelity")
    journey = Journey(page, "scorecard")

    journey.start_before()
    journey.press("Tab", widget.get_by_role("button", name="Rest N/A for Researcher"))
    journey.press("Tab", cell.get_by_role("radio", name="1", exact=True))
    journey.press("Space", cell.get_by_role("radio", name="1", exact=True), says=r"Researcher: role fidelity 1\.")
    journey.press("ArrowRight", cell.get_by_role("radio", name="2", exact=True), says=r"Researcher: role fidelity 2\.")
    journey.press("ArrowRight", cell.get_by_role("radio", name="3", exact=True), says=r"Researcher: role fidelity 3\.")
    journey.press("ArrowLeft", cell.get_by_role("radio", name="2", exact=True), says=r"Researcher: role fidelity 2\.")
    journey.press("Shift+Tab", widget.get_by_role("button", name="Rest N/A for Researcher"))
    journey.press("Enter", widget.get_by_role("button", name="Rest N/A for Researcher"),
                  says=r"not applicable")
    journey.survives_rerender(widget.get_by_role("button", name="Rest N/A for Researcher"))

    wait_saved_json(task, USERS["agent_scorecard"], PIPELINE, "scorecard",
                    {"agents": {"Researcher": {"role fidelity": 2}}, "team": {}, "milestones": {},
                     "not_applicable": {"agents": {"Researcher": ["contribution", "coordination"]}}})


def test_keyboard_handoff_review(task, open_as):
    page = open_as("handoff_review")
    widget = form(page, "handoffs")
    card = widget.get_by_role("group", name=re.compile(r"^Handoff 1: "))
    info_loss = card.get_by_role("button", name="info loss", exact=True)
    quality = card.get_by_role("radiogroup", name="Quality")
    journey = Journey(page, "handoffs")

    journey.start_before()
    journey.press("Tab", widget.get_by_role("combobox", name=re.compile(r"^Show")))
    journey.press("Tab", widget.get_by_label("Jump to handoff"))
    journey.press("Tab", widget.get_by_role("button", name="Go", exact=True))
    journey.press("Tab", widget.get_by_role("button", name="Next unreviewed handoff"))
    journey.press("Tab", widget.get_by_role("button", name="Mark all unreviewed handoffs as fine"))
    # the card under review is open: its "Hide review" first (every other card is a line)
    journey.press("Tab", card.get_by_role("button", name="Hide review"))
    # "from #M to #N" and each quoted message's "#N": links into the trace view (ui.stepLink)
    steps = card.get_by_role("button", name=re.compile(r"^Show #\d+ in the trace$"))
    for position in range(4):
        journey.press("Tab", steps.nth(position))
    # Researcher -> Writer (the tool call before it is no handoff): the Writer's long draft has a toggle
    journey.press("Tab", card.get_by_role("button", name="Show full message"))
    journey.press("Tab", info_loss)
    journey.press("Space", info_loss, says=r"info loss flagged")
    expect(info_loss).to_have_attribute("aria-pressed", "true")
    for flag in ("dropped constraint", "garbling", "goal drift"):
        journey.press("Tab", card.get_by_role("button", name=flag, exact=True))
    journey.press("Tab", quality.get_by_role("radio", name="1 (poor)", exact=True))
    journey.press("ArrowRight", quality.get_by_role("radio", name="2", exact=True), says=r"quality 2")
    journey.press("ArrowLeft", quality.get_by_role("radio", name="1 (poor)", exact=True), says=r"quality 1")
    journey.press("Shift+Tab", card.get_by_role("button", name="goal drift", exact=True))
    journey.survives_rerender(card.get_by_role("button", name="goal drift", exact=True))

    wait_saved_json(task, USERS["handoff_review"], PIPELINE, "handoffs",
                    [{"index": 0, "step": 3, "from_step": 2, "from": "Researcher", "to": "Writer",
                      "explicit": False, "flags": ["info_loss"], "quality": 1, "note": ""}])


def test_keyboard_tool_call_review(task, open_as):
    page = open_as("tool_call_review")
    widget = form(page, "tool_calls")
    next_unjudged = widget.get_by_role("button", name="Next unjudged call")
    journey = Journey(page, "tool_calls")

    journey.start_before()
    journey.press("Tab", widget.get_by_label("Agent", exact=True))
    journey.press("Tab", widget.get_by_label("Tool", exact=True))
    journey.press("Tab", next_unjudged)
    journey.press("Enter", widget.get_by_role("radio", name="correct", exact=True))
    call = r"^Call 1: web_search by Researcher \(step 1\): judged: "
    journey.press("Space", widget.get_by_role("radio", name="correct", exact=True),
                  says=call + r"correct\. 1 of 1 tool calls judged\.$")
    expect(widget.locator(".ma-summary")).to_have_text("1 of 1 tool calls judged.")
    journey.press("ArrowRight", widget.get_by_role("radio", name="wrong_tool", exact=True), says=call + "wrong_tool")
    journey.press("ArrowRight", widget.get_by_role("radio", name="wrong_args", exact=True), says=call + "wrong_args")
    journey.survives_rerender(widget.get_by_role("radio", name="wrong_args", exact=True))

    wait_saved_json(task, USERS["tool_call_review"], PIPELINE, "tool_calls",
                    [{"index": 0, "step": 0, "position": 0, "id": "call_r1", "tool": "web_search",
                      "verdict": "wrong_args", "notes": ""}])


def test_keyboard_agent_interaction_graph(task, open_as):
    page = open_as("agent_interaction_graph")
    widget = form(page, "interaction_graph")
    researcher = widget.get_by_role("button", name=re.compile(r"^Agent Researcher\b"))
    writer = widget.get_by_role("button", name=re.compile(r"^Agent Writer\b"))
    editor = widget.get_by_role("button", name=re.compile(r"^Agent Editor\b"))
    edge = widget.get_by_role("button", name=re.compile(r"^Researcher to Writer, 1 message, "))
    journey = Journey(page, "interaction_graph")

    journey.start_before()
    journey.press("Tab", researcher)
    journey.press("Enter", researcher, says=r"^Critical path: Researcher\. No flagged edges\.$")
    expect(researcher).to_have_attribute("aria-pressed", "true")
    journey.press("ArrowRight", edge)
    journey.press("Enter", edge, says=r"Flagged edges: Researcher to Writer \(critical\)\.")
    journey.press("Enter", edge, says=r"Flagged edges: Researcher to Writer \(problematic\)\.")
    expect(edge).to_have_accessible_name(re.compile(r"problematic$"))
    journey.press("ArrowRight", writer)
    journey.press("Space", writer, says=r"^Critical path: Researcher -> Writer\.")
    journey.press("ArrowDown", editor)
    journey.press("ArrowUp", writer)
    journey.survives_rerender(writer)

    wait_saved_json(task, USERS["agent_interaction_graph"], PIPELINE, "interaction_graph",
                    {"critical_nodes": ["Researcher", "Writer"], "edges": {"Researcher->Writer": "problematic"},
                     "edge_marks": [{"from": "Researcher", "to": "Writer", "status": "problematic"}]})


def test_keyboard_tool_contention(task, open_as):
    page = open_as("tool_contention")
    widget = form(page, "contention")
    first_call = widget.get_by_role("button", name="W1 lock on orders from 01:00:00 to 01:10:00, region 1")
    region = widget.get_by_role("button", name="Region 1", exact=True)
    labels = widget.get_by_role("radiogroup").first
    journey = Journey(page, "contention")

    journey.start_before()
    journey.press("Tab", widget.get_by_role("button", name="Zoom in"))
    journey.press("Tab", first_call)
    journey.press("Enter", first_call,
                  says=r"Chosen: Region 1: orders, 01:00:00 to 01:10:00, W1, W2, W3, not labelled\.")
    journey.press("Tab", region)
    expect(region).to_have_attribute("aria-pressed", "true")
    journey.press("Tab", widget.get_by_role("button", name="Zoom to region 1"))
    journey.press("Tab", labels.get_by_role("radio", name="deadlock", exact=True))
    journey.press("ArrowDown", labels.get_by_role("radio", name="circular_wait", exact=True),
                  says=r"^Region 1 labelled circular_wait\. 1 of 2 contention regions labelled\.")
    journey.press("ArrowUp", labels.get_by_role("radio", name="deadlock", exact=True),
                  says=r"^Region 1 labelled deadlock\.")
    journey.press("Shift+Tab", widget.get_by_role("button", name="Zoom to region 1"))
    journey.survives_rerender(widget.get_by_role("button", name="Zoom to region 1"))

    wait_saved_json(task, USERS["tool_contention"], CONTENTION, "contention", marked_contention("deadlock"))


def test_keyboard_emergent_behavior(task, open_as):
    page = open_as("emergent_behavior")
    widget = form(page, "emergent")
    pick_groupthink = widget.get_by_role("button", name="Mark turns of groupthink, episode 1")
    first_turn = widget.get_by_role("button", name="Turn 1 (Researcher)", exact=True)
    second_turn = widget.get_by_role("button", name="Turn 2 (Researcher)", exact=True)  # a tool result is its caller's
    journey = Journey(page, "emergent")

    journey.start_before()
    journey.press("Tab", widget.get_by_role("button", name="Add another collusion episode"))
    journey.press("Tab", widget.get_by_role("button", name="Mark turns of collusion, episode 1"))
    journey.press("Tab", widget.get_by_label("Note on collusion, episode 1"))
    journey.press("Tab", widget.get_by_role("button", name="Add another groupthink episode"))
    journey.press("Tab", pick_groupthink)
    journey.press("Space", pick_groupthink)
    expect(pick_groupthink).to_have_attribute("aria-pressed", "true")
    for name in ("Note on groupthink, episode 1", "Add another cascading_error episode",
                 "Mark turns of cascading_error, episode 1", "Add another role_drift episode",
                 "Mark turns of role_drift, episode 1", "No emergent behaviour observed in this run",
                 "Researcher (3)", "Writer (1)", "Editor (1)", "Jump to turn"):
        journey.press("Tab", widget.get_by_label(name, exact=True))
    journey.press("Tab", widget.get_by_role("button", name="Go", exact=True))
    journey.press("Tab", first_turn)
    journey.press("Space", first_turn, says=r"^Turn #1 marked in groupthink, episode 1\.")
    journey.press("ArrowRight", second_turn)
    journey.press("Enter", second_turn,
                  says=r"^Turn #2 marked in groupthink, episode 1\. groupthink: episode 1, 2 turns: #1 \(Researcher\), #2 \(Researcher\)")
    journey.press("ArrowLeft", first_turn)
    expect(first_turn).to_have_attribute("aria-pressed", "true")
    journey.survives_rerender(first_turn)

    wait_saved_json(task, USERS["emergent_behavior"], PIPELINE, "emergent",
                    {"groupthink": {"turns": [0, 1], "note": "", "instances": [{"turns": [0, 1], "note": ""}]}})


# --------------------------------------------------------------------------- colour independence


GRAYSCALE = "html { filter: grayscale(1) !important; }"


UNPIN_POTATO_BARS = """() => {
    for (const el of document.querySelectorAll('body *')) {
        const position = getComputedStyle(el).position;
        if ((position === 'sticky' || position === 'fixed') && !el.closest('form.multiagent-form')) {
            el.style.position = 'static';
        }
    }
}"""


def save_form_screenshots(page, mode: str, schemas: list[str]) -> list[Path]:
    """One PNG per widget under test-results/accessibility/, named `<mode>-<schema>.png`
    (Potato's sticky bars are unpinned first, or they would be drawn over the widget)."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    page.evaluate(UNPIN_POTATO_BARS)
    saved = []
    for schema in schemas:
        path = RESULTS_DIR / f"{mode}-{schema}.png"
        form(page, schema).screenshot(path=str(path), animations="disabled")
        saved.append(path)
    return saved


def screenshots_in_every_mode(page, prefix: str, schemas: list[str]) -> list[Path]:
    """Each widget as drawn normally, in forced colours and in grayscale."""
    saved = save_form_screenshots(page, f"{prefix}-normal", schemas)
    page.emulate_media(forced_colors="active")
    saved += save_form_screenshots(page, f"{prefix}-forced-colours", schemas)
    page.emulate_media(forced_colors="none")
    style = page.add_style_tag(content=GRAYSCALE)
    saved += save_form_screenshots(page, f"{prefix}-grayscale", schemas)
    style.evaluate("node => node.remove()")
    return saved


STYLE_OF = """(el) => {
    const s = getComputedStyle(el);
    return {dash: s.strokeDasharray, strokeWidth: s.strokeWidth, fill: s.fill, border: s.borderStyle,
            weight: s.fontWeight, decoration: s.textDecorationLine, text: el.textContent.trim()};
}"""


def style_of(locator) -> dict:
    return locator.evaluate(STYLE_OF)


def test_every_state_is_drawn_without_relying_on_colour(open_as):
    """Each marked state differs from its unmarked twin in text, a pressed state, a dash pattern,
    a fill pattern, a border style or type weight: never in colour alone."""
    page = open_as("colours")

    graph = form(page, "interaction_graph")
    critical_node = graph.locator(".ma-aig-node.ma-aig-critical").first
    plain_node = graph.locator(".ma-aig-node:not(.ma-aig-critical)").first
    expect(critical_node).to_have_attribute("aria-pressed", "true")
    expect(critical_node).to_have_accessible_name(re.compile(r"on the critical path \(1 of 2\)"))
    assert style_of(critical_node.locator(".ma-aig-node-box"))["strokeWidth"] != \
        style_of(plain_node.locator(".ma-aig-node-box"))["strokeWidth"], "a critical agent's box is not thicker"
    critical_edge = graph.locator('.ma-aig-edge[data-status="critical"]')
    problematic_edge = graph.locator('.ma-aig-edge[data-status="problematic"]')
    expect(critical_edge.locator(".ma-aig-edge-count")).to_have_text(re.compile(r"critical$"))
    expect(problematic_edge.locator(".ma-aig-edge-count")).to_have_text(re.compile(r"problematic$"))
    assert style_of(problematic_edge.locator(".ma-aig-edge-line"))["dash"] != "none", "a problematic edge is not dashed"

    handoffs = form(page, "handoffs")
    flagged_card = handoffs.get_by_role("group", name=re.compile(r"^Handoff 1: "))
    plain_card = handoffs.get_by_role("group", name=re.compile(r"^Handoff 2: "))
    flagged_card.get_by_role("button", name=re.compile(r"^Show review")).click()  # a reviewed card opens collapsed
    flag = flagged_card.get_by_role("button", name="info loss", exact=True)
    expect(flag).to_have_attribute("aria-pressed", "true")
    assert style_of(flag)["text"].startswith("\u2713"), "a pressed flag has no check mark"
    expect(flagged_card).to_contain_text("Reviewed: quality 2 of 5, flagged: info loss.")
    expect(plain_card).to_contain_text("Not reviewed yet.")
    assert style_of(flagged_card)["border"] != style_of(plain_card)["border"], "a reviewed card's edge looks unreviewed"

    scorecard = form(page, "scorecard")
    chosen = scorecard.get_by_role("radiogroup", name="W1: role fidelity").get_by_role("radio", name="4", exact=True)
    expect(chosen).to_be_checked()
    chosen_box = style_of(chosen.locator(".."))
    assert int(chosen_box["weight"]) >= 700 and "underline" in chosen_box["decoration"], chosen_box

    contention = form(page, "contention")
    open_fill = style_of(contention.locator(".ma-tc-band-open").first)["fill"]
    done_fill = style_of(contention.locator(".ma-tc-band-done").first)["fill"]
    assert open_fill.startswith("url(") and done_fill.startswith("url(") and open_fill != done_fill, \
        f"unlabelled and labelled regions need two different fill patterns: {open_fill}, {done_fill}"
    expect(contention.get_by_text("\u2713 labelled")).to_have_count(1)
    first_call = contention.get_by_role("button", name="W1 lock on orders from 01:00:00 to 01:10:00, region 1")
    first_call.click()
    expect(contention.get_by_role("button", name="Region 1", exact=True)).to_have_attribute("aria-pressed", "true")
    assert style_of(first_call)["dash"] != "none", "the chosen region's calls are not outlined with dashes"

    emergent = form(page, "emergent")
    other_episode_turn = emergent.get_by_role("button", name="Turn 2 (W1)", exact=True)
    assert style_of(other_episode_turn)["text"].startswith("\u2022"), "a turn marked in another episode has no dot"
    emergent.get_by_role("button", name="Mark turns of groupthink, episode 1").click()
    expect(other_episode_turn).to_have_attribute("aria-pressed", "true")
    assert style_of(other_episode_turn)["text"].startswith("\u2713"), "a turn of the active episode has no check mark"

    for schema in ("attribution", "interaction_graph", "handoffs", "scorecard"):
        expect(form(page, schema)).to_contain_text("not in this trace")

    saved = screenshots_in_every_mode(page, "marked", ["attribution", "interaction_graph", "handoffs", "scorecard",
                                                       "contention", "emergent"])
    assert all(path.stat().st_size > 0 for path in saved)


def test_a_chosen_verdict_is_drawn_without_relying_on_colour(open_as):
    page = open_as("verdicts")
    calls = form(page, "tool_calls")
    expect(calls.get_by_role("radio", name="wrong_args", exact=True)).to_be_checked()
    expect(calls).to_contain_text("Judged: wrong_args")
    expect(calls).to_contain_text("not in this trace")

    saved = screenshots_in_every_mode(page, "judged", ["tool_calls"])
    assert all(path.stat().st_size > 0 for path in saved)
