#!/usr/bin/env bash
# Set up, then run every test: the JavaScript conformance suite (node --test), the whole pytest
# suite (unit, conformance, real data, e2e, and tests/package: the sdist and wheel built, checked,
# and the wheel installed outside the tree and run end to end), then the unit tests on the lowest
# versions allowed (scripts/lowest.sh). Extra arguments go to the main pytest run.
# POTATO_MA_PYTHON runs pytest with another venv's Python and skips the lowest-versions run
# (scripts/try-potato.sh: the suite on another Potato release).
# pytest runs in parallel (pytest-xdist, one module per worker: `--dist loadscope` keeps a module's
# server and fixtures on one worker). Workers: PYTEST_WORKERS if set, else one more than the CPU
# count (the e2e tests wait on servers and browsers half the time), fewer when memory is short
# (a worker with its server and Chromium needs about 1.5 GB). Pass -n yourself to override.
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

# Python's bytecode caches are written, whatever the environment says: otherwise every `potato
# start`, `potato validate` and CLI run of the suite (about 170 processes) compiles our package
# again, and each pytest worker rewrites every test module's asserts again (tests/README.md).
unset PYTHONDONTWRITEBYTECODE

command -v node >/dev/null 2>&1 || { echo "test: ERROR: node is not on PATH (Node 20 runs tests/conformance/*.test.js)" >&2; exit 1; }
# the node tests require() the ES modules of the page: Node 20.19 or later does that
node -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 20 || (major === 20 && minor >= 19) ? 0 : 1)' \
    || { echo "test: ERROR: node $(node --version) is too old: the tests need Node 20.19 or later (require of ES modules)" >&2; exit 1; }

failed=()

echo "== node --test tests/conformance/ tests/js/  (one dot per test; failures are listed in full)"
node --test --test-reporter=dot tests/conformance/ tests/js/ || failed+=("node --test")
echo

pytest_workers() {
    local cpus available_gb by_memory workers
    cpus="$(nproc)"
    available_gb="$(awk '/MemAvailable/ {print int($2 / 1048576)}' /proc/meminfo)"
    by_memory=$(( available_gb * 2 / 3 ))
    workers=$(( cpus + 1 ))
    [ "$by_memory" -lt "$workers" ] && workers="$by_memory"
    [ "$workers" -lt 1 ] && workers=1
    echo "$workers"
}

parallel=()
case " $* " in
    *" -n "*|*" -n="*|*" --numprocesses"*|*" -p no:xdist "*) ;;
    *) parallel=(-n "${PYTEST_WORKERS:-$(pytest_workers)}" --dist loadscope) ;;
esac

# pytest's own summary of failures scrolls away under the lowest-versions run, and CI keeps only the
# end of what was printed: the failures are kept aside and said again last.
pytest_log="$(mktemp)"
trap 'rm -f "$pytest_log"' EXIT
echo "== python -m pytest ${parallel[*]} $*"
"${POTATO_MA_PYTHON:-$REPO_ROOT/.venv/bin/python}" -m pytest "${parallel[@]}" "$@" 2>&1 | tee "$pytest_log" || failed+=("pytest")

if [ -z "${POTATO_MA_PYTHON:-}" ]; then
    bash scripts/lowest.sh || failed+=("lowest versions")
fi

if [ "${#failed[@]}" -gt 0 ]; then
    grep -E '^(FAILED|ERROR) ' "$pytest_log" | sed 's/^/test: pytest: /' >&2 || true
    echo "test: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "test: all runners passed"
