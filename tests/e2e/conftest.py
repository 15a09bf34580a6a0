"""Fixtures for the end-to-end tests: a real Potato server per test module, and pytest-playwright
driving Debian's /usr/bin/chromium-headless-shell (never a browser from `playwright install`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

import pytest
from playwright.sync_api import expect

from .harness import CHROMIUM, CHROMIUM_ARGS, EXAMPLES_DIR, PotatoTask, prepare_task_dir, start_potato
from .hostile import FIRE_PROBE


def _running_in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


# Parallel workers share the machine's CPUs: waits are patient (a check that passes sooner costs
# nothing more). Playwright's defaults are 5 s for `expect` and 30 s for a navigation.
EXPECT_TIMEOUT_MS = 15_000
NAVIGATION_TIMEOUT_MS = 60_000
expect.set_options(timeout=EXPECT_TIMEOUT_MS)


@pytest.fixture
def context(context):
    """pytest-playwright's per-test context, with the patient navigation timeout."""
    context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
    return context


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright has no flag for an executable path; this is the supported override."""
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: run `bash scripts/setup.sh` (installs Debian's chromium)"
        if _running_in_ci():
            pytest.fail(message)
        pytest.skip(message)
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


class ServerPool:
    """The servers of one test session (one per pytest-xdist worker).

    A task asked for with `shared=True` (allowed only without `files` or `users`) is one server for
    every module that asks for the same folder and config, until the session ends: for tests that
    only look and mark as fresh users, never read the whole output folder, never stop the server.
    Any other task is private to the module that started it and stops with it.
    """

    def __init__(self, tmp_path_factory) -> None:
        self._tmp = tmp_path_factory
        self._shared: dict[tuple[str, str], PotatoTask] = {}

    def start(self, source_dir: Path, config: str, files, users, shared: bool) -> tuple[PotatoTask, bool]:
        """The server for this task, and whether it is shared (the pool stops it, not the module)."""
        if shared and (files or users):
            raise ValueError("a shared server serves its folder as it is: no files, no seeded users")
        key = (str(source_dir.resolve()), config)
        if shared and key in self._shared and self._shared[key].process.poll() is None:
            return self._shared[key], True
        task_dir = prepare_task_dir(source_dir, self._tmp.mktemp("potato") / source_dir.name, files=files, users=users)
        task = start_potato(task_dir, config)
        if shared:
            self._shared[key] = task
        return task, shared

    def stop_all(self) -> None:
        for task in self._shared.values():
            task.stop()


@pytest.fixture(scope="session")
def server_pool(tmp_path_factory):
    pool = ServerPool(tmp_path_factory)
    yield pool
    pool.stop_all()


@pytest.fixture(scope="module")
def potato_task(server_pool):
    """Factory: `potato_task(source, config="config.yaml", files=None, users=None, shared=False)`.

    `source` is an example name (a folder under examples/) or a path to a task folder. It is
    copied to a fresh tmp dir, `files` are added to the copy (relative path -> text or a Path
    to copy), `users` are seeded as `annotation_output/<user>/user_state.json`, then
    `potato start CONFIG` runs in the copy. With `shared=True` the server may be one other modules
    use too (see `ServerPool`); every other server is stopped when the module ends.
    Use a fresh user name per test: Potato restores a returning user's answers.
    """
    private: list[PotatoTask] = []

    def start(
        source: str | Path,
        config: str = "config.yaml",
        files: Mapping[str, str | Path] | None = None,
        users: Mapping[str, Mapping[str, Any]] | None = None,
        shared: bool = False,
    ) -> PotatoTask:
        source_dir = source if isinstance(source, Path) else EXAMPLES_DIR / source
        task, pooled = server_pool.start(source_dir, config, files, users, shared)
        if not pooled:
            private.append(task)
        return task

    yield start
    for task in private:
        task.stop()


@pytest.fixture
def dialogs(page) -> list[str]:
    """Every alert/confirm/prompt the page opens (dismissed): none may open. Leaving the page
    (Potato's beforeunload prompt) is allowed. The page also records every hostile payload that
    runs (`window.__fired`, tests/e2e/hostile/)."""
    opened: list[str] = []

    def on_dialog(dialog) -> None:
        if dialog.type == "beforeunload":
            dialog.accept()
            return
        opened.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.add_init_script(FIRE_PROBE)
    return opened
