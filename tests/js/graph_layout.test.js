'use strict';
// The graph layout (types/agent_interaction_graph/graph_layout.js, graph_labels.js) under `node --test`: deterministic,
// layered, no overlap up to 40 agents, and the node labels. The widget's rules are tested in
// agent_interaction_graph.test.js; its DOM in tests/e2e/test_agent_interaction_graph.py.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const crypto = require('node:crypto');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const WEB = path.join(PACKAGE, 'web');
const graph = require(path.join(PACKAGE, 'types', 'agent_interaction_graph', 'graph_layout.js'));
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

/** The graph of bench/synth.py's scale_record(5000): 12 agents, all 132 directed edges, as [from, to, count]. */
const SCALE_AGENTS = ['Planner', 'Critic', 'Coder', 'Analyst', 'Librarian', 'Writer', 'Verifier', 'Editor', 'Researcher',
  'Tester', 'Booker', 'Reviewer'];
const SCALE_EDGES = [
  [0, 1, 28], [1, 2, 13], [2, 3, 22], [3, 4, 22], [4, 3, 23], [3, 5, 28], [5, 1, 21], [1, 6, 20], [6, 4, 21],
  [4, 5, 17], [5, 7, 17], [7, 8, 22], [8, 9, 15], [9, 10, 17], [10, 6, 17], [6, 1, 15], [1, 4, 17], [5, 0, 20],
  [0, 3, 19], [4, 2, 17], [2, 1, 12], [1, 7, 23], [7, 3, 11], [7, 11, 18], [11, 9, 11], [9, 2, 19], [2, 4, 21],
  [4, 7, 18], [7, 4, 13], [11, 3, 19], [3, 10, 24], [10, 1, 21], [1, 5, 19], [5, 8, 18], [8, 5, 24], [5, 9, 15],
  [9, 0, 21], [0, 4, 23], [4, 0, 23], [0, 2, 19], [2, 7, 16], [8, 10, 25], [10, 11, 12], [3, 1, 19], [1, 11, 16],
  [11, 0, 21], [0, 5, 15], [7, 6, 14], [6, 11, 17], [3, 8, 22], [5, 4, 18], [3, 0, 18], [0, 8, 21], [8, 11, 10],
  [11, 6, 12], [6, 9, 15], [9, 3, 24], [8, 1, 17], [6, 0, 20], [1, 10, 21], [10, 3, 21], [3, 6, 19], [11, 7, 13],
  [7, 1, 18], [1, 8, 19], [8, 7, 14], [7, 2, 14], [3, 2, 19], [5, 6, 19], [6, 5, 18], [8, 0, 20], [10, 5, 19],
  [4, 6, 14], [6, 7, 6], [7, 0, 20], [1, 9, 21], [0, 6, 16], [1, 3, 20], [10, 0, 18], [9, 1, 18], [3, 9, 22],
  [6, 10, 11], [10, 2, 15], [2, 11, 22], [11, 4, 11], [7, 10, 17], [10, 8, 11], [8, 4, 18], [2, 9, 16], [9, 7, 16],
  [4, 9, 22], [6, 2, 20], [7, 9, 17], [9, 4, 16], [4, 1, 15], [0, 10, 10], [4, 8, 16], [11, 1, 15], [8, 3, 24],
  [6, 3, 16], [5, 10, 13], [8, 2, 18], [2, 10, 14], [5, 2, 21], [2, 8, 23], [2, 0, 18], [1, 0, 10], [0, 7, 22],
  [6, 8, 17], [8, 6, 10], [0, 11, 18], [9, 8, 12], [9, 11, 11], [11, 8, 14], [11, 5, 16], [5, 11, 15], [11, 10, 15],
  [4, 11, 12], [7, 5, 13], [2, 6, 16], [0, 9, 18], [11, 2, 15], [2, 5, 10], [9, 6, 19], [4, 10, 16], [10, 9, 16],
  [9, 5, 15], [5, 3, 17], [10, 7, 20], [10, 4, 13], [3, 11, 11], [3, 7, 12],
];

// sha256 of JSON.stringify(layoutGraph(...)) for each input, as computed by graph_layout.js before
// it moved onto typed arrays (docs/performance.md): the speed-up must not move a pixel.
// A deliberate change of the picture updates these.
const LAYOUT_BEFORE_SPEEDUP = [
  ['star from an orchestrator', '3c17511c7b9caa48d2c54845816baa32f30b53106bfeff85b72c2ef4e26b8559'],
  ['chain with a loop back', '014c90c1cc3811ec9033b24ac61437a23ca6420de067e05bb8052fbc88d28f53'],
  ['complete graph', '03f2344ec81f3799978452f7b7d6e8793d77a29fb50d909932f55a50fcc1f5f3'],
  ['random, long names sharing a prefix', '9a78c691f9d17f91d812de116ee547d119e41d33819e912e4e85ffbd9fe298f1'],
  ['random, hostile names', 'a88ad6d426cd448c690e62890b74c10355490f77819c2b8a4d2a136b914a5dc0'],
  ['isolated roster agents', '16e9c62488f6dcb7d02fd0db18fe6ed028cc6d1399962f877e9734f4c5136a66'],
  ['12 agents, every edge (scale_record)', '799bbfb33899ac70405976e0e2080b0d001b4d1acfb42b46e13bc5e3cf1232a8'],
];

test('the layout is byte for byte what it was before the speed-up', () => {
  const inputs = Object.assign({}, SHAPES, {
    '12 agents, every edge (scale_record)': {
      agents: SCALE_AGENTS,
      edges: SCALE_EDGES.map(([from, to, count]) => ({ from: SCALE_AGENTS[from], to: SCALE_AGENTS[to], count })),
    },
  });
  for (const [shape, expected] of LAYOUT_BEFORE_SPEEDUP) {
    const { agents, edges } = inputs[shape];
    const digest = crypto.createHash('sha256').update(JSON.stringify(graph.layoutGraph(agents, edges))).digest('hex');
    assert.equal(digest, expected, shape);
  }
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

// Its time is a bench figure (bench/), not a test assertion (issue 13: no timing in tests).
test('layout of 40 agents with every possible edge (1,560 edges) draws every edge', () => {
  const input = SHAPES['complete graph'];
  const layout = graph.layoutGraph(input.agents, input.edges);
  assert.equal(layout.edges.length, 1560);
  assert.ok(layout.edges.every((edge) => edge.points.length >= 2));
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

