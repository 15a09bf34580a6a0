"""The real-data tests read traces nobody on this project wrote (`../shared/corpus`, see its
README). Where they are is `POTATO_MA_CORPUS`, else `<repo>/../shared/corpus`. Without them the
tests skip and say why, except under `CI=true`, where a missing corpus is a failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CORPUS = REPO_ROOT.parent / "shared" / "corpus"


def corpus_location() -> tuple[Path, str]:
    """The corpus folder and where that choice came from (for the message when it is missing)."""
    from_env = os.environ.get("POTATO_MA_CORPUS")
    if from_env:
        return Path(from_env), "POTATO_MA_CORPUS"
    return DEFAULT_CORPUS, "the default <repo>/../shared/corpus (POTATO_MA_CORPUS is unset)"


@pytest.fixture(scope="session")
def corpus() -> Path:
    """`pathlib.Path` of the real-data corpus."""
    path, source = corpus_location()
    if path.is_dir():
        return path.resolve()
    message = f"real-data corpus not found at {path} (from {source}); set POTATO_MA_CORPUS to its folder"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)
