'use strict';
// Pure helpers of the emergent_behavior widget (types/emergent_behavior/widget.js), run by
// `node --test tests/js/` with no DOM library. The DOM behaviour is proven in
// tests/e2e/test_emergent_behavior.py.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const WEB = path.join(PACKAGE, 'web');
const TYPES = path.join(PACKAGE, 'types');
const runtime = require('./type_rules.js').core;
const eb = require('./type_rules.js').load('emergent_behavior');
const { derive } = require(path.join(WEB, 'derive.js'));

const BEHAVIORS = ['collusion', 'groupthink', 'cascading_error', 'role_drift'];
const record = {
  steps: [
    { agent: 'Moderator', content: 'Question' },
    { agent: 'Agent "Smith"', content: 'Yes' },
    { agent: '<b>Bold</b>', content: 'Agreed' },
    { content: 'no agent here' },
    { agent: 'Agent "Smith"', content: 'Still yes' },
    { agent: 'Moderator', to: '<b>Bold</b>', content: 'Decide' },
  ],
};
const derivation = derive(record, { agents: ['Auditor'] });

function stored(raw) {
  return Object.assign({ raw }, runtime.parseStored(raw));
}

// The JSON Schema of EmergentBehaviorValue as the server sends it (config.value_schema), read
// from the pydantic model itself so this test never checks against a stale copy.
function valueSchema() {
  const python = path.join(__dirname, '..', '..', '.venv', 'bin', 'python');
  const script = 'import json; from potato_multiagent.types.emergent_behavior.scheme import EmergentBehaviorValue as V; ' +
    'print(json.dumps(V.model_json_schema()))';
  return JSON.parse(execFileSync(python, ['-c', script], { encoding: 'utf8' }));
}
const CONFIG = { behaviors: BEHAVIORS, allow_note: true, value_schema: valueSchema() };

function entry(instances) {
  const all = [...new Set(instances.flatMap((i) => i.turns))].sort((a, b) => a - b);
  return { turns: all, note: instances.map((i) => i.note).filter(Boolean).join('\n'), instances };
}

// ---------------------------------------------------------------------------------------------
// value <-> draft
// ---------------------------------------------------------------------------------------------

test('composeValue writes the seed fields beside the instances, non-empty behaviours only', () => {
  const draft = eb.toDraft(null, BEHAVIORS);
  const groupthink = draft.behaviors[1];
  groupthink.episodes = [{ turns: [4, 1], note: 'first' }, { turns: [], note: '' }, { turns: [5, 2], note: 'second' }];
  groupthink.episodes.forEach((episode) => episode.turns.sort((a, b) => a - b));
  draft.behaviors[2].episodes = [{ turns: [], note: 'only a note' }];
  const value = eb.composeValue(draft);
  assert.deepEqual(JSON.parse(JSON.stringify(value)), {
    groupthink: {
      turns: [1, 2, 4, 5], note: 'first\nsecond',
      instances: [{ turns: [1, 4], note: 'first' }, { turns: [2, 5], note: 'second' }],
    },
    cascading_error: { turns: [], note: 'only a note', instances: [{ turns: [], note: 'only a note' }] },
  });
});

test('nothing marked stores nothing; "none observed" stores {}', () => {
  const draft = eb.toDraft(null, BEHAVIORS);
  assert.equal(eb.composeValue(draft), null);
  draft.none = true;
  assert.deepEqual(eb.composeValue(draft), {});
  assert.equal(eb.toDraft({}, BEHAVIORS).none, true);
  assert.equal(eb.toDraft(null, BEHAVIORS).none, false);
});

test('toDraft: every configured behaviour has an episode to mark into; unknown ones follow, kept', () => {
  const value = { herding: entry([{ turns: [1], note: '' }]), groupthink: entry([{ turns: [1, 2], note: 'a' }, { turns: [4], note: '' }]) };
  const draft = eb.toDraft(value, BEHAVIORS);
  assert.deepEqual(draft.behaviors.map((b) => [b.name, b.configured, b.episodes.length]), [
    ['collusion', true, 1], ['groupthink', true, 2], ['cascading_error', true, 1], ['role_drift', true, 1],
    ['herding', false, 1],
  ]);
  assert.deepEqual(draft.behaviors[0].episodes, [{ turns: [], note: '' }]);
  assert.deepEqual(JSON.parse(JSON.stringify(eb.composeValue(draft))), {
    groupthink: value.groupthink, herding: value.herding,
  });
});

test('a seed value without instances is one episode, and gains instances when written back', () => {
  const draft = eb.toDraft({ groupthink: { turns: [3, 1], note: 'seed' } }, BEHAVIORS);
  assert.deepEqual(draft.behaviors[1].episodes, [{ turns: [1, 3], note: 'seed' }]);
  assert.deepEqual(JSON.parse(JSON.stringify(eb.composeValue(draft))),
    { groupthink: { turns: [1, 3], note: 'seed', instances: [{ turns: [1, 3], note: 'seed' }] } });
});

test('a behaviour called __proto__ is stored as a behaviour', () => {
  const draft = eb.toDraft(null, ['__proto__']);
  draft.behaviors[0].episodes[0].turns.push(0);
  const raw = JSON.stringify(eb.composeValue(draft));
  assert.equal(raw, '{"__proto__":{"turns":[0],"note":"","instances":[{"turns":[0],"note":""}]}}');
});

test('toggleTurn keeps the turns sorted and says whether the turn is now marked', () => {
  const episode = { turns: [], note: '' };
  assert.equal(eb.toggleTurn(episode, 5), true);
  assert.equal(eb.toggleTurn(episode, 1), true);
  assert.equal(eb.toggleTurn(episode, 3), true);
  assert.deepEqual(episode.turns, [1, 3, 5]);
  assert.equal(eb.toggleTurn(episode, 3), false);
  assert.deepEqual(episode.turns, [1, 5]);
  assert.deepEqual(eb.unionOf([{ turns: [5, 7] }, { turns: [1, 5] }]), [1, 5, 7]);
});

test('the runtime reads written values and reports unreadable ones in words written values and reports unreadable ones in words', () => {
  const good = { groupthink: entry([{ turns: [0], note: '' }]) };
  assert.deepEqual(runtime.readChecked(stored(JSON.stringify(good)), CONFIG), { value: good, unreadable: null });
  assert.deepEqual(runtime.readChecked(stored('{}'), CONFIG), { value: {}, unreadable: null });
  assert.deepEqual(runtime.readChecked(stored(''), CONFIG), { value: null, unreadable: null });
  const cases = {
    '{"groupthink": {"turns": [1], "note"': /not valid JSON/,
    '[]': /value: should be an object, got a list/,
    '{"groupthink": {"turns": [-1], "note": ""}}': /groupthink\.turns\[0\]: should be at least 0/,
    '{"groupthink": {"turns": ["1"], "note": ""}}': /groupthink\.turns\[0\]: should be an integer/,
    '{"groupthink": {"turns": [1, 1], "note": ""}}': /groupthink\.turns\[1\]: repeats an earlier item/,
    '{"groupthink": {"turns": [1], "note": null}}': /groupthink\.note: should be a text/,
    '{"groupthink": {"turns": [1]}}': /groupthink\.note: is missing/,
    '{"groupthink": {"turns": [1], "note": "", "instances": []}}': /instances: should have at least 1 item/,
    '{"groupthink": {"turns": [1], "note": "", "instances": [{"turns": [1, 1], "note": ""}]}}':
      /instances\[0\]\.turns\[1\]: repeats an earlier item/,
    '{"groupthink": {"turns": [1], "note": "", "extra": 1}}': /groupthink\.extra: is not a field/,
    '{"groupthink": true}': /groupthink: should be an object/,
  };
  for (const [raw, pattern] of Object.entries(cases)) {
    const result = runtime.readChecked(stored(raw), CONFIG);
    assert.equal(result.value, null, raw);
    assert.match(result.unreadable, pattern, raw);
  }
});

// ---------------------------------------------------------------------------------------------
// words
// ---------------------------------------------------------------------------------------------

test('turn labels read "Turn N (AGENT)" with the full name, or "no agent"', () => {
  assert.deepEqual(derivation.steps.map(eb.turnLabel), [
    'Turn 1 (Moderator)', 'Turn 2 (Agent "Smith")', 'Turn 3 (<b>Bold</b>)', 'Turn 4 (no agent)',
    'Turn 5 (Agent "Smith")', 'Turn 6 (Moderator)',
  ]);
});

test('summaryText states every episode in words, stale turns and unknown behaviours included', () => {
  assert.equal(eb.summaryText(null, derivation, null, BEHAVIORS), 'Nothing marked yet.');
  assert.equal(eb.summaryText({}, derivation, null, BEHAVIORS), 'No emergent behaviour observed.');
  const value = {
    groupthink: entry([{ turns: [1, 2, 4], note: 'x' }, { turns: [9], note: '' }]),
    herding: entry([{ turns: [], note: 'hm' }]),
  };
  assert.equal(eb.summaryText(value, derivation, null, BEHAVIORS),
    'groupthink: episode 1, 3 turns across 2 agents: #2 (Agent "Smith"), #3 (<b>Bold</b>), #5 (Agent "Smith"); ' +
    'note written. episode 2, 1 turn: #10 (not in this trace). ' +
    'herding (not one of the configured behaviors): episode 1, no turns; note written.');
  assert.match(eb.summaryText(null, derivation, 'The saved value could not be read: x', BEHAVIORS), /could not be read/);
});

test('episodeText names at most six turns', () => {
  const text = eb.episodeText({ turns: [0, 1, 2, 3, 4, 5, 40, 41], note: '' }, derivation.steps);
  assert.match(text, /^8 turns across 4 agents: #1 \(Moderator\), .*#6 \(Moderator\), and 2 more$/);
});

test('incompleteReason: complete with a turn in the trace or "none observed"; never trace text', () => {
  const reason = eb.incompleteReason(null, null, 6, BEHAVIORS);
  assert.equal(reason, '0 turns marked: mark at least one turn of a behaviour, or tick \u201CNo emergent behaviour observed\u201D');
  assert.equal(eb.incompleteReason({}, null, 6, BEHAVIORS), null);
  assert.equal(eb.incompleteReason({ groupthink: entry([{ turns: [2], note: '' }]) }, null, 6, BEHAVIORS), null);
  // a note alone, a turn the trace lacks, or a behaviour the config lacks does not complete it
  assert.equal(eb.incompleteReason({ groupthink: entry([{ turns: [], note: 'n' }]) }, null, 6, BEHAVIORS), reason);
  assert.equal(eb.incompleteReason({ groupthink: entry([{ turns: [6], note: '' }]) }, null, 6, BEHAVIORS), reason);
  assert.equal(eb.incompleteReason({ herding: entry([{ turns: [1], note: '' }]) }, null, 6, BEHAVIORS), reason);
  assert.match(eb.incompleteReason(null, 'unreadable', 6, BEHAVIORS), /could not be read/);
});

test('noticesFor words stale marks exactly as Python validate does', () => {
  const value = {
    groupthink: entry([{ turns: [1], note: '' }, { turns: [6, 99], note: '' }]),
    herding: { turns: [7], note: '' },
  };
  assert.deepEqual(eb.noticesFor(value, derivation, null, BEHAVIORS).map((n) => n.text), [
    "groupthink.instances[1].turns: '6' is not in this trace",
    "groupthink.instances[1].turns: '99' is not in this trace",
    "value: 'herding' is not one of the configured behaviors",
    "herding.turns: '7' is not in this trace",
  ]);
  assert.deepEqual(eb.noticesFor(null, derivation, null, BEHAVIORS), []);
  const none = derive({ nothing: true }, {});
  assert.match(eb.noticesFor(null, none, null, BEHAVIORS)[0].text, /^This trace has no turns to mark: /);
});

// ---------------------------------------------------------------------------------------------
// lanes and pages
// ---------------------------------------------------------------------------------------------

test('one lane per agent with turns, in the derivation order, then one for turns without an agent', () => {
  const view = eb.buildLanes(derivation);
  // the roster's Auditor has no turn, so no lane; an addressee that never speaks has none either
  assert.deepEqual(view.lanes.map((lane) => [lane.label, lane.steps]), [
    ['Moderator', [0, 5]], ['Agent "Smith"', [1, 4]], ['<b>Bold</b>', [2]], ['(no agent)', [3]],
  ]);
  assert.deepEqual(view.laneOf, [0, 1, 2, 3, 1, 0]);
});

test('hidden lanes leave their turns out of the pages, the rest in order', () => {
  const view = eb.buildLanes(derivation);
  assert.deepEqual(eb.visibleSteps(view, new Set()), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(eb.visibleSteps(view, new Set([1, 3])), [0, 2, 5]);
});

test('nearest turn in a lane', () => {
  const lane = { steps: [2, 10, 20] };
  assert.equal(eb.nearestInLane(lane, 0), 2);
  assert.equal(eb.nearestInLane(lane, 14), 10);
  assert.equal(eb.nearestInLane(lane, 15), 10, 'a tie goes to the earlier turn');
  assert.equal(eb.nearestInLane(lane, 16), 20);
  assert.equal(eb.nearestInLane(lane, 99), 20);
  assert.equal(eb.nearestInLane({ steps: [] }, 3), null);
});

test('lanes of a 5,000-step run: one per agent, a hidden lane leaves out its steps', () => {
  // How long it takes is bench/'s business, not a test's.
  const steps = Array.from({ length: 5000 }, (_, i) => ({ agent: `Agent ${i % 7}`, content: `turn ${i}` }));
  const big = derive({ steps }, {});
  const view = eb.buildLanes(big);
  const shown = eb.visibleSteps(view, new Set([3]));
  assert.equal(view.lanes.length, 7);
  assert.equal(shown.length, 5000 - view.lanes[3].steps.length);
});

// ---------------------------------------------------------------------------------------------
// judgments (issue 17): read from the record, worded, shown per mode, accepted as from_judgment
// ---------------------------------------------------------------------------------------------

test('judgmentsFor reads the scheme\'s judgments under judgments_key and leaves out unreadable ones', () => {
  const good = { groupthink: entry([{ turns: [1, 4], note: 'judge' }]) };
  const record = {
    verdicts: {
      emergent: [
        { source: 'llm-judge', value: good },
        { source: 'as text', value: JSON.stringify(good) },
        { source: 'bad shape', value: { groupthink: { turns: ['1'], note: '' } } },
        { source: 'not json', value: '{"groupthink"' },
        { value: good },
      ],
      other: [{ source: 'elsewhere', value: good }],
    },
  };
  const readable = (value) => runtime.checkValue(value, CONFIG).length === 0;
  const found = eb.judgmentsFor(record, { judgments_key: 'verdicts' }, 'emergent', readable);
  assert.deepEqual(found.map((j) => j.source), ['llm-judge', 'as text']);
  assert.deepEqual(eb.judgmentsFor(record, {}, 'emergent', readable), []);   // default key "judgments"
  assert.equal(eb.judgmentWords(found[0], 'groupthink', derivation.steps),
    'llm-judge: episode 1, 2 turns: #2 (Agent "Smith"), #5 (Agent "Smith") \u2014 \'judge\'.');
  assert.equal(eb.judgmentWords(found[0], 'collusion', derivation.steps), 'llm-judge: not marked.');
});

test('judgmentsShown: always, never, after_answer once the behaviour is answered or the widget complete', () => {
  const steps = derivation.steps.length;
  const marked = { groupthink: entry([{ turns: [1], note: '' }]) };
  const noteOnly = { collusion: entry([{ turns: [], note: 'a note' }]) };
  assert.equal(eb.judgmentsShown('always', null, 'groupthink', steps, BEHAVIORS), true);
  assert.equal(eb.judgmentsShown('never', marked, 'groupthink', steps, BEHAVIORS), false);
  assert.equal(eb.judgmentsShown('after_answer', null, 'groupthink', steps, BEHAVIORS), false);
  assert.equal(eb.judgmentsShown('after_answer', noteOnly, 'groupthink', steps, BEHAVIORS), false);
  assert.equal(eb.judgmentsShown('after_answer', noteOnly, 'collusion', steps, BEHAVIORS), true);
  assert.equal(eb.judgmentsShown('after_answer', marked, 'collusion', steps, BEHAVIORS), true);   // complete
  assert.equal(eb.judgmentsShown('after_answer', {}, 'collusion', steps, BEHAVIORS), true);       // none observed
});

test('from_judgment is read into the draft and written back per behaviour', () => {
  const value = { groupthink: Object.assign(entry([{ turns: [1], note: '' }]), { from_judgment: 'llm-judge' }) };
  const draft = eb.toDraft(value, BEHAVIORS);
  assert.equal(draft.behaviors[1].fromJudgment, 'llm-judge');
  assert.equal(draft.behaviors[0].fromJudgment, null);
  assert.deepEqual(JSON.parse(JSON.stringify(eb.composeValue(draft))), value);
  draft.behaviors[1].fromJudgment = null;
  assert.equal('from_judgment' in eb.composeValue(draft).groupthink, false);
});
