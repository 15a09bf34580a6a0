'use strict';
// The rules of the agent_interaction_graph widget (types/agent_interaction_graph/marks.js) under
// `node --test`: the value, its problems and stale marks, the words, the steps and handoffs a node
// or an edge lists. The layout is tested in graph_layout.test.js; the DOM by
// tests/e2e/test_agent_interaction_graph.py.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const WEB = path.join(PACKAGE, 'web');
const shim = require('./type_rules.js');
const graph = shim.load('agent_interaction_graph');
const runtime = shim.core;
const { derive } = require(path.join(WEB, 'derive.js'));

// ---------------------------------------------------------------------------------------------
// The value
// ---------------------------------------------------------------------------------------------

// Magentic-One's addressed turns, and two names that make "A->B->C" ambiguous.
const record = { steps: [
  { agent: 'Orchestrator (-> WebSurfer)', content: 'search' },
  { agent: 'WebSurfer', content: 'found' },
  { agent: 'Orchestrator (thought)' },
  { agent: 'A->B' }, { agent: 'C' }, { agent: 'A' }, { agent: 'B->C' },
] };
const derivation = derive(record, {});
const g = graph.graphOf(derivation);
const plain = (value) => JSON.parse(JSON.stringify(value));

function marks(path, edgeMarks, seedKeys) {
  return { path, edges: new Map(edgeMarks.map((m) => [JSON.stringify([m.from, m.to]), m])), seedKeys: seedKeys || [] };
}

test('composeValue writes edge_marks, and the seed map only for keys unique in the trace', () => {
  const value = graph.composeValue(marks(['Orchestrator', 'C'], [
    { from: 'Orchestrator', to: 'WebSurfer', status: 'critical' },
    { from: 'A->B', to: 'C', status: 'problematic' },
    { from: 'A', to: 'B->C', status: 'critical' },
  ]), g);
  assert.deepEqual(plain(value), {
    critical_nodes: ['Orchestrator', 'C'],
    edges: { 'Orchestrator->WebSurfer': 'critical' },
    edge_marks: [
      { from: 'Orchestrator', to: 'WebSurfer', status: 'critical' },
      { from: 'A->B', to: 'C', status: 'problematic' },
      { from: 'A', to: 'B->C', status: 'critical' },
    ],
  });
  assert.equal(graph.composeValue(marks([], []), g), null, 'nothing marked stores ""');
});

test('marksOf restores by identity and round-trips what composeValue wrote', () => {
  const written = graph.composeValue(marks(['C', 'Ghost', 'A'], [
    { from: 'A', to: 'B->C', status: 'problematic' }, { from: 'Ghost', to: 'C', status: 'critical' }]), g);
  const again = graph.marksOf(plain(written), g);
  assert.deepEqual(again.path, ['C', 'Ghost', 'A']);
  assert.deepEqual([...again.edges.values()], plain(written).edge_marks);
  assert.deepEqual(again.seedKeys, []);
});

test('a value written for the seed is read through its keys; unresolvable keys are kept', () => {
  const seed = { critical_nodes: ['WebSurfer', 'WebSurfer'], edges: { 'Orchestrator->WebSurfer': 'problematic', 'A->B->C': 'critical', 'Q->R': 'critical' } };
  const read = graph.marksOf(seed, g);
  assert.deepEqual(read.path, ['WebSurfer']);
  assert.deepEqual([...read.edges.values()], [{ from: 'Orchestrator', to: 'WebSurfer', status: 'problematic' }]);
  assert.deepEqual(read.seedKeys, [{ key: 'A->B->C', status: 'critical' }, { key: 'Q->R', status: 'critical' }]);
  assert.deepEqual(plain(graph.composeValue(read, g)).edges,
    { 'Orchestrator->WebSurfer': 'problematic', 'A->B->C': 'critical', 'Q->R': 'critical' });
  assert.deepEqual(graph.staleMarks(read, g).map((item) => item.text), [
    "edges: 'A->B->C' could be 2 edges of this trace; edge_marks must say which",
    "edges: 'Q->R' is not in this trace",
  ]);
});

test('an ambiguous key that edge_marks settles is dropped on the next write; one it does not is kept', () => {
  const settledValue = { critical_nodes: [], edges: { 'A->B->C': 'critical' },
    edge_marks: [{ from: 'A->B', to: 'C', status: 'critical' }] };
  assert.deepEqual(graph.marksOf(settledValue, g).seedKeys, []);
  assert.deepEqual(graph.valueProblems(settledValue, g).map((p) => p.kind), ['fixable']);
  const unsettled = { critical_nodes: [], edges: { 'A->B->C': 'critical' }, edge_marks: [] };
  assert.deepEqual(graph.marksOf(unsettled, g).seedKeys, [{ key: 'A->B->C', status: 'critical' }]);
  assert.deepEqual(graph.valueProblems(unsettled, g).map((p) => p.kind), ['stale']);
});

test('a stored "__proto__" key stays a key', () => {
  const stored = JSON.parse('{"critical_nodes": [], "edges": {"__proto__": "critical"}, "edge_marks": []}');
  const value = graph.composeValue(graph.marksOf(stored, g), g);
  assert.equal(JSON.stringify(value.edges), '{"__proto__":"critical"}');
});

test('marks the trace lacks are listed with the words Python uses and a way to remove them', () => {
  const stale = graph.staleMarks(marks(['Orchestrator', 'Ghost'], [
    { from: 'Orchestrator', to: 'WebSurfer', status: 'critical' }, { from: 'Ghost', to: 'C', status: 'problematic' }]), g);
  assert.deepEqual(stale.map((item) => [item.kind, item.text, item.action]), [
    ['node', "critical_nodes[1]: 'Ghost' is not in this trace", 'Remove agent Ghost from the critical path'],
    ['edge', "edge_marks[1]: 'Ghost to C' is not in this trace", 'Remove the problematic mark on Ghost to C'],
  ]);
});

// The JSON Schema pydantic emits for AgentInteractionGraphValue (descriptions and titles left out);
// the server sends the real one as config.value_schema.
const STATUS = { enum: ['critical', 'problematic'], type: 'string' };
const VALUE_SCHEMA = {
  $defs: { EdgeMark: { type: 'object', additionalProperties: false, required: ['from', 'to', 'status'],
    properties: { from: { type: 'string' }, to: { type: 'string' }, status: STATUS } } },
  type: 'object', additionalProperties: false,
  properties: {
    critical_nodes: { type: 'array', items: { type: 'string' } },
    edges: { type: 'object', additionalProperties: STATUS },
    edge_marks: { type: 'array', items: { $ref: '#/$defs/EdgeMark' } },
  },
};

test('readValue reports unreadable values in words and keeps them', () => {
  const config = { value_schema: VALUE_SCHEMA };
  const stored = (raw) => Object.assign({ raw }, runtime.parseStored(raw));
  assert.deepEqual(runtime.readChecked(stored(''), config), { value: null, unreadable: null });
  const ok = { critical_nodes: ['C'], edges: {}, edge_marks: [] };
  assert.deepEqual(runtime.readChecked(stored(JSON.stringify(ok)), config), { value: ok, unreadable: null });
  for (const [raw, pattern] of [['{"critical_nodes": [', /not valid JSON/],
    ['{"edges": {"A->B": "banana"}}', /edges\.A->B: should be one of "critical", "problematic"/],
    ['{"edge_marks": [{"from": "A", "to": "B"}]}', /edge_marks\[0\]\.status: is missing/]]) {
    const result = runtime.readChecked(stored(raw), config);
    assert.equal(result.value, null, raw);
    assert.match(result.unreadable, /^The saved value could not be read: /);
    assert.match(result.unreadable, pattern);
  }
});

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

test('the summary reads the path in order, the flagged edges, and points out a gap', () => {
  const text = graph.summaryText(marks(['WebSurfer', 'Orchestrator', 'C'], [
    { from: 'Orchestrator', to: 'WebSurfer', status: 'problematic' }, { from: 'A->B', to: 'C', status: 'critical' }]), g, null);
  assert.equal(text, 'Critical path: WebSurfer -> Orchestrator -> C. ' +
    'Flagged edges: Orchestrator to WebSurfer (problematic), A->B to C (critical). ' +
    'No edge from Orchestrator to C in this trace.');
  assert.equal(graph.summaryText(marks([], []), g, null), 'No critical path chosen. No flagged edges.');
  assert.equal(graph.summaryText(marks(['Ghost'], [{ from: 'X', to: 'Y', status: 'critical' }]), g, null),
    'Critical path: Ghost (not in this trace). Flagged edges: X to Y (critical, not in this trace).');
});

test('required: complete once one agent is on the path; the reason never holds trace text', () => {
  assert.equal(graph.incompleteReason(marks(['<b>x</b>'], []), null), null);
  assert.equal(graph.incompleteReason(marks([], []), null), 'No agent is on the critical path yet; click at least one agent');
  assert.match(graph.incompleteReason(marks([], []), 'The saved value could not be read: x'), /could not be read/);
});

test('accessible names: "Agent NAME" plus state, and "FROM to TO, N messages, STATUS"', () => {
  assert.equal(graph.nodeName('Planner', -1, 0), 'Agent Planner');
  assert.equal(graph.nodeName('Planner', 1, 3), 'Agent Planner, on the critical path (2 of 3)');
  assert.equal(graph.edgeName({ from: 'A->B', to: 'C', count: 1 }, 'normal'), 'A->B to C, 1 message, normal');
  assert.equal(graph.edgeName({ from: 'A', to: 'B', count: 12 }, 'critical'), 'A to B, 12 messages, critical');
});

const details = (node) => graph.nodeDetailsText(node);

test('each node lists the steps it took and those addressed to it as #N = index + 1', () => {
  const steps = graph.stepsByAgent(derivation);
  assert.equal(details(graph.nodeDetails('Orchestrator', steps)), '2 steps by this agent: #1, #3.');
  assert.equal(graph.nodeDetails('Orchestrator', steps).title, 'Agent Orchestrator');
  assert.equal(details(graph.nodeDetails('WebSurfer', steps)), '1 step by this agent: #2. Addressed to it: #1.');
  assert.equal(graph.nodeDetails('WebSurfer', steps).pages, 1);
  assert.equal(details(graph.nodeDetails('Nobody', steps)), 'No steps by this agent in this trace.');
});

test('an edge lists each handoff as giver step -> receiver step, never the receiver alone (issue 15)', () => {
  const lookup = graph.handoffIndex(derivation);
  // Addressed: "Orchestrator (-> WebSurfer)" at #1, WebSurfer answers at #2.
  const addressed = graph.edgeDetails(derivation.edges[0], lookup, 0);
  assert.equal(addressed.title, 'Orchestrator to WebSurfer, 1 message');
  assert.equal(graph.edgeDetailsText(addressed), '1 handoff: #1 -> #2.');
  // Implicit: C's turn (#5) after A->B's (#4) is the handoff #4 -> #5, not "#5".
  const implicit = derivation.edges.find((edge) => edge.from === 'A->B' && edge.to === 'C');
  assert.equal(graph.edgeDetailsText(graph.edgeDetails(implicit, lookup, 0)), '1 handoff: #4 -> #5.');
  // An addressed step nobody answers has no receiver step.
  const unanswered = derive({ steps: [{ agent: 'Planner (-> Coder)', content: 'go' }, { agent: 'Coder (-> Planner)', content: 'ok' }] }, {});
  assert.deepEqual(graph.edgeHandoffs(unanswered.edges[1], graph.handoffIndex(unanswered)), [{ giver: 1, receiver: null }]);
  assert.equal(graph.edgeDetailsText(graph.edgeDetails(unanswered.edges[1], graph.handoffIndex(unanswered), 0)),
    '1 handoff: #2 -> (none).');
});

test('a long handoff list is shown 50 a page and says which part it shows (issue 18)', () => {
  const long = derive({ steps: Array.from({ length: 240 }, (_, i) => ({ agent: i % 2 ? 'B' : 'A', content: 'x' })) }, {});
  const lookup = graph.handoffIndex(long);
  const edge = long.edges.find((e) => e.from === 'A' && e.to === 'B');
  const first = graph.edgeDetails(edge, lookup, 0);
  assert.equal(first.pages, 3);
  const text = graph.edgeDetailsText(first);
  assert.ok(text.startsWith('120 handoffs: #1 -> #2, #3 -> #4,'), text);
  assert.ok(text.endsWith('#99 -> #100 (1\u201350 of 120).'), text);
  const last = graph.edgeDetailsText(graph.edgeDetails(edge, lookup, 2));
  assert.ok(last.endsWith('#239 -> #240 (101\u2013120 of 120).'), last);
  // A page past the end shows the last one; a node's two lists page together.
  assert.equal(graph.edgeDetailsText(graph.edgeDetails(edge, lookup, 9)), last);
  const steps = new Map([['A', { by: edge.steps, to: [5] }]]);
  assert.ok(details(graph.nodeDetails('A', steps, 0)).endsWith('Addressed to it: #6.'));
  assert.ok(!details(graph.nodeDetails('A', steps, 1)).includes('Addressed'));
});

test('judgments: read from the record per scheme, shown per show_judgments, accepted with from_judgment', () => {
  const judged = { critical_nodes: ['Orchestrator', 'WebSurfer'], edges: {},
    edge_marks: [{ from: 'Orchestrator', to: 'WebSurfer', status: 'critical' }] };
  const rec = { verdicts: { graph: [{ source: 'gpt-judge', value: judged }, { source: 'bad', value: 'x' }] } };
  const found = graph.judgmentsFor(rec, { judgments_key: 'verdicts' }, 'graph');
  assert.deepEqual(found.map((j) => j.source), ['gpt-judge']);
  assert.deepEqual(graph.judgmentsFor(rec, {}, 'graph'), []);
  assert.equal(graph.judgmentText(found[0], g),
    'Critical path: Orchestrator -> WebSurfer. Flagged edges: Orchestrator to WebSurfer (critical).');
  assert.equal(graph.judgmentsVisible({ show_judgments: 'never' }, judged), false);
  assert.equal(graph.judgmentsVisible({ show_judgments: 'always' }, null), true);
  assert.equal(graph.judgmentsVisible({ show_judgments: 'after_answer' }, null), false);
  assert.equal(graph.judgmentsVisible({ show_judgments: 'after_answer' }, { critical_nodes: ['C'] }), true);
  const accepted = plain(graph.acceptedValue(found[0], g));
  assert.equal(accepted.from_judgment, 'gpt-judge');
  assert.deepEqual(accepted.critical_nodes, judged.critical_nodes);
  assert.deepEqual(accepted.edge_marks, judged.edge_marks);
  assert.equal(graph.marksOf(accepted, g).fromJudgment, 'gpt-judge');
});

test('describe lists stale marks with the value their Remove stores', () => {
  const value = { critical_nodes: ['Orchestrator', 'Ghost'], edges: {}, edge_marks: [] };
  const said = graph.describe(value, { derivation, unreadable: null });
  assert.deepEqual(said.stale.map((s) => s.text), ["critical_nodes[1]: 'Ghost' is not in this trace"]);
  assert.deepEqual(plain(said.stale[0].remove), { critical_nodes: ['Orchestrator'], edges: {}, edge_marks: [] });
  assert.equal(said.incomplete, null);
});
