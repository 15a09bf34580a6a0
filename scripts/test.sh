#!/usr/bin/env bash
# Set up, then run every test: the JavaScript conformance suite (node --test) and the whole pytest
# suite (unit, conformance, real data, e2e). Extra arguments go to pytest.
# Both runners always run; the exit status is non-zero if either failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"

bash scripts/setup.sh

# The real-data tests read ../shared/corpus unless told otherwise.
if [ -z "${POTATO_MA_CORPUS:-}" ] && [ -d "$REPO_ROOT/../shared/corpus" ]; then
    POTATO_MA_CORPUS="$(cd "$REPO_ROOT/../shared/corpus" && pwd)"
    export POTATO_MA_CORPUS
fi

command -v node >/dev/null 2>&1 || { echo "test: ERROR: node is not on PATH (Node 20 runs tests/conformance/*.test.js)" >&2; exit 1; }

failed=()

echo "== node --test tests/conformance/ tests/js/  (one dot per test; failures are listed in full)"
node --test --test-reporter=dot tests/conformance/ tests/js/ || failed+=("node --test")
echo

echo "== python -m pytest $*"
"$REPO_ROOT/.venv/bin/python" -m pytest "$@" || failed+=("pytest")

if [ "${#failed[@]}" -gt 0 ]; then
    echo "test: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "test: all runners passed"
