"""Bad configs for every type (issue 8; SPEC §6): wrong types, zero or negative scales, duplicate
labels, empty lists and unknown keys.

`potato-multiagent check` names the key and the problem (pydantic's message) and exits 1, the page
shows an error card naming them where the widget would be, `potato validate --strict` still
flags unknown keys, and nothing anywhere shows a traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from potato_multiagent.cli import main
from potato_multiagent.types import SCHEMES

from .harness import login, potato_command
from .hostile import CONFIG_FILE, HERE, task_config, task_files

# (type, key, bad value, words of the problem)
BAD = [
    ("multiagent.failure_attribution", "agents", "Planner", "should be a list or null, got"),
    ("multiagent.failure_attribution", "agents", ["Planner", "Planner"], "is listed twice"),
    ("multiagent.failure_attribution", "steps_key", "", "at least 1 character(s)"),
    ("multiagent.agent_interaction_graph", "steps_key", 3, "should be a text, got 3"),
    ("multiagent.agent_interaction_graph", "agent_qualifiers", "yes", "should be true or false"),
    ("multiagent.handoff_review", "quality_scale", 0, "should be at least 2"),
    ("multiagent.handoff_review", "quality_scale", -3, "should be at least 2"),
    ("multiagent.handoff_review", "flags", [], "at least 1 item(s)"),
    ("multiagent.handoff_review", "flags", ["late", "late"], "listed twice"),
    ("multiagent.agent_scorecard", "scale", 0, "should be at least 2"),
    ("multiagent.agent_scorecard", "scale", -1, "should be at least 2"),
    ("multiagent.agent_scorecard", "agent_dimensions", [], "at least 1 item(s)"),
    ("multiagent.agent_scorecard", "team_dimensions", ["speed", "speed"], "speed"),
    ("multiagent.agent_scorecard", "milestones", "plan agreed", "should be a list, got"),
    ("multiagent.tool_contention", "contention_labels", [], "at least 1 item(s)"),
    ("multiagent.tool_contention", "contention_labels", ["deadlock", "deadlock"], "is listed twice"),
    ("multiagent.tool_contention", "allow_note", "no", "should be true or false"),
    ("multiagent.emergent_behavior", "behaviors", [], "at least 1 item(s)"),
    ("multiagent.emergent_behavior", "behaviors", ["groupthink", "groupthink"], "is listed twice"),
    ("multiagent.emergent_behavior", "allow_note", 1, "should be true or false"),
    ("multiagent.tool_call_review", "verdict_options", [], "at least 1 item(s)"),
    ("multiagent.tool_call_review", "verdict_options", ["correct", "correct"], "is listed twice"),
    ("multiagent.tool_call_review", "multi_verdict", "yes", "should be true or false"),
]
CASE_IDS = [f"{type_name.split('.')[1]}-{key}-{json.dumps(value)}" for type_name, key, value, _ in BAD]


def bad_scheme(type_name: str, key: str, value, name: str = "bad") -> dict:
    return {"annotation_type": type_name, "name": name, "description": "A badly configured question", key: value}


def write_task(folder, schemes: list[dict]):
    """A task folder on disk (config + data) the way Potato and `check` read it."""
    for relative, text in task_files(task_config("bad configs", schemes)).items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder / CONFIG_FILE


@pytest.mark.parametrize(("type_name", "key", "value", "words"), BAD, ids=CASE_IDS)
def test_check_names_the_key_and_the_problem_and_exits_1(tmp_path, capsys, type_name, key, value, words):
    config = write_task(tmp_path, [bad_scheme(type_name, key, value)])
    code = main(["check", str(config)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert any(line.startswith(f"config / bad: {key}:") and words in line for line in lines), lines


@pytest.mark.parametrize(("type_name", "key", "value", "words"), BAD, ids=CASE_IDS)
def test_the_generator_renders_an_error_card_naming_the_key(type_name, key, value, words):
    html, _ = SCHEMES[type_name].render(bad_scheme(type_name, key, value))
    assert 'class="annotation-error multiagent-error"' in html and "annotation-input" not in html
    assert f"<li>{key}:" in html and words in html
    assert "Traceback" not in html


def one_bad_scheme_per_type() -> list[dict]:
    seen, schemes = set(), []
    for type_name, key, value, _ in BAD:
        if type_name not in seen:
            seen.add(type_name)
            schemes.append(bad_scheme(type_name, key, value, name=f"bad_{type_name.split('.')[1]}"))
    return schemes


def test_the_check_command_reports_every_bad_scheme_without_a_traceback(tmp_path):
    schemes = one_bad_scheme_per_type()
    config = write_task(tmp_path, schemes)
    command = Path(sys.executable).with_name("potato-multiagent")
    result = subprocess.run([str(command), "check", str(config)],
                            capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "Traceback" not in output
    for scheme in schemes:
        key = next(k for k in scheme if k not in ("annotation_type", "name", "description"))
        assert f"config / {scheme['name']}: {key}:" in output


def test_potato_validate_strict_still_flags_an_unknown_key(tmp_path):
    scheme = {"annotation_type": "multiagent.handoff_review", "name": "handoffs", "description": "d",
              "flagz": ["late"]}
    config = write_task(tmp_path, [scheme])
    result = subprocess.run([*potato_command(), "validate", "--strict", config.name], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "flagz" in output, output
    assert "Traceback" not in output


@pytest.fixture(scope="module")
def task(potato_task):
    config = task_config("bad configs", one_bad_scheme_per_type())
    return potato_task(HERE, config=CONFIG_FILE, files=task_files(config))


@pytest.mark.e2e
def test_the_page_shows_an_error_card_per_bad_scheme_and_no_traceback(task, page):
    login(page, task.base_url, "bad-config-reader")
    for scheme in one_bad_scheme_per_type():
        key = next(k for k in scheme if k not in ("annotation_type", "name", "description"))
        card = page.locator(f'.multiagent-error[data-schema-name="{scheme["name"]}"]')
        expect(card).to_be_visible()
        expect(card).to_contain_text(scheme["name"])
        expect(card.locator("li")).to_contain_text(f"{key}:")
    assert "Traceback" not in page.content()
    assert page.locator("form.multiagent-form").count() == 0

