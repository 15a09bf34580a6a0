"""Saves that retry, warn and arrive in order (issue 39), in a real Potato 2.12.1 with the network
cut (Playwright's `set_offline`), slowed (every POST held a seeded random 0-2 s by `page.route`)
and the server stopped and started again by its PID.

The page (tests/e2e/configs/saving.yaml) carries all seven widgets, a Potato radio and MAST tags
on the trace view's steps (Potato's turn-level multiselect). Every check reads what Potato wrote on
disk; the random delays come from a seeded generator, named in every failure, so a failure
reproduces.
"""

from __future__ import annotations

import json
import random
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from .harness import (
    fresh_user,
    question_form as form,
    CONFIGS_DIR,
    READY_PROBE,
    REPO_ROOT,
    current_instance_id,
    login,
    open_annotate,
    restart_potato,
    wait_instance_ready,
    wait_saved,
)

CONFIG = CONFIGS_DIR / "saving.yaml"
AXE_SCRIPT = REPO_ROOT / "node_modules" / "axe-core" / "axe.min.js"
TASK_FILES = {"config.yaml": CONFIG, "data/data-safety.jsonl": CONFIGS_DIR / "data-safety.jsonl"}
FIRST_ID = "safety-01"
STATUS = "[data-ma-save-status]"
NOT_SAVED = re.compile(r"^Not saved: retrying since \d\d:\d\d:\d\d \(([^)]*)\)\.$")
SIGNED_OUT = re.compile(r"^Not saved: signed out since \d\d:\d\d:\d\d\. Sign in again in another tab")
ANOTHER_TAB = "another tab"
MAST = "mast_steps"
MAST_MODE = "FM-2.4 Information withholding"
SEED = 39
BEACONS_FAIL_OFFLINE = """
(function () {
  var send = navigator.sendBeacon;
  navigator.sendBeacon = function () { return navigator.onLine ? send.apply(navigator, arguments) : false; };
}());
"""
"""An offline browser's beacon fails. Playwright's `set_offline` is the DevTools emulation of the
page's target, and a beacon sent while the page closes (Potato's unload flush) can start after the
target is gone and reach the server (seen once in CI under load): the tests of a tab closed offline
make the beacon fail as a real offline browser does."""


@pytest.fixture(scope="module")
def task(potato_task):
    return potato_task("team-evaluation", files=TASK_FILES)


def status(page):
    return page.locator(STATUS)


def stored(task, user: str, schema: str, instance_id: str = FIRST_ID) -> Any:
    """The value saved for a scheme of ours, parsed; None when nothing is saved."""
    raw = task.saved(user).get(instance_id, {}).get(schema)
    return None if raw is None else json.loads(raw)


def stored_radio(task, user: str, schema: str = "outcome", instance_id: str = FIRST_ID) -> list[str]:
    return sorted(task.saved_labels(user).get(instance_id, {}).get(schema, {}))


def stored_mast(task, user: str, instance_id: str = FIRST_ID) -> dict:
    """{turn id: chosen modes} of the MAST tags saved (Potato's turn-level value)."""
    labels = task.saved_labels(user).get(instance_id, {}).get(MAST, {})
    for raw in labels.values():
        value = json.loads(raw)
        return {turn: sorted(entry.get("values", [])) for turn, entry in value.get("turns", {}).items()}
    return {}


def wait_until(check: Callable[[], Any], what: str, timeout: float = 10.0, page=None) -> Any:
    """Poll `check` until it returns something truthy (reading files written by the server). With a
    `page`, wait through it: Playwright runs a page's route handlers only while the test is in one
    of its calls."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except (json.JSONDecodeError, FileNotFoundError):   # caught mid-write; read again
            last = None
        if last:
            return last
        if page is not None:
            page.wait_for_timeout(100)
        else:
            time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout:.0f} s (last: {last!r})")


# --------------------------------------------------------------------------- one mark per widget

@dataclass(frozen=True)
class Edit:
    """One annotator action, and whether a saved value carries it."""

    schema: str
    do: Callable       # do(page)
    saved: Callable    # saved(task, user) -> bool


def ours(schema: str, do: Callable, carries: Callable[[Any], bool]) -> Edit:
    return Edit(schema, do, lambda task, user: (lambda v: v is not None and carries(v))(stored(task, user, schema)))


def unfold_mast(page, index: int):
    card = page.locator(f'section.ma-trace .ma-trace-step[data-step="{index}"]')
    toggle = card.locator(".ma-trace-tags-toggle")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    return card


def tag_mast(page, index: int = 1, mode: str = MAST_MODE) -> None:
    """Tag a MAST mode on step #index+1 through the trace view's chip (Potato's turn-level input)."""
    unfold_mast(page, index).locator(f'.ta-chip[data-value="{mode}"]').click()


def mark_turn(page) -> None:
    f = form(page, "emergent")
    f.get_by_role("button", name="Mark turns of collusion, episode 1", exact=True).click()
    f.get_by_role("button", name="Turn 2 (Coder)", exact=True).click()


# The data-safety record: agents Manager, Coder, Tester (and W1-W3 on the lock calls), handoffs
# Manager -> Coder -> Tester -> Manager, three tool calls, contention on "orders" and "stock".
EDITS = [
    Edit("outcome", lambda p: form(p, "outcome").locator('input[value="failure"]').check(),
         lambda task, user: stored_radio(task, user) == ["failure"]),
    ours("attribution", lambda p: form(p, "attribution").get_by_label("Responsible agent").select_option(label="Coder"),
         lambda v: v.get("responsible_agent") == "Coder"),
    ours("interaction_graph",
         lambda p: form(p, "interaction_graph").get_by_role("button", name=re.compile(r"^Agent Manager(,|$)")).click(),
         lambda v: "Manager" in v.get("critical_nodes", [])),
    ours("handoffs", lambda p: form(p, "handoffs").locator('.ma-hr-flag[data-ma-flag="info_loss"]').first.click(),
         lambda v: any("info_loss" in (entry.get("flags") or []) for entry in v)),
    ours("scorecard", lambda p: form(p, "scorecard").locator('input[name="ma-asc-0"][value="3"]').check(),
         lambda v: 3 in v.get("agents", {}).get("Manager", {}).values()),
    ours("tool_calls", lambda p: form(p, "tool_calls").locator('input[name="ma-tcr-tool_calls-0"][value="0"]').check(),
         lambda v: any(entry.get("verdict") for entry in v)),
    ours("contention", lambda p: form(p, "contention").locator('input[data-ma-tc-label][value="deadlock"]').first.check(),
         lambda v: "deadlock" in json.dumps(v)),
    ours("emergent", mark_turn, lambda v: 1 in v.get("collusion", {}).get("turns", [])),
    Edit(MAST, tag_mast, lambda task, user: stored_mast(task, user).get("t1") == [MAST_MODE]),
]


def unsaved_edits(task, user: str) -> list[str]:
    return [edit.schema for edit in EDITS if not edit.saved(task, user)]


def assert_no_serious_axe_finding(page, selectors: list[str]) -> None:
    """axe-core (node_modules, as test_accessibility.py runs it) on the parts of the page saving.js adds."""
    assert AXE_SCRIPT.exists(), "node_modules/axe-core is missing: run `bash scripts/setup.sh`"
    page.add_script_tag(path=str(AXE_SCRIPT))
    violations = page.evaluate("""async (selectors) => (await axe.run({include: selectors.map((s) => [s])})).violations
        .map((v) => ({id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' '))}))""", selectors)
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == [], serious


def kept_in_browser(page) -> list[dict]:
    """The entries this browser keeps for unsaved answers (localStorage, this project's keys)."""
    return page.evaluate("""() => Object.keys(localStorage).filter((k) => k.startsWith('potato-multiagent:unsaved:'))
        .map((k) => JSON.parse(localStorage.getItem(k)))""")


# --------------------------------------------------------------------------- the network cut


def test_the_status_line_is_one_polite_live_region_silent_on_load(task, page):
    login(page, task.base_url, fresh_user("quiet"))
    line = status(page)
    expect(line).to_have_count(1)
    expect(line).to_have_attribute("role", "status")
    expect(line).to_have_attribute("aria-live", "polite")
    assert line.text_content() == ""   # nothing said on load
    EDITS[4].do(page)
    expect(line).to_have_text("Saved")


def test_offline_edits_in_every_widget_and_a_mast_tag_are_saved_by_themselves_back_online(task, page, context):
    user = fresh_user("offline")
    login(page, task.base_url, user)
    context.set_offline(True)
    for edit in EDITS:
        edit.do(page)
    expect(status(page)).to_have_text(NOT_SAVED)
    assert NOT_SAVED.match(status(page).text_content()).group(1) == "offline"
    assert status(page).get_attribute("data-ma-save-state") == "unsaved"
    kept_schemas = {edit.schema for edit in EDITS}   # typing is kept at most every 200 ms: the last edit's soon after
    wait_until(lambda: {schema for entry in kept_in_browser(page) for schema in entry["values"]} == kept_schemas,
               "every edit kept in this browser", page=page)
    assert unsaved_edits(task, user) == [edit.schema for edit in EDITS]   # nothing reached the server
    context.set_offline(False)   # no edit, no focus, no click: the page sends them by itself
    wait_until(lambda: not unsaved_edits(task, user), "every widget's offline edit saved after going back online")
    expect(status(page)).to_have_text("Saved")
    assert kept_in_browser(page) == []


def test_a_tab_closed_while_offline_warns_and_reopening_the_item_offers_the_values_back(task, page, context):
    user = fresh_user("closed")
    page.add_init_script(BEACONS_FAIL_OFFLINE)
    login(page, task.base_url, user)
    context.set_offline(True)
    chosen = [EDITS[0], EDITS[4], EDITS[-1]]   # a Potato radio, a scorecard cell, a MAST tag
    for edit in chosen:
        edit.do(page)
    expect(status(page)).to_have_text(NOT_SAVED)
    warnings = []

    def on_dialog(dialog):
        warnings.append(dialog.type)
        dialog.accept()

    page.on("dialog", on_dialog)
    page.close(run_before_unload=True)
    page.wait_for_event("close")
    assert warnings == ["beforeunload"]
    context.set_offline(False)
    assert [edit.saved(task, user) for edit in chosen] == [False, False, False]

    again = context.new_page()
    again.add_init_script(READY_PROBE)
    open_annotate(again, task.base_url)
    offer = again.get_by_role("region", name="Answers kept in this browser")
    kept = "\u201cDid the team complete the task correctly?\u201d, \u201cScore each agent and the team.\u201d, " \
        "\u201cMAST failure modes\u201d"
    expect(offer).to_contain_text(f"the server does not have: {kept}.")
    expect(status(again)).to_have_text(re.compile("^Answers kept in this browser are not saved"))
    assert_no_serious_axe_finding(again, ["[data-ma-kept]", ".potato-nav"])
    offer.get_by_role("button", name="Restore them").click()
    expect(offer).to_have_text(f"Restored: {kept}.")
    wait_until(lambda: all(edit.saved(task, user) for edit in chosen), "the restored answers saved")
    expect(form(again, "scorecard").locator('input[name="ma-asc-0"][value="3"]')).to_be_checked()
    expect(form(again, "outcome").locator('input[value="failure"]')).to_be_checked()
    expect(status(again)).to_have_text("Saved")
    assert kept_in_browser(again) == []
    again.reload()   # nothing is offered twice
    wait_instance_ready(again)
    expect(again.locator("[data-ma-kept]")).to_have_count(0)


def test_kept_answers_can_be_discarded_and_are_not_offered_when_the_server_has_them(task, page, context):
    user = fresh_user("discard")
    page.add_init_script(BEACONS_FAIL_OFFLINE)
    login(page, task.base_url, user)
    context.set_offline(True)
    EDITS[4].do(page)
    expect(status(page)).to_have_text(NOT_SAVED)
    page.on("dialog", lambda dialog: dialog.accept())
    page.close(run_before_unload=True)
    page.wait_for_event("close")
    context.set_offline(False)
    again = context.new_page()
    again.add_init_script(READY_PROBE)
    open_annotate(again, task.base_url)
    offer = again.get_by_role("region", name="Answers kept in this browser")
    offer.get_by_role("button", name="Discard them").click()
    expect(offer).to_have_text("Discarded the kept answers.")
    assert stored(task, user, "scorecard") is None and kept_in_browser(again) == []
    expect(form(again, "scorecard").locator('input[name="ma-asc-0"][value="3"]')).not_to_be_checked()


def test_a_mast_tag_then_the_tab_closed_at_once_is_saved(task, page, context):
    user = fresh_user("mast-close")
    login(page, task.base_url, user)
    tag_mast(page)
    page.close(run_before_unload=True)   # at once: Potato's turn-level save waits 500 ms
    wait_until(lambda: stored_mast(task, user).get("t1") == [MAST_MODE], "the MAST tag saved by the unload beacon")


def test_a_failed_save_is_retried_and_a_save_with_no_answer_gives_up_and_is_sent_again(task, page):
    user = fresh_user("no-answer")
    login(page, task.base_url, user)
    held = []

    def hold_first(route):
        if route.request.method == "POST" and not held:
            held.append(route)   # never answered: the page must give up on it
            return
        route.continue_()

    page.route(re.compile(r"/updateinstance"), hold_first)
    EDITS[4].do(page)
    expect(status(page)).to_have_text(NOT_SAVED, timeout=30_000)
    assert NOT_SAVED.match(status(page).text_content()).group(1) == "no answer from the server"
    wait_until(lambda: EDITS[4].saved(task, user), "the save sent again after the one with no answer", timeout=20,
               page=page)
    expect(status(page)).to_have_text("Saved")
    assert len(held) == 1


# --------------------------------------------------------------------------- order under a slow network


class SlowPosts:
    """Every POST of a page held a random 0-`most` ms (seeded) before it goes to the server; counts
    those not answered yet, so a test can wait until the server has seen them all."""

    def __init__(self, page, seed: int, most: float = 2000.0):
        self.page = page
        self.seed = seed
        self.random = random.Random(seed)
        self.most = most
        self.waiting = 0
        self.sent = 0
        page.route("**/*", self._handle)

    def _handle(self, route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        self.waiting += 1
        self.sent += 1
        try:
            self.page.wait_for_timeout(self.random.uniform(0, self.most))
            route.fulfill(response=route.fetch())
        except Exception:   # the page aborted it (gave up) or closed: nothing more to hold
            pass
        finally:
            self.waiting -= 1

    def settled(self) -> bool:
        """No POST on its way and no save in the page's queue."""
        saving = self.page.evaluate(f"document.querySelector('{STATUS}')?.getAttribute('data-ma-saving')")
        return self.waiting == 0 and saving != "true"


def wait_settled(page, slow: SlowPosts, what: str) -> None:
    deadline = time.monotonic() + 30
    quiet_since = None
    while time.monotonic() < deadline:   # settled twice 0.7 s apart: Potato's 500 ms autosave timer has fired
        if slow.settled():
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > 0.7:
                return
        else:
            quiet_since = None
        page.wait_for_timeout(100)
    raise AssertionError(f"{what}: saves still on their way after 30 s (seed {slow.seed})")


def test_with_every_post_delayed_twenty_pairs_of_changes_leave_no_older_value_stored(task, page):
    user = fresh_user("pairs")
    login(page, task.base_url, user)
    slow = SlowPosts(page, SEED)
    scorecard = form(page, "scorecard")
    outcome = form(page, "outcome")
    older_stored = []
    for pair in range(20):
        first, second = (3, 5) if pair % 2 == 0 else (5, 3)
        answers = ("success", "failure") if pair % 2 == 0 else ("failure", "success")
        scorecard.locator(f'input[name="ma-asc-0"][value="{first}"]').check()
        outcome.locator(f'input[value="{answers[0]}"]').check()
        page.wait_for_timeout(700)
        scorecard.locator(f'input[name="ma-asc-0"][value="{second}"]').check()
        outcome.locator(f'input[value="{answers[1]}"]').check()
        wait_settled(page, slow, f"pair {pair}")
        cell = list((stored(task, user, "scorecard") or {}).get("agents", {}).get("Manager", {}).values())
        radio = stored_radio(task, user)
        if cell != [second] or radio != [answers[1]]:
            older_stored.append((pair, cell, radio))
    assert older_stored == [], f"older values stored last (seed {SEED}): {older_stored}"
    assert slow.sent >= 20


def test_a_click_storm_under_delayed_posts_leaves_page_equal_to_server_and_no_other_tab_notice(task, page):
    user = fresh_user("storm")
    login(page, task.base_url, user)
    slow = SlowPosts(page, SEED + 1)
    groups = form(page, "scorecard").locator(".ma-asc-cell[role=radiogroup]")   # one per cell: "AGENT: DIMENSION"
    cells = sorted(groups.evaluate_all("(cells) => cells.map((cell) => cell.getAttribute('aria-label'))"))
    rng = random.Random(SEED + 2)
    clicks = [(rng.choice(cells), rng.randint(1, 5)) for _ in range(500)]   # a new whole value almost every click
    # quick clicks, with a pause about every 50 (longer than Potato's 500 ms autosave timer): each save
    # carries some 50 clicks more than the one before it
    gaps = [rng.uniform(600, 900) if rng.random() < 0.02 else rng.uniform(0, 30) for _ in clicks]
    page.evaluate("""async ([clicks, gaps]) => {
        for (let i = 0; i < clicks.length; i++) {
            const [cell, value] = clicks[i];
            document.querySelector(`form[data-schema-name="scorecard"] .ma-asc-cell[aria-label="${CSS.escape(cell)}"] input[value="${value}"]`).click();
            await new Promise((resolve) => setTimeout(resolve, gaps[i]));
        }
    }""", [clicks, gaps])
    wait_settled(page, slow, "after the storm")
    last = dict(clicks)   # each cell's last click
    shown = json.loads(form(page, "scorecard").locator("input.multiagent-input").input_value())
    assert stored(task, user, "scorecard") == shown, f"page and server differ (seeds {SEED + 1}, {SEED + 2})"
    checked = dict(groups.evaluate_all("""(cells) => cells.map((cell) => [cell.getAttribute('aria-label'),
        cell.querySelector('input:checked')]).filter(([, input]) => input).map(([label, input]) => [label, Number(input.value)])"""))
    assert checked == last, f"the page does not show the last click of each cell (seed {SEED + 2})"
    assert sum(len(v) for v in shown["agents"].values()) + len(shown.get("team", {})) == len(last)
    notices = page.locator("[data-ma-sync-notice]").all_text_contents()
    assert not [text for text in notices if ANOTHER_TAB in text], notices
    assert page.locator("[data-ma-refreshed]").count() == 0
    assert slow.sent > 5   # saves did happen during the storm, not only one at its end


# --------------------------------------------------------------------------- two tabs, one offline


@pytest.mark.parametrize("cells", ["same", "different"])
def test_two_tabs_one_offline_end_with_page_equal_to_server_or_a_notice(task, browser, cells):
    user = fresh_user(f"two-{cells}")
    offline_context, online_context = browser.new_context(), browser.new_context()
    try:
        tab_a, tab_b = offline_context.new_page(), online_context.new_page()
        login(tab_a, task.base_url, user)
        login(tab_b, task.base_url, user)
        offline_context.set_offline(True)
        form(tab_a, "scorecard").locator('input[name="ma-asc-0"][value="3"]').check()       # Manager
        expect(status(tab_a)).to_have_text(NOT_SAVED)
        b_cell = "ma-asc-0" if cells == "same" else "ma-asc-3"                                # Manager / Coder
        form(tab_b, "scorecard").locator(f'input[name="{b_cell}"][value="5"]').check()
        wait_until(lambda: stored(task, user, "scorecard"), "tab B's score saved")
        offline_context.set_offline(False)
        expect(status(tab_a)).to_have_text("Saved")
        tab_b.evaluate("window.dispatchEvent(new Event('focus'))")   # the annotator looks at tab B again

        def page_value(tab):
            return json.loads(form(tab, "scorecard").locator("input.multiagent-input").input_value())

        def in_step(tab):
            return page_value(tab) == stored(task, user, "scorecard")

        wait_until(lambda: in_step(tab_a), "tab A's page equals the server")
        saved = stored(task, user, "scorecard")
        if cells == "same":   # both answered one cell: tab A's retry carried its own answer
            assert list(saved["agents"]["Manager"].values()) == [3]
        else:                 # tab A read before it sent again: both answers kept
            assert list(saved["agents"]["Manager"].values()) == [3]
            assert list(saved["agents"]["Coder"].values()) == [5]
        notice_b = form(tab_b, "scorecard").locator("[data-ma-sync-notice]")
        wait_until(lambda: in_step(tab_b) or ANOTHER_TAB in (notice_b.text_content() or ""),
                   "tab B equals the server or says so")
        wait_until(lambda: in_step(tab_b), "tab B refreshed to the server's value")
        expect(notice_b).to_contain_text(ANOTHER_TAB)
    finally:
        offline_context.close()
        online_context.close()


# --------------------------------------------------------------------------- the server restarted


def test_a_server_restart_keeps_the_annotator_signed_in_and_loses_nothing(potato_task, page):
    task = potato_task("team-evaluation", files=TASK_FILES)
    user = fresh_user("restart")
    login(page, task.base_url, user)
    EDITS[0].do(page)
    wait_until(lambda: EDITS[0].saved(task, user), "the first answer saved")
    expect(status(page)).to_have_text("Saved")   # and the page has the server's answer
    task.stop()
    for edit in (EDITS[4], EDITS[-1]):   # a scorecard cell and a MAST tag, while the server is down
        edit.do(page)
    expect(status(page)).to_have_text(NOT_SAVED)
    assert NOT_SAVED.match(status(page).text_content()).group(1) == "the server cannot be reached"
    again = restart_potato(task)
    try:
        wait_until(lambda: EDITS[4].saved(again, user) and EDITS[-1].saved(again, user),
                   "the answers given while the server was down saved by themselves", timeout=45)
        expect(status(page)).to_have_text("Saved")
        page.reload()
        wait_instance_ready(page)   # still signed in: the annotation page, not the login form
        assert current_instance_id(page) == FIRST_ID
        expect(form(page, "scorecard").locator('input[name="ma-asc-0"][value="3"]')).to_be_checked()
        expect(form(page, "outcome").locator('input[value="failure"]')).to_be_checked()
        assert unsaved_edits(again, user) == [e.schema for e in EDITS if e not in (EDITS[0], EDITS[4], EDITS[-1])]
    finally:
        again.stop()


def test_a_save_refused_for_a_lost_session_says_signed_out_and_is_sent_after_signing_in(potato_task, page, context):
    without_key = "\n".join(line for line in CONFIG.read_text(encoding="utf-8").splitlines()
                            if not line.startswith("secret_key:"))
    task = potato_task("team-evaluation", files={**TASK_FILES, "config.yaml": without_key})
    user = fresh_user("signed-out")
    login(page, task.base_url, user)
    EDITS[0].do(page)
    wait_until(lambda: EDITS[0].saved(task, user), "the first answer saved")
    expect(status(page)).to_have_text("Saved")   # and the page has the server's answer
    again = restart_potato(task)   # a new signing key: the page's session cookie is no longer valid
    try:
        EDITS[4].do(page)
        expect(status(page)).to_have_text(SIGNED_OUT)
        assert kept_in_browser(page)[0]["values"].keys() == {"scorecard"}
        other = context.new_page()   # the annotator signs in again in another tab
        login(other, again.base_url, user)
        page.bring_to_front()
        page.evaluate("window.dispatchEvent(new Event('focus'))")
        wait_until(lambda: EDITS[4].saved(again, user), "the kept answer sent after signing in again")
        expect(status(page)).to_have_text("Saved")
        expect(page.locator("#main-content")).to_be_visible()   # Potato's "signed out" panel taken down
        assert kept_in_browser(page) == []
    finally:
        again.stop()
