"""Page loads in headless Debian Chromium against a real `potato start`, measured in the page.

One load: a new annotator logs in over HTTP (so the first page the browser draws is the measured
one) in the side's browser context, whose HTTP cache the warm-up load has filled as an annotator's
is after the first item; `GET /annotate` in a new tab; then, once the item is painted, in ms:

- `dcl`, `ready`, `painted`: DOMContentLoaded, the widgets ready, the first frame after Potato
  showed the item, all since navigation start;
- `own`: the widgets' own work. Ours: from the start of the runtime's (widget.js's) DOMContentLoaded listener to
  the last `multiagent:ready:<schema>` mark. Built-ins: the run time of their DOMContentLoaded
  listeners. `derive` (ours only): the part of it spent in derive.js, once per page;
- `frame`: from Potato showing the item (`#main-content` displayed, then `potato:instance-ready`,
  on which our widgets render again) to the end of the next frame; `work`: own + frame;
- `nodes` and `heap_mb`: DOM elements, and the JS heap after a forced garbage collection (CDP);
- optionally `click_value_ms` and `click_frame_ms`: one interaction (on the form scrolled into
  view and built), until the hidden input holds the new value and until the next frame.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional
from urllib.parse import urlparse

from tests.e2e import harness

from .pages import PageSpec

PROBE = (Path(__file__).parent / "probe.js").read_text(encoding="utf-8")
LOAD_TIMEOUT_MS = 180_000  # the built-in contention timeline alone takes tens of seconds
LOGIN_ATTEMPTS = 3

READY_JS = """(marks) => {
  const bench = window.__bench;
  const marked = marks.map((name) => performance.getEntriesByName(name)[0]);
  if (bench.paintedAt === null || marked.some((entry) => !entry)) return false;
  // the trace view draws its rows again after instance-ready
  const traceDrawn = bench.traceRowsAt > bench.instanceReadyAt && bench.tracePaintedAt !== null;
  if (window.__benchConfig.traceView && !traceDrawn) return false;
  return window.__benchConfig.builtins.length === 0 || bench.builtinReadyAt !== null;
}"""

TIMINGS_JS = """({marks, owners}) => {
  const bench = window.__bench;
  const navigation = performance.getEntriesByType('navigation')[0];
  // each owner's first listener (the runtime's core registers its first pass first, then more)
  const listeners = owners.map((owner) => bench.listeners.find((entry) => entry.owner === owner && entry.start !== null))
    .filter(Boolean);
  if (listeners.length !== owners.length) {
    throw new Error('DOMContentLoaded listeners of ' + owners.join(', ') + ' not found: '
      + JSON.stringify(bench.listeners.map((entry) => entry.owner)));
  }
  const ready = marks.length
    ? Math.max(...marks.map((name) => performance.getEntriesByName(name)[0].startTime))
    : bench.builtinReadyAt;
  const own = marks.length
    ? ready - listeners[0].start
    : listeners.reduce((sum, entry) => sum + entry.end - entry.start, 0);
  const frame = bench.paintedAt - (bench.shownAt === null ? bench.instanceReadyAt : bench.shownAt);
  const result = {dcl: navigation.domContentLoadedEventStart, ready, own, frame, work: own + frame,
                  painted: bench.paintedAt, nodes: document.getElementsByTagName('*').length};
  if (marks.length) { result.derive = bench.deriveMs.reduce((sum, ms) => sum + ms, 0); }
  return result;
}"""

BUILT_JS = """(selector) => { const form = document.querySelector(selector);
  return !form.classList.contains('multiagent-form') || form.getAttribute('data-ma-ready') === 'true'; }"""

COUNTS_JS = """(items) => items.map((item) => ({
  selector: item.selector, expected: item.count, found: document.querySelectorAll(item.selector).length}))"""


@dataclass(frozen=True)
class Interaction:
    form: str                                # the scheme's form selector
    action: str                              # JS body with `form` in scope
    expect: Callable[[Any], bool]            # the parsed stored value afterwards


def launch(playwright):
    """Debian's Chromium with the e2e harness's arguments (never a downloaded browser)."""
    return playwright.chromium.launch(executable_path=str(harness.BENCH_CHROMIUM), args=harness.CHROMIUM_ARGS)


def measure_load(context, task: harness.PotatoTask, spec: PageSpec,
                 interaction: Optional[Interaction] = None) -> Dict[str, Any]:
    """One measured load of the page (see the module docstring); times in ms since navigation."""
    page = context.new_page()
    try:
        errors: List[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.add_init_script(probe_script(spec))
        open_as_new_annotator(context, page, task.base_url)
        wait_ready(page, spec, errors)
        result = page.evaluate(TIMINGS_JS, {"marks": spec.marks, "owners": spec.owners})
        result["heap_mb"] = _heap_after_gc(context, page) / 2**20
        if interaction is not None:
            result.update(_interact(page, interaction))
        return result
    finally:
        page.close()


def probe_script(spec: PageSpec) -> str:
    """probe.js with the page's built-in items to watch for, whether it shows our trace view, and
    where each file starts in our bundle (to name the file that registers a listener)."""
    config = {'builtins': spec.builtin_items, 'traceView': spec.trace_view, 'bundle': bundle_first_lines(page_uses(spec))}
    return f"window.__benchConfig = {json.dumps(config)};\n{PROBE}"


def page_uses(spec: PageSpec) -> frozenset:
    """What of ours the page's config uses: what its bundle holds (served.config_uses)."""
    from potato_multiagent.served import TRACE_DISPLAY, config_uses

    fields = [{"type": TRACE_DISPLAY}] if spec.trace_view else []
    return frozenset(config_uses({"annotation_schemes": spec.schemes, "instance_display": {"fields": fields}}))


@lru_cache(maxsize=16)
def bundle_first_lines(uses: frozenset) -> List[Any]:
    """[line, part] of each part in the one script the plugin serves a page using `uses`
    (bundling.py, served.py)."""
    from potato_multiagent import types
    from potato_multiagent.bundling import first_lines
    from potato_multiagent.served import config_bundle

    bundle = config_bundle(types.PACKAGE, types.folders(), uses)
    return [list(part) for part in first_lines((bundle.folder / bundle.script).read_text(encoding="utf-8"))]


def open_as_new_annotator(context, page, base_url: str) -> None:
    """Log a new annotator in (the context keeps its HTTP cache) and open /annotate in `page`.

    In one full run a load landed on the login page instead: the new session cookie had been lost,
    probably to the answer to a beacon the previous, closed page sent without cookies (Potato
    flushes its autosave and telemetry on unload; not verified). So the landing page is checked
    and the login repeated.
    """
    for _ in range(LOGIN_ATTEMPTS):
        context.clear_cookies()
        log_in(context, base_url, f"bench-{uuid.uuid4().hex[:12]}")
        page.goto(f"{base_url}/annotate", wait_until="commit")
        if urlparse(page.url).path.endswith("/annotate"):
            return
    raise RuntimeError(f"logged in {LOGIN_ATTEMPTS} times, but {base_url}/annotate still sent the browser to {page.url}")


def log_in(context, base_url: str, user: str) -> None:
    """Potato's password-less login form, posted over HTTP: the session cookie lands in the context."""
    response = context.request.post(f"{base_url}/auth", form={"action": "login", "email": user}, max_redirects=0)
    if response.status >= 400:
        raise RuntimeError(f"login as {user} failed: HTTP {response.status} from {base_url}/auth")


def wait_ready(page, spec: PageSpec, errors: List[str], timeout_ms: float = LOAD_TIMEOUT_MS) -> None:
    try:
        page.wait_for_function(READY_JS, arg=spec.marks, timeout=timeout_ms, polling=100)
    except Exception as error:
        counts = page.evaluate(COUNTS_JS, spec.builtin_items)
        marks = page.evaluate("(marks) => marks.filter((name) => performance.getEntriesByName(name).length)",
                              spec.marks)
        raise RuntimeError(f"{spec.label}: not ready within {timeout_ms / 1000:.0f} s at {page.url} "
                           f"(marks seen: {marks} of {spec.marks}; built-in items: {counts}; "
                           f"script errors: {errors[:3]})") from error


def _heap_after_gc(context, page) -> int:
    session = context.new_cdp_session(page)
    try:
        session.send("HeapProfiler.collectGarbage")
        return session.send("Runtime.getHeapUsage")["usedSize"]
    finally:
        session.detach()


def bring_into_view(page, form_selector: str) -> None:
    """Scroll the form to the screen as an annotator would, and wait until ours is built (web/lazy.js
    builds a form far from the screen later; a click is timed on a built widget)."""
    page.locator(form_selector).scroll_into_view_if_needed()
    page.wait_for_function(BUILT_JS, arg=form_selector, polling=100, timeout=LOAD_TIMEOUT_MS)


def _interact(page, interaction: Interaction) -> Dict[str, Any]:
    bring_into_view(page, interaction.form)
    outcome = page.evaluate("([form, action]) => window.__benchInteract(form, action)",
                            [interaction.form, interaction.action])
    value = json.loads(outcome["value"]) if outcome["value"] else None
    try:
        expected = interaction.expect(value)
    except (KeyError, IndexError, TypeError):
        expected = False
    if not expected:
        raise RuntimeError(f"the interaction on {interaction.form} stored an unexpected value: {outcome['value'][:300]}")
    return {"click_value_ms": outcome["valueMs"], "click_frame_ms": outcome["frameMs"]}
