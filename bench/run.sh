#!/usr/bin/env bash
# The benchmark's entry command: set the machine up (scripts/setup.sh: the venv with the package,
# Debian's Chromium), then run `python -m bench` with the given arguments. Installs nothing else.
#
#   bash bench/run.sh            # the full run: writes bench/RESULTS.md and bench/RESULTS.json
#   bash bench/run.sh --quick    # a smoke run on tiny inputs
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
command -v node >/dev/null 2>&1 || { echo "bench: ERROR: node is not on PATH (derive.js is timed under node)" >&2; exit 1; }
exec .venv/bin/python -m bench "$@"
