"""`potato-multiagent init`: what it chooses from what the runs contain, and the task folder it writes."""

import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

from potato_multiagent.cli import main
from potato_multiagent.init_task import Survey, choose, dataset_layout, survey

POTATO = Path(sys.executable).with_name("potato")

PIPELINE = {"id": "p", "task": "plan a trip", "steps": [
    {"agent": "Planner", "content": "plan"}, {"agent": "Booker", "content": "booked"}]}
SOLO = {"id": "s", "task": "say hi", "steps": [{"agent": "Solo", "content": "hi"}, {"agent": "Solo", "content": "bye"}]}
TOOLS = {"id": "t", "task": "search", "steps": [
    {"agent": "Researcher", "content": "", "tool_calls": [{"id": "c1", "function": {"name": "search", "arguments": "{}"}}]},
    {"agent": "Researcher", "content": "found it"}]}
CONTENDED = {"id": "c", "task": "write the table", "steps": [{"agent": "A", "content": "a"}, {"agent": "B", "content": "b"}],
             "calls": [{"agent": "A", "tool": "write", "resource": "db", "start": 0, "end": 2},
                       {"agent": "B", "tool": "write", "resource": "db", "start": 1, "end": 3}]}
APART = {**CONTENDED, "id": "apart", "calls": [{"agent": "A", "tool": "write", "resource": "db", "start": 0, "end": 1},
                                               {"agent": "B", "tool": "write", "resource": "db", "start": 1, "end": 2}]}


def chosen(records, gold=()):
    return {choice.name: choice for choice in choose(survey(records, gold))}


def kept(choices):
    return sorted(name for name, choice in choices.items() if choice.scheme is not None)


def test_a_pipeline_of_two_agents_gets_attribution_graph_handoffs_and_mast_gated_by_the_outcome():
    choices = chosen([PIPELINE])
    assert kept(choices) == ["attribution", "handoffs", "interaction_graph", "mast", "orchestration", "outcome"]
    assert choices["attribution"].scheme["display_logic"] == {
        "show_when": [{"schema": "outcome", "operator": "equals", "value": "failure"}]}
    assert choices["outcome"].scheme["labels"] == ["success", "failure"]
    assert choices["outcome"].scheme["horizontal"] and choices["orchestration"].scheme["horizontal"]   # a line each
    assert choices["tool_calls"].reason == "no run calls a tool"
    assert choices["contention"].reason == "no run has timed calls on shared resources"


def test_one_agent_alone_gets_only_the_outcome_and_says_why_the_rest_is_left_out():
    choices = chosen([SOLO])
    assert kept(choices) == ["outcome"]
    assert choices["attribution"].reason.startswith("no run has two agents")
    assert choices["mast"].reason == "MAST describes failures between agents, and no run has two"


def test_one_agent_calling_tools_gets_tool_review_and_no_multi_agent_type():
    found = survey([TOOLS])
    assert (found.multi_agent, found.with_tool_calls, found.with_handoffs) == (0, 1, 0)
    assert kept(chosen([TOOLS])) == ["outcome", "tool_calls"]


def test_contention_is_chosen_only_when_two_agents_overlap_on_a_resource():
    assert "contention" in kept(chosen([CONTENDED]))
    apart = chosen([APART])
    assert "contention" not in kept(apart)
    assert apart["contention"].reason == "1 of 1 run(s) have timed calls, but no two agents overlap on a resource"


def test_counts_are_per_run_and_the_reason_says_how_many():
    choices = chosen([PIPELINE, SOLO, TOOLS, CONTENDED])
    assert choices["handoffs"].reason == "2 of 4 run(s) pass control between agents"
    assert choices["tool_calls"].reason == "1 of 4 run(s) call tools"


def test_gold_is_said_and_mast_labels_in_gold_are_pointed_to():
    choices = chosen([PIPELINE], [{"id": "p", "gold": {"mast": {"marked": ["1.3"]}}}])
    assert "gold for 1 run(s) is in gold.jsonl, never shown" in choices["outcome"].reason
    assert choices["mast"].reason.endswith("(the source's own MAST labels are in gold: agreement --gold compares "
                                           "each annotator's run modes with them)")


def test_the_display_reads_the_speaker_field_most_steps_use_and_leaves_role_to_potato():
    ag2 = {"id": "a", "steps": [{"name": "Planner", "role": "assistant", "content": "x"}] * 2}
    magentic = {"id": "m", "steps": [{"role": "Orchestrator (thought)", "content": "y"}] * 5}
    assert survey([ag2, magentic]).speaker_key == "name"
    assert survey([magentic]).speaker_key == "role"
    assert survey([PIPELINE]).speaker_key == "agent"
    assert survey([PIPELINE, SOLO]).task_key == "task"
    assert survey([PIPELINE, {"id": "x", "steps": []}]).task_key is None


def test_survey_is_a_plain_value():
    assert survey([]) == Survey(runs=0, multi_agent=0, with_handoffs=0, with_tool_calls=0, with_timed_calls=0,
                                with_contention=0, with_gold=0)


GROUP_CHAT = {"id": "g", "task": "solve", "steps": [
    {"name": "Expert_A", "content": "1"}, {"name": "Computer_terminal", "content": "2"},
    {"name": "Expert_B", "content": "3"}, {"name": "Expert_A", "content": "4"}]}
THREE_IN_A_ROW = {"id": "r", "task": "ship", "steps": [
    {"agent": "Planner", "content": "plan"}, {"agent": "Coder", "content": "code"}, {"agent": "Tester", "content": "ok"}]}


def test_the_trace_layout_suits_the_runs_and_the_orchestration_reason_says_why():
    """Group chats only: board, written as such; a pipeline among them: auto (per run, and lanes only
    where the pane gives each lane 280 px, which only the page can check)."""
    chats = survey([GROUP_CHAT, {**GROUP_CHAT, "id": "g2"}])
    assert chats.layouts == (("board", "turns_return", 2),)
    assert dataset_layout(chats) == "board"
    assert choose(chats)[1].reason.endswith(
        "until answered, the trace is laid out as board: board for 2 of 2 run(s) (a group chat: the turn comes "
        "back to an agent after others spoke)")
    mixed = survey([GROUP_CHAT, THREE_IN_A_ROW, PIPELINE])
    assert dataset_layout(mixed) == "auto"
    assert mixed.layouts == (("board", "turns_return", 1), ("lanes", "pipeline", 1), ("lanes", "few_agents", 1))
    assert choose(mixed)[1].reason.endswith(
        "the trace's layout is auto, chosen per run: board for 1 of 3 run(s) (a group chat: the turn comes back "
        "to an agent after others spoke); lanes for 1 of 3 run(s) (a pipeline: each agent speaks in one stretch); "
        "lanes for 1 of 3 run(s) (fewer than three agents); lanes only where each lane gets 280 px of the pane, "
        "else board")
    assert dataset_layout(survey([THREE_IN_A_ROW])) == "auto"   # lanes: the width is weighed in the page


RUN = {"question": "q?", "history": [{"name": "A", "content": "hi"}, {"name": "B", "content": "ok"}],
       "mistake_agent": "B", "mistake_step": "1", "mistake_reason": "wrong"}


def write_runs(folder):
    for number in (1, 2):
        path = folder / "Hand-Crafted" / f"{number}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**RUN, "question": f"q{number}?"}), encoding="utf-8")
    return folder


def test_init_writes_data_gold_apart_and_a_config_that_potato_and_check_accept(tmp_path, capsys):
    task = tmp_path / "task"
    assert main(["init", "--from", "who-and-when", str(write_runs(tmp_path / "runs")), "-o", str(task)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"wrote 2 record(s) to {task / 'data' / 'runs.jsonl'}"
    assert "chose attribution (multiagent.failure_attribution): 2 of 2 run(s) have two or more agents: who failed, " \
           "and when, shown only when the outcome is 'failure'" in out
    assert "left out tool_calls: no run calls a tool" in out
    assert out[-1] == f"next: cd {task} && potato start config.yaml"
    assert "mistake" not in (task / "data" / "runs.jsonl").read_text()
    assert json.loads((task / "gold.jsonl").read_text().splitlines()[0])["gold"]["mistake_agent"] == "B"
    config = yaml.safe_load((task / "config.yaml").read_text())
    assert config["data_files"] == ["data/runs.jsonl"] and config["plugins"] == ["multiagent"]
    assert config["item_properties"] == {"id_key": "id", "text_key": "question"}
    assert [s["name"] for s in config["annotation_schemes"]] == [
        "outcome", "orchestration", "attribution", "interaction_graph", "handoffs", "mast"]
    [trace] = [field for field in config["instance_display"]["fields"] if field["type"] == "multiagent.trace"]
    assert trace == {"key": "steps", "type": "multiagent.trace", "label": "Run", "layout": "auto",
                     "display_options": {"resizable": False}, "layout_from": "orchestration"}
    validated = subprocess.run([str(POTATO), "validate", "--strict", "config.yaml"], cwd=task,
                               capture_output=True, text=True, timeout=120)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert main(["check", str(task / "config.yaml")]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "0 problem(s), 0 warning(s)"


def test_every_init_gets_its_own_task_name_and_an_existing_config_is_kept(tmp_path, capsys):
    runs = write_runs(tmp_path / "runs")
    assert main(["init", "--from", "who-and-when", str(runs), "-o", str(tmp_path / "one")]) == 0
    assert main(["init", "--from", "who-and-when", str(runs), "-o", str(tmp_path / "two")]) == 0
    names = [yaml.safe_load((tmp_path / d / "config.yaml").read_text())["annotation_task_name"] for d in ("one", "two")]
    assert names[0] != names[1]
    before = (tmp_path / "one" / "config.yaml").read_text()
    capsys.readouterr()
    assert main(["init", "--from", "who-and-when", str(runs), "-o", str(tmp_path / "one")]) == 1
    assert capsys.readouterr().err == (f"error: {tmp_path / 'one' / 'config.yaml'} already exists: choose a new "
                                       f"folder, or pass --force to replace it\n")
    assert (tmp_path / "one" / "config.yaml").read_text() == before
    assert main(["init", "--from", "who-and-when", str(runs), "-o", str(tmp_path / "one"), "--force"]) == 0


def test_init_writes_a_random_secret_key_and_force_keeps_it(tmp_path, capsys):
    """Potato signs session cookies with `secret_key`; without one each start makes a new key and a
    restart signs every annotator out (issue 39). Two inits get two keys; --force keeps the key of
    the config it replaces."""
    runs = write_runs(tmp_path / "runs")
    keys = []
    for name in ("one", "two"):
        assert main(["init", "--from", "who-and-when", str(runs), "-o", str(tmp_path / name)]) == 0
        text = (tmp_path / name / "config.yaml").read_text()
        keys.append(yaml.safe_load(text)["secret_key"])
        assert "# secret_key signs the annotators' session cookies" in text
    assert all(re.fullmatch(r"[0-9a-f]{64}", key) for key in keys) and keys[0] != keys[1]
    assert main(["init", "--from", "who-and-when", str(runs), "-o", str(tmp_path / "one"), "--force"]) == 0
    assert yaml.safe_load((tmp_path / "one" / "config.yaml").read_text())["secret_key"] == keys[0]


def test_init_names_an_unreadable_run_and_builds_the_task_from_the_others(tmp_path, capsys):
    runs = write_runs(tmp_path / "runs")
    bad = runs / "Hand-Crafted" / "3.json"
    bad.write_text(json.dumps({**RUN, "mistake_step": "5"}), encoding="utf-8")
    assert main(["init", "--from", "who-and-when", str(runs), "-o", str(tmp_path / "task")]) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"skipped: {bad}:1: mistake_step: 5 is not a step of this run (history has 2 steps)"
    assert len((tmp_path / "task" / "data" / "runs.jsonl").read_text().splitlines()) == 2
    assert main(["init", "--from", "who-and-when", str(runs), "-o", str(tmp_path / "strict"), "--strict"]) == 1
    assert not (tmp_path / "strict" / "config.yaml").exists()


def test_runs_nobody_can_read_write_no_task(tmp_path, capsys):
    path = tmp_path / "Hand-Crafted" / "1.json"
    path.parent.mkdir()
    path.write_text(json.dumps({**RUN, "history": "none"}), encoding="utf-8")
    assert main(["init", "--from", "who-and-when", str(path), "-o", str(tmp_path / "task")]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"skipped: {path}:1: history: expected the run's steps (a list), found a string",
        "error: no record could be read; nothing written"]
    assert not (tmp_path / "task").exists()


def test_the_survey_says_how_many_logs_split_by_which_layout_and_which_fell_back_and_why(tmp_path, capsys):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "run1.log").write_text(
        "SCENARIO.PY STARTING !#!#\n---------- user ----------\nAdd 2 and 2.\n"
        "---------- MagenticOneOrchestrator ----------\nAsk the coder.\n---------- Coder ----------\n4\n",
        encoding="utf-8")
    (logs / "run2.log").write_text("an operator's own notes, no system's markers\n", encoding="utf-8")
    assert main(["init", "--from", "mast", str(logs), "-o", str(tmp_path / "task")]) == 0
    out, err = capsys.readouterr()
    why = ("no known layout found in its text (tried: AG2, MetaGPT, ChatDev, HyperAgent, AppWorld, Magentic-One, "
           "OpenManus)")
    assert out.splitlines()[1:4] == [
        "split 1 of 2 run(s) into steps at their system's own markers (1 Magentic-One console (AgentChat testbed))",
        "1 run(s) fell back to one step holding the whole log:", f"  run2: {why}"]
    assert f"warning: {logs / 'run2.log'}:1: trace: run2: {why}: the whole log is one step" in err.splitlines()
    config_text = (tmp_path / "task" / "config.yaml").read_text(encoding="utf-8")
    assert "# split 1 of 2 run(s) into steps at their system's own markers" in config_text
    assert f"#   run2: {why}" in config_text


def test_show_answer_puts_each_runs_reference_answer_above_the_trace_and_says_the_rule(tmp_path, capsys):
    runs = write_runs(tmp_path / "runs")
    answered = runs / "Hand-Crafted" / "1.json"
    answered.write_text(json.dumps({**RUN, "question": "q1?", "ground_truth": "Lyon, 14 March"}), encoding="utf-8")
    task = tmp_path / "task"
    assert main(["init", "--from", "who-and-when", str(runs), "-o", str(task), "--show-answer"]) == 0
    out = capsys.readouterr().out
    assert "--show-answer: the reference answer of 1 of 2 run(s) is shown above the trace as 'reference_answer'" in out
    records = {r["id"]: r for r in map(json.loads, (task / "data" / "runs.jsonl").read_text().splitlines())}
    assert records["Hand-Crafted-1"]["reference_answer"] == "Lyon, 14 March"
    assert "reference_answer" not in records["Hand-Crafted-2"]   # no gold answer: the view says so
    config = yaml.safe_load((task / "config.yaml").read_text())
    fields = config["instance_display"]["fields"]
    assert [(f["key"], f["type"], f["label"]) for f in fields] == [("question", "text", "Task"),
                                                                   ("steps", "multiagent.trace", "Run")]
    assert fields[1]["answer_key"] == "reference_answer"
    [attribution] = [s for s in config["annotation_schemes"] if s["name"] == "attribution"]
    assert attribution["description"] == "Which agent caused the failure, and at which step?"   # one line
    assert attribution["step_help"].startswith("Who&When's rule: the responsible agent is the one whose mistake")
    assert attribution["step_help"].endswith("The agent need not be the one speaking at that step.")
    assert main(["check", str(task / "config.yaml")]) == 0


def test_without_show_answer_the_answer_stays_in_gold_only(tmp_path, capsys):
    runs = write_runs(tmp_path / "runs")
    (runs / "Hand-Crafted" / "1.json").write_text(json.dumps({**RUN, "ground_truth": "Lyon"}), encoding="utf-8")
    task = tmp_path / "task"
    assert main(["init", "--from", "who-and-when", str(runs), "-o", str(task)]) == 0
    assert "reference_answer" not in (task / "data" / "runs.jsonl").read_text()
    assert "Lyon" in (task / "gold.jsonl").read_text()
    assert "--show-answer" not in capsys.readouterr().out
