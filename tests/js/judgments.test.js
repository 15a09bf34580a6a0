'use strict';
// Judgments (issue 17): failure attribution's pure rules (which judgments, their words, when they
// show, the accepted value) and the trace view's markers (which steps a judgment points at).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const shim = require('./type_rules.js');
const trace = require(path.join(PACKAGE, 'web', 'trace_view.js'));
const marks = shim.load('failure_attribution');
['handoff_review', 'tool_call_review', 'emergent_behavior'].forEach(shim.load);
const rulesOf = shim.core.registeredMarks;

const judgments = [
  {source: 'gpt-4o judge', value: {responsible_agent: 'WebSurfer', decisive_step: 12, reason: 'It clicked the wrong link.'}},
  {source: 'last speaker', value: '{"responsible_agent": "Orchestrator", "decisive_step": 0, "reason": ""}'},
  {source: 'broken', value: 'not json'},
  {value: {responsible_agent: 'X', decisive_step: 1, reason: ''}},
];

test('failure attribution reads the judgments of its scheme under judgments_key, leaving bad entries out', () => {
  const record = {verdicts: {attribution: judgments, other: judgments}};
  const found = marks.judgmentsFor(record, {judgments_key: 'verdicts'}, 'attribution');
  assert.deepEqual(found, [
    {source: 'gpt-4o judge', agent: 'WebSurfer', step: 12, reason: 'It clicked the wrong link.'},
    {source: 'last speaker', agent: 'Orchestrator', step: 0, reason: ''},
  ]);
  assert.deepEqual(marks.judgmentsFor(record, {}, 'attribution'), []);            // default key "judgments"
  assert.deepEqual(marks.judgmentsFor({judgments: {attribution: 'x'}}, {}, 'attribution'), []);
});

test('a judgment says its source, agent, #N and the reason', () => {
  const [judge, baseline] = marks.judgmentsFor({judgments: {a: judgments}}, {}, 'a');
  assert.equal(marks.judgmentWords(judge), "gpt-4o judge: WebSurfer, #13 \u2014 'It clicked the wrong link.'");
  assert.equal(marks.judgmentWords(baseline), 'last speaker: Orchestrator, #1');
  assert.equal(marks.judgmentWords({source: 's', agent: null, step: null, reason: ' '}), 's: no agent, no step');
});

test('show_judgments: always, never, after_answer once agent and step are both chosen', () => {
  const both = {responsible_agent: 'A', decisive_step: 0, reason: ''};
  const agentOnly = {responsible_agent: 'A', decisive_step: null, reason: ''};
  assert.equal(marks.judgmentsShown('always', null), true);
  assert.equal(marks.judgmentsShown('never', both), false);
  assert.equal(marks.judgmentsShown('after_answer', null), false);
  assert.equal(marks.judgmentsShown('after_answer', agentOnly), false);
  assert.equal(marks.judgmentsShown('after_answer', both), true);
});

test('the accepted value records from_judgment; a value chosen independently has no such key', () => {
  assert.deepEqual(marks.composeValue('A', 1, 'mine', 'gpt-4o judge'),
    {responsible_agent: 'A', decisive_step: 1, reason: 'mine', from_judgment: 'gpt-4o judge'});
  assert.deepEqual(Object.keys(marks.composeValue('A', 1, '', null)), ['responsible_agent', 'decisive_step', 'reason']);
  assert.equal(marks.fromJudgmentOf({from_judgment: 'x'}), 'x');
  assert.equal(marks.fromJudgmentOf(null), null);
});

test('trace view: markers on the steps judgments point at, only for schemes shown always', () => {
  const record = {judgments: {
    attribution: [{source: 'gpt', value: {responsible_agent: 'A', decisive_step: 2, reason: ''}}],
    hidden_attribution: [{source: 'gpt', value: {responsible_agent: 'A', decisive_step: 0, reason: ''}}],
    handoffs: [{source: 'gpt', value: [{index: 0, step: 1, from_step: 0, from: 'A', to: 'B', explicit: false,
      flags: ['lost constraint'], quality: 2}]}],
    calls: [{source: 'base', value: '[{"index": 0, "step": 3, "tool": "search", "verdict": "wrong tool", "notes": ""}]'}],
    behaviours: [{source: 'gpt', value: {'echo chamber': {turns: [1, 4], note: ''}}}],
    attribution_bad: [{source: 'gpt', value: {decisive_step: -1}}, {source: 7, value: {decisive_step: 1}}],
  }};
  const schemes = [
    {name: 'attribution', widget: 'failure_attribution', config: {show_judgments: 'always', judgments_key: 'judgments'}},
    {name: 'hidden_attribution', widget: 'failure_attribution', config: {show_judgments: 'after_answer'}},
    {name: 'handoffs', widget: 'handoff_review', config: {}},
    {name: 'calls', widget: 'tool_call_review', config: {show_judgments: 'always'}},
    {name: 'behaviours', widget: 'emergent_behavior', config: {show_judgments: 'always'}},
    {name: 'attribution_bad', widget: 'failure_attribution', config: {}},
  ];
  assert.deepEqual(trace.judgmentMarks(record, schemes, rulesOf), {
    1: ['judge gpt: handoff lost constraint quality 2', 'judge gpt: echo chamber'],
    2: ['judge gpt: decisive step'],
    3: ['judge base: tool call wrong tool'],
    4: ['judge gpt: echo chamber'],
  });
  assert.deepEqual(trace.judgmentMarks({}, schemes, rulesOf), {});
  assert.deepEqual(trace.judgmentMarks({verdicts: record.judgments}, [
    {name: 'attribution', widget: 'failure_attribution', config: {judgments_key: 'verdicts'}}], rulesOf), {2: ['judge gpt: decisive step']});
});

test('web/judgments.js, the one reading of a record\'s judgments: key, shape test, JSON text, hostile entries', () => {
  const shared = require(path.join(__dirname, '..', '..', 'src', 'potato_multiagent', 'web', 'judgments.js'));
  const record = {verdicts: {s: [{source: 'a', value: [1]}, {source: 'b', value: '[2]'}, {source: 'c', value: '{bad'},
    {source: 4, value: [3]}, null, 'text', {source: 'd', value: {x: 1}}, {source: 'e', value: null}]}};
  assert.deepEqual(shared.judgmentsOf(record, {judgments_key: 'verdicts'}, 's', Array.isArray),
    [{source: 'a', value: [1]}, {source: 'b', value: [2]}]);
  assert.deepEqual(shared.judgmentsOf(record, {judgments_key: 'verdicts'}, 's').map((j) => j.source), ['a', 'b', 'd']);
  assert.deepEqual(shared.judgmentsOf(record, {}, 's'), []);                    // default key "judgments"
  assert.deepEqual(shared.judgmentsOf({judgments: {s: {source: 'a'}}}, {}, 's'), []);
  assert.deepEqual(shared.judgmentsOf(null, {}, 's'), []);
  assert.deepEqual(shared.judgmentsOf({judgments: Object.create({s: [{source: 'a', value: [1]}]})}, {}, 's'), []);
  assert.equal(shared.judgmentsShown({}, false), true);
  assert.equal(shared.judgmentsShown({show_judgments: 'sometimes'}, false), true);
  assert.equal(shared.judgmentsShown({show_judgments: 'never'}, true), false);
  assert.equal(shared.judgmentsShown({show_judgments: 'after_answer'}, false), false);
  assert.equal(shared.judgmentsShown({show_judgments: 'after_answer'}, 1), true);
});
