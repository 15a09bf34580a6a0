"""One browser tab per test session, handed to each test in turn as a new visitor.

Why: a new page costs Chromium about 1 s of CPU on this machine (a renderer process, then a first
navigation in it), and the suite opened one per test: the largest single cost of the e2e layer
(tests/README.md, "Wall time"). A navigation in a tab that already exists costs about a third.

What a test may rely on is what a new page gave it, and nothing a previous test did:
- the tab is on `about:blank` with no cookies, and the storage of the origin it left is cleared
  (localStorage and sessionStorage: Potato keeps its theme and panel states there);
- listeners (`page.on`/`once`), routes (`page.route`) and init scripts (`page.add_init_script`)
  the test added are removed when it ends; so are the viewport, media emulation and default
  timeouts it set;
- pages the test opened in the context (a second tab) are closed when it ends.
A test that closes the tab gets a new one for the next test.
"""

from __future__ import annotations

import time
from typing import Any, Callable, List

DEFAULT_VIEWPORT = {"width": 1280, "height": 720}   # Playwright's, when the context sets none
DEFAULT_TIMEOUT_MS = 30_000   # Playwright's own default for actions, restored after a test sets another
LEAVE_TIMEOUT_MS = 15_000
SETTLE_TIMEOUT_S = 10
QUIET_S = 0.15
SILENCE_AND_FORGET = """() => {
  navigator.sendBeacon = () => true;
  try { localStorage.clear(); sessionStorage.clear(); } catch (e) {}
}"""
WRAPPED = ("on", "once", "add_init_script", "route", "set_viewport_size", "emulate_media",
           "set_default_timeout", "set_default_navigation_timeout")


class WorkerTab:
    """The session's tab: `take()` before a test, `give_back()` after it."""

    def __init__(self, context, viewport, navigation_timeout_ms: int) -> None:
        self.context = context
        self._viewport = viewport
        self._navigation_timeout_ms = navigation_timeout_ms
        self._page = None
        in_flight: set = set()   # every request of every page of the context, until it ends
        context.on("request", lambda request: in_flight.add(request))
        context.on("requestfinished", lambda request: in_flight.discard(request))
        context.on("requestfailed", lambda request: in_flight.discard(request))
        self._in_flight = in_flight
        self._undo: List[Callable[[], Any]] = []

    def take(self):
        if self._page is None or self._page.is_closed():
            self._page = self.context.new_page()
        self._record(self._page)
        return self._page

    def give_back(self) -> None:
        page = self._page
        if page is not None and not page.is_closed():
            page.unroute_all(behavior="ignoreErrors")
            for undo in reversed(self._undo):
                _quietly(undo)
            for name in WRAPPED:
                page.__dict__.pop(name, None)
            self._leave(page)
        self._undo = []
        for other in self.context.pages:
            if other is not page:
                _quietly(other.evaluate, SILENCE_AND_FORGET)
                other.close()
        self._forget_session()

    def _forget_session(self) -> None:
        """Clear the cookies once no request is in flight and none comes back for a moment: a
        request of the test that ends after this (a beacon sent on a reload the test made) would
        set its session's cookie again after the next test has logged in as someone else."""
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        quiet_since = None
        while time.monotonic() < deadline:
            if self._in_flight or self.context.cookies():
                self.context.clear_cookies()
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= QUIET_S:
                return
            time.sleep(0.02)   # each round's cookies() call lets Playwright deliver the request events
        self._in_flight.clear()   # a request that never ended must not hold up every later test
        self.context.clear_cookies()

    # ------------------------------------------------------------------ what a test changes

    def _record(self, page) -> None:
        """Wrap the page's state-changing calls on this page object, remembering how to undo each."""
        undo = self._undo

        def wrap(name: str, make_undo: Callable[..., Callable[[], Any] | None]) -> None:
            original = getattr(page, name)

            def recorded(*args, **kwargs):
                result = original(*args, **kwargs)
                step = make_undo(result, *args, **kwargs)
                if step is not None:
                    undo.append(step)
                return result

            page.__dict__[name] = recorded

        wrap("on", lambda _, event, handler: lambda: _quietly(page.remove_listener, event, handler))
        wrap("once", lambda _, event, handler: lambda: _quietly(page.remove_listener, event, handler))
        wrap("add_init_script", lambda disposable, *a, **k: disposable.close)
        wrap("route", lambda *a, **k: None)   # every route goes: unroute_all in give_back
        wrap("set_viewport_size", lambda *a, **k: lambda: page.set_viewport_size(self._viewport))
        wrap("emulate_media", lambda *a, **k: lambda: page.emulate_media(
            media="null", color_scheme="null", reduced_motion="null", forced_colors="null", contrast="null"))
        wrap("set_default_timeout", lambda *a, **k: lambda: page.set_default_timeout(DEFAULT_TIMEOUT_MS))
        wrap("set_default_navigation_timeout",
             lambda *a, **k: lambda: page.set_default_navigation_timeout(self._navigation_timeout_ms))

    def _leave(self, page) -> None:
        """Clear the origin's storage and go to about:blank (a leave prompt is accepted); a tab that
        cannot leave is closed and replaced at the next `take()`."""
        # Nothing the leaving page sends may reach the server: Potato's trackers send beacons on
        # every unload, and a beacon outlives its page; its answer would set this test's session
        # cookie again after the next test has logged in as someone else.
        page.route("**/*", lambda route: _quietly(route.abort))
        try:
            if page.url.startswith("http"):
                page.evaluate(SILENCE_AND_FORGET)
            accept = lambda dialog: _quietly(dialog.accept)   # noqa: E731
            page.on("dialog", accept)
            try:
                page.goto("about:blank", timeout=LEAVE_TIMEOUT_MS)
            finally:
                page.remove_listener("dialog", accept)
            page.unroute_all(behavior="ignoreErrors")
        except Exception:   # a crashed or hung page: start the next test on a new one
            _quietly(page.close)


def _quietly(action: Callable[..., Any], *args) -> None:
    try:
        action(*args)
    except Exception:
        pass
