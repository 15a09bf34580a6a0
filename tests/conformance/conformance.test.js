'use strict';
// Runs every case of the conformance corpus (tests/conformance/*.json) against web/derive.js.
// Problems are compared by {path, code} (messages are prose); every other key exactly.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { derive, stepRef } = require('../../src/potato_multiagent/web/derive.js');

const corpusDir = __dirname;
const files = fs.readdirSync(corpusDir).filter((name) => name.endsWith('.json')).sort();

function withoutMessages(derivation) {
  if (!derivation || !Array.isArray(derivation.problems)) return derivation;
  const problems = derivation.problems.map((p) => ({ path: p.path, code: p.code }));
  return { ...derivation, problems };
}

const cases = [];
for (const file of files) {
  const corpus = JSON.parse(fs.readFileSync(path.join(corpusDir, file), 'utf8'));
  const fileCases = corpus && Array.isArray(corpus.cases) ? corpus.cases : null;
  if (fileCases === null) {
    test(`${file} / (file)`, () => assert.fail(`${file} has no "cases" list`));
    continue;
  }
  for (const c of fileCases) cases.push({ file, c });
}

test('corpus has cases', () => {
  assert.ok(cases.length > 0, `no cases in ${corpusDir}/*.json`);
});

test('corpus case names are unique', () => {
  const seen = new Map();
  const repeats = [];
  for (const { file, c } of cases) {
    if (seen.has(c.name)) repeats.push(`${JSON.stringify(c.name)} in ${seen.get(c.name)} and ${file}`);
    else seen.set(c.name, file);
  }
  assert.deepEqual(repeats, []);
});

for (const { file, c } of cases) {
  test(`${file} / ${c.name}`, () => {
    const actual = derive(c.record, c.options || {});
    assert.deepStrictEqual(withoutMessages(actual), withoutMessages(c.expected));
  });
}

const identityCases = cases.filter(({ c }) => Array.isArray(c.step_refs));

test('the identity rule has cases', () => {
  assert.ok(identityCases.length >= 8, `${identityCases.length} identity cases`);
});

for (const { file, c } of identityCases) {
  test(`${file} / ${c.name} (step identities)`, () => {
    const derivation = derive(c.record, c.options || {});
    assert.deepStrictEqual(derivation.steps.map((step, index) => stepRef(derivation, index)), c.step_refs);
  });
}
