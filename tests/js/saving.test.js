'use strict';
// The page's one save path (web/saving.js), without a page: Potato's saveAnnotations is a stand-in
// that posts the "page state" of the moment through fetch, as Potato's own does, and fetch is a
// stand-in whose answers the test gives. The browser behaviour (offline, slow network, restarts)
// is proven by tests/e2e/test_saving.py.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const web = path.join(__dirname, '..', '..', 'src', 'potato_multiagent', 'web');
const base = require(path.join(web, 'base.js'));
const saving = require(path.join(web, 'saving.js'));
const installSaving = saving.install;

/** A Potato stand-in on globalThis and the save path installed over it. */
function page() {
  const posted = [];      // {body, answer(ok)}: every POST, answered when the test says
  const noted = {sent: [], saved: []};
  let state = 'v0';
  globalThis.fetch = (url, init) => new Promise((resolve, reject) => {
    posted.push({url, body: init.body, answer: (status) => (status ? resolve({status, ok: status < 300}) : reject(new TypeError('Failed to fetch')))});
  });
  globalThis.saveAnnotations = async function saveAnnotations() {   // Potato's: the whole state, posted now
    const body = JSON.stringify({instance_id: 'i1', annotations: {'s:s': state}});
    try {
      const response = await fetch('/updateinstance', {method: 'POST', body});
      return response.ok;
    } catch (error) {
      return false;
    }
  };
  const saving = installSaving({
    base,
    currentInstanceId: () => 'i1',
    wrapGlobal(name, around, tag) {
      const original = globalThis[name];
      if (typeof original !== 'function' || original[tag]) { return; }
      const wrapped = function () { return around(original, this, arguments); };
      wrapped[tag] = true;
      globalThis[name] = wrapped;
    },
    beforeSave: () => Promise.resolve(),
    noteSent: (annotations) => noted.sent.push(annotations && annotations['s:s']),
    noteSaved: (annotations) => noted.saved.push(annotations && annotations['s:s']),
    restoreOwn: () => false
  });
  saving.wrapPotato();
  return {posted, noted, setState: (value) => { state = value; }, save: (...args) => globalThis.saveAnnotations(...args)};
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const bodyOf = (post) => JSON.parse(post.body).annotations['s:s'];

test('one save in flight; saves asked meanwhile become one, carrying the latest state', async () => {
  const p = page();
  p.setState('v1');
  const first = p.save({background: true});
  await tick();
  assert.equal(p.posted.length, 1);
  p.setState('v2');
  const second = p.save({background: true});
  p.setState('v3');
  const third = p.save({background: true});
  await tick();
  assert.equal(p.posted.length, 1, 'nothing else is posted while the first is on its way');
  p.posted[0].answer(200);
  assert.equal(await first, true);
  await tick();
  assert.equal(p.posted.length, 2);
  assert.deepEqual(p.posted.map(bodyOf), ['v1', 'v3'], 'the queued save posts the state at its start');
  p.posted[1].answer(200);
  assert.deepEqual([await second, await third], [true, true]);
  assert.deepEqual(p.noted, {sent: ['v1', 'v3'], saved: ['v1', 'v3']});
});

test('a failed save is sent again by itself, with the state of that moment', async () => {
  const p = page();
  p.setState('offline edit');
  const first = p.save({background: true});
  await tick();
  p.posted[0].answer(0);   // the network is down
  assert.equal(await first, false);
  assert.deepEqual(p.noted.saved, []);
  p.setState('later edit');
  await new Promise((resolve) => setTimeout(resolve, saving.retryWait(0) + 200));
  assert.equal(p.posted.length, 2, 'retried after the first backoff step');
  assert.equal(bodyOf(p.posted[1]), 'later edit');
  p.posted[1].answer(200);
  await tick(); await tick();
  assert.deepEqual(p.noted.saved, ['later edit']);
});

test('the backoff grows to 30 s and stays there', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 20].map(saving.retryWait),
    [1000, 2000, 4000, 8000, 15000, 30000, 30000, 30000]);
});

test('a failure is worded by what happened; only a 401 is a lost session', () => {
  const words = (attempt, online) => saving.failureOf(Object.assign({status: 0, timedOut: false}, attempt), online);
  assert.deepEqual(words({status: 401}), {words: 'signed out', signedOut: true});
  assert.deepEqual(words({timedOut: true}), {words: 'no answer from the server', signedOut: false});
  assert.deepEqual(words({status: 500}), {words: 'the server answered 500', signedOut: false});
  assert.deepEqual(words({status: 200}), {words: 'the server refused it', signedOut: false});
  assert.deepEqual(words({}, false), {words: 'offline', signedOut: false});
  assert.deepEqual(words({}, true), {words: 'the server cannot be reached', signedOut: false});
});

test('kept answers of several pages combine, a later page\'s scheme replacing an earlier one\'s', () => {
  const combined = saving.combineKept([
    {at: '2026-01-01T10:05:00Z', since: '2026-01-01T10:04:00Z', values: {scorecard: {scorecard: 'later'}}},
    {at: '2026-01-01T10:01:00Z', since: '2026-01-01T10:00:00Z', values: {scorecard: {scorecard: 'earlier'}, outcome: {failure: 'failure'}}}
  ]);
  assert.deepEqual(combined, {since: '2026-01-01T10:00:00Z',
    values: {scorecard: {scorecard: 'later'}, outcome: {failure: 'failure'}}});
});

test('only a POST to /updateinstance is a save; its payload is read back', () => {
  assert.equal(saving.isSaveRequest('/updateinstance', {method: 'POST'}), true);
  assert.equal(saving.isSaveRequest('/study/updateinstance', {method: 'post'}), true);
  assert.equal(saving.isSaveRequest('/updateinstance', {method: 'GET'}), false);
  assert.equal(saving.isSaveRequest('/updateinstance_other', {method: 'POST'}), false);
  assert.equal(saving.isSaveRequest('/api/track_annotation_change', {method: 'POST'}), false);
  assert.deepEqual(saving.annotationsOf('{"annotations": {"a:b": "1"}}'), {'a:b': '1'});
  assert.equal(saving.annotationsOf('not json'), null);
});
