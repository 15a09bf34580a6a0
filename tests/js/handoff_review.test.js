'use strict';
// Pure rules of the handoff_review widget (types/handoff_review/marks.js), run by `node --test tests/js/`
// with no DOM library. The DOM, keyboard and Potato behaviour is proven by
// tests/e2e/test_handoff_review.py in Chromium.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const WEB = path.join(PACKAGE, 'web');
const TYPES = path.join(PACKAGE, 'types');
const shim = require('./type_rules.js');
const runtime = shim.core;
const hr = shim.load('handoff_review');
const { derive } = require(path.join(WEB, 'derive.js'));

const FLAGS = ['info_loss', 'dropped_constraint', 'garbling', 'goal_drift'];
const CONFIG = { flags: FLAGS, quality_scale: 5, allow_note: true };

// Handoffs: 0 Planner->Coder (0 -> 1), 1 Coder->Billing (explicit event at 2), 2 Billing->Coder
// (2 -> 3), 3 Coder->'Reviewer "Smith"' (3 -> 4).
const record = {
  steps: [
    { agent: 'Planner', content: 'Plan:\nfirst the API, then the tests' },
    { agent: 'Coder', content: 'code' },
    { type: 'handoff', from_agent: 'Coder', to_agent: 'Billing', content: 'over to billing' },
    { agent: 'Coder', to: 'Reviewer "Smith"', content: 'please review' },
    null,
    { agent: 'Reviewer "Smith"', content: 'looks fine' },
  ],
};
const derivation = derive(record, {});
const [h0, h1, h2, h3] = derivation.handoffs;

function stored(raw) {
  return Object.assign({ raw }, runtime.parseStored(raw));
}

function entryOf(handoff, changes) {
  return Object.assign({ index: handoff.index, step: handoff.step, from_step: handoff.from_step, from: handoff.from,
    to: handoff.to, explicit: handoff.explicit, flags: [], quality: null, note: '' }, changes);
}

function emptyBook() {
  return hr.makeBook([], derivation);
}

test('the record has the handoffs these tests assume', () => {
  assert.deepEqual(derivation.handoffs.map((h) => [h.from, h.to, h.from_step, h.step, h.explicit]), [
    ['Planner', 'Coder', 0, 1, false], ['Coder', 'Billing', 2, 2, true], ['Billing', 'Coder', 2, 3, false],
    ['Coder', 'Reviewer "Smith"', 3, 5, false]]);
});

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

test('a card is named "Handoff K: FROM to TO", never "FROM TO"', () => {
  assert.equal(hr.handoffName(h0), 'Handoff 1: Planner to Coder');
  assert.equal(hr.handoffName(h3), 'Handoff 4: Coder to Reviewer "Smith"');
  assert.equal(hr.handoffName({ index: 0, from: 'A->B', to: '{{ 7*7 }}' }), 'Handoff 1: A->B to {{ 7*7 }}');
});

test('flag labels read as words', () => {
  assert.equal(hr.flagLabel('dropped_constraint'), 'dropped constraint');
  assert.equal(hr.flagLabel('late'), 'late');
});

test('a flag label that is not a snake_case name shows exactly as configured', () => {
  assert.equal(hr.flagLabel('window.__pwned=1'), 'window.__pwned=1');
  assert.equal(hr.flagLabel('_leading'), '_leading');
  assert.equal(hr.flagLabel('two words_here'), 'two words_here');
});

test('identity is (from_step, step, from, to), the same for a handoff and its entry', () => {
  assert.equal(hr.identityKey(h1), hr.identityKey(entryOf(h1, { index: 9, quality: 3 })));
  assert.notEqual(hr.identityKey(h0), hr.identityKey(entryOf(h0, { from: 'Ghost' })));
  // A name holding the separator of a naive "A->B" key cannot collide.
  assert.notEqual(hr.identityKey({ from_step: 0, step: 1, from: 'A->B', to: 'C' }),
    hr.identityKey({ from_step: 0, step: 1, from: 'A', to: 'B->C' }));
});

test('excerpts: the last message before and the first after; an explicit event, then the next message', () => {
  const implicit = hr.excerptSteps(h0, derivation.steps);
  assert.deepEqual(implicit.map((part) => [part.heading, part.step.index]),
    [['Last message before', 0], ['First message after', 1]]);
  const explicit = hr.excerptSteps(h1, derivation.steps);
  assert.deepEqual(explicit.map((part) => [part.heading, part.step.index]),
    [['Handoff event', 2], ['First message after', 3]]);
  assert.equal(hr.excerptHeading('Last message before', derivation.steps[0]), 'Last message before, #1 \u00B7 Planner');
  // The "after" of a final explicit event is the next step with an agent, or none.
  const last = derive({ steps: [{ agent: 'A' }, { type: 'handoff', from_agent: 'A', to_agent: 'B' }, null] }, {});
  assert.equal(hr.excerptSteps(last.handoffs[0], last.steps)[1].step, null);
});

test('excerpts: a Magentic-One handoff quotes the instruction addressed to the receiver, not the "Next speaker" thought', () => {
  const run = derive({ steps: [
    { name: 'Orchestrator (thought)', content: 'Updated Ledger: ...' },
    { name: 'Orchestrator (-> WebSurfer)', content: 'Search DHL rates for a 2 kg parcel to Oslo.' },
    { name: 'Orchestrator (thought)', content: 'Next speaker WebSurfer' },
    { name: 'WebSurfer', content: 'I typed "FedEx rates" into the search bar.' },
  ] }, {});
  const handoff = run.handoffs.find((one) => one.to === 'WebSurfer');
  assert.equal(hr.handingOverStep(handoff, run.steps).index, 1);
  assert.deepEqual(hr.excerptSteps(handoff, run.steps).map((part) => [part.heading, part.step.index]),
    [['Instruction to WebSurfer', 1], ['Last message before', handoff.from_step], ['First message after', 3]]);
  // An instruction older than the receiver's previous turn was for that turn, not this one.
  const again = derive({ steps: [
    { name: 'Orchestrator (-> WebSurfer)', content: 'first task' },
    { name: 'WebSurfer', content: 'done' },
    { name: 'Orchestrator (thought)', content: 'Next speaker WebSurfer' },
    { name: 'WebSurfer', content: 'again' },
  ] }, {});
  const second = again.handoffs.filter((one) => one.to === 'WebSurfer').pop();
  assert.equal(hr.handingOverStep(second, again.steps), null);
});

test('long runs open on "unreviewed only": more than 30 handoffs', () => {
  const pingPong = (count) => derive({ steps: Array.from({ length: count + 1 }, (_, i) => ({ agent: i % 2 ? 'B' : 'A' })) }, {});
  assert.equal(pingPong(30).handoffs.length, 30);
  assert.equal(hr.openingFilter(pingPong(30)), 'all');
  assert.equal(hr.openingFilter(pingPong(31)), 'unreviewed');
});

// ---------------------------------------------------------------------------------------------
// Reading the stored value
// ---------------------------------------------------------------------------------------------

const SCHEMA_CONFIG = Object.assign({}, CONFIG, {
  // The JSON Schema pydantic emits for HandoffReviewValue (tests/unit/test_handoff_review.py checks
  // the real one against pydantic).
  value_schema: {
    type: 'array', items: { $ref: '#/$defs/E' },
    $defs: {
      E: {
        type: 'object', additionalProperties: false,
        required: ['index', 'step', 'from_step', 'from', 'to', 'explicit', 'flags', 'quality'],
        properties: {
          index: { type: 'integer', minimum: 0 }, step: { type: 'integer', minimum: 0 },
          from_step: { type: 'integer', minimum: 0 }, from: { type: 'string' }, to: { type: 'string' },
          explicit: { type: 'boolean' }, flags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
          quality: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] },
          note: { type: 'string', default: '' }, bulk: { type: 'boolean', default: false },
        },
      },
    },
  },
});

test('the runtime\'s readChecked accepts the stored list and nothing stored', () => {
  const list = [entryOf(h0, { quality: 3 })];
  assert.deepEqual(runtime.readChecked(stored(JSON.stringify(list)), SCHEMA_CONFIG), { value: list, unreadable: null });
  assert.deepEqual(runtime.readChecked(stored(''), SCHEMA_CONFIG), { value: null, unreadable: null });
});

test('the runtime\'s readChecked says in words why a value cannot be read', () => {
  const cases = {
    '[{"index":0': /not valid JSON/,
    '{"index":0}': /value: should be a list, got an object/,
    '[{"index":0}]': /\[0\]\.step: is missing/,
    [JSON.stringify([entryOf(h0, { quality: 0 })])]: /\[0\]\.quality: should be an integer \u2265 1 or null, got 0/,
    [JSON.stringify([entryOf(h0, { flags: ['garbling', 'garbling'] })])]: /\[0\]\.flags\[1\]: repeats an earlier item/,
  };
  for (const [raw, pattern] of Object.entries(cases)) {
    const result = runtime.readChecked(stored(raw), SCHEMA_CONFIG);
    assert.equal(result.value, null, raw);
    assert.match(result.unreadable, /^The saved value could not be read: /, raw);
    assert.match(result.unreadable, pattern, raw);
  }
});

// ---------------------------------------------------------------------------------------------
// Restore by identity
// ---------------------------------------------------------------------------------------------

test('entries attach to their handoff by identity, whatever their order or stored index', () => {
  const book = hr.makeBook([entryOf(h3, { quality: 2 }), entryOf(h0, { index: 7, flags: ['garbling'] })], derivation);
  assert.equal(book.byKey.get(hr.identityKey(h3)).quality, 2);
  assert.deepEqual(book.byKey.get(hr.identityKey(h0)).flags, ['garbling']);
  assert.equal(book.byKey.has(hr.identityKey(h1)), false);
  assert.deepEqual([book.reviewed, book.flagged, book.orphans.length], [2, 1, 0]);
});

test('a verdict never re-attaches to a different handoff: what matches nothing stays, without a card', () => {
  // Stored for another trace whose first handoff was Alice -> Bob: the seed restored it onto
  // Planner -> Coder by its index 0. Here it matches nothing and is kept as it was.
  const alien = { index: 0, step: 1, from_step: 0, from: 'Alice', to: 'Bob', explicit: false, flags: ['garbling'],
    quality: 2 };
  const duplicate = entryOf(h0, { quality: 1 });
  const book = hr.makeBook([alien, entryOf(h0, { quality: 4 }), duplicate], derivation);
  assert.equal(book.byKey.get(hr.identityKey(h0)).quality, 4);
  assert.deepEqual(book.orphans, [alien, duplicate]);
  assert.equal(book.reviewed, 1);
  assert.equal(hr.orphanText(alien, derivation, 5),
    'Alice to Bob, from_step 0, step 1 (not in this trace): quality 2 of 5, flagged: garbling.');
  assert.equal(hr.orphanText(duplicate, derivation, 5),
    'Planner to Coder, from_step 0, step 1 (repeats an earlier saved review of this handoff): quality 1 of 5, no flags.');
  // Kept in the value, after the entries with a card, until removed.
  hr.setQuality(book, h2, CONFIG, 3);
  const value = hr.composeValue(book, derivation);
  assert.deepEqual(value.map((e) => [e.from, e.to, e.quality]),
    [['Planner', 'Coder', 4], ['Billing', 'Coder', 3], ['Alice', 'Bob', 2], ['Planner', 'Coder', 1]]);
  assert.deepEqual(hr.traceProblems(value, derivation, CONFIG), [
    {code: 'not_in_trace', field: '[2]', value: 'Alice to Bob, from_step 0, step 1'},
    {code: 'repeats_entry', field: '[3]', first: '[0]'},
  ]);
});

test('entries without a card go to the runtime stale list: each removable, and all at once', () => {
  const alien = { index: 0, step: 1, from_step: 0, from: 'Alice', to: 'Bob', explicit: false, flags: ['garbling'],
    quality: 2 };
  const kept = entryOf(h0, { quality: 4 });
  const duplicate = entryOf(h0, { quality: 1 });
  const said = hr.describe([alien, kept, duplicate], { derivation, config: CONFIG });
  assert.deepEqual(said.stale.map((entry) => entry.text), [
    'Alice to Bob, from_step 0, step 1 (not in this trace): quality 2 of 5, flagged: garbling.',
    'Planner to Coder, from_step 0, step 1 (repeats an earlier saved review of this handoff): quality 1 of 5, no flags.',
  ]);
  assert.deepEqual(said.stale[0].remove, [kept, duplicate]);   // Remove: the value without that entry
  assert.deepEqual(said.stale[1].remove, [kept, alien]);
  assert.deepEqual(said.removeAllStale, [kept]);
  assert.deepEqual(hr.describe([kept], { derivation, config: CONFIG }).stale, []);
});

// ---------------------------------------------------------------------------------------------
// Edits
// ---------------------------------------------------------------------------------------------

test('a flag click writes the handoff entry with its identity; flags keep the config order', () => {
  const book = emptyBook();
  hr.toggleFlag(book, h1, CONFIG, 'goal_drift');
  hr.toggleFlag(book, h1, CONFIG, 'info_loss');
  assert.deepEqual(hr.composeValue(book, derivation), [
    { index: 1, step: 2, from_step: 2, from: 'Coder', to: 'Billing', explicit: true,
      flags: ['info_loss', 'goal_drift'], quality: null, note: '' }]);
  assert.deepEqual([book.reviewed, book.flagged], [1, 1]);
  hr.toggleFlag(book, h1, CONFIG, 'info_loss');
  hr.toggleFlag(book, h1, CONFIG, 'goal_drift');
  assert.deepEqual(hr.composeValue(book, derivation), [], 'an entry with nothing left is dropped');
  assert.deepEqual([book.reviewed, book.flagged], [0, 0]);
});

test('quality, note and clear; a note alone is kept but is not a review', () => {
  const book = emptyBook();
  hr.setNote(book, h0, CONFIG, 'the plan drops "tests first"');
  assert.equal(book.reviewed, 0);
  assert.equal(hr.composeValue(book, derivation)[0].note, 'the plan drops "tests first"');
  hr.setQuality(book, h0, CONFIG, 2);
  assert.equal(book.reviewed, 1);
  hr.clearReview(book, h0, CONFIG);
  assert.deepEqual(hr.composeValue(book, derivation).map((e) => [e.quality, e.flags, e.note]),
    [[null, [], 'the plan drops "tests first"']]);
  hr.setNote(book, h0, CONFIG, '');
  assert.deepEqual(hr.composeValue(book, derivation), []);
});

test('no note key when notes are off', () => {
  const book = emptyBook();
  hr.setQuality(book, h0, { flags: FLAGS, quality_scale: 5, allow_note: false }, 5);
  assert.equal('note' in hr.composeValue(book, derivation)[0], false);
});

test('a stored flag the config lacks stays until toggled off', () => {
  const book = hr.makeBook([entryOf(h2, { flags: ['late', 'garbling'], quality: 3 })], derivation);
  hr.toggleFlag(book, h2, CONFIG, 'info_loss');
  assert.deepEqual(book.byKey.get(hr.identityKey(h2)).flags, ['info_loss', 'garbling', 'late']);
  hr.toggleFlag(book, h2, CONFIG, 'late');
  assert.deepEqual(book.byKey.get(hr.identityKey(h2)).flags, ['info_loss', 'garbling']);
});

// ---------------------------------------------------------------------------------------------
// Mark all unreviewed as fine
// ---------------------------------------------------------------------------------------------

test('mark all as fine: explicit entries for untouched handoffs only; reviews and notes stay', () => {
  const book = emptyBook();
  hr.toggleFlag(book, h0, CONFIG, 'garbling');           // reviewed: stays as it is
  hr.setNote(book, h2, CONFIG, 'worth a look');          // noted but unreviewed: marked, note kept
  assert.equal(hr.markAllFine(book, derivation, CONFIG), 3);
  assert.deepEqual(hr.composeValue(book, derivation).map((e) => [e.index, e.flags, e.quality, e.note, e.bulk]), [
    [0, ['garbling'], null, '', undefined],
    [1, [], 5, '', true],
    [2, [], 5, 'worth a look', true],
    [3, [], 5, '', true],
  ]);
  assert.deepEqual([book.reviewed, book.bulk], [4, 3]);
  assert.equal(hr.incompleteReason(book, 4), null);
  assert.equal(hr.entryStatus(book.byKey.get(hr.identityKey(h1)), 5), 'Marked fine in bulk: quality 5 of 5, no flags.');
  assert.equal(hr.markAllFine(book, derivation, CONFIG), 0, 'nothing left to mark');
});

test('changing a bulk entry makes it the annotator\'s own; undo takes back only untouched bulk entries', () => {
  const book = emptyBook();
  hr.markAllFine(book, derivation, CONFIG);
  hr.setQuality(book, h1, CONFIG, 2);
  hr.setNote(book, h3, CONFIG, 'kept');
  assert.equal(book.byKey.get(hr.identityKey(h1)).bulk, undefined);
  assert.equal(hr.undoBulk(book, derivation, CONFIG), 3);
  assert.deepEqual(hr.composeValue(book, derivation).map((e) => [e.index, e.quality, e.note]),
    [[1, 2, ''], [3, null, 'kept']]);
  assert.deepEqual([book.reviewed, book.bulk], [1, 0]);
});

// ---------------------------------------------------------------------------------------------
// Counts, words, pages
// ---------------------------------------------------------------------------------------------

test('progress and the required shortfall are counts, without trace text', () => {
  const book = emptyBook();
  hr.toggleFlag(book, h3, CONFIG, 'info_loss');
  assert.equal(hr.progressText(book, 4), '1 of 4 handoffs reviewed, 1 flagged.');
  assert.equal(hr.incompleteReason(book, 4), '1 of 4 handoffs reviewed');
  assert.equal(hr.incompleteReason(emptyBook(), 0), null);
  assert.equal(hr.entryStatus(null, 5), 'Not reviewed yet.');
  assert.equal(hr.entryStatus(book.byKey.get(hr.identityKey(h3)), 5), 'Reviewed: no quality rating, flagged: info loss.');
  assert.equal(hr.entryStatus(entryOf(h0, { quality: 9 }), 5), 'Reviewed: quality 9 (outside 1..5), no flags.');
});

test('filters list handoffs by state, in trace order', () => {
  const book = emptyBook();
  hr.toggleFlag(book, h2, CONFIG, 'garbling');
  hr.setQuality(book, h0, CONFIG, 4);
  assert.deepEqual(hr.filterIndices(book, derivation, 'all'), [0, 1, 2, 3]);
  assert.deepEqual(hr.filterIndices(book, derivation, 'unreviewed'), [1, 3]);
  assert.deepEqual(hr.filterIndices(book, derivation, 'flagged'), [2]);
});

test('jump refusals say what can be asked', () => {
  assert.equal(hr.jumpRefusal('99', 4), 'There is no handoff 99: this run has handoffs 1 to 4.');
  assert.equal(hr.jumpRefusal('', 4), 'Type a handoff number: this run has handoffs 1 to 4.');
  assert.equal(hr.jumpRefusal('1', 0), 'This run has no handoffs.');
});

test('notices name each problem, then how many more', () => {
  const problems = Array.from({ length: 25 }, (_, i) => `[${i}]: problem`);
  const notices = hr.noticesFor(problems, derivation, null);
  assert.equal(notices.length, 21);
  assert.equal(notices[20].text, 'and 5 more problems in the saved answer.');
  const none = derive({ nothing: true }, {});
  assert.match(hr.noticesFor([], none, 'The saved value could not be read: x')[1].text,
    /^This trace has no steps to review: /);
});

// ---------------------------------------------------------------------------------------------
// 5,000 steps
// ---------------------------------------------------------------------------------------------

function longRecord(steps) {
  const agents = ['Planner', 'Coder', 'Tester', 'Reviewer'];
  return { steps: Array.from({ length: steps }, (_, i) => (i % 97 === 5
    ? { type: 'handoff', from_agent: agents[i % 4], to_agent: agents[(i + 1) % 4], content: `handoff ${i}` }
    : { agent: agents[Math.floor(i / 2) % 4], content: `message ${i}` })) };
}

test('at 5,000 steps one click flags one handoff and one bulk action reviews the rest', () => {
  // How long they take is bench/'s business, not a test's.
  const long = derive(longRecord(5_000), {});
  assert.ok(long.handoffs.length > 2_400, `${long.handoffs.length} handoffs`);
  const book = hr.makeBook([], long);
  const middle = long.handoffs[1_200];

  hr.toggleFlag(book, middle, CONFIG, 'garbling');
  assert.equal(hr.composeValue(book, long).length, 1);

  assert.equal(hr.markAllFine(book, long, CONFIG), long.handoffs.length - 1);
  const value = hr.composeValue(book, long);
  assert.deepEqual(hr.traceProblems(value, long, CONFIG), []);

  assert.equal(value.length, long.handoffs.length);
  assert.equal(book.reviewed, long.handoffs.length);
});

test('judgments: flags and quality per handoff by identity, configured flags only, unknown handoffs left out', () => {
  const judged = entryOf(h0, { flags: ['goal_drift', 'info_loss', 'made_up'], quality: 2, note: 'Lost the date.' });
  const elsewhere = Object.assign({}, judged, { from: 'Nobody' });
  const record2 = Object.assign({}, record, { verdicts: { hr: [
    { source: 'judge "A"', value: [judged, elsewhere, entryOf(h2, { flags: [], quality: 9 })] },
    { source: 'baseline', value: JSON.stringify([entryOf(h0, { flags: [], quality: 5 })]) },
    { source: 'broken', value: { not: 'a list' } }] } });
  const byKey = hr.judgmentsByHandoff(record2, Object.assign({ judgments_key: 'verdicts' }, CONFIG), 'hr', derivation);
  assert.deepEqual(byKey.get(hr.identityKey(h0)), [
    { source: 'judge "A"', flags: ['info_loss', 'goal_drift'], quality: 2, note: 'Lost the date.' },
    { source: 'baseline', flags: [], quality: 5, note: '' }]);
  assert.equal(byKey.has(hr.identityKey(h2)), false);   // quality off the scale and no flag: says nothing
  assert.equal(byKey.size, 1);
  assert.equal(hr.judgmentText(byKey.get(hr.identityKey(h0))[0], 5),
    'judge "A": quality 2 of 5, flagged: info loss, goal drift \u2014 \'Lost the date.\'');
  assert.equal(hr.judgmentText(byKey.get(hr.identityKey(h0))[1], 5), 'baseline: quality 5 of 5, no flags');
});

test('judgments: after_answer shows a card\'s judgments once it is reviewed; never hides them', () => {
  const reviewed = entryOf(h0, { flags: [], quality: 3 });
  assert.equal(hr.judgmentsShown({ show_judgments: 'always' }, null), true);
  assert.equal(hr.judgmentsShown({}, null), true);
  assert.equal(hr.judgmentsShown({ show_judgments: 'after_answer' }, null), false);
  assert.equal(hr.judgmentsShown({ show_judgments: 'after_answer' }, entryOf(h0, { flags: [], quality: null, note: 'n' })), false);
  assert.equal(hr.judgmentsShown({ show_judgments: 'after_answer' }, reviewed), true);
  assert.equal(hr.judgmentsShown({ show_judgments: 'never' }, reviewed), false);
});

test('judgments: accepting copies flags and quality with from_judgment; the note stays; a hand edit drops it', () => {
  const book = hr.makeBook([entryOf(h0, { flags: [], quality: null, note: 'mine' })], derivation);
  hr.acceptJudgment(book, h0, CONFIG, { source: 'llm-judge', flags: ['garbling'], quality: 2 });
  assert.deepEqual(hr.composeValue(book, derivation), [
    entryOf(h0, { flags: ['garbling'], quality: 2, note: 'mine', from_judgment: 'llm-judge' })]);
  hr.setNote(book, h0, CONFIG, 'mine, edited');
  assert.equal(hr.composeValue(book, derivation)[0].from_judgment, 'llm-judge');
  hr.setQuality(book, h0, CONFIG, 3);
  assert.equal('from_judgment' in hr.composeValue(book, derivation)[0], false);
  hr.acceptJudgment(book, h0, CONFIG, { source: 'llm-judge', flags: ['garbling'], quality: 2 });
  hr.toggleFlag(book, h0, CONFIG, 'info_loss');
  assert.equal('from_judgment' in hr.composeValue(book, derivation)[0], false);
});
