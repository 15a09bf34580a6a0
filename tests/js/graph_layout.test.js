'use strict';
// The graph layout (web/graph_layout.js, web/graph_labels.js) under `node --test`: deterministic,
// layered, no overlap up to 40 agents, and the node labels. The widget's rules are tested in
// agent_interaction_graph.test.js; its DOM in tests/e2e/test_agent_interaction_graph.py.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const WEB = path.join(PACKAGE, 'web');
const graph = require(path.join(WEB, 'graph_layout.js'));
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

