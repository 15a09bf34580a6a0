"""Drive a real `potato start` and a headless Debian Chromium from pytest.

What Potato 2.12.1 does that these helpers rely on (read from its installed source):

- `potato start` treats its working directory as the project directory, so every server runs
  from a private copy of the task folder.
- With `require_password: false`, `/` shows a form with only `#login-email`; submitting it
  registers the user and lands on `/annotate`.
- The annotation page keeps the current instance in `<input type="hidden" id="instance_id">`
  (templates/base_template_v2.html). `#main-content` stays hidden while `#loading-state` shows;
  annotation.js dispatches `potato:instance-ready` once the instance and its saved answers are
  on screen. Next/Prev and the Left/Right arrow keys POST `/annotate` and then load the page
  again, and `setLoading(true)` disables `#next-btn` synchronously when a navigation starts.
- Answers reach disk through autosave (~500 ms after a `change`) in
  `annotation_output/<user>/user_state.json`, under `instance_id_to_label_to_value` as
  `[{"schema": ..., "name": ...}, "<value string>"]` pairs.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = REPO_ROOT / "examples"
CONFIGS_DIR = Path(__file__).resolve().parent / "configs"

# The tests drive Debian's `chromium-headless-shell` (the same Chromium release and Blink as
# Debian's `chromium`, without the full browser around it): the whole suite used 880 s of CPU with
# `chromium`, 571 s with the shell, of which Chromium 502 s -> 234 s (tests/README.md, "Wall time").
# The bench measures with the full browser, as annotators run it (BENCH_CHROMIUM; its smoke test
# only checks that the bench runs, and hands it the shell).
CHROMIUM = Path("/usr/bin/chromium-headless-shell")
BENCH_CHROMIUM = Path(os.environ.get("POTATO_MA_BENCH_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

SERVER_START_TIMEOUT_S = 60
SERVER_STOP_GRACE_S = 10
OUTPUT_DIR_NAME = "annotation_output"

# How long a page may take to be ready: generous, because parallel workers share the CPUs and the
# hostile pages carry 100 KB strings; a page that is ready sooner costs nothing.
PAGE_READY_TIMEOUT_MS = 45_000

# Records each `potato:instance-ready` in the page, so tests wait for Potato rather than for time.
READY_PROBE = """
window.__potatoReady = false;
document.addEventListener('potato:instance-ready', () => { window.__potatoReady = true; });
"""


# --------------------------------------------------------------------------- server


# Servers listen on ports below Linux's ephemeral range (32768+), in a block of their own per
# pytest-xdist worker: two workers never pick the same port, and no outgoing connection takes one.
PORT_BLOCK_START = 20_000
PORT_BLOCK_SIZE = 500
START_ATTEMPTS = 3


def worker_number() -> int:
    """pytest-xdist's worker index (`gw3` -> 3), 0 without xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(worker[2:]) if worker[2:].isdigit() else 0


def free_port() -> int:
    """A TCP port nobody listens on right now, from this worker's block (random within it, so two
    runs on one machine rarely meet; a clash is caught by `start_potato`, which then retries)."""
    block = PORT_BLOCK_START + (worker_number() % 24) * PORT_BLOCK_SIZE
    return free_port_in(range(block, block + PORT_BLOCK_SIZE))


def free_port_in(ports: range) -> int:
    """A port of `ports` nobody listens on right now, tried in random order."""
    for port in random.sample(ports, len(ports)):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {ports.start}-{ports.stop - 1}")


def potato_command() -> list[str]:
    """`potato` from the interpreter running the tests, so the venv's plugin is the one loaded."""
    script = Path(sys.executable).with_name("potato")
    return [str(script)] if script.exists() else [sys.executable, "-m", "potato"]


def user_state_path(task_dir: Path, user: str) -> Path:
    return task_dir / OUTPUT_DIR_NAME / user / "user_state.json"


def annotation_pairs(annotations: Mapping[str, Mapping[str, str]]) -> dict[str, list]:
    """`{instance: {schema: value}}` as Potato stores hidden-input widgets: the label name is the
    schema name. (A radio is stored differently: see `radio_answer`.)"""
    return {
        instance_id: [[{"schema": schema, "name": schema}, value] for schema, value in by_schema.items()]
        for instance_id, by_schema in annotations.items()
    }


def radio_answer(schema: str, label: str) -> list:
    """One stored radio answer in Potato's shape: the chosen label is both name and value."""
    return [{"schema": schema, "name": label}, label]


def returning_user_state(user: str, instance_ids: list[str], label_pairs: Mapping[str, list]) -> dict[str, Any]:
    """The smallest `user_state.json` of a user who is in the annotation phase on the first of
    `instance_ids` and has saved `label_pairs` (Potato's shape; see `annotation_pairs`).

    `user_id` and the annotations alone load, but logging in as that user then loops in
    redirects: Potato also needs the phase and the assigned instances.
    """
    return {
        "user_id": user,
        "instance_id_ordering": list(instance_ids),
        "current_instance_index": 0,
        "current_phase_and_page": ["annotation", None],
        "completed_phase_and_pages": [],
        "max_assignments": len(instance_ids),
        "instance_id_to_label_to_value": dict(label_pairs),
    }


def seed_user_state(task_dir: Path, user: str, state: Mapping[str, Any]) -> Path:
    """Write `user_state.json` for `user` before the server starts (Potato loads it at boot).
    `state` is the file's JSON, e.g. from `returning_user_state`."""
    path = user_state_path(task_dir, user)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state), encoding="utf-8")
    return path


@dataclass
class PotatoTask:
    """One running `potato start`, serving a private copy of a task folder."""

    task_dir: Path
    port: int
    log_path: Path
    process: subprocess.Popen = field(repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def saved(self, user: str) -> dict[str, dict[str, str]]:
        """`{instance_id: {schema_name: value_string}}` as Potato saved it for `user`
        (empty when nothing is saved yet)."""
        path = user_state_path(self.task_dir, user)
        if not path.exists():
            return {}
        state = json.loads(path.read_text(encoding="utf-8"))
        return {
            instance_id: {label["schema"]: value for label, value in pairs}
            for instance_id, pairs in state.get("instance_id_to_label_to_value", {}).items()
        }

    def saved_labels(self, user: str) -> dict[str, dict[str, dict[str, str]]]:
        """Like `saved`, keeping label names: `{instance_id: {schema: {label: value}}}`.
        Needed for built-in types whose label name is the chosen option (radio)."""
        path = user_state_path(self.task_dir, user)
        if not path.exists():
            return {}
        state = json.loads(path.read_text(encoding="utf-8"))
        result: dict[str, dict[str, dict[str, str]]] = {}
        for instance_id, pairs in state.get("instance_id_to_label_to_value", {}).items():
            for label, value in pairs:
                result.setdefault(instance_id, {}).setdefault(label["schema"], {})[label["name"]] = value
        return result

    def stop(self) -> None:
        """SIGTERM the server's process group, SIGKILL it if still alive after the grace period."""
        if self.process.poll() is not None:
            return
        _signal_group(self.process, signal.SIGTERM)
        try:
            self.process.wait(timeout=SERVER_STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            _signal_group(self.process, signal.SIGKILL)
            self.process.wait(timeout=SERVER_STOP_GRACE_S)


def _signal_group(process: subprocess.Popen, sig: int) -> None:
    # The server was started in its own session, so its group id is its pid: this reaches
    # only the processes we started.
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


def prepare_task_dir(
    source: Path,
    destination: Path,
    files: Mapping[str, str | Path] | None = None,
    users: Mapping[str, Mapping[str, Any]] | None = None,
) -> Path:
    """Copy `source` to `destination` without earlier run output, then add `files`
    (relative path -> text, or a file to copy) and seed `users` (name -> user_state JSON)."""
    shutil.copytree(
        source,
        destination,
        ignore=shutil.ignore_patterns(OUTPUT_DIR_NAME, "layouts", "project.sqlite*", "user_config.json"),
    )
    for relative, content in (files or {}).items():
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copyfile(content, target)
        else:
            target.write_text(content, encoding="utf-8")
    for user, state in (users or {}).items():
        seed_user_state(destination, user, state)
    return destination


def start_potato(task_dir: Path, config: str = "config.yaml", timeout: float = SERVER_START_TIMEOUT_S,
                 ports: Optional[range] = None, env: Optional[Mapping[str, str]] = None) -> PotatoTask:
    """Start `potato start CONFIG` in `task_dir` on a free port (of `ports`, else of this worker's
    block) and wait for `GET /health`.

    A port someone took between choosing it and the server's bind is tried again on another port.
    Potato bakes each task's page into a directory it caches by task name; every server gets its
    own (`POTATO_GENERATED_TEMPLATES_DIR`), so servers running side by side never share a page.
    `env`: more environment variables for the server (PYTHONPATH to a package of our types).
    """
    for attempt in range(1, START_ATTEMPTS + 1):
        task = _spawn_potato(task_dir, config, free_port_in(ports) if ports else free_port(), env)
        try:
            _wait_healthy(task, timeout)
            return task
        except PortTaken:
            task.stop()
            if attempt == START_ATTEMPTS:
                raise
        except BaseException:
            task.stop()
            raise
    raise AssertionError("unreachable")


def restart_potato(task: PotatoTask, config: str = "config.yaml", timeout: float = SERVER_START_TIMEOUT_S) -> PotatoTask:
    """Stop `task` by its PID (if it still runs) and start `potato start CONFIG` again in its folder,
    on the same port: the pages open on it keep talking to the same address. A port the old
    server's connections still hold for a moment is tried again until `timeout`."""
    task.stop()
    deadline = time.monotonic() + timeout
    while True:
        again = _spawn_potato(task.task_dir, config, task.port)
        try:
            _wait_healthy(again, timeout)
            return again
        except PortTaken:
            again.stop()
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.5)
        except BaseException:
            again.stop()
            raise


class PortTaken(RuntimeError):
    """The server could not listen on its port: another process holds it."""


def _spawn_potato(task_dir: Path, config: str, port: int, env: Optional[Mapping[str, str]] = None) -> PotatoTask:
    log_path = task_dir.parent / f"{task_dir.name}.potato.log"
    templates = task_dir.parent / f"{task_dir.name}.generated-templates"
    templates.mkdir(exist_ok=True)
    with open(log_path, "wb") as log_file:
        process = subprocess.Popen(
            [*potato_command(), "start", config, "-p", str(port), "--host", "127.0.0.1"],
            cwd=task_dir,
            env={**os.environ, **(env or {}), "POTATO_GENERATED_TEMPLATES_DIR": str(templates)},
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return PotatoTask(task_dir=task_dir, port=port, log_path=log_path, process=process)


def _wait_healthy(task: PotatoTask, timeout: float) -> None:
    """Wait until the server answers /health and is the one listening on its port (another
    process's server must not answer for it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if task.process.poll() is not None:
            log = task.log()
            if "Address already in use" in log:
                raise PortTaken(f"port {task.port} was taken:\n{log}")
            raise RuntimeError(
                f"potato exited with code {task.process.returncode} before /health answered.\n"
                f"--- server log ({task.log_path}) ---\n{log}"
            )
        if _health_ok(task.base_url) and _listens(task.process.pid, task.port):
            return
        time.sleep(0.2)
    raise TimeoutError(
        f"potato did not answer {task.base_url}/health within {timeout:.0f} s.\n"
        f"--- server log ({task.log_path}) ---\n{task.log()}"
    )


def _listens(pid: int, port: int) -> bool:
    """True when process `pid` holds the listening socket of 127.0.0.1:`port` (Linux /proc)."""
    inodes = _listening_inodes(port)
    try:
        links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    except OSError:
        return False
    return any(f"socket:[{inode}]" in links for inode in inodes)


def _listening_inodes(port: int) -> set[str]:
    """Inodes of the sockets listening on `port` (state 0A in /proc/net/tcp)."""
    inodes = set()
    with open("/proc/net/tcp", encoding="ascii") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1].endswith(f":{port:04X}") and fields[3] == "0A":
                inodes.add(fields[9])
    return inodes


def _health_ok(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/health", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


# --------------------------------------------------------------------------- saved values


def wait_saved(
    task: PotatoTask,
    user: str,
    instance_id: str,
    schema: str,
    predicate: Callable[[str | None], bool],
    timeout: float = 10.0,
) -> str | None:
    """Poll `user_state.json` until the value saved for (instance, schema) satisfies
    `predicate` (it receives the value string, or None while nothing is saved); return it."""
    deadline = time.monotonic() + timeout
    value: str | None = None
    while True:
        try:
            value = task.saved(user).get(instance_id, {}).get(schema)
        except json.JSONDecodeError:
            value = None  # caught mid-write; read again
        if predicate(value):
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(
                f"{user}'s saved {schema!r} on {instance_id!r} did not reach the expected state "
                f"within {timeout:.0f} s; last saved value: {value!r}"
            )
        time.sleep(0.1)


IDENTITY_SUFFIXES = ("_ref", "_refs")
"""The fields a value keeps the identity of its saved steps in (docs/step-references.md)."""


def holds_identities(value: Any) -> bool:
    if isinstance(value, dict):
        return any(str(key).endswith(IDENTITY_SUFFIXES) or holds_identities(item) for key, item in value.items())
    if isinstance(value, list):
        return any(holds_identities(item) for item in value)
    return False


def without_identities(value: Any) -> Any:
    """A stored value without the identities of its saved steps."""
    if isinstance(value, dict):
        return {key: without_identities(item) for key, item in value.items() if not str(key).endswith(IDENTITY_SUFFIXES)}
    if isinstance(value, list):
        return [without_identities(item) for item in value]
    return value


def same_value(saved: Any, expected: Any) -> bool:
    """`saved` is `expected`; an expected value that states no step identity is compared without
    them (every value our widgets store carries them: test_step_references.py states them, by hand)."""
    return saved == expected or (not holds_identities(expected) and without_identities(saved) == expected)


def wait_saved_json(task: PotatoTask, user: str, instance_id: str, schema: str, expected: Any, timeout: float = 10.0) -> Any:
    """Wait until the saved value string parses to `expected` (see `same_value`); return the parsed value."""

    def matches(value: str | None) -> bool:
        return value is not None and same_value(_parse_or_none(value), expected)

    return json.loads(wait_saved(task, user, instance_id, schema, matches, timeout))


def _parse_or_none(value: str) -> Any:
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return None


# --------------------------------------------------------------------------- browser


def login(page, base_url: str, user: str, via_form: bool = False) -> None:
    """Log in to Potato's password-less task and wait until the first instance is ready.

    By default the login form's own POST (`/auth`, `action=login`, `email`) is sent from the page's
    browser context, whose cookies it shares, and `/annotate` is then opened: one page load instead
    of two, and a Playwright route on /annotate sees the page. `via_form=True` fills and submits the
    form as an annotator does (tests/e2e/test_harness.py keeps that path proven).
    """
    page.add_init_script(READY_PROBE)
    if via_form:
        page.goto(f"{base_url}/")
        page.fill("#login-email", user)
        page.click("#login-content button[type=submit]")
        page.wait_for_url("**/annotate**")
    else:
        response = page.request.post(f"{base_url}/auth", form={"action": "login", "email": user}, max_redirects=0)
        assert response.status in (302, 303), f"POST /auth for {user!r} answered {response.status}: {response.text()[:500]}"
        page.goto(f"{base_url}/annotate")
    wait_instance_ready(page)


def fresh_user(tag: str) -> str:
    """A user name no test used before (Potato restores a returning user's answers)."""
    return f"{tag}-{uuid.uuid4().hex[:8]}"


def question_form(page, schema: str):
    """The form of one question (scheme) on Potato's page, ours or Potato's own."""
    return page.locator(f'form.annotation-form[data-schema-name="{schema}"]')


def wait_instance_ready(page, timeout_ms: float | None = None) -> None:
    """Wait until annotation.js has shown the instance and restored its answers."""
    timeout_ms = timeout_ms or PAGE_READY_TIMEOUT_MS
    page.wait_for_function("window.__potatoReady === true", timeout=timeout_ms)
    page.locator("#main-content").wait_for(state="visible", timeout=timeout_ms)


def open_annotate(page, base_url: str) -> None:
    """Load /annotate afresh (a new navigation, so the browser cannot restore form state
    on its own: whatever the controls show comes from the server and the widgets)."""
    page.goto(f"{base_url}/annotate")
    wait_instance_ready(page)


def current_instance_id(page) -> str:
    """The instance on screen: Potato's hidden `#instance_id` input."""
    return page.locator("#instance_id").input_value()


def navigation_started(page) -> bool:
    """True when Potato has begun moving to another instance: `setLoading(true)` runs
    synchronously in the Next/Prev/arrow handlers, disabling `#next-btn` and hiding
    `#main-content`; when Potato is already loading the next page, the page's script context is
    gone (Playwright says "Execution context was destroyed"), which is a started navigation too."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        return page.evaluate(
            """() => document.getElementById('next-btn').disabled
                     || getComputedStyle(document.getElementById('main-content')).display === 'none'"""
        )
    except PlaywrightError as error:
        if "Execution context was destroyed" in str(error):
            return True
        raise


def go_next(page) -> str:
    """Click Next and wait for a different instance to be ready; return its id."""
    return _navigate(page, "#next-btn")


def go_prev(page) -> str:
    """Click Previous and wait for a different instance to be ready; return its id."""
    return _navigate(page, "#prev-btn")


def _navigate(page, button: str) -> str:
    before = current_instance_id(page)
    page.evaluate("window.__potatoReady = false")
    page.click(button)
    page.wait_for_function(
        "(before) => window.__potatoReady === true"
        " && document.getElementById('instance_id').value !== before",
        arg=before,
        timeout=PAGE_READY_TIMEOUT_MS,
    )
    wait_instance_ready(page)
    return current_instance_id(page)


def restore_in_page(page, schema: str, value: Any) -> None:
    """Do what Potato's in-page reload (annotation.js) does with a saved answer, then announce it.

    Potato first clears the page's radios and checkboxes (`.checked = false`), then writes the
    server's value into the hidden input's `value` attribute, marked `data-server-set` (no
    `data-modified`, no `change`), and finally dispatches `potato:instance-ready`. The listeners run
    synchronously inside dispatchEvent, so the widget has re-rendered when this returns. `value` is
    stored as JSON unless it is already a string (a raw, possibly broken, stored value).
    """
    raw = value if isinstance(value, str) else json.dumps(value)
    page.evaluate(
        """([name, raw]) => {
            document.querySelectorAll('input[type=radio], input[type=checkbox]').forEach((input) => { input.checked = false; });
            const hidden = document.querySelector(`input.annotation-input[name="${CSS.escape(name)}"]`);
            hidden.setAttribute('value', raw);
            hidden.setAttribute('data-server-set', 'true');
            hidden.removeAttribute('data-modified');
            hidden.value = raw;
            document.dispatchEvent(new CustomEvent('potato:instance-ready'));
        }""",
        [f"{schema}:::{schema}", raw],
    )


def opened_handoff_card(card):
    """A handoff card (a locator), opened as an annotator opens it: the handoff review shows every
    card but the one under review as a line, and "Show review" opens it."""
    toggle = card.locator('[data-ma-action="toggle-card"]')
    if toggle.get_attribute("aria-expanded") == "false":
        toggle.click()
    return card


# --------------------------------------------------------------------------- failure attribution's step picker
# (issue 18: a searchable combobox with a windowed listbox instead of a <select> of every step)


def step_picker(form):
    """The "Decisive step" combobox of a failure-attribution form."""
    return form.get_by_role("combobox", name="Decisive step")


def step_picker_options(form):
    """The options the picker's listbox draws now (a window of the matches, not every step)."""
    return form.get_by_role("listbox", name="Steps to choose from").get_by_role("option")


def choose_decisive_step(form, number: int) -> str:
    """Choose step `#number` with the keyboard, as an annotator does: type "#number" in the search
    box, check that the first match is that step (matches come in step order), press Enter.
    Returns the chosen option's words, which the box then shows."""
    import re

    from playwright.sync_api import expect

    box = step_picker(form)
    box.fill(f"#{number}")
    first = step_picker_options(form).first
    expect(first).to_have_text(re.compile(rf"^#{number}(?!\d)"))
    label = first.text_content()
    box.press("Enter")
    expect(box).to_have_value(label)
    return label


def decisive_step_count(form) -> int:
    """How many steps the picker offers (its listbox's aria-setsize with no search typed)."""
    box = step_picker(form)
    box.fill("")
    box.press("ArrowDown")
    count = int(step_picker_options(form).first.get_attribute("aria-setsize"))
    box.press("Escape")
    return count


# --------------------------------------------------------------------------- Potato's required check


def click_next_expecting_block(page, description: str, instance_id: str, *, in_place: bool = False):
    """Click Next on a required, unfinished question: Potato's required-fields alert shows, naming
    the question by its `description`, and the page stays on `instance_id`. Returns the alert.
    `in_place`: the click event is sent to the button where it is, without scrolling to it first
    (scrolling brings deferred forms near the screen, and their builds can move the button away
    from under Playwright's click)."""
    from playwright.sync_api import expect

    if in_place:
        page.locator("#next-btn").dispatch_event("click")
    else:
        page.click("#next-btn")
    message = page.locator("#required-fields-error")
    expect(message).to_be_visible()
    expect(message).to_have_attribute("role", "alert")
    expect(message).to_contain_text("Please answer the required question")
    expect(message).to_contain_text(description)
    assert not navigation_started(page)
    assert current_instance_id(page) == instance_id
    return message
