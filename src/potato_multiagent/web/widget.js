/*
 * widget.js: the core of the runtime every multiagent widget shares: forms, the record and its
 * derivation, the store under the model (the hidden input), notices, Potato's banner. Built on
 * base.js (pure helpers, words, merge); it installs sync.js (two-tab merge, flush on leave),
 * saving.js, lazy.js and runtime.js (what a type's render pass gets: the model, ui).
 *
 * A type defines itself with define(name, {describe, render, ...}), imported from
 * 'potato-multiagent', and the core runs its render pass (runtime.js) for every
 * `form.multiagent-form[data-ma-widget=NAME]` on the page, on DOMContentLoaded and again on Potato's `potato:instance-ready` (after Potato has reset the page's
 * inputs); a widget that can describe its value without drawing (define's) is built only near the
 * screen and otherwise later (lazy.js). The only channels to Potato are the form's hidden
 * `.multiagent-input` (the stored JSON string) and the form's attributes; the only input from the
 * server is the form's `data-ma-config` JSON and the page's `[data-instance-json]` record. See the
 * API summary at the end of this file.
 *
 * Saving is Potato's (autosave of the hidden input after its `change`), through the page's one save
 * path (saving.js: one save in flight, retried until it succeeds, said on a status line, kept in
 * localStorage meanwhile).
 *
 * DOM is built with createElement / textContent / setAttribute only: trace data is hostile.
 * It is the module types import as 'potato-multiagent'; page.js makes it the page's one global and
 * starts it (imported under node, by the tests, it touches no DOM).
 */
import * as base from './base.js';
import * as deriveModule from './derive.js';
import {install as installSync} from './sync.js';
import {install as installSaving} from './saving.js';
import {install as installLazy} from './lazy.js';
import {install as installBanner} from './banner.js';
import {install as installRuntime} from './runtime.js';

var h = base.h;
var clear = base.clear;
var parseStored = base.parseStored;
var errorText = base.errorText;
var deriveOptions = base.deriveOptions;

var FORM_SELECTOR = 'form.multiagent-form[data-ma-widget]';
var HIDDEN_SELECTOR = 'input.multiagent-input';

var types = Object.create(null);   // type name -> {spec, stepActions} (see define)
var formStates = new WeakMap();     // form -> its state (see stateOf)
var pageRecord = null;               // {raw, record, error, derivations: {optionsJSON: derivation}}
var started = false;
var firstPassDone = false;

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

/**
 * {record, derivation} for a config's derive options, or {error}: every widget and the trace view
 * get theirs here, one parse per instance, one derivation per deriveOptions(config) key.
 */
function pageDerivation(config) {
  var entry = readPageRecord();
  if (entry.error) { return {error: entry.error}; }
  return {record: entry.record, derivation: derivationFor(entry, deriveOptions(config))};
}

function derivationFor(entry, options) {
  var key = JSON.stringify(options);
  if (!(key in entry.derivations)) {
    entry.derivations[key] = base.measured('multiagent:derive', function () { return deriveModule.derive(entry.record, options); });
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
    wired: false,
    view: null,             // runtime.js's memory of the form (its render passes, ui, stale list)
    // lazy.js: rendered once / asked for / its stand-in / its describe pass, waiting for a task of its own
    built: false, wanted: false, placeholder: null, describeLater: null,
    syncNotice: null,       // the form's one polite live region: what an action did, another tab's changes
    // What the server is known to hold for this item (base of the merge), every string this
    // page's saves posted for it (read back, they are not another tab's), the read in flight,
    // one more wanted.
    sync: {instanceId: null, base: '', posted: new Set(), inFlight: null, again: false}
  };
  formStates.set(form, state);
  return state;
}

/**
 * Potato binds Left/Right to Prev/Next on the document, selects and buttons included: a key
 * pressed inside `element` (a form of ours, the trace view) stops there. No preventDefault: the
 * focused control keeps its native behaviour.
 */
function keepArrows(element) {
  element.addEventListener('keydown', function (event) {
    if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') { event.stopPropagation(); }
  });
}

var ROVING_MOVES = {ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1, Home: 'first', End: 'last'};

/**
 * Roving tabindex: the drawn controls matching `selector` inside `group` are one Tab stop (the
 * one that had it, if still drawn, else `preferred`, else the first), and the arrow keys, Home and
 * End move focus among them (the keys stop in the group: Potato's Prev/Next never sees them).
 * Call again after the group's controls change; the key listener is added once per group.
 */
function oneTabStop(group, selector, preferred) {
  var all = group.querySelectorAll(selector);
  if (!all.length) { return; }
  var shown = drawnIn(group, selector);
  var keep = shown.filter(function (item) { return item.getAttribute('tabindex') === '0'; })[0] ||
    (preferred && shown.indexOf(preferred) >= 0 ? preferred : null) || shown[0] || all[0];
  Array.prototype.forEach.call(all, function (item) { item.setAttribute('tabindex', item === keep ? '0' : '-1'); });
  if (group.__maOneTabStop) { return; }
  group.__maOneTabStop = true;
  group.addEventListener('keydown', function (event) {
    var item = event.target.closest ? event.target.closest(selector) : null;
    if (!item || !group.contains(item) || !Object.prototype.hasOwnProperty.call(ROVING_MOVES, event.key) ||
        event.altKey || event.ctrlKey || event.metaKey) { return; }
    var drawn = drawnIn(group, selector);
    var move = ROVING_MOVES[event.key];
    var at = drawn.indexOf(item);
    var next = drawn[move === 'first' ? 0 : move === 'last' ? drawn.length - 1
      : Math.max(0, Math.min(drawn.length - 1, at + move))];
    event.preventDefault();
    event.stopPropagation();
    if (next && next !== item) {
      item.setAttribute('tabindex', '-1');
      next.setAttribute('tabindex', '0');
      next.focus();
    }
  });
}

function drawnIn(group, selector) {
  return Array.prototype.filter.call(group.querySelectorAll(selector), function (item) { return item.getClientRects().length > 0; });
}

/** Listeners the runtime owns on every form, added once. */
function wireForm(state) {
  if (state.wired) { return; }
  state.wired = true;
  var form = state.form;
  keepArrows(form);
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
  sayWhenRevealed(state);
}

/** Potato's display logic reveals a question by a class on its container, silently: when the
 * annotator's answer elsewhere reveals this form (focus is on a control, not the page loading),
 * its status line says so. */
function sayWhenRevealed(state) {
  var container = state.form.closest('[data-display-logic-target="true"]');
  if (!container || typeof MutationObserver !== 'function') { return; }
  var shown = container.classList.contains('display-logic-visible');
  new MutationObserver(function () {
    var now = container.classList.contains('display-logic-visible');
    var byAnnotator = document.activeElement && document.activeElement !== document.body;
    if (now && !shown && byAnnotator) {
      var legend = state.form.querySelector('legend');
      tellStatus(state, 'Question shown: ' + (legend ? legend.textContent.trim() : state.schemaName), false);
    }
    shown = now;
  }).observe(container, {attributes: true, attributeFilter: ['class']});
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

// -- the store: the hidden input is the form's whole state -----------------------------------

/** The raw store under the one model a type gets (runtime.js's model.get/set checks and paints on
 * top of it): the hidden input as text, the form's completeness and summary. */
function makeStore(state) {
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
      sync.writeOwn(state, raw);
      sync.requestSync(state);
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
    /** Show the current marks in words (the summary); said on the status line when the
     * annotator changed them from inside the form (a form drawn or restored says nothing). */
    announce: function (text) {
      if (state.summary && state.summary.textContent !== String(text)) {
        state.summary.textContent = String(text);
        if (state.form.contains(document.activeElement)) { tellStatus(state, String(text), true); }
      }
    }
  };
}

/**
 * The form's one polite live region (its status line, sync.js's syncNoticeOf: made before the
 * form first speaks). What one action made the form say is said once: a widget's own words
 * (ui.announce) win over the summary that changed with them in the same turn.
 */
function tellStatus(state, text, isSummary) {
  if (!state.pendingStatus) {
    var line = sync.syncNoticeOf(state);
    state.pendingStatus = {before: line.textContent};
    setTimeout(function () {
      var pending = state.pendingStatus;
      state.pendingStatus = null;
      // a line written meanwhile (sync.js: "Refreshed at ...") is not covered by the summary
      if (pending.own === undefined && line.textContent !== pending.before) { return; }
      var words = pending.own || pending.summary;   // an emptied line (a combobox closing) says nothing
      if (words) { line.textContent = words; }
    }, 0);
  }
  state.pendingStatus[isSummary ? 'summary' : 'own'] = text;
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

function eachFormState(fn) {
  var forms = document.querySelectorAll(FORM_SELECTOR);
  for (var i = 0; i < forms.length; i++) {
    var state = formStates.get(forms[i]);
    if (state && state.hidden) { fn(state); }
  }
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

function renderForm(form) {
  var state = stateOf(form);
  var deferred = false;
  try {
    wireForm(state);
    state.runtimeNotices = [];
    form.removeAttribute('data-ma-error');
    if (!state.hidden) {
      showRuntimeError(state, 'This widget has no hidden input (' + HIDDEN_SELECTOR + '); nothing can be saved.');
      return;
    }
    recoverFromReset(state);
    sync.trackServerValue(state);
    sync.syncNoticeOf(state);   // the live region exists before it speaks, so the refresh is announced
    var type = types[state.widgetName];
    if (!type) {
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
    var page = pageDerivation(config);
    if (page.error) {
      showRuntimeError(state, page.error);
      return;
    }
    var ctx = makeContext(state, config, page.record, page.derivation);
    if (lazy.defers(state)) {   // not built yet: only described
      deferred = true;
      lazy.describe(state, function () { runtime.describePass(type.spec, ctx); });
      return;
    }
    runtime.renderPass(type.spec, ctx);
    paintNotices(state);
  } catch (error) {
    if (typeof console !== 'undefined') {
      console.error('multiagent widget "' + state.widgetName + '" (' + state.schemaName + ') failed:', error);
    }
    showRuntimeError(state, 'This question could not be drawn: ' + errorText(error) +
      '. Your saved answer is kept.');
  } finally {
    if (!deferred) { markReady(state); }
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

/** The page's schemes, [{name, widget, config, form}]; a form whose config is unreadable shows its own error. */
function pageSchemes() {
  var schemes = [];
  document.querySelectorAll('form[data-ma-widget][data-ma-config]').forEach(function (form) {
    var config = readConfig(form);
    if (config.error) { return; }
    schemes.push({name: form.getAttribute('data-schema-name'), widget: form.getAttribute('data-ma-widget'),
      config: config.value, form: form});
  });
  return schemes;
}

/** What the runtime's passes get of a form: its raw store (the hidden input), its elements, config,
 * record and derivation, and the core's state of it (formState: the runtime keeps its memory there). */
function makeContext(state, config, record, derivation) {
  return {
    store: makeStore(state),
    formState: state,
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
  base.markTime('multiagent:ready:' + state.schemaName);
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
  saving.wrapPotato();   // annotation.js may come after this script: wrap once the page has loaded
  saving.makeStatusLine();
  lazy.wrapPotato();
  if (lazy.potatoOnPage()) { renderAll(); } else { itemShown(); }   // else Potato shows the item later
}

var shownClients = [];   // onItemShown

/** The page shows an item (Potato's instance-ready; the first pass on a page without Potato's
 * annotation script): the forms are drawn (lazy.js builds those in view), then, each in a task of
 * its own, what else is drawn per item (the trace view): one lifecycle for all of the page. */
function itemShown() {
  lazy.itemShown(renderAll);
  shownClients.forEach(function (fn) { setTimeout(fn, 0); });
}

/** define(name, {describe, render[, entryKey][, stepActions][, prepare][, references]}): a type on the
 * runtime (runtime.js says what each part does; docs/writing-a-scheme.md). A type whose script
 * arrives after the first pass still draws its forms. */
function define(name, spec) {
  if (typeof name !== 'string' || !name) { throw new Error('define(): a type name is required'); }
  if (!spec || typeof spec.describe !== 'function' || typeof spec.render !== 'function') {
    throw new Error('define("' + name + '"): describe(value, ctx) and render({...}) are required');
  }
  types[name] = {spec: spec, stepActions: runtime.declare(name, spec)};
  if (firstPassDone && typeof document !== 'undefined') { renderAll(name); }
}

function start() {
  if (started || typeof document === 'undefined') { return; }
  started = true;
  banner.guardRequiredBanner();
  sync.watchReturns();
  saving.guard();
  saving.wrapPotato();
  lazy.wrapPotato();
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', firstPass);
  } else {
    // Already loaded (script added late): let the type scripts loaded right after this one define.
    setTimeout(firstPass, 0);
  }
  runtime.start();
  document.addEventListener('potato:instance-ready', function () { sync.markRestored(); itemShown(); });
}

// The two-tab merge and the guards on leaving the page (sync.js), wired to this core.
var sync = installSync({
  currentInstanceId: currentInstanceId,
  renderForm: renderForm,
  writeHidden: writeHidden,
  eachFormState: eachFormState,
  keyOf: function (state) { return types[state.widgetName] ? types[state.widgetName].spec.entryKey : undefined; },
  ensureSaved: function () { saving.ensureSaved(); }
});

// The page's one save path (saving.js), wired to this core and to the merge.
var saving = installSaving({
  base: base,
  currentInstanceId: currentInstanceId,
  wrapGlobal: sync.wrapGlobal,
  beforeSave: sync.beforeSave,
  noteSent: sync.noteSent,
  noteSaved: sync.noteSaved,
  restoreOwn: restoreOwn
});

/** A kept answer for one of our hidden inputs, put back as this page's edit and drawn; false when
 * the input is not one of our forms'. */
function restoreOwn(hidden, raw) {
  var form = hidden.closest ? hidden.closest(FORM_SELECTOR) : null;
  if (!form || form.querySelector(HIDDEN_SELECTOR) !== hidden) { return false; }
  var state = stateOf(form);
  state.lastWrite = {instanceId: currentInstanceId(), raw: raw};
  sync.writeOwn(state, raw);
  renderForm(form);
  return true;
}

// Potato's required-question banner, written as text (banner.js).
var banner = installBanner(base);

// Build a form when it comes into view (lazy.js), wired to this core.
var lazy = installLazy({
  base: base,
  renderForm: renderForm,
  eachFormState: eachFormState,
  wrapGlobal: sync.wrapGlobal,
  stepActionsOf: function (state) { return types[state.widgetName] ? types[state.widgetName].stepActions : []; }
});

// define()'s half: what a type's render pass gets (model, ui), painting what describe() says
// (runtime.js), wired to this core; it keeps its memory of a form in the form's state.
var runtime = installRuntime({
  pageSchemes: pageSchemes,
  pageDerivation: pageDerivation,
  renderForm: renderForm,
  eachFormState: eachFormState,
  bodyOf: function (form) { return stateOf(form).body; },
  buildFor: function (wanted) { lazy.buildFor(wanted); },
  tellStatus: function (state, text) { tellStatus(state, String(text), false); }
});

/*
 * API (what 'potato-multiagent' exports; window.PotatoMultiagent in the page):
 *   define(name, spec)              a type on the runtime (runtime.js: spec, model, ui)
 *   stepButton(action) -> {label, applies(row)} | null   a step action a type offers as a button
 *   textLimit                       the most characters a note or reason holds
 *   renderAll([widgetName])         re-render now (tests, or after a dynamic change)
 *   pageDerivation(config) -> {record, derivation} | {error}   (shared with the trace view)
 *   onItemShown(fn)                 fn() in a task of its own each time the page shows an item, after
 *                                   the forms are drawn (the trace view's lifecycle is the forms')
 *   pageSchemes() -> [{name, widget, config, form}]   the page's forms and their configs (the trace view's judgments)
 *   h(tag, attrs, children), clear(node), snippet(text, max), notInTrace(field, value),
 *   aboveBound(field, value, bound),
 *   acceptButton({source, accepted, onAccept, ...}), paintAccept(button, {...}), isAccepted(button)
 *                                   a judgment's Accept, one rule on every surface (base.js)
 *   parseStored(raw), debounce(fn, ms), deriveOptions(config), checkValue(value, config),
 *   flushEdits()                    run every waiting debounce now (done before the page goes)
 *   keepArrows(element)             Left/Right inside element never reach Potato's Prev/Next
 *   oneTabStop(group, selector[, preferred])  the group's controls are one Tab stop, arrows move among them
 *   tellStatus(form, text)          say `text` on the form's one live region (its status line)
 *   mergeValues(base, mine, theirs[, keyOf]) -> {value, conflicts}, entryKey(entry)
 *   marks(typeName, factory(lib)), marksOf(typeName), registeredMarks(typeName)   a type's pure rules (base.js)
 *   measured(name, fn)              fn()'s time as a measure on the page's timeline (base.js)
 *   markTime(name)                  a mark on the page's timeline (base.js)
 *   afterNextFrame(fn)              fn() in a task after the next frame: what was drawn is painted first
 *   traceParts                      the parts types add to the trace view, by type (a type's trace.js)
 *   formatCount, countAround, timeWindowEnd (windowing.js), judgmentsShown, judgmentsOf, showMode
 *                                   (judgments.js): what types use of the core's modules
 */
export {define, renderAll, renderForm, pageDerivation, pageSchemes, start, keepArrows, oneTabStop};
export {h, setAttributes, clear, acceptButton, paintAccept, isAccepted, snippet, notInTrace, aboveBound, say,
  parseStored, debounce, deriveOptions, checkValue, readChecked, flushEdits, mergeValues, entryKey, marks, marksOf,
  registeredMarks, measured, markTime, afterNextFrame} from './base.js';
export {formatCount, countAround, timeWindowEnd} from './windowing.js';
export {judgmentsShown, judgmentsOf, showMode} from './judgments.js';

export const textLimit = runtime.textLimit;

/** A step action a type offers as a button: {label, applies(row)} | null (runtime.js). */
export function stepButton(action) { return runtime.stepButton(action); }

/** fn() in a task of its own each time the page shows an item, after the forms are drawn. */
export function onItemShown(fn) { shownClients.push(fn); }

/** Say `text` on the form's one live region (its status line). */
function tellFormStatus(form, text) { tellStatus(stateOf(form), String(text), false); }
export {tellFormStatus as tellStatus};

/** The parts types add to the trace view (a type's trace.js registers itself here by its name;
 * web/trace_view_rows.js traceParts reads them). */
export const traceParts = Object.create(null);
