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
  // The derivation options a scheme's config may set (SPEC §3); everything else in the config is
  // the widget's own business and must not split the derivation cache.
  var DERIVE_OPTION_KEYS = ['steps_key', 'agent_key', 'calls_key', 'resource_key', 'agents',
    'agent_qualifiers'];

  var widgets = Object.create(null);   // widget name -> render function
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

  /** The one wording for a stored mark the record does not contain (same as Python's). */
  function notInTrace(field, value) {
    return field + ": '" + String(value) + "' is not in this trace";
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

  /**
   * debounce(fn, ms): a function that runs fn once, ms after the last call. `.flush()` runs a
   * pending call now, `.cancel()` drops it, `.pending()` says whether one is waiting.
   */
  function debounce(fn, wait) {
    var timer = null;
    function run() { timer = null; fn(); }
    function debounced() {
      if (timer !== null) { clearTimeout(timer); }
      timer = setTimeout(run, wait);
    }
    debounced.flush = function () {
      if (timer !== null) { clearTimeout(timer); run(); }
    };
    debounced.cancel = function () {
      if (timer !== null) { clearTimeout(timer); timer = null; }
    };
    debounced.pending = function () { return timer !== null; };
    return debounced;
  }

  /** The derivation options out of a scheme config, in a fixed key order (stable cache key). */
  function deriveOptions(config) {
    var options = {};
    DERIVE_OPTION_KEYS.forEach(function (key) {
      if (config && Object.prototype.hasOwnProperty.call(config, key)) { options[key] = config[key]; }
    });
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
      wired: false
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
        writeHidden(hidden, raw);
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
  function renderAll(widgetName) {
    var forms = document.querySelectorAll(FORM_SELECTOR);
    for (var i = 0; i < forms.length; i++) {
      if (widgetName && forms[i].getAttribute('data-ma-widget') !== widgetName) { continue; }
      renderForm(forms[i]);
    }
  }

  function firstPass() {
    firstPassDone = true;
    renderAll();
  }

  function register(widgetName, renderFn) {
    if (typeof widgetName !== 'string' || !widgetName) { throw new Error('register(): a widget name is required'); }
    if (typeof renderFn !== 'function') { throw new Error('register(): a render function is required'); }
    widgets[widgetName] = renderFn;
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
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', firstPass);
    } else {
      // Already loaded (script added late): let widget scripts loaded right after this one register.
      setTimeout(firstPass, 0);
    }
    document.addEventListener('potato:instance-ready', function () { renderAll(); });
  }

  /*
   * Public API (window.PotatoMultiagent):
   *   register(widgetName, render)    render(ctx) is called on every render pass of each of the
   *                                   widget's forms; it may return a cleanup function, called
   *                                   before the next render of that form.
   *   ctx = {model, el, form, schemaName, config, record, derivation, state, setNotices}
   *     model.get() -> {raw, value, error}; model.set(valueOrNull); model.setIncomplete(reasonOrNull);
   *     model.announce(text); el = the form's .ma-body; state = a per-form object kept across
   *     renders; setNotices([{level: 'warning'|'error'|'info', text}]) shows lines under the body.
   *   renderAll([widgetName])         re-render now (tests, or after a dynamic change)
   *   h(tag, attrs, children), clear(node), snippet(text, max), notInTrace(field, value),
   *   parseStored(raw), debounce(fn, ms), deriveOptions(config), checkValue(value, config)
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
    parseStored: parseStored,
    debounce: debounce,
    deriveOptions: deriveOptions,
    checkValue: checkValue
  };
}));
