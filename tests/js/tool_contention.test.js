'use strict';
// Pure helpers of the tool_contention widget (types/tool_contention/marks.js), run by `node --test
// tests/js/` with no DOM library: time axis, names, identities, linked regions, the stored value.
// The DOM behaviour is proven by tests/e2e/test_tool_contention.py.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const WEB = path.join(PACKAGE, 'web');
const TYPES = path.join(PACKAGE, 'types');
const tc = require('./type_rules.js').load('tool_contention');
const runtime = require(path.join(WEB, 'widget.js'));
const { derive } = require(path.join(WEB, 'derive.js'));

const ISO_CALLS = [
  { agent: 'Releaser', tool: 'deploy', resource: 'cluster', start: '2026-03-14T09:00:00Z', end: '2026-03-14T09:04:30Z' },
  { agent: 'Tester', tool: 'run', resource: 'cluster', start: '2026-03-14T09:03:00.250Z', end: '2026-03-14T09:07:15Z' },
];

function scaleOf(calls) {
  return tc.timeScale(derive({ calls }, {}).calls);
}

// -- time ----------------------------------------------------------------------------------------

test('ISO times are UTC clock times; the axis starts at the first call', () => {
  const scale = scaleOf(ISO_CALLS);
  assert.equal(scale.kind, 'iso');
  assert.equal(tc.formatTime(scale, scale.start), '09:00:00');
  assert.equal(tc.formatTime(scale, scale.end), '09:07:15');
  assert.equal(tc.formatTime(scale, scale.start + 180.25), '09:03:00.25');
  assert.match(tc.axisCaption(scale), /UTC \(HH:MM:SS\), starting at the first call, 09:00:00\./);
});

test('a zone offset is read as UTC, and a timeline over two days shows dates', () => {
  const scale = scaleOf([
    { agent: 'A', resource: 'r', start: '2026-03-14T23:59:00+01:00', end: '2026-03-15T01:00:00+01:00' },
  ]);
  assert.equal(scale.multiDay, false);
  assert.equal(tc.formatTime(scale, scale.start), '22:59:00');
  const twoDays = scaleOf([{ agent: 'A', resource: 'r', start: '2026-03-14T23:00:00Z', end: '2026-03-15T01:00:00Z' }]);
  assert.equal(twoDays.multiDay, true);
  assert.equal(tc.formatTime(twoDays, twoDays.start), '2026-03-14 23:00:00');
  assert.match(tc.axisCaption(twoDays), /YYYY-MM-DD HH:MM:SS/);
});

test('numbers stay numbers, and an axis never starts at 0 when the calls do not', () => {
  const scale = scaleOf([{ agent: 'A', resource: 'r', start: 1767225600, end: 1767225630.5 }]);
  assert.equal(scale.kind, 'number');
  assert.equal(scale.start, 1767225600);
  assert.equal(tc.formatTime(scale, 1767225630.5), '1767225630.5');
  const single = tc.timeScale([{ start: 5, end: 5, kind: 'number' }]);
  assert.deepEqual([single.start, single.end], [5, 6]);   // a lone instant still has a span
});

test('tick steps are 1-2-5 for numbers and whole clock units for ISO times', () => {
  assert.equal(tc.niceStep('number', 100, 10), 10);
  assert.equal(tc.niceStep('number', 100, 6), 20);
  assert.equal(tc.niceStep('number', 0.3, 5), 0.1);
  assert.equal(tc.niceStep('iso', 435, 6), 120);
  assert.equal(tc.niceStep('iso', 7200, 5), 1800);
  assert.equal(tc.niceStep('iso', 3, 10), 0.5);
  assert.equal(tc.niceStep('iso', 86400 * 30, 5), 86400 * 10);
});

test('ticks fall inside the window at whole multiples, labelled readably', () => {
  const numbers = tc.ticks({ kind: 'number' }, 4, 29, 6);
  assert.deepEqual(numbers.map((tick) => tick.label), ['5', '10', '15', '20', '25']);
  const decimals = tc.ticks({ kind: 'number' }, 0.05, 0.31, 3);
  assert.deepEqual(decimals.map((tick) => tick.label), ['0.1', '0.2', '0.3']);
  const scale = scaleOf(ISO_CALLS);
  const clock = tc.ticks(scale, scale.start, scale.end, 5);
  assert.deepEqual(clock.map((tick) => tick.label), ['09:00:00', '09:02:00', '09:04:00', '09:06:00']);
  assert.ok(clock.every((tick) => /^\d\d:\d\d:\d\d$/.test(tick.label)));
});

// -- names and identities ------------------------------------------------------------------------

test('a call is named "AGENT TOOL on RESOURCE from T1 to T2", a region "Region K: ..."', () => {
  const derivation = derive({ calls: ISO_CALLS }, {});
  const scale = tc.timeScale(derivation.calls);
  assert.equal(tc.callName(derivation.calls[0], scale), 'Releaser deploy on cluster from 09:00:00 to 09:04:30');
  assert.equal(tc.callName({ ...derivation.calls[0], tool: null }, scale), 'Releaser on cluster from 09:00:00 to 09:04:30');
  assert.equal(tc.regionName(derivation.contentions[0], scale),
    'Region 1: cluster, 09:00:00 to 09:07:15, Releaser, Tester');
});

test('a region is identified by resource, interval and the set of its agents', () => {
  const region = { index: 4, resource: 'db', start: 1, end: 9, agents: ['B', 'A'], calls: [0, 1] };
  assert.equal(tc.regionKey(region), tc.regionKey({ ...region, index: 0, agents: ['A', 'B'], calls: [7, 8] }));
  assert.notEqual(tc.regionKey(region), tc.regionKey({ ...region, end: 10 }));
  assert.notEqual(tc.regionKey(region), tc.regionKey({ ...region, resource: 'cache' }));
  assert.equal(tc.describeRegion(region), 'db [1, 9) B, A');   // as Python's describe_region
});

// -- linked regions ------------------------------------------------------------------------------

function regions(list) {
  return list.map(([resource, start, end, agents], index) => ({ index, resource, start, end, agents, calls: [] }));
}

test('a circular wait across three forks is one linked set', () => {
  const sets = tc.linkedSets(regions([
    ['fork_0', 4, 5, ['P0', 'P2']], ['fork_1', 4, 5, ['P1', 'P0']], ['fork_2', 4, 5, ['P2', 'P1']],
    ['fork_1', 2, 3, ['P0', 'P1']],
  ]));
  assert.deepEqual(sets[0], [0, 1, 2]);
  assert.strictEqual(sets[1], sets[0]);
  assert.deepEqual(sets[3], [3], 'same agents at an earlier, separate time are not linked');
});

test('links need a shared agent and overlapping (half-open) times, and are transitive', () => {
  const sets = tc.linkedSets(regions([
    ['a', 0, 5, ['A', 'B']], ['b', 5, 9, ['A', 'C']],        // touching: not linked
    ['c', 0, 5, ['C', 'D']],                                  // overlaps a in time, no shared agent
    ['d', 10, 20, ['X', 'Y']], ['e', 12, 13, ['Y', 'Z']], ['f', 19, 25, ['X', 'W']], ['g', 24, 30, ['W', 'V']],
  ]));
  assert.deepEqual(sets.slice(0, 3), [[0], [1], [2]]);
  assert.deepEqual(sets[3], [3, 4, 5, 6]);
});

// -- the stored value ----------------------------------------------------------------------------

const RECORD = { calls: [
  { agent: 'Worker A', tool: 'hold', resource: 'lock_x', start: 0, end: 10 },
  { agent: 'Worker B', tool: 'hold', resource: 'lock_y', start: 1, end: 10 },
  { agent: 'Worker A', tool: 'wait', resource: 'lock_y', start: 3, end: 10 },
  { agent: 'Worker B', tool: 'wait', resource: 'lock_x', start: 4, end: 10 },
  { agent: 'Worker B', resource: 'lock_x', start: 9, end: 2 },
] };

function arranged(record) {
  const derivation = derive(record, {});
  const callsByIndex = new Map(derivation.calls.map((call) => [call.index, call]));
  return { derivation, callsByIndex };
}

test('composeValue writes the seed map and self-describing regions', () => {
  const { derivation, callsByIndex } = arranged(RECORD);
  const marks = new Map([[1, { label: 'deadlock', note: 'waits for A' }], [0, { label: 'deadlock', note: '' }]]);
  const value = tc.composeValue(marks, [], derivation.contentions, callsByIndex, false);
  assert.deepEqual(value.contentions, { 0: 'deadlock', 1: 'deadlock' });
  assert.deepEqual(value.regions[0], {
    index: 0, resource: 'lock_x', start: 0, end: 10, agents: ['Worker A', 'Worker B'],
    calls: [{ index: 0, agent: 'Worker A', resource: 'lock_x', start: 0, end: 10 },
      { index: 3, agent: 'Worker B', resource: 'lock_x', start: 4, end: 10 }],
    label: 'deadlock', note: '',
  });
  assert.equal(value.regions[1].note, 'waits for A');
});

test('nothing labelled stores "" unless an empty timeline was confirmed', () => {
  const { derivation, callsByIndex } = arranged(RECORD);
  assert.equal(tc.composeValue(new Map(), [], derivation.contentions, callsByIndex, false), null);
  assert.deepEqual(tc.composeValue(new Map(), [], [], new Map(), true), { contentions: {}, regions: [] });
});

test('restore matches by identity: reordered calls keep their labels, others are stale', () => {
  const { derivation, callsByIndex } = arranged(RECORD);
  const value = tc.composeValue(new Map([[1, { label: 'circular_wait', note: 'n' }]]), [], derivation.contentions,
    callsByIndex, false);
  const reordered = derive({ calls: RECORD.calls.slice().reverse() }, {});
  const matched = tc.matchMarks(value, reordered.contentions);
  assert.deepEqual([...matched.marks], [[1, { label: 'circular_wait', note: 'n' }]]);
  assert.deepEqual(matched.stale, []);

  const elsewhere = derive({ calls: RECORD.calls.map((call) => ({ ...call, end: 11 })) }, {});
  const stale = tc.matchMarks(value, elsewhere.contentions);
  assert.equal(stale.marks.size, 0);
  assert.deepEqual(stale.stale, [{ mark: value.regions[0], reason: 'not_in_trace', position: 0 }]);
});

test('a region saved twice keeps the first and lists the second; stale entries are stored again', () => {
  const { derivation, callsByIndex } = arranged(RECORD);
  const value = tc.composeValue(new Map([[0, { label: 'benign', note: '' }]]), [], derivation.contentions, callsByIndex, false);
  const ghost = { ...value.regions[0], resource: 'ghost', label: 'deadlock' };
  const twice = { contentions: value.contentions, regions: [value.regions[0], { ...value.regions[0], label: 'deadlock' }, ghost] };
  const matched = tc.matchMarks(twice, derivation.contentions);
  assert.equal(matched.marks.get(0).label, 'benign');
  assert.deepEqual(matched.stale.map((item) => [item.reason, item.position]), [['repeat', 1], ['not_in_trace', 2]]);
  const again = tc.composeValue(matched.marks, matched.stale, derivation.contentions, callsByIndex, false);
  assert.equal(again.regions.length, 3);
  assert.deepEqual(again.contentions, { 0: 'benign' }, 'the region in this trace wins the shared key');
});

test('the runtime\'s readChecked checks the stored shape against the value schema', () => {
  const schema = { type: 'object', required: ['contentions', 'regions'], additionalProperties: false,
    properties: { contentions: { type: 'object' }, regions: { type: 'array' } } };
  const read = (raw) => runtime.readChecked({ raw, ...runtime.parseStored(raw) }, { value_schema: schema });
  assert.deepEqual(read(''), { value: null, unreadable: null });
  assert.deepEqual(read('{"contentions":{},"regions":[]}').value, { contentions: {}, regions: [] });
  assert.match(read('{"contentions":{}}').unreadable, /regions: is missing/);
  assert.match(read('{"contentions":').unreadable, /not valid JSON/);
});

// -- words ---------------------------------------------------------------------------------------

test('each left-out call is listed with its reason in words', () => {
  const problems = derive({ calls: [
    7, { resource: 'r', start: 0, end: 1 }, { agent: 'A', start: 0, end: 1 }, { agent: 'A', resource: 'r', end: 1 },
    { agent: 'A', resource: 'r', start: 0, end: 'soon' }, { agent: 'A', resource: 'r', start: 0, end: '2026-01-01T00:00:00Z' },
    { agent: 'A', resource: 'r', start: 5, end: 1 },
  ] }, {}).problems.filter((problem) => problem.path.startsWith('calls'));
  assert.deepEqual(problems.map(tc.leftOutText), [
    'Call 1 (calls[0]): it is not an object.',
    'Call 2 (calls[1].agent): it names no agent.',
    'Call 3 (calls[2].resource): it names no resource.',
    'Call 4 (calls[3].start): its start time is missing.',
    'Call 5 (calls[4].end): its end time is not a number or an ISO date-time.',
    'Call 6 (calls[5]): its times mix numbers and ISO date-times (with each other or with the calls before it).',
    'Call 7 (calls[6]): its end is before its start.',
  ]);
});

test('the shortfall is a fixed sentence with counts', () => {
  assert.equal(tc.incompleteReason(5, 2, true, null), '2 of 5 contention regions labelled');
  assert.equal(tc.incompleteReason(5, 5, true, null), null);
  assert.equal(tc.incompleteReason(0, 0, false, null), 'Confirm that this timeline has no contention regions');
  assert.equal(tc.incompleteReason(0, 0, true, null), null);
  assert.match(tc.incompleteReason(5, 0, false, 'bad'), /could not be read/);
});

test('notices name stale marks as Python does and count the calls left out', () => {
  const derivation = derive(RECORD, {});
  const ghost = { index: 3, resource: 'ghost', start: 1, end: 2, agents: ['A', 'B'], calls: [], label: 'x', note: '' };
  const notices = tc.noticesFor(derivation, [{ mark: ghost, reason: 'not_in_trace', position: 2 }], null, 1);
  assert.deepEqual(notices.map((notice) => notice.text), [
    '1 call(s) are left out of the timeline; see "Calls left out" below for each reason.',
    "regions[2]: 'ghost [1, 2) A, B' is not in this trace",
  ]);
  assert.equal(tc.summaryText({ total: 3, labelled: 1, stale: 1, leftOut: 1 }, 'Region 1: x'),
    '1 of 3 contention regions labelled. Chosen: Region 1: x. 1 saved label(s) not in this trace. ' +
    '1 call(s) left out of the timeline.');
});

// -- judgments -----------------------------------------------------------------------------------

test('judgments: each judge\'s configured label per region it names by identity; from_judgment round-trips', () => {
  const calls = [
    { agent: 'P0', resource: 'fork_0', start: 0, end: 5 }, { agent: 'P1', resource: 'fork_0', start: 4, end: 6 },
    { agent: 'P1', resource: 'fork_1', start: 10, end: 12 }, { agent: 'P2', resource: 'fork_1', start: 11, end: 13 }];
  const derivation = derive({ calls }, {});
  const regions = derivation.contentions;
  const callsByIndex = new Map(derivation.calls.map((call) => [call.index, call]));
  const judged = (index, label) => Object.assign(tc.composeValue(new Map([[index, { label, note: '' }]]), [],
    regions, callsByIndex, false).regions[0], {});
  const moved = Object.assign(judged(1, 'deadlock'), { start: 99 });
  const record = { judgments: { tc: [
    { source: 'judge <b>', value: { contentions: {}, regions: [judged(0, 'deadlock'), judged(1, 'made_up'), moved] } },
    { source: 'baseline', value: JSON.stringify({ contentions: {}, regions: [judged(1, 'benign')] }) },
    { source: 'broken', value: [judged(0, 'benign')] }] } };
  const config = { contention_labels: ['deadlock', 'benign'] };
  const byRegion = tc.judgmentsByRegion(record, config, 'tc', regions);
  assert.deepEqual([...byRegion], [[0, [{ source: 'judge <b>', label: 'deadlock' }]], [1, [{ source: 'baseline', label: 'benign' }]]]);
  const accepted = new Map([[0, { label: 'deadlock', note: 'n', fromJudgment: 'judge <b>' }], [1, { label: 'benign', note: '' }]]);
  const value = tc.composeValue(accepted, [], regions, callsByIndex, false);
  assert.equal(value.regions[0].from_judgment, 'judge <b>');
  assert.equal('from_judgment' in value.regions[1], false);
  assert.deepEqual(tc.matchMarks(value, regions).marks.get(0), { label: 'deadlock', note: 'n', fromJudgment: 'judge <b>' });
});

test('derive: the contention regions are computed when first read, the same as if set at once', () => {
  const record = { calls: ISO_CALLS };
  const lazy = derive(record, {});
  const descriptor = Object.getOwnPropertyDescriptor(lazy, 'contentions');
  assert.equal(typeof descriptor.get, 'function');   // not computed yet
  assert.ok(descriptor.enumerable);
  assert.deepEqual(Object.keys(lazy),
    ['steps', 'agents', 'edges', 'handoffs', 'tool_calls', 'calls', 'contentions', 'problems']);
  const regions = lazy.contentions;
  assert.equal(regions.length, 1);
  assert.deepEqual(regions[0].agents, ['Releaser', 'Tester']);
  assert.equal(lazy.contentions, regions);   // computed once, then a plain property
  assert.equal(Object.getOwnPropertyDescriptor(lazy, 'contentions').value, regions);
  assert.deepEqual(JSON.parse(JSON.stringify(derive(record, {}))).contentions, JSON.parse(JSON.stringify(regions)));
  const assigned = derive(record, {});
  assigned.contentions = [];
  assert.deepEqual(assigned.contentions, []);
});
