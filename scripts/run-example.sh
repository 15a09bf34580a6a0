#!/usr/bin/env bash
# Serve one of the examples with Potato: bash scripts/run-example.sh [EXAMPLE] [PORT]
#   EXAMPLE  a folder under examples/ (default: team-evaluation, all seven types on one page)
#   PORT     default 8000; the server listens on 127.0.0.1 only
# Log in with any user name (the examples need no password). Stop with Ctrl-C.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"
EXAMPLE="${1:-team-evaluation}"
PORT="${2:-8000}"
EXAMPLE_DIR="$REPO_ROOT/examples/$EXAMPLE"

if [ ! -f "$EXAMPLE_DIR/config.yaml" ]; then
    echo "run-example: no examples/$EXAMPLE/config.yaml; available:" \
        "$(cd examples && ls -d */ 2>/dev/null | tr -d / | tr '\n' ' ')" >&2
    exit 1
fi

bash scripts/setup.sh

# Potato treats the working directory as the project directory: start it from the example's folder.
cd "$EXAMPLE_DIR"
echo "Serving examples/$EXAMPLE on http://127.0.0.1:$PORT  (log in with any user name; Ctrl-C stops)"
exec "$REPO_ROOT/.venv/bin/potato" start config.yaml -p "$PORT" --host 127.0.0.1
