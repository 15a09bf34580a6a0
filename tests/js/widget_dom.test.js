'use strict';
// Pure helpers of the widget runtime (web/widget.js) and of failure_attribution's marks.js,
// run by `node --test tests/js/` with no DOM library. The real DOM behaviour is proven by the
// Playwright suite in tests/e2e/.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const WEB = path.join(PACKAGE, 'web');
const TYPES = path.join(PACKAGE, 'types');
const runtime = require(path.join(WEB, 'widget.js'));
const fa = require('./type_rules.js').load('failure_attribution');
const { derive } = require(path.join(WEB, 'derive.js'));

function stored(raw) {
  return Object.assign({ raw }, runtime.parseStored(raw));
}

// ---------------------------------------------------------------------------------------------
// Runtime helpers
// ---------------------------------------------------------------------------------------------

test('notInTrace is data, said in the same words as Python not_in_trace', () => {
  const base = require(path.join(WEB, 'base.js'));
  const found = base.notInTrace('responsible_agent', 'Agent "Smith"');
  assert.deepEqual(found, {code: 'not_in_trace', field: 'responsible_agent', value: 'Agent "Smith"'});
  assert.equal(base.words(found), "responsible_agent: 'Agent \"Smith\"' is not in this trace");
  assert.equal(base.words(base.notInTrace('decisive_step', 7)), "decisive_step: '7' is not in this trace");
});

test('snippet: first non-blank line, whitespace collapsed, cut with an ellipsis', () => {
  assert.equal(runtime.snippet('\n \t\n  hello   world  \nsecond line', 80), 'hello world');
  assert.equal(runtime.snippet('a\r\nb', 80), 'a');
  assert.equal(runtime.snippet('', 80), '');
  assert.equal(runtime.snippet(' \n\u00a0\u2028 ', 80), '');
  assert.equal(runtime.snippet(null, 80), '');
  const long = runtime.snippet('x'.repeat(200), 80);
  assert.equal(Array.from(long).length, 80);
  assert.ok(long.endsWith('\u2026'));
  assert.equal(runtime.snippet('x'.repeat(80), 80), 'x'.repeat(80));
});

test('snippet never splits a surrogate pair and counts code points', () => {
  const emoji = '\u{1F600}';
  assert.equal(runtime.snippet(emoji.repeat(80), 80), emoji.repeat(80));
  const cut = runtime.snippet(emoji.repeat(100), 80);
  assert.equal(cut, emoji.repeat(79) + '\u2026');
  assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(cut));
});

test('snippet of a huge line is cut like a short one', () => {
  // How long it takes is bench/'s business, not a test's.
  const huge = 'word '.repeat(400000);
  const result = runtime.snippet(huge, 80);
  assert.ok(result.endsWith('\u2026'));
  assert.equal(result, runtime.snippet('word '.repeat(40), 80));
});

test('parseStored: "" is nothing stored, bad JSON is a readable error', () => {
  assert.deepEqual(runtime.parseStored(''), { value: null, error: null });
  assert.deepEqual(runtime.parseStored('{"a":1}'), { value: { a: 1 }, error: null });
  const bad = runtime.parseStored('{"a":');
  assert.equal(bad.value, null);
  assert.match(bad.error, /^not valid JSON \(/);
});

test('deriveOptions takes the server\'s config.derive_options, in a fixed order', () => {
  const a = runtime.deriveOptions({ derive_options: { steps_key: 's', agent_key: 'who', agents: ['A'] }, labels: ['x'] });
  const b = runtime.deriveOptions({ derive_options: { agents: ['A'], agent_key: 'who', steps_key: 's' } });
  assert.deepEqual(Object.keys(a), ['agent_key', 'agents', 'steps_key']);
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  // Option names outside derive_options are the widget's own: they never reach derive().
  assert.deepEqual(runtime.deriveOptions({ agent_key: 'who', steps_key: 's' }), {});
});

test('debounce runs once after the last call; flush runs now; cancel drops', async () => {
  let runs = 0;
  const d = runtime.debounce(() => { runs += 1; }, 20);
  d(); d(); d();
  assert.equal(d.pending(), true);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(runs, 1);
  d();
  d.flush();
  assert.equal(runs, 2);
  assert.equal(d.pending(), false);
  d.flush();
  assert.equal(runs, 2, 'flush with nothing pending does nothing');
  d();
  d.cancel();
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.equal(runs, 2);
});

test('h() builds with setAttribute/textContent only and refuses handler attributes', () => {
  const made = [];
  const fakeDocument = {
    createElement(tag) {
      const node = {
        tag, attributes: {}, children: [], listeners: {}, textContent: '',
        setAttribute(name, value) { this.attributes[name] = value; },
        appendChild(child) { this.children.push(child); return child; },
        addEventListener(type, fn) { this.listeners[type] = fn; },
      };
      made.push(node);
      return node;
    },
    createTextNode(text) { return { text }; },
  };
  const saved = global.document;
  global.document = fakeDocument;
  try {
    const onClick = () => {};
    const node = runtime.h('li', { class: 'x', 'aria-hidden': true, hidden: false, title: null,
      text: '<img src=x onerror=alert(1)>', on: { click: onClick } }, ['a', null, [runtime.h('span')]]);
    assert.deepEqual(node.attributes, { class: 'x', 'aria-hidden': '' });
    assert.equal(node.textContent, '<img src=x onerror=alert(1)>');
    assert.equal(node.listeners.click, onClick);
    assert.equal(node.children.length, 2);
    assert.deepEqual(node.children[0], { text: 'a' });
    assert.throws(() => runtime.h('div', { onclick: 'alert(1)' }), /refused/);
    assert.throws(() => runtime.h('div', { OnError: 'alert(1)' }), /refused/);
  } finally {
    global.document = saved;
  }
});

test('browser files never parse HTML or run strings as code', () => {
  const files = fs.readdirSync(WEB).filter((file) => file.endsWith('.js')).map((file) => path.join(WEB, file))
    .concat(fs.readdirSync(TYPES).filter((folder) => !folder.startsWith('_')).flatMap((folder) =>
      fs.readdirSync(path.join(TYPES, folder)).filter((file) => file.endsWith('.js')).map((file) => path.join(TYPES, folder, file))));
  assert.ok(files.length >= 30, 'the shared scripts and every type\'s marks.js and view.js are read');
  for (const name of files) {
    const source = fs.readFileSync(name, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const banned of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(',
      'new Function', 'javascript:']) {
      assert.ok(!source.includes(banned), `${name} uses ${banned}`);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// failure_attribution
// ---------------------------------------------------------------------------------------------

const record = {
  steps: [
    { agent: 'Planner', content: 'Plan the trip\nthen book it' },
    { agent: 'Agent "Smith"', content: '  \n  Searching   flights  ' },
    { agent: '<img src=x onerror=alert(1)>', action: { tool: 'book', args: { id: 3 } } },
    { content: '' },
    null,
  ],
};
const derivation = derive(record, { agents: ['{{ 7*7 }}'] });

test('step labels: #N · AGENT · snippet, never [object Object]', () => {
  const labels = derivation.steps.map(fa.stepLabel);
  assert.deepEqual(labels, [
    '#1 \u00B7 Planner \u00B7 Plan the trip',
    '#2 \u00B7 Agent "Smith" \u00B7 Searching flights',
    '#3 \u00B7 <img src=x onerror=alert(1)> \u00B7 {"tool":"book","args":{"id":3}}',
    '#4 \u00B7 no agent \u00B7 (no text)',
    '#5 \u00B7 no agent \u00B7 (no text)',
  ]);
});

// The JSON Schema pydantic emits for FailureAttributionValue (the server sends it as
// config.value_schema); tests/unit/test_value_shape.py checks the real one against pydantic.
const CONFIG = {
  value_schema: {
    type: 'object', additionalProperties: false, required: ['responsible_agent', 'decisive_step', 'reason'],
    properties: {
      responsible_agent: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      decisive_step: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
      reason: { type: 'string' },
    },
  },
};

test('readChecked (model.get) accepts exactly the stored shape', () => {
  const value = { responsible_agent: '{{ 7*7 }}', decisive_step: 0, reason: '' };
  assert.deepEqual(runtime.readChecked(stored(JSON.stringify(value)), CONFIG), { value, unreadable: null });
  assert.deepEqual(runtime.readChecked(stored(''), CONFIG), { value: null, unreadable: null });
  const nulls = { responsible_agent: null, decisive_step: null, reason: 'why' };
  assert.deepEqual(runtime.readChecked(stored(JSON.stringify(nulls)), CONFIG).value, nulls);
});

test('readChecked (model.get) reports unreadable values in words', () => {
  const cases = {
    '{"responsible_agent":"P","decisive_st': /not valid JSON/,
    'null': /value: should be an object, got null/,
    '[]': /value: should be an object, got a list/,
    '{"responsible_agent":"P","decisive_step":1}': /reason: is missing/,
    '{"responsible_agent":"P","decisive_step":1,"reason":"","extra":1}': /extra: is not a field of this value/,
    '{"responsible_agent":5,"decisive_step":1,"reason":""}': /responsible_agent: should be a text or null, got 5/,
    '{"responsible_agent":"P","decisive_step":-1,"reason":""}': /decisive_step: should be an integer \u2265 0 or null, got -1/,
    '{"responsible_agent":"P","decisive_step":1.5,"reason":""}': /decisive_step: should be an integer/,
    '{"responsible_agent":"P","decisive_step":"1","reason":""}': /decisive_step: should be an integer/,
    '{"responsible_agent":"P","decisive_step":1,"reason":null}': /reason: should be a text, got null/,
  };
  for (const [raw, pattern] of Object.entries(cases)) {
    const result = runtime.readChecked(stored(raw), CONFIG);
    assert.equal(result.value, null, raw);
    assert.match(result.unreadable, /^The saved value could not be read: /, raw);
    assert.match(result.unreadable, pattern, raw);
  }
});

test('composeValue: all empty stores nothing, otherwise exactly as chosen', () => {
  assert.equal(fa.composeValue(null, null, ''), null);
  assert.deepEqual(fa.composeValue(null, null, ' '), { responsible_agent: null, decisive_step: null, reason: ' ' });
  assert.deepEqual(fa.composeValue('Agent "Smith"', 2, ''),
    { responsible_agent: 'Agent "Smith"', decisive_step: 2, reason: '' });
});

test('incompleteReason names what is missing', () => {
  assert.equal(fa.incompleteReason(null, null), 'Choose the responsible agent and the decisive step');
  assert.equal(fa.incompleteReason({ responsible_agent: 'P', decisive_step: null, reason: '' }, null),
    'Choose the decisive step');
  assert.equal(fa.incompleteReason({ responsible_agent: null, decisive_step: 0, reason: 'r' }, null),
    'Choose the responsible agent');
  assert.equal(fa.incompleteReason({ responsible_agent: 'P', decisive_step: 0, reason: '' }, null), null);
  assert.match(fa.incompleteReason(null, 'The saved value could not be read: x'), /could not be read/);
});

test('summaryText states the marks in words', () => {
  assert.equal(fa.summaryText(null, derivation, null), 'Nothing chosen yet.');
  assert.equal(fa.summaryText({ responsible_agent: 'Planner', decisive_step: 1, reason: 'x' }, derivation, null),
    'Responsible agent: Planner. Decisive step: #2 (Agent "Smith"). Reason given.');
  assert.equal(fa.summaryText({ responsible_agent: null, decisive_step: 3, reason: ' ' }, derivation, null),
    'No responsible agent chosen. Decisive step: #4 (no agent). No reason given.');
  assert.equal(fa.summaryText({ responsible_agent: 'Ghost', decisive_step: 9, reason: '' }, derivation, null),
    'Responsible agent: Ghost (not in this trace). Decisive step: #10 (not in this trace). No reason given.');
});

test('marks the trace lacks are kept and reported like Python validate', () => {
  const value = { responsible_agent: 'Ghost', decisive_step: 5, reason: '' };
  assert.deepEqual(fa.staleMarks(value, derivation), { agent: true, step: true, changed: false });
  assert.deepEqual(fa.noticesFor(value, derivation, null).map((n) => n.text), [
    "responsible_agent: 'Ghost' is not in this trace",
    "decisive_step: '5' is not in this trace",
  ]);
  assert.deepEqual(fa.staleMarks({ responsible_agent: '{{ 7*7 }}', decisive_step: 4, reason: '' }, derivation),
    { agent: false, step: false, changed: false });
  assert.deepEqual(fa.noticesFor(null, derivation, null), []);
});

test('a trace without a step list says so', () => {
  const none = derive({ nothing: true }, {});
  const notices = fa.noticesFor(null, none, null);
  assert.equal(notices.length, 1);
  assert.match(notices[0].text, /^This trace has no steps to choose from: /);
});
