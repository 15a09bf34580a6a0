"""Fixtures for the end-to-end tests: a real Potato server per test module, and pytest-playwright
driving Debian's /usr/bin/chromium (never a browser from `playwright install`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

import pytest

from .harness import CHROMIUM, CHROMIUM_ARGS, EXAMPLES_DIR, PotatoTask, prepare_task_dir, start_potato


def _running_in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright has no flag for an executable path; this is the supported override."""
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: run `bash scripts/setup.sh` (installs Debian's chromium)"
        if _running_in_ci():
            pytest.fail(message)
        pytest.skip(message)
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="module")
def potato_task(tmp_path_factory):
    """Factory: `potato_task(source, config="config.yaml", files=None, users=None) -> PotatoTask`.

    `source` is an example name (a folder under examples/) or a path to a task folder. It is
    copied to a fresh tmp dir, `files` are added to the copy (relative path -> text or a Path
    to copy), `users` are seeded as `annotation_output/<user>/user_state.json`, then
    `potato start CONFIG` runs in the copy. Every server started is stopped when the module ends.
    Use a fresh user name per test: Potato restores a returning user's answers.
    """
    started: list[PotatoTask] = []

    def start(
        source: str | Path,
        config: str = "config.yaml",
        files: Mapping[str, str | Path] | None = None,
        users: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> PotatoTask:
        source_dir = source if isinstance(source, Path) else EXAMPLES_DIR / source
        task_dir = prepare_task_dir(
            source_dir, tmp_path_factory.mktemp("potato") / source_dir.name, files=files, users=users
        )
        task = start_potato(task_dir, config)
        started.append(task)
        return task

    yield start
    for task in started:
        task.stop()
