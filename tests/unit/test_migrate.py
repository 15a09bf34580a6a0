"""migrate-config: built-in multi-agent types to ours, every other line and comment kept."""

import subprocess
import sys

import pytest
import yaml

from potato_multiagent.migrate import BUILT_IN_TYPES, migrate_config_text

# Shaped like Potato's own examples/agent-traces configs (written here, not copied).
BUILT_IN_CONFIG = """\
# Agent interaction graph, as Potato's examples write it
annotation_task_name: "Built-in {kind}"
data_files:
  - data/traces.json
item_properties:
  id_key: id
  text_key: task
task_dir: .
output_annotation_dir: annotation_output
output_annotation_format: json
instance_display:
  fields:
    - key: steps
      type: agent_trace
      label: "Agent Interactions"
      display_options: {{show_turn_numbers: true, speaker_key: agent, text_key: content}}
annotation_schemes:
  - annotation_type: {kind}   # the built-in
    name: review
    description: "Review the run."
    steps_key: steps
"""


def built_in(kind="handoff_review"):
    return BUILT_IN_CONFIG.format(kind=kind)


def test_renames_the_type_and_keeps_every_other_line():
    before = built_in()
    after = migrate_config_text(before).text
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert changed == [
        ("output_annotation_format: json", "export_annotation_format: jsonl"),
        ('      display_options: {show_turn_numbers: true, speaker_key: agent, text_key: content}',
         '      display_options: {show_step_numbers: false, speaker_key: agent, text_key: content}'),
        ("  - annotation_type: handoff_review   # the built-in",
         "  - annotation_type: multiagent.handoff_review   # the built-in"),
    ]
    assert after.endswith("    steps_key: steps\nplugins:\n  - multiagent\n")


@pytest.mark.parametrize("kind", BUILT_IN_TYPES)
def test_every_built_in_type_is_renamed(kind):
    assert f"annotation_type: multiagent.{kind}" in migrate_config_text(built_in(kind)).text


def test_agent_trace_step_numbers_are_turned_off_and_other_displays_keep_theirs():
    text = """instance_display:
  fields:
    - key: talk
      type: dialogue
      display_options:
        show_turn_numbers: true
    - key: steps
      display_options:
        show_step_numbers: true   # before the type
      type: agent_trace
    - {key: more, type: agent_trace, display_options: {show_step_numbers: True, text_key: content}}
    - {key: cot, type: cot_trace, display_options: {show_step_numbers: true}}
annotation_schemes:
  - annotation_type: handoff_review
"""
    migration = migrate_config_text(text)
    fields = yaml.safe_load(migration.text)["instance_display"]["fields"]
    assert [field["display_options"] for field in fields] == [
        {"show_turn_numbers": True}, {"show_step_numbers": False},
        {"show_step_numbers": False, "text_key": "content"}, {"show_step_numbers": True}]
    assert "   # before the type" in migration.text
    assert sum("agent_trace show_step_numbers -> false" in change for change in migration.changes) == 2
    assert migrate_config_text("annotation_schemes:\n  - annotation_type: radio\n" + text.split("annotation_schemes:")[0]
                               ).changes == []  # without our types nothing is touched


def test_is_idempotent():
    once = migrate_config_text(built_in()).text
    twice = migrate_config_text(once)
    assert twice.text == once and twice.changes == []


@pytest.mark.parametrize("plugins, expected", [
    ("plugins: [other]\n", "plugins: [other, multiagent]\n"),
    ("plugins: []  # none yet\n", "plugins: [multiagent]  # none yet\n"),
    ("plugins:\n    - other\n", "plugins:\n    - other\n    - multiagent\n"),
    ("plugins: [multiagent]\n", "plugins: [multiagent]\n"),
])
def test_joins_an_existing_plugins_list(plugins, expected):
    after = migrate_config_text(plugins + built_in()).text
    assert after.startswith(expected)
    assert yaml.safe_load(after)["plugins"].count("multiagent") == 1


def test_leaves_configs_without_multi_agent_types_alone():
    text = "annotation_schemes:\n  - annotation_type: radio  # agent_scorecard in a comment\n"
    assert migrate_config_text(text).text == text


def test_quoted_types_and_windows_newlines():
    after = migrate_config_text("annotation_schemes:\r\n  - annotation_type: 'tool_call_review'\r\n").text
    assert "annotation_type: 'multiagent.tool_call_review'\r\n" in after


def test_a_migrated_config_passes_potato_validate_strict(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "traces.json").write_text('[{"id": "t1", "task": "x", "steps": [{"agent": "A"}]}]')
    (tmp_path / "config.yaml").write_text(migrate_config_text(built_in("failure_attribution")).text)
    potato = [sys.executable, "-m", "potato", "validate", "--strict", "config.yaml"]
    result = subprocess.run(potato, cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_cli_rewrites_a_config_in_place_and_reports_each_change(tmp_path, capsys):
    from potato_multiagent.cli import main

    config = tmp_path / "config.yaml"
    config.write_text(built_in("agent_scorecard"))
    assert main(["migrate-config", str(config), "-o", str(config)]) == 0
    assert "annotation_type: multiagent.agent_scorecard" in config.read_text()
    report = capsys.readouterr().err
    assert "annotation_type agent_scorecard -> multiagent.agent_scorecard" in report and "(5 change(s))" in report
    assert main(["migrate-config", str(config)]) == 0  # to stdout, nothing left to change
    assert capsys.readouterr().out == config.read_text()


TURN_LEVEL_MAST = """\
plugins: [multiagent]
annotation_schemes:
  - annotation_type: multiselect
    name: mast_steps   # as examples/team-evaluation had it
    description: "MAST failure modes"
    turn_level: true
    turn_binding: {field: steps}
    labels: ["FM-1.1 Disobey task specification", "FM-1.3 Step repetition", "FM-3.3 Incorrect verification"]
  - annotation_type: multiselect
    name: turn_errors
    turn_level: true
    labels: [wrong_tool, hallucination]
"""


def test_a_turn_level_mast_multiselect_keeps_working_and_the_move_to_multiagent_mast_is_offered():
    migration = migrate_config_text(TURN_LEVEL_MAST)
    assert migration.text == TURN_LEVEL_MAST and migration.changes == []
    assert migration.offers == [
        "line 4: mast_steps tags MAST modes with a turn-level multiselect: it keeps working (chips on the trace "
        "view's steps, exported per step and mode). annotation_type: multiagent.mast (no labels, turn_level or "
        "turn_binding) adds each mode's definition, a note and a severity per tag, modes for the whole run, "
        "judgments and adjudication (see: potato-multiagent docs mast); the tags saved so far are not converted"]
