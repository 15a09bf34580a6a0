'use strict';
// Pure rules of multiagent.mast (types/mast/marks.js), run by `node --test tests/js/` with no DOM:
// composing values, the run's modes, judgments, the legend's search and what the runtime paints.
// The problems are refereed by cases.json (type_cases.test.js); the page by tests/e2e/test_mast.py.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const shim = require('./type_rules.js');
const mast = shim.load('mast');
const { derive } = require(path.join(PACKAGE, 'web', 'derive.js'));

const TAXONOMY = {name: 'small', version: '1', source: 'test', modes: [
  {category: 'Design', code: '1.3', name: 'Step repetition', definition: 'A step done again.', example: 'Twice.'},
  {category: 'Design', code: '1.1', name: 'Disobey task specification', definition: 'Ignores the task.'},
  {category: 'Verification', code: '3.2', name: 'No or incomplete verification', definition: 'Not checked.'}]};
const CONFIG = {taxonomy: TAXONOMY, severities: ['minor', 'major'], allow_note: true, judgments_key: 'judgments'};
const ID = 'small@1';
const derivation = derive({steps: [{agent: 'P'}, {agent: 'Q'}, {agent: 'P'}]}, {});

test('the taxonomy is read by category, in order, with labels', () => {
  const taxonomy = mast.taxonomyOf(CONFIG);
  assert.equal(taxonomy.id, ID);
  assert.deepEqual(taxonomy.categories.map((c) => [c.name, c.modes.map((m) => m.label)]),
    [['Design', ['1.3 Step repetition', '1.1 Disobey task specification']],
      ['Verification', ['3.2 No or incomplete verification']]]);
  // the server's form of it (config.modes) wins over an inline one
  const served = mast.taxonomyOf({modes: {id: 'mast@x', categories: [{name: 'C', modes: [{code: 'a', name: 'A', definition: 'd'}]}]},
    taxonomy: TAXONOMY});
  assert.equal(served.id, 'mast@x');
});

test('tags are added in step then taxonomy order, and taken off by the same toggle', () => {
  let value = mast.toggleStepTag(null, CONFIG, 2, '1.1');
  value = mast.toggleStepTag(value, CONFIG, 0, '3.2');
  value = mast.toggleStepTag(value, CONFIG, 2, '1.3');
  assert.deepEqual(value, {taxonomy: ID, run: [], steps: [
    {step: 0, mode: '3.2', note: '', severity: null}, {step: 2, mode: '1.3', note: '', severity: null},
    {step: 2, mode: '1.1', note: '', severity: null}]});
  assert.deepEqual(mast.modesOnStep(value, 2), ['1.3', '1.1']);
  const off = mast.toggleStepTag(value, CONFIG, 2, '1.3');
  assert.deepEqual(off.steps.map((t) => [t.step, t.mode]), [[0, '3.2'], [2, '1.1']]);
  assert.equal(value.steps.length, 3, 'the input value is never changed');
});

test('the run\'s modes are the step tags and the whole-run marks together', () => {
  let value = mast.toggleStepTag(null, CONFIG, 1, '1.3');
  value = mast.toggleStepTag(value, CONFIG, 0, '1.3');
  value = mast.setRunMark(value, CONFIG, '3.2', true);
  value = mast.setRunMark(value, CONFIG, '1.3', true);
  const modes = mast.runModes(value, mast.taxonomyOf(CONFIG));
  assert.deepEqual(modes.map((m) => [m.code, m.steps, m.whole !== null]), [['1.3', [0, 1], true], ['3.2', [], true]]);
  assert.deepEqual(mast.setRunMark(value, CONFIG, '3.2', false).run.map((t) => t.mode), ['1.3']);
});

test('a note and a severity are set on one tag; none found goes with the first tag', () => {
  let value = mast.setNoneFound(null, CONFIG, true);
  assert.deepEqual(value, {taxonomy: ID, steps: [], run: [], none_found: true});
  value = mast.toggleStepTag(value, CONFIG, 1, '1.1');
  assert.equal('none_found' in value, false);
  value = mast.setDetail(value, CONFIG, {step: 1, mode: '1.1'}, 'note', 'ignores the budget');
  value = mast.setDetail(value, CONFIG, {step: 1, mode: '1.1'}, 'severity', 'major');
  assert.deepEqual(value.steps, [{step: 1, mode: '1.1', note: 'ignores the budget', severity: 'major'}]);
  assert.equal(mast.setDetail(value, CONFIG, {step: 1, mode: '1.1'}, 'severity', '').steps[0].severity, null);
});

test('judgments: read in this taxonomy only, accepted with their source, note and severity', () => {
  const record = {judgments: {m: [
    {source: 'judge', value: {taxonomy: ID, steps: [{step: 2, mode: '1.3', note: 'again', severity: 'major'}, {step: 'x', mode: '1.1'}],
      run: [{mode: '3.2'}]}},
    {source: 'old', value: {taxonomy: 'small@0', steps: [{step: 0, mode: '1.3'}]}},
    {source: 'text', value: JSON.stringify({taxonomy: ID, steps: [{step: 2, mode: '1.3'}]})}]}};
  const judgments = mast.judgmentsFor(record, CONFIG, 'm');
  assert.deepEqual(judgments.map((j) => [j.source, j.steps.length, j.run.length]), [['judge', 1, 1], ['text', 1, 0]]);
  assert.deepEqual(mast.judgedOnStep(judgments, 2).map((j) => j.source), ['judge', 'text']);
  assert.equal(mast.agreedByAll(judgments, {step: 2, mode: '1.3'}), true);
  assert.equal(mast.agreedByAll(judgments, {step: null, mode: '3.2'}), false);
  const taken = mast.acceptJudgment(null, CONFIG, 'judge', judgments[0].steps[0]);
  assert.deepEqual(taken.steps, [{step: 2, mode: '1.3', note: 'again', severity: 'major', from_judgment: 'judge'}]);
  // the annotator's own note stays; the source is recorded
  const mine = mast.setDetail(mast.toggleStepTag(null, CONFIG, 2, '1.3'), CONFIG, {step: 2, mode: '1.3'}, 'note', 'mine');
  assert.deepEqual(mast.acceptJudgment(mine, CONFIG, 'judge', judgments[0].steps[0]).steps[0],
    {step: 2, mode: '1.3', note: 'mine', severity: 'major', from_judgment: 'judge'});
  assert.deepEqual(mast.acceptJudgment(null, CONFIG, 'judge', judgments[0].run[0]).run,
    [{mode: '3.2', note: '', severity: null, from_judgment: 'judge'}]);
  assert.equal(mast.judgmentWords(mast.taxonomyOf(CONFIG), 'judge', judgments[0].steps[0]),
    'judge: 1.3 Step repetition (major) \u2014 \u2018again\u2019');
});

test('the legend\'s search finds every word in code, name, category, definition or example', () => {
  const taxonomy = mast.taxonomyOf(CONFIG);
  assert.deepEqual(mast.searchModes(taxonomy, 'verif').map((m) => m.code), ['3.2']);
  assert.deepEqual(mast.searchModes(taxonomy, 'design TASK').map((m) => m.code), ['1.1']);
  assert.deepEqual(mast.searchModes(taxonomy, 'twice').map((m) => m.code), ['1.3']);
  assert.equal(mast.searchModes(taxonomy, '').length, 3);
});

test('describe: summary, completeness, and stale tags with Remove', () => {
  const ctx = {derivation, config: CONFIG, unreadable: null};
  assert.equal(mast.describe(null, ctx).incomplete,
    'Tag a failure mode (on a step or the whole run), or tick \u201cNo failure mode in this run\u201d');
  let value = mast.toggleStepTag(null, CONFIG, 0, '1.3');
  value = mast.setRunMark(value, CONFIG, '3.2', true);
  const said = mast.describe(value, ctx);
  assert.equal(said.summary, '1 step tag on 1 step, 1 whole-run mark. This run\u2019s modes: 1.3, 3.2.');
  assert.equal(said.incomplete, null);
  const stale = mast.describe({taxonomy: ID, steps: [{step: 9, mode: '1.3'}, {step: 0, mode: 'X'}], run: []}, ctx);
  assert.deepEqual(stale.stale.map((s) => [s.text, s.remove.steps.length]), [['#10 1.3 Step repetition', 1], ['#1 X', 1]]);
  assert.deepEqual(stale.removeAllStale, {taxonomy: ID, steps: [], run: []});
  // another taxonomy: every tag is stale, and removing the last stores nothing
  const other = mast.describe({taxonomy: 'small@0', steps: [{step: 0, mode: '1.3'}], run: []}, ctx);
  assert.deepEqual(other.stale, [{text: '#1 1.3 Step repetition (taxonomy small@0)', remove: null}]);
  assert.match(other.notices[0].text, /^These tags were saved under taxonomy small@0; this question now uses small@1\./);
});
