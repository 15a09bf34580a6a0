'use strict';
// The runtime's data-safety helpers (web/widget.js), pure parts: flushEdits runs every waiting
// debounced edit, mergeValues applies one tab's edit to the value another tab saved. The browser
// behaviour (leave the page, two tabs) is proven by tests/e2e/test_data_safety.py.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const runtime = require(path.join(__dirname, '..', '..', 'src', 'potato_multiagent', 'web', 'widget.js'));

test('flushEdits runs every waiting debounced edit once, and only those', () => {
  const runs = [];
  const a = runtime.debounce(() => runs.push('a'), 10000);
  const b = runtime.debounce(() => runs.push('b'), 10000);
  const idle = runtime.debounce(() => runs.push('idle'), 10000);
  const dropped = runtime.debounce(() => runs.push('dropped'), 10000);
  a(); b(); dropped(); dropped.cancel();
  runtime.flushEdits();
  assert.deepEqual(runs.sort(), ['a', 'b']);
  assert.equal(a.pending(), false);
  runtime.flushEdits();
  assert.deepEqual(runs.sort(), ['a', 'b'], 'nothing runs twice');
  idle.cancel();
});

test('flushEdits keeps going when one edit throws', () => {
  const runs = [];
  const quiet = console.error;
  console.error = () => {};
  try {
    const bad = runtime.debounce(() => { throw new Error('boom'); }, 10000);
    const good = runtime.debounce(() => runs.push('good'), 10000);
    bad(); good();
    runtime.flushEdits();
  } finally {
    console.error = quiet;
  }
  assert.deepEqual(runs, ['good']);
});

test('scorecard: two tabs scoring different agents keep both scores', () => {
  const base = null;
  const mine = { agents: { Writer: { accuracy: 4 } }, team: {}, milestones: {} };
  const theirs = { agents: { Researcher: { accuracy: 2 } }, team: {}, milestones: {} };
  const merged = runtime.mergeValues(base, mine, theirs);
  assert.deepEqual(merged.value.agents, { Writer: { accuracy: 4 }, Researcher: { accuracy: 2 } });
  assert.equal(merged.conflicts, 0);
});

test('the same cell changed in both tabs: the later edit (mine) wins and is counted', () => {
  const base = { agents: { Writer: { accuracy: 3 } } };
  const merged = runtime.mergeValues(base, { agents: { Writer: { accuracy: 5 } } },
    { agents: { Writer: { accuracy: 1 } } });
  assert.deepEqual(merged.value, { agents: { Writer: { accuracy: 5 } } });
  assert.equal(merged.conflicts, 1);
});

test('a cell I left alone takes theirs; one I removed stays removed', () => {
  const base = { agents: { A: { q: 1 }, B: { q: 2 } } };
  const mine = { agents: { A: { q: 1 } } };                 // removed B
  const theirs = { agents: { A: { q: 4 }, B: { q: 2 } } };  // changed A
  assert.deepEqual(runtime.mergeValues(base, mine, theirs).value, { agents: { A: { q: 4 } } });
});

test('lists merge entry by identity, not by position', () => {
  const base = [];
  const mine = [{ index: 1, step: 3, from: 'A', to: 'B', flags: ['info_loss'], quality: 'poor' }];
  const theirs = [{ index: 0, step: 1, from: 'B', to: 'A', flags: [], quality: 'good' }];
  const merged = runtime.mergeValues(base, mine, theirs).value;
  assert.deepEqual(merged.map((entry) => entry.index), [1, 0]);
  // the same entry edited on both sides merges field by field
  const both = runtime.mergeValues(
    [{ index: 0, step: 1, tool: 'search', verdict: null, notes: '' }],
    [{ index: 0, step: 1, tool: 'search', verdict: 'correct', notes: '' }],
    [{ index: 0, step: 1, tool: 'search', verdict: null, notes: 'slow' }]).value;
  assert.deepEqual(both, [{ index: 0, step: 1, tool: 'search', verdict: 'correct', notes: 'slow' }]);
});

test('lists of plain values merge as sets: additions on both sides, removals kept', () => {
  const merged = runtime.mergeValues({ groupthink: { turns: [1, 2], note: '' } },
    { groupthink: { turns: [1, 2, 5], note: '' } },
    { groupthink: { turns: [2], note: 'late' } }).value;
  assert.deepEqual(merged, { groupthink: { turns: [2, 5], note: 'late' } });
});

test('graph edge marks keyed by from/to; key order never matters', () => {
  const merged = runtime.mergeValues({ critical_nodes: [], edge_marks: [] },
    { critical_nodes: ['A'], edge_marks: [{ from: 'A', to: 'B', status: 'critical' }] },
    { edge_marks: [{ status: 'problematic', to: 'C', from: 'B' }], critical_nodes: [] }).value;
  assert.deepEqual(merged.critical_nodes, ['A']);
  assert.deepEqual(merged.edge_marks.map((mark) => mark.to), ['B', 'C']);
});

test('repeated identities in a list fall back to one cell (mine), never a guess', () => {
  const twice = [{ index: 0, verdict: 'a' }, { index: 0, verdict: 'b' }];
  const merged = runtime.mergeValues([], twice, [{ index: 1, verdict: 'c' }]);
  assert.deepEqual(merged.value, twice);
  assert.equal(merged.conflicts, 1);
});

test('a widget may name its own entry identity', () => {
  const keyOf = (entry) => String(entry.name);
  const merged = runtime.mergeValues([], [{ name: 'x', v: 1 }], [{ name: 'x', v: 2 }], keyOf);
  assert.deepEqual(merged.value, [{ name: 'x', v: 1 }]);
  assert.equal(merged.conflicts, 1);
});

test('a key named __proto__ is merged as data, never as a prototype', () => {
  const mine = JSON.parse('{"__proto__": {"turns": [1], "note": ""}, "groupthink": {"turns": [2], "note": ""}}');
  const theirs = JSON.parse('{"__proto__": {"turns": [1], "note": "theirs"}}');
  const base = JSON.parse('{"__proto__": {"turns": [1], "note": ""}}');
  const merged = runtime.mergeValues(base, mine, theirs).value;
  assert.equal(JSON.stringify(merged),
    '{"__proto__":{"turns":[1],"note":"theirs"},"groupthink":{"turns":[2],"note":""}}');
  assert.equal(Object.getPrototypeOf({}).turns, undefined);
});
