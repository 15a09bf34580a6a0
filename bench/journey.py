"""The annotator journey of issue 15, measured on any checkout of this project (before and after).

    .venv/bin/python -m bench.journey --checkout /work/journey-before    # the page of 70e5d8f
    .venv/bin/python -m bench.journey                                    # this tree
    .venv/bin/python -m bench.journey --path trace                       # this tree, from the trace

The same three real Who&When Hand-Crafted runs (1, 10, 11: 29, 44 and 130 steps) and the same
decisions on both: the gold agent and decisive step as the failure attribution, every handoff
reviewed (the bulk "fine" button), the interaction graph on the page, and one MAST mode tagged on
the gold step (the modes are this script's choice per run, `MAST_DECISIONS`: Who&When has no MAST
label). The script serves the records with the checkout's own `potato start` (its `.venv`), drives
Debian's Chromium at 1,400 px width, reads what Potato saved, and prints per run: the actions the
annotator took, the page height on arrival, the height of each part of the page, and how far the
page and its panes scrolled to reach the controls.

Which page a checkout gets follows what it can show (`page_kind`):
- "trace-view" (a checkout with `web/trace_view.js`): our `multiagent.trace` display, MAST as a
  turn-level multiselect shown as chips on each step (what `init` writes now).
- "agent-trace" (older checkouts): Potato's `agent_trace` display numbering steps, MAST with
  Potato's `trajectory_eval` (what examples/team-evaluation used at 70e5d8f).

On the trace-view page the decisive step takes one of two paths (`--path`, `PATHS`): "typed" (the
default) types "#N" in failure attribution's step picker and follows its "Show #N in the trace"
link to the step's MAST chips; "trace" reads the trace instead, scrolling its pane down to the gold
step, clicks that step's own "Set as decisive step" and tags the mode on the same step (clicking
its MAST toggle first, one more action, if its chips are folded there).

How actions are counted (the same rule on every page and path, `Counter`): one per click, one per
key press, a typed text one per character, a choice in a native <select> two (open it, pick the
option), Next one. Scrolling is not an action: it is measured apart (`scrolled_px`, the sum of how
far the page and any scrolling pane moved, Playwright scrolling a control into view only as far
as needed, as a reader would; reading the trace pane down to a step counts how far the pane
moved). The figures are measurements, printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import tempfile
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional

import yaml

from potato_multiagent import derive
from tests.e2e import harness

from . import pages

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("POTATO_MA_CORPUS") or "/work/shared/corpus")
RUNS = ("1", "10", "11")   # 29, 44 and 130 steps
MAST_DECISIONS = {
    "1": "FM-2.3 Task derailment",                  # WebSurfer opens an irrelevant site
    "10": "FM-3.2 No or incomplete verification",   # the Orchestrator moves on without the full list
    "11": "FM-3.1 Premature termination",           # WebSurfer stops before expanding the tabs
}
"""The MAST mode the scripted annotator tags on each run's gold step (a decision, not gold)."""
WIDTH, HEIGHT = 1400, 900

MAST_CATEGORIES = [
    ("Specification & System Design", ["FM-1.1 Disobey task specification", "FM-1.2 Disobey role specification",
                                       "FM-1.3 Step repetition", "FM-1.4 Loss of conversation history",
                                       "FM-1.5 Unaware of termination conditions"]),
    ("Inter-Agent Misalignment", ["FM-2.1 Conversation reset", "FM-2.2 Fail to ask for clarification",
                                  "FM-2.3 Task derailment", "FM-2.4 Information withholding",
                                  "FM-2.5 Ignored other agent's input", "FM-2.6 Reasoning-action mismatch"]),
    ("Task Verification & Termination", ["FM-3.1 Premature termination", "FM-3.2 No or incomplete verification",
                                         "FM-3.3 Incorrect verification"]),
]
"""MAST (Cemri et al. 2025) as examples/team-evaluation lists it, on both pages."""

SCHEMES = [
    {"annotation_type": "multiagent.failure_attribution", "name": "attribution",
     "description": "Which agent caused the failure, and at which step?"},
    {"annotation_type": "multiagent.agent_interaction_graph", "name": "interaction_graph",
     "description": "Mark the critical path through the team and flag problematic edges."},
    {"annotation_type": "multiagent.handoff_review", "name": "handoffs",
     "description": "Review every handoff: what was lost or garbled, and how good was it?"},
]
"""Our three schemes, the same on both pages."""

SCROLL_PROBE = """
window.__scrolled = 0;
(() => {
  const last = new WeakMap();
  const offset = (target) => target === document ? window.scrollY : target.scrollTop;
  addEventListener('scroll', (event) => {
    const target = event.target;
    const now = offset(target);
    const before = last.has(target) ? last.get(target) : 0;
    window.__scrolled += Math.abs(now - before);
    last.set(target, now);
  }, true);
})();
"""
"""Sums how far the page and every pane scrolled (scroll events reach a capturing listener)."""
SETTLED_SCROLL = """async () => {
  const frame = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  let last = -1;
  for (let round = 0; round < 50 && window.__scrolled !== last; round += 1) { last = window.__scrolled; await frame(); }
  return window.__scrolled;
}"""


@dataclass(frozen=True)
class Run:
    number: str
    record: Dict[str, Any]
    agent: str
    step: int
    """0-based; the widgets and the trace say #(step + 1)."""
    mode: str


@dataclass
class Figures:
    run: str
    steps: int
    handoffs: int
    actions: int
    page_px: int
    parts_px: Dict[str, int]
    scrolled_px: int


def journey_runs(corpus: Path = CORPUS) -> List[Run]:
    """The three runs converted as `convert --from who-and-when` does, with their gold and the mode."""
    from potato_multiagent.convert import convert_inputs

    folder = corpus / "who_and_when" / "Hand-Crafted"
    if not folder.is_dir():
        raise FileNotFoundError(f"real-data corpus not found at {folder}; set POTATO_MA_CORPUS")
    files = [folder / f"{number}.json" for number in RUNS]
    records = convert_inputs("who-and-when", files).records
    golds = [json.loads(path.read_text(encoding="utf-8")) for path in files]
    return [Run(number, record, gold["mistake_agent"], int(gold["mistake_step"]), MAST_DECISIONS[number])
            for number, record, gold in zip(RUNS, records, golds)]


def page_kind(checkout: Path) -> str:
    """"trace-view" when the checkout has our trace display, else "agent-trace"."""
    return "trace-view" if (checkout / "src/potato_multiagent/web/trace_view.js").exists() else "agent-trace"


def task_config(kind: str, name: str) -> Dict[str, Any]:
    """The task: the question, the run, our three schemes and MAST, as each page generation set it up."""
    if kind == "trace-view":
        display = {"key": "steps", "type": "multiagent.trace", "label": "Run"}
        mast = {"annotation_type": "multiselect", "name": "mast_steps", "description": "MAST failure modes",
                "turn_level": True, "turn_binding": {"field": "steps"},
                "labels": [mode for _, modes in MAST_CATEGORIES for mode in modes]}
    else:
        display = {"key": "steps", "type": "agent_trace", "label": "Run",
                   "display_options": {"show_step_numbers": True, "speaker_key": "role", "text_key": "content"}}
        mast = {"annotation_type": "trajectory_eval", "name": "mast_steps",
                "description": "MAST step tagging: mark the steps that show a failure mode.",
                "steps_key": "steps", "step_text_key": "content",
                "error_types": [{"name": category, "subtypes": modes} for category, modes in MAST_CATEGORIES]}
    return {
        "annotation_task_name": name, "task_dir": ".", "data_files": [pages.DATA_FILE],
        "item_properties": {"id_key": "id", "text_key": "question"}, "output_annotation_dir": "annotation_output",
        "plugins": ["multiagent"], "require_password": False,
        "instance_display": {"layout": {"direction": "vertical", "gap": "16px"},
                             "fields": [{"key": "question", "type": "text", "label": "Task"}, display]},
        "annotation_schemes": [*SCHEMES, mast],
    }


def write_task(folder: Path, kind: str, runs: List[Run]) -> Path:
    (folder / pages.DATA_FILE).parent.mkdir(parents=True, exist_ok=True)
    (folder / pages.DATA_FILE).write_text("".join(json.dumps(run.record) + "\n" for run in runs), encoding="utf-8")
    config = task_config(kind, f"potato-ma journey {kind} {uuid.uuid4().hex[:8]}")
    (folder / pages.CONFIG_FILE).write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return folder


class Counter:
    """What the annotator does, counted by the module's rule (see the docstring), and how far the
    page or a pane had to scroll to bring each control into view first."""

    def __init__(self, page):
        self.page = page
        self.actions = 0
        self.scrolled = 0.0

    def reach(self, locator) -> None:
        """Scroll the control into view as a reader would (only as far as needed); add the distance.
        The page's own scrolling (a link bringing a step into view) settles first and is not counted."""
        before = self.settled()
        locator.scroll_into_view_if_needed()
        self.scrolled += self.settled() - before

    def settled(self) -> float:
        """The scroll sum once two frames in a row added nothing (scroll events come with frames)."""
        return self.page.evaluate(SETTLED_SCROLL)

    def click(self, locator) -> None:
        self.reach(locator)
        locator.click()
        self.actions += 1

    def select(self, locator, value: str) -> None:
        self.reach(locator)
        locator.select_option(value)
        self.actions += 2

    def type(self, locator, text: str) -> None:
        locator.press_sequentially(text)
        self.actions += len(text)

    def press(self, locator, key: str) -> None:
        locator.press(key)
        self.actions += 1


@contextlib.contextmanager
def checkout_potato(checkout: Path) -> Iterator[None]:
    """Point the harness's server start at the checkout's own `potato` (its venv, its plugin)."""
    script = checkout / ".venv" / "bin" / "potato"
    if not script.exists():
        raise FileNotFoundError(f"{script} is missing: run `bash scripts/setup.sh` in {checkout}")
    original = harness.potato_command
    harness.potato_command = lambda: [str(script)]
    try:
        yield
    finally:
        harness.potato_command = original


def start(checkout: Path, folder: Path) -> harness.PotatoTask:
    with checkout_potato(checkout):
        return pages.start_server(folder)


def _parsed(value: Optional[str]) -> Any:
    try:
        return json.loads(value) if value else None
    except json.JSONDecodeError:
        return None


def wait_widgets(page, also: str) -> None:
    """Until our three widgets say they are ready and `also` (the page's own readiness) holds."""
    page.wait_for_function(f"document.querySelectorAll('form.multiagent-form[data-ma-ready=\"true\"]').length === "
                           f"{len(SCHEMES)} && ({also})", polling=100, timeout=30_000)


class TraceViewPage:
    """The page of a checkout with our trace view: step search, the widget's link into the trace,
    MAST chips on the step."""

    def wait_ready(self, page, run: Run) -> None:
        wait_widgets(page, "document.querySelectorAll('section.ma-trace li.ma-trace-row').length > 0")

    def attribute(self, counter: Counter, page, run: Run) -> None:
        """Agent from the select; the step typed as "#N" in the search box, then Enter."""
        from playwright.sync_api import expect

        form = page.locator('form[data-schema-name="attribution"]')
        counter.select(form.get_by_label("Responsible agent"), run.agent)
        box = form.get_by_role("combobox", name="Decisive step")
        counter.click(box)
        counter.type(box, f"#{run.step + 1}")
        expect(harness.step_picker_options(form).first).to_have_text(re.compile(rf"^#{run.step + 1}(?!\d)"))
        counter.press(box, "Enter")

    def tag_mast(self, counter: Counter, page, run: Run) -> None:
        """Bring the gold step into the trace with the widget's link, then click the mode's chip on it."""
        chosen = page.locator('form[data-schema-name="attribution"] .ma-fa-chosen')
        counter.click(chosen.get_by_role("button", name=f"Show #{run.step + 1} in the trace"))
        card = page.locator(f'section.ma-trace .ma-trace-step[data-step="{run.step}"]')
        counter.click(card.locator(f'.ta-chip[data-value="{run.mode}"]'))

    def mast_saved(self, value: Optional[str], run: Run) -> bool:
        turns = (_parsed(value) or {}).get("turns") or {}
        return (turns.get(f"t{run.step}") or {}).get("values") == [run.mode]


TRACE_VIEWPORT = "section.ma-trace .ma-trace-viewport"
READ_DOWN = """(viewport) => {
  const before = viewport.scrollTop;
  viewport.scrollTop = before + Math.round(viewport.clientHeight * 0.8);
  return viewport.scrollTop - before;
}"""
"""The reader scrolls the trace pane down by most of a screen; returns how far it moved."""


class TraceActionPage(TraceViewPage):
    """The same page, the path it was designed for (`--path trace`): the annotator reads the trace
    and, on the step they judge decisive, clicks that step's own "Set as decisive step", then tags
    the MAST mode on the same step (its toggle first if its chips are folded there)."""

    def attribute(self, counter: Counter, page, run: Run) -> None:
        """Agent from the select; scroll the trace pane to the gold step and click its action."""
        form = page.locator('form[data-schema-name="attribution"]')
        counter.select(form.get_by_label("Responsible agent"), run.agent)
        card = read_down_to(counter, page, run.step)
        counter.click(card.get_by_role("button", name="Set as decisive step", exact=True))

    def tag_mast(self, counter: Counter, page, run: Run) -> None:
        card = page.locator(f'section.ma-trace .ma-trace-step[data-step="{run.step}"]')
        chip = card.locator(f'.ta-chip[data-value="{run.mode}"]')
        if not chip.is_visible():   # folded: the step's toggle unfolds its chips
            counter.click(card.locator(".ma-trace-tags-toggle"))
        counter.click(chip)


def read_down_to(counter: Counter, page, step: int):
    """Scroll the trace pane a screen at a time until step `step` is drawn (the view draws a window of
    steps and moves it as the pane scrolls); the distance the reader moved it counts as scrolled px.
    Returns the step's card (Counter.reach then brings its controls fully into view)."""
    viewport = page.locator(TRACE_VIEWPORT)
    card = page.locator(f'section.ma-trace .ma-trace-step[data-step="{step}"]')
    for _ in range(1000):
        if card.count():
            return card
        moved = viewport.evaluate(READ_DOWN)
        if not moved:
            break
        counter.scrolled += moved
        counter.settled()   # the view's window moves on the next frames
    raise RuntimeError(f"step #{step + 1} never came into the trace pane")


class AgentTracePage:
    """The page of 70e5d8f: Potato's agent_trace display, a native <select> of every step, MAST
    with trajectory_eval (a card per step: "Incorrect", then the error type)."""

    def wait_ready(self, page, run: Run) -> None:
        wait_widgets(page, f"document.querySelectorAll('#mast_steps-steps .traj-step-card').length === "
                           f"{len(run.record['steps'])}")

    def attribute(self, counter: Counter, page, run: Run) -> None:
        form = page.locator('form[data-schema-name="attribution"]')
        counter.select(form.get_by_label("Responsible agent"), run.agent)
        counter.select(form.get_by_label("Decisive step"), str(run.step))

    def tag_mast(self, counter: Counter, page, run: Run) -> None:
        card = page.locator(f'#mast_steps-steps .traj-step-card[data-step-index="{run.step}"]')
        counter.click(card.locator('.traj-correctness-btn[data-value="incorrect"]'))
        category = next(name for name, modes in MAST_CATEGORIES if run.mode in modes)
        counter.select(card.locator(".traj-error-type"), f"{category}::{run.mode}")

    def mast_saved(self, value: Optional[str], run: Run) -> bool:
        steps = (_parsed(value) or {}).get("steps") or []
        tagged = [s for s in steps if s and s.get("correctness")]
        return len(tagged) == 1 and tagged[0].get("step_index") == run.step and tagged[0].get("error_subtype") == run.mode


PAGES = {"trace-view": TraceViewPage, "agent-trace": AgentTracePage}
PATHS = {"typed": TraceViewPage, "trace": TraceActionPage}
"""The trace-view page's two paths to the decisive step: typed in the step picker, or from the trace."""

PARTS_JS = """() => {
  const deepest = (el) => Math.max(el.scrollHeight, ...Array.from(el.querySelectorAll('*'), (child) => child.scrollHeight));
  const parts = {};
  const display = document.querySelectorAll('.display-field-resizable');
  if (display.length) { parts.run = deepest(display[display.length - 1]); }
  document.querySelectorAll('#annotation-forms form.annotation-form[data-schema-name]').forEach((form) => {
    const name = form.getAttribute('data-schema-name');
    parts[name] = (parts[name] || 0) + deepest(form);
  });
  const chips = Array.from(document.querySelectorAll('.ma-trace .ma-trace-tags'), (slot) => slot.offsetHeight);
  if (chips.length) { parts['MAST chips in run'] = chips.reduce((sum, height) => sum + height, 0); }
  return {page: document.documentElement.scrollHeight, parts};
}"""
"""The page's height, and the content height of each part: the run's display (the last display
field, the question being the first), each scheme's form, whichever of their panes scrolls, and
(trace view) the part of the run's height that is MAST chips on the steps drawn."""


def measure_heights(page) -> Dict[str, Any]:
    return page.evaluate(PARTS_JS)


def walk(page, task: harness.PotatoTask, user: str, runs: List[Run], driver,
         check: Optional[Callable[[Any, Run], None]] = None) -> List[Figures]:
    """The journey over the runs in order, as `user` (already on the first run's page); `check(page,
    run)` runs once a run is done, before Next (the e2e test asserts there what must hold)."""
    figures = []
    for position, run in enumerate(runs):
        driver.wait_ready(page, run)
        if harness.current_instance_id(page) != run.record["id"]:
            raise RuntimeError(f"expected {run.record['id']} on screen, found {harness.current_instance_id(page)}")
        heights = measure_heights(page)
        counter = Counter(page)
        review_run(counter, page, task, user, run, driver)
        if check is not None:
            check(page, run)
        if position + 1 < len(runs):
            counter.reach(page.locator("#next-btn"))
            harness.go_next(page)   # clicks Next and waits for the next run
            counter.actions += 1
        figures.append(Figures(run.record["id"], len(run.record["steps"]), len(derive(run.record).handoffs),
                               counter.actions, heights["page"], heights["parts"], round(counter.scrolled)))
    return figures


def review_run(counter: Counter, page, task: harness.PotatoTask, user: str, run: Run, driver) -> None:
    """Top to bottom, as both pages order the questions: attribute, mark every handoff fine, tag the
    gold step's mode; wait until Potato saved each."""
    instance = run.record["id"]
    driver.attribute(counter, page, run)
    harness.wait_saved(task, user, instance, "attribution", lambda value: (_parsed(value) or {}).get("decisive_step")
                       == run.step and (_parsed(value) or {}).get("responsible_agent") == run.agent)
    bulk = page.locator('form[data-schema-name="handoffs"]').get_by_role(
        "button", name="Mark all unreviewed handoffs as fine")
    if bulk.is_visible():
        counter.click(bulk)
        page.wait_for_function("!document.querySelector('form[data-schema-name=\"handoffs\"]')"
                               ".hasAttribute('data-incomplete-reason')", polling=100, timeout=10_000)
        harness.wait_saved(task, user, instance, "handoffs", lambda value: bool(_parsed(value)))
    driver.tag_mast(counter, page, run)
    harness.wait_saved(task, user, instance, "mast_steps", lambda value: driver.mast_saved(value, run))


def measure(checkout: Path, kind: str, workdir: Path, runs: List[Run], path: str = "typed") -> List[Figures]:
    """Serve the runs with the checkout's `potato start` and walk the journey once, as a new annotator
    (on the trace-view page by `path`: the decisive step typed, or taken from the trace)."""
    from playwright.sync_api import sync_playwright

    from .browser import launch

    task = start(checkout, write_task(workdir / f"journey-{kind}", kind, runs))
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
                page.add_init_script(SCROLL_PROBE)
                user = f"journey-{uuid.uuid4().hex[:8]}"
                harness.login(page, task.base_url, user)
                driver = PATHS[path]() if kind == "trace-view" else PAGES[kind]()
                return walk(page, task, user, runs, driver)
            finally:
                browser.close()
    finally:
        task.stop()


def table(figures: List[Figures]) -> str:
    """Markdown: one row per run, the parts' content heights in their own columns."""
    parts = list(dict.fromkeys(name for row in figures for name in row.parts_px))
    head = ["run", "steps", "handoffs", "actions", "page px", *[f"{name} px" for name in parts], "scrolled px"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in figures:
        cells = [row.run, row.steps, row.handoffs, row.actions, row.page_px,
                 *[row.parts_px.get(name, "") for name in parts], row.scrolled_px]
        lines.append("| " + " | ".join(f"{cell:,}" if isinstance(cell, int) else str(cell) for cell in cells) + " |")
    total = sum(row.actions for row in figures)
    lines.append(f"\n{total} actions in all.")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.journey", description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=REPO_ROOT,
                        help="the project checkout to serve (its .venv from scripts/setup.sh); default: this tree")
    parser.add_argument("--page", choices=sorted(PAGES), help="override the page chosen from the checkout")
    parser.add_argument("--path", choices=sorted(PATHS), default="typed",
                        help="trace-view page: the decisive step typed in the step picker (typed) or taken "
                             "with the step's own action in the trace (trace); default: typed")
    parser.add_argument("--workdir", type=Path, help="keep the task folder and Potato's log here")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    checkout = args.checkout.resolve()
    kind = args.page or page_kind(checkout)
    if args.path != "typed" and kind != "trace-view":
        parser.error(f"--path {args.path} needs the trace-view page; {checkout} has the {kind} page")
    runs = journey_runs()
    with contextlib.ExitStack() as stack:
        workdir = args.workdir or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="potato-ma-journey-")))
        workdir.mkdir(parents=True, exist_ok=True)
        figures = measure(checkout, kind, workdir, runs, args.path)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    path = f", decisive step {args.path}" if kind == "trace-view" else ""
    print(f"annotator journey on {checkout} ({kind} page{path}), {WIDTH} px wide, {stamp}\n")
    print(table(figures))
    if args.json:
        args.json.write_text(json.dumps({"checkout": str(checkout), "page": kind, "path": args.path, "measured": stamp,
                                         "runs": [asdict(row) for row in figures]}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
