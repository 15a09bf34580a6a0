"""Potato serves only our browser files: the folder the plugin registers holds the scripts and styles
the pages load, at their package paths, and no Python (src/potato_multiagent/served.py).

The server-level check (a .py path is 404 while the widgets' scripts load) is in
tests/e2e/test_trace_view.py, on a server that suite starts anyway.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from potato.plugins import PluginAPI

from potato_multiagent import plugin, types
from potato_multiagent.served import served_folder


def files_under(folder):
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if not path.is_dir())


def test_the_plugin_serves_a_folder_of_the_page_assets_and_no_python(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    api = PluginAPI("multiagent", "potato-multiagent", "test", str(types.PACKAGE))   # Potato's own, uncommitted
    plugin.register(api)
    folder, scripts, styles = api._static_dir, api._scripts, api._styles
    assert scripts == types.scripts() and styles == types.styles()
    assert os.path.isabs(folder) and not folder.startswith(str(types.PACKAGE))
    served = files_under(Path(folder))
    assert served == sorted(scripts + styles)
    assert "web/widget.js" in served and "types/failure_attribution/view.js" in served
    assert not [name for name in served if not name.endswith((".js", ".css"))]
    for name in served:
        assert (Path(folder) / name).read_bytes() == (types.PACKAGE / name).read_bytes()


def test_a_second_start_reuses_the_folder(tmp_path):
    first = served_folder(types.PACKAGE, ["web/words.js"], cache=tmp_path)
    assert served_folder(types.PACKAGE, ["web/words.js"], cache=tmp_path) == first
    assert [path.name for path in tmp_path.iterdir()] == [first.name]   # no half-built folder left


def test_where_links_are_refused_the_files_are_copied_under_a_name_that_covers_their_content(tmp_path, monkeypatch):
    package = tmp_path / "package"
    (package / "web").mkdir(parents=True)
    (package / "web" / "a.js").write_text("var a = 1;\n", encoding="utf-8")

    def refuse(*args, **kwargs):
        raise OSError("symbolic links are not allowed here")

    monkeypatch.setattr(os, "symlink", refuse)
    first = served_folder(package, ["web/a.js"], cache=tmp_path / "cache")
    assert not (first / "web" / "a.js").is_symlink()
    assert (first / "web" / "a.js").read_text(encoding="utf-8") == "var a = 1;\n"
    (package / "web" / "a.js").write_text("var a = 2;\n", encoding="utf-8")
    second = served_folder(package, ["web/a.js"], cache=tmp_path / "cache")
    assert second != first and (second / "web" / "a.js").read_text(encoding="utf-8") == "var a = 2;\n"


def test_a_missing_asset_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.js"):
        served_folder(types.PACKAGE, ["web/nowhere.js"], cache=tmp_path)
