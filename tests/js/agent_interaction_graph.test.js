'use strict';
// Pure parts of the agent_interaction_graph widget under `node --test`: the layout (deterministic,
// layered, no overlap up to 40 agents), the labels, and the value rules. The DOM behaviour is
// proven by tests/e2e/test_agent_interaction_graph.py.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const WEB = path.join(PACKAGE, 'web');
const TYPES = path.join(PACKAGE, 'types');
const graph = require(path.join(TYPES, 'agent_interaction_graph', 'widget.js'));
const runtime = require(path.join(WEB, 'widget.js'));
const { derive } = require(path.join(WEB, 'derive.js'));

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

/** A small deterministic PRNG (mulberry32), so "random" graphs are the same on every run. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function names(count, make) {
  return Array.from({ length: count }, (_, i) => make(i));
}

/** A derivation's agents and edges for a list of speakers (each turn hands over to the next). */
function fromSpeakers(speakers) {
  const d = derive({ steps: speakers.map((agent) => ({ agent })) }, {});
  return { agents: d.agents, edges: d.edges };
}

function randomGraph(seed, agentCount, edgeCount, makeName) {
  const next = prng(seed);
  const agents = names(agentCount, makeName);
  const seen = new Map();
  for (let k = 0; k < edgeCount; k++) {
    const from = agents[Math.floor(next() * agentCount)];
    const to = agents[Math.floor(next() * agentCount)];
    if (from === to) { continue; }
    const key = JSON.stringify([from, to]);
    if (!seen.has(key)) { seen.set(key, { from, to, count: 0, steps: [] }); }
    seen.get(key).count += 1 + Math.floor(next() * 40);
    seen.get(key).steps.push(k);
  }
  return { agents, edges: Array.from(seen.values()) };
}

const SHAPES = {
  'star from an orchestrator': {
    agents: names(40, (i) => (i === 0 ? 'Orchestrator' : 'Worker agent number ' + i)),
    edges: names(39, (i) => [{ from: 'Orchestrator', to: 'Worker agent number ' + (i + 1), count: i + 1, steps: [i] },
      { from: 'Worker agent number ' + (i + 1), to: 'Orchestrator', count: 1, steps: [i] }]).flat(),
  },
  'chain with a loop back': fromSpeakers(names(40, (i) => 'Stage ' + i).concat(['Stage 0'])),
  'complete graph': (() => {
    const agents = names(40, (i) => 'Agent ' + String.fromCharCode(65 + (i % 26)) + i);
    const edges = [];
    agents.forEach((from) => agents.forEach((to) => { if (from !== to) { edges.push({ from, to, count: 1, steps: [0] }); } }));
    return { agents, edges };
  })(),
  'random, long names sharing a prefix': randomGraph(7, 40, 160,
    (i) => 'Research assistant for the European market, number ' + i + ' in the pool, reporting to the lead'),
  'random, hostile names': randomGraph(11, 40, 120,
    (i) => ['A->B', 'B->C', '<img src=x onerror=alert(1)>', '{{ 7*7 }}', 'Agent "Smith"', '\u65E5\u672C\u8A9E\u306E\u30A8\u30FC\u30B8\u30A7\u30F3\u30C8'][i % 6] + ' ' + i),
  'isolated roster agents': { agents: names(40, (i) => 'Roster ' + i), edges: [] },
};

function nodeBox(node) {
  return { x: node.x - node.width / 2, y: node.y - node.height / 2, width: node.width, height: node.height };
}

function overlap(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function assertNoOverlap(boxes, what) {
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      assert.ok(!overlap(boxes[i].box, boxes[j].box), `${what}: ${boxes[i].name} overlaps ${boxes[j].name}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------------------------

for (const [shape, input] of Object.entries(SHAPES)) {
  test(`layout of ${input.agents.length} agents (${shape}): no node or label overlaps, all inside the viewBox`, () => {
    const layout = graph.layoutGraph(input.agents, input.edges);
    assert.equal(layout.nodes.length, input.agents.length);
    assert.equal(layout.edges.length, input.edges.length);
    const boxes = layout.nodes.map((node) => ({ name: 'agent ' + node.name, box: nodeBox(node) }))
      .concat(layout.edges.map((edge) => ({ name: `label of ${edge.from} to ${edge.to}`, box: edge.label })));
    assertNoOverlap(boxes, shape);
    for (const { name, box } of boxes) {
      assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= layout.width && box.y + box.height <= layout.height,
        `${name} is outside the viewBox ${layout.width}x${layout.height}`);
    }
    for (const node of layout.nodes) {
      const longest = Math.max(...node.lines.map((line) => graph.estimateWidth(line, graph.GEOMETRY.nodeFont)));
      assert.ok(longest + graph.GEOMETRY.badge <= node.width, `${node.name}: its text is wider than its box`);
      assert.ok(node.lines.length <= graph.GEOMETRY.maxLines, `${node.name} has ${node.lines.length} lines`);
    }
  });
}

test('layout is deterministic: the same trace gives the same picture', () => {
  const input = SHAPES['random, hostile names'];
  const copy = JSON.parse(JSON.stringify(input));
  assert.deepEqual(graph.layoutGraph(copy.agents, copy.edges), graph.layoutGraph(input.agents, input.edges));
});

test('layers follow the direction control moves, left to right', () => {
  const layout = graph.layoutGraph(...Object.values(fromSpeakers(['Planner', 'Coder', 'Tester', 'Reviewer'])));
  const x = Object.fromEntries(layout.nodes.map((node) => [node.name, node.x]));
  assert.ok(x.Planner < x.Coder && x.Coder < x.Tester && x.Tester < x.Reviewer, JSON.stringify(x));
});

test('a cycle is broken at its first closing edge, which is drawn backwards', () => {
  const input = fromSpeakers(['A', 'B', 'C', 'A']);
  const layout = graph.layoutGraph(input.agents, input.edges);
  const closing = layout.edges.find((edge) => edge.from === 'C' && edge.to === 'A');
  assert.equal(closing.reversed, true);
  assert.ok(layout.edges.filter((edge) => edge !== closing).every((edge) => !edge.reversed));
  assert.ok(closing.arrow[0][0] < closing.points[0][0], 'the back edge ends left of where it starts');
});

test('A to B and B to A are two separate curves with their own labels', () => {
  const d = derive({ steps: [{ agent: 'Orchestrator (-> WebSurfer)' }, { agent: 'WebSurfer' }, { agent: 'Orchestrator' }] }, {});
  const layout = graph.layoutGraph(d.agents, d.edges);
  const [there, back] = layout.edges;
  assert.deepEqual([there.from, there.to, back.from, back.to], ['Orchestrator', 'WebSurfer', 'WebSurfer', 'Orchestrator']);
  assert.notDeepEqual(there.points, back.points);
  assert.ok(!overlap(there.label, back.label));
  assert.ok(graph.pathData(there.points).startsWith('M'));
});

test('edge ends are spread over a node side, never on one point', () => {
  const layout = graph.layoutGraph(SHAPES['star from an orchestrator'].agents, SHAPES['star from an orchestrator'].edges);
  const ends = layout.edges.map((edge) => (edge.from === 'Orchestrator' ? edge.points[0] : edge.arrow[0]));
  assert.equal(new Set(ends.map((p) => p.join())).size, ends.length);
});

test('stroke width keeps growing with the count (no saturation) and is never thin to invisibility', () => {
  const widths = [1, 2, 4, 5, 8, 100, 2500].map(graph.strokeWidth);
  widths.slice(1).forEach((w, k) => assert.ok(w > widths[k], `count ${k} -> ${w}`));
  assert.equal(graph.strokeWidth(1), 1.5);
  assert.equal(graph.strokeWidth(4), 4.5);
});

test('an empty graph still has a viewBox', () => {
  const layout = graph.layoutGraph([], []);
  assert.deepEqual([layout.nodes, layout.edges], [[], []]);
  assert.ok(layout.width > 0 && layout.height > 0);
});

test('layout of 40 agents with every possible edge (1,560 edges) places every agent and edge', () => {
  // How long it takes is bench/'s business, not a test's.
  const input = SHAPES['complete graph'];
  const layout = graph.layoutGraph(input.agents, input.edges);
  assert.equal(layout.nodes.length, input.agents.length);
  assert.equal(layout.edges.length, input.edges.length);
});

// ---------------------------------------------------------------------------------------------
// Node labels
// ---------------------------------------------------------------------------------------------

test('names sharing a prefix stay distinguishable', () => {
  assert.deepEqual(graph.distinctLabels(['Researcher_A', 'Researcher_B'], 50), ['Researcher_A', 'Researcher_B']);
  const long = ['Research assistant for the European market, number one in the pool, reporting to the lead',
    'Research assistant for the European market, number two in the pool, reporting to the lead'];
  const labels = graph.distinctLabels(long, 50);
  assert.notEqual(labels[0], labels[1]);
  assert.ok(labels[0].includes('one') && labels[1].includes('two'), JSON.stringify(labels));
  labels.forEach((label) => assert.ok(Array.from(label).length <= 50));
});

test('names that look alike get a number; whitespace in names is drawn as one space', () => {
  const labels = graph.distinctLabels(['Planner', 'Planner\u200B', 'Plan  ner', 'Plan\nner'], 50);
  assert.equal(new Set(labels.map(graph.visibleForm)).size, 4, JSON.stringify(labels));
  assert.deepEqual(labels.slice(2), ['Plan ner [1]', 'Plan ner [2]']);
});

test('a name with nothing visible in it still has a visible label; control characters show', () => {
  assert.deepEqual(graph.distinctLabels(['\u200B', '\u200B\u200B', 'a\u0007b', 'A\tB'], 50),
    ['(no visible name) [1]', '(no visible name) [2]', 'a\uFFFDb', 'A B']);
});

test('wrapLines breaks after spaces and punctuation, at most three lines', () => {
  assert.deepEqual(graph.wrapLines('Research assistant for the market', 18, 3), ['Research assistant', 'for the market']);
  assert.deepEqual(graph.wrapLines('A->B', 18, 3), ['A->B']);
  const unbroken = 'x'.repeat(54);
  assert.deepEqual(graph.wrapLines(unbroken, 18, 3), ['x'.repeat(18), 'x'.repeat(18), 'x'.repeat(18)]);
  assert.equal(graph.shortName('\u{1F600}'.repeat(80), 50), '\u{1F600}'.repeat(25) + '\u2026' + '\u{1F600}'.repeat(24));
});

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
  assert.deepEqual(graph.readValue(stored(''), config), { value: null, unreadable: null });
  const ok = { critical_nodes: ['C'], edges: {}, edge_marks: [] };
  assert.deepEqual(graph.readValue(stored(JSON.stringify(ok)), config), { value: ok, unreadable: null });
  for (const [raw, pattern] of [['{"critical_nodes": [', /not valid JSON/],
    ['{"edges": {"A->B": "banana"}}', /edges\.A->B: should be one of "critical", "problematic"/],
    ['{"edge_marks": [{"from": "A", "to": "B"}]}', /edge_marks\[0\]\.status: is missing/]]) {
    const result = graph.readValue(stored(raw), config);
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

test('each node and edge lists the steps it came from as #N = index + 1', () => {
  const steps = graph.stepsByAgent(derivation);
  assert.deepEqual(graph.nodeDetails('Orchestrator', steps),
    { title: 'Agent Orchestrator', text: '2 steps by this agent: #1, #3.', pages: 1 });
  assert.deepEqual(graph.nodeDetails('WebSurfer', steps),
    { title: 'Agent WebSurfer', text: '1 step by this agent: #2. Addressed to it: #1.', pages: 1 });
  assert.equal(graph.nodeDetails('Nobody', steps).text, 'No steps by this agent in this trace.');
  assert.deepEqual(graph.edgeDetails(derivation.edges[0]),
    { title: 'Orchestrator to WebSurfer, 1 message', text: 'From 1 step: #1.', pages: 1 });
});

test('a long step list is shown 50 steps a page and says which part it shows (issue 18)', () => {
  const edge = { from: 'A', to: 'B', count: 120, steps: Array.from({ length: 120 }, (_, i) => 2 * i) };
  const first = graph.edgeDetails(edge, 0);
  assert.equal(first.pages, 3);
  assert.ok(first.text.startsWith('From 120 steps: #1, #3, #5,'), first.text);
  assert.ok(first.text.endsWith('#99 (1\u201350 of 120).'), first.text);
  assert.equal(first.text.match(/#/g).length, 50);
  const last = graph.edgeDetails(edge, 2);
  assert.ok(last.text.endsWith('#239 (101\u2013120 of 120).'), last.text);
  assert.equal(last.text.match(/#/g).length, 20);
  // A page past the end shows the last one; a node's two lists page together.
  assert.equal(graph.edgeDetails(edge, 9).text, last.text);
  const steps = new Map([['A', { by: edge.steps, to: [5] }]]);
  assert.ok(graph.nodeDetails('A', steps, 0).text.endsWith('Addressed to it: #6.'));
  assert.ok(!graph.nodeDetails('A', steps, 1).text.includes('Addressed'));
});
