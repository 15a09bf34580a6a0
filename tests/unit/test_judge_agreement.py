"""`agreement --judgments`: a judge against gold, against each annotator, and how often annotators
took its answer; every figure worked out by hand below."""

import json

import pytest

from potato_multiagent.cli import main

from .test_export import attribution, make_task, region_mark, save, scheme
from .test_judgments import judgment, write_lines

FA = "multiagent.failure_attribution"
TC = "multiagent.tool_contention"


@pytest.fixture
def judged(tmp_path):
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    for instance, alice, bob in (("run-1", ("Booker", 2), ("Booker", 1)), ("run-2", ("Solo", 0), ("Helper", 1)),
                                 ("run-3", ("A", 0), ("A", 1))):
        save(config, "alice", instance, {"attribution": attribution(*alice)})
        save(config, "bob", instance, {"attribution": attribution(*bob)})
    # carol took the judge's answer on run-1 (the widget adds from_judgment when "accept" is used)
    save(config, "carol", "run-1", {"attribution": {**attribution("Booker", 2), "from_judgment": "gpt"}})
    judgments = write_lines(tmp_path / "judgments.jsonl", [
        judgment("run-1", "gpt", attribution("Booker", 2)),
        judgment("run-2", "gpt", attribution("Helper", 1)),
        judgment("run-3", "gpt", attribution("B", 1), show=False),
    ])
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": i, "gold": {"mistake_agent": a, "mistake_step": s}}) + "\n"
                            for i, a, s in (("run-1", "Booker", 2), ("run-2", "Helper", 1), ("run-3", "A", 0))))
    return config, judgments, gold


def judge_rows(capsys, *args):
    assert main(["agreement", *map(str, args), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    return {(r["source"], r["measure"], r["annotator"]): (r["value"], r["items"], r["annotators"], r["note"])
            for r in out["judgments"]}


def test_judge_against_gold_each_annotator_and_acceptance(judged, capsys):
    config, judgments, gold = judged
    rows = judge_rows(capsys, config, "--judgments", judgments, "--gold", gold)
    # gold run-1 Booker #3, run-2 Helper #2, run-3 A #1; judge Booker #3, Helper #2, B #2.
    assert rows[("gpt", "agent accuracy vs gold", None)][:2] == (2 / 3, 3)
    assert rows[("gpt", "step accuracy vs gold", None)][:2] == (2 / 3, 3)
    assert rows[("gpt", "step accuracy within ±1 vs gold", None)][:2] == (3 / 3, 3)
    # judge (Booker, Helper, B) vs alice (Booker, Solo, A): p_o = 1/3, p_e = (1/3)(1/3) = 1/9,
    # kappa = (1/3 - 1/9) / (1 - 1/9) = 1/4.
    assert rows[("gpt", "agent kappa (Cohen)", "alice")][:3] == (pytest.approx(1 / 4), 3, 2)
    # vs bob (Booker, Helper, A): p_o = 2/3, p_e = 2/9, kappa = (4/9) / (7/9) = 4/7.
    assert rows[("gpt", "agent kappa (Cohen)", "bob")][:3] == (pytest.approx(4 / 7), 3, 2)
    assert rows[("gpt", "agent agreement (exact)", "bob")][:2] == (2 / 3, 3)
    # nominal alpha vs alice: n = 6, n_Booker = 2, four other labels once; disagreeing pairs
    # Helper/Solo and B/A give sum(o_ck) = 4; sum(n_c n_k, c != k) = 36 - 8 = 28; 1 - 5 * 4 / 28 = 2/7.
    assert rows[("gpt", "agent alpha (nominal)", "alice")][0] == pytest.approx(2 / 7)
    # steps: judge (2, 1, 1) vs alice (2, 0, 0): exact 1/3, within ±1 3/3.
    assert rows[("gpt", "step agreement (exact)", "alice")][:2] == (1 / 3, 3)
    assert rows[("gpt", "step agreement (within ±1)", "alice")][:2] == (1.0, 3)
    # accepted: on run-1..3 the annotators saved 7 values (alice 3, bob 3, carol 1); carol's took gpt's.
    assert rows[("gpt", "accepted by annotators", None)][:3] == (1 / 7, 3, 3)
    assert rows[("gpt", "accepted by annotators", "carol")][:3] == (1.0, 1, 1)
    assert rows[("gpt", "accepted by annotators", "alice")][:3] == (0.0, 3, 1)
    # carol's accepted value is valid (from_judgment is part of the stored value): she copied the
    # judge on her one item, so exact agreement is 1 and kappa is undefined on one item.
    assert rows[("gpt", "agent agreement (exact)", "carol")][:2] == (1.0, 1)
    assert rows[("gpt", "agent kappa (Cohen)", "carol")][0] is None


def test_the_text_report_heads_each_judge_and_a_bad_judgments_file_is_named(judged, capsys, tmp_path):
    config, judgments, gold = judged
    assert main(["agreement", str(config), "--judgments", str(judgments)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "attribution (multiagent.failure_attribution): judge 'gpt'" in lines
    assert "  agent kappa (Cohen) [bob]                     0.571   items 3, annotators 2" in lines
    bad = write_lines(tmp_path / "bad.jsonl", [judgment("run-2", "gpt", attribution("Booker", 0))])
    assert main(["agreement", str(config), "--judgments", str(bad)]) == 1
    assert capsys.readouterr().err == f"error: {bad}:1: value.responsible_agent: 'Booker' is not in this trace\n"


def test_unit_accuracy_against_a_gold_value_of_any_type(tmp_path, capsys):
    config = make_task(tmp_path, [scheme(TC, "contention")])
    value = {"contentions": {"0": "race_condition"}, "regions": [region_mark("race_condition")]}
    other = {"contentions": {"0": "deadlock"}, "regions": [region_mark("deadlock")]}
    save(config, "alice", "run-1", {"contention": value})
    judgments = write_lines(tmp_path / "j.jsonl", [judgment("run-1", "gpt", other, scheme_name="contention")])
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "run-1", "gold": {"schemes": {"contention": value}}}) + "\n")
    rows = judge_rows(capsys, config, "--judgments", judgments, "--gold", gold)
    # one region, gold race_condition, judge deadlock.
    assert rows[("gpt", "unit accuracy vs gold (scheme value)", None)][:2] == (0.0, 1)
    # judge vs alice on that one region: alpha over a single item is n/a (docs/data.md), not 0.
    assert rows[("gpt", "label alpha (nominal)", "alice")][:3] == (None, 1, 2)


def test_accepted_sources_are_found_in_every_type_s_stored_shape():
    """Where each widget writes from_judgment: on the value, on a list entry, on a region entry, or
    (the scorecard) as a map from cell or milestone to the source."""
    from potato_multiagent.judge_agreement import accepted_sources

    assert accepted_sources({"responsible_agent": "A", "decisive_step": 1, "from_judgment": "gpt"}) == {"gpt"}
    assert accepted_sources([{"index": 0, "flags": [], "quality": 2, "from_judgment": "gpt"}, {"index": 1}]) == {"gpt"}
    assert accepted_sources({"contentions": {"0": "deadlock"},
                             "regions": [{"index": 0, "label": "deadlock", "from_judgment": "judge b"}]}) == {"judge b"}
    assert accepted_sources({"agents": {"A": {"dim": 4}}, "team": {}, "milestones": {"m": True},
                             "from_judgment": {"agents/A/dim": "gpt", "milestones/m": "baseline"}}) == {"gpt", "baseline"}
    assert accepted_sources({"agents": {"A": {"dim": 4}}, "team": {}, "milestones": {}}) == set()
