"""The build steps setuptools runs beside its own (pyproject.toml holds all the metadata).

A wheel gets two things built here, so that an installed package writes nothing when it runs:
- ``potato_multiagent/bundle/``: the browser bundle (``bundling.build``, the one build step of the
  browser half), which the plugin serves as it is (served.py);
- ``potato_multiagent/docs/``: the documentation (``docs/`` of the source tree), which
  ``potato-multiagent docs`` and the CLI's messages point at.

An editable install (``pip install -e .``) gets neither: a source checkout builds its bundle when
the plugin loads and reads ``docs/`` where it is.
"""

import importlib.util
import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SOURCE = Path(__file__).resolve().parent


def load_bundling(package: Path):
    """``bundling.py`` of the package being built, loaded by its path: it needs nothing installed.
    Loaded without writing its bytecode, which would land in the wheel (``__pycache__``)."""
    spec = importlib.util.spec_from_file_location("potato_multiagent_bundling", package / "bundling.py")
    module = importlib.util.module_from_spec(spec)
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writes
    return module


def build_bundle(package: Path) -> None:
    bundling = load_bundling(package)
    shutil.rmtree(package / bundling.SHIPPED, ignore_errors=True)   # a build folder left from before
    bundle = bundling.build(package)
    print(f"built the browser bundle: {bundle.folder.name}/{bundle.script}, {bundle.style}")


def copy_docs(package: Path) -> None:
    docs = SOURCE / "docs"
    if not (docs / "index.md").is_file():
        raise FileNotFoundError(f"{docs}: the documentation is missing from the source tree (docs/index.md)")
    target = package / "docs"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(docs, target, ignore=shutil.ignore_patterns(".*"))


class BuildWithBundle(build_py):
    """setuptools' build_py, then the bundle and the docs into the package it built."""

    def run(self):
        super().run()
        if self.editable_mode:
            return
        package = Path(self.build_lib) / "potato_multiagent"
        build_bundle(package)
        copy_docs(package)


setup(cmdclass={"build_py": BuildWithBundle})
