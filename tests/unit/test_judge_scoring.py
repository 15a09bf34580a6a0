"""`agreement --gold [--judgments]`: failure attribution scored as the field scores it (accuracy,
±1..±K, nDCG@k, bootstrap intervals, Who&When subsets, confident labels), every figure worked out
by hand from the values below."""

import json
import math

import pytest

from potato_multiagent.cli import main
from potato_multiagent.judge.scoring import ndcg

from .test_export import make_task, save, scheme
from .test_judgments import write_lines

FA = "multiagent.failure_attribution"
RECORDS = [
    {"id": "Algorithm-Generated-1", "steps": [{"agent": "P", "content": "a"}, {"agent": "C", "content": "b"},
                                             {"agent": "T", "content": "c"}, {"agent": "V", "content": "d"}]},
    {"id": "Algorithm-Generated-2", "steps": [{"agent": "P", "content": "a"}, {"agent": "S", "content": "b"},
                                             {"agent": "P", "content": "c"}]},
    {"id": "Hand-Crafted-1", "steps": [{"agent": a, "content": str(i)} for i, a in enumerate("OWOWO")]},
    {"id": "Hand-Crafted-2", "steps": [{"agent": a, "content": str(i)} for i, a in enumerate("OWO")]},
]
GOLD = [("Algorithm-Generated-1", "C", 1, []), ("Algorithm-Generated-2", "S", 1, []),
        ("Hand-Crafted-1", "W", 3, [1]), ("Hand-Crafted-2", "W", 1, [])]


def value(agent, step, plausible=(), certainty=None):
    found = {"responsible_agent": agent, "decisive_step": step, "reason": ""}
    if plausible:
        found["plausible_steps"] = [{"step": s} for s in plausible]
    if certainty:
        found["certainty"] = certainty
    return found


@pytest.fixture
def scored(tmp_path):
    config = make_task(tmp_path, [scheme(FA, "attribution")], RECORDS)
    alice = {"Algorithm-Generated-1": value("C", 1, certainty="confident"),
             "Algorithm-Generated-2": value("S", 1, certainty="uncertain"),
             "Hand-Crafted-1": value("W", 3, certainty="confident"),
             "Hand-Crafted-2": value("O", 1, certainty="uncertain")}
    bob = {"Algorithm-Generated-1": value("P", 0, certainty="confident"),
           "Hand-Crafted-2": value("W", 1, [2], certainty="confident")}
    for user, answers in (("alice", alice), ("bob", bob)):
        for instance, answer in answers.items():
            save(config, user, instance, {"attribution": answer}, records=RECORDS)
    judge = {"Algorithm-Generated-1": value("C", 1, [2]), "Algorithm-Generated-2": value("P", 2),
             "Hand-Crafted-1": value("W", 1, [3]), "Hand-Crafted-2": value("O", 0, [2, 1])}
    judgments = write_lines(tmp_path / "judgments.jsonl", [
        {"id": i, "scheme": "attribution", "source": "j", "value": v,
         "run": {"method": "structured", "model": "m"}} for i, v in judge.items()])
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": i, "gold": {"mistake_agent": a, "mistake_step": str(s),
                                                          "plausible_steps": p}}) + "\n" for i, a, s, p in GOLD))
    return config, judgments, gold


def figures(capsys, *args):
    assert main(["agreement", *map(str, args), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["attribution_vs_gold"]
    return {(r["who"], r["subset"], r["labels"], r["measure"]): (r["value"], r["low"], r["high"], r["units"])
            for r in rows}


def test_a_judge_and_the_annotators_against_gold_by_hand(scored, capsys):
    config, judgments, gold = scored
    rows = figures(capsys, config, "--gold", gold, "--judgments", judgments, "--within", "2", "-k", "3")
    judge = lambda subset, measure: rows[("judge 'j'", subset, "all", measure)]  # noqa: E731
    # judge: AG-1 C #2 (gold C #2), AG-2 P #3 (gold S #2), HC-1 W #2 (gold W #4), HC-2 O #1 (gold W #2)
    assert judge("all runs", "agent accuracy")[0] == 2 / 4
    assert judge("all runs", "step accuracy")[0] == 1 / 4
    assert judge("all runs", "step accuracy within ±1")[0] == 3 / 4    # |2-1|=1 yes, |1-3|=2 no, |0-1|=1 yes
    assert judge("all runs", "step accuracy within ±2") == (1.0, 1.0, 1.0, 4)   # every resample is 1
    # nDCG@3: AG-1 ranks [1, 2] with gold {1}: 1. AG-2 [2], {1}: 0. HC-1 [1, 3], gold {3, 1}: (1 + 1/log2 3) /
    # (1 + 1/log2 3) = 1. HC-2 [0, 2, 1], {1}: (1/log2 4) / 1 = 0.5. Mean 2.5 / 4.
    assert judge("all runs", "nDCG@3")[0] == pytest.approx(0.625)
    assert judge("Algorithm-Generated", "agent accuracy")[0] == 1 / 2
    assert judge("Hand-Crafted", "step accuracy within ±1")[0] == 1 / 2
    assert judge("Hand-Crafted", "nDCG@3")[0] == pytest.approx(0.75)
    # a judge has no confidence flag: no confident-labels group
    assert not any(key[0] == "judge 'j'" and key[2] == "confident" for key in rows)

    alice = lambda labels, measure: rows[("annotator alice", "all runs", labels, measure)]  # noqa: E731
    assert alice("all", "agent accuracy")[0] == 3 / 4
    assert alice("all", "step accuracy")[0] == 1.0
    # HC-1: only #4 ranked, gold {3, 1}: 1 / (1 + 1/log2 3); the three others 1.
    assert alice("all", "nDCG@3")[0] == pytest.approx((3 + 1 / (1 + 1 / math.log2(3))) / 4)
    assert alice("confident", "agent accuracy")[:1] + alice("confident", "agent accuracy")[3:] == (1.0, 2)
    assert rows[("annotator bob", "all runs", "all", "agent accuracy")][0] == 1 / 2
    assert rows[("annotator bob", "all runs", "confident", "step accuracy")][0] == 1 / 2
    # pooled: six answers, agents right 3 + 1, steps right 4 + 1.
    assert rows[("annotators pooled", "all runs", "all", "agent accuracy")][0] == pytest.approx(4 / 6)
    assert rows[("annotators pooled", "all runs", "all", "step accuracy")][0] == pytest.approx(5 / 6)


def test_a_bootstrap_interval_from_the_documented_draws(scored, capsys):
    config, judgments, gold = scored
    rows = figures(capsys, config, "--gold", gold, "--judgments", judgments, "--seed", "7", "--resamples", "5")
    # The judge's agent outcomes on Algorithm-Generated are [1, 0]. default_rng(7).integers(0, 2, (5, 2)) draws
    # [[1, 1], [1, 1], [1, 1], [1, 0], [0, 0]]: resampled means 0, 0, 0, 0.5, 1. Percentiles (numpy's linear
    # rule over the sorted means, positions 4 * 0.025 = 0.1 and 4 * 0.975 = 3.9): 0 and 0.5 + 0.9 * 0.5 = 0.95.
    assert rows[("judge 'j'", "Algorithm-Generated", "all", "agent accuracy")] == (0.5, 0.0, pytest.approx(0.95), 2)


def test_agreement_with_gold_alone_prints_the_annotators_figures(scored, capsys):
    config, judgments, gold = scored
    assert main(["agreement", str(config), "--gold", str(gold), "--within", "2"]) == 0
    out = capsys.readouterr().out
    assert "attribution: attribution vs gold (95% bootstrap intervals, 1000 resamples, seed 0)" in out
    assert "  annotator alice: all runs, confident labels (2 attribution(s))" in out
    assert "    step accuracy within ±2" in out
    assert "judge" not in out.split("attribution vs gold")[1]


def test_ndcg_by_hand():
    assert ndcg([4, 1], {1}, 5) == pytest.approx(1 / math.log2(3))
    assert ndcg([1, 4], {1, 4}, 1) == 1.0          # cut at k = 1: the ideal holds one relevant step too
    assert ndcg([7], {1}, 5) == 0.0
