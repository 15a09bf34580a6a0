"""The ``multiagent.trace`` display's Python half: config keys, the bounded shell, check, migrate."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from potato_multiagent.check import trace_view_findings
from potato_multiagent.migrate import migrate_config_text
from potato_multiagent.trace_view import parse_trace_view_config
from potato_multiagent.trace_view.display import FIRST_WINDOW, TraceDisplay
from potato_multiagent.types import SCHEMES

REPO = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


def field(**keys):
    return {"key": "steps", "type": "multiagent.trace", **keys}


def long_record(n):
    return [{"agent": f"A{i % 12}", "content": f"step {i} {{{{ 7*7 }}}} <b>x</b>"} for i in range(n)]


def test_defaults_and_the_orchestration_map():
    config, problems = parse_trace_view_config(field())
    assert problems == []
    assert config.layout == "auto"
    assert config.layout_map == {"sequential_pipeline": "lanes", "hierarchical_manager": "tree", "group_chat": "board"}


@pytest.mark.parametrize("keys,named", [
    ({"layout": "grid"}, "layout"),
    ({"layout_map": {"group_chat": "spiral"}}, "layout_map.group_chat"),
    ({"steps_key": 3}, "steps_key"),
    ({"agents": ["A", "A"]}, "agents"),
    ({"fold_chars": 5}, "fold_chars"),
    ({"display_options": {"layout_from": ""}}, "layout_from"),
    ({"layot": "tree"}, "layot"),
])
def test_a_bad_key_gets_one_message_naming_it(keys, named):
    config, problems = parse_trace_view_config(field(**keys))
    assert config is None
    assert len(problems) == 1 and problems[0].startswith(named + ":"), problems


def test_an_unknown_key_names_the_nearest_known_one():
    _, problems = parse_trace_view_config(field(layot="tree", label="Run", resizable=False))
    assert problems == ["layot: not a key of multiagent.trace (did you mean 'layout'?)"]


def test_check_reports_the_field_and_the_key():
    findings = trace_view_findings({"instance_display": {"fields": [
        {"key": "text", "type": "text"}, field(layout="grid")]}})
    assert [str(f).split(": ")[0] for f in findings] == ["config / instance_display.fields[1]"]
    assert "layout" in str(findings[0])


def test_the_shell_is_bounded_whatever_the_length():
    display = TraceDisplay()
    small = display.render(field(), long_record(FIRST_WINDOW))
    large = display.render(field(), long_record(5000))
    assert len(large) - len(small) < 200   # only the step count's digits differ, never the steps
    assert large.count('class="ma-trace-first-step"') == FIRST_WINDOW
    assert "step 4999" not in large


def test_hostile_text_is_escaped_for_html_and_for_jinja():
    html = TraceDisplay().render(field(label="Who {{ 7*7 }} <script>"), long_record(3))
    assert "{" not in html and "}" not in html
    assert "<script>" not in html and "<b>" not in html
    assert "&#123;&#123; 7*7 &#125;&#125;" in html


def test_the_task_and_answer_slots_are_labelled_and_hold_no_record_text():
    """question_key/answer_key: the shell has a slot under each label; the browser fills it from the
    record as text (nothing of the record goes through the server's HTML, nor through Jinja again)."""
    html = TraceDisplay().render(field(question_key="question", answer_key="reference_answer"), long_record(2))
    assert "<dt>Task</dt>" in html and "<dt>Reference answer (from the dataset)</dt>" in html
    assert '<dd data-ma-task="question_key"></dd>' in html and '<dd data-ma-task="answer_key"></dd>' in html
    assert "ma-trace-task" not in TraceDisplay().render(field(), long_record(2))
    assert parse_trace_view_config(field(answer_keys="x"))[1] == [
        "answer_keys: not a key of multiagent.trace (did you mean 'answer_key'?)"]


def test_a_bad_config_renders_an_error_card_naming_the_key():
    html = TraceDisplay().render(field(layout="grid"), long_record(3))
    assert "layout" in html and 'role="alert"' in html


def test_turn_level_schemes_reach_the_browser_config():
    schemes = [{"name": "mast", "annotation_type": "multiselect", "description": "MAST modes",
                "labels": ["1.1", {"name": "2.3"}], "turn_level": True, "turn_binding": {"field": "steps"}},
               {"name": "rate", "annotation_type": "likert", "description": "d", "turn_level": True}]
    html = TraceDisplay().render({**field(), "_turn_schemes": schemes}, long_record(2))
    config = json.loads(__import__("html").unescape(html.split('data-ma-trace="', 1)[1].split('"', 1)[0]))
    assert config["turn_schemes"] == [{"name": "mast", "type": "multiselect", "label": "MAST modes",
                                       "labels": ["1.1", "2.3"], "binding": {}}]
    assert "rate" in html.split("ma-trace-notice", 1)[1]


def test_the_browser_config_carries_the_derive_options_as_the_widgets_get_them():
    html = TraceDisplay().render({**field(), "steps_key": "steps", "agent_key": "role", "agents": ["A", "B"]},
                                 long_record(2))
    config = json.loads(__import__("html").unescape(html.split('data-ma-trace="', 1)[1].split('"', 1)[0]))
    expected = {"steps_key": "steps", "agent_key": "role", "calls_key": "calls", "resource_key": "resource",
                "agents": ["A", "B"], "agent_qualifiers": True}
    assert config["derive_options"] == expected
    widget = SCHEMES["multiagent.failure_attribution"].widget_config(SCHEMES["multiagent.failure_attribution"]
        .parse_config({"name": "a", "description": "d", "agent_key": "role", "agents": ["A", "B"]})[0])
    assert widget["derive_options"] == expected


def test_migrate_offers_then_makes_the_move_from_agent_trace():
    text = "instance_display:\n  fields:\n    - key: steps\n      type: agent_trace  # the run\n"
    offered = migrate_config_text(text)
    assert offered.text == text and offered.changes == []
    assert offered.offers and "--trace-view" in offered.offers[0]
    moved = migrate_config_text(text, trace_view=True)
    assert "      type: multiagent.trace  # the run\n" in moved.text
    assert "plugins:\n  - multiagent\n" in moved.text
    assert migrate_config_text(moved.text, trace_view=True).changes == []


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_auto_layout_and_the_answer_map_in_the_browser_code():
    script = """
    const {derive} = require('./src/potato_multiagent/web/derive.js');
    const t = require('./src/potato_multiagent/web/trace_view.js');
    const pipeline = {steps: [{agent: 'A'}, {agent: 'B'}, {agent: 'C'}]};
    const chat = {steps: [{agent: 'A', to: 'B'}, {agent: 'B', to: 'C'}, {agent: 'C', to: 'A'}]};
    // a derivation with threads (as derive.js gives them once docs/derivation.md has threads)
    const threaded = {steps: [{index: 0, agent: 'M'}, {index: 1, agent: 'W', thread: 'w1'}], handoffs: [], agents: ['M', 'W']};
    const map = {group_chat: 'board', x: 'spiral'};
    console.log(JSON.stringify([t.autoLayout(derive(pipeline, {})), t.autoLayout(derive(chat, {})),
      t.autoLayout(threaded), t.layoutForAnswer('group_chat', map), t.layoutForAnswer('x', map),
      t.layoutForAnswer('constructor', map), t.layoutForAnswer(null, map)]));
    """
    out = subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert json.loads(out) == ["lanes", "board", "tree", "board", None, None, None]


def test_the_bench_scenario_renders_both_displays_and_reports_them():
    from bench.synth import trace_record
    from bench.trace_view import SIDES, render_time, report

    steps = trace_record(200, n_calls=0)["steps"]
    times = {side: render_time(side, steps, 1) for side in SIDES}
    assert all(value > 0 for value in times.values())
    summary = {side: {"render_s": times[side], "response_s": 1.0, "ready_s": 2.0, "elements": 100}
               for side in SIDES}
    table = report(200, 1, summary)
    assert "| display render (server), s |" in table and "| DOM elements | 100 | 100 | 1.0x |" in table
