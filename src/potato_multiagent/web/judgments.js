/*
 * judgments.js: the one home of "which judgments does this record carry for this scheme" and "do
 * they show now" (docs/judgments.md). Every type's marks.js (through the marks lib, base.js) and the
 * trace view read judgments here; what a judgment *says* about a handoff, a call or a cell stays
 * with its type.
 *
 * A record carries the shown judgments as record[judgments_key][scheme] = [{source, value}], value in
 * the scheme's stored shape (an object or list, or the JSON text Potato would store). Records are
 * hostile input: anything not of that shape is left out, never thrown on.
 */
var DEFAULT_KEY = 'judgments';
var MODES = ['always', 'after_answer', 'never'];

function isMap(value) { return value !== null && typeof value === 'object' && !Array.isArray(value); }

function own(object, key) {
  return isMap(object) && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/** A judgment's value as stored: JSON text is parsed; unreadable text is undefined. */
function readValue(value) {
  if (typeof value !== 'string') { return value; }
  try { return JSON.parse(value); } catch (error) { return undefined; }
}

/**
 * The judgments `record` carries for scheme `schemeName` under config.judgments_key (default
 * "judgments"): [{source, value}] in the record's order, each with a text source and a value
 * that `accepts(value)` (the type's shape test; any value when omitted).
 */
function judgmentsOf(record, config, schemeName, accepts) {
  var key = config && typeof config.judgments_key === 'string' ? config.judgments_key : DEFAULT_KEY;
  var list = own(own(record, key), schemeName);
  if (!Array.isArray(list)) { return []; }
  var found = [];
  list.forEach(function (entry) {
    if (!isMap(entry) || typeof entry.source !== 'string') { return; }
    var value = readValue(entry.value);
    if (value === undefined || value === null || (accepts && !accepts(value))) { return; }
    found.push({source: entry.source, value: value});
  });
  return found;
}

/** config.show_judgments, or 'always' when unset or not one of the three. */
function showMode(config) {
  var mode = config && config.show_judgments;
  return MODES.indexOf(mode) >= 0 ? mode : 'always';
}

/**
 * Whether judgments show beside a control now: 'always'; 'never'; 'after_answer' once `answered`
 * (the type says what counts as the answer the judgment could anchor).
 */
function judgmentsShown(config, answered) {
  var mode = showMode(config);
  return mode === 'always' || (mode === 'after_answer' && Boolean(answered));
}

export {DEFAULT_KEY, isMap, readValue, judgmentsOf, showMode, judgmentsShown};
