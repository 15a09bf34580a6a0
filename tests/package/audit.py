"""Every file a process tree touches, from strace: what it wrote (or tried to) and what it read.

``traced(command)`` runs a command under ``strace -f`` (every file syscall of every process and
thread it starts) and ``touched(log, cwd)`` reads the log back into absolute paths, each marked as
a write (a file opened for writing or created, a folder made, anything renamed, removed, linked,
truncated, or its mode, owner or times changed) or a read. Attempts that failed count too: a
plugin that tries to write into an unwritable home and then falls back elsewhere tried to write.

Relative paths are resolved against the process's working directory, followed through
``chdir``/``fchdir`` and inherited by the children ``clone``/``fork`` start.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Dict, Iterable, List, Sequence

STRACE = shutil.which("strace")

WRITES = {"mkdir", "mkdirat", "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat",
          "unlink", "unlinkat", "rmdir", "truncate", "chmod", "fchmodat", "chown", "lchown", "fchownat",
          "utime", "utimes", "utimensat", "futimesat", "mknod", "mknodat", "setxattr", "lsetxattr",
          "removexattr", "lremovexattr", "creat"}
"""Syscalls that change the file system at the path(s) they name."""

OPENS = {"open", "openat", "openat2"}
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
SPAWNS = {"clone", "clone3", "fork", "vfork"}

_LINE = re.compile(r"^(\d+)\s+(.*)$")
_CALL = re.compile(r"^(\w+)\((.*)\)\s+=\s+(-?\d+|\?)")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_DIRFD = re.compile(r"^(?:AT_FDCWD|\d+)<([^>]*)>")


@dataclass(frozen=True)
class Touch:
    pid: int
    call: str
    path: str
    write: bool

    def __str__(self) -> str:
        return f"{'write' if self.write else 'read '} {self.call}: {self.path}"


def traced(command: Sequence[str], log: os.PathLike) -> List[str]:
    """``command`` under strace, logging every file syscall of its whole process tree to ``log``."""
    if STRACE is None:
        raise FileNotFoundError("strace is not installed (scripts/setup.sh installs it with apt)")
    return [STRACE, "-f", "-qq", "-y", "-s", "4096", "-e", "trace=%file,%process,fchdir", "-o", os.fspath(log),
            *command]


def touched(log_text: str, cwd: str) -> List[Touch]:
    """Every path of a strace log (see :func:`traced`), absolute, marked write or read."""
    cwds: Dict[int, str] = {}
    pending: Dict[int, str] = {}
    found: List[Touch] = []
    first_pid = None
    for raw in log_text.splitlines():
        match = _LINE.match(raw)
        if not match:
            continue
        pid, rest = int(match.group(1)), match.group(2)
        first_pid = pid if first_pid is None else first_pid
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest[: -len("<unfinished ...>")].rstrip()
            continue
        if rest.startswith("<... "):
            rest = pending.pop(pid, "") + rest.split("resumed>", 1)[1]
        call = _CALL.match(rest)
        if not call:
            continue
        name, args, result = call.groups()
        here = cwds.get(pid, cwd)
        if name in SPAWNS and result.isdigit():
            cwds[int(result)] = here
            continue
        if name == "chdir" and result == "0":
            cwds[pid] = _absolute(_strings(args)[0], here)
            continue
        if name == "fchdir" and result == "0":
            folder = _DIRFD.match(args)
            if folder:
                cwds[pid] = folder.group(1)
            continue
        for path, write in _paths(name, args, here):
            found.append(Touch(pid, name, path, write))
    return found


def _paths(name: str, args: str, cwd: str) -> Iterable[tuple]:
    strings = _strings(args)
    if not strings:
        return []
    folder = _DIRFD.match(args)   # an *at call's folder (-y prints the path of its fd, or of AT_FDCWD)
    base = folder.group(1) if folder else cwd
    if name in OPENS:
        write = any(flag in args for flag in WRITE_FLAGS)
        return [(_absolute(strings[0], base), write)]
    if name in {"symlink", "symlinkat"}:   # the first string is what the link points to, not a path written
        return [(_absolute(strings[-1], base), True)]
    if name in {"rename", "renameat", "renameat2", "link", "linkat"}:
        return [(_absolute(path, base), True) for path in strings[:2]]
    if name == "execve":
        return [(_absolute(strings[0], cwd), False)]
    return [(_absolute(strings[0], base), name in WRITES)]


def _strings(args: str) -> List[str]:
    return [bytes(text, "utf-8").decode("unicode_escape") for text in _STRING.findall(args)]


def _absolute(path: str, base: str) -> str:
    joined = PurePosixPath(path) if path.startswith("/") else PurePosixPath(base) / path
    return os.path.normpath(str(joined))


def outside(touches: Iterable[Touch], allowed: Iterable[str], *, writes_only: bool = True) -> List[Touch]:
    """The touches (writes, by default) not under any of the ``allowed`` folders."""
    roots = [os.path.normpath(str(root)) for root in allowed]
    return [touch for touch in touches if (touch.write or not writes_only)
            and not any(touch.path == root or touch.path.startswith(root + "/") for root in roots)]


def under(touches: Iterable[Touch], folder: str) -> List[Touch]:
    """The touches (reads and writes) of anything under ``folder``."""
    root = os.path.normpath(str(folder))
    return [touch for touch in touches if touch.path == root or touch.path.startswith(root + "/")]
