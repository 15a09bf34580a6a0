"""`adjudicate`: the items where annotators disagree become a task carrying their answers as
judgments; unanimous ones go to gold; the report says what differed in words. `export --as-gold`
turns the adjudicator's saved values into a gold file that `agreement --gold` reads."""

import json

import yaml

from potato_multiagent.adjudicate import adjudicate
from potato_multiagent.cli import main
from potato_multiagent.decisions import decisions, differences

from .test_export import attribution, make_task, region_mark, save, scheme

FA = "multiagent.failure_attribution"
HR = "multiagent.handoff_review"
TC = "multiagent.tool_contention"


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def two_annotators(tmp_path):
    """alice and bob: attribution differs on run-1 only; handoffs differ on run-1 only."""
    config = make_task(tmp_path, [scheme(FA, "attribution"), scheme(HR, "handoffs", flags=["lost", "garbled"])])
    handoff = {"index": 0, "from_step": 0, "step": 1, "from": "Planner", "to": "Booker", "flags": ["lost"],
               "quality": 2, "note": "", "explicit": False}
    save(config, "alice", "run-1", {"attribution": attribution("Booker", 2, "wrong date"),
                                    "handoffs": [handoff]})
    save(config, "bob", "run-1", {"attribution": attribution("Planner", 0, "bad plan"),
                                  "handoffs": [dict(handoff, flags=[], quality=4)]})
    save(config, "alice", "run-2", {"attribution": attribution("Solo", 0, "a")})
    save(config, "bob", "run-2", {"attribution": attribution("Solo", 0, "different words, same decision")})
    save(config, "alice", "run-3", {"attribution": attribution("A", 1)})  # one annotator only
    return config


def test_decisions_are_worded_with_step_numbers_and_the_types_own_words():
    record = {"id": "r", "steps": [{"agent": "Planner"}, {"agent": "Booker"}]}
    fa = scheme(FA, "attribution")
    assert decisions(fa, attribution("Booker", 1), record) == {"attribution": "Booker #2"}
    assert decisions(fa, attribution(None, None), record) == {"attribution": "no agent no step"}
    hr = scheme(HR, "h", flags=["lost", "garbled"])
    entry = {"index": 0, "from_step": 0, "step": 1, "from": "Planner", "to": "Booker", "flags": ["garbled", "lost"],
             "explicit": False,
             "quality": 3}
    said = decisions(hr, [entry], record)
    assert said == {"handoff Planner #1 -> Booker #2": "flags lost, garbled; quality 3"}
    assert differences("handoff_review", {"a": said, "b": {}}) == {
        "handoff Planner #1 -> Booker #2": {"a": "flags lost, garbled; quality 3", "b": "not reviewed"}}


def test_adjudicate_writes_the_disagreeing_items_with_blind_judgments_and_unanimous_gold(tmp_path, capsys):
    (tmp_path / "task").mkdir()
    config = two_annotators(tmp_path / "task")
    out = tmp_path / "adj"
    assert main(["adjudicate", str(config), "-o", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[:2] == [
        "run-1 / attribution: A: Booker #3; B: Planner #1",
        "run-1 / handoffs / handoff Planner #1 -> Booker #2: A: flags lost; quality 2; B: no flag; quality 4"]
    assert "left out 1 item/scheme pair(s) judged by too few annotators: run-3 / attribution (1)" in printed
    records = read_jsonl(out / "data" / "adjudication.jsonl")
    assert [r["id"] for r in records] == ["run-1"]
    shown = records[0]["judgments"]
    assert [j["source"] for j in shown["attribution"]] == ["annotator 1", "annotator 2"]
    assert shown["attribution"][0]["value"] == attribution("Booker", 2, "wrong date")
    assert "alice" not in (out / "data" / "adjudication.jsonl").read_text()
    gold = read_jsonl(out / "gold.jsonl")
    assert gold == [{"id": "run-2", "gold": {"schemes": {"attribution": attribution("Solo", 0, "a")},
                                             "settled": {"attribution": "unanimous"},
                                             "responsible_agent": "Solo", "decisive_step": 0}}]
    written = yaml.safe_load((out / "config.yaml").read_text())
    original = yaml.safe_load(config.read_text())
    assert written["annotation_task_name"].startswith(f"Adjudication of {original['annotation_task_name']} (")
    assert written["data_files"] == ["data/adjudication.jsonl"]
    assert [s["name"] for s in written["annotation_schemes"]] == ["attribution", "handoffs"]
    report = (out / "disagreements.md").read_text()
    assert "## run-1\n- attribution: A: Booker #3; B: Planner #1\n" in report
    assert read_jsonl(out / "disagreements.jsonl")[0] == {
        "id": "run-1", "scheme": "attribution", "unit": "attribution",
        "decisions": {"annotator 1": "Booker #3", "annotator 2": "Planner #1"}}
    assert main(["check", str(out / "config.yaml")]) == 0
    assert main(["adjudicate", str(config), "-o", str(out)]) == 1  # never over an existing task
    assert "already exists" in capsys.readouterr().err


def test_names_on_request_and_only_the_differing_schemes(tmp_path, capsys):
    (tmp_path / "task").mkdir()
    config = make_task(tmp_path / "task", [scheme(FA, "attribution"), scheme(TC, "contention")])
    for user, agent in (("alice", "Booker"), ("bob", "Planner")):
        save(config, user, "run-1", {"attribution": attribution(agent, 1),
                                     "contention": {"contentions": {"0": "race_condition"},
                                                    "regions": [region_mark("race_condition")]}})
    result = adjudicate(config, tmp_path / "adj", only_disagreements=True, show_names=True)
    assert result.report == ["run-1 / attribution: alice: Booker #2; bob: Planner #2"]
    record = read_jsonl(tmp_path / "adj" / "data" / "adjudication.jsonl")[0]
    assert list(record["judgments"]) == ["attribution"]
    assert [j["source"] for j in record["judgments"]["attribution"]] == ["alice", "bob"]
    written = yaml.safe_load((tmp_path / "adj" / "config.yaml").read_text())
    assert [s["name"] for s in written["annotation_schemes"]] == ["attribution"]
    gold = read_jsonl(tmp_path / "adj" / "gold.jsonl")
    assert gold[0]["id"] == "run-1" and list(gold[0]["gold"]["schemes"]) == ["contention"]
    assert "responsible_agent" not in gold[0]["gold"]


def test_a_disputed_items_agreed_schemes_stay_gold_unless_the_adjudicator_changes_them(tmp_path, capsys):
    """Annotators differ on run-1's attribution and agree on its contention label: the adjudicator
    gets both schemes (the agreed one as context), gold keeps the agreed label, and the final gold
    holds the adjudicated attribution beside it."""
    (tmp_path / "task").mkdir()
    config = make_task(tmp_path / "task", [scheme(FA, "attribution"), scheme(TC, "contention")])
    agreed = {"contentions": {"0": "race_condition"}, "regions": [region_mark("race_condition")]}
    for user, agent in (("alice", "Booker"), ("bob", "Planner")):
        save(config, user, "run-1", {"attribution": attribution(agent, 1), "contention": agreed})
    out = tmp_path / "adj"
    assert main(["adjudicate", str(config), "-o", str(out)]) == 0
    assert "wrote 1 gold line(s) of what every annotator agreed on (1 on an item to adjudicate)" in capsys.readouterr().out
    record = read_jsonl(out / "data" / "adjudication.jsonl")[0]
    assert list(record["judgments"]) == ["attribution", "contention"]   # the agreed one shown too
    assert read_jsonl(out / "gold.jsonl") == [{"id": "run-1", "gold": {
        "schemes": {"contention": agreed}, "settled": {"contention": "unanimous"}}}]

    save(out / "config.yaml", "judy", "run-1", {"attribution": attribution("Booker", 1, "settled")})
    final = tmp_path / "final.jsonl"
    assert main(["export", str(out / "config.yaml"), "--as-gold", str(final), "--merge-gold", str(out / "gold.jsonl")]) == 0
    [line] = read_jsonl(final)
    assert line["gold"]["schemes"] == {"contention": agreed, "attribution": attribution("Booker", 1, "settled")}
    assert line["gold"]["settled"] == {"contention": "unanimous", "attribution": "adjudicated"}

    other = tmp_path / "changed.jsonl"
    changed = {"contentions": {"0": "benign"}, "regions": [region_mark("benign")]}
    save(out / "config.yaml", "judy", "run-1", {"attribution": attribution("Booker", 1, "settled"), "contention": changed})
    assert main(["export", str(out / "config.yaml"), "--as-gold", str(other), "--merge-gold", str(out / "gold.jsonl")]) == 0
    [line] = read_jsonl(other)
    assert line["gold"]["schemes"]["contention"] == changed
    assert line["gold"]["settled"] == {"contention": "adjudicated", "attribution": "adjudicated"}


def test_the_adjudicators_values_become_gold_that_agreement_reads(tmp_path, capsys):
    (tmp_path / "task").mkdir()
    config = two_annotators(tmp_path / "task")
    out = tmp_path / "adj"
    assert main(["adjudicate", str(config), "-o", str(out)]) == 0
    save(out / "config.yaml", "judge-judy", "run-1", {"attribution": attribution("Booker", 1, "settled")})
    gold_path = tmp_path / "final-gold.jsonl"
    capsys.readouterr()
    assert main(["export", str(out / "config.yaml"), "--as-gold", str(gold_path),
                 "--merge-gold", str(out / "gold.jsonl")]) == 0
    assert f"wrote 2 gold line(s) to {gold_path} (1 merged from {out / 'gold.jsonl'})" in capsys.readouterr().out
    gold = read_jsonl(gold_path)
    assert [g["id"] for g in gold] == ["run-1", "run-2"]
    assert gold[0]["gold"]["responsible_agent"] == "Booker" and gold[0]["gold"]["decisive_step"] == 1
    assert gold[0]["gold"]["settled"] == {"attribution": "adjudicated"}
    # The original task against that gold: alice Booker #3 / Solo #1, bob Planner #1 / Solo #1.
    assert main(["agreement", str(config), "--gold", str(gold_path), "--json"]) == 0
    rows = {(r["measure"], r["annotator"]): r for r in json.loads(capsys.readouterr().out)}
    # run-1 gold Booker step 1, run-2 Solo step 0; alice also run-3 (no gold). agent: alice 2/2, bob 1/2.
    assert rows[("agent accuracy vs gold", None)]["value"] == 3 / 4
    assert rows[("agent accuracy vs gold", "bob")]["value"] == 1 / 2
    # steps: alice 2 (gold 1) no, 0 yes; bob 0 (gold 1) no, 0 yes.
    assert rows[("step accuracy vs gold", None)]["value"] == 2 / 4


def test_two_adjudicators_who_differ_are_a_named_conflict_left_out(tmp_path, capsys):
    (tmp_path / "task").mkdir()
    config = two_annotators(tmp_path / "task")
    out = tmp_path / "adj"
    adjudicate(config, out)
    save(out / "config.yaml", "judy", "run-1", {"attribution": attribution("Booker", 1)})
    save(out / "config.yaml", "kim", "run-1", {"attribution": attribution("Planner", 1)})
    assert main(["export", str(out / "config.yaml"), "--as-gold", str(tmp_path / "g.jsonl")]) == 0
    printed = capsys.readouterr().out
    assert "conflict (left out): run-1 / attribution: judy: Booker #2; kim: Planner #2" in printed
    assert (tmp_path / "g.jsonl").read_text() == ""


def test_files_the_task_config_names_stay_found_from_the_new_folder(tmp_path):
    (tmp_path / "task").mkdir()
    config = two_annotators(tmp_path / "task")
    (tmp_path / "task" / "layouts").mkdir()
    (tmp_path / "task" / "layouts" / "page.html").write_text("<div></div>")
    settings = yaml.safe_load(config.read_text())
    settings.update({"html_layout": "layouts/page.html", "alert_time_each_instance": "10"})
    config.write_text(yaml.safe_dump(settings))
    adjudicate(config, tmp_path / "adj")
    written = yaml.safe_load((tmp_path / "adj" / "config.yaml").read_text())
    assert written["html_layout"] == str((tmp_path / "task" / "layouts" / "page.html").resolve())
    assert written["alert_time_each_instance"] == "10" and written["task_dir"] == "."


def test_when_everyone_agrees_only_gold_is_written(tmp_path, capsys):
    (tmp_path / "task").mkdir()
    config = make_task(tmp_path / "task", [scheme(FA, "attribution")])
    for user in ("alice", "bob"):
        save(config, user, "run-2", {"attribution": attribution("Helper", 1)})
    assert main(["adjudicate", str(config), "-o", str(tmp_path / "adj")]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "nothing to adjudicate: every item judged by enough annotators is unanimous (no task written)"
    assert not (tmp_path / "adj" / "config.yaml").exists() and not (tmp_path / "adj" / "data").exists()
    assert [line["id"] for line in read_jsonl(tmp_path / "adj" / "gold.jsonl")] == ["run-2"]


def test_each_other_type_is_worded_by_what_it_judges():
    from .test_export import RECORDS

    run_1, run_3 = RECORDS[0], RECORDS[2]
    calls = scheme("multiagent.tool_call_review", "calls")
    assert decisions(calls, [{"index": 0, "step": 1, "position": 0, "id": "c1", "tool": "search",
                              "verdict": "wrong_args", "notes": "wrong city"}], run_1) == {
        "call search by Booker at #2": "verdict wrong_args"}
    multi = scheme("multiagent.tool_call_review", "calls", multi_verdict=True)
    assert decisions(multi, [{"index": 0, "step": 0, "position": 0, "id": "t1", "tool": "search",
                              "verdict": "wrong_tool", "verdicts": ["wrong_tool", "wrong_args"], "notes": ""}],
                     run_3) == {"call search by A at #1": "verdicts wrong_tool, wrong_args"}
    behaviours = scheme("multiagent.emergent_behavior", "behaviour", behaviors=["groupthink", "collusion"])
    assert decisions(behaviours, {"groupthink": {"turns": [3, 0], "note": "x"}}, run_1) == {
        "behaviour 'groupthink'": "turns #1, #4", "behaviour 'collusion'": "none"}
    scores = scheme("multiagent.agent_scorecard", "scores", agent_dimensions=["contribution"],
                    team_dimensions=["efficiency"], milestones=["booked"])
    assert decisions(scores, {"agents": {"Booker": {"contribution": 2}}, "team": {}, "milestones": {},
                              "not_applicable": {"agents": {}, "team": ["efficiency"]}}, run_1) == {
        "Booker 'contribution'": "score 2", "team 'efficiency'": "not applicable", "milestone 'booked'": "not reached"}
    graph = scheme("multiagent.agent_interaction_graph", "graph")
    said = decisions(graph, {"critical_nodes": ["Booker", "Planner"], "edges": {},
                             "edge_marks": [{"from": "Planner", "to": "Booker", "status": "problematic"}]}, run_1)
    assert said == {"critical path": "Booker -> Planner", "edge Planner -> Booker": "problematic"}
    assert differences("agent_interaction_graph", {"a": said, "b": {"critical path": "Booker -> Planner"}}) == {
        "edge Planner -> Booker": {"a": "problematic", "b": "normal"}}


def test_a_type_that_declares_no_describer_gets_the_default_words_not_a_key_error():
    """Shared code asks the type's adapter; one that declares neither ``describe`` nor
    ``not_judged`` is worded row by row from its item key, and a left-out unit is "not judged"."""
    from potato_multiagent.types._base.adapter import Adapter

    class PlanAdherenceAdapter(Adapter):
        item_key = ("step",)

    rows = [{"step": 0, "followed": True}, {"step": 2, "followed": False}]
    assert PlanAdherenceAdapter.describe(rows, config=None) == {"step 0": "followed True",
                                                                "step 2": "followed False"}
    assert differences("plan_adherence", {"alice": {"step 0": "followed True"}, "bob": {}}) == {
        "step 0": {"alice": "followed True", "bob": "not judged"}}


def test_each_built_in_type_words_its_left_out_units_itself():
    from potato_multiagent.decisions import not_judged

    assert not_judged("handoff_review") == "not reviewed"
    assert not_judged("mast") == "not tagged"
