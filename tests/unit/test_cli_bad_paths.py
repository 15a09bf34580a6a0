"""Every command, every kind of bad path: one `error: PATH: why` line on stderr, exit 1, no stray file.

The real command runs in a subprocess (`python -m potato_multiagent.cli`), as a user types it. As
root, file permissions do not stop reads or writes, so the command then runs with the capabilities
that bypass them dropped (`setpriv`); without `setpriv` those two kinds are skipped.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

RECORD = {"id": "run-1", "steps": [{"agent": "Planner", "content": "plan"}, {"agent": "Coder", "content": "code"}]}
BUILTIN_GRAPH = {"critical_nodes": ["Coder"], "edges": {"Planner->Coder": "problematic"}}  # migrate-values adds edge_marks
WHO_AND_WHEN_RUN = {"question": "q", "history": [{"name": "A", "content": "hi"}, {"name": "B", "content": "ok"}],
                    "mistake_agent": "B", "mistake_step": "1", "mistake_reason": "wrong"}
BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\x00"
AS_ROOT = os.geteuid() == 0
DROP_ROOT_POWERS = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
PERMISSIONS_BITE = not AS_ROOT or shutil.which("setpriv") is not None


def make_task(folder: Path, data_name: str = "runs.jsonl") -> Path:
    """A task with one saved built-in graph value (so migrate-values has something to write)."""
    config = {"annotation_task_name": f"bad paths {folder.name}", "task_dir": ".", "data_files": [f"data/{data_name}"],
              "item_properties": {"id_key": "id", "text_key": "id"}, "output_annotation_dir": "annotation_output",
              "plugins": ["multiagent"], "annotation_schemes": [
                  {"annotation_type": "multiagent.agent_interaction_graph", "name": "graph", "description": "g"}]}
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "runs.jsonl").write_text(json.dumps(RECORD) + "\n")
    user = folder / "annotation_output" / "alice"
    user.mkdir(parents=True)
    (user / "user_state.json").write_text(json.dumps({"user_id": "alice", "instance_id_to_label_to_value": {
        "run-1": [[{"schema": "graph", "name": "graph"}, json.dumps(BUILTIN_GRAPH)]]}}))
    (folder / "config.yaml").write_text(yaml.safe_dump(config))
    return folder / "config.yaml"


def bad_path(root: Path, kind: str) -> Path:
    """A path of one kind: read kinds are files that cannot be read as text, write kinds targets that
    cannot be written."""
    if kind == "missing":
        return root / "nowhere" / "missing.yaml"
    if kind in ("folder", "onto a folder"):
        (root / "a-folder").mkdir()
        return root / "a-folder"
    if kind == "binary":
        (root / "binary.yaml").write_bytes(BINARY)
        return root / "binary.yaml"
    if kind == "unreadable":
        path = root / "secret.yaml"
        shutil.copy(make_task(root / "secret-task"), path)
        path.chmod(0)
        return path
    if kind == "unwritable folder":
        (root / "locked").mkdir()
        (root / "locked").chmod(stat.S_IRUSR | stat.S_IXUSR)
        return root / "locked" / "out.jsonl"
    if kind == "a file, not a folder":
        (root / "a-file").write_text("x")
        return root / "a-file"
    raise ValueError(kind)


READ_KINDS = ["missing", "folder", "binary", "unreadable"]
WRITE_KINDS = ["unwritable folder", "onto a folder"]

# (command, what the bad path stands for, argv with BAD / TASK / CONFIG / OUT placeholders, kinds)
CASES = [
    ("derive", "FILE", ["derive", "BAD"], READ_KINDS),
    ("check", "CONFIG", ["check", "BAD"], READ_KINDS),
    ("check", "data file", ["check", "CONFIG_WITH_BAD_DATA"], ["missing", "folder", "binary", "unreadable"]),
    ("export", "CONFIG", ["export", "BAD", "--out", "OUT"], READ_KINDS),
    ("export", "--out", ["export", "CONFIG", "--out", "BAD"], ["unwritable folder", "a file, not a folder"]),
    ("agreement", "CONFIG", ["agreement", "BAD"], READ_KINDS),
    ("agreement", "--gold", ["agreement", "CONFIG", "--gold", "BAD"], READ_KINDS),
    ("convert", "INPUT", ["convert", "--from", "who-and-when", "BAD", "-o", "OUT"], ["missing", "binary", "unreadable"]),
    ("convert", "-o", ["convert", "--from", "who-and-when", "RUN", "-o", "BAD"], WRITE_KINDS),
    ("convert", "--gold", ["convert", "--from", "who-and-when", "RUN", "-o", "OUT", "--gold", "BAD"], WRITE_KINDS),
    ("migrate-config", "CONFIG", ["migrate-config", "BAD"], READ_KINDS),
    ("migrate-config", "-o", ["migrate-config", "CONFIG", "-o", "BAD"], WRITE_KINDS),
    ("migrate-values", "--config", ["migrate-values", "TASK", "--config", "BAD"], READ_KINDS),
    ("migrate-values", "user_state.json", ["migrate-values", "TASK"], ["unwritable folder", "binary"]),
    ("check", "user_state.json", ["check", "CONFIG"], ["binary", "unreadable", "unreadable folder"]),
    ("export", "user_state.json", ["export", "CONFIG", "--out", "OUT"], ["binary", "unreadable", "unreadable folder"]),
    ("agreement", "user_state.json", ["agreement", "CONFIG"], ["unreadable folder"]),
    ("convert", "INPUT folder", ["convert", "--from", "who-and-when", "BAD", "-o", "OUT"], ["unreadable folder"]),
]
PARAMS = [pytest.param(command, what, argv, kind, id=f"{command} {what} {kind}")
          for command, what, argv, kinds in CASES for kind in kinds]


def prepare(root: Path, what: str, kind: str) -> tuple:
    """``(placeholders, the path the error line must name)``."""
    task = root / "task"
    config = make_task(task)
    run = root / "inputs" / "Hand-Crafted" / "1.json"
    run.parent.mkdir(parents=True)
    run.write_text(json.dumps(WHO_AND_WHEN_RUN))
    places = {"TASK": task, "CONFIG": config, "OUT": root / "out", "RUN": run}
    if what == "data file":
        bad = bad_path(task / "data", kind)
        settings = yaml.safe_load(config.read_text())
        settings["data_files"] = [str(bad.relative_to(task))]
        config.write_text(yaml.safe_dump(settings))
        places["CONFIG_WITH_BAD_DATA"] = config
        # a data file that is not there as a file is the config's finding; the others name the file
        return places, (config if kind in ("missing", "folder") else bad)
    if what == "user_state.json":
        state = task / "annotation_output" / "alice" / "user_state.json"
        if kind == "binary":
            state.write_bytes(BINARY)
        elif kind == "unreadable":
            state.chmod(0)
        elif kind == "unreadable folder":  # an annotator's folder nobody may list: never "no values"
            state.parent.chmod(0)
            return places, state.parent
        else:
            state.parent.chmod(stat.S_IRUSR | stat.S_IXUSR)
        return places, state
    if what == "INPUT folder":
        folder = root / "runs"
        (folder / "Hand-Crafted").mkdir(parents=True)
        (folder / "Hand-Crafted" / "1.json").write_text(json.dumps(WHO_AND_WHEN_RUN))
        (folder / "Hand-Crafted").chmod(0)
        places["BAD"] = folder
        return places, folder / "Hand-Crafted"
    bad = bad_path(root, kind)
    places["BAD"] = bad
    return places, bad


def run_cli(argv, cwd):
    command = [sys.executable, "-m", "potato_multiagent.cli", *argv]
    if AS_ROOT and shutil.which("setpriv"):
        command = DROP_ROOT_POWERS + command
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def files_under(root: Path) -> set:
    return {path.relative_to(root) for path in root.rglob("*")}


@pytest.mark.parametrize("command, what, argv, kind", PARAMS)
def test_a_bad_path_is_one_error_line_and_leaves_nothing_behind(tmp_path, command, what, argv, kind):
    if kind in ("unreadable", "unwritable folder", "unreadable folder") and not PERMISSIONS_BITE:
        pytest.skip("running as root without setpriv: file permissions do not apply")
    places, named = prepare(tmp_path, what, kind)
    before = files_under(tmp_path)
    try:
        result = run_cli([str(places.get(arg, arg)) for arg in argv], cwd=tmp_path)
        after = files_under(tmp_path)
    finally:
        for folder in tmp_path.rglob("*"):  # let pytest clean up
            if folder.is_dir():
                folder.chmod(0o755)
    lines = result.stderr.splitlines()
    assert result.returncode == 1, result
    assert len(lines) == 1 and lines[0].startswith(f"error: {named}: "), result.stderr
    assert "Traceback" not in result.stderr and "Errno" not in lines[0], lines[0]
    assert after == before, f"left behind: {sorted(map(str, after - before))}"
