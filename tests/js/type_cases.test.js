'use strict';
// The node half of the referee (issue 13): each type's cases.json "marks" cases run against that
// type's marks.js, which must report exactly the problems Python's validate_value reports
// (tests/unit/test_type_cases.py runs the same cases against Python). Words come from the same
// table on both sides (types/_base/words.py, generated into web/words.js).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..', '..', 'src', 'potato_multiagent');
const TYPES = path.join(PACKAGE, 'types');
const shim = require('./type_rules.js');
const { derive } = require(path.join(PACKAGE, 'web', 'derive.js'));
const { deriveOptionNames } = require(path.join(PACKAGE, 'web', 'words.js'));

/** A problem (a code and its parameters) as comparable text: its keys in order. */
function canonical(item) {
  assert.equal(typeof item, 'object', `a problem as data, not words: ${JSON.stringify(item)}`);
  const ordered = {};
  Object.keys(item).sort().forEach((key) => { ordered[key] = item[key]; });
  return JSON.stringify(ordered);
}

// Every type folder of the package, then the folders of types outside it named in
// OUTSIDE_TYPE_FOLDERS (path-separated; tests/e2e/test_outside_type.py runs this file with its
// type's folder): {name: folder}, the name from cases.json's "type".
const folders = {};
fs.readdirSync(TYPES).sort()
  .filter((name) => !name.startsWith('_') && fs.existsSync(path.join(TYPES, name, 'cases.json')))
  .forEach((name) => { folders[name] = path.join(TYPES, name); });
(process.env.OUTSIDE_TYPE_FOLDERS || '').split(path.delimiter).filter(Boolean).forEach((folder) => {
  const type = JSON.parse(fs.readFileSync(path.join(folder, 'cases.json'), 'utf8')).type;
  folders[type.replace(/^multiagent\./, '')] = path.resolve(folder);
});
const typeNames = Object.keys(folders);

/** The scheme config of a case as Python builds it, split like Scheme.widget_config does. */
function caseConfig(testCase) {
  const given = testCase.config || {};
  const config = { name: 'case', description: 'case', derive_options: {} };
  Object.keys(given).forEach((key) => {
    if (deriveOptionNames.includes(key)) { config.derive_options[key] = given[key]; } else { config[key] = given[key]; }
  });
  return config;
}

for (const name of typeNames) {
  const document = JSON.parse(fs.readFileSync(path.join(folders[name], 'cases.json'), 'utf8'));
  const markCases = document.cases.filter((c) => c.kind === 'marks');

  test(`${name}: cases.json has marks cases and a marks.js with problems()`, () => {
    assert.equal(document.type, `multiagent.${name}`);
    assert.ok(markCases.length > 0, `${name}/cases.json has no "marks" case`);
    assert.equal(typeof shim.load(name, folders[name]).problems, 'function');
  });

  for (const testCase of markCases) {
    test(`${name}: ${testCase.name}`, () => {
      const marks = shim.load(name, folders[name]);
      const config = caseConfig(testCase);
      const derivation = derive(document.records[testCase.record], config.derive_options);
      const found = marks.problems(testCase.value, derivation, config);
      // data (a code and its parameters) compared as data; the words follow from the one table
      assert.deepEqual(found.map(canonical).sort(), testCase.problems.map(canonical).sort());
    });
  }
}
