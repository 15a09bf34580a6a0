"""`potato-multiagent agreement`: every figure checked against a value worked out by hand here.

Krippendorff's alpha by hand: with o the coincidence matrix of the pairable values and n_c the
number of values c, alpha = 1 - (n - 1) * sum(o_ck * d_ck) / sum(n_c * n_k * d_ck); nominal
d_ck = 1 for c != k; ordinal d_ck = (sum of n_g for g from c to k - (n_c + n_k) / 2) ** 2.
"""

import json

import pytest

from potato_multiagent import load_task
from potato_multiagent.types._base.statistics import krippendorff_alpha
from potato_multiagent.cli import main

from .test_export import attribution, handoff, make_task, region_mark, save, scheme

FA = "multiagent.failure_attribution"


def figures(config, gold=None, within=1):
    """`{(measure, annotator): row}` from `load_task(...).agreement()`."""
    frame = load_task(config).agreement(gold=gold, within=within)
    frame = frame.astype(object).where(frame.notna(), None)
    return {(row["measure"], row["annotator"]): row for row in frame.to_dict("records")}


def value(row):
    return row["value"], row["items"], row["annotators"]


# --------------------------------------------------------------------------- failure attribution


@pytest.fixture
def attributed(tmp_path):
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    save(config, "alice", "run-1", {"attribution": attribution("Booker", 2)})
    save(config, "bob", "run-1", {"attribution": attribution("Booker", 1)})
    save(config, "carol", "run-1", {"attribution": attribution("Planner", 2)})
    save(config, "alice", "run-2", {"attribution": attribution("Solo", 0)})
    save(config, "bob", "run-2", {"attribution": attribution("Solo", 0)})
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "run-1", "gold": {"mistake_agent": "Booker", "mistake_step": 2,
                                                        "mistake_reason": "wrong date"}}) + "\n"
                    + json.dumps({"id": "run-2", "gold": {"mistake_agent": "Helper", "mistake_step": "1"}}) + "\n")
    return config, gold


def test_attribution_agreement_between_annotators(attributed):
    config, _ = attributed
    got = figures(config)
    # run-1 pairs: (Booker, Booker) agree, two pairs with Planner do not; run-2: (Solo, Solo) agree.
    assert value(got[("agent agreement (exact)", None)]) == (2 / 4, 2, 3)
    # steps run-1 (2, 1, 2): one of three pairs equal, all within 1; run-2 (0, 0).
    assert value(got[("step agreement (exact)", None)]) == (2 / 4, 2, 3)
    assert value(got[("step agreement (within ±1)", None)]) == (4 / 4, 2, 3)
    # Nominal alpha: n_Booker = 2, n_Planner = 1, n_Solo = 2 (n = 5); o_BP = o_PB = 1, so
    # 1 - 4 * 2 / (2 * (2*1 + 2*2 + 1*2)) = 1 - 8/16.
    assert value(got[("agent alpha (nominal)", None)]) == (pytest.approx(0.5), 2, 3)
    kappa = got[("agent kappa (Cohen)", None)]
    assert kappa["value"] is None and kappa["note"] == "Cohen's kappa needs exactly two annotators"


def test_attribution_accuracy_against_gold_pooled_and_per_annotator(attributed):
    config, gold = attributed
    got = figures(config, gold=str(gold))
    # agent: alice run-1 ok, run-2 no; bob the same; carol run-1 no.
    assert value(got[("agent accuracy vs gold", None)]) == (2 / 5, 2, 3)
    assert value(got[("agent accuracy vs gold", "alice")]) == (1 / 2, 2, 1)
    assert value(got[("agent accuracy vs gold", "carol")]) == (0 / 1, 1, 1)
    # step: gold 2 and 1; alice 2 and 0, bob 1 and 0, carol 2.
    assert value(got[("step accuracy vs gold", None)]) == (2 / 5, 2, 3)
    assert value(got[("step accuracy vs gold", "bob")]) == (0 / 2, 2, 1)
    assert value(got[("step accuracy within ±1 vs gold", None)]) == (5 / 5, 2, 3)


def test_two_annotators_get_cohens_kappa_and_within_k_follows_the_option(tmp_path):
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    for instance, alice, bob in (("run-1", ("Booker", 0), ("Booker", 3)), ("run-2", ("Solo", 0), ("Helper", 1)),
                                 ("run-3", ("A", 0), ("A", 1))):
        save(config, "alice", instance, {"attribution": attribution(*alice)})
        save(config, "bob", instance, {"attribution": attribution(*bob)})
    got = figures(config, within=2)
    # labels (Booker, Solo, A) vs (Booker, Helper, A): p_o = 2/3, p_e = 1/9 + 1/9 = 2/9 -> (2/3 - 2/9) / (7/9).
    assert value(got[("agent kappa (Cohen)", None)]) == (pytest.approx(4 / 7), 3, 2)
    # step distances 3, 1, 1.
    assert value(got[("step agreement (within ±2)", None)]) == (2 / 3, 3, 2)


def test_nobody_judging_the_same_run_gives_no_figure_and_says_why(tmp_path):
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    save(config, "alice", "run-1", {"attribution": attribution("Booker", 2)})
    save(config, "bob", "run-2", {"attribution": attribution("Solo", 0)})
    row = figures(config)[("agent agreement (exact)", None)]
    assert (row["value"], row["items"], row["note"]) == (None, 0, "no item was judged by two annotators")


def test_the_cli_prints_figures_with_their_counts_and_json_on_request(attributed, capsys):
    config, gold = attributed
    assert main(["agreement", str(config), "--gold", str(gold)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "attribution (multiagent.failure_attribution)"
    assert "  agent agreement (exact)                       0.500   items 2, annotators 3" in lines
    assert "  agent accuracy vs gold [carol]                0.000   items 1, annotators 1" in lines
    assert main(["agreement", str(config), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)[0]
    assert first == {"scheme": "attribution", "type": FA, "measure": "agent agreement (exact)", "annotator": None,
                     "value": 0.5, "items": 2, "annotators": 3, "note": "", "bulk": None, "bulk_left_out": None}


def test_a_bad_gold_file_is_named_with_its_line(tmp_path, capsys):
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "run-1", "gold": {}}\n{"id": "run-2"}\n')
    assert main(["agreement", str(config), "--gold", str(gold)]) == 1
    assert capsys.readouterr().err == f"error: {gold}:2: gold: expected an object\n"


# --------------------------------------------------------------------------- the other types


def test_handoff_review_alpha_per_flag_and_ordinal_quality_matched_by_handoff(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.handoff_review", "handoffs", flags=["info_loss", "garbling"])])
    save(config, "alice", "run-1", {"handoffs": [handoff(0, 1, 0, "Planner", "Booker", ["garbling"], 2),
                                                 handoff(1, 3, 2, "Booker", "Planner", [], 4)]})
    save(config, "bob", "run-1", {"handoffs": [handoff(1, 3, 2, "Booker", "Planner", ["info_loss"], 4),
                                               handoff(0, 1, 0, "Planner", "Booker", ["garbling"], 3)]})
    save(config, "carol", "run-1", {"handoffs": [handoff(0, 1, 0, "Planner", "Booker", note="a note is no review")]})
    got = figures(config)
    assert value(got[("flag 'garbling' alpha (nominal)", None)]) == (1.0, 2, 2)
    # info_loss: (F, F) and (F, T): n_F = 3, n_T = 1 -> 1 - 3 * 2 / (2 * 3 * 1).
    assert value(got[("flag 'info_loss' alpha (nominal)", None)]) == (pytest.approx(0.0), 2, 2)
    # quality (2, 3) and (4, 4) on 1..5: d_23 = 1, d_24 = 6.25, d_34 = 2.25 -> 1 - 3 * 2 / 36.
    assert value(got[("quality alpha (ordinal)", None)]) == (pytest.approx(5 / 6), 2, 2)


def test_tool_call_review_kappa_and_alpha_on_verdicts_by_call(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.tool_call_review", "calls")])
    places = [(0, 0, 0, "t1", "search"), (1, 0, 1, "t2", "fetch"), (2, 1, 0, "t3", "search"), (3, 1, 1, "t4", "book")]

    def verdicts(*given):
        return [{"index": i, "step": s, "position": p, "id": c, "tool": t, "verdict": v, "notes": ""}
                for (i, s, p, c, t), v in zip(places, given)]

    save(config, "alice", "run-3", {"calls": verdicts("correct", "wrong_args", "correct", "wrong_tool")})
    save(config, "bob", "run-3", {"calls": list(reversed(verdicts("correct", "correct", "correct", "wrong_tool")))})
    got = figures(config)
    # p_o = 3/4; p_e = (2/4)(3/4) + (1/4)(1/4) = 7/16 -> (3/4 - 7/16) / (9/16).
    assert value(got[("verdict kappa (Cohen)", None)]) == (pytest.approx(5 / 9), 4, 2)
    # n_correct = 5, n_args = 1, n_tool = 2 (n = 8); disagreeing o = 2 -> 1 - 7 * 2 / (2 * (5 + 10 + 2)).
    assert value(got[("verdict alpha (nominal)", None)]) == (pytest.approx(10 / 17), 4, 2)


def test_tool_contention_alpha_on_labels_by_region(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.tool_contention", "contention")])
    lock = {"index": 1, "resource": "lock", "start": 5, "end": 7, "agents": ["A", "B"], "note": "",
            "calls": [{"index": 2, "agent": "A", "resource": "lock", "start": 5, "end": 6},
                      {"index": 3, "agent": "B", "resource": "lock", "start": 5.5, "end": 7}]}
    db = {**region_mark("x"), "agents": ["A", "B"],
          "calls": [{"index": 0, "agent": "A", "resource": "db", "start": 0, "end": 2},
                    {"index": 1, "agent": "B", "resource": "db", "start": 1, "end": 3}]}

    def labelled(db_label, lock_label):
        return {"contentions": {"0": db_label, "1": lock_label},
                "regions": [{**db, "label": db_label}, {**lock, "label": lock_label}]}

    save(config, "alice", "run-3", {"contention": labelled("race_condition", "deadlock")})
    save(config, "bob", "run-3", {"contention": labelled("race_condition", "benign")})
    # n_race = 2, n_deadlock = n_benign = 1; disagreeing o = 2 -> 1 - 3 * 2 / (2 * (2 + 2 + 1)).
    assert value(figures(config)[("label alpha (nominal)", None)]) == (pytest.approx(0.4), 2, 2)


def test_emergent_behavior_jaccard_of_turn_sets_counts_an_empty_value_as_no_turns(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.emergent_behavior", "behaviour")])
    save(config, "alice", "run-1", {"behaviour": {"groupthink": {"turns": [0, 1, 2], "note": ""},
                                                  "cascading_error": {"turns": [3], "note": ""}}})
    save(config, "bob", "run-1", {"behaviour": {"groupthink": {"turns": [1, 2, 3], "note": ""}}})
    save(config, "carol", "run-1", {"behaviour": {}})
    got = figures(config)
    # groupthink: alice-bob 2/4, each with carol 0.
    assert value(got[("'groupthink' turn-set Jaccard", None)]) == (pytest.approx(0.5 / 3), 1, 3)
    # cascading_error: alice-bob 0, alice-carol 0; bob-carol both empty, skipped.
    assert value(got[("'cascading_error' turn-set Jaccard", None)]) == (0.0, 1, 3)
    assert got[("'collusion' turn-set Jaccard", None)]["value"] is None


def test_agent_scorecard_ordinal_alpha_per_dimension_and_nominal_milestones(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.agent_scorecard", "scores", agent_dimensions=["contribution"],
                                         team_dimensions=["efficiency"], milestones=["booked"])])
    save(config, "alice", "run-1", {"scores": {"agents": {"Planner": {"contribution": 4}, "Booker": {"contribution": 2}},
                                               "team": {"efficiency": 3}, "milestones": {"booked": True}}})
    save(config, "bob", "run-1", {"scores": {"agents": {"Planner": {"contribution": 5}, "Booker": {"contribution": 2}},
                                             "team": {}, "milestones": {},
                                             "not_applicable": {"agents": {}, "team": ["efficiency"]}}})
    got = figures(config)
    # (4, 5) and (2, 2): n_2 = 2, n_4 = n_5 = 1; d_45 = 1, d_24 = 2.25, d_25 = 6.25 -> 1 - 3 * 2 / 36.
    assert value(got[("agent 'contribution' alpha (ordinal)", None)]) == (pytest.approx(5 / 6), 2, 2)
    assert value(got[("team 'efficiency' alpha (ordinal)", None)])[0] is None  # bob marked it not applicable
    # booked: (True, False) on one item: the formula's 1 - 1 * 2 / (2 * 1 * 1) = 0 says nothing about
    # chance agreement, so there is no value and the note says why.
    milestones = got[("milestones alpha (nominal)", None)]
    assert (value(milestones), milestones["note"]) == (
        (None, 1, 2), "one item: alpha needs two or more to estimate chance agreement")


def test_interaction_graph_jaccard_of_critical_nodes_and_edge_statuses(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.agent_interaction_graph", "graph")])
    save(config, "alice", "run-1", {"graph": {"critical_nodes": ["Planner", "Booker"],
                                              "edges": {"Planner->Booker": "critical"},
                                              "edge_marks": [{"from": "Planner", "to": "Booker", "status": "critical"}]}})
    save(config, "bob", "run-1", {"graph": {"critical_nodes": ["Booker"], "edges": {}, "edge_marks": []}})
    save(config, "carol", "run-1", {"graph": {"critical_nodes": [], "edges": {"Booker->Planner": "problematic"},
                                              "edge_marks": [{"from": "Booker", "to": "Planner",
                                                              "status": "problematic"}]}})
    got = figures(config)
    assert value(got[("critical nodes Jaccard", None)]) == (pytest.approx(1 / 6), 1, 3)
    # P->B (critical, normal, normal), B->P (normal, normal, problematic): one agreeing pair each.
    assert value(got[("edge status agreement (exact)", None)]) == (pytest.approx(2 / 6), 2, 3)
    # n_normal = 4, n_critical = n_problematic = 1 (n = 6); disagreeing o = 4 -> 1 - 5 * 4 / (2 * 9).
    assert value(got[("edge status alpha (nominal)", None)]) == (pytest.approx(-1 / 9), 2, 3)


def test_alpha_matches_krippendorffs_own_worked_example():
    import pandas as pd

    data = [[None, None, None, None, None, 3, 4, 1, 2, 1, 1, 3, 3, None, 3],
            [1, None, 2, 1, 3, 3, 4, 3, None, None, None, None, None, None, None],
            [None, None, 2, 1, 3, 4, 4, None, 2, 1, 1, 3, 3, None, 4]]
    rows = pd.DataFrame([{"instance_id": f"u{unit}", "user": f"c{coder}", "v": rating}
                         for coder, ratings in enumerate(data) for unit, rating in enumerate(ratings)
                         if rating is not None])
    figure = krippendorff_alpha("m", rows, ("instance_id",), "v", "nominal")
    assert round(figure.value, 6) == 0.691358
    assert (figure.items, figure.annotators) == (12, 3)  # units rated by two or more coders


# --------------------------------------------------------------------------- undefined figures, bulk


def test_alpha_and_kappa_on_one_item_are_n_a_with_the_reason(tmp_path, capsys):
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    save(config, "alice", "run-1", {"attribution": attribution("Booker", 2)})
    save(config, "bob", "run-1", {"attribution": attribution("Planner", 2)})
    got = figures(config)
    for measure in ("agent alpha (nominal)", "agent kappa (Cohen)"):
        name = measure.split()[1]
        assert (value(got[(measure, None)]), got[(measure, None)]["note"]) == (
            (None, 1, 2), f"one item: {name} needs two or more to estimate chance agreement")
    assert value(got[("agent agreement (exact)", None)]) == (0.0, 1, 2)  # an observed rate is a rate
    assert main(["agreement", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert ("  agent alpha (nominal)                           n/a   items 1, annotators 2  "
            "(one item: alpha needs two or more to estimate chance agreement)") in lines


def bulk_fine(index, step, from_step, source, target):
    return {**handoff(index, step, from_step, source, target, quality=5), "bulk": True}


def test_exclude_bulk_leaves_bulk_marked_handoffs_out_and_the_report_counts_them(tmp_path, capsys):
    config = make_task(tmp_path, [scheme("multiagent.handoff_review", "handoffs")])
    for user, reviewed_quality in (("alice", 2), ("bob", 4)):
        save(config, user, "run-1", {"handoffs": [handoff(0, 1, 0, "Planner", "Booker", quality=reviewed_quality),
                                                  bulk_fine(1, 3, 2, "Booker", "Planner")]})
    save(config, "alice", "run-3", {"handoffs": [handoff(0, 1, 0, "A", "B", quality=3)]})
    save(config, "bob", "run-3", {"handoffs": [handoff(0, 1, 0, "A", "B", quality=3)]})
    kept = figures(config)[("quality alpha (ordinal)", None)]
    # (2, 4), (5, 5) bulk, (3, 3): n_2 = n_4 = 1, n_3 = n_5 = 2 (n = 6); d_24 = (1 + 2 + 1 - 1) ** 2 = 9;
    # sum n_c n_k d over c != k: 2 * (2*9 + 2*d_23 + 2*d_25 + 2*d_34 + 2*d_45 + 4*d_35) / 2 with
    # d_23 = 2.25, d_25 = (1+2+1+2 - 1.5)**2 = 20.25, d_34 = 2.25, d_45 = 2.25, d_35 = (2+1+2 - 2)**2 = 9.
    expected_kept = 1 - 5 * 2 * 9 / (2 * (1 * 1 * 9 + 1 * 2 * 2.25 + 1 * 2 * 20.25 + 2 * 1 * 2.25 + 1 * 2 * 2.25 + 2 * 2 * 9))
    assert (kept["value"], kept["items"], kept["bulk"], kept["bulk_left_out"]) == (
        pytest.approx(expected_kept), 3, 2, False)
    left_out = load_task(config).agreement(exclude_bulk=True)
    row = left_out[left_out["measure"] == "quality alpha (ordinal)"].iloc[0]
    # (2, 4), (3, 3): n_2 = n_4 = 1, n_3 = 2; d_24 = (1 + 2 + 1 - 1) ** 2 = 9, d_23 = d_34 = 2.25.
    assert (row["value"], row["items"], row["bulk"], row["bulk_left_out"]) == (
        pytest.approx(1 - 3 * 2 * 9 / (2 * (1 * 1 * 9 + 1 * 2 * 2.25 + 2 * 1 * 2.25))), 2, 2, True)
    assert main(["export", str(config), "--out", str(tmp_path / "out")]) == 0
    assert json.loads((tmp_path / "out" / "report.json").read_text())["tables"][0]["bulk"] == 2
    capsys.readouterr()
    assert main(["agreement", str(config), "--exclude-bulk"]) == 0
    assert "  2 of 6 value(s) were set in bulk: left out (--exclude-bulk)" in capsys.readouterr().out.splitlines()
    assert main(["agreement", str(config)]) == 0
    assert "  2 of 6 value(s) were set in bulk: kept (--exclude-bulk leaves them out)" in \
        capsys.readouterr().out.splitlines()
