'use strict';
// Pure rules of the tool_call_review widget (types/tool_call_review/marks.js), run by
// `node --test tests/js/` with no DOM library. The DOM behaviour is proven by
// tests/e2e/test_tool_call_review.py; tests/unit/test_tool_call_review.py checks that these
// helpers report the same problems as the Python validation.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const WEB = path.join(PACKAGE, 'web');
const TYPES = path.join(PACKAGE, 'types');
const shim = require('./type_rules.js');
const runtime = shim.core;
const tcr = shim.load('tool_call_review');
const { derive } = require(path.join(WEB, 'derive.js'));

const record = {
  steps: [
    { role: 'assistant', name: 'Planner', tool_calls: [
      { id: 'call_1', function: { name: 'get_weather', arguments: '{"city": "Oslo", "days": [1, 2]}' } },
      { id: 'call_2', function: { name: '<img src=x onerror=alert(1)>', arguments: '{"broken": ' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'line 1\nline 2' },
    { agent: 'Researcher', action: 'search[flights]' },
    { agent: 'Computer_terminal', content: '' },
    { agent: 'Researcher', action: { tool: 'finish' } },
  ],
};
const derivation = derive(record, {});
const calls = tcr.indexCalls(derivation.tool_calls);

// The JSON Schema pydantic emits for ToolCallReviewValue, trimmed to what the checks read.
const CONFIG = {
  verdict_options: ['correct', 'wrong_tool', 'wrong_args', 'wrong_order'],
  multi_verdict: false,
  allow_notes: true,
  value_schema: {
    type: 'array',
    items: { $ref: '#/$defs/ToolCallJudgement' },
    $defs: {
      ToolCallJudgement: {
        type: 'object', additionalProperties: false, required: ['index', 'step', 'tool', 'verdict', 'notes'],
        properties: {
          index: { type: 'integer', minimum: 0 },
          step: { type: 'integer', minimum: 0 },
          position: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
          id: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          tool: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          verdict: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          verdicts: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
          notes: { type: 'string' },
        },
      },
    },
  },
};

function stored(value) {
  const raw = typeof value === 'string' ? value : JSON.stringify(value);
  return Object.assign({ raw }, runtime.parseStored(raw));
}

function judgement(call, extra) {
  return Object.assign({ index: call.index, step: call.step, position: calls.positions[call.index], id: call.id,
    tool: call.tool, verdict: 'correct', notes: '' }, extra || {});
}

test('calls are numbered within their step', () => {
  assert.deepEqual(tcr.callPositions(derivation.tool_calls), [0, 1, 0, 0]);
});

test('findCall: by id, else by step + position + tool, else (seed shape) by index + step + tool', () => {
  const [weather, broken, search] = derivation.tool_calls;
  assert.equal(tcr.findCall(calls, { id: 'call_2', step: 9, tool: 'x', index: 9 }), broken);
  assert.equal(tcr.findCall(calls, { id: 'call_9', step: 0, position: 0, tool: 'get_weather', index: 0 }), null);
  assert.equal(tcr.findCall(calls, { id: null, step: 2, position: 0, tool: 'search', index: 7 }), search);
  assert.equal(tcr.findCall(calls, { step: 2, position: 0, tool: 'delete_db', index: 2 }), null);
  assert.equal(tcr.findCall(calls, { index: 0, step: 0, tool: 'get_weather' }), weather);
  assert.equal(tcr.findCall(calls, { index: 1, step: 0, tool: 'get_weather' }), null, 'never position alone');
});

test('calls sharing an id are told apart by step and position', () => {
  const twins = tcr.indexCalls(derive({ steps: [
    { agent: 'A', tool_call: { id: 'x', name: 'f' } }, { agent: 'A', tool_call: { id: 'x', name: 'f' } }] }).tool_calls);
  assert.equal(tcr.findCall(twins, { id: 'x', step: 1, position: 0, tool: 'f', index: 1 }).index, 1);
  assert.equal(tcr.findCall(twins, { id: 'x', step: 5, position: 0, tool: 'f', index: 1 }), null);
});

test('readStored keeps readable entries, sets aside broken ones, and refuses a value that is not a list', () => {
  const good = judgement(derivation.tool_calls[0]);
  const read = tcr.readStored(stored([good, { index: -1, step: 0, tool: 'f', verdict: null, notes: '' }, 7]), CONFIG);
  assert.deepEqual(read.entries, [{ k: 0, entry: good }]);
  assert.deepEqual(read.broken.map((item) => item.k), [1, 2]);
  assert.match(read.broken[0].problem, /^\[1\]\.index: should be at least 0/);
  assert.match(read.broken[1].problem, /^\[2\]: should be an object, got 7/);
  assert.equal(read.unreadable, null);

  assert.match(tcr.readStored(stored('{"index": 0}'), CONFIG).unreadable, /^The saved value could not be read: value: should be a list/);
  assert.match(tcr.readStored(stored('[{"index"'), CONFIG).unreadable, /not valid JSON/);
  assert.deepEqual(tcr.readStored(stored(''), CONFIG), { entries: [], broken: [], unreadable: null });
});

test('matchEntries: the first judgement of a call wins; the rest say why they match nothing', () => {
  const weather = derivation.tool_calls[0];
  const rows = tcr.matchEntries([{ k: 0, entry: judgement(weather) }, { k: 1, entry: judgement(weather) },
    { k: 2, entry: { index: 0, step: 0, id: 'ghost', tool: 'f', verdict: null, notes: '' } }], calls);
  assert.deepEqual(rows.map((row) => row.call && row.call.index), [0, null, null]);
  assert.deepEqual(rows.map((row) => row.problem), [null, { code: 'repeats_entry', field: '[1]', first: '[0]' },
    { code: 'not_in_trace', field: '[2].id', value: 'ghost' }]);
});

test('composeEntry stores identity, verdict and notes; nothing given stores nothing', () => {
  const search = derivation.tool_calls[2];
  assert.equal(tcr.composeEntry(search, 0, [], '', CONFIG), null);
  assert.deepEqual(tcr.composeEntry(search, 0, ['wrong_args'], 'say "why"', CONFIG),
    { index: 2, step: 2, position: 0, id: null, tool: 'search', verdict: 'wrong_args', notes: 'say "why"' });
  const multi = Object.assign({}, CONFIG, { multi_verdict: true });
  assert.deepEqual(tcr.composeEntry(search, 0, ['wrong_tool', 'wrong_order'], '', multi),
    { index: 2, step: 2, position: 0, id: null, tool: 'search', verdict: 'wrong_tool',
      verdicts: ['wrong_tool', 'wrong_order'], notes: '' });
  assert.deepEqual(tcr.composeEntry(search, 0, [], 'note only', multi).verdicts, []);
});

test('chosenVerdicts reads verdict or verdicts, keeping only configured ones in config order', () => {
  assert.deepEqual(tcr.chosenVerdicts({ verdict: 'wrong_args' }, CONFIG), ['wrong_args']);
  assert.deepEqual(tcr.chosenVerdicts({ verdict: 'x', verdicts: ['wrong_order', 'bogus', 'correct'] }, CONFIG),
    ['correct', 'wrong_order']);
  assert.deepEqual(tcr.chosenVerdicts({ verdict: 'bogus' }, CONFIG), []);
  assert.deepEqual(tcr.chosenVerdicts(null, CONFIG), []);
});

test('card titles: Call K: TOOL by AGENT (step N), hostile names verbatim', () => {
  assert.deepEqual(derivation.tool_calls.map(tcr.cardTitle), [
    'Call 1: get_weather by Planner (step 1)',
    'Call 2: <img src=x onerror=alert(1)> by Planner (step 1)',
    'Call 3: search by Researcher (step 3)',
    'Call 4: finish by Researcher (step 5)',
  ]);
  assert.equal(tcr.cardTitle({ index: 0, step: 0, tool: null, agent: null }), 'Call 1: (no tool name) by no agent (step 1)');
});

test('arguments: pretty JSON, text as written, broken JSON raw and marked, none said so', () => {
  const [weather, broken, search, finish] = derivation.tool_calls;
  assert.deepEqual(tcr.argumentsView(weather), { label: 'Arguments',
    text: '{\n  "city": "Oslo",\n  "days": [\n    1,\n    2\n  ]\n}' });
  assert.deepEqual(tcr.argumentsView(broken), { label: 'Arguments (not valid JSON, shown as written)',
    text: '{"broken": ' });
  assert.deepEqual(tcr.argumentsView(search), { label: 'Arguments (text)', text: 'flights' });
  assert.deepEqual(tcr.argumentsView(finish), { label: 'No arguments', text: '' });
});

test('preview cuts by lines and characters, says so, and never halves a surrogate pair', () => {
  assert.deepEqual(tcr.preview('a\nb\nc', { lines: 5, chars: 100 }), { text: 'a\nb\nc', cut: false });
  assert.deepEqual(tcr.preview('a\nb\nc\nd', { lines: 2, chars: 100 }), { text: 'a\nb\u2026', cut: true });
  const huge = tcr.preview('x'.repeat(100000), { lines: 12, chars: 800 });
  assert.equal(huge.text.length, 801);
  assert.ok(huge.cut);
  const emoji = tcr.preview('a' + '\u{1F600}'.repeat(10), { lines: 1, chars: 4 });
  assert.equal(emoji.text, 'a\u{1F600}\u2026');
});

test('result previews come from result_step; an empty result step says so', () => {
  const [weather, broken, search, finish] = derivation.tool_calls;
  assert.deepEqual(tcr.resultView(weather, derivation), { label: 'Result in step 2 (tool)', text: 'line 1\nline 2', empty: null });
  assert.equal(tcr.resultView(broken, derivation), null);
  assert.deepEqual(tcr.resultView(search, derivation), { label: 'Result in step 4 (Computer_terminal)', text: '',
    empty: 'That step has no text to preview.' });
  assert.equal(tcr.resultView(finish, derivation), null);
});

test('completeness and summary are fixed sentences with counts', () => {
  assert.equal(tcr.incompleteReason(3, 10, null), '3 of 10 tool calls judged');
  assert.equal(tcr.incompleteReason(10, 10, null), null);
  assert.equal(tcr.incompleteReason(0, 0, null), null);
  assert.match(tcr.incompleteReason(0, 4, 'x'), /could not be read/);
  assert.equal(tcr.summaryText(1, 4, 0), '1 of 4 tool calls judged.');
  assert.equal(tcr.summaryText(0, 0, 2), 'This trace has no tool calls. 2 judgements are not in this trace.');
  assert.equal(tcr.summaryText(2, 2, 1), '2 of 2 tool calls judged. 1 judgement is not in this trace.');
});

test('describeEntry words any stored judgement, readable or not', () => {
  assert.equal(tcr.describeEntry({ index: 0, step: 3, id: 'c9', tool: 'search', verdict: 'wrong_args', notes: '  why\nnot' }),
    'tool search at step #4 (id c9): wrong_args; notes: why');
  assert.equal(tcr.describeEntry({ step: 'x', tool: null, verdicts: ['a', 'b'] }), 'no tool: a, b');
  assert.equal(tcr.describeEntry(7), 'An unreadable judgement');
});

test('filters by agent and tool; next unjudged wraps around and skips judged calls', () => {
  const all = derivation.tool_calls;
  assert.deepEqual(tcr.filterCalls(all, -1, -1), [0, 1, 2, 3]);
  assert.deepEqual(tcr.filterCalls(all, 'Researcher', -1), [2, 3]);
  assert.deepEqual(tcr.filterCalls(all, 'Researcher', 'finish'), [3]);
  assert.deepEqual(tcr.filterCalls(all, 'Planner', 'finish'), []);
  const judged = new Set([1, 2]);
  const isJudged = (index) => judged.has(index);
  assert.equal(tcr.nextUnjudged([0, 1, 2, 3], 0, isJudged), 3);
  assert.equal(tcr.nextUnjudged([0, 1, 2, 3], 3, isJudged), 0);
  assert.equal(tcr.nextUnjudged([0, 1, 2, 3], -1, isJudged), 0);
  assert.equal(tcr.nextUnjudged([1, 2], 0, isJudged), -1);
  assert.equal(tcr.nextUnjudged([], -1, isJudged), -1);
});

test('identity and value problems at 5,000 calls: a value judging every call has none', () => {
  // How long it takes is bench/'s business, not a test's.
  const steps = [];
  for (let i = 0; i < 5000; i += 1) {
    steps.push({ agent: 'A' + (i % 7), tool_calls: [{ id: 'c' + i, function: { name: 't' + (i % 13), arguments: '{"i": ' + i + '}' } }] });
  }
  const big = derive({ steps }, {});
  const index = tcr.indexCalls(big.tool_calls);
  const value = big.tool_calls.map((call) => tcr.composeEntry(call, 0, ['correct'], '', CONFIG));
  assert.equal(value.length, 5000);
  assert.deepEqual(tcr.traceProblems(value, index, CONFIG), []);
});

test('describe: summary, completeness, notices and one stale entry per kept judgement, each with its Remove value', () => {
  const search = derivation.tool_calls[2];
  const good = tcr.composeEntry(search, 0, ['correct'], '', CONFIG);
  const ghost = { index: 0, step: 0, position: 0, id: 'ghost', tool: 'delete_db', verdict: 'correct', notes: '' };
  const brokenEntry = { index: -1, step: 0, tool: 'f', verdict: null, notes: '' };
  const said = tcr.describe(null, { derivation, config: CONFIG, stored: stored([ghost, good, brokenEntry]) });
  assert.equal(said.summary, '1 of 4 tool calls judged. 2 judgements are not in this trace.');
  assert.equal(said.incomplete, '1 of 4 tool calls judged');
  const words = said.notices.map((notice) => notice.text);
  assert.ok(words.includes("[0].id: 'ghost' is not in this trace"), words.join(' | '));
  assert.ok(words.some((line) => line.startsWith('A judgement could not be read: [2].index')), words.join(' | '));
  assert.deepEqual(said.stale.map((entry) => entry.text), [
    'tool delete_db at step #1 (id ghost): correct (not in this trace)',
    'tool f at step #1: no verdict (could not be read: ' + words.find((l) => l.startsWith('A judgement could'))
      .slice('A judgement could not be read: '.length) + ')']);
  assert.deepEqual(said.stale[0].remove, [good, brokenEntry]);
  assert.deepEqual(said.stale[1].remove, [good, ghost]);
  const alone = tcr.describe(null, { derivation, config: CONFIG, stored: stored([ghost]) });
  assert.equal(alone.stale[0].remove, null, 'removing the last entry stores nothing');
});

test('from_judgment is stored only when the entry came from a judgment', () => {
  const search = derivation.tool_calls[2];
  assert.equal(tcr.composeEntry(search, 0, ['correct'], '', CONFIG).from_judgment, undefined);
  assert.equal(tcr.composeEntry(search, 0, ['correct'], '', CONFIG, 'llm-judge').from_judgment, 'llm-judge');
});

test('open-tool-call: the first call of a step, or none', () => {
  assert.equal(tcr.firstCallAtStep(derivation.tool_calls, 0), 0);
  assert.equal(tcr.firstCallAtStep(derivation.tool_calls, 2), 2);
  assert.equal(tcr.firstCallAtStep(derivation.tool_calls, 1), -1);
});
