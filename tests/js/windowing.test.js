'use strict';
// The pure parts of web/windowing.js (issue 18: render what is visible, not what exists) and
// of the step picker that uses them. The DOM behaviour is proven in tests/e2e/.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const win = require(path.join(PACKAGE, 'web', 'windowing.js'));
const fa = require('./type_rules.js').load('failure_attribution');
const { derive } = require(path.join(PACKAGE, 'web', 'derive.js'));

// ---------------------------------------------------------------------------------------------
// The first meaningful line
// ---------------------------------------------------------------------------------------------

test('first meaningful line: boilerplate headers, blank and punctuation-only lines are skipped', () => {
  // The shape of a Magentic-One ledger step (Who&When Hand-Crafted): header, brace, JSON key.
  const ledger = 'Updated Ledger:\n{\n  "is_request_satisfied": {\n' +
    '    "reason": "The request has not yet been satisfied.",\n    "answer": false\n  },';
  assert.equal(win.firstMeaningfulLine(ledger), 'The request has not yet been satisfied.');
  assert.equal(win.firstMeaningfulLine('\n\n---\n## Plan\n**Answer:**\nBook the DHL flight'), 'Book the DHL flight');
  assert.equal(win.firstMeaningfulLine('Initial plan:\n\nWe are working to address the request:\nx'),
    'We are working to address the request:');
  assert.equal(win.firstMeaningfulLine('Next speaker WebSurfer'), 'Next speaker WebSurfer');
  assert.equal(win.firstMeaningfulLine('  many   spaces\there '), 'many spaces here');
});

test('first meaningful line: a text of headers only falls back to its first non-blank line', () => {
  assert.equal(win.firstMeaningfulLine('Updated Ledger:'), 'Updated Ledger:');
  assert.equal(win.firstMeaningfulLine('\n  ---  \n***'), '---');
  assert.equal(win.firstMeaningfulLine(''), '');
  assert.equal(win.firstMeaningfulLine(null), '');
  assert.equal(win.firstMeaningfulLine({ toString: () => 'text' }), 'text');
});

test('first meaningful line looks at a bounded prefix only', () => {
  const huge = ':\n'.repeat(100000) + 'far away';
  assert.equal(win.firstMeaningfulLine(huge), ':');
});

test('agent words keep the qualifier and show an instruction\'s addressee once', () => {
  assert.equal(win.stepAgentWords({ agent: 'Orchestrator', qualifier: 'thought', to: null }), 'Orchestrator (thought)');
  assert.equal(win.stepAgentWords({ agent: 'Orchestrator', qualifier: '-> WebSurfer', to: 'WebSurfer' }),
    'Orchestrator (-> WebSurfer)');
  assert.equal(win.stepAgentWords({ agent: 'Planner', qualifier: null, to: 'Coder' }), 'Planner -> Coder');
  assert.equal(win.stepAgentWords({ agent: null, qualifier: null, to: null }), 'no agent');
});

test('step labels of a Magentic-One run read #N, the agent with its qualifier and what the step says', () => {
  const record = {
    history: [
      { role: 'Orchestrator (thought)', content: 'Updated Ledger:\n{\n  "is_request_satisfied": {\n    "reason": "Not yet: no fare found.",' },
      { role: 'Orchestrator (-> WebSurfer)', content: 'Search for the DHL fare to Lisbon.' },
      { role: 'WebSurfer', content: '\n\nI typed "DHL fare" into the search bar.' },
    ],
  };
  const derivation = derive(record, { steps_key: 'history', agent_key: 'role' });
  assert.deepEqual(derivation.steps.map(fa.stepLabel), [
    '#1 \u00B7 Orchestrator (thought) \u00B7 Not yet: no fare found.',
    '#2 \u00B7 Orchestrator (-> WebSurfer) \u00B7 Search for the DHL fare to Lisbon.',
    '#3 \u00B7 WebSurfer \u00B7 I typed "DHL fare" into the search bar.',
  ]);
  assert.equal(fa.stepHaystack(derivation.steps[1]), '#2 orchestrator (-> websurfer) search for the dhl fare to lisbon.');
});

test('the chosen step\'s text is folded after 8 lines or 600 characters', () => {
  assert.deepEqual(fa.foldText('short\ntext  \n', 600, 8), { head: 'short\ntext', folded: false });
  const lines = Array.from({ length: 12 }, (_, i) => 'line ' + i).join('\n');
  assert.deepEqual(fa.foldText(lines, 600, 8), { head: lines.split('\n').slice(0, 8).join('\n'), folded: true });
  const long = 'x'.repeat(1000);
  assert.deepEqual(fa.foldText(long, 600, 8), { head: 'x'.repeat(600), folded: true });
  assert.deepEqual(fa.foldText(null, 600, 8), { head: '', folded: false });
});

// ---------------------------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------------------------

const ITEMS = [
  { number: 1, text: '#1 planner plan the trip' },
  { number: 2, text: '#2 coder -> tester write the code' },
  { number: 12, text: '#12 tester run the tests' },
  { number: 120, text: '#120 planner report to the user' },
];

function search(query) {
  const kept = win.filterItems(ITEMS.length, query, (i) => ITEMS[i].number, (i) => ITEMS[i].text);
  return kept === null ? null : kept.map((i) => ITEMS[i].number);
}

test('search: "#N" keeps the numbers starting with N, exact one first; words match agent and text', () => {
  assert.equal(search(''), null);            // nothing typed: every item, no list made
  assert.equal(search('   '), null);
  assert.deepEqual(search('#12'), [12, 120]);
  assert.deepEqual(search('#1'), [1, 12, 120]);
  assert.deepEqual(search('planner'), [1, 120]);
  assert.deepEqual(search('Tester'), [2, 12]);           // case does not matter; "-> tester" counts
  assert.deepEqual(search('planner report'), [120]);     // every word must match
  assert.deepEqual(search('#12 planner'), [120]);
  assert.deepEqual(search('12'), [12, 120]);             // a bare number matches "#12..." in the text
  assert.deepEqual(search('nobody'), []);
});

test('parseQuery splits the number from the words', () => {
  assert.deepEqual(win.parseQuery(' #7  Web  '), { number: '7', words: ['web'], empty: false });
  assert.deepEqual(win.parseQuery(''), { number: null, words: [], empty: true });
  assert.deepEqual(win.parseQuery('#x'), { number: null, words: ['#x'], empty: false });
});

// ---------------------------------------------------------------------------------------------
// Window arithmetic
// ---------------------------------------------------------------------------------------------

test('clampWindow keeps a window of `size` inside the list', () => {
  assert.deepEqual(win.clampWindow(50000, 100, 20), { first: 100, end: 120 });
  assert.deepEqual(win.clampWindow(50000, -5, 20), { first: 0, end: 20 });
  assert.deepEqual(win.clampWindow(50000, 49995, 20), { first: 49980, end: 50000 });
  assert.deepEqual(win.clampWindow(7, 3, 20), { first: 0, end: 7 });
  assert.deepEqual(win.clampWindow(0, 3, 20), { first: 0, end: 0 });
});

test('scrollWindow draws the rows under the viewport and a few either side, whatever the length', () => {
  assert.deepEqual(win.scrollWindow(0, 28, 10, 50000, 5), { first: 0, end: 15 });
  assert.deepEqual(win.scrollWindow(28 * 1000, 28, 10, 50000, 5), { first: 995, end: 1015 });
  assert.deepEqual(win.scrollWindow(28 * 49995, 28, 10, 50000, 5), { first: 49990, end: 50000 });
  assert.deepEqual(win.scrollWindow(28 * 1000 + 27, 28, 10, 5000, 5), { first: 995, end: 1015 });
  assert.deepEqual(win.scrollWindow(0, 28, 10, 3, 5), { first: 0, end: 3 });
  const sizes = [5000, 50000].map((total) => {
    const view = win.scrollWindow(28 * 2500, 28, 10, total, 5);
    return view.end - view.first;
  });
  assert.equal(sizes[0], sizes[1]);
});

test('moveActive: the keys of a native listbox, clamped at both ends', () => {
  assert.equal(win.moveActive(null, 'ArrowDown', 100, 10), 0);
  assert.equal(win.moveActive(null, 'ArrowUp', 100, 10), 99);
  assert.equal(win.moveActive(5, 'ArrowDown', 100, 10), 6);
  assert.equal(win.moveActive(0, 'ArrowUp', 100, 10), 0);
  assert.equal(win.moveActive(99, 'ArrowDown', 100, 10), 99);
  assert.equal(win.moveActive(5, 'PageDown', 100, 10), 15);
  assert.equal(win.moveActive(95, 'PageDown', 100, 10), 99);
  assert.equal(win.moveActive(5, 'PageUp', 100, 10), 0);
  assert.equal(win.moveActive(50, 'Home', 100, 10), 0);
  assert.equal(win.moveActive(50, 'End', 100, 10), 99);
  assert.equal(win.moveActive(50, 'Enter', 100, 10), null);
  assert.equal(win.moveActive(null, 'ArrowDown', 0, 10), null);
});

test('pageBounds: pages of a list, clamped', () => {
  assert.deepEqual(win.pageBounds(120, 0, 50), { page: 0, pages: 3, first: 0, end: 50 });
  assert.deepEqual(win.pageBounds(120, 2, 50), { page: 2, pages: 3, first: 100, end: 120 });
  assert.deepEqual(win.pageBounds(120, 7, 50), { page: 2, pages: 3, first: 100, end: 120 });
  assert.deepEqual(win.pageBounds(0, 0, 50), { page: 0, pages: 1, first: 0, end: 0 });
});

test('a time window holds at most the asked number of call starts, and never none', () => {
  const starts = Array.from({ length: 50000 }, (_, i) => i * 0.25);
  const end = win.timeWindowEnd(starts, 0, 150, starts[starts.length - 1]);
  assert.equal(win.countBelow(starts, end), 150);
  const later = win.timeWindowEnd(starts, 1000, 150, starts[starts.length - 1]);
  assert.equal(win.countBelow(starts, later) - win.countBelow(starts, 1000), 150);
  assert.equal(win.timeWindowEnd(starts, 0, 60000, 9), 9);
  assert.ok(win.timeWindowEnd([0, 0, 0, 5], 0, 1, 5) > 0);
});

test('countAround says how many intervals lie before, inside and after a window', () => {
  const calls = [{ start: 0, end: 1 }, { start: 2, end: 4 }, { start: 3, end: 9 }, { start: 10, end: 11 }];
  assert.deepEqual(win.countAround(calls, 3.5, 5), { before: 1, inside: 2, after: 1 });
  assert.deepEqual(win.countAround(calls, 100, 200), { before: 4, inside: 0, after: 0 });
  assert.deepEqual(win.countAround([], 0, 1), { before: 0, inside: 0, after: 0 });
});

test('formatCount groups thousands', () => {
  assert.equal(win.formatCount(50000), '50,000');
  assert.equal(win.formatCount(999), '999');
  assert.equal(win.formatCount(1234567), '1,234,567');
});

test('pageWords: "a–b of N noun" (the one wording of web/pager.js), thousands grouped, the last page short', () => {
  assert.equal(win.pageWords(win.pageBounds(2501, 1, 50), 2501, 'handoffs'), '51\u2013100 of 2,501 handoffs');
  assert.equal(win.pageWords(win.pageBounds(2501, 50, 50), 2501, 'handoffs'), '2,501\u20132,501 of 2,501 handoffs');
  assert.equal(win.pageWords(win.pageBounds(7, 0, 20), 7, 'turns shown'), '1\u20137 of 7 turns shown');
});

test('pageWords: a page asked past the end is the last one; no items say nothing', () => {
  assert.equal(win.pageWords(win.pageBounds(45, 9, 20), 45, 'tool calls'), '41\u201345 of 45 tool calls');
  assert.equal(win.pageWords(win.pageBounds(0, 0, 20), 0, 'tool calls'), '');
});
