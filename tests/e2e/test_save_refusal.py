"""End-to-end (issue 33, item 4): the server refuses a value of ours that does not pass its model.

A real `potato start` with the seven schemes, a Potato radio and a Potato text box. A logged-in
annotator's session posts what Potato's own page posts, but with values no widget of ours writes:
the JSON text of a list, NaN, JSON that does not parse, a 1 MB reason, a list nested 5,000 deep,
and a value that is not text at all. Each is answered 400 with its scheme and problem named (the
words of `check`), through every save route and format Potato 2.12.1 has, and the value stored
before stays as it was, on disk and as Potato reads it back. Potato's own schemes, an emptied value
and a value naming marks the trace lacks (the page's to show) are stored as before.
"""

from __future__ import annotations

import json
import uuid

import pytest
import yaml

from .harness import login, wait_saved

pytestmark = pytest.mark.e2e

CONFIG = "config.yaml"
RUN = {"id": "run-1", "task": "Book a train.",
       "steps": [{"agent": "Planner", "content": "plan"},
                 {"agent": "Searcher", "content": "search",
                  "tool_calls": [{"id": "c1", "function": {"name": "search", "arguments": "{}"}}]}],
       "calls": [{"agent": "Planner", "tool": "db", "resource": "db", "start": 0, "end": 5},
                 {"agent": "Searcher", "tool": "db", "resource": "db", "start": 3, "end": 8}]}
OTHER = {"id": "run-2", "task": "Another run.", "steps": [{"agent": "Planner", "content": "plan"}]}
MEGABYTE = "x" * 1_000_000

# A good value of each scheme, and the same value with a 1 MB text where the type keeps free text
# (where it keeps none, a 1 MB `reason` it has no field for).
GOOD = {
    "attribution": {"responsible_agent": "Searcher", "decisive_step": 1, "reason": "wrong query"},
    "graph": {"critical_nodes": ["Planner"], "edges": {}, "edge_marks": []},
    "handoffs": [{"index": 0, "step": 1, "from_step": 0, "from": "Planner", "to": "Searcher", "explicit": False,
                  "flags": ["info_loss"], "quality": 3, "note": ""}],
    "scorecard": {"agents": {"Planner": {"contribution": 4}}, "team": {}, "milestones": {}},
    "contention": {"contentions": {"0": "benign"}, "regions": [
        {"index": 0, "resource": "db", "start": 0, "end": 8, "agents": ["Planner", "Searcher"],
         "calls": [{"index": 0, "agent": "Planner", "resource": "db", "start": 0, "end": 5},
                   {"index": 1, "agent": "Searcher", "resource": "db", "start": 3, "end": 8}],
         "label": "benign", "note": ""}]},
    "emergent": {"groupthink": {"turns": [0], "note": "", "instances": [{"turns": [0], "note": ""}]}},
    "review": [{"index": 0, "step": 1, "position": 0, "id": "c1", "tool": "search", "verdict": "correct", "notes": ""}],
}
LONG = {
    "attribution": ({**GOOD["attribution"], "reason": MEGABYTE}, "reason: should have at most 20000 character(s)"),
    "graph": ({**GOOD["graph"], "reason": MEGABYTE}, "reason: is not a field of this value"),
    "handoffs": ([{**GOOD["handoffs"][0], "note": MEGABYTE}], "[0].note: should have at most 20000 character(s)"),
    "scorecard": ({**GOOD["scorecard"], "reason": MEGABYTE}, "reason: is not a field of this value"),
    "contention": ({**GOOD["contention"], "regions": [{**GOOD["contention"]["regions"][0], "note": MEGABYTE}]},
                   "regions[0].note: should have at most 20000 character(s)"),
    "emergent": ({"groupthink": {"turns": [0], "note": "", "instances": [{"turns": [0], "note": MEGABYTE}]}},
                 "groupthink.instances[0].note: should have at most 20000 character(s)"),
    "review": ([{**GOOD["review"][0], "notes": MEGABYTE}], "[0].notes: should have at most 20000 character(s)"),
}
TYPES = {"attribution": "failure_attribution", "graph": "agent_interaction_graph", "handoffs": "handoff_review",
         "scorecard": "agent_scorecard", "contention": "tool_contention", "emergent": "emergent_behavior",
         "review": "tool_call_review"}
SCHEMES = [{"annotation_type": f"multiagent.{kind}", "name": name, "description": name} for name, kind in TYPES.items()]
SCHEMES[3].update(agent_dimensions=["contribution"], team_dimensions=["coordination"])
SCHEMES[5].update(behaviors=["groupthink"])
POTATO_SCHEMES = [{"annotation_type": "radio", "name": "outcome", "description": "Outcome", "labels": ["ok", "failed"]},
                  {"annotation_type": "text", "name": "comment", "description": "Comment"}]
DEEP = "[" * 5000 + "]" * 5000


def bad_values(name: str) -> list:
    """(what is posted, the problem the answer must name): every bad shape of the issue."""
    long_value, long_problem = LONG[name]
    is_list = isinstance(GOOD[name], list)
    return [
        (json.dumps([1, 2]) if not is_list else json.dumps([1]),
         "value: should be an object, got a list" if not is_list else "[0]: should be an object, got 1"),
        ('{"reason": NaN}' if not is_list else "[NaN]", "value: not valid JSON (NaN is not JSON)"),
        ('{"responsible_agent": ', "value: not valid JSON (Expecting value: line 1 column 23 (char 22))"),
        (json.dumps(long_value), long_problem),
        (DEEP, "value: not valid JSON (maximum recursion depth exceeded"),
        (GOOD[name], "value: should be the JSON text of the value, got " + ("a list" if is_list else "an object")),
    ]


@pytest.fixture(scope="module")
def task(tmp_path_factory, potato_task):
    config = {"annotation_task_name": f"e2e save refusal {uuid.uuid4().hex[:8]}", "task_dir": ".",
              "data_files": ["data/runs.jsonl"], "item_properties": {"id_key": "id", "text_key": "task"},
              "output_annotation_dir": "annotation_output", "plugins": ["multiagent"], "require_password": False,
              "annotation_schemes": SCHEMES + POTATO_SCHEMES}
    return potato_task(tmp_path_factory.mktemp("save-refusal"), config=CONFIG, files={
        CONFIG: yaml.safe_dump(config), "data/runs.jsonl": json.dumps(RUN) + "\n" + json.dumps(OTHER) + "\n"})


@pytest.fixture(scope="module")
def session(task, browser):
    """A logged-in annotator whose good value of each scheme is stored (posted as the page posts it)."""
    context = browser.new_context()
    page = context.new_page()
    user = f"poster-{uuid.uuid4().hex[:8]}"
    login(page, task.base_url, user)
    answer = post(page, task, {f"{name}:{name}": json.dumps(value) for name, value in GOOD.items()})
    assert answer.status == 200, answer.text()
    wait_saved(task, user, "run-1", "review", lambda value: value is not None)
    yield page, user
    context.close()


def post(page, task, annotations: dict, route: str = "/updateinstance", **extra):
    payload = {"instance_id": "run-1", "annotations": annotations, **extra}
    return page.request.post(f"{task.base_url}{route}", data=json.dumps(payload),
                             headers={"Content-Type": "application/json"})


def stored(task, user: str) -> dict:
    return {name: json.loads(value) for name, value in task.saved(user)["run-1"].items() if name in GOOD}


def read_back(page, task) -> dict:
    """What Potato hands the page for the item (its one read of what it holds)."""
    answer = page.request.get(f"{task.base_url}/get_annotations?instance_id=run-1")
    labels = answer.json()["label_values"]
    return {name: json.loads(labels[name][name]) for name in GOOD if name in labels}


@pytest.mark.parametrize("name", list(GOOD))
def test_each_bad_shape_is_refused_naming_its_problem_and_the_stored_value_stays(task, session, name):
    page, user = session
    for posted, problem in bad_values(name):
        answer = post(page, task, {f"{name}:{name}": posted})
        assert answer.status == 400, (name, problem)
        body = answer.json()
        assert body["status"] == "error" and f"'{name}'" in body["message"]
        assert any(found.startswith(problem) for found in body["problems"][name]), (body["problems"], problem)
        assert len(answer.text()) < 20_000, "the answer never echoes the value"
    assert stored(task, user)[name] == GOOD[name]
    assert read_back(page, task)[name] == GOOD[name]


def test_every_save_route_and_format_refuses_the_same(task, session):
    page, user = session
    backend = page.request.post(f"{task.base_url}/updateinstance", headers={"Content-Type": "application/json"},
                                data=json.dumps({"instance_id": "run-1", "schema": "attribution", "type": "label",
                                                 "state": [{"name": "attribution", "value": "[1, 2]"}]}))
    submitted = page.request.post(f"{task.base_url}/submit_annotation", headers={"Content-Type": "application/json"},
                                  data=json.dumps({"instance_id": "run-1",
                                                   "annotations": {"attribution": {"attribution": "{bad"}}}))
    form = page.request.post(f"{task.base_url}/submit_annotation", form={
        "instance_id": "run-1", "annotation_data": json.dumps({"graph": {"graph": "NaN"}})})
    long_key = post(page, task, {"attribution:::attribution": json.dumps(LONG["attribution"][0])})
    for answer in (backend, submitted, form, long_key):
        assert answer.status == 400, answer.text()[:300]
    assert stored(task, user) == GOOD


def test_a_refused_request_stores_nothing_of_it(task, session):
    page, user = session
    answer = post(page, task, {"outcome:failed": "failed", "attribution:attribution": "NaN"})
    assert answer.status == 400
    assert "outcome" not in task.saved(user)["run-1"]
    assert stored(task, user) == GOOD


def test_potatos_own_schemes_an_emptied_value_and_marks_the_trace_lacks_are_stored(task, session):
    page, user = session
    assert post(page, task, {"outcome:ok": "ok", "comment:text_box": MEGABYTE}).status == 200
    wait_saved(task, user, "run-1", "comment", lambda value: value == MEGABYTE)
    assert task.saved_labels(user)["run-1"]["outcome"] == {"ok": "ok"}
    ghost = {"responsible_agent": "Ghost", "decisive_step": 7, "reason": ""}   # shown "not in this trace"
    assert post(page, task, {"attribution:attribution": json.dumps(ghost)}).status == 200
    wait_saved(task, user, "run-1", "attribution", lambda value: value is not None and json.loads(value) == ghost)
    assert post(page, task, {"attribution:attribution": ""}).status == 200   # Potato deletes it
    wait_saved(task, user, "run-1", "attribution", lambda value: value is None)
