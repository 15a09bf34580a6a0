/*
 * base.js: what the widget runtime's parts share and node tests use, none of it tied to a form:
 * DOM builders (no HTML parsing), the problem words (words.js), text snippets, stored values,
 * the debounce that leaving the page flushes, the two-tab merge, and the registry of the types'
 * pure rules (marks.js). widget.js (the core), sync.js and runtime.js are built on it.
 */
import * as problemWords from './words.js';  // generated from types/_base/words.py
import * as shapeModule from './value_shape.js';
import * as deriveApi from './derive.js';
import * as windowingModule from './windowing.js';
import * as judgmentsModule from './judgments.js';

// ---------------------------------------------------------------------------------------------
// DOM helpers (no HTML parsing anywhere)
// ---------------------------------------------------------------------------------------------

/**
 * h('select', {class: 'x', id: 'y', on: {change: fn}}, [child, 'text', null, [more]])
 * Attributes go through setAttribute (null/undefined/false are skipped, true is ""), `text`
 * sets textContent, `on` adds listeners. Attribute names starting with "on" are refused: event
 * handler attributes are script.
 */
function h(tag, attrs, children) {
  var node = document.createElement(tag);
  setAttributes(node, attrs);
  appendChildren(node, children);
  return node;
}

var HANDLER_ATTRIBUTE = /^on/i;

/** attrs on node: `on` adds listeners, `text` sets the text, null/undefined/false leave an
 * attribute out, true writes it empty. A plain loop: the graph draws a thousand elements with it. */
function setAttributes(node, attrs) {
  if (!attrs) { return node; }
  var names = Object.keys(attrs);
  for (var i = 0; i < names.length; i++) { setAttribute(node, names[i], attrs[names[i]]); }
  return node;
}

function setAttribute(node, name, value) {
  if (name === 'on') {
    Object.keys(value || {}).forEach(function (type) { node.addEventListener(type, value[type]); });
  } else if (name === 'text') {
    node.textContent = value === null || value === undefined ? '' : String(value);
  } else if (HANDLER_ATTRIBUTE.test(name)) {
    throw new Error('h(): event handler attribute "' + name + '" refused; use {on: {...}}');
  } else if (value !== null && value !== undefined && value !== false) {
    node.setAttribute(name, value === true ? '' : String(value));
  }
}

function appendChildren(node, children) {
  if (children === null || children === undefined || children === false) { return node; }
  if (!Array.isArray(children)) { children = [children]; }
  children.forEach(function (child) {
    if (child === null || child === undefined || child === false) { return; }
    if (Array.isArray(child)) { appendChildren(node, child); return; }
    node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  });
  return node;
}

function clear(node) {
  while (node.firstChild) { node.removeChild(node.firstChild); }
  return node;
}

/**
 * A judgment's Accept (docs/judgments.md), one rule on every surface: "Accept SOURCE’s answer",
 * named "Accept SOURCE’s answer ABOUT"; while the value holds that judgment's answer (its
 * from_judgment names SOURCE) "Accepted", named "Accepted SOURCE’s answer ABOUT", with nothing left
 * to do: aria-disabled (not disabled, so it keeps the focus and its place in the Tab order), and a
 * press changes nothing. Not a toggle (aria-pressed): a toggle keeps its label, and a second press
 * would not take the judgment back. A hand edit drops from_judgment, and the button offers Accept
 * again. options: {source, accepted, onAccept(event)[, about][, noun: 'answer'][, short: 'Accept'
 * alone][, text: the visible words, when the judgment itself is the button][, attrs]}
 */
function acceptButton(options) {
  var button = h('button', Object.assign({type: 'button'}, options.attrs));
  button.classList.add('ma-accept');
  paintAccept(button, options);
  button.addEventListener('click', function (event) {
    if (!isAccepted(button) && options.onAccept) { options.onAccept(event); }
  });
  return button;
}

/** Whether an Accept says its judgment is the value's already (a press then changes nothing). */
function isAccepted(button) { return button.getAttribute('aria-disabled') === 'true'; }

/** An Accept's words and state painted again in place (a surface that keeps its buttons). */
function paintAccept(button, options) {
  var accepted = Boolean(options.accepted);
  var what = options.source + '\u2019s ' + (options.noun || 'answer');
  if (accepted) { button.setAttribute('aria-disabled', 'true'); } else { button.removeAttribute('aria-disabled'); }
  button.setAttribute('aria-label', (accepted ? 'Accepted ' : 'Accept ') + what + (options.about ? ' ' + options.about : ''));
  button.textContent = options.text || (accepted ? 'Accepted' : options.short ? 'Accept' : 'Accept ' + what);
}

/**
 * fn()'s result, its time on the page's performance timeline as a measure called `name` (the
 * derivation, a graph's layout): how the bench and the tests see work done inside the bundle.
 */
function measured(name, fn) {
  var perf = globalThis.performance;
  if (!perf || typeof perf.measure !== 'function') { return fn(); }
  var start = perf.now();
  try {
    return fn();
  } finally {
    try { perf.measure(name, {start: start}); } catch (ignored) { /* never fatal */ }
  }
}

/** A mark on the page's timeline (what the bench reads as a moment); never fatal. */
function markTime(name) {
  var perf = globalThis.performance;
  if (!perf || typeof perf.mark !== 'function') { return; }
  try { perf.mark(name); } catch (ignored) { /* never fatal */ }
}

var FRAME_WAIT_MS = 100;   // the longest afterNextFrame waits for a frame

/** fn once, in a task after the next frame (what was just drawn is painted first), or after
 * FRAME_WAIT_MS (a hidden page paints no frames). */
function afterNextFrame(fn) {
  var done = false;
  function once() { if (!done) { done = true; fn(); } }
  if (typeof globalThis.requestAnimationFrame === 'function') {
    globalThis.requestAnimationFrame(function () { setTimeout(once, 0); });
  }
  setTimeout(once, FRAME_WAIT_MS);
}

// ---------------------------------------------------------------------------------------------
// Pure helpers (also used by node tests)
// ---------------------------------------------------------------------------------------------

/** say('not_in_trace', {field, value}): a problem in the words of words.py. */
function say(key, params) {
  var template = problemWords.words[key];
  if (typeof template !== 'string') { throw new Error('say(): no words for "' + key + '"'); }
  return template.replace(/\{(\w+)\}/g, function (whole, name) {
    if (!params || !Object.prototype.hasOwnProperty.call(params, name)) { return whole; }
    var value = params[name];   // a list as Python's str() writes one of numbers: [1, 2]
    return Array.isArray(value) ? '[' + value.join(', ') + ']' : String(value);
  });
}

/** problem('not_configured', {field, value, key}): a problem as data, a code and its parameters
 * (words.py's problem); only words(problem) says it, from the one table. */
function problem(code, params) {
  if (typeof problemWords.words[code] !== 'string') { throw new Error('problem(): no words for "' + code + '"'); }
  var found = {code: code};
  Object.keys(params || {}).forEach(function (key) { found[key] = params[key]; });
  return found;
}

/** A problem in words (a text is already words). */
function words(found) {
  return typeof found === 'string' ? found : say(found.code, found);
}

/** A stored mark the record does not contain (same as Python's not_in_trace). */
function notInTrace(field, value) {
  return problem('not_in_trace', {field: field, value: value});
}

/**
 * The one wording for a stored number above the bound its scheme's config sets (a score past
 * `scale`): same as Python's above_bound and as value_shape.js for a schema bound.
 */
function aboveBound(field, value, bound) {
  return problem('at_most', {field: field, limit: bound, got: value});
}

var LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/g;

/**
 * The first non-blank line of `text`, whitespace runs collapsed to one space, cut to at most
 * `max` characters (code points, never half a surrogate pair) ending in "…" when cut.
 * Empty or blank text gives "". Never scans past the first non-blank line.
 */
function snippet(text, max) {
  if (typeof text !== 'string') { text = text === null || text === undefined ? '' : String(text); }
  if (!(max > 1)) { max = 80; }
  var line = firstNonBlankLine(text);
  if (line === '') { return ''; }
  // Only a bounded prefix is collapsed and measured: a 1 MB line costs no more than a short one.
  var limit = max * 4 + 8;
  var longer = line.length > limit;
  var collapsed = (longer ? line.slice(0, limit) : line).replace(/\s+/g, ' ').replace(/^ | $/g, '');
  if (!longer && afterCodePoints(collapsed, max) >= collapsed.length) { return collapsed; }
  return collapsed.slice(0, afterCodePoints(collapsed, max - 1)).replace(/ $/, '') + '\u2026';
}

/** The index just after the first `count` code points of `text` (or its length). */
function afterCodePoints(text, count) {
  var index = 0;
  for (var seen = 0; seen < count && index < text.length; seen++) {
    var unit = text.charCodeAt(index);
    var pair = unit >= 0xD800 && unit <= 0xDBFF && index + 1 < text.length;
    index += pair ? 2 : 1;
  }
  return index;
}

function firstNonBlankLine(text) {
  LINE_BREAK.lastIndex = 0;
  var start = 0;
  for (;;) {
    var match = LINE_BREAK.exec(text);
    var end = match ? match.index : text.length;
    var line = text.slice(start, end);
    if (/\S/.test(line)) { return line; }
    if (!match) { return ''; }
    start = LINE_BREAK.lastIndex;
  }
}

/** Parse a stored string: {value, error}; "" is nothing stored (value null, no error). */
function parseStored(raw) {
  if (raw === '' || raw === null || raw === undefined) { return {value: null, error: null}; }
  try {
    return {value: JSON.parse(raw), error: null};
  } catch (error) {
    return {value: null, error: 'not valid JSON (' + error.message + ')'};
  }
}

// Every debounced call still waiting, so that flushEdits() can run them all before the page
// goes away: typed text reaches the hidden input in time for Potato's own unload save.
var pendingEdits = new Set();

/**
 * debounce(fn, ms): a function that runs fn once, ms after the last call. `.flush()` runs a
 * pending call now, `.cancel()` drops it, `.pending()` says whether one is waiting. A waiting
 * call is also run by flushEdits() (on pagehide, beforeunload, hidden tab, Next/Prev, submit).
 */
function debounce(fn, wait) {
  var timer = null;
  function run() { timer = null; pendingEdits.delete(debounced); fn(); }
  function debounced() {
    if (timer !== null) { clearTimeout(timer); }
    timer = setTimeout(run, wait);
    pendingEdits.add(debounced);
  }
  debounced.flush = function () {
    if (timer !== null) { clearTimeout(timer); run(); }
  };
  debounced.cancel = function () {
    if (timer !== null) { clearTimeout(timer); timer = null; }
    pendingEdits.delete(debounced);
  };
  debounced.pending = function () { return timer !== null; };
  return debounced;
}

/** Run every waiting debounced edit now (one failing never stops the others). */
function flushEdits() {
  Array.from(pendingEdits).forEach(function (debounced) {
    try {
      debounced.flush();
    } catch (error) {
      pendingEdits.delete(debounced);
      if (typeof console !== 'undefined') {
        console.error('multiagent: a pending edit could not be stored:', error);
      }
    }
  });
}

/**
 * The derivation options of a scheme: config.derive_options, which the server computes from the
 * Python DeriveOptions model (the one list of option names), in sorted key order (a stable cache
 * key). A config without it derives with the defaults.
 */
function deriveOptions(config) {
  var given = config && isPlainObject(config.derive_options) ? config.derive_options : {};
  var options = {};
  Object.keys(given).sort().forEach(function (key) { options[key] = given[key]; });
  return options;
}

/**
 * Problems of a parsed stored value against the scheme's JSON Schema (config.value_schema, made
 * from the pydantic Value model on the server), as "field: what is wrong" lines.
 */
function checkValue(value, config) {
  return shapeModule.checkShape(value, config && config.value_schema);
}

/**
 * readChecked(model.get(), config) -> {value, unreadable}: the checked stored value (null when
 * nothing is stored), or a sentence saying why the stored string cannot be read (then value is
 * null and the string is kept until a control changes).
 */
function readChecked(got, config) {
  if (got.raw === '' || got.raw === null || got.raw === undefined) { return {value: null, unreadable: null}; }
  var problems = got.error ? [got.error] : checkValue(got.value, config);
  if (problems.length) {
    return {value: null, unreadable: 'The saved value could not be read: ' + problems.join('; ') +
      '. It is kept until you change one of the controls.'};
  }
  return {value: got.value, unreadable: null};
}

// -- merging two tabs' edits: a keyed three-way merge of stored values -------------------------

// The fields that name what a list entry is about (a handoff, a tool call, an edge), never what
// the annotator said about it: two entries with the same identity are the same thing.
var IDENTITY_FIELDS = ['id', 'index', 'step', 'from_step', 'position', 'from', 'to', 'tool', 'resource'];

/** JSON with object keys sorted, so equal values give equal strings whatever their key order. */
function stableJSON(value) {
  if (value === undefined) { return 'undefined'; }
  if (value === null || typeof value !== 'object') { return JSON.stringify(value); }
  if (Array.isArray(value)) { return '[' + value.map(stableJSON).join(',') + ']'; }
  return '{' + Object.keys(value).sort().map(function (key) {
    return JSON.stringify(key) + ':' + stableJSON(value[key]);
  }).join(',') + '}';
}

function sameValue(a, b) { return a === b || stableJSON(a) === stableJSON(b); }

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The identity of a list entry: its identity fields, else the whole entry (a set member). */
function entryKey(entry) {
  if (isPlainObject(entry)) {
    var identity = IDENTITY_FIELDS.filter(function (field) {
      return Object.prototype.hasOwnProperty.call(entry, field);
    }).map(function (field) { return [field, entry[field]]; });
    if (identity.length) { return 'id:' + stableJSON(identity); }
  }
  return 'value:' + stableJSON(entry);
}

/**
 * mergeValues(base, mine, theirs) -> {value, conflicts}: this tab's edit (base -> mine) applied
 * as a change to the value another tab saved (theirs). Objects merge key by key, lists entry by
 * entry (matched by entryKey, so a list of numbers is a set), anything else is one cell. A cell
 * both sides changed differently takes mine (the later edit) and counts as a conflict. Absent
 * (undefined) means "not there": a key one side removed and the other left alone is removed.
 */
function mergeValues(base, mine, theirs, keyOf) {
  var report = {conflicts: 0};
  var value = mergeCell(base, mine, theirs, keyOf || entryKey, report);
  return {value: value === undefined ? null : value, conflicts: report.conflicts};
}

function mergeCell(base, mine, theirs, keyOf, report) {
  if (sameValue(mine, theirs)) { return mine; }
  if (sameValue(mine, base)) { return theirs; }
  if (sameValue(theirs, base)) { return mine; }
  if (isPlainObject(mine) && isPlainObject(theirs)) {
    return mergeObjects(isPlainObject(base) ? base : {}, mine, theirs, keyOf, report);
  }
  if (Array.isArray(mine) && Array.isArray(theirs)) {
    var merged = mergeLists(Array.isArray(base) ? base : [], mine, theirs, keyOf, report);
    if (merged) { return merged; }
  }
  report.conflicts += 1;
  return mine;
}

function mergeObjects(base, mine, theirs, keyOf, report) {
  var result = {};
  var keys = Object.keys(mine).concat(Object.keys(theirs).filter(function (key) {
    return !Object.prototype.hasOwnProperty.call(mine, key);
  }));
  keys.forEach(function (key) {
    var value = mergeCell(own(base, key), own(mine, key), own(theirs, key), keyOf, report);
    // defineProperty: a key may be "__proto__" (a behaviour, an agent), which `=` would not store
    if (value !== undefined) {
      Object.defineProperty(result, key, {value: value, enumerable: true, writable: true, configurable: true});
    }
  });
  return result;
}

function own(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/** Entry-wise merge, mine's order then theirs' new entries; null when identities repeat. */
function mergeLists(base, mine, theirs, keyOf, report) {
  var byKey = [base, mine, theirs].map(function (list) { return entriesByKey(list, keyOf); });
  if (byKey.indexOf(null) >= 0) { return null; }
  var keys = byKey[1].order.concat(byKey[2].order.filter(function (key) { return !byKey[1].map.has(key); }));
  var result = [];
  keys.forEach(function (key) {
    var value = mergeCell(byKey[0].map.get(key), byKey[1].map.get(key), byKey[2].map.get(key), keyOf, report);
    if (value !== undefined) { result.push(value); }
  });
  return result;
}

function entriesByKey(list, keyOf) {
  var map = new Map();
  var order = [];
  for (var i = 0; i < list.length; i++) {
    var key = keyOf(list[i]);
    if (map.has(key)) { return null; }
    map.set(key, list[i]);
    order.push(key);
  }
  return {map: map, order: order};
}

function errorText(error) {
  if (error && typeof error.message === 'string' && error.message) { return error.message; }
  return String(error);
}


// -- saved step references (types/_base/refs.py, docs/step-references.md) ----------------------

/** The identity of step `index` of a derivation (derive.js), null when it has no such step. */
function stepRef(derivation, index) { return deriveApi.stepRef(derivation, index); }

/** Whether a reference saved with `ref` no longer names step `index` (none saved: never stale). */
function isStale(index, ref, derivation) {
  return typeof ref === 'string' && stepRef(derivation, index) !== ref;
}

function agentWords(agent) { return agent === null || agent === undefined ? say('no_agent') : agent; }

function whereWords(indices, derivation) {
  if (indices.length === 1) {
    return say('step_moved', {number: indices[0] + 1, agent: agentWords(derivation.steps[indices[0]].agent)});
  }
  if (indices.length) {
    return say('step_moved_among', {numbers: indices.map(function (index) { return '#' + (index + 1); }).join(', ')});
  }
  return say('step_lost');
}

/** The problem of one stored step reference, in the words of refs.py's step_problems: [] when
 * it names its step, not_in_trace past the end (saved without an identity), or stale. */
function stepProblems(field, index, ref, derivation) {
  var steps = derivation.steps;
  if (typeof ref !== 'string') { return index < steps.length ? [] : [notInTrace(field, index)]; }
  if (stepRef(derivation, index) === ref) { return []; }
  var where = whereWords(deriveApi.stepsWithRef(derivation, ref), derivation);
  if (index < steps.length) {
    return [problem('stale_step', {field: field, number: index + 1, ref: ref, now: agentWords(steps[index].agent),
      where: where})];
  }
  return [problem('stale_gone', {field: field, number: index + 1, ref: ref, where: where})];
}

function copyJSON(value) { return value === null || value === undefined ? value : JSON.parse(JSON.stringify(value)); }

/**
 * `value` with the identity of its step on each step reference (references(value, derivation)
 * lists them: {key, field, index, ref, set(index, ref), remove(copy)}, set writing into the value
 * it was listed from).
 * A reference without one takes what `previous` (the stored value) held for the same mark (key) at
 * the same index, else what `previous` held at that index for any mark, kept even when stale;
 * only a mark set or moved now gets its step's identity now. A reference whose widget moved its
 * index but carried the old identity along gets the new step's. The value itself when nothing is
 * to add, else a copy.
 */
function withRefs(references, value, previous, derivation) {
  if (value === null || value === undefined) { return value; }
  var byKey = Object.create(null);
  var byIndex = Object.create(null);   // index -> the one identity previous held there (null: several)
  if (previous !== null && previous !== undefined) {
    references(previous, derivation).forEach(function (reference) {
      if (typeof reference.ref !== 'string') { return; }
      byKey[reference.key] = reference;
      var held = byIndex[reference.index];
      byIndex[reference.index] = held === undefined || held === reference.ref ? reference.ref : null;
    });
  }
  function carried(reference) {
    var was = byKey[reference.key];
    return was !== undefined && was.index !== reference.index && was.ref === reference.ref;
  }
  var wanting = references(value, derivation).some(function (reference) {
    return typeof reference.ref !== 'string' || carried(reference);
  });
  if (!wanting) { return value; }
  var copy = copyJSON(value);
  references(copy, derivation).forEach(function (reference) {
    if (typeof reference.ref === 'string' && !carried(reference)) { return; }
    var was = byKey[reference.key];
    var ref = typeof reference.ref !== 'string' && was !== undefined && was.index === reference.index ? was.ref
      : typeof reference.ref !== 'string' && typeof byIndex[reference.index] === 'string' ? byIndex[reference.index]
        : stepRef(derivation, reference.index);
    reference.set(reference.index, ref);
  });
  return copy;
}

/**
 * The stale list's entries for a value's stale step references: the problem as text, Remove
 * (remove(value) of the reference: the value without that mark) and Re-point: to the one step
 * that now has the identity the mark was saved with, else to the step its index names now (the
 * annotator confirms it), else none. Both are computed when clicked.
 */
function staleReferenceEntries(references, value, derivation) {
  if (value === null || value === undefined) { return []; }
  return references(value, derivation).filter(function (reference) {
    return isStale(reference.index, reference.ref, derivation);
  }).map(function (reference) {
    var moved = deriveApi.stepsWithRef(derivation, reference.ref);
    var target = moved.length === 1 ? moved[0] : reference.index < derivation.steps.length ? reference.index : null;
    var entry = {text: words(stepProblems(reference.field, reference.index, reference.ref, derivation)[0]),
      remove: function () { return reference.remove(copyJSON(value)); }};
    if (target !== null) {
      entry.repoint = {label: target === reference.index ? 'Keep #' + (target + 1) + ' as it is now' : 'Re-point to #' + (target + 1),
        value: function () {
          var copy = copyJSON(value);
          var same = references(copy, derivation).filter(function (other) {
            return other.key === reference.key && other.index === reference.index;
          })[0];
          same.set(target, stepRef(derivation, target));
          return copy;
        }};
    }
    return entry;
  });
}

// -- a type's marks.js: pure rules, shared by the page and node --------------------------------

var marksByType = Object.create(null);

/** What a marks.js receives: the pure helpers, the problem words and the judgments' reading (no DOM). */
function marksLib() {
  var windowing = windowingModule;
  var judgments = judgmentsModule;
  return {say: say, problem: problem, words: words, notInTrace: notInTrace, aboveBound: aboveBound, snippet: snippet, entryKey: entryKey,
    stepRef: stepRef, isStale: isStale, stepProblems: stepProblems, withRefs: withRefs,
    staleReferenceEntries: staleReferenceEntries, sameValue: sameValue, firstMeaningfulLine: windowing.firstMeaningfulLine,
    stepAgentWords: windowing.stepAgentWords, checkValue: checkValue, pageBounds: windowing.pageBounds,
    formatCount: windowing.formatCount, judgmentsOf: judgments.judgmentsOf,
    judgmentsShown: judgments.judgmentsShown, isPlainObject: isPlainObject};
}

/** marks(typeName, factory): a type's marks.js registers its pure rules (factory(lib) -> api). */
function marks(typeName, factory) {
  var api = factory(marksLib());
  marksByType[typeName] = api;
  return api;
}

/** The pure rules of a type whose marks.js registered them, else null (the trace view asks any scheme's type). */
function registeredMarks(typeName) {
  return Object.prototype.hasOwnProperty.call(marksByType, typeName) ? marksByType[typeName] : null;
}

/** The pure rules a type's marks.js registered (its view.js and the node tests read them). */
function marksOf(typeName) {
  var api = marksByType[typeName];
  if (!api) { throw new Error('the marks.js of "' + typeName + '" did not load before its view.js'); }
  return api;
}

export {measured, markTime, afterNextFrame, h, setAttributes, appendChildren, clear, acceptButton, paintAccept, isAccepted, say, problem, words, notInTrace, aboveBound, snippet, parseStored, debounce, flushEdits, deriveOptions, checkValue, readChecked, isPlainObject, stableJSON, sameValue, entryKey, mergeValues, errorText, marks, marksOf, registeredMarks, stepRef, stepProblems, withRefs, staleReferenceEntries};
