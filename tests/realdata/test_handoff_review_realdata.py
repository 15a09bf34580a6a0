"""multiagent.handoff_review on Who&When runs (../shared/corpus, POTATO_MA_CORPUS).

The widget's own page logic runs under node on every run: the cards it would draw, page by page,
must be exactly the derived handoffs, and the value it stores after "Mark all unreviewed handoffs as
fine" must pass Python's validation. The browser side is tests/e2e/test_handoff_review.py.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from potato_multiagent import derive, validate_value

pytestmark = pytest.mark.realdata

TYPE = "multiagent.handoff_review"
CONFIG = {"annotation_type": TYPE, "name": "handoffs", "description": "Review the handoffs", "steps_key": "history"}
PACKAGE = Path(__file__).parents[2] / "src" / "potato_multiagent"
NODE = shutil.which("node")

# For each record: the JS derivation's handoffs, the card names in order (50 a page), and the value stored
# after marking every handoff fine.
WIDGET_PASS = """
require(process.argv[1]);
const hr = require(process.argv[1].replace(/types[\\/]handoff_review[\\/]marks\\.js$/, 'web/widget.js')).marksOf('handoff_review');
const {derive} = require(process.argv[2]);
const config = {flags: ['info_loss', 'dropped_constraint', 'garbling', 'goal_drift'], quality_scale: 5, allow_note: true};
const records = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(records.map((record) => {
  const derivation = derive(record, {steps_key: 'history'});
  const book = hr.makeBook([], derivation);
  const shown = hr.filterIndices(book, derivation, 'all');
  const cards = shown.map((index) => hr.handoffName(derivation.handoffs[index]));   // paged by web/pager.js
  hr.markAllFine(book, derivation, config);
  const instructions = derivation.handoffs.map((handoff) => {
    const part = hr.excerptSteps(handoff, derivation.steps).find((one) => one.part === 'instruction');
    return part ? part.step.index : null;
  });
  return {handoffs: derivation.handoffs, cards: cards, instructions: instructions, value: hr.composeValue(book, derivation),
          incomplete: hr.incompleteReason(book, derivation.handoffs.length)};
})));
"""


def runs(corpus, subset):
    files = sorted((corpus / "who_and_when" / subset).glob("*.json"))
    assert files, f"no Who&When runs under {corpus / 'who_and_when' / subset}"
    return [(path.name, json.loads(path.read_text(encoding="utf-8"))) for path in files]


def widget_pass(records):
    if NODE is None:
        pytest.skip("node is not installed")
    result = subprocess.run([NODE, "-e", WIDGET_PASS, str(PACKAGE / "types" / "handoff_review" / "marks.js"), str(PACKAGE / "web" / "derive.js")],
                            input=json.dumps(records), capture_output=True, text=True, check=True, timeout=120)
    return json.loads(result.stdout)


def card_name(handoff):
    return f"Handoff {handoff['index'] + 1}: {handoff['from']} to {handoff['to']}"


@pytest.fixture(scope="module")
def hand_crafted(corpus):
    named = runs(corpus, "Hand-Crafted")
    return [(name, run, seen) for (name, run), seen in zip(named, widget_pass([run for _, run in named]))]


def test_every_derived_handoff_of_every_hand_crafted_run_gets_one_card(hand_crafted):
    total = 0
    for name, run, seen in hand_crafted:
        handoffs = derive(run, steps_key="history").handoffs
        assert seen["handoffs"] == handoffs, name             # the page derives what Python derives
        assert seen["cards"] == [card_name(h) for h in handoffs], name
        total += len(handoffs)
    assert total > 400, total


def test_hand_crafted_handoffs_are_between_real_agents(hand_crafted):
    pairs = set()
    for name, run, _ in hand_crafted:
        for handoff in derive(run, steps_key="history").handoffs:
            assert handoff["from"] != handoff["to"], name
            assert not handoff["from"].endswith(")") and not handoff["to"].endswith(")"), (name, handoff)
            pairs.add((handoff["from"], handoff["to"]))
    assert {("Orchestrator", "WebSurfer"), ("WebSurfer", "Orchestrator")} <= pairs


def test_marking_a_whole_run_fine_stores_a_value_python_accepts(hand_crafted):
    for name, run, seen in hand_crafted:
        value = seen["value"]
        assert len(value) == len(seen["handoffs"]) and seen["incomplete"] is None, name
        assert all(entry["bulk"] is True and entry["quality"] == 5 and entry["flags"] == [] for entry in value)
        assert validate_value(TYPE, CONFIG, json.dumps(value), run) == [], name


def test_a_review_moved_to_another_step_is_not_in_this_trace(hand_crafted):
    name, run, seen = max(hand_crafted, key=lambda item: len(item[2]["value"]))
    entry = dict(seen["value"][5], step=seen["value"][5]["step"] + 1)
    expected = f"[0]: '{entry['from']} to {entry['to']}, from_step {entry['from_step']}, step {entry['step']}' " \
               "is not in this trace"
    assert validate_value(TYPE, CONFIG, json.dumps([entry]), run) == [expected], name


def test_algorithm_generated_runs_validate_too(corpus):
    named = runs(corpus, "Algorithm-Generated")
    for (name, run), seen in zip(named, widget_pass([run for _, run in named])):
        assert seen["handoffs"] == derive(run, steps_key="history").handoffs, name
        assert validate_value(TYPE, CONFIG, json.dumps(seen["value"]), run) == [], name


def test_magentic_one_cards_quote_the_instruction_addressed_to_the_receiver(hand_crafted):
    """Issue 15: the card of an Orchestrator -> WebSurfer handoff after a "Next speaker" thought
    quotes the `Orchestrator (-> WebSurfer)` instruction, the latest step addressed to WebSurfer."""
    quoted = 0
    for name, run, seen in hand_crafted:
        derivation = derive(run, steps_key="history")
        for handoff, instruction in zip(derivation.handoffs, seen["instructions"]):
            giver_last = derivation.steps[handoff["from_step"]]
            before = [step for step in derivation.steps[:handoff["step"]] if step.to == handoff["to"]]
            if handoff["to"] == "WebSurfer" and giver_last.to != "WebSurfer" and before and \
                    all(step.agent != "WebSurfer" for step in derivation.steps[before[-1].index + 1:handoff["step"]]):
                assert instruction == before[-1].index, (name, handoff)
                assert derivation.steps[instruction].qualifier == "-> WebSurfer", (name, handoff)
                quoted += 1
            if instruction is not None:
                assert derivation.steps[instruction].to == handoff["to"], (name, handoff)
    assert quoted > 0, "no Magentic-One handoff after a thought in the Hand-Crafted runs"
