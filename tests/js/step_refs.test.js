'use strict';
// Saved step references in the browser (docs/step-references.md): which identity a stored mark
// gets when a widget stores it (base.withRefs, run by the runtime's model.set), and the stale
// list's Remove and Re-point for a mark whose step changed (base.staleReferenceEntries), with each
// type's references() from its marks.js. Identities are written by hand from the rule
// (sha256sum of '["Coder",null,"code"]' and '["Planner",null,"plan"]').
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const shim = require('./type_rules.js');
const base = require(path.join(PACKAGE, 'web', 'base.js'));
const { derive } = require(path.join(PACKAGE, 'web', 'derive.js'));

const PLANNER = 'fp:42d4c67f0f4e5974';
const CODER = 'fp:e685f1bd9ab6e3bb';
const team = derive({ steps: [{ agent: 'Planner', content: 'plan' }, { agent: 'Coder', content: 'code' }] }, {});
// The same run re-converted with a step before: Planner is now #2, Coder #3.
const shifted = derive({ steps: [{ agent: 'User', content: 'ask' }, { agent: 'Planner', content: 'plan' },
  { agent: 'Coder', content: 'code' }] }, {});

const fa = shim.load('failure_attribution');
const emergent = shim.load('emergent_behavior');
const scorecard = shim.load('agent_scorecard');
const review = shim.load('tool_call_review');
const handoffs = shim.load('handoff_review');

test('a newly chosen step gets the identity of that step', () => {
  const value = { responsible_agent: 'Coder', decisive_step: 1, reason: '' };
  assert.deepEqual(base.withRefs(fa.references, value, null, team), { ...value, decisive_step_ref: CODER });
});

test('a mark the annotator did not move keeps the identity it was saved with, stale or not', () => {
  const stored = { responsible_agent: 'Coder', decisive_step: 1, decisive_step_ref: CODER, reason: '' };
  const edited = { responsible_agent: 'Coder', decisive_step: 1, reason: 'typed now' };   // composeValue drops it
  assert.deepEqual(base.withRefs(fa.references, edited, stored, shifted), { ...edited, decisive_step_ref: CODER });
  assert.equal(base.withRefs(fa.references, stored, stored, shifted), stored, 'nothing to add: the value itself');
});

test('a moved mark gets its new step identity, also when its old one was carried along', () => {
  const stored = { agents: {}, team: {}, milestones: { done: true }, milestone_steps: { done: 0 },
    milestone_step_refs: { done: PLANNER } };
  const carried = { ...stored, milestone_steps: { done: 1 } };   // a widget that kept the old identity
  assert.deepEqual(base.withRefs(scorecard.references, carried, stored, team).milestone_step_refs, { done: CODER });
  const moved = scorecard.withMilestoneStep(stored, 'done', 1);
  assert.equal(moved.milestone_step_refs, undefined, 'withMilestoneStep drops the old identity');
  assert.deepEqual(base.withRefs(scorecard.references, moved, stored, team).milestone_step_refs, { done: CODER });
});

test('a mark whose place in the value shifted keeps the identity its index had', () => {
  const stored = { groupthink: { turns: [0, 1], note: '', instances: [
    { turns: [0], turn_refs: [PLANNER], note: 'first' }, { turns: [1], turn_refs: [PLANNER], note: 'second' }] } };
  // the first episode removed: the second is now instances[0], composed without identities
  const composed = { groupthink: { turns: [1], note: 'second', instances: [{ turns: [1], note: 'second' }] } };
  const stamped = base.withRefs(emergent.references, composed, stored, team);
  assert.deepEqual(stamped.groupthink.instances[0].turn_refs, [PLANNER], 'stale, and kept so');
});

test('a stale decisive step is listed with Remove and with Re-point to where its step is now', () => {
  const stored = { responsible_agent: 'Coder', decisive_step: 1, decisive_step_ref: CODER, reason: 'x' };
  const entries = base.staleReferenceEntries(fa.references, stored, shifted);
  assert.equal(entries.length, 1);
  assert.equal(entries[0].text,
    `decisive_step: #2 has changed since it was saved (saved on ${CODER}, now Planner); that step is now #3 (Coder)`);
  assert.deepEqual(entries[0].remove(), { responsible_agent: 'Coder', decisive_step: null, reason: 'x' });
  assert.equal(entries[0].repoint.label, 'Re-point to #3');
  assert.deepEqual(entries[0].repoint.value(), { ...stored, decisive_step: 2 });
  assert.deepEqual(stored.decisive_step, 1, 'the stored value is not touched');
  assert.deepEqual(base.staleReferenceEntries(fa.references, { ...stored, decisive_step: 2 }, shifted), []);
});

test('plausible steps get their identities and are listed, each on its own, when stale', () => {
  const value = { responsible_agent: 'Coder', decisive_step: 1, reason: '', plausible_steps: [{ step: 0 }] };
  const stamped = base.withRefs(fa.references, value, null, team);
  assert.deepEqual(stamped.plausible_steps, [{ step: 0, step_ref: PLANNER }]);
  assert.equal(stamped.decisive_step_ref, CODER);
  // Re-converted with a step before: both marks now name the step before the one they were saved on.
  const entries = base.staleReferenceEntries(fa.references, stamped, shifted);
  assert.deepEqual(entries.map((entry) => entry.text.split(':')[0]), ['decisive_step', 'plausible_steps[0].step']);
  assert.equal(entries[1].repoint.label, 'Re-point to #2');
  assert.deepEqual(entries[1].repoint.value().plausible_steps, [{ step: 1, step_ref: PLANNER }]);
  const removed = entries[1].remove();
  assert.equal(removed.plausible_steps, undefined, 'the last plausible step removed: the key goes');
  assert.equal(removed.decisive_step, 1, 'the decisive step stays');
});

test('a step that is gone offers to keep the index as it is now, or nothing past the end', () => {
  const gone = { responsible_agent: null, decisive_step: 0, decisive_step_ref: 'id:m-9', reason: '' };
  const [entry] = base.staleReferenceEntries(fa.references, gone, team);
  assert.equal(entry.repoint.label, 'Keep #1 as it is now');
  assert.deepEqual(entry.repoint.value(), { ...gone, decisive_step_ref: PLANNER });
  const past = base.staleReferenceEntries(fa.references, { ...gone, decisive_step: 7 }, team);
  assert.equal(past[0].repoint, undefined);
  assert.equal(past[0].text, 'decisive_step: #8 is not in this trace (saved on id:m-9); that step is not in this trace');
});

test('emergent behaviour: a turn re-pointed onto a turn of its episode becomes that turn', () => {
  const turns = { groupthink: { turns: [0, 1], note: 'n', instances: [{ turns: [0, 1], turn_refs: [PLANNER, CODER], note: 'n' }] } };
  const [first, second] = base.staleReferenceEntries(emergent.references, turns, shifted);
  assert.equal(first.repoint.label, 'Re-point to #2');
  assert.deepEqual(first.repoint.value(),
    { groupthink: { turns: [1], note: 'n', instances: [{ turns: [1], turn_refs: [PLANNER], note: 'n' }] } });
  assert.deepEqual(second.repoint.value(),
    { groupthink: { turns: [0, 2], note: 'n', instances: [{ turns: [0, 2], turn_refs: [PLANNER, CODER], note: 'n' }] } });
  assert.deepEqual(first.remove(),
    { groupthink: { turns: [1], note: 'n', instances: [{ turns: [1], turn_refs: [CODER], note: 'n' }] } });
});

test('scorecard: Remove takes the step away and keeps the milestone reached', () => {
  const stored = { agents: {}, team: {}, milestones: { done: true }, milestone_steps: { done: 1 },
    milestone_step_refs: { done: CODER } };
  const [entry] = base.staleReferenceEntries(scorecard.references, stored, shifted);
  assert.deepEqual(entry.repoint.value(), { ...stored, milestone_steps: { done: 2 } });
  assert.deepEqual(entry.remove(), { agents: {}, team: {}, milestones: { done: true } });
});

test('tool-call review: a re-pointed verdict names its call by the call\'s place at its new step', () => {
  const judged = derive({ steps: [{ agent: 'User', content: 'ask', tool_calls: [{ id: 'u1', function: { name: 'read', arguments: '{}' } }] },
    { agent: 'Planner', content: 'plan' },
    { agent: 'Coder', content: 'code', tool_calls: [{ id: 'c1', function: { name: 'search', arguments: '{}' } }] }] }, {});
  const entry = { index: 0, step: 1, position: 0, id: null, tool: 'search', step_ref: CODER, verdict: 'correct', notes: '' };
  const [stale] = base.staleReferenceEntries(review.references, [entry], judged);
  assert.deepEqual(stale.repoint.value(), [{ ...entry, step: 2, index: 1 }]);
  assert.equal(stale.remove(), null, 'nothing left to store');
  assert.deepEqual(review.describe([entry], { derivation: judged, config: { value_schema: {} },
    stored: { raw: JSON.stringify([entry]), value: [entry], error: null } }).stale.map((said) => said.text),
  [`[0].step: #2 has changed since it was saved (saved on ${CODER}, now Planner); that step is now #3 (Coder)`],
  'listed once, by its step reference');
});

test('handoff review: each step of a review is re-pointed on its own; the index follows the handoff', () => {
  const entry = { index: 0, step: 1, from_step: 0, from: 'Planner', to: 'Coder', explicit: false, flags: [], quality: 3,
    note: '', step_ref: CODER, from_step_ref: PLANNER };
  const entries = base.staleReferenceEntries(handoffs.references, [entry], shifted);
  assert.deepEqual(entries.map((said) => said.repoint.label), ['Re-point to #2', 'Re-point to #3']);
  const half = entries[0].repoint.value();
  assert.deepEqual(half, [{ ...entry, from_step: 1 }]);
  const whole = base.staleReferenceEntries(handoffs.references, half, shifted)[0].repoint.value();
  assert.deepEqual(whole, [{ ...entry, from_step: 1, step: 2, index: 1 }]);
  assert.deepEqual(handoffs.problems(whole, shifted, { flags: [], quality_scale: 5, allow_note: true }), []);
});
