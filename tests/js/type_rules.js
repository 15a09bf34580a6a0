/*
 * type_rules.js: a type's pure rules (its marks.js) under node, as its view gets them in the page:
 * importing marks.js registers them on the runtime (web/widget.js, 'potato-multiagent'), and
 * marksOf reads them back. For the node tests and the Python tests that run node.
 */
'use strict';
const path = require('node:path');
const core = require('../../src/potato_multiagent/web/widget.js');

const TYPES = path.join(__dirname, '..', '..', 'src', 'potato_multiagent', 'types');

/** The pure rules of type `typeName` (the marks.js of its folder, by default types/<typeName>/;
 * a type outside the package gives its folder), loaded once. */
function load(typeName, folder) {
  require(path.join(typeof folder === 'string' ? folder : path.join(TYPES, typeName), 'marks.js'));
  return core.marksOf(typeName);
}

module.exports = { load, core };
