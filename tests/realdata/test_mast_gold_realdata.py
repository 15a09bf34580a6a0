"""MAD's own per-trace labels as gold for an annotator's MAST roll-up (issue 31).

`init --from mast` on real records of MAD's human-labelled file writes their labels to gold.jsonl
(as convert/mast.py writes them: `mast.votes`, every annotator's mark per mode by the final
taxonomy's code, `mast.marked`, the majority's, and `mast.unmapped`, labels no final code names); an annotator's saved value (a step tag and a whole-run mark) is
rolled up to the run's modes and `agreement --gold` compares them with MAD's, mode by mode. The
expected figures come from the record's votes, read from the file by hand and written here.
A record of MAD's round 1 uses another taxonomy (renumbered, renamed modes, some with no final
mode): it is left out and said, never compared under MAST's final names.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from potato_multiagent.taxonomy import preset

pytestmark = pytest.mark.realdata

FINAL_ROUND = "MetaGPT_MMLU_trace16.json"
"""Round "Generlazability" (MAST's final 14 modes). Its votes, read from the file:
1.1 Disobey Task Specification: annotators 1 and 3 (majority); 3.2 No or Incomplete Verification:
1 and 3 (majority); 3.3 Incorrect Verification: all three; every other mode: nobody."""
ROUND_ONE = "MetaGPT_ProgramDev_trace4.json"
"""Round 1: 18 modes such as '1.1 Poor task constraint compliance', '2.2 Step repetition'."""


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "potato_multiagent.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def test_mads_per_trace_labels_in_gold_against_an_annotators_roll_up(corpus, tmp_path):
    task = tmp_path / "task"
    made = cli("init", "--from", "mast", corpus / "mast" / FINAL_ROUND, corpus / "mast" / ROUND_ONE, "-o", task)
    assert made.returncode == 0, made.stderr
    records = [json.loads(line) for line in (task / "data" / "runs.jsonl").read_text().splitlines()]
    final, first = records[0]["id"], records[1]["id"]
    gold = {line["id"]: line["gold"] for line in map(json.loads, (task / "gold.jsonl").read_text().splitlines())}
    # convert maps MAD's mode names to the final codes (MAD renumbers codes between rounds)
    assert set(gold[final]["mast"]["votes"]) >= {"1.1", "3.3"} and not gold[final]["mast"]["unmapped"]
    # the annotator: 1.1 on the first step, 2.4 for the whole run (roll-up {1.1, 2.4}); on the round-1 run 1.3
    value = {"taxonomy": preset("mast").id, "steps": [{"step": 0, "mode": "1.1"}], "run": [{"mode": "2.4"}]}
    other = {"taxonomy": preset("mast").id, "steps": [{"step": 0, "mode": "1.3"}]}
    folder = task / "annotation_output" / "ann"
    folder.mkdir(parents=True)
    (folder / "user_state.json").write_text(json.dumps({"user_id": "ann", "instance_id_to_label_to_value": {
        final: [[{"schema": "mast", "name": "mast"}, json.dumps(value)]],
        first: [[{"schema": "mast", "name": "mast"}, json.dumps(other)]]}}))

    made = cli("agreement", task / "config.yaml", "--gold", task / "gold.jsonl", "--json")
    assert made.returncode == 0, made.stderr
    rows = {(r["measure"], r["annotator"]): r for r in json.loads(made.stdout) if r["scheme"] == "mast"}
    value_of = lambda measure, who=None: rows[(measure, who)]["value"]   # noqa: E731
    # MAD: {1.1, 3.2, 3.3}; the annotator: {1.1, 2.4}. 1.1 right; 2.4 said but absent; 3.2 and 3.3 missed.
    assert [value_of(f"trace level vs gold, 1.1 Disobey task specification: {m}") for m in
            ("accuracy", "precision", "recall")] == [1, 1, 1]
    assert value_of("trace level vs gold, 2.4 Information withholding: precision") == 0
    assert value_of("trace level vs gold, 3.3 Incorrect verification: recall") == 0
    # over the 14 modes: TP 1, FP 1, FN 2, TN 10
    overall = rows[("trace level vs gold, all modes: accuracy", "ann")]
    assert (overall["value"], overall["items"]) == (pytest.approx(11 / 14), 1)
    assert value_of("trace level vs gold, all modes: precision", "ann") == pytest.approx(1 / 2)
    assert value_of("trace level vs gold, all modes: recall", "ann") == pytest.approx(1 / 3)
    # the round-1 run is left out, and said to be
    assert overall["note"].startswith(f"1 item(s) left out: their gold is not in this taxonomy (e.g. {first}: gold "
                                      f"mast has a label no code of {preset('mast').id} names "
                                      "('1.3 Undetected conversation ambiguities and contradictions')")
