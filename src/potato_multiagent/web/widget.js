/*
 * widget.js: the small runtime every multiagent widget shares.
 *
 * A widget is one function, registered by name:
 *
 *     PotatoMultiagent.register('failure_attribution', function render(ctx) { ... });
 *
 * and the runtime calls it for every `form.multiagent-form[data-ma-widget=NAME]` on the page, on
 * DOMContentLoaded and again on Potato's `potato:instance-ready` (after Potato has reset the page's
 * inputs). The only channels to Potato are the form's hidden `.multiagent-input` (the stored JSON
 * string) and the form's attributes; the only input from the server is the form's `data-ma-config`
 * JSON and the page's `[data-instance-json]` record. See the API summary at the end of this file.
 *
 * DOM is built with createElement / textContent / setAttribute only: trace data is hostile.
 * Dependency-free UMD: in the page it sets window.PotatoMultiagent and starts; under CommonJS
 * (node tests) it exports the same object and touches no DOM.
 */
(function (root, factory) {
  'use strict';
  var isCommonJS = typeof module === 'object' && module !== null && module.exports;
  if (!isCommonJS && root && root.PotatoMultiagent) { return; } // loaded twice: keep the first
  var api = factory(root);
  if (isCommonJS) {
    module.exports = api;
  } else if (root) {
    root.PotatoMultiagent = api;
    api.start();
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (root) {
  'use strict';

  var FORM_SELECTOR = 'form.multiagent-form[data-ma-widget]';
  var HIDDEN_SELECTOR = 'input.multiagent-input';

  var widgets = Object.create(null);   // widget name -> render function
  var widgetOptions = Object.create(null);  // widget name -> {entryKey} (see register)
  var formStates = new WeakMap();     // form -> its state (see stateOf)
  var pageRecord = null;               // {raw, record, error, derivations: {optionsJSON: derivation}}
  var started = false;
  var firstPassDone = false;

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

  function setAttributes(node, attrs) {
    if (!attrs) { return node; }
    Object.keys(attrs).forEach(function (name) {
      var value = attrs[name];
      if (name === 'on') {
        Object.keys(value || {}).forEach(function (type) { node.addEventListener(type, value[type]); });
        return;
      }
      if (name === 'text') {
        node.textContent = value === null || value === undefined ? '' : String(value);
        return;
      }
      if (/^on/i.test(name)) {
        throw new Error('h(): event handler attribute "' + name + '" refused; use {on: {...}}');
      }
      if (value === null || value === undefined || value === false) { return; }
      node.setAttribute(name, value === true ? '' : String(value));
    });
    return node;
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

  // ---------------------------------------------------------------------------------------------
  // Pure helpers (also used by node tests)
  // ---------------------------------------------------------------------------------------------

  /** words.js (generated from types/_base/words.py): the problem words both sides say. */
  function problemWords() {
    var words = typeof module === 'object' && module !== null && module.exports
      ? require('./words.js') : root.PotatoMultiagentWords;
    if (!words) { throw new Error('words.js did not load (window.PotatoMultiagentWords is missing)'); }
    return words;
  }

  /** say('not_in_trace', {field, value}): a problem in the words of words.py. */
  function say(key, params) {
    var template = problemWords().words[key];
    if (typeof template !== 'string') { throw new Error('say(): no words for "' + key + '"'); }
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return params && Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole;
    });
  }

  /** The one wording for a stored mark the record does not contain (same as Python's). */
  function notInTrace(field, value) {
    return say('not_in_trace', {field: field, value: value});
  }

  /**
   * The one wording for a stored number above the bound its scheme's config sets (a score past
   * `scale`): same as Python's above_bound and as value_shape.js for a schema bound.
   */
  function aboveBound(field, value, bound) {
    return say('at_most', {field: field, limit: bound, got: value});
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
        if (root.console && typeof root.console.error === 'function') {
          root.console.error('multiagent: a pending edit could not be stored:', error);
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
    var shape = typeof module === 'object' && module !== null && module.exports
      ? require('./value_shape.js') : root.PotatoMultiagentShape;
    if (!shape) { throw new Error('value_shape.js did not load (window.PotatoMultiagentShape is missing)'); }
    return shape.checkShape(value, config && config.value_schema);
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

  // ---------------------------------------------------------------------------------------------
  // The record and its derivations: parsed once, derived once per options
  // ---------------------------------------------------------------------------------------------

  function readPageRecord() {
    var holder = document.querySelector('[data-instance-json]');
    var raw = holder ? holder.getAttribute('data-instance-json') : null;
    if (pageRecord && pageRecord.raw === raw) { return pageRecord; }
    var entry = {raw: raw, record: null, error: null, derivations: Object.create(null)};
    if (raw === null) {
      entry.error = 'This page has no trace data (no [data-instance-json] element).';
    } else {
      try {
        entry.record = JSON.parse(raw);
      } catch (error) {
        entry.error = 'The trace data on this page could not be read: ' + errorText(error);
      }
    }
    pageRecord = entry;
    return entry;
  }

  function derivationFor(entry, options) {
    var key = JSON.stringify(options);
    if (!(key in entry.derivations)) {
      var derive = root && root.PotatoMultiagentDerive && root.PotatoMultiagentDerive.derive;
      if (typeof derive !== 'function') {
        throw new Error('derive.js did not load (window.PotatoMultiagentDerive is missing)');
      }
      entry.derivations[key] = derive(entry.record, options);
    }
    return entry.derivations[key];
  }

  // ---------------------------------------------------------------------------------------------
  // Per-form state: elements, the last value we wrote, notices, the widget's own memory
  // ---------------------------------------------------------------------------------------------

  function currentInstanceId() {
    var input = document.getElementById('instance_id');
    return input ? String(input.value) : '';
  }

  function stateOf(form) {
    var state = formStates.get(form);
    if (state) { return state; }
    state = {
      form: form,
      schemaName: form.getAttribute('data-schema-name') || form.id || '',
      widgetName: form.getAttribute('data-ma-widget') || '',
      hidden: form.querySelector(HIDDEN_SELECTOR),
      body: form.querySelector('.ma-body') || form,
      summary: form.querySelector('.ma-summary'),
      noticeList: null,
      runtimeNotices: [],
      widgetNotices: [],
      lastWrite: null,        // {instanceId, raw}: what this page wrote, to survive Potato's reset
      widgetState: {},        // kept across renders for the widget (listeners wired once, ...)
      cleanup: null,
      wired: false,
      syncNotice: null,       // the polite status line "refreshed with another tab's changes"
      // What the server is known to hold for this item (base of the merge), what this page wrote
      // (its own saves read back are not another tab's), the read in flight, one more wanted.
      sync: {instanceId: null, base: '', ownWrites: [], inFlight: null, again: false}
    };
    formStates.set(form, state);
    return state;
  }

  /** Listeners the runtime owns on every form, added once. */
  function wireForm(state) {
    if (state.wired) { return; }
    state.wired = true;
    var form = state.form;
    // Potato binds Left/Right to Prev/Next on the document, selects included. Stop them here
    // (no preventDefault: the focused control keeps its native behaviour).
    form.addEventListener('keydown', function (event) {
      if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') { event.stopPropagation(); }
    });
    // Potato's keyup shortcuts toggle other schemes' checkboxes by letter; inside our selects a
    // letter is type-ahead, not a shortcut.
    form.addEventListener('keyup', function (event) {
      var tag = event.target && event.target.tagName;
      if (tag === 'SELECT' && typeof event.key === 'string' && event.key.length === 1) {
        event.stopPropagation();
      }
    });
    // The form has no action; Enter in a control must not post the page anywhere.
    form.addEventListener('submit', function (event) { event.preventDefault(); });
  }

  // -- notices: one list per form, runtime errors first, then what the widget reports ---------

  var NOTICE_PREFIX = {error: 'Error: ', warning: 'Warning: ', info: 'Note: '};
  var NOTICE_ICON = {error: '\u26D4', warning: '\u26A0', info: '\u2139'};

  function noticeListOf(state) {
    if (state.noticeList && state.noticeList.isConnected) { return state.noticeList; }
    var list = h('ul', {class: 'ma-notices', 'data-ma-notices': ''});
    var anchor = state.summary && state.summary.parentNode ? state.summary : null;
    if (anchor) {
      anchor.parentNode.insertBefore(list, anchor);
    } else if (state.body && state.body !== state.form && state.body.parentNode) {
      state.body.parentNode.insertBefore(list, state.body.nextSibling);
    } else {
      (state.form.querySelector('fieldset') || state.form).appendChild(list);
    }
    state.noticeList = list;
    return list;
  }

  function normaliseNotice(notice) {
    if (typeof notice === 'string') { return {level: 'warning', text: notice}; }
    var level = notice && NOTICE_PREFIX[notice.level] ? notice.level : 'warning';
    return {level: level, text: String(notice && notice.text !== undefined ? notice.text : notice)};
  }

  function paintNotices(state) {
    var notices = state.runtimeNotices.concat(state.widgetNotices);
    var list = noticeListOf(state);
    clear(list);
    list.hidden = notices.length === 0;
    notices.forEach(function (notice) {
      list.appendChild(h('li', {class: 'ma-notice ma-notice-' + notice.level,
        role: notice.level === 'error' ? 'alert' : null}, [
        h('span', {class: 'ma-notice-icon', 'aria-hidden': 'true', text: NOTICE_ICON[notice.level]}),
        h('span', {class: 'ma-notice-label', text: NOTICE_PREFIX[notice.level]}),
        h('span', {class: 'ma-notice-text', text: notice.text})
      ]));
    });
  }

  function showRuntimeError(state, message) {
    state.runtimeNotices = [{level: 'error', text: message}];
    state.widgetNotices = [];
    paintNotices(state);
    state.form.setAttribute('data-ma-error', message);
  }

  // -- the model: the hidden input is the widget's whole state ---------------------------------

  function makeModel(state) {
    var hidden = state.hidden;
    return {
      /** {raw, value, error}: the stored string, its parse (or null), a readable parse error. */
      get: function () {
        var raw = hidden.value;
        var parsed = parseStored(raw);
        return {raw: raw, value: parsed.value, error: parsed.error};
      },
      /** Store a value (null = nothing stored) and tell Potato, which autosaves ~500 ms later. */
      set: function (value) {
        var raw = value === null || value === undefined ? '' : JSON.stringify(value);
        state.lastWrite = {instanceId: currentInstanceId(), raw: raw};
        if (raw === hidden.value && hidden.hasAttribute('data-modified')) { return false; }
        writeOwn(state, raw);
        requestSync(state);
        return true;
      },
      /** A readable shortfall while incomplete (Potato's required check reads it), or null. */
      setIncomplete: function (reason) {
        if (reason) {
          state.form.setAttribute('data-incomplete-reason', String(reason));
        } else {
          state.form.removeAttribute('data-incomplete-reason');
        }
      },
      /** Say the current marks in words (the form's polite live region). */
      announce: function (text) {
        if (state.summary && state.summary.textContent !== String(text)) {
          state.summary.textContent = String(text);
        }
      }
    };
  }

  /** Write the hidden input and remember the string as this page's own (see reconcile). */
  function writeOwn(state, raw) {
    var own = state.sync.ownWrites;
    own.push(raw);
    if (own.length > OWN_WRITES_KEPT) { own.splice(0, own.length - OWN_WRITES_KEPT); }
    writeHidden(state.hidden, raw);
  }

  function writeHidden(hidden, raw) {
    hidden.value = raw;
    hidden.setAttribute('data-modified', 'true');
    hidden.dispatchEvent(new Event('change', {bubbles: true}));
  }

  /**
   * Potato's in-page reload (e.g. after a span is saved) empties every hidden input it did not
   * render itself, including one this page wrote for the same instance: put our value back.
   */
  function recoverFromReset(state) {
    var last = state.lastWrite;
    var hidden = state.hidden;
    if (!last || last.raw === '' || hidden.value !== '' || hidden.hasAttribute('data-modified')) { return; }
    if (last.instanceId !== currentInstanceId()) { return; }
    writeHidden(hidden, last.raw);
  }

  // ---------------------------------------------------------------------------------------------
  // Two tabs of one annotator: merge, never overwrite
  // ---------------------------------------------------------------------------------------------
  //
  // Potato stores one string per question, so a tab that writes its whole value would erase what
  // another tab saved meanwhile. After every edit, and when the tab comes back into view, the
  // runtime reads what Potato now holds for the item (GET /get_annotations, Potato 2.12.1's
  // per-instance read: label_values[schema][label] is the stored string) and, when another tab
  // changed it, applies this tab's edit to it as a change (mergeValues), stores the result,
  // redraws the widget and says so in a status line. Potato's own saves wait for that read.

  var OWN_WRITES_KEPT = 50;
  var SYNC_WAIT_MS = 1500;    // the longest a Potato save waits for a read in flight
  var latestRead = null;      // {instanceId, promise}: one read serves every form of the page
  var potatoRestored = false; // Potato has put the saved answers in (potato:instance-ready)

  /** The stored string is the server's (Potato's restore, not an edit): it is the merge base. */
  function trackServerValue(state) {
    var sync = state.sync;
    var instanceId = currentInstanceId();
    if (sync.instanceId !== instanceId) {
      sync.instanceId = instanceId;
      sync.ownWrites = [];
      sync.base = state.hidden.value;
    } else if (!state.hidden.hasAttribute('data-modified')) {
      sync.base = state.hidden.value;
    }
  }

  /** What Potato holds for this item and question: a string ('' = nothing), or undefined. */
  function readLatest(state, instanceId) {
    if (!latestRead || latestRead.instanceId !== instanceId) {
      var url = '/get_annotations?instance_id=' + encodeURIComponent(instanceId);
      var promise = root.fetch(url, {credentials: 'same-origin', cache: 'no-store',
        headers: {Accept: 'application/json'}})
        .then(function (response) { return response.ok ? response.json() : null; })
        .catch(function () { return null; });
      latestRead = {instanceId: instanceId, promise: promise};
      promise.then(function () { if (latestRead && latestRead.promise === promise) { latestRead = null; } });
    }
    var schema = state.hidden.getAttribute('schema') || state.schemaName;
    var label = state.hidden.getAttribute('label_name') || state.schemaName;
    return latestRead.promise.then(function (answer) {
      if (!answer || !isPlainObject(answer.label_values)) { return undefined; }
      var values = answer.label_values[schema];
      var value = isPlainObject(values) ? values[label] : undefined;
      return typeof value === 'string' ? value : '';
    });
  }

  /** Read the latest stored value and reconcile; one read per form at a time, one more if asked. */
  function requestSync(state) {
    var sync = state.sync;
    var instanceId = currentInstanceId();
    if (!state.hidden || !instanceId || typeof root.fetch !== 'function') { return Promise.resolve(); }
    if (sync.inFlight) { sync.again = true; return sync.inFlight; }
    sync.inFlight = readLatest(state, instanceId).then(function (latest) {
      if (latest !== undefined && instanceId === currentInstanceId() && sync.instanceId === instanceId) {
        reconcile(state, latest);
      }
    }).catch(function (error) {
      if (root.console && typeof root.console.error === 'function') {
        root.console.error('multiagent: merging with another tab failed:', error);
      }
    }).then(function () {
      sync.inFlight = null;
      if (sync.again) { sync.again = false; return requestSync(state); }
      return undefined;
    });
    return sync.inFlight;
  }

  /**
   * `latest` is what Potato holds; the base is the last value known to be there (read, or posted
   * by a save that Potato reported done). Equal to the base or to one of this page's own writes:
   * nobody else wrote. Otherwise apply this tab's edit (base -> current) to it, store, redraw, tell.
   * Values that are not JSON are never merged (nothing is rewritten that cannot be read).
   */
  function reconcile(state, latest) {
    var sync = state.sync;
    if (latest === sync.base || sync.ownWrites.indexOf(latest) >= 0) { sync.base = latest; return; }
    flushEdits();   // text typed while the read was out is part of this tab's edit
    var base = parseStored(sync.base);
    var mine = parseStored(state.hidden.value);
    var theirs = parseStored(latest);
    if (base.error || mine.error || theirs.error) { return; }
    var keyOf = (widgetOptions[state.widgetName] || {}).entryKey;
    var merged = mergeValues(base.value, mine.value, theirs.value, keyOf).value;
    var raw = merged === null ? '' : JSON.stringify(merged);
    sync.base = latest;
    if (raw === state.hidden.value) { return; }
    state.lastWrite = {instanceId: currentInstanceId(), raw: raw};
    writeOwn(state, raw);
    renderForm(state.form);
    tellRefreshed(state);
  }

  /** The visible, announced line saying this view now shows another tab's changes. */
  function tellRefreshed(state) {
    var line = syncNoticeOf(state);
    var time = new Date().toTimeString().slice(0, 8);
    line.textContent = 'Refreshed at ' + time + ': this question now also shows changes saved in ' +
      'another tab or window.';
    state.form.setAttribute('data-ma-refreshed', time);
  }

  function syncNoticeOf(state) {
    if (state.syncNotice && state.syncNotice.isConnected) { return state.syncNotice; }
    var line = h('div', {class: 'ma-sync-notice', role: 'status', 'aria-live': 'polite',
      'data-ma-sync-notice': ''});
    var anchor = state.summary && state.summary.parentNode ? state.summary : null;
    if (anchor) {
      anchor.parentNode.insertBefore(line, anchor);
    } else {
      (state.form.querySelector('fieldset') || state.form).appendChild(line);
    }
    state.syncNotice = line;
    return line;
  }

  function eachFormState(fn) {
    var forms = document.querySelectorAll(FORM_SELECTOR);
    for (var i = 0; i < forms.length; i++) {
      var state = formStates.get(forms[i]);
      if (state && state.hidden) { fn(state); }
    }
  }

  /** Back in view: store what is pending, then pick up what other tabs saved. Not before Potato
   * has restored the saved answers: until then the hidden inputs are not the server's yet. */
  function syncAll() {
    if (!potatoRestored) { return; }
    flushEdits();
    eachFormState(function (state) { requestSync(state); });
  }

  /** Resolves when every form's read in flight has settled, or after SYNC_WAIT_MS. */
  function settleSyncs() {
    var waiting = [];
    eachFormState(function (state) { if (state.sync.inFlight) { waiting.push(state.sync.inFlight); } });
    if (!waiting.length) { return Promise.resolve(); }
    return Promise.race([Promise.all(waiting), new Promise(function (resolve) {
      setTimeout(resolve, SYNC_WAIT_MS);
    })]);
  }

  // -- leaving the page: nothing typed is lost --------------------------------------------------

  /**
   * Potato 2.12.1 saves on its own beforeunload/visibilitychange (a beacon, only when a save is
   * pending) and before Next/Prev (saveAnnotations). Capture listeners run before Potato's, so a
   * flushed edit's `change` arms Potato's save in time; Potato's navigation and save functions
   * (globals, looked up by name at every call) are wrapped to flush first, and a save waits for
   * a merge read in flight so that it posts the merged value.
   */
  function guardLeaving() {
    root.addEventListener('pagehide', flushEdits, true);
    root.addEventListener('beforeunload', flushEdits, true);
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'hidden') { flushEdits(); } else { syncAll(); }
    }, true);
    document.addEventListener('submit', flushEdits, true);
    document.addEventListener('click', function (event) {
      var target = event.target;
      if (target && target.closest && target.closest('#next-btn, #prev-btn')) { flushEdits(); }
    }, true);
    root.addEventListener('focus', syncAll);
    root.addEventListener('pageshow', function (event) { if (event.persisted) { syncAll(); } });
  }

  function wrapPotatoSaves() {
    ['navigateToNext', 'navigateToPrevious', 'navigateToInstance'].forEach(function (name) {
      wrapGlobal(name, function (original, self, args) {
        flushEdits();
        return original.apply(self, args);
      });
    });
    wrapGlobal('saveAnnotations', function (original, self, args) {
      flushEdits();
      return settleSyncs().then(function () {
        var posted = postedValues();
        return Promise.resolve(original.apply(self, args)).then(function (saved) {
          if (saved === true) { posted.forEach(function (raw, state) { state.sync.base = raw; }); }
          return saved;
        });
      });
    });
  }

  /** The strings a Potato save is about to post for our forms (edited ones; Potato skips others). */
  function postedValues() {
    var posted = new Map();
    var instanceId = currentInstanceId();
    eachFormState(function (state) {
      if (state.hidden.hasAttribute('data-modified') && state.sync.instanceId === instanceId) {
        posted.set(state, state.hidden.value);
      }
    });
    return posted;
  }

  function wrapGlobal(name, around) {
    var original = root[name];
    if (typeof original !== 'function' || original.multiagentWrapped) { return; }
    var wrapped = function () { return around(original, this, arguments); };
    wrapped.multiagentWrapped = true;
    root[name] = wrapped;
  }

  // ---------------------------------------------------------------------------------------------
  // Rendering
  // ---------------------------------------------------------------------------------------------

  function renderForm(form) {
    var state = stateOf(form);
    try {
      wireForm(state);
      state.runtimeNotices = [];
      form.removeAttribute('data-ma-error');
      if (!state.hidden) {
        showRuntimeError(state, 'This widget has no hidden input (' + HIDDEN_SELECTOR + '); nothing can be saved.');
        return;
      }
      recoverFromReset(state);
      trackServerValue(state);
      syncNoticeOf(state);   // the live region exists before it speaks, so the refresh is announced
      var render = widgets[state.widgetName];
      if (typeof render !== 'function') {
        showRuntimeError(state, 'The script for the "' + state.widgetName + '" widget did not load, ' +
          'so this question cannot be shown. Your saved answer is kept.');
        return;
      }
      var config = readConfig(form);
      if (config.error) {
        showRuntimeError(state, 'The settings of this question could not be read (data-ma-config): ' +
          config.error);
        return;
      }
      config = config.value;
      var entry = readPageRecord();
      if (entry.error) {
        showRuntimeError(state, entry.error);
        return;
      }
      var derivation = derivationFor(entry, deriveOptions(config));
      if (typeof state.cleanup === 'function') {
        var cleanup = state.cleanup;
        state.cleanup = null;
        cleanup();
      }
      var result = render(makeContext(state, config, entry.record, derivation));
      if (typeof result === 'function') { state.cleanup = result; }
      paintNotices(state);
    } catch (error) {
      if (root.console && typeof root.console.error === 'function') {
        root.console.error('multiagent widget "' + state.widgetName + '" (' + state.schemaName + ') failed:', error);
      }
      showRuntimeError(state, 'This question could not be drawn: ' + errorText(error) +
        '. Your saved answer is kept.');
    } finally {
      markReady(state);
    }
  }

  /** The form's JSON config: {value} or {error} (a sentence), never a throw. */
  function readConfig(form) {
    var value;
    try {
      value = JSON.parse(form.getAttribute('data-ma-config') || '{}');
    } catch (error) {
      return {error: errorText(error)};
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return {error: 'expected a JSON object'};
    }
    return {value: value};
  }

  function makeContext(state, config, record, derivation) {
    return {
      model: makeModel(state),
      el: state.body,
      form: state.form,
      schemaName: state.schemaName,
      config: config,
      record: record,
      derivation: derivation,
      state: state.widgetState,
      setNotices: function (notices) {
        state.widgetNotices = (notices || []).map(normaliseNotice);
        paintNotices(state);
      }
    };
  }

  function markReady(state) {
    state.form.setAttribute('data-ma-ready', 'true');
    var perf = root.performance;
    if (perf && typeof perf.mark === 'function') {
      try { perf.mark('multiagent:ready:' + state.schemaName); } catch (ignored) { /* never fatal */ }
    }
  }

  /** Render every multiagent form on the page (or only those of one widget). */
  /** The runtime's per-form state of a form (runtime.js reads its summary, notices, hidden). */
  function formStateFor(form) { return stateOf(form); }

  // -- a type's marks.js: pure rules, shared by the page and node --------------------------------

  var marksByType = Object.create(null);

  /** What a marks.js receives: the pure helpers and the problem words (no DOM). */
  function marksLib() {
    var windowing = typeof module === 'object' && module !== null && module.exports
      ? require('./windowing.js') : root.PotatoMultiagentWindow;
    if (!windowing) { throw new Error('windowing.js did not load (window.PotatoMultiagentWindow is missing)'); }
    return {say: say, notInTrace: notInTrace, aboveBound: aboveBound, snippet: snippet, entryKey: entryKey,
      sameValue: sameValue, firstMeaningfulLine: windowing.firstMeaningfulLine,
      stepAgentWords: windowing.stepAgentWords};
  }

  /** marks(typeName, factory): a type's marks.js registers its pure rules (factory(lib) -> api). */
  function marks(typeName, factory) {
    var api = factory(marksLib());
    marksByType[typeName] = api;
    return api;
  }

  /** The pure rules a type's marks.js registered (its view.js and the node tests read them). */
  function marksOf(typeName) {
    var api = marksByType[typeName];
    if (!api) { throw new Error('the marks.js of "' + typeName + '" did not load before its view.js'); }
    return api;
  }

  function renderAll(widgetName) {
    var forms = document.querySelectorAll(FORM_SELECTOR);
    for (var i = 0; i < forms.length; i++) {
      if (widgetName && forms[i].getAttribute('data-ma-widget') !== widgetName) { continue; }
      renderForm(forms[i]);
    }
  }

  function firstPass() {
    firstPassDone = true;
    wrapPotatoSaves();   // annotation.js may come after this script: wrap once the page has loaded
    renderAll();
  }

  function register(widgetName, renderFn, options) {
    if (typeof widgetName !== 'string' || !widgetName) { throw new Error('register(): a widget name is required'); }
    if (typeof renderFn !== 'function') { throw new Error('register(): a render function is required'); }
    widgets[widgetName] = renderFn;
    widgetOptions[widgetName] = options || {};
    // A widget script that arrives after the first pass still draws its forms.
    if (firstPassDone && typeof document !== 'undefined') { renderAll(widgetName); }
  }

  // ---------------------------------------------------------------------------------------------
  // Potato's required-question banner, written as text
  // ---------------------------------------------------------------------------------------------

  /**
   * Potato 2.12.1's updateRequiredFieldsError (annotation.js, a global) writes each unanswered
   * question's legend text and data-incomplete-reason into the banner with innerHTML, so markup
   * in any scheme's description runs when Next is pressed (docs/security.md). The same banner,
   * built with textContent: installed once, only where Potato's function exists.
   */
  function guardRequiredBanner() {
    if (typeof root.updateRequiredFieldsError !== 'function' || root.updateRequiredFieldsError.multiagentText) {
      return;
    }
    var textBanner = function updateRequiredFieldsError(unfilledSchemas) {
      var banner = requiredBanner(unfilledSchemas.length > 0);
      if (!banner) { return; }
      if (unfilledSchemas.length === 0) { banner.style.display = 'none'; return; }
      clear(banner);
      var plural = unfilledSchemas.length > 1 ? 's' : '';
      appendChildren(banner, [h('i', {class: 'fas fa-exclamation-circle'}),
        ' Please answer the required question' + plural + ': ']);
      unfilledSchemas.forEach(function (schema, position) {
        appendChildren(banner, [position ? ', ' : null, h('strong', {text: schema.label}),
          schema.reason ? ' (' + schema.reason + ')' : null]);
      });
      banner.style.display = 'block';
    };
    textBanner.multiagentText = true;
    root.updateRequiredFieldsError = textBanner;
  }

  /** Potato's #required-fields-error (made where Potato makes it, when `create` and missing). */
  function requiredBanner(create) {
    var banner = document.getElementById('required-fields-error');
    var nav = document.querySelector('.potato-nav');
    if (banner || !create || !nav) { return banner; }
    banner = h('div', {id: 'required-fields-error', class: 'required-fields-error', role: 'alert'});
    nav.parentNode.insertBefore(banner, nav);
    return banner;
  }

  function start() {
    if (started || typeof document === 'undefined') { return; }
    started = true;
    guardRequiredBanner();
    guardLeaving();
    wrapPotatoSaves();
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', firstPass);
    } else {
      // Already loaded (script added late): let widget scripts loaded right after this one register.
      setTimeout(firstPass, 0);
    }
    document.addEventListener('potato:instance-ready', function () { potatoRestored = true; renderAll(); });
  }

  /*
   * Public API (window.PotatoMultiagent):
   *   register(widgetName, render[, options])
   *                                   render(ctx) is called on every render pass of each of the
   *                                   widget's forms; it may return a cleanup function, called
   *                                   before the next render of that form. options.entryKey(entry)
   *                                   names a stored list entry's identity for the two-tab merge
   *                                   (default: entryKey, from IDENTITY_FIELDS).
   *   ctx = {model, el, form, schemaName, config, record, derivation, state, setNotices}
   *     model.get() -> {raw, value, error}; model.set(valueOrNull); model.setIncomplete(reasonOrNull);
   *     model.announce(text); el = the form's .ma-body; state = a per-form object kept across
   *     renders; setNotices([{level: 'warning'|'error'|'info', text}]) shows lines under the body.
   *   renderAll([widgetName])         re-render now (tests, or after a dynamic change)
   *   h(tag, attrs, children), clear(node), snippet(text, max), notInTrace(field, value),
   *   aboveBound(field, value, bound),
   *   parseStored(raw), debounce(fn, ms), deriveOptions(config), checkValue(value, config),
   *   flushEdits()                    run every waiting debounce now (done before the page goes)
   *   mergeValues(base, mine, theirs[, keyOf]) -> {value, conflicts}, entryKey(entry)
   */
  return {
    version: '1',
    register: register,
    renderAll: renderAll,
    start: start,
    h: h,
    setAttributes: setAttributes,
    clear: clear,
    snippet: snippet,
    notInTrace: notInTrace,
    aboveBound: aboveBound,
    parseStored: parseStored,
    debounce: debounce,
    deriveOptions: deriveOptions,
    checkValue: checkValue,
    flushEdits: flushEdits,
    mergeValues: mergeValues,
    entryKey: entryKey,
    say: say,
    readChecked: readChecked,
    formState: formStateFor,
    renderForm: renderForm,
    marks: marks,
    marksOf: marksOf
  };
}));
