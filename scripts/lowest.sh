#!/usr/bin/env bash
# The unit tests on the lowest versions pyproject.toml allows: the lowest Python it supports and
# every runtime dependency (and the parquet extra) at its floor, in .venv-lowest. scripts/test.sh
# runs it, so CI does: a floor the code has outgrown fails here, not on a user's machine.
#
#   .venv-lowest   LOWEST_PYTHON's venv: pip install -e '.[test]' with each floor pinned (==) by a
#                  constraints file made from pyproject.toml; the test tools themselves are the
#                  newest. Reinstalled only when pyproject.toml changes.
#
# Extra arguments go to pytest (default: the unit tests, in two workers).
set -Eeuo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"
LOWEST_PYTHON="3.10"
VENV="$REPO_ROOT/.venv-lowest"
STAMP="$VENV/.potato-multiagent-lowest"

say() { echo "lowest: $*" >&2; }
trap 'echo "lowest: ERROR: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

find_python() {
    # python3.10 on PATH (a pyenv shim on PATH may exist yet not run it), else one pyenv built
    local candidate
    for candidate in "$(command -v "python$LOWEST_PYTHON" || true)" \
                     "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$LOWEST_PYTHON".*/bin/"python$LOWEST_PYTHON"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] || continue
        if [ "$("$candidate" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$LOWEST_PYTHON" ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

if ! PYTHON="$(find_python)"; then
    if [ "${CI:-}" = "true" ]; then
        say "ERROR: python$LOWEST_PYTHON is not installed (on PATH or built by pyenv); the classifiers claim it"
        exit 1
    fi
    say "WARNING: python$LOWEST_PYTHON is not installed; the lowest-versions run is skipped"
    exit 0
fi

# The floors as pins: name>=X becomes name==X, for the dependencies and the parquet extra.
constraints() {
    "$REPO_ROOT/.venv/bin/python" - "$REPO_ROOT/pyproject.toml" <<'PY'
import re, sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
for requirement in project["dependencies"] + project["optional-dependencies"]["parquet"]:
    floor = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9.]*)(,.*)?", requirement)
    if not floor:
        sys.exit(f"lowest: {requirement!r} has no floor (name>=version)")
    print(f"{floor.group(1)}=={floor.group(2)}")
PY
}

wanted="$({ sha256sum pyproject.toml; "$PYTHON" --version; } | sha256sum | cut -d' ' -f1)"
if ! [ -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$wanted" ] || ! [ -x "$VENV/bin/python" ]; then
    say "creating .venv-lowest with $PYTHON, every floor pinned"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    constraints > "$VENV/floors.txt"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        -c "$VENV/floors.txt" -e '.[test]'
    echo "$wanted" > "$STAMP"
fi

# What is installed is the floors, not a newer release a constraint let through.
"$VENV/bin/python" - "$VENV/floors.txt" <<'PY'
import sys
from importlib.metadata import version
from packaging.requirements import Requirement
wrong = []
for line in open(sys.argv[1]):
    pin = Requirement(line.strip())
    installed = version(pin.name)
    if not pin.specifier.contains(installed):
        wrong.append(f"{pin.name} {installed} (floor {pin.specifier})")
if wrong:
    sys.exit("lowest: not at the floor: " + ", ".join(wrong))
print("lowest: python %d.%d.%d;" % sys.version_info[:3], ", ".join(line.strip() for line in open(sys.argv[1])))
PY

unset PYTHONDONTWRITEBYTECODE
if [ "$#" -eq 0 ]; then
    set -- tests/unit -n 2 --dist loadscope -q
fi
echo "== lowest versions: python -m pytest $*"
"$VENV/bin/python" -m pytest "$@"
