"""Judgments files: reading (one named error per bad line), checking against the task's schemes with
`validate_value`, placing the shown ones into records (`convert --judgments`, `init --judgments`),
and what a judgments key in a record must not change (derivation, validation)."""

import json

import pytest
import yaml

from potato_multiagent import derive, validate_value
from potato_multiagent.types import SCHEMES
from potato_multiagent.cli import main
from potato_multiagent.judgments import (JudgmentError, check_judgments, place_judgments, read_judgments)

from .test_export import RECORDS, attribution, make_task, scheme

FA = "multiagent.failure_attribution"
HR = "multiagent.handoff_review"


def write_lines(path, lines):
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines),
                    encoding="utf-8")
    return path


def judgment(record_id, source, value, scheme_name="attribution", **extra):
    return {"id": record_id, "scheme": scheme_name, "source": source, "value": value, **extra}


def test_every_bad_line_is_named_with_its_line_and_field(tmp_path):
    path = write_lines(tmp_path / "j.jsonl", [
        judgment("run-1", "gpt", attribution("Booker", 2)),
        "{not json",
        {"id": "run-1", "scheme": "attribution", "source": "gpt"},
        judgment("run-1", "gpt", attribution("Booker", 2), colour="red"),
        judgment("run-1", "", attribution("Booker", 2)),
        judgment(True, "gpt", attribution("Booker", 2)),
        judgment("run-1", "gpt", attribution("Booker", 2), show="no"),
        judgment("run-1", "gpt", "{bad json"),
    ])
    with pytest.raises(JudgmentError) as raised:
        read_judgments(path)
    problems = [line.split(": ", 2)[1] for line in raised.value.problems]
    assert [line.split(": ")[0] for line in raised.value.problems] == [f"{path}:{n}" for n in range(2, 9)]
    assert problems == ["line", "value", "colour", "source", "id", "show", "value"]
    assert raised.value.problems[1] == (f"{path}:3: value: missing (the judgment's answer, in the scheme's "
                                        f"stored shape)")


def test_values_are_checked_by_validate_value_against_their_record_and_scheme(tmp_path):
    path = write_lines(tmp_path / "j.jsonl", [
        judgment("run-1", "gpt", attribution("Booker", 2)),
        judgment("run-1", "gpt", json.dumps(attribution("Planner", 0))),   # JSON text is the stored shape too
        judgment("run-2", "gpt", attribution("Booker", 0)),                # Booker is not in run-2
        judgment("run-9", "gpt", attribution("Booker", 0)),
        judgment("run-1", "gpt", attribution("Booker", 2), scheme_name="nope"),
        judgment("run-1", "gpt", [{"index": 0, "step": 1, "from": "Planner", "to": "Booker", "flags": ["x"]}],
                 scheme_name="handoffs"),
    ])
    schemes = {"attribution": scheme(FA, "attribution"), "handoffs": scheme(HR, "handoffs", flags=["lost"])}
    problems = check_judgments(read_judgments(path), schemes, {r["id"]: r for r in RECORDS})
    assert problems[0] == f"{path}:2: source: 'gpt' already judged 'attribution' of 'run-1' at {path}:1"
    assert problems[1] == f"{path}:3: value.responsible_agent: 'Booker' is not in this trace"
    assert problems[2] == f"{path}:4: id: 'run-9' is not a record of the data"
    assert problems[3].startswith(f"{path}:5: scheme: 'nope' is not a multiagent scheme of the config")
    assert problems[4].startswith(f"{path}:6: value[0].") and len(problems) >= 5
    assert all(validate_value(FA, schemes["attribution"], j.value, RECORDS[0]) == []
               for j in read_judgments(path)[:1])


def test_shown_judgments_go_under_the_key_and_evaluation_only_ones_never_enter_a_record(tmp_path):
    path = write_lines(tmp_path / "j.jsonl", [
        judgment("run-1", "gpt", attribution("Booker", 2, "booked the wrong date")),
        judgment("run-1", "baseline", attribution("Planner", 0), show=False),
        judgment("run-2", "gpt", attribution("Solo", 0)),
    ])
    placed = place_judgments(RECORDS, read_judgments(path), key="judge_answers")
    assert placed[0]["judge_answers"] == {"attribution": [
        {"source": "gpt", "value": attribution("Booker", 2, "booked the wrong date")}]}
    assert placed[1]["judge_answers"] == {"attribution": [{"source": "gpt", "value": attribution("Solo", 0)}]}
    assert "judge_answers" not in placed[2] and "baseline" not in json.dumps(placed)
    assert "judge_answers" not in RECORDS[0]  # the input records are left as they were


def test_a_judgments_key_changes_no_derivation_and_no_validation():
    judged = [dict(record, judgments={"attribution": [{"source": "gpt", "value": attribution("X", 0)}]},
                   extra_steps=[{"agent": "Intruder"}]) for record in RECORDS]
    for plain, with_judgments in zip(RECORDS, judged):
        assert derive(with_judgments).to_dict() == derive(plain).to_dict()
    value = json.dumps(attribution("Booker", 2))
    assert validate_value(FA, scheme(FA, "a"), value, judged[0]) == []
    assert validate_value(FA, scheme(FA, "a"), json.dumps(attribution("X", 0)), judged[0]) == [
        "responsible_agent: 'X' is not in this trace"]  # a judgment naming X does not make X part of the trace


@pytest.fixture
def corpus_dir():
    from tests.realdata.conftest import corpus_location

    path, _ = corpus_location()
    if not path.is_dir():
        pytest.skip(f"real-data corpus not found at {path}")
    return path


def test_convert_puts_checked_judgments_into_the_records(tmp_path, corpus_dir, capsys):
    (tmp_path / "task").mkdir()
    config = make_task(tmp_path / "task", [scheme(FA, "attribution")])
    source = corpus_dir / "who_and_when" / "Hand-Crafted" / "1.json"
    record_id = "Hand-Crafted-1"
    truth = json.loads(source.read_text())
    agents = derive({"steps": truth["history"]}).agents
    path = write_lines(tmp_path / "j.jsonl", [
        judgment(record_id, "gpt-4o", attribution(agents[0], 1, "judge's reason")),
        judgment(record_id, "oracle", attribution(truth["mistake_agent"], int(truth["mistake_step"])), show=False)])
    out = tmp_path / "runs.jsonl"
    assert main(["convert", "--from", "who-and-when", str(source), "-o", str(out), "--judgments", str(path),
                 "--config", str(config)]) == 0
    assert "placed 1 judgment(s) under 'judgments'; 1 kept for evaluation only" in capsys.readouterr().out
    record = json.loads(out.read_text())
    assert record["id"] == record_id
    assert record["judgments"] == {"attribution": [{"source": "gpt-4o",
                                                     "value": attribution(agents[0], 1, "judge's reason")}]}
    assert "oracle" not in out.read_text()


def test_convert_refuses_bad_judgments_and_writes_nothing(tmp_path, corpus_dir, capsys):
    (tmp_path / "task").mkdir()
    config = make_task(tmp_path / "task", [scheme(FA, "attribution")])
    source = corpus_dir / "who_and_when" / "Hand-Crafted" / "1.json"
    path = write_lines(tmp_path / "j.jsonl", [judgment("Hand-Crafted-1", "gpt", attribution("Nobody", 0))])
    out = tmp_path / "runs.jsonl"
    assert main(["convert", "--from", "who-and-when", str(source), "-o", str(out), "--judgments", str(path),
                 "--config", str(config)]) == 1
    assert capsys.readouterr().err == f"error: {path}:1: value.responsible_agent: 'Nobody' is not in this trace\n"
    assert not out.exists()
    assert main(["convert", "--from", "who-and-when", str(source), "-o", str(out), "--judgments", str(path)]) == 1
    assert "--judgments needs --config CONFIG" in capsys.readouterr().err
    assert main(["convert", "--from", "who-and-when", str(source), "-o", str(out), "--judgments", str(path),
                 "--config", str(config), "--judgments-key", "steps"]) == 1
    assert "'steps' is where scheme 'attribution' reads its steps" in capsys.readouterr().err


def test_init_puts_judgments_for_the_schemes_it_chose(tmp_path, corpus_dir, capsys):
    source = corpus_dir / "who_and_when" / "Hand-Crafted" / "1.json"
    agents = derive({"steps": json.loads(source.read_text())["history"]}).agents
    path = write_lines(tmp_path / "j.jsonl", [judgment("Hand-Crafted-1", "gpt", attribution(agents[-1], 0))])
    task = tmp_path / "task"
    assert main(["init", "--from", "who-and-when", str(source), "-o", str(task), "--judgments", str(path)]) == 0
    record = json.loads((task / "data" / "runs.jsonl").read_text())
    assert record["judgments"]["attribution"][0]["source"] == "gpt"
    config = yaml.safe_load((task / "config.yaml").read_text())
    assert "attribution" in [s["name"] for s in config["annotation_schemes"]]
    assert main(["check", str(task / "config.yaml")]) == 0
    capsys.readouterr()
    bad = write_lines(tmp_path / "bad.jsonl", [judgment("Hand-Crafted-1", "gpt", attribution(agents[-1], 0),
                                                        scheme_name="handoffz")])
    assert main(["init", "--from", "who-and-when", str(source), "-o", str(tmp_path / "t2"), "--judgments",
                 str(bad)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {bad}: judgments for 'handoffz', which init writes no scheme for (it writes: attribution, contention, "
        f"handoffs, interaction_graph, mast, orchestration, outcome, tool_calls; scorecard, emergent only by hand). Run init "
        f"without --judgments, add the scheme to config.yaml, then put the judgments in with `potato-multiagent "
        f"convert ... --judgments FILE --config config.yaml`; nothing written"]
    assert not (tmp_path / "t2" / "config.yaml").exists() and not (tmp_path / "t2" / "data").exists()


def test_init_adds_a_scheme_it_left_out_when_the_judgments_judge_it(tmp_path, capsys):
    """A one-agent run gets no attribution from init; a judge that attributed it anyway is shown."""
    run = tmp_path / "runs" / "Hand-Crafted" / "1.json"
    run.parent.mkdir(parents=True)
    run.write_text(json.dumps({"question": "q?", "history": [{"name": "Solo", "content": "hi"},
                                                              {"name": "Solo", "content": "bye"}],
                               "mistake_agent": "Solo", "mistake_step": "1"}), encoding="utf-8")
    path = write_lines(tmp_path / "j.jsonl", [judgment("Hand-Crafted-1", "gpt", attribution("Solo", 1))])
    task = tmp_path / "task"
    assert main(["init", "--from", "who-and-when", str(run), "-o", str(task), "--judgments", str(path)]) == 0
    assert "chose attribution (multiagent.failure_attribution): no run has two agents: there is no one to " \
           "attribute a failure to among others; added because j.jsonl judges it" in capsys.readouterr().out
    config = yaml.safe_load((task / "config.yaml").read_text())
    assert [s["name"] for s in config["annotation_schemes"]] == ["outcome", "attribution"]
    record = json.loads((task / "data" / "runs.jsonl").read_text())
    assert record["judgments"]["attribution"][0]["value"] == attribution("Solo", 1)
    assert main(["check", str(task / "config.yaml")]) == 0


@pytest.mark.parametrize("type_name", sorted(SCHEMES))
def test_every_type_takes_the_judgment_display_keys_and_names_a_bad_one(type_name):
    scheme = SCHEMES[type_name]
    base = {"name": "s", "description": "d"}
    if type_name.endswith("agent_scorecard"):
        base["agent_dimensions"] = ["quality"]
    config, problems = scheme.parse_config({**base, "show_judgments": "after_answer", "judgments_key": "judge"})
    assert problems == [] and config.show_judgments == "after_answer" and config.judgments_key == "judge"
    assert scheme.widget_config(config)["show_judgments"] == "after_answer"
    _, problems = scheme.parse_config({**base, "show_judgments": "sometimes"})
    assert len(problems) == 1 and problems[0].startswith("show_judgments: "), problems
