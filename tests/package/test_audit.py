"""The write audit of the installed-wheel test sees what a process tree writes and reads."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from . import audit

CHILD = """
import os, subprocess, sys
open('made.txt', 'w').write('x')                  # relative to the first working directory
os.mkdir('sub'); os.rename('made.txt', 'sub/moved.txt')
os.chdir('sub')
subprocess.run([sys.executable, '-c', "open('child.txt', 'w').write('y')"], check=True)   # a child, in sub/
open(sys.argv[1]).read()                          # a read only
os.utime('.')
"""


@pytest.fixture(autouse=True)
def needs_strace():
    if audit.STRACE is None:
        message = "strace is not installed (scripts/setup.sh installs it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def test_writes_reads_chdir_and_children_are_seen_with_absolute_paths(tmp_path):
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    (elsewhere / "read-me.txt").write_text("r", encoding="utf-8")
    log = tmp_path / "log"
    subprocess.run(audit.traced([sys.executable, "-c", CHILD, str(elsewhere / "read-me.txt")], log), cwd=work,
                   check=True, timeout=120)
    touches = audit.touched(log.read_text(encoding="utf-8"), cwd=str(work))
    written = {touch.path for touch in touches if touch.write}
    assert {f"{work}/made.txt", f"{work}/sub", f"{work}/sub/moved.txt", f"{work}/sub/child.txt"} <= written
    assert [touch.write for touch in audit.under(touches, str(elsewhere))] == [False] * len(audit.under(touches, str(elsewhere)))
    assert audit.under(touches, str(elsewhere)), "the read was not seen"
    assert {touch.path for touch in audit.outside(touches, [work, "/dev", "/proc"])} == set()
    assert {touch.path for touch in audit.outside(touches, [work / "sub", "/dev", "/proc"])} >= {f"{work}/made.txt"}
