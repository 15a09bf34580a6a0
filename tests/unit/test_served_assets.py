"""Potato serves only our browser files, joined: the folder the plugin registers holds one script
(every part esbuild built from the modules, in page order) and one style sheet, named by their
content, and no Python (src/potato_multiagent/bundling.py, served.py).

The server-level checks (the page loads the bundle, a .py path and a single source file are 404;
the next page takes the bundle from the browser's cache) are in tests/e2e/test_trace_view.py, on
a server that suite starts anyway.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from flask import Flask, session
from potato.plugins import PluginAPI

from potato_multiagent import bundling, plugin, types
from potato_multiagent.served import IMMUTABLE, config_bundle, plugin_bundle, served_bundle

HEADER = re.compile(r"^/\* ==== (\S+) ==== \*/$", re.MULTILINE)
REPO = Path(__file__).resolve().parents[2]


def files_under(folder):
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if not path.is_dir())


def sections(bundle_text):
    """(part name, its text in the bundle) for each header line, in bundle order."""
    heads = list(HEADER.finditer(bundle_text))
    ends = [head.start() for head in heads[1:]] + [len(bundle_text)]
    return [(head.group(1), bundle_text[head.end() + 1:end]) for head, end in zip(heads, ends)]


def part_names():
    return [part.name for part in bundling.parts(types.PACKAGE, types.folders())]


@pytest.fixture(scope="module")
def built():
    """Every part of this tree, built by esbuild once for the module."""
    return bundling.build_parts(types.PACKAGE, bundling.parts(types.PACKAGE, types.folders()))


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


def test_the_script_is_every_part_in_page_order(registered, built):
    """...after V8's compile hint, which it reads on the script's first line only."""
    bundle = (Path(registered._static_dir) / registered._scripts[0]).read_text(encoding="utf-8")
    assert bundle.startswith("//# allFunctionsCalledOnLoad\n/* ==== core ==== */\n")
    assert [name for name, _ in sections(bundle)] == part_names()
    assert part_names()[:2] == ["core", "trace_view"] and "mast.trace" in part_names()
    for name, text in sections(bundle):
        assert text == built[name][0], name


def test_the_style_sheet_is_every_parts_sheet_in_order(registered, built):
    sheet = (Path(registered._static_dir) / registered._styles[0]).read_text(encoding="utf-8")
    assert [name for name, _ in sections(sheet)] == [name for name in part_names() if built[name][1]]
    for name, text in sections(sheet):
        assert text == built[name][1] + "\n", name


def test_the_page_gets_the_modules_minified_without_their_comments(registered):
    """What a page loads is well under the modules' size, and holds no comment of ours but the line
    naming each part."""
    folder = Path(registered._static_dir)
    sources = [path for part_folder in [types.WEB, *types.folders().values()] for path in part_folder.iterdir()]
    for bundle, suffix, at_most in ((registered._scripts[0], ".js", 0.65), (registered._styles[0], ".css", 0.75)):
        text = (folder / bundle).read_text(encoding="utf-8")
        written = sum(len(path.read_text(encoding="utf-8")) for path in sources if path.suffix == suffix)
        assert len(text) < at_most * written, bundle
        assert re.findall(r"/\*.*?\*/", text, re.DOTALL) == [head.group(0) for head in HEADER.finditer(text)]


RUN_IN_NODE = """
const fs = require('fs');
const vm = require('vm');
const context = vm.createContext({console});
const before = new Set(Object.getOwnPropertyNames(context));
vm.runInContext(fs.readFileSync(process.argv[1], 'utf8'), context);
const added = Object.getOwnPropertyNames(context).filter((name) => !before.has(name));
const runtime = context.PotatoMultiagent;
const marked = JSON.parse(process.argv[2]).filter((name) => runtime.registeredMarks(name) !== null);
process.stdout.write(JSON.stringify({added, marked, traceParts: Object.keys(runtime.traceParts)}));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_runtime_is_the_pages_one_global_and_every_part_joins_it(registered):
    """The whole bundle run as a page runs it (no DOM: the runtime does not start): it adds one
    global, the runtime, and every type's part registered its rules on that one runtime."""
    script = Path(registered._static_dir) / registered._scripts[0]
    out = subprocess.run(["node", "-e", RUN_IN_NODE, str(script), json.dumps(list(types.folders()))],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["added"] == ["PotatoMultiagent"]
    assert found["marked"] == list(types.folders())
    assert found["traceParts"] == ["mast"]


def test_a_part_that_would_copy_a_core_module_is_refused(tmp_path):
    view = tmp_path / "sneaky" / "view.js"
    view.parent.mkdir()
    view.write_text(f"import {{snippet}} from {json.dumps(str(types.WEB / 'base.js'))};\nsnippet('x', 1);\n")
    every = bundling.parts(types.PACKAGE, {"sneaky": view.parent})
    with pytest.raises(RuntimeError, match="part \"sneaky\" would hold a second copy of the core's .*base.js"):
        bundling.build_parts(types.PACKAGE, every)


def fake_built(text):
    return {"core": (f"var a={text};\n", f"a{{z-index:{text}}}")}


def test_a_second_start_reuses_the_folder(tmp_path):
    first = served_bundle(fake_built(1), ["core"], cache=tmp_path)
    again = served_bundle(fake_built(1), ["core"], cache=tmp_path)
    assert again == first
    assert [path.name for path in tmp_path.iterdir()] == [first.folder.name]   # no half-built folder left


def checkout_copy(tmp_path):
    """A copy of the package beside the checkout's node_modules (esbuild), as a source checkout is."""
    package = tmp_path / "src" / "potato_multiagent"
    shutil.copytree(types.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "bundle"))
    (tmp_path / "node_modules").symlink_to(REPO / "node_modules")
    return package


def test_a_changed_module_is_built_again_and_served_under_a_new_name(tmp_path):
    package = checkout_copy(tmp_path)
    cache = tmp_path / "cache"
    folders = bundling.built_in(package)
    first = plugin_bundle(package, folders, cache)
    assert plugin_bundle(package, folders, cache) == first
    base = package / "web" / "base.js"
    base.write_text(base.read_text(encoding="utf-8").replace("a pending edit could not be stored", "an edit was lost"),
                    encoding="utf-8")
    second = plugin_bundle(package, folders, cache)
    assert second.script != first.script and second.folder != first.folder
    assert "an edit was lost" in (second.folder / second.script).read_text(encoding="utf-8")
    assert "an edit was lost" not in (first.folder / first.script).read_text(encoding="utf-8")   # a page still open keeps its own
    assert len([path for path in cache.iterdir() if path.name.startswith("parts-")]) == 2


def test_a_start_removes_the_bundles_nobody_started_for_a_month(tmp_path):
    cache = tmp_path / "cache"
    old = served_bundle(fake_built(1), ["core"], cache=cache).folder
    recent = served_bundle(fake_built(2), ["core"], cache=cache).folder
    half_built = cache / ".bundle-0123-abc"
    half_built.mkdir()
    old_parts = cache / "parts-0123"
    old_parts.mkdir()
    unrelated = cache / "notes"
    unrelated.mkdir()
    month_ago = time.time() - 31 * 86_400
    for folder in (old, half_built, old_parts, unrelated):
        os.utime(folder, (month_ago, month_ago))

    current = served_bundle(fake_built(3), ["core"], cache=cache).folder
    assert sorted(path.name for path in cache.iterdir()) == sorted([recent.name, current.name, "notes"])

    os.utime(recent, (month_ago, month_ago))          # a month unused, then started again ...
    served_bundle(fake_built(2), ["core"], cache=cache)
    served_bundle(fake_built(3), ["core"], cache=cache)
    assert recent.is_dir() and current.is_dir()       # ... is kept by the next start of another


def test_a_missing_part_is_named(tmp_path):
    with pytest.raises(KeyError, match="no such part of the browser bundle: nowhere"):
        served_bundle(fake_built(1), ["core", "nowhere"], cache=tmp_path)
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
    package = checkout_copy(tmp_path)
    bundling.build(package)
    return package


def test_an_installed_package_serves_the_bundle_it_came_with_and_writes_nothing(tmp_path, monkeypatch):
    package = installed_copy(tmp_path)
    cache = tmp_path / "cache"
    folders = bundling.built_in(package)
    monkeypatch.setenv("PATH", "")   # no node: nothing is built
    bundle = plugin_bundle(package, folders, cache)
    assert bundle.folder == package / "bundle"
    assert sorted(path.name for path in bundle.folder.iterdir()) == sorted([bundle.script, bundle.style, "parts"])
    narrow = config_bundle(package, folders, {"mast"}, cache)   # joined from the shipped parts
    assert [name for name, _ in sections((narrow.folder / narrow.script).read_text(encoding="utf-8"))] == ["core", "mast"]
    assert [path.name for path in cache.iterdir()] == [narrow.folder.name]
    monkeypatch.undo()
    # the same files a source checkout builds on the fly: the wheel serves what the tree does
    checkout = plugin_bundle(types.PACKAGE, bundling.built_in(types.PACKAGE), tmp_path / "checkout")
    assert (checkout.script, checkout.style) == (bundle.script, bundle.style)
    assert (checkout.folder / checkout.script).read_bytes() == (bundle.folder / bundle.script).read_bytes()


def test_a_damaged_installed_bundle_is_named(tmp_path):
    package = installed_copy(tmp_path)
    (package / "bundle" / "multiagent.0123.js").write_text("", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match=r"bundle: the installed bundle should be one multiagent.<hash>.js"):
        plugin_bundle(package, bundling.built_in(package), cache=tmp_path / "cache")


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
    first = served_bundle(fake_built(1), ["core"])
    again = served_bundle(fake_built(1), ["core"])
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
        served_bundle(fake_built(1), ["core"])
    if planted == "a link":
        assert list((tmp_path / "elsewhere").iterdir()) == []


# -- a page loads what its config uses (issue 34) ------------------------------------------------

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


def test_a_page_without_a_type_or_the_trace_view_does_not_get_their_parts():
    names = part_names()
    assert bundling.used(names, {"failure_attribution"}) == ["core", "failure_attribution"]
    assert bundling.used(names, {"mast"}) == ["core", "mast"]   # its part of the trace view needs one
    assert bundling.used(names, {"trace_view"}) == ["core", "trace_view"]
    assert bundling.used(names, {"mast", "trace_view", "agent_interaction_graph"}) == \
        ["core", "trace_view", "agent_interaction_graph", "mast", "mast.trace"]
    assert bundling.used(names, None) == names


def test_the_config_bundle_holds_only_its_parts_and_is_named_by_its_content(tmp_path, built):
    narrow = config_bundle(types.PACKAGE, types.folders(), {"failure_attribution"}, cache=tmp_path)
    full = config_bundle(types.PACKAGE, types.folders(), None, cache=tmp_path)
    assert narrow.script != full.script and narrow.folder != full.folder
    text = (narrow.folder / narrow.script).read_text(encoding="utf-8")
    assert HEADER.findall(text) == ["core", "failure_attribution"]
    assert not any(built[name][0] in text for name in built if name not in ("core", "failure_attribution"))
    assert len(text) * 2 < len((full.folder / full.script).read_text(encoding="utf-8"))
