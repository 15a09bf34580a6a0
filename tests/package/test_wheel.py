"""The package users install by name: both archives built as a release builds them (`python -m
build`: the sdist, then the wheel from the sdist), checked, and the wheel installed into a fresh
venv outside the source tree, once per Python in ``SMOKE_PYTHONS``.

There the whole way a user goes runs: `potato plugins multiagent`, `potato-multiagent init`,
`potato validate --strict`, `potato start`, one page in Chromium and one value saved. Every process
of it runs under strace (audit.py) with an unwritable home and a temporary folder of its own: it
must not touch one file of the source tree, and must write nothing outside the task folder and
Potato's own package folder (where Potato caches the pages it builds).
"""

from __future__ import annotations

import email
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import uuid
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from potato_multiagent import bundling, types
from potato_multiagent.served import plugin_bundle
from tests.e2e.harness import _health_ok, free_port, login, wait_saved

from . import audit

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "src" / "potato_multiagent"

CI_PYTHONS = ("3.12", "3.13")
"""The Pythons CI installs the wheel on and smoke-tests it with (the lowest supported runs the unit
tests on the lowest versions, scripts/lowest.sh; setup.sh's runs the whole suite): together, the
versions the classifiers claim. POTATO_MA_WHEEL_PYTHONS runs others instead (e.g. one, to save time)."""
SMOKE_PYTHONS = os.environ.get("POTATO_MA_WHEEL_PYTHONS", " ".join(CI_PYTHONS)).split()

BUILT = ("bundle/", "docs/")
"""What setup.py adds to the wheel: the browser bundle and the documentation."""

HEADER = re.compile(r"^/\* ==== (\S+) ==== \*/$", re.MULTILINE)


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def missing(message: str):
    """A tool this module needs is missing: a failure in CI, a skip on a developer's machine."""
    if in_ci():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def tracked(folder: str) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z", folder], cwd=REPO, capture_output=True, check=True).stdout
    return [name for name in listed.decode().split("\0") if name]


def source_version() -> str:
    """The version as the source writes it (read, not imported)."""
    return re.search(r'^__version__ = "([^"]+)"$', (SOURCE / "__init__.py").read_text(encoding="utf-8"), re.M).group(1)


# -- the archives ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel, built from this tree the way a release is."""
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
                           capture_output=True, text=True, timeout=1200,
                           env={**os.environ, "NODE_PATH": str(REPO / "node_modules")})   # esbuild (docs/releasing.md)
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    wheels, sdists = list(out.glob("*.whl")), list(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(path.name for path in out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0], "log": built.stdout}


@pytest.fixture(scope="module")
def wheel_files(dist):
    with zipfile.ZipFile(dist["wheel"]) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.fixture(scope="module")
def metadata(dist, wheel_files):
    return email.message_from_bytes(wheel_files[f"potato_multiagent-{source_version()}.dist-info/METADATA"])


def test_both_archives_pass_twine_check_strict(dist):
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(dist["sdist"]), str(dist["wheel"])],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2, checked.stdout


def test_the_wheel_holds_the_tracked_package_and_what_the_build_adds_and_nothing_else(wheel_files):
    package = {name[len("potato_multiagent/"):] for name in wheel_files if name.startswith("potato_multiagent/")}
    built = {name for name in package if name.startswith(BUILT)}
    expected_sources = {name[len("src/potato_multiagent/"):] for name in tracked("src/potato_multiagent")}
    assert package - built == expected_sources
    assert {name[len("docs/"):] for name in built if name.startswith("docs/")} == \
        {name[len("docs/"):] for name in tracked("docs")}
    parts = [part.name for part in bundling.parts(SOURCE, bundling.built_in(SOURCE))]
    assert {name for name in built if name.startswith("bundle/parts/")} == \
        {f"bundle/parts/{part}{suffix}" for part in parts for suffix in (".js", ".css")}
    assert len([name for name in built if name.startswith("bundle/") and "/parts/" not in name]) == 2
    for name in expected_sources:   # the bytes of the tree, not of an older build
        assert wheel_files[f"potato_multiagent/{name}"] == (SOURCE / name).read_bytes(), name
    outside = {name.split("/")[0] for name in wheel_files if not name.startswith("potato_multiagent/")}
    assert outside == {f"potato_multiagent-{source_version()}.dist-info"}


def test_no_developer_tool_is_in_the_wheel(wheel_files):
    names = list(wheel_files)
    assert not [name for name in names if "docs_gen" in name]
    assert not [name for name in names if name.split("/")[0] in {"tests", "scripts", "bench", "examples"}]
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]


def test_the_wheel_holds_the_licence_and_declares_it_as_an_spdx_expression(wheel_files, metadata):
    licence = wheel_files[f"potato_multiagent-{source_version()}.dist-info/licenses/LICENSE"]
    assert licence == (REPO / "LICENSE").read_bytes()
    assert licence.startswith(b"MIT License\n")
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["License"] is None   # the deprecated form the build used to warn about
    assert float(metadata["Metadata-Version"]) >= 2.4


def test_the_bundle_in_the_wheel_is_every_part_in_page_order_as_a_checkout_builds_it(wheel_files, tmp_path):
    bundle = sorted(name for name in wheel_files if name.startswith("potato_multiagent/bundle/multiagent."))
    style_name, script_name = bundle
    script, style = wheel_files[script_name].decode(), wheel_files[style_name].decode()
    digest = hashlib.sha256(script.encode() + b"\0" + style.encode()).hexdigest()[:20]
    assert script_name == f"potato_multiagent/bundle/multiagent.{digest}.js"
    assert style_name == f"potato_multiagent/bundle/multiagent.{digest}.css"
    parts = [part.name for part in bundling.parts(SOURCE, bundling.built_in(SOURCE))]
    for text, suffix in ((script, ".js"), (style, ".css")):
        heads = list(HEADER.finditer(text))
        ends = [head.start() for head in heads[1:]] + [len(text)]
        shipped = {head.group(1): text[head.end() + 1:end] for head, end in zip(heads, ends)}
        assert list(shipped) == [part for part in parts if suffix == ".js" or shipped.get(part) is not None]
        for part, section in shipped.items():
            assert section.rstrip("\n") == wheel_files[f"potato_multiagent/bundle/parts/{part}{suffix}"].decode().rstrip("\n")
    checkout = plugin_bundle(SOURCE, bundling.built_in(SOURCE), tmp_path)   # what this tree builds on the fly
    assert (checkout.folder / checkout.script).read_text(encoding="utf-8") == script
    assert (checkout.folder / checkout.style).read_text(encoding="utf-8") == style


def test_the_metadata_says_what_ci_exercises(metadata):
    assert metadata["Name"] == "potato-multiagent" and metadata["Version"] == source_version()
    import trove_classifiers

    classifiers = metadata.get_all("Classifier")
    assert not [c for c in classifiers if c not in trove_classifiers.classifiers]
    lowest = re.search(r'^LOWEST_PYTHON="([\d.]+)"$', (REPO / "scripts" / "lowest.sh").read_text(), re.M).group(1)
    exercised = {lowest, "%d.%d" % sys.version_info[:2], *CI_PYTHONS}   # lowest.sh, the suite, this module
    assert {c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)} \
        == exercised
    assert metadata["Requires-Python"] == f">={min(exercised, key=lambda v: tuple(map(int, v.split('.'))))}"
    requires = metadata.get_all("Requires-Dist")
    potato = [line for line in requires if line.startswith("potato-annotation")]
    assert potato and all("<" in line and ">=" in line for line in potato), potato   # bounded to what was tested
    assert [line for line in requires if line.startswith("pyarrow")] == ['pyarrow>=14.0.0; extra == "parquet"']


def test_every_project_url_is_one_that_exists_potatos_own(metadata):
    """There is no public repository or site of this project yet: the only addresses given are
    Potato's, as Potato's own metadata gives them (README.md, "Documentation")."""
    from importlib.metadata import metadata as installed_metadata

    ours = metadata.get_all("Project-URL") or []
    potatos = installed_metadata("potato-annotation")
    known = {entry.split(", ", 1)[1] for entry in potatos.get_all("Project-URL") or []} | {potatos["Home-page"]}
    assert ours and {entry.split(", ", 1)[1] for entry in ours} <= known


def test_the_sdist_holds_the_tracked_source_docs_and_examples_the_licence_and_changelog_and_nothing_built(dist):
    with tarfile.open(dist["sdist"]) as archive:
        names = {member.name.split("/", 1)[1] for member in archive.getmembers() if member.isfile()}
    for name in ("LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml", "setup.py", "MANIFEST.in", "package.json",
                 "package-lock.json"):
        assert name in names, name
    for folder in ("src/potato_multiagent", "docs", "examples"):   # exactly what git tracks: nothing a run wrote
        assert {name for name in names if name.startswith(folder + "/")} == set(tracked(folder)), folder


# -- the wheel installed -----------------------------------------------------------------------------


def interpreter(version: str) -> str | None:
    """``python<version>``: on PATH, or one pyenv has built."""
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    candidates = [shutil.which(f"python{version}"), *sorted(glob.glob(str(pyenv / "versions" / f"{version}.*" / "bin" / f"python{version}")))]
    for candidate in filter(None, candidates):
        probe = subprocess.run([candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True, timeout=60)
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate
    return None


@pytest.fixture(scope="module", params=SMOKE_PYTHONS, ids=lambda version: f"python{version}")
def installed(request, dist, tmp_path_factory):
    """A fresh venv outside the source tree with the wheel installed (not editable), and an
    environment as a user with an unwritable home has."""
    python = interpreter(request.param)
    if python is None:
        missing(f"python{request.param} is not installed (on PATH or built by pyenv)")
    work = tmp_path_factory.mktemp(f"installed-{request.param}")
    assert REPO not in work.parents
    venv = work / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          str(dist["wheel"])], capture_output=True, text=True, timeout=1800)
    assert pip.returncode == 0, pip.stdout[-4000:] + pip.stderr[-4000:]
    if os.geteuid() == 0:
        # root writes through any mode: a home below a plain file cannot be written by anyone
        (work / "home-is-a-file").write_text("", encoding="utf-8")
        home = work / "home-is-a-file" / "home"
    else:
        home = work / "home"
        home.mkdir()
        home.chmod(0o555)
    temporary = work / "tmp"
    temporary.mkdir()
    environment = {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home),
                   "TMPDIR": str(temporary), "LANG": "C.UTF-8"}
    site = subprocess.run([str(venv / "bin" / "python"), "-c", "import potato, potato_multiagent, sys; "
                           "print(potato.__file__); print(potato_multiagent.__file__); print(sys.path)"],
                          cwd=work, env=environment, capture_output=True, text=True, check=True, timeout=120)
    potato_file, ours_file, path = site.stdout.splitlines()
    return {"venv": venv, "work": work, "env": environment, "home": home, "tmp": temporary, "version": request.param,
            "potato": Path(potato_file).parent, "ours": Path(ours_file).parent, "sys_path": path}


def run(installed, command, cwd, log_name, timeout=600):
    """``command`` in the installed venv's environment, under strace; (result, strace log path)."""
    log = installed["work"] / f"{log_name}.strace"
    result = subprocess.run(audit.traced(command, log), cwd=cwd, env=installed["env"], capture_output=True,
                            text=True, timeout=timeout)
    return result, log


def test_the_installed_package_comes_from_the_venv_not_the_tree(installed):
    assert installed["ours"].is_relative_to(installed["venv"]) and installed["potato"].is_relative_to(installed["venv"])
    assert str(REPO) not in installed["sys_path"]
    assert (installed["ours"] / "bundle").is_dir() and not (installed["ours"] / "docs_gen.py").exists()


def test_version_and_docs_of_the_installed_package(installed):
    bin_folder = installed["venv"] / "bin"
    version = subprocess.run([str(bin_folder / "potato-multiagent"), "--version"], cwd=installed["work"],
                             env=installed["env"], capture_output=True, text=True, timeout=120)
    assert version.returncode == 0, version.stderr
    assert re.fullmatch(rf"potato-multiagent {re.escape(source_version())} \(Potato \d+\.\d+\.\d+, Python "
                        rf"{re.escape(installed['version'])}\.\d+\)\n", version.stdout), version.stdout
    page = subprocess.run([str(bin_folder / "potato-multiagent"), "docs", "cli"], cwd=installed["work"],
                          env=installed["env"], capture_output=True, text=True, timeout=120)
    assert page.returncode == 0, page.stderr
    assert Path(page.stdout.strip()) == installed["ours"] / "docs" / "cli.md"
    assert Path(page.stdout.strip()).read_bytes() == (REPO / "docs" / "cli.md").read_bytes()


def test_the_installed_plugin_runs_the_whole_way_touching_nothing_of_the_tree_and_writing_only_potatos_folders(
        installed, page):
    """plugins, init, validate --strict, start, a page, a value saved: audited end to end."""
    work, bin_folder = installed["work"], installed["venv"] / "bin"
    shutil.copyfile(REPO / "examples" / "tutorial" / "autogen-runs.json", work / "autogen-runs.json")
    task = work / "task"
    logs = []

    listed, log = run(installed, [str(bin_folder / "potato"), "plugins", "multiagent"], work, "plugins")
    logs.append(log)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert f"multiagent: potato-multiagent {source_version()}" in listed.stdout
    assert "display types:    multiagent.trace" in listed.stdout
    for name in types.SCHEMES:
        assert name in listed.stdout

    made, log = run(installed, [str(bin_folder / "potato-multiagent"), "init", "--from", "autogen", "autogen-runs.json",
                                "-o", "task"], work, "init")
    logs.append(log)
    assert made.returncode == 0, made.stdout + made.stderr
    assert made.stdout.splitlines()[-1] == "next: cd task && potato start config.yaml"

    valid, log = run(installed, [str(bin_folder / "potato"), "validate", "--strict", "config.yaml"], task, "validate")
    logs.append(log)
    assert valid.returncode == 0, valid.stdout + valid.stderr

    log = work / "start.strace"
    logs.append(log)
    port = free_port()
    with open(work / "potato.log", "wb") as server_log:
        server = subprocess.Popen(audit.traced([str(bin_folder / "potato"), "start", "config.yaml", "-p", str(port),
                                                "--host", "127.0.0.1"], log),
                                  cwd=task, env=installed["env"], stdin=subprocess.DEVNULL, stdout=server_log,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    try:
        base_url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180   # under strace, Potato's imports take a while
        while not _health_ok(base_url):
            assert server.poll() is None, (work / "potato.log").read_text(errors="replace")
            assert time.monotonic() < deadline, (work / "potato.log").read_text(errors="replace")
            time.sleep(0.5)
        user = f"wheel-{uuid.uuid4().hex[:8]}"
        login(page, base_url, user)
        assert page.locator("section.ma-trace").count() == 1
        page.locator('form[data-schema-name="outcome"] input[type="radio"][value="failure"]').check()
        attribution = page.locator('form.annotation-form[data-schema-name="attribution"]')
        expect(attribution).to_have_attribute("data-ma-ready", "true")
        attribution.get_by_label("Responsible agent").select_option(label="booker")

        class Server:   # what harness.wait_saved reads
            task_dir = task

            def saved(self, name):
                path = task / "annotation_output" / name / "user_state.json"
                if not path.exists():
                    return {}
                state = json.loads(path.read_text(encoding="utf-8"))
                return {instance: {label["schema"]: value for label, value in pairs}
                        for instance, pairs in state.get("instance_id_to_label_to_value", {}).items()}

        saved = wait_saved(Server(), user, "trip-berlin", "attribution",
                           lambda value: value is not None and json.loads(value).get("responsible_agent") == "booker",
                           timeout=30)
        assert json.loads(saved) == {"responsible_agent": "booker", "decisive_step": None, "reason": ""}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)

    allowed = [task, installed["potato"], "/dev", "/proc"]
    for log in logs:
        touches = audit.touched(log.read_text(encoding="utf-8", errors="replace"), cwd=str(work))
        assert touches, f"{log.name}: strace saw no file at all"
        assert not audit.under(touches, str(REPO)), \
            f"{log.name} touched the source tree:\n" + "\n".join(map(str, audit.under(touches, str(REPO))[:20]))
        written = audit.outside(touches, allowed)
        assert not written, f"{log.name} wrote outside {allowed}:\n" + "\n".join(map(str, written[:40]))
    assert not installed["home"].exists() or not any(installed["home"].iterdir())
    assert not any(installed["tmp"].iterdir())
