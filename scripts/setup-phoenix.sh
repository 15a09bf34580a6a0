#!/usr/bin/env bash
# The Phoenix venv the Phoenix round-trip test runs a real `phoenix serve` from (tests/e2e/test_phoenix.py).
#
#   .venv-phoenix          python3 venv with arize-phoenix (pinned below): about 860 MB, 1.5-2 minutes
#                          from PyPI; it also brings the OpenTelemetry SDK and OTLP exporter that
#                          tests/e2e/phoenix/send_run.py sends the run with
#
# Kept apart from .venv: Phoenix is no dependency of potato-multiagent, at run time or in its tests.
# Safe to run again: nothing happens when the pinned version is installed. scripts/setup.sh runs it
# when POTATO_MA_PHOENIX=1 (CI); the test runs it itself when the venv is missing.
set -Eeuo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="${POTATO_MA_PHOENIX_VENV:-$(pwd)/.venv-phoenix}"
PHOENIX_VERSION="20.26.1"

if [ -x "$VENV/bin/phoenix" ] && "$VENV/bin/python" -c \
    "import importlib.metadata as m, sys; sys.exit(m.version('arize-phoenix') != '$PHOENIX_VERSION')" 2>/dev/null; then
    exit 0
fi
python="$(command -v python3.11 || command -v python3)"
echo "setup-phoenix: installing arize-phoenix==$PHOENIX_VERSION into $VENV" >&2
"$python" -m venv --clear "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "arize-phoenix==$PHOENIX_VERSION"
