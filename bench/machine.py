"""The machine and the versions a result was measured with."""

from __future__ import annotations

import os
import platform
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Dict

from tests.e2e import harness

REPO_ROOT = Path(__file__).resolve().parents[1]


def describe() -> Dict[str, str]:
    return {
        "cpu": f"{_cpu_model()} ({os.cpu_count()} cores)",
        "ram": _ram(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "node": _output(["node", "--version"]),
        "chromium": _chromium_version(),
        "playwright": _version("playwright"),
        "potato-annotation": _version("potato-annotation"),
        "potato-multiagent": f"{_version('potato-multiagent')} ({_commit()})",
    }


def load_average() -> str:
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def _cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return platform.processor() or "unknown CPU"
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else "unknown CPU"


def _ram() -> str:
    try:
        text = Path("/proc/meminfo").read_text(encoding="utf-8")
    except OSError:
        return "unknown"
    match = re.search(r"^MemTotal:\s*(\d+) kB", text, re.MULTILINE)
    return f"{int(match.group(1)) / 2**20:.1f} GiB" if match else "unknown"


def _chromium_version() -> str:
    text = _output([str(harness.BENCH_CHROMIUM), "--version"])
    match = re.search(r"Chromium [\d.]+", text)
    return match.group(0) if match else text


def _commit() -> str:
    commit = _output(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"])
    dirty = _output(["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"])
    return f"commit {commit}" + (", with uncommitted changes" if dirty else "")


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def _output(command) -> str:
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unavailable ({error})"
    return completed.stdout.strip() or completed.stderr.strip()

