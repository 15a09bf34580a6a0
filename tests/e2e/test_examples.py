"""Every example task validates with Potato and opens with every widget rendered, no error card.

An example is any folder under examples/ with a config.yaml; each is served from a private copy by
a real `potato start`, and its first instance is opened in Chromium like an annotator would.
"""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest
import yaml

from .harness import EXAMPLES_DIR, login, potato_command

EXAMPLE_CONFIGS = sorted(EXAMPLES_DIR.rglob("config.yaml"))
READY_FORMS = 'form.multiagent-form[data-ma-ready="true"]'


def example_id(config: Path) -> str:
    return config.parent.relative_to(EXAMPLES_DIR).as_posix()


def our_schemes(config: Path) -> list[dict]:
    schemes = yaml.safe_load(config.read_text(encoding="utf-8"))["annotation_schemes"]
    return [scheme for scheme in schemes if str(scheme["annotation_type"]).startswith("multiagent.")]


def shown_only_on_failure(config: Path) -> list[str]:
    """Radio schemes whose 'failure' answer reveals one of our schemes (display_logic)."""
    triggers = []
    for scheme in our_schemes(config):
        for condition in (scheme.get("display_logic") or {}).get("show_when", []):
            if condition.get("value") == "failure" and condition["schema"] not in triggers:
                triggers.append(condition["schema"])
    return triggers


def test_every_example_folder_is_found():
    assert {"team-evaluation", "failure-attribution", "tool-contention"} <= {example_id(c) for c in EXAMPLE_CONFIGS}


def test_every_example_carries_a_secret_key_of_its_own():
    """Potato signs session cookies with it: without one a restart signs every annotator out; two
    examples served side by side on one host (one cookie jar) must not accept each other's cookies."""
    keys = {example_id(c): yaml.safe_load(c.read_text(encoding="utf-8")).get("secret_key") for c in EXAMPLE_CONFIGS}
    assert all(isinstance(key, str) and len(key) == 64 for key in keys.values()), keys
    assert len(set(keys.values())) == len(keys)


@pytest.mark.parametrize("config", EXAMPLE_CONFIGS, ids=example_id)
def test_example_passes_potato_validate_strict(config):
    result = subprocess.run([*potato_command(), "validate", "--strict", config.name], cwd=config.parent,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("config", EXAMPLE_CONFIGS, ids=example_id)
def test_example_renders_every_widget_without_an_error_card(config, potato_task, page):
    task = potato_task(config.parent, shared=True)
    login(page, task.base_url, f"viewer-{uuid.uuid4().hex[:8]}")
    for radio in shown_only_on_failure(config):
        page.locator(f'form[data-schema-name="{radio}"] input[type="radio"][value="failure"]').check()
    expected = len(our_schemes(config))
    page.wait_for_function(f"document.querySelectorAll('{READY_FORMS}').length === {expected}", timeout=15_000)
    assert page.locator(".multiagent-error").count() == 0
    assert page.locator("[data-ma-error]").count() == 0
    assert expected > 0
