#!/usr/bin/env bash
# Regenerate every screenshot in docs/screenshots/ from the real page (potato start + Chromium):
# each type on its example, each trace layout on real Who&When and MAD runs, the trace view's own.
set -euo pipefail
cd "$(dirname "$0")/.."
POTATO_MA_SCREENSHOTS=1 .venv/bin/python -m pytest -p no:xdist -q \
    tests/e2e/test_screenshots.py "tests/e2e/test_trace_view.py::test_screenshots_of_the_three_layouts" "$@"
