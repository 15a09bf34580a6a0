'use strict';
// The trace view's pure half: what each row shows (viewModel/rowFacts) and the layout rules.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { derive } = require('../../src/potato_multiagent/web/derive.js');
const trace = require('../../src/potato_multiagent/web/trace_view.js');

const record = {steps: [
  {role: 'Orchestrator (-> WebSurfer)', content: 'Find the DHL office.', timestamp: '2024-01-01T00:00:00Z'},
  {agent: 'WebSurfer', tool_calls: [{id: 'c1', function: {name: 'search', arguments: '{"q": "DHL"}'}}]},
  {agent: 'WebSurfer', tool_call_id: 'c1', content: 'no result'},
  {type: 'handoff', from_agent: 'WebSurfer', to_agent: 'Orchestrator', content: 'done'},
]};

test('every row: #N, agent with qualifier, handoffs received, tool calls with arguments and result', () => {
  const rows = trace.viewModel(derive(record, {}), record, {});
  assert.deepEqual(rows.map(trace.rowFacts), [
    {number: '#1', agent: 'Orchestrator (-> WebSurfer)', handoffs: [], toolCalls: []},
    {number: '#2', agent: 'WebSurfer', handoffs: ['Handoff: Orchestrator \u2192 WebSurfer'], toolCalls: ['search']},
    {number: '#3', agent: 'WebSurfer', handoffs: [], toolCalls: []},
    {number: '#4', agent: 'WebSurfer', handoffs: ['Explicit handoff: WebSurfer \u2192 Orchestrator'], toolCalls: []},
  ]);
  assert.equal(rows[0].time, '2024-01-01T00:00:00Z');
  assert.equal(rows[1].time, null);
  assert.equal(rows[1].toolCalls[0].arguments, '{\n  "q": "DHL"\n}');
  assert.equal(rows[1].toolCalls[0].resultStep, 2);
  assert.equal(rows[1].toolCalls[0].result, 'no result');
  assert.equal(rows[1].handoffs[0].fromStep, 0);
});

test('auto: the layout rule on its cases (trace_view/layout_cases.json, also run against Python)', () => {
  const cases = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'src', 'potato_multiagent', 'trace_view',
    'layout_cases.json'), 'utf8')).cases;
  assert.ok(cases.length >= 9);
  cases.forEach((testCase) => {
    assert.deepEqual(trace.layoutRule(derive(testCase.record, {})), {layout: testCase.layout, because: testCase.because},
      testCase.name);
    assert.equal(trace.autoLayout(derive(testCase.record, {})), testCase.layout, testCase.name);
  });
});

test('the answer map: only the three layouts, only own keys', () => {
  const map = {group_chat: 'board', odd: 'spiral'};
  assert.equal(trace.layoutForAnswer('group_chat', map), 'board');
  assert.equal(trace.layoutForAnswer('odd', map), null);
  assert.equal(trace.layoutForAnswer('toString', map), null);
  assert.equal(trace.layoutForAnswer(null, map), null);
});

test('threads: delegation and return marked on the receiving steps, auto picks the tree', () => {
  const threaded = {steps: [
    {agent: 'Manager', content: 'split the work'},
    {agent: 'Worker', thread: 'w1', content: 'on it'},   // started from the root thread
    {agent: 'Worker', thread: 'w1', content: 'done'},
    {agent: 'Manager', content: 'thanks'},
  ]};
  const derivation = derive(threaded, {});
  const rows = trace.viewModel(derivation, threaded, {});
  assert.equal(rows[1].thread, 'w1');
  assert.deepEqual(rows.map((row) => row.handoffs.map((h) => h.text)),
    [[], ['Delegation: Manager \u2192 Worker'], [], ['Return: Worker \u2192 Manager']]);
  assert.equal(trace.autoLayout(derivation), 'tree');
});

test('stepModel: each step\'s entry as viewModel has it, built only when asked for', () => {
  const failing = {steps: [
    ...record.steps,
    {agent: 'WebSurfer', tool_calls: [{id: 'c2', function: {name: 'fetch', arguments: {url: 'x'}}}]},
    {agent: 'WebSurfer', tool_call_id: 'c2', content: 'boom', error: 'timeout'},
  ]};
  const derivation = derive(failing, {});
  const all = trace.viewModel(derivation, failing, {});
  const lazy = trace.stepModel(derivation, failing, {});
  assert.equal(lazy.length, all.length);
  assert.equal(lazy.built(), 0);
  assert.deepEqual(lazy.at(4), all[4]);
  assert.equal(lazy.built(), 1);
  assert.equal(lazy.at(4), lazy.at(4));   // kept, not rebuilt
  all.forEach((entry, i) => assert.deepEqual(lazy.at(i), entry));
  assert.equal(all[4].toolCalls[0].error, 'timeout');   // the result step's error
  assert.deepEqual(all[5].results, [all[4].toolCalls[0].index]);
});

test('threadDepths and laneMap read the derivation\'s steps', () => {
  const model = require('../../src/potato_multiagent/web/trace_view_model.js');
  const steps = [{agent: null}, {agent: 'M'}, {agent: 'W', thread: 'w1', parent_thread: null},
    {agent: 'V', thread: 'v1', parent_thread: 'w1'}];
  const depth = model.threadDepths(steps);
  assert.deepEqual([depth(null), depth('w1'), depth('v1')], [0, 1, 2]);
  assert.deepEqual(model.laneMap(steps), {of: Object.assign(Object.create(null), {M: 1, W: 2, V: 3}), none: 0, count: 4});
});
