/*
 * node_shim.js: what the page's runtime gives a type's marks.js, under node (tests only; the page
 * never loads it). After `require('web/node_shim.js')`, `require('types/x/marks.js')` runs as in
 * the page (it calls PotatoMultiagent.marks) and `load('x')` returns the rules it registered.
 */
'use strict';
const path = require('node:path');
const core = require('./widget.js');

globalThis.PotatoMultiagent = core;

/** The pure rules of type `typeName` (its types/<typeName>/marks.js), loaded once. */
function load(typeName) {
  require(path.join(__dirname, '..', 'types', typeName, 'marks.js'));
  return core.marksOf(typeName);
}

module.exports = { load, core };
