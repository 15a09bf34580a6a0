'use strict';
// Pure rules of the agent_scorecard widget (types/agent_scorecard/marks.js), run by
// `node --test tests/js/` with no DOM library. The grid itself is driven in a real page by
// tests/e2e/test_agent_scorecard.py; tests/unit/test_agent_scorecard.py checks that audit()
// words every mark exactly as Python's validation does.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const WEB = path.join(PACKAGE, 'web');
const TYPES = path.join(PACKAGE, 'types');
const shim = require('./type_rules.js');
const runtime = shim.core;
const asc = shim.load('agent_scorecard');
const { derive } = require(path.join(WEB, 'derive.js'));

const SMITH = 'Agent "Smith"';
const record = {
  steps: [
    { agent: 'Planner', content: 'Plan the trip\nthen book it' },
    { agent: SMITH, content: '  \n  Searching   flights  ' },
    { agent: '__proto__', content: 'a name that is also a JS property' },
    { agent: '<b>Bold</b>', action: { tool: 'book', args: { id: 3 } } },
  ],
};
const derivation = derive(record, { agents: ['Auditor'] });
const CONFIG = {
  agent_dimensions: ['role fidelity', 'contribution'], team_dimensions: ['coordination'],
  milestones: ['plan agreed', 'booked'], scale: 5, scale_labels: { 1: 'poor', 5: 'excellent' },
  allow_na: true, milestone_steps: true,
};
const AGENTS = ['Auditor', 'Planner', SMITH, '__proto__', '<b>Bold</b>'];

function stored(raw) {
  return Object.assign({ raw }, runtime.parseStored(raw));
}

function json(value) { return JSON.parse(JSON.stringify(value)); }

test('rows are the roster, then the agents as they appear', () => {
  assert.deepEqual(derivation.agents, AGENTS);
});

test('a cell is scored, not applicable, or not scored, and each is stored apart', () => {
  let value = asc.emptyValue();
  value = asc.withCell(value, { agent: SMITH }, 'contribution', 4);
  value = asc.withCell(value, { agent: SMITH }, 'role fidelity', asc.NA);
  value = asc.withCell(value, { team: true }, 'coordination', asc.NA);
  assert.deepEqual(json(value), {
    agents: { [SMITH]: { contribution: 4 } }, team: {}, milestones: {},
    not_applicable: { agents: { [SMITH]: ['role fidelity'] }, team: ['coordination'] },
  });
  assert.equal(asc.cellChoice(value, { agent: SMITH }, 'contribution'), 4);
  assert.equal(asc.cellChoice(value, { agent: SMITH }, 'role fidelity'), asc.NA);
  assert.equal(asc.cellChoice(value, { agent: 'Planner' }, 'contribution'), null);
  assert.equal(asc.cellChoice(value, { team: true }, 'coordination'), asc.NA);
});

test('choosing again replaces a cell, and clearing the last mark leaves nothing to store', () => {
  let value = asc.withCell(asc.emptyValue(), { team: true }, 'coordination', asc.NA);
  value = asc.withCell(value, { team: true }, 'coordination', 2);
  assert.deepEqual(json(value), { agents: {}, team: { coordination: 2 }, milestones: {} });
  value = asc.withCell(value, { team: true }, 'coordination', null);
  assert.ok(asc.isEmptyValue(value));
});

test('the value functions never change the value they are given', () => {
  const value = asc.withCell(asc.emptyValue(), { agent: 'Planner' }, 'contribution', 3);
  const before = JSON.stringify(value);
  asc.withCell(value, { agent: 'Planner' }, 'contribution', asc.NA);
  asc.withRowNotApplicable(value, { agent: 'Planner' }, CONFIG.agent_dimensions);
  asc.withMilestone(value, 'booked', true);
  asc.withoutAgent(value, 'Planner');
  assert.equal(JSON.stringify(value), before);
});

test('agent names that are JS property names are kept as names', () => {
  let value = asc.withCell(asc.emptyValue(), { agent: '__proto__' }, 'contribution', 5);
  value = asc.withCell(value, { agent: '__proto__' }, 'role fidelity', asc.NA);
  const text = JSON.stringify(value);
  assert.equal(text, '{"agents":{"__proto__":{"contribution":5}},"team":{},"milestones":{},' +
    '"not_applicable":{"agents":{"__proto__":["role fidelity"]}}}');
  const restored = JSON.parse(text);
  assert.equal(asc.cellChoice(restored, { agent: '__proto__' }, 'contribution'), 5);
  assert.equal(asc.cellChoice(restored, { agent: 'constructor' }, 'contribution'), null);
  assert.equal(JSON.stringify(asc.withoutAgent(restored, '__proto__')), '{"agents":{},"team":{},"milestones":{}}');
});

test('"Rest N/A" marks only the cells not scored yet', () => {
  const value = asc.withCell(asc.emptyValue(), { agent: 'Planner' }, 'contribution', 3);
  const rest = asc.withRowNotApplicable(value, { agent: 'Planner' }, CONFIG.agent_dimensions);
  assert.deepEqual(json(rest), {
    agents: { Planner: { contribution: 3 } }, team: {}, milestones: {},
    not_applicable: { agents: { Planner: ['role fidelity'] } },
  });
});

test('milestones: ticked ones are true; the step goes with the tick', () => {
  let value = asc.withMilestone(asc.emptyValue(), 'plan agreed', true);
  value = asc.withMilestoneStep(value, 'plan agreed', 1);
  assert.deepEqual(json(value), { agents: {}, team: {}, milestones: { 'plan agreed': true },
    milestone_steps: { 'plan agreed': 1 } });
  assert.deepEqual(json(asc.withMilestoneStep(value, 'plan agreed', null)),
    { agents: {}, team: {}, milestones: { 'plan agreed': true } });
  assert.ok(asc.isEmptyValue(asc.withMilestone(value, 'plan agreed', false)));
});

test('progress counts the cells of live agents and the team; N/A counts as done', () => {
  let value = asc.withCell(asc.emptyValue(), { agent: SMITH }, 'contribution', 4);
  value = asc.withCell(value, { team: true }, 'coordination', asc.NA);
  value.agents.Ghost = { contribution: 2 };   // a row not in this trace is not a cell to fill
  value.agents.Planner = { contribution: 9 };  // off the scale: still open
  const count = asc.progress(value, CONFIG, derivation.agents);
  assert.deepEqual(count, { total: 11, done: 2 });
  assert.equal(asc.incompleteReason(count, null), '9 of 11 cells left');
  assert.equal(asc.incompleteReason(count, 'unreadable'), 'The saved value could not be read; 9 of 11 cells left');
  assert.equal(asc.remainingText(count), '9 of 11 cells left to score or mark not applicable.');
  assert.equal(asc.progress(value, { ...CONFIG, allow_na: false }, derivation.agents).done, 1);
});

test('complete: no incomplete reason, and the words say so', () => {
  assert.equal(asc.incompleteReason({ total: 3, done: 3 }, null), null);
  assert.equal(asc.remainingText({ total: 3, done: 3 }), 'All 3 cells scored or marked not applicable.');
  assert.equal(asc.remainingText({ total: 1, done: 0 }), '1 of 1 cell left to score or mark not applicable.');
  assert.equal(asc.remainingText({ total: 0, done: 0 }), 'No cells to score.');
});

test('the incomplete reason never holds trace text', () => {
  let value = asc.emptyValue();
  for (const name of AGENTS) { value = asc.withCell(value, { agent: name }, 'contribution', 1); }
  const reason = asc.incompleteReason(asc.progress(value, CONFIG, derivation.agents), null);
  assert.match(reason, /^\d+ of \d+ cells left$/);
});

test('summaryText: the last change, the counts and the milestones reached', () => {
  const value = asc.withMilestone(asc.emptyValue(), 'booked', true);
  assert.equal(asc.summaryText(value, CONFIG, { total: 11, done: 0 }, `${SMITH}: contribution 5 (excellent).`),
    'Agent "Smith": contribution 5 (excellent). 0 of 11 cells scored or not applicable. Milestones reached: booked.');
  assert.equal(asc.summaryText(asc.emptyValue(), CONFIG, { total: 1, done: 1 }, null),
    '1 of 1 cell scored or not applicable. No milestone reached.');
  assert.equal(asc.summaryText(asc.emptyValue(), { ...CONFIG, milestones: [] }, { total: 2, done: 1 }, null),
    '1 of 2 cells scored or not applicable.');
});

test('stale agents: the value\'s agents the trace lacks, scores first, then N/A', () => {
  const value = { agents: { Ghost: { contribution: 1 }, Planner: {} }, team: {}, milestones: {},
    not_applicable: { agents: { Wraith: ['contribution'], Ghost: ['role fidelity'] } } };
  assert.deepEqual(asc.staleAgents(value, derivation.agents), ['Ghost', 'Wraith']);
});

test('audit sorts marks into rows, pickers and marks the question does not ask for', () => {
  const value = {
    agents: { Ghost: { contribution: 1, speed: 2 }, Planner: { contribution: 7 } }, team: { mood: 3 },
    milestones: { 'plan agreed': true, shipped: true }, milestone_steps: { 'plan agreed': 40, booked: 1 },
    not_applicable: { agents: { Planner: ['role fidelity'] }, team: ['coordination'] },
  };
  assert.deepEqual(asc.audit(value, CONFIG, derivation).map(({ kind, text }) => ({ kind, text })), [
    { kind: 'stale-agent', text: "agents: 'Ghost' is not in this trace" },
    { kind: 'unasked', text: "agents.Ghost: 'speed' is not one of the configured agent_dimensions" },
    { kind: 'unasked', text: 'agents.Planner.contribution: should be at most 5, got 7' },
    { kind: 'unasked', text: "team: 'mood' is not one of the configured team_dimensions" },
    { kind: 'unasked', text: "milestones: 'shipped' is not one of the configured milestones" },
    { kind: 'stale-step', text: "milestone_steps.plan agreed: '40' is not in this trace" },
    { kind: 'unasked', text: 'milestone_steps.booked: the milestone is not marked reached' },
  ]);
});

test('fittingValue drops what the question does not ask for and keeps marks missing from the trace', () => {
  const value = {
    agents: { Ghost: { contribution: 1, speed: 2 }, Planner: { contribution: 7 } }, team: { mood: 3, coordination: 2 },
    milestones: { 'plan agreed': true, shipped: true, booked: false },
    milestone_steps: { 'plan agreed': 40, booked: 1 },
    not_applicable: { agents: { Planner: ['role fidelity', 'speed'] }, team: ['coordination'] },
  };
  assert.deepEqual(json(asc.fittingValue(value, CONFIG)), {
    agents: { Ghost: { contribution: 1 } }, team: { coordination: 2 },
    milestones: { 'plan agreed': true, booked: false }, milestone_steps: { 'plan agreed': 40 },
    not_applicable: { agents: { Planner: ['role fidelity'] } },
  });
  assert.deepEqual(asc.audit(asc.fittingValue(value, CONFIG), CONFIG, derivation).map((mark) => mark.kind),
    ['stale-agent', 'stale-step']);
  const strict = { ...CONFIG, allow_na: false, milestone_steps: false };
  assert.deepEqual(json(asc.fittingValue(value, strict)), {
    agents: { Ghost: { contribution: 1 } }, team: { coordination: 2 },
    milestones: { 'plan agreed': true, booked: false },
  });
});

// The JSON Schema pydantic emits for AgentScorecardValue, in brief (the server sends the real one
// as config.value_schema; tests/unit/test_value_shape.py checks it against pydantic).
const SCORE = { type: 'integer', minimum: 1, maximum: 10 };
const DIMS = { type: 'array', items: { type: 'string' }, uniqueItems: true };
const SHAPED = {
  ...CONFIG,
  value_schema: {
    type: 'object', additionalProperties: false, required: ['agents', 'team', 'milestones'],
    properties: {
      agents: { type: 'object', additionalProperties: { type: 'object', additionalProperties: SCORE } },
      team: { type: 'object', additionalProperties: SCORE },
      milestones: { type: 'object', additionalProperties: { type: 'boolean' } },
      not_applicable: { $ref: '#/$defs/NotApplicable' },
      milestone_steps: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } },
    },
    $defs: { NotApplicable: { type: 'object', additionalProperties: false,
      properties: { agents: { type: 'object', additionalProperties: DIMS }, team: DIMS } } },
  },
};

test('the runtime reads (readChecked) the stored shape and says why another cannot be read; readValue is gone', () => {
  assert.equal(asc.readValue, undefined);
});

test('readChecked accepts the stored shape and says why another cannot be read', () => {
  const value = { agents: { [SMITH]: { contribution: 4 } }, team: {}, milestones: {} };
  assert.deepEqual(runtime.readChecked(stored(JSON.stringify(value)), SHAPED), { value, unreadable: null });
  assert.deepEqual(runtime.readChecked(stored(''), SHAPED), { value: null, unreadable: null });
  const cases = {
    '{"agents":{}': /not valid JSON/,
    '{"agents":{},"team":{"coordination":"na"},"milestones":{}}': /team\.coordination: should be an integer/,
    '{"agents":{},"team":{},"milestones":{},"not_applicable":{"team":["x","x"]}}': /not_applicable\.team\[1\]: repeats/,
    '{"agents":{},"team":{}}': /milestones: is missing/,
  };
  for (const [raw, pattern] of Object.entries(cases)) {
    const result = runtime.readChecked(stored(raw), SHAPED);
    assert.equal(result.value, null, raw);
    assert.match(result.unreadable, /^The saved value could not be read: .*\. It is kept until you change one of the controls\.$/, raw);
    assert.match(result.unreadable, pattern, raw);
  }
});

test('step labels: #N · AGENT · snippet', () => {
  assert.deepEqual(derivation.steps.map(asc.stepLabel), [
    '#1 \u00B7 Planner \u00B7 Plan the trip',
    '#2 \u00B7 Agent "Smith" \u00B7 Searching flights',
    '#3 \u00B7 __proto__ \u00B7 a name that is also a JS property',
    '#4 \u00B7 <b>Bold</b> \u00B7 {"tool":"book","args":{"id":3}}',
  ]);
});
