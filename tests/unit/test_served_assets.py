"""Potato serves only our browser files, joined: the folder the plugin registers holds one script
(every page script, in load order) and one style sheet, named by their content, and no Python
(src/potato_multiagent/served.py).

The server-level checks (the page loads the bundle, a .py path and a single source file are 404;
the next page takes the bundle from the browser's cache) are in tests/e2e/test_trace_view.py, on
a server that suite starts anyway.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import rcssmin
import rjsmin
from flask import Flask, session
from potato.plugins import PluginAPI

from potato_multiagent import bundling, plugin, types
from potato_multiagent.served import IMMUTABLE, plugin_bundle, served_bundle

HEADER = re.compile(r"^/\* ==== (\S+) ==== \*/$", re.MULTILINE)


def files_under(folder):
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if not path.is_dir())


def parts(bundle_text):
    """(file name, its part of the bundle) for each header line, in bundle order."""
    heads = list(HEADER.finditer(bundle_text))
    ends = [head.start() for head in heads[1:]] + [len(bundle_text)]
    return [(head.group(1), bundle_text[head.end() + 1:end]) for head, end in zip(heads, ends)]


def minified(name):
    """A file of ours as the minifier (rjsmin, rcssmin) writes it."""
    text = (types.PACKAGE / name).read_text(encoding="utf-8")
    return (rjsmin.jsmin(text) if name.endswith(".js") else rcssmin.cssmin(text)).rstrip("\n")


def assert_holds_in_order(bundle_text, names):
    """The bundle is exactly ``names``' files, in that order, each whole as the minifier writes it."""
    found = parts(bundle_text)
    assert [name for name, _ in found] == list(names)
    for name, part in found:
        assert part.startswith(minified(name)), name


@pytest.fixture
def registered(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    api = PluginAPI("multiagent", "potato-multiagent", "test", str(types.PACKAGE))   # Potato's own, uncommitted
    plugin.register(api)
    return api


def test_the_plugin_registers_one_script_and_one_style_sheet_and_serves_no_python(registered):
    folder, scripts, styles = Path(registered._static_dir), registered._scripts, registered._styles
    assert len(scripts) == 1 and len(styles) == 1
    assert re.fullmatch(r"multiagent\.[0-9a-f]{20}\.js", scripts[0]), scripts
    assert styles[0] == scripts[0][:-len("js")] + "css"
    assert folder.is_absolute() and not str(folder).startswith(str(types.PACKAGE))
    assert files_under(folder) == sorted(scripts + styles)


def test_the_script_is_every_page_script_minified_in_load_order(registered):
    bundle = (Path(registered._static_dir) / registered._scripts[0]).read_text(encoding="utf-8")
    assert_holds_in_order(bundle, types.scripts())


def test_the_style_sheet_is_every_style_sheet_minified_in_order(registered):
    sheet = (Path(registered._static_dir) / registered._styles[0]).read_text(encoding="utf-8")
    assert_holds_in_order(sheet, types.styles())


def test_the_page_gets_its_files_minified_without_their_comments(registered):
    """What a page loads is the files without their comments and needless whitespace: well under
    the files' size, and no comment of ours but the line naming each file."""
    folder = Path(registered._static_dir)
    for bundle, names in ((registered._scripts[0], types.scripts()), (registered._styles[0], types.styles())):
        text = (folder / bundle).read_text(encoding="utf-8")
        files = sum(len((types.PACKAGE / name).read_text(encoding="utf-8")) for name in names)
        assert len(text) < 0.75 * files, bundle
        assert re.findall(r"/\*.*?\*/", text, re.DOTALL) == [bundling.header(name).strip() for name in names]


def test_a_second_start_reuses_the_folder(tmp_path):
    first = served_bundle(types.PACKAGE, ["web/words.js"], ["web/multiagent.css"], cache=tmp_path)
    again = served_bundle(types.PACKAGE, ["web/words.js"], ["web/multiagent.css"], cache=tmp_path)
    assert again == first
    assert [path.name for path in tmp_path.iterdir()] == [first.folder.name]   # no half-built folder left


def fake_package(tmp_path, files):
    package = tmp_path / "package"
    for name, text in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text, encoding="utf-8")
    return package


def test_a_changed_file_is_served_under_a_new_name(tmp_path):
    package = fake_package(tmp_path, {"web/a.js": "var a = 1;\n", "web/a.css": "a { color: red; }\n"})
    first = served_bundle(package, ["web/a.js"], ["web/a.css"], cache=tmp_path / "cache")
    (package / "web" / "a.js").write_text("var a = 2;\n", encoding="utf-8")
    second = served_bundle(package, ["web/a.js"], ["web/a.css"], cache=tmp_path / "cache")
    assert second.script != first.script and second.style != first.style and second.folder != first.folder
    assert "var a=2;" in (second.folder / second.script).read_text(encoding="utf-8")
    assert "var a=1;" in (first.folder / first.script).read_text(encoding="utf-8")   # a page still open keeps its own


def test_a_start_removes_the_bundles_nobody_started_for_a_month(tmp_path):
    cache = tmp_path / "cache"
    package = fake_package(tmp_path, {"web/a.js": "var a = 1;\n", "web/a.css": "a { color: red; }\n"})
    old = served_bundle(package, ["web/a.js"], ["web/a.css"], cache=cache).folder
    (package / "web" / "a.js").write_text("var a = 2;\n", encoding="utf-8")
    recent = served_bundle(package, ["web/a.js"], ["web/a.css"], cache=cache).folder
    half_built = cache / ".bundle-0123-abc"
    half_built.mkdir()
    unrelated = cache / "notes"
    unrelated.mkdir()
    month_ago = time.time() - 31 * 86_400
    for folder in (old, half_built, unrelated):
        os.utime(folder, (month_ago, month_ago))

    (package / "web" / "a.js").write_text("var a = 3;\n", encoding="utf-8")
    current = served_bundle(package, ["web/a.js"], ["web/a.css"], cache=cache).folder
    assert sorted(path.name for path in cache.iterdir()) == sorted([recent.name, current.name, "notes"])

    os.utime(recent, (month_ago, month_ago))          # a month unused, then started again ...
    (package / "web" / "a.js").write_text("var a = 2;\n", encoding="utf-8")
    served_bundle(package, ["web/a.js"], ["web/a.css"], cache=cache)
    (package / "web" / "a.js").write_text("var a = 3;\n", encoding="utf-8")
    served_bundle(package, ["web/a.js"], ["web/a.css"], cache=cache)
    assert recent.is_dir() and current.is_dir()       # ... is kept by the next start of another


JOINED_IN_NODE = """
const fs = require('fs');
const vm = require('vm');
const context = vm.createContext({});
vm.runInContext(fs.readFileSync(process.argv[1], 'utf8'), context);
process.stdout.write(JSON.stringify([context.sloppy, context.strictThrew, context.third]));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_joined_files_keep_their_own_semantics(tmp_path):
    # a sloppy file ending in a line comment with no newline; a strict IIFE with no semicolon
    # (joined bare, the next file's parenthesis would call its result); a third file after both
    package = fake_package(tmp_path, {
        "one.js": "undeclared = 1; var sloppy = typeof undeclared // no newline at the end",
        "two.js": "(function () { 'use strict';"
                  " try { leaked = 1; } catch (e) { this.strictThrew = true; } }).call(this)",
        "three.js": "(function (root) { root.third = 3; }(this));\n",
    })
    bundle = served_bundle(package, ["one.js", "two.js", "three.js"], [], cache=tmp_path / "cache")
    out = subprocess.run(["node", "-e", JOINED_IN_NODE, str(bundle.folder / bundle.script)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout == '["number",true,3]'
    assert [name for name, _ in parts((bundle.folder / bundle.script).read_text(encoding="utf-8"))] == \
        ["one.js", "two.js", "three.js"]


def test_a_missing_asset_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.js"):
        served_bundle(types.PACKAGE, ["web/nowhere.js"], [], cache=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_only_the_bundle_files_are_answered_immutable_and_without_the_session_cookie(registered):
    """served.serve_forever on any Flask app (the e2e test has Potato's): the two bundle paths get a
    year's immutable caching and no session cookie; every other answer is left as the app made it."""
    app = Flask(__name__)
    app.secret_key = "test"

    @app.before_request
    def stamp_session():   # as Potato's before_request does: the session changes on every request
        session["seen"] = time.time()

    @app.route("/plugin-static/<plugin>/<path:path>")
    def asset(plugin, path):
        return ("nothing here", 404) if path == "missing.js" else f"{plugin}/{path}"

    client = app.test_client()
    for name in registered._scripts + registered._styles:
        # at the root, and below a deployment prefix (Potato's reaches Flask as SCRIPT_NAME)
        for base_url in ("http://localhost/", "http://localhost/annotation/"):
            answer = client.get(f"/plugin-static/multiagent/{name}", base_url=base_url)
            assert answer.headers["Cache-Control"] == IMMUTABLE, (base_url, name)
            assert "Set-Cookie" not in answer.headers and "cookie" not in answer.vary, (base_url, name)
    for path in ("/plugin-static/other/" + registered._scripts[0], "/plugin-static/multiagent/missing.js"):
        answer = client.get(path)
        assert answer.headers.get("Cache-Control") != IMMUTABLE, path
        assert "Set-Cookie" in answer.headers and "cookie" in answer.vary, path


# -- where the bundle comes from: the wheel's, or built by a source checkout (issue 41) ----------------


def installed_copy(tmp_path):
    """The package as a wheel installs it: a copy of the tree with the bundle setup.py builds."""
    package = tmp_path / "site-packages" / "potato_multiagent"
    shutil.copytree(types.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    bundling.build(package)
    return package


def test_an_installed_package_serves_the_bundle_it_came_with_and_writes_nothing(tmp_path):
    package = installed_copy(tmp_path)
    cache = tmp_path / "cache"
    bundle = plugin_bundle(package, cache=cache)
    assert bundle.folder == package / "bundle"
    assert sorted(path.name for path in bundle.folder.iterdir()) == sorted([bundle.script, bundle.style])
    assert not cache.exists()
    # the same files a source checkout builds on the fly: the wheel serves what the tree does
    built = plugin_bundle(types.PACKAGE, cache=cache)
    assert (built.script, built.style) == (bundle.script, bundle.style)
    assert (built.folder / built.script).read_bytes() == (bundle.folder / bundle.script).read_bytes()


def test_a_damaged_installed_bundle_is_named(tmp_path):
    package = installed_copy(tmp_path)
    (package / "bundle" / "multiagent.0123.js").write_text("", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match=r"bundle: the installed bundle should be one multiagent.<hash>.js"):
        plugin_bundle(package, cache=tmp_path / "cache")


@pytest.fixture
def unwritable_cache(tmp_path, monkeypatch):
    """A cache folder nobody can make (below a plain file: root too) and a temporary folder of the test's."""
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file" / "cache"))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    return temporary / f"potato-multiagent-{os.getuid()}"


def test_an_unwritable_cache_falls_back_to_one_private_folder_the_same_on_every_start(unwritable_cache):
    first = served_bundle(types.PACKAGE, ["web/words.js"], ["web/multiagent.css"])
    again = served_bundle(types.PACKAGE, ["web/words.js"], ["web/multiagent.css"])
    assert first == again and first.folder.parent == unwritable_cache / "served"
    assert [path.name for path in unwritable_cache.parent.iterdir()] == [unwritable_cache.name]
    assert stat.S_IMODE(unwritable_cache.stat().st_mode) == 0o700


@pytest.mark.parametrize("planted", ["open to others", "a link"])
def test_a_fallback_folder_that_is_not_the_users_alone_is_refused(unwritable_cache, tmp_path, planted):
    if planted == "open to others":
        unwritable_cache.mkdir()
        unwritable_cache.chmod(0o777)
    else:
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        unwritable_cache.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError, match="is not a folder of yours alone .*set XDG_CACHE_HOME"):
        served_bundle(types.PACKAGE, ["web/words.js"], ["web/multiagent.css"])
    if planted == "a link":
        assert list((tmp_path / "elsewhere").iterdir()) == []


# -- a page loads what its config uses (issue 34) ------------------------------------------------

CORE_STYLES = ["web/multiagent.css", "web/windowing.css"]


def test_what_a_config_uses_is_its_types_and_its_trace_view_wherever_they_are():
    from potato_multiagent.served import config_uses

    config = {"annotation_schemes": [{"annotation_type": "radio", "name": "outcome"},
                                     {"annotation_type": "multiagent.mast", "name": "mast"}],
              "instance_display": {"fields": [{"key": "task", "type": "text"},
                                              {"key": "steps", "type": "multiagent.trace"}]},
              "phases": {"order": ["training"], "training": {"type": "training", "annotation_schemes": [
                  {"annotation_type": "multiagent.handoff_review", "name": "handoffs"}]}}}
    assert config_uses(config) == {"mast", "trace_view", "handoff_review"}
    assert config_uses({"annotation_schemes": [{"annotation_type": "multiselect", "name": "mast"}]}) == set()


def test_a_phase_reading_its_questions_from_a_file_keeps_everything():
    from potato_multiagent.served import config_uses

    config = {"annotation_schemes": [{"annotation_type": "multiagent.mast", "name": "mast"}],
              "phases": {"order": ["prestudy"], "prestudy": {"type": "prestudy", "file": "questions.json"}}}
    assert config_uses(config) is None


def test_a_page_without_a_type_or_the_trace_view_does_not_get_their_files():
    scripts = bundling.scripts(types.PACKAGE, {"failure_attribution"})
    assert scripts[-2:] == ["types/failure_attribution/marks.js", "types/failure_attribution/view.js"]
    assert [name for name in scripts if name.startswith("types/")] == scripts[-2:]
    assert not [name for name in scripts if name.startswith(("web/trace_view", "web/graph_"))]
    assert "web/runtime.js" in scripts and "web/derive.js" in scripts
    assert bundling.styles(types.PACKAGE, {"failure_attribution"}) == CORE_STYLES   # it has no style.css
    assert bundling.styles(types.PACKAGE, {"mast"}) == [*CORE_STYLES, "types/mast/style.css"]
    assert bundling.styles(types.PACKAGE, {"trace_view"}) == ["web/multiagent.css", "web/trace_view.css",
                                                              "web/windowing.css"]


def test_the_interaction_graph_brings_its_layout_and_keeps_the_load_order():
    scripts = bundling.scripts(types.PACKAGE, {"agent_interaction_graph", "mast"})
    graph = ["web/graph_labels.js", "web/graph_grid.js", "web/graph_layout.js"]
    assert [name for name in scripts if name.startswith("web/graph_")] == graph
    assert scripts == [name for name in types.scripts() if name in scripts]   # the full order, filtered
    assert scripts.index("web/graph_layout.js") < scripts.index("types/agent_interaction_graph/view.js")
    assert {name.split("/")[1] for name in scripts if name.startswith("types/")} == {"agent_interaction_graph",
                                                                                    "mast"}
    assert bundling.scripts(types.PACKAGE, None) == types.scripts()


def test_the_config_bundle_is_named_by_its_content_and_differs_from_the_full_one(tmp_path):
    from potato_multiagent.served import config_bundle

    narrow = config_bundle(types.PACKAGE, {"failure_attribution"}, cache=tmp_path)
    full = config_bundle(types.PACKAGE, None, cache=tmp_path)
    assert narrow.script != full.script and narrow.folder != full.folder
    text = (narrow.folder / narrow.script).read_text(encoding="utf-8")
    assert HEADER.findall(text) == bundling.scripts(types.PACKAGE, {"failure_attribution"})
    assert len(text) * 2 < len((full.folder / full.script).read_text(encoding="utf-8"))
