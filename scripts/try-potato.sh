#!/usr/bin/env bash
# Run the suite against another Potato release than the one pyproject.toml allows, before raising
# the bound (docs/releasing.md):
#
#   bash scripts/try-potato.sh 2.13.0 [pytest arguments]
#
#   .venv-potato-VERSION   python3.11 venv: that Potato release, our other dependencies and test
#                          extras as pyproject.toml declares them, and the package (editable,
#                          installed without its dependencies, so the bound does not stop it)
#
# Then runs scripts/test.sh with that venv's Python (node's tests and pytest; not the lowest-versions
# run, which is about our floors, nor tests/package, whose installed wheel takes the declared Potato).
set -Eeuo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"
trap 'echo "try-potato: ERROR: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

[ "$#" -ge 1 ] || { echo "usage: bash scripts/try-potato.sh POTATO_VERSION [pytest arguments]" >&2; exit 2; }
VERSION="$1"
shift
VENV="$REPO_ROOT/.venv-potato-$VERSION"

bash scripts/setup.sh   # the .venv whose Python reads pyproject.toml below, and the browsers
if ! [ -x "$VENV/bin/python" ]; then
    echo "try-potato: creating $VENV with potato-annotation==$VERSION" >&2
    "$REPO_ROOT/.venv/bin/python" -m venv "$VENV"
    "$REPO_ROOT/.venv/bin/python" - "$REPO_ROOT/pyproject.toml" "$VERSION" > "$VENV/requirements.txt" <<'PY'
import re, sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
extras = project["optional-dependencies"]
wanted = project["dependencies"] + extras["parquet"] + [r for r in extras["test"] if not r.startswith("potato-multiagent")]
for requirement in wanted:
    name = re.match(r"[A-Za-z0-9_.-]+", requirement).group(0)
    print(f"potato-annotation=={sys.argv[2]}" if name == "potato-annotation" else requirement)
PY
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$VENV/requirements.txt"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e .
fi
"$VENV/bin/python" -c 'from importlib.metadata import version; print("try-potato: Potato", version("potato-annotation"))'

POTATO_MA_PYTHON="$VENV/bin/python" bash scripts/test.sh --ignore=tests/package "$@"
