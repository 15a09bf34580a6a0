"""The layering rule docs/architecture.md states, checked against every import in `src/`.

The table there is the rule's one home: each row is a layer (top first), each backticked entry a
module file or a folder. A module may import only from its own row or the rows below it. Imports
inside functions count (they are dependencies all the same), and so do the packages an import runs
on its way (`from ..types._base.adapter import X` runs `types/__init__.py` and
`types/_base/__init__.py`): a package whose `__init__` imports upward makes a cycle at import time
even when the module imported sits low.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "src" / "potato_multiagent"
ARCHITECTURE = REPO / "docs" / "architecture.md"


def layer_table(text: str) -> List[Tuple[str, List[str]]]:
    """``[(layer name, [entries])]`` top first, from the table whose header is ``| layer | modules |``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\|\s*layer\s*\|\s*modules\s*\|", line))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows.append((cells[0], re.findall(r"`([^`]+)`", cells[1])))
    return rows


def placement(rows: List[Tuple[str, List[str]]]) -> Dict[str, int]:
    """Each entry's row index (0 = top); an entry in two rows is an error of the table."""
    placed: Dict[str, int] = {}
    for index, (_, entries) in enumerate(rows):
        for entry in entries:
            assert entry not in placed, f"{entry} is in two rows of docs/architecture.md's layer table"
            placed[entry] = index
    return placed


def row_of(relative: str, placed: Dict[str, int]) -> int:
    """The row of a file (path relative to the package): its own entry, else its longest folder entry."""
    if relative in placed:
        return placed[relative]
    folders = [entry for entry in placed if entry.endswith("/") and relative.startswith(entry)]
    if not folders:
        raise LookupError(relative)
    return placed[max(folders, key=len)]


def module_file(parts: List[str]) -> Path:
    """The file a dotted module path (inside the package) names: a module or a package's __init__."""
    path = PACKAGE.joinpath(*parts)
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def imported_files(source: Path) -> Iterator[Tuple[int, Path]]:
    """``(line, file)`` of every package file that importing from `source` runs, parents included."""
    own = list(source.relative_to(PACKAGE).with_suffix("").parts)
    package = own[:-1]  # the package a relative import starts from (for __init__.py, its own folder)
    for node in ast.walk(ast.parse(source.read_text(), str(source))):
        targets: List[List[str]] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else list(package)
            elif (node.module or "").split(".")[0] == "potato_multiagent":
                base = []
            else:
                continue
            module = [part for part in (node.module or "").split(".") if part]
            if not node.level:
                module = module[1:]
            target = base + module
            for alias in node.names:
                submodule = target + [alias.name]
                is_module = (PACKAGE.joinpath(*submodule).is_dir()
                             or PACKAGE.joinpath(*submodule).with_suffix(".py").is_file())
                targets.append(submodule if is_module else target)
        elif isinstance(node, ast.Import):
            targets = [alias.name.split(".")[1:] for alias in node.names
                       if alias.name.split(".")[0] == "potato_multiagent"]
        for target in targets:
            for depth in range(1, len(target) + 1):  # every package on the way, then the module
                yield node.lineno, module_file(target[:depth])


def violations(rows, sources=None) -> List[str]:
    placed = placement(rows)
    names = [name for name, _ in rows]
    found = []
    for source in sorted(sources or PACKAGE.rglob("*.py")):
        relative = source.relative_to(PACKAGE).as_posix()
        mine = row_of(relative, placed)
        for line, target in imported_files(source):
            theirs = row_of(target.relative_to(PACKAGE).as_posix(), placed)
            if theirs < mine:
                found.append(f"{relative}:{line} ({names[mine]}) imports {target.relative_to(PACKAGE).as_posix()} "
                             f"({names[theirs]}), a row above")
    return found


def test_every_module_of_the_package_has_a_row():
    placed = placement(layer_table(ARCHITECTURE.read_text()))
    unplaced = []
    for source in sorted(PACKAGE.rglob("*.py")):
        try:
            row_of(source.relative_to(PACKAGE).as_posix(), placed)
        except LookupError as missing:
            unplaced.append(str(missing))
    assert not unplaced, f"not placed in docs/architecture.md's layer table: {unplaced}"


def test_every_import_points_to_its_own_row_or_below():
    assert violations(layer_table(ARCHITECTURE.read_text())) == []


def test_derivation_imports_nothing_of_the_package_outside_its_folder():
    """SPEC: trace/ is pure; the browser's derive.js is its twin and must be able to stay so."""
    outside = [f"{source.relative_to(PACKAGE)}:{line} imports {target.relative_to(PACKAGE)}"
               for source in sorted((PACKAGE / "trace").rglob("*.py"))
               for line, target in imported_files(source)
               if not target.relative_to(PACKAGE).as_posix().startswith("trace/")]
    assert outside == []


def test_an_upward_import_is_reported_with_its_line():
    """The referee can fail: with types/ put above analysis/, analysis's imports of types/ point up."""
    upside_down = [("types", ["types/"]), ("tables", ["analysis/", "task.py", "files.py"]),
                   ("rest", ["trace/", "rendering.py", "bundling.py", "taxonomy.py"])]
    found = violations(upside_down, sources=[PACKAGE / "analysis" / "collect.py"])
    assert found and all(line.startswith("analysis/collect.py:") and "imports types/" in line for line in found)


def test_an_import_runs_the_packages_on_its_way():
    """An adapter importing the statistics runs types/__init__.py and types/_base/__init__.py first."""
    runs = {target.relative_to(PACKAGE).as_posix()
            for _, target in imported_files(PACKAGE / "types" / "agent_scorecard" / "adapter.py")}
    assert {"types/__init__.py", "types/_base/__init__.py", "types/_base/statistics.py"} <= runs
