"""The browser of the end-to-end tests (Debian's chromium-headless-shell, patient waits) for the
installed wheel's page."""

from tests.e2e.conftest import browser_type_launch_args, context  # noqa: F401  (fixtures)
