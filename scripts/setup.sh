#!/usr/bin/env bash
# Prepare a machine to run the example and the tests. Safe to run again: every step checks first.
#
#   .venv                  python3.11 (or python3) venv, created when missing or broken
#   pip install -e .[test] skipped while pyproject.toml is unchanged since the last install
#   /usr/bin/chromium      Debian's chromium and chromium-headless-shell from apt, only when missing
#   /usr/bin/chromium-headless-shell  (the e2e tests drive the shell, the bench the full browser;
#                          `playwright install` is never used)
#   node_modules          npm ci, when missing or package-lock.json changed: esbuild (builds the
#                          browser bundle), axe-core (the accessibility e2e test injects it)
#   /usr/bin/strace        from apt, only when missing (tests/package audits what the installed
#                          plugin reads and writes)
#
# Quiet when nothing needs doing; any failing step stops the script with a message naming it.
set -Eeuo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"
VENV="$REPO_ROOT/.venv"
STAMP="$VENV/.potato-multiagent-installed"

say() { echo "setup: $*" >&2; }
die() { echo "setup: ERROR: $*" >&2; exit 1; }
trap 'echo "setup: ERROR: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

as_root() {
    # apt needs root; use sudo only when we are not root already.
    if [ "$(id -u)" -eq 0 ]; then
        env DEBIAN_FRONTEND=noninteractive "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo env DEBIAN_FRONTEND=noninteractive "$@"
    else
        die "need root or sudo to run: $*"
    fi
}

apt_install() {
    command -v apt-get >/dev/null 2>&1 || return 1
    as_root apt-get update -qq
    as_root apt-get install -y -qq "$@" >/dev/null
}

venv_works() {
    [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -m pip --version >/dev/null 2>&1
}

ensure_venv() {
    venv_works && return 0
    local python
    python="$(command -v python3.11 || command -v python3 || true)"
    [ -n "$python" ] || die "no python3.11 or python3 on PATH"
    say "creating .venv with $python"
    if ! "$python" -m venv --clear "$VENV" >/dev/null 2>&1; then
        # Debian's python ships venv's ensurepip separately.
        local version
        version="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
        say "python -m venv failed; installing python${version}-venv with apt"
        apt_install "python${version}-venv" || die "cannot create a venv with $python"
        "$python" -m venv --clear "$VENV"
    fi
    venv_works || die ".venv was created but has no working pip"
}

install_fingerprint() {
    # Reinstall when the project's metadata (dependencies, entry points) or the interpreter changes.
    { sha256sum pyproject.toml; "$VENV/bin/python" --version; } | sha256sum | cut -d' ' -f1
}

ensure_package() {
    local wanted
    wanted="$(install_fingerprint)"
    if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$wanted" ] \
        && "$VENV/bin/python" -c 'import importlib.metadata as m; m.version("potato-multiagent")' 2>/dev/null; then
        return 0
    fi
    say "pip install -e '.[test]'"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[test]'
    echo "$wanted" > "$STAMP"
}

ensure_chromium() {
    # chromium: the bench's browser; chromium-headless-shell: the tests' (it saves about a third of the suite's CPU)
    [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromium-headless-shell ] && return 0
    say "installing Debian chromium and chromium-headless-shell with apt"
    if ! apt_install chromium chromium-headless-shell; then
        if [ "${CI:-}" = "true" ]; then
            die "/usr/bin/chromium or /usr/bin/chromium-headless-shell is missing and apt-get is not available"
        fi
        say "WARNING: apt-get is not available; browser tests will be skipped"
        return 0
    fi
    for browser in /usr/bin/chromium /usr/bin/chromium-headless-shell; do
        [ -x "$browser" ] || die "apt installed chromium but $browser is missing"
    done
}

ensure_strace() {
    command -v strace >/dev/null 2>&1 && return 0
    say "installing strace with apt"
    if ! apt_install strace; then
        [ "${CI:-}" = "true" ] && die "strace is missing and apt-get is not available"
        say "WARNING: apt-get is not available; tests/package's end-to-end audit will be skipped"
    fi
}

ensure_node_modules() {
    # esbuild builds the browser bundle (a server started from this checkout needs it), axe-core is
    # injected by the accessibility tests; npm ci again whenever package-lock.json changed
    if [ -f node_modules/esbuild/package.json ] && [ -f node_modules/axe-core/axe.min.js ] \
        && [ -e node_modules/potato-multiagent ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || die "npm is missing: install Node.js 20 or later (esbuild builds the browser bundle)"
    say "npm ci (esbuild for the browser bundle, axe-core for the accessibility tests)"
    npm ci --silent --no-audit --no-fund >/dev/null
}

ensure_venv
ensure_package
ensure_chromium
ensure_strace
ensure_node_modules
if [ "${POTATO_MA_PHOENIX:-}" = "1" ]; then
    bash scripts/setup-phoenix.sh  # the real Phoenix of tests/e2e/test_phoenix.py (optional: about 2 minutes)
fi
