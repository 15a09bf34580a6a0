"""Types declared by other distributions (entry-point group ``potato_multiagent.types``): what the
registry and the bundle make of good and bad ones. Each case runs a fresh interpreter with a
folder of distribution metadata on PYTHONPATH, as ``pip install`` would leave it; the end-to-end
journey of a good one is tests/e2e/test_outside_type.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

OUTSIDE = Path(__file__).resolve().parents[1] / "outside_type"

REPORT = """
import json
from potato_multiagent import bundling, types
package = types.PACKAGE
every = bundling.parts(package, types.folders())
print(json.dumps({"types": list(types.TYPES), "not_loaded": types.NOT_LOADED,
                  "every": [part.name for part in every],
                  "entry": str(next(part.entry for part in every if part.name == "plan_adherence")),
                  "page": bundling.used([part.name for part in every], {"plan_adherence"}),
                  "wheel": [part.name for part in bundling.parts(package, bundling.built_in(package))]}))
"""


def installed(site: Path, entry_points: str) -> Path:
    """A distribution's metadata in ``site``, declaring ``entry_points`` (the lines of the group)."""
    info = site / "more_types-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: more-types\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[potato_multiagent.types]\n{entry_points}\n")
    return site


def run(site: Path, *args: str) -> subprocess.CompletedProcess:
    path = os.pathsep.join([str(site), str(OUTSIDE)])
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": path})


def test_a_good_type_is_registered_and_bad_ones_are_left_out_each_with_its_reason(tmp_path):
    site = installed(tmp_path / "site", "gone = no_such_package_here\nmast = potato_plan_adherence\n"
                                        "raising = raising_type\n")
    (site / "raising_type").mkdir()
    (site / "raising_type" / "__init__.py").write_text("")
    (site / "raising_type" / "scheme.py").write_text("raise RuntimeError('the scheme is broken')\n")
    done = run(site, "-c", REPORT)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["types"][-1] == "plan_adherence" and "mast" in found["types"] and len(found["types"]) == 9
    group = "of group 'potato_multiagent.types'"
    assert found["not_loaded"] == {
        "gone": f"entry point 'gone' {group} (no_such_package_here): no package 'no_such_package_here' is installed",
        "mast": f"entry point 'mast' {group} (potato_plan_adherence): a built-in type is named 'mast'",
        "raising": f"entry point 'raising' {group} (raising_type): RuntimeError: the scheme is broken"}
    assert found["entry"] == str(OUTSIDE / "potato_plan_adherence" / "view.js")
    assert found["every"][-1] == "plan_adherence" and "raising" not in found["every"]   # what the registry loaded
    assert found["page"] == ["core", "plan_adherence"]   # only what the page uses
    assert "plan_adherence" not in found["wheel"]   # a wheel holds ours only


def test_check_says_why_a_config_names_a_type_that_failed_to_load(tmp_path):
    site = installed(tmp_path / "site", "gone = no_such_package_here\n")
    task = tmp_path / "task"
    (task / "data").mkdir(parents=True)
    (task / "data" / "runs.jsonl").write_text(json.dumps({"id": "r1", "steps": [{"agent": "A", "content": "x"}]}) + "\n")
    (task / "config.yaml").write_text(
        "annotation_task_name: outside-gone\ntask_dir: .\ndata_files: [data/runs.jsonl]\n"
        "item_properties: {id_key: id, text_key: id}\noutput_annotation_dir: annotation_output\nplugins: [multiagent]\n"
        "annotation_schemes:\n- {annotation_type: multiagent.gone, name: plan, description: Kept to the plan}\n")
    done = run(site, "-m", "potato_multiagent.cli", "check", str(task / "config.yaml"))
    assert done.returncode != 0
    assert ("config / plan: annotation_type: 'multiagent.gone' is not provided by this plugin (known: "
            in done.stdout + done.stderr)
    assert ("; it failed to load: entry point 'gone' of group 'potato_multiagent.types' (no_such_package_here): "
            "no package 'no_such_package_here' is installed" in done.stdout + done.stderr)
