"""The benchmark: our widgets against Potato's built-ins on the same records (see README.md)."""

import sys


def log(message: str) -> None:
    """A progress line on stderr (a full run takes minutes)."""
    print(f"bench: {message}", file=sys.stderr, flush=True)
