"""`potato-multiagent init` is the whole way from trace files to annotating.

The real DPBench episodes of the corpus (../shared/corpus, POTATO_MA_CORPUS) go through `init`
into a fresh folder; `potato start config.yaml` serves that folder as it is; a new annotator logs in,
marks the run failed (the attribution appears, gated by the outcome) and names the responsible
philosopher; what Potato saved in `annotation_output/<user>/user_state.json` is read back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import expect

from .harness import REPO_ROOT, current_instance_id, login, start_potato, wait_saved

pytestmark = pytest.mark.realdata


def corpus_folder() -> Path:
    """../shared/corpus (POTATO_MA_CORPUS); skips when missing, fails under CI=true."""
    folder = Path(os.environ.get("POTATO_MA_CORPUS") or REPO_ROOT.parent / "shared" / "corpus")
    if not (folder / "dpbench").is_dir():
        message = f"real-data corpus not found at {folder}; set POTATO_MA_CORPUS to its folder"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return folder


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    folder = tmp_path_factory.mktemp("init") / "dpbench-task"
    made = subprocess.run([sys.executable, "-m", "potato_multiagent.cli", "init", "--from", "dpbench",
                           corpus_folder() / "dpbench", "-o", folder], capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[-1] == f"next: cd {folder} && potato start config.yaml"
    server = start_potato(folder)  # in the folder init wrote, nothing added
    yield {"server": server, "folder": folder, "stdout": made.stdout,
           "records": [json.loads(line) for line in (folder / "data" / "runs.jsonl").read_text().splitlines()]}
    server.stop()


def test_init_output_is_served_and_one_mark_reaches_what_potato_saved(task, page):
    records, server = task["records"], task["server"]
    config = yaml.safe_load((task["folder"] / "config.yaml").read_text())
    assert [s["name"] for s in config["annotation_schemes"]] == [
        "outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "tool_calls", "contention", "mast"]
    user = f"init-{uuid.uuid4().hex[:8]}"
    login(page, server.base_url, user)
    first = records[0]
    assert current_instance_id(page) == first["id"]
    trace = page.locator("section.ma-trace")   # our trace view, as init writes it
    expect(trace).to_contain_text(first["steps"][0]["thought"][:40])
    expect(trace).to_contain_text("#1")
    attribution = page.locator('form.annotation-form[data-schema-name="attribution"]')
    expect(attribution).to_be_hidden()
    page.locator('form[data-schema-name="outcome"] input[type="radio"][value="failure"]').check()
    expect(attribution).to_have_attribute("data-ma-ready", "true")
    attribution.get_by_label("Responsible agent").select_option(label="P1")
    saved = wait_saved(server, user, first["id"], "attribution",
                       lambda value: value is not None and json.loads(value).get("responsible_agent") == "P1")
    assert json.loads(saved)["decisive_step"] is None
    assert server.saved_labels(user)[first["id"]]["outcome"] == {"failure": "failure"}
    page_source = page.content()
    assert '"deadlock"' not in page_source  # gold stays in gold.jsonl
    assert (task["folder"] / "gold.jsonl").exists()
