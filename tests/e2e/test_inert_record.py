"""End-to-end (issue 33, item 1): a record whose every field closes script elements, on real pages.

Potato 2.12.1 embeds the record raw in `<script type="application/json">` elements (its
`var_elems`); with our plugin on, every JSON block of every page is made inert (guard.py). The
record here puts `</script><script>…</script>` (with and without a `<!--<script>`, `</SCRIPT >` and
an `<img onerror>` after it) in every field: the task and notes (Potato's text display), step texts, agent names, thread names,
tool names and arguments, call ids, timed calls, and the judgments the record carries for each of
our seven schemes. Three servers:

- the plugin with all seven types, Potato's text display, our trace view and a Potato radio: in each
  of the trace view's three layouts nothing runs, the page raises no error, every value shows
  verbatim, and Potato's own parts work (text display, saving, Next and Previous, a reload);
- the plugin with only Potato's own types: the same guard, whatever types the config uses;
- Potato alone (no plugin): the payloads run, so the record does test something.
"""

from __future__ import annotations

import json
import uuid

import pytest
import yaml
from playwright.sync_api import expect

from potato_multiagent import derive, validate_value

from .harness import current_instance_id, go_next, go_prev, login, open_annotate, wait_saved, wait_saved_json
from .test_hostile_input import ACTIVE_CONTENT, PROVOKE

pytestmark = pytest.mark.e2e

CONFIG_FILE = "config.yaml"
DATA_FILE = "data/runs.jsonl"
RUN_ID = "closing-run"
PLAIN_ID = "plain-run"
LAYOUTS = ("lanes", "tree", "board")


def payload(marker: str) -> str:
    """A value that closes a script element (`</script>`, `</SCRIPT >`), runs one (`<script>`,
    `<img onerror>`), and opens an escaped one (`<!--<script>`), each calling `__fire` with a marker
    of its own. Under 120 characters, so no widget shortens it in a label."""
    text = (f"{marker} </script><script>__fire('{marker}')</script><!--<script>"
            f"</SCRIPT ><img src=x onerror=__fire('{marker}-i')>")
    assert len(text) < 120, marker
    return text


def closing(marker: str) -> str:
    """A value that closes a script element with no `<!--` after it: the markup after the close is
    what Potato's BeautifulSoup pass rewrites (`->` to `-&gt;`, attributes quoted) unless the block
    was made inert before it."""
    return f"{marker} </script><script>__fire('{marker}')</script> a -> b <img src=x onerror=__fire('{marker}-i')>"


AGENT_A, AGENT_B, AGENT_C = payload("agent-a"), closing("agent-b"), payload("agent-c")
TOOL, CALL_ID, RESOURCE = closing("tool"), payload("call-id"), payload("resource")
ARGUMENT = closing("argument")
THREAD = payload("thread")
JUDGE = payload("judge")
TEXTS = [(payload if n % 2 else closing)(f"text-{n}") for n in range(6)]

RECORD = {
    "id": RUN_ID,
    "task": closing("task"),
    "notes": payload("notes"),
    "steps": [
        {"agent": AGENT_A, "content": TEXTS[0],
         "tool_calls": [{"id": CALL_ID, "function": {"name": TOOL, "arguments": json.dumps({"q": ARGUMENT})}}]},
        {"role": "tool", "tool_call_id": CALL_ID, "content": TEXTS[1]},
        {"type": "handoff", "from_agent": AGENT_A, "to_agent": AGENT_B, "content": TEXTS[2]},
        {"agent": AGENT_B, "content": TEXTS[3], "thread": THREAD},
        {"agent": AGENT_C, "receiver": AGENT_A, "content": [{"type": "text", "text": TEXTS[4]}]},
        {"agent": AGENT_A, "content": TEXTS[5]},
    ],
    "calls": [{"agent": AGENT_A, "tool": TOOL, "resource": RESOURCE, "start": 0, "end": 10},
              {"agent": AGENT_B, "tool": TOOL, "resource": RESOURCE, "start": 5, "end": 15}],
}
DERIVATION = derive(RECORD).to_dict()
AGENTS = DERIVATION["agents"]
assert AGENTS == [AGENT_A, AGENT_B, AGENT_C], AGENTS
REGION = DERIVATION["contentions"][0]
HANDOFF = DERIVATION["handoffs"][0]

# A judgment per scheme (their stored shapes, docs/types/*.md), by a hostile source, hostile inside.
JUDGMENTS = {
    "attribution": {"responsible_agent": AGENT_B, "decisive_step": 3, "reason": payload("j-reason")},
    "graph": {"critical_nodes": [AGENT_A], "edges": {}, "edge_marks": []},
    "handoffs": [{"index": HANDOFF["index"], "step": HANDOFF["step"], "from_step": HANDOFF["from_step"],
                  "from": HANDOFF["from"], "to": HANDOFF["to"], "explicit": HANDOFF["explicit"], "flags": [],
                  "quality": 2, "note": payload("j-note")}],
    "review": [{"index": 0, "step": 0, "position": 0, "id": CALL_ID, "tool": TOOL, "verdict": "wrong_args",
                "notes": payload("j-notes")}],
    "contention": {"contentions": {"0": "benign"},
                   "regions": [{"index": 0, "resource": RESOURCE, "start": 0, "end": 15, "agents": [AGENT_A, AGENT_B],
                                "calls": [{"index": k, "agent": call["agent"], "resource": RESOURCE,
                                           "start": call["start"], "end": call["end"]}
                                          for k, call in enumerate(RECORD["calls"])],
                                "label": "benign", "note": payload("j-region")}]},
    "emergent": {"groupthink": {"turns": [0, 3], "note": payload("j-episode"),
                                "instances": [{"turns": [0, 3], "note": payload("j-episode")}]}},
    "scorecard": {"agents": {AGENT_A: {"contribution": 2}}, "team": {}, "milestones": {}},
}
RECORD["judgments"] = {name: [{"source": JUDGE, "value": value}] for name, value in JUDGMENTS.items()}

PLAIN = {"id": PLAIN_ID, "task": "A plain run", "notes": "nothing to see",
         "steps": [{"agent": "Planner", "content": "plan"}, {"agent": "Coder", "content": "code"}]}

OURS = [
    {"annotation_type": "multiagent.failure_attribution", "name": "attribution", "description": "Who failed?"},
    {"annotation_type": "multiagent.agent_interaction_graph", "name": "graph", "description": "The graph"},
    {"annotation_type": "multiagent.handoff_review", "name": "handoffs", "description": "Handoffs"},
    {"annotation_type": "multiagent.agent_scorecard", "name": "scorecard", "description": "Scores",
     "agent_dimensions": ["contribution"], "team_dimensions": ["coordination"], "milestones": ["done"],
     "milestone_steps": True},
    {"annotation_type": "multiagent.tool_contention", "name": "contention", "description": "Contention"},
    {"annotation_type": "multiagent.emergent_behavior", "name": "emergent", "description": "Behaviour"},
    {"annotation_type": "multiagent.tool_call_review", "name": "review", "description": "Tool calls"},
]
RADIO = {"annotation_type": "radio", "name": "outcome", "description": "Did the run succeed?",
         "labels": ["success", "failure"]}
TEXT_DISPLAY = [{"key": "task", "type": "text", "label": "Task"}, {"key": "notes", "type": "text", "label": "Notes"}]
TRACE_VIEW = {"key": "steps", "type": "multiagent.trace", "label": "Run", "display_options": {"resizable": False}}


def task_files(title: str, schemes: list, display: list, plugins: list) -> dict:
    config = {"annotation_task_name": f"inert record: {title} {uuid.uuid4().hex[:8]}", "task_dir": ".",
              "data_files": [DATA_FILE], "item_properties": {"id_key": "id", "text_key": "task"},
              "output_annotation_dir": "annotation_output", "plugins": plugins, "require_password": False,
              "instance_display": {"fields": display}, "annotation_schemes": schemes}
    data = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in (RECORD, PLAIN))
    return {CONFIG_FILE: yaml.safe_dump(config, allow_unicode=True, sort_keys=False, width=float("inf")),
            DATA_FILE: data}


@pytest.fixture(scope="module")
def seven(tmp_path_factory, potato_task):
    source = tmp_path_factory.mktemp("inert-record")
    return potato_task(source, config=CONFIG_FILE,
                       files=task_files("seven types", OURS + [RADIO], TEXT_DISPLAY + [TRACE_VIEW], ["multiagent"]))


@pytest.fixture(scope="module")
def potato_types_only(tmp_path_factory, potato_task):
    source = tmp_path_factory.mktemp("inert-record-potato-types")
    return potato_task(source, config=CONFIG_FILE, files=task_files("potato types", [RADIO], TEXT_DISPLAY, ["multiagent"]))


@pytest.fixture(scope="module")
def without_plugin(tmp_path_factory, potato_task):
    source = tmp_path_factory.mktemp("inert-record-no-plugin")
    return potato_task(source, config=CONFIG_FILE, files=task_files("no plugin", [RADIO], TEXT_DISPLAY, []))


@pytest.fixture
def errors(page) -> list:
    """Every uncaught error of the page (none may happen)."""
    found: list = []
    page.on("pageerror", lambda error: found.append(str(error)))
    return found


def log_in(page, task, prefix: str) -> str:
    user = f"{prefix}-{uuid.uuid4().hex[:10]}"
    login(page, task.base_url, user)
    return user


def fired(page) -> list:
    page.evaluate(PROVOKE)
    page.wait_for_timeout(300)
    return page.evaluate("window.__fired")


def text_of(page, selector: str) -> str:
    return page.evaluate("(selector) => [...document.querySelectorAll(selector)].map(e => e.textContent).join('\\n')",
                         selector)


def expect_potato_read_the_record(page) -> None:
    """What Potato's own scripts read from its JSON blocks is the record, unchanged."""
    read = page.evaluate("() => [JSON.parse(document.getElementById('instance_data').textContent),"
                         " JSON.parse(document.getElementById('instance').textContent)]")
    assert read[0]["steps"] == RECORD["steps"] and read[0]["task"] == RECORD["task"]
    assert read[0]["notes"] == RECORD["notes"] and read[1]["text"] == RECORD["task"]
    expect(page.locator("#next-btn")).to_be_visible()   # the page after the blocks is still a page


def expect_text_display(page) -> None:
    shown = text_of(page, "#instance-text, .display-field, [data-field-key]")
    assert RECORD["task"] in shown and RECORD["notes"] in shown


def save_radio(page, task, user: str, instance_id: str, label: str) -> None:
    page.locator(f'input[type="radio"][name^="outcome"][value="{label}"]').check()
    wait_saved(task, user, instance_id, "outcome", lambda saved: saved is not None)
    assert task.saved_labels(user)[instance_id]["outcome"] == {label: label}


def wait_widgets(page) -> None:
    for scheme in OURS:
        expect(page.locator(f'form.multiagent-form[data-schema-name="{scheme["name"]}"]')) \
            .to_have_attribute("data-ma-ready", "true", timeout=30_000)


def form_text(page, name: str) -> str:
    return text_of(page, f'form.multiagent-form[data-schema-name="{name}"]')


SHOWN = {   # what each widget shows verbatim
    "attribution": AGENTS + [JUDGE],
    "graph": AGENTS + [JUDGE],
    "handoffs": [AGENT_A, AGENT_B],
    "scorecard": AGENTS + [JUDGE],
    "contention": [AGENT_A, AGENT_B, RESOURCE],
    "emergent": AGENTS + [JUDGE],
    "review": [TOOL, AGENT_A, ARGUMENT, JUDGE],
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_nothing_runs_and_everything_shows_in_every_layout(seven, page, dialogs, errors, layout):
    log_in(page, seven, f"inert-{layout}")
    wait_widgets(page)
    section = page.locator("section.ma-trace")
    section.locator(f'.ma-trace-layout[data-layout="{layout}"]').click()
    page.wait_for_function(f"document.querySelector('section.ma-trace').dataset.layout === '{layout}'",
                           polling=100)
    shown = section.evaluate("section => section.textContent")
    for value in AGENTS + TEXTS + [TOOL, ARGUMENT]:
        assert value in shown, value[:20]
    if layout == "tree":
        assert THREAD in shown
    for name, values in SHOWN.items():
        text = form_text(page, name)
        for value in values:
            assert value in text, (name, value[:20])
    expect_text_display(page)
    expect_potato_read_the_record(page)
    assert fired(page) == [] and page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate(ACTIVE_CONTENT) == [] and dialogs == [] and errors == []


def test_potatos_own_parts_and_ours_save_navigate_and_reload(seven, page, dialogs, errors):
    user = log_in(page, seven, "inert-parts")
    wait_widgets(page)
    save_radio(page, seven, user, RUN_ID, "failure")
    attribution = page.locator('form.multiagent-form[data-schema-name="attribution"]')
    attribution.get_by_label("Responsible agent").select_option(label=AGENT_C)
    attribution.get_by_label("Reason").fill(payload("typed"))
    attribution.get_by_label("Reason").blur()
    saved = wait_saved_json(seven, user, RUN_ID, "attribution",
                            {"responsible_agent": AGENT_C, "decisive_step": None, "reason": payload("typed")})
    assert validate_value("multiagent.failure_attribution", OURS[0], json.dumps(saved), RECORD) == []

    assert go_next(page) == PLAIN_ID
    expect(page.locator("#instance-text, .display-field").first).to_contain_text("A plain run")
    assert go_prev(page) == RUN_ID
    wait_widgets(page)
    open_annotate(page, seven.base_url)   # a reload restores both, and the typed payload stays text
    wait_widgets(page)
    assert current_instance_id(page) == RUN_ID
    expect(page.locator('input[type="radio"][name^="outcome"][value="failure"]')).to_be_checked()
    expect(attribution.get_by_label("Reason")).to_have_value(payload("typed"))
    expect_text_display(page)
    expect_potato_read_the_record(page)
    assert fired(page) == [] and dialogs == [] and errors == []


def test_a_page_with_only_potatos_types_is_guarded_too(potato_types_only, page, dialogs, errors):
    user = log_in(page, potato_types_only, "inert-potato")
    expect_text_display(page)
    expect_potato_read_the_record(page)
    save_radio(page, potato_types_only, user, RUN_ID, "success")
    assert go_next(page) == PLAIN_ID and go_prev(page) == RUN_ID
    assert fired(page) == [] and dialogs == [] and errors == []


def test_without_the_plugin_the_same_record_runs_its_payloads(without_plugin, page, dialogs):
    """Potato alone: the task's `</script>` ends Potato's first JSON block and its script runs, and
    what Potato's scripts read from `#instance_data` is no longer JSON (the tests above are not
    vacuous)."""
    user = f"unguarded-{uuid.uuid4().hex[:10]}"
    response = page.request.post(f"{without_plugin.base_url}/auth", form={"action": "login", "email": user},
                                 max_redirects=0)
    assert response.status in (302, 303)
    page.goto(f"{without_plugin.base_url}/annotate")
    page.wait_for_function("window.__fired.length > 0", polling=100)
    assert "task" in fired(page)
    assert page.evaluate("() => { try { JSON.parse(document.getElementById('instance_data').textContent); }"
                         " catch (error) { return 'unreadable'; } }") == "unreadable"
