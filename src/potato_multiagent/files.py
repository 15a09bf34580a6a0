"""Reading and writing the files a command names, with one kind of error that names the path.

Every command reads text (configs, records, saved states, gold) and writes files whole (a staged
file renamed over the target). Both go through here so that a missing, binary, unreadable or
unwritable path, or a folder where a file belongs, becomes one :class:`PathError` whose text is
``PATH: why``, and a staged file never outlives a failed write.
"""

from __future__ import annotations

import contextlib
import errno
import os
import uuid
from pathlib import Path
from typing import Callable, List, Sequence, Union

PathLike = Union[str, Path]

_WHY = {
    errno.ENOENT: "no such file or folder",
    errno.EISDIR: "is a folder, not a file",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on the device",
}


class PathError(OSError):
    """A path that cannot be read or written; ``str()`` is ``PATH: why``. An ``OSError``, so code
    around ``load_task`` that catches ``OSError`` keeps working."""

    def __init__(self, path: PathLike, why: str):
        super().__init__(why)
        self.path, self.why, self.filename = Path(path), why, str(path)

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"


def why_not(error: OSError) -> str:
    """The reason of an OS error in words, without the errno number or the path."""
    return _WHY.get(error.errno, (error.strerror or str(error)).lower())


def read_text(path: PathLike, encoding: str = "utf-8") -> str:
    """The text of a file, or a :class:`PathError` saying why it cannot be had."""
    path = Path(path)
    if path.is_dir():
        raise PathError(path, _WHY[errno.EISDIR])
    try:
        return path.read_text(encoding=encoding)
    except UnicodeDecodeError as error:
        raise PathError(path, f"not UTF-8 text (byte 0x{error.object[error.start]:02x} at offset "
                              f"{error.start}): a binary file?") from None
    except OSError as error:
        raise PathError(path, why_not(error)) from None


def files_under(folder: PathLike, suffixes: Sequence[str]) -> List[Path]:
    """Every file under ``folder`` (recursively, sorted) whose name ends in one of ``suffixes``.

    A folder on the way that cannot be listed is a :class:`PathError`, never silently nothing
    (``Path.rglob`` skips it, and an unreadable input would read as an empty one).
    """
    def fail(error: OSError) -> None:
        raise PathError(error.filename or folder, why_not(error))

    found = []
    for root, _, names in os.walk(folder, onerror=fail):
        found.extend(Path(root) / name for name in names if name.endswith(tuple(suffixes)))
    return sorted(found)


def user_state_files(output_dir: PathLike) -> List[Path]:
    """``<output_dir>/<user>/user_state.json`` of every user, in user order; none without the folder.

    A user folder that cannot be read is a :class:`PathError`: skipping it would make ``check`` pass
    and ``export`` leave that annotator out without a word.
    """
    output_dir = Path(output_dir)
    if not output_dir.is_dir():
        return []
    try:
        folders = sorted(entry for entry in output_dir.iterdir() if entry.is_dir())
    except OSError as error:
        raise PathError(output_dir, why_not(error)) from None
    states = []
    for folder in folders:
        if not os.access(folder, os.R_OK | os.X_OK):
            raise PathError(folder, why_not(PermissionError(errno.EACCES, "")))
        if (folder / "user_state.json").is_file():
            states.append(folder / "user_state.json")
    return states


def write_whole(path: PathLike, write: Callable[[Path], None]) -> None:
    """Run ``write(staged)`` on a hidden file beside ``path``, then rename it over ``path``.

    The target is complete or untouched; the staged file is removed whatever fails, and any
    OS error is a :class:`PathError` naming ``path``.
    """
    path = Path(path)
    if path.is_dir():
        raise PathError(path, "is a folder; give a file name")
    staged = path.parent / f".{path.name}.{uuid.uuid4().hex}.tmp"
    try:
        write(staged)
        os.replace(staged, path)
    except PathError:
        raise
    except OSError as error:
        raise PathError(path, why_not(error)) from None
    finally:
        with contextlib.suppress(OSError):
            staged.unlink(missing_ok=True)


def write_text_whole(path: PathLike, text: str) -> None:
    """:func:`write_whole` for a text (UTF-8)."""
    write_whole(path, lambda staged: staged.write_text(text, encoding="utf-8"))
