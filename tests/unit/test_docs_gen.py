"""Generated docs and tables are current: the Config models are the config docs, words.py the wording."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from potato_multiagent.types import SCHEMES
from potato_multiagent.types._base.words import WORDS

SCRIPT = Path(__file__).parents[2] / "scripts" / "docs_gen.py"
_spec = importlib.util.spec_from_file_location("docs_gen", SCRIPT)
docs_gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs_gen)


def test_no_generated_file_is_stale():
    assert docs_gen.stale() == [], "run: python scripts/docs_gen.py"


def test_a_hand_edited_table_is_stale_and_regenerated(tmp_path):
    docs = tmp_path / "types"
    shutil.copytree(docs_gen.docs_folder(), docs)
    page = docs / "handoff_review.md"
    page.write_text(page.read_text(encoding="utf-8").replace("| `quality_scale` | integer 2..10 | `5` |",
                                                              "| `quality_scale` | integer 2..9 | `4` |"), encoding="utf-8")
    assert page in docs_gen.stale(docs)
    assert "| `quality_scale` | integer 2..10 | `5` | Quality is rated 1 (poor)" in docs_gen.generated(docs)[page]


@pytest.mark.parametrize("type_name", sorted(SCHEMES))
def test_every_config_key_but_potatos_own_is_in_the_table(type_name):
    scheme = SCHEMES[type_name]
    page = (docs_gen.docs_folder() / f"{scheme.widget}.md").read_text(encoding="utf-8")
    table = page.split(docs_gen.START)[1].split(docs_gen.END)[0]
    for key in scheme.optional_fields():
        assert f"| `{key}` |" in table


def test_a_page_without_markers_is_named():
    with pytest.raises(ValueError, match="tool_call_review.md: needs the markers"):
        docs_gen.with_table("# no table\n", "| key |", "docs/types/tool_call_review.md")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_browser_reads_the_same_wording_table():
    out = subprocess.run(["node", "-e", "process.stdout.write(JSON.stringify(require(process.argv[1]).words))",
                          str(docs_gen.WORDS_JS)], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(out.stdout) == WORDS
