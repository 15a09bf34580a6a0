"""docs/tutorial.md, followed literally in a copy of examples/tutorial/.

Every command of every `bash` block runs in order; the `yaml` block is saved as config.yaml (as
the page says); `potato start` runs in the background (on a free port instead of the page's
8000) while Chromium does what "Annotate" says, as alice and then as bob. Change the page and
this test runs the change.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from playwright.sync_api import expect

from .harness import EXAMPLES_DIR, REPO_ROOT, PotatoTask, choose_decisive_step, free_port, go_next, login, wait_saved

TUTORIAL = REPO_ROOT / "docs" / "tutorial.md"
FENCED_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)
DOCUMENTED_PORT = "-p 8000"


def tutorial_blocks() -> list[tuple[str, str]]:
    """The page's fenced blocks in order, as (language, text)."""
    return FENCED_BLOCK.findall(TUTORIAL.read_text(encoding="utf-8"))


def commands(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def shell_environment() -> dict:
    """The shell a reader has after installing: the venv's `potato` and `potato-multiagent` on PATH."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def run(command: str, cwd: Path) -> str:
    result = subprocess.run(["bash", "-c", command], cwd=cwd, env=shell_environment(),
                            capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, f"`{command}` failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def start_in_background(command: str, cwd: Path) -> PotatoTask:
    assert DOCUMENTED_PORT in command, f"the tutorial should start Potato on port 8000: {command}"
    port = free_port()
    log_path = cwd.parent / "potato.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(["bash", "-c", f"exec {command.replace(DOCUMENTED_PORT, f'-p {port}')}"],
                                   cwd=cwd, env=shell_environment(), stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    task = PotatoTask(task_dir=cwd, port=port, log_path=log_path, process=process)
    deadline = time.monotonic() + 60
    while not answers_health(task.base_url):
        assert process.poll() is None and time.monotonic() < deadline, f"potato did not start:\n{task.log()}"
        time.sleep(0.2)
    return task


def answers_health(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


# --------------------------------------------------------------------------- "Annotate", in the browser


def form(page, schema: str):
    return page.locator(f'form.annotation-form[data-schema-name="{schema}"]')


def choose_outcome(page, outcome: str) -> None:
    form(page, "outcome").locator(f'input[type="radio"][value="{outcome}"]').check()


def choose_step(page, number: int) -> None:
    """Pick the Decisive step option labelled `#number ...`, as the tutorial names it."""
    choose_decisive_step(form(page, "attribution"), number)


def annotate(page, task: PotatoTask, user: str, agent: str, step: int) -> None:
    login(page, task.base_url, user)
    choose_outcome(page, "failure")
    expect(form(page, "attribution")).to_be_visible()
    form(page, "attribution").get_by_label("Responsible agent").select_option(label=agent)
    choose_step(page, step)
    form(page, "attribution").get_by_label("Reason").fill("booked a train that arrives the next morning")
    booking = form(page, "tool_calls").get_by_role("group", name=re.compile(r"^Call 2: book_train by booker"))
    booking.get_by_role("radiogroup", name="Verdict").get_by_role("radio", name="wrong_args", exact=True).check()
    wait_saved(task, user, "trip-berlin", "tool_calls", lambda value: bool(value) and "wrong_args" in value)
    assert go_next(page) == "trip-lyon"
    choose_outcome(page, "success")
    page.click("#next-btn")
    wait_saved(task, user, "trip-lyon", "outcome", lambda value: value == "success")


def annotate_as_alice_and_bob(browser, task: PotatoTask) -> None:
    for user, agent, step in (("alice", "booker", 7), ("bob", "searcher", 6)):
        context = browser.new_context()  # a fresh session: what logging out gives
        try:
            annotate(context.new_page(), task, user, agent, step)
        finally:
            context.close()


# --------------------------------------------------------------------------- the test


def test_the_tutorial_works_when_followed_literally(tmp_path, browser):
    workdir = tmp_path / "tutorial"
    shutil.copytree(EXAMPLES_DIR / "tutorial", workdir)
    blocks = tutorial_blocks()
    assert [language for language, _ in blocks].count("yaml") == 1
    outputs = []
    for language, block in blocks:
        if language == "yaml":
            (workdir / "config.yaml").write_text(block, encoding="utf-8")
            continue
        assert language == "bash", f"unexpected block language {language!r} in the tutorial"
        for command in commands(block):
            if command.startswith("potato start"):
                task = start_in_background(command, workdir)
                try:
                    annotate_as_alice_and_bob(browser, task)
                finally:
                    task.stop()
            else:
                outputs.append(run(command, workdir))

    with open(workdir / "results" / "attribution.csv", newline="", encoding="utf-8") as table:
        rows = {(row["user"], row["responsible_agent"]) for row in csv.DictReader(table)}
    assert rows == {("alice", "booker"), ("bob", "searcher")}
    agreement = outputs[-1]
    assert re.search(r"agent agreement \(exact\)\s+0\.000\s+items 1, annotators 2", agreement), agreement
    assert re.search(r"step agreement \(within ±1\)\s+1\.000", agreement), agreement
