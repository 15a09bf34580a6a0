/*
 * node_shim.js: what the page's runtime gives a type's marks.js, under node (tests only; the page
 * never loads it). After `require('web/node_shim.js')`, `require('types/x/marks.js')` runs as in
 * the page (it calls PotatoMultiagent.marks) and `load('x')` returns the rules it registered.
 */
'use strict';
const path = require('node:path');
const core = require('./widget.js');

globalThis.PotatoMultiagent = core;

/** The pure rules of type `typeName` (the marks.js of its folder, by default types/<typeName>/;
 * a type outside the package gives its folder), loaded once. */
function load(typeName, folder) {
  var own = typeof folder === 'string' ? folder : path.join(__dirname, '..', 'types', typeName);
  require(path.join(own, 'marks.js'));
  return core.marksOf(typeName);
}

module.exports = { load, core };
