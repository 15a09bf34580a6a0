/*
 * runtime.js: the widget runtime a type's view.js is written on (in the spirit of anywidget).
 *
 *     import {define} from 'potato-multiagent';
 *     define('failure_attribution', {
 *       describe: function (value, ctx) { return {summary, incomplete, notices, stale}; },
 *       render: function ({model, el, derivation, config, record, ui}) { ... }
 *     });
 *
 * describe() is pure (it lives in the type's marks.js); render() builds and wires the DOM. The
 * runtime does the rest for every type the same way: it reads and checks the stored value
 * (model.get), stores edits through widget.js's merge path (model.set -> hidden input, `change`,
 * two-tab merge), paints what describe() says (summary, data-incomplete-reason, notices, the
 * stale list), keeps focus across re-renders (data-ma-focus), flushes typing before the page goes
 * (ui.debounce) and carries the step events of the trace view (ui.stepLink, ui.onStepAction).
 * It is the core's own (widget.js installs it, as it installs sync.js and lazy.js): one define
 * contract, one model per form, and the form's memory kept in the core's one per-form state
 * (state.view). install(core) -> {declare, renderPass, describePass, stepButton, start};
 * core = {pageSchemes, pageDerivation, renderForm, buildFor(wanted), eachFormState,
 * tellStatus(state, text)}. The API types use is at the end of this file and in
 * docs/writing-a-scheme.md.
 */
import * as base from './base.js';
import * as windowing from './windowing.js';
import * as paging from './pager.js';
import {maxText} from './words.js';

var FOCUS_KEY = 'data-ma-focus';
var TEXT_LIMIT = maxText;   // types/_base/scheme.py MAX_TEXT
var HOOK = 'data-ma';
var SHOW_STEP = 'multiagent:show-step';
var STEP_ACTION = 'multiagent:step-action';
var TRACE_VIEW = 'section.ma-trace';

export function install(core) {
  var prepares = Object.create(null);   // widget name -> its spec.prepare (see prepareUnbuilt)
  var stepButtons = Object.create(null);   // step action -> {label, applies(row)} (see stepButton)

  /** What define(name, spec) records here (the core keeps the spec): its prepare and the buttons of
   * its step actions; the names of the actions its forms take (offered before a form is built). */
  function declare(name, spec) {
    if (typeof spec.prepare === 'function') { prepares[name] = spec.prepare; }
    return (spec.stepActions || []).map(function (action) {
      if (typeof action === 'string') { return action; }
      stepButtons[action.action] = {label: String(action.label),
        applies: typeof action.applies === 'function' ? action.applies : function () { return true; }};
      return action.action;
    });
  }

  /** The trace view's button for a step action a defined type labelled ({label, applies(row)}), else
   * null (an action without a button is dispatched by the view's own controls, e.g. mode chips). */
  function stepButton(action) {
    return Object.prototype.hasOwnProperty.call(stepButtons, action) ? stepButtons[action] : null;
  }

  /**
   * spec.prepare({derivation, config, el}) of every form not built yet, in a task of its own after the
   * page's first pass: Potato is then still waiting for the server before it shows the item, so the
   * build that shows it finds that work done (the graph's layout and drawing; docs/performance.md). Pure work
   * the widget caches itself: a form built before this task computes it in its render, as before.
   */
  function prepareUnbuilt() {
    core.pageSchemes().forEach(function (scheme) {
      var prepare = prepares[scheme.widget];
      if (!prepare || scheme.form.hasAttribute('data-ma-ready')) { return; }
      var page = core.pageDerivation(scheme.config);
      if (page.error) { return; }   // the form says so when it is drawn
      try {
        prepare({derivation: page.derivation, config: scheme.config, el: core.bodyOf(scheme.form)});
      } catch (error) {   // never fatal: the render does the same work and reports what fails
        if (typeof console !== 'undefined') { console.error('multiagent: preparing "' + scheme.name + '" failed:', error); }
      }
    });
  }

  function prepareAfterFirstPass() { setTimeout(prepareUnbuilt, 0); }

  /** The runtime's memory of a form, in the core's per-form state (ctx.formState), kept across
   * render passes; the form and the type's memory are the pass's (mount.ctx). */
  function mountOf(ctx) {
    var state = ctx.formState;
    if (!state.view) {
      state.view = {debounced: [], listeners: [], stepActions: [], staleList: null, ctx: null};
    }
    return state.view;
  }

  /**
   * One render pass (page load, Potato's instance-ready, a merge from another tab, a Remove):
   * store pending typing first, render the view, paint the description of the stored value,
   * put the focus back where it was.
   */
  function renderPass(spec, ctx) {
    var mount = mountOf(ctx);
    mount.debounced.forEach(function (debounced) { debounced.flush(); });
    var focusKey = savedFocus(ctx.form);
    mount.ctx = ctx;
    mount.spec = spec;
    mount.listeners = [];
    mount.stepActions = [];
    mount.traceOnPage = !!document.querySelector(TRACE_VIEW);   // once per pass, for every ui.stepLink
    var model = makeModel(mount);
    var ui = makeUi(mount, model);
    spec.render({model: model, el: ctx.el, derivation: ctx.derivation, config: ctx.config, record: ctx.record,
      schemaName: ctx.schemaName, ui: ui});
    var stored = model.get();
    paint(mount, stored.value, stored.unreadable);
    restoreFocus(ctx.form, focusKey);
  }

  /**
   * A form not built yet (web/lazy.js): describe() of the stored value is painted all the same
   * (summary, data-incomplete-reason that Potato's required check reads, notices), but not the
   * stale list: its Remove buttons would be rebuilt under the pointer or focus that builds the form.
   */
  function describePass(spec, ctx) {
    var mount = mountOf(ctx);
    mount.ctx = ctx;
    mount.spec = spec;
    var stored = makeModel(mount).get();
    paint(mount, stored.value, stored.unreadable, true);
  }

  // -- the model --------------------------------------------------------------------------------

  function makeModel(mount) {
    var model = {
      /**
       * {value, unreadable, raw, stored}: the checked stored value (null = nothing), or why it is
       * unreadable; stored is the unchecked read {raw, value, error} (for lists kept entry by entry).
       */
      get: function () {
        var got = mount.ctx.store.get();
        var checked = base.readChecked(got, mount.ctx.config);
        return {value: checked.value, unreadable: checked.unreadable, raw: got.raw, stored: got};
      },
      /** Store a value (null = nothing) through the merge path, paint its description, tell listeners. */
      set: function (value) {
        value = withIdentities(mount, value === undefined ? null : value);
        mount.ctx.store.set(value);
        paint(mount, value, null);
        mount.listeners.slice().forEach(function (listener) { listener(value); });
      },
      /** on('change', fn): fn(value) after every model.set of this render pass. */
      on: function (event, listener) {
        if (event !== 'change') { throw new Error('model.on(): only "change" is known, got "' + event + '"'); }
        mount.listeners.push(listener);
      }
    };
    return model;
  }

  /**
   * The value to store, its step references with the identity of their step (base.withRefs): a
   * mark the stored value already had at that index keeps the identity it was saved with (stale or
   * not: only Re-point or --rebase moves it); a mark set or moved now gets its step's.
   */
  function withIdentities(mount, value) {
    var references = mount.spec.references;
    if (!references || value === null) { return value; }
    var stored = base.readChecked(mount.ctx.store.get(), mount.ctx.config);
    return base.withRefs(references, value, stored.value, mount.ctx.derivation);
  }

  /** What describe() says about a value, painted: summary, completeness, notices, stale list (not
   * while the form is not built: `withoutStale`). */
  function paint(mount, value, unreadable, withoutStale) {
    var ctx = mount.ctx;
    var said = mount.spec.describe(value, {derivation: ctx.derivation, config: ctx.config, record: ctx.record,
      unreadable: unreadable, stored: ctx.store.get()}) || {};
    ctx.store.announce(said.summary || '');
    ctx.store.setIncomplete(said.incomplete || null);
    ctx.setNotices(said.notices || []);
    if (!withoutStale) { paintStale(mount, said.stale || [], said.removeAllStale); }
  }

  // -- the "saved but not in this trace" list -----------------------------------------------------

  var STALE_LISTED = 20;   // marks named one by one before "and N more" (the DOM stays bounded)

  /**
   * The one stale list: stale = [{text, remove[, repoint]}] from describe(), where remove is the
   * value without that mark (or a function giving it; a Remove button stores it) or absent (kept, no
   * button), and repoint = {label, value} (value or function) moves a stale step reference (a
   * Re-point button labelled `label` stores it); removeAllStale, when describe() gives it, is the
   * value without any of them (a "Remove all" button stores it when there are two or more). Hidden
   * when empty.
   */
  function paintStale(mount, stale, removeAll) {
    var list = staleListOf(mount);
    base.clear(list.items);
    list.box.hidden = stale.length === 0;
    stale.slice(0, STALE_LISTED).forEach(function (entry, position) {
      var remove = entry.remove === undefined ? null : base.h('button', {type: 'button', class: 'ma-button',
        'data-ma': 'stale-remove', 'aria-label': 'Remove saved mark: ' + entry.text, text: 'Remove',
        on: {click: function () {
          removeStale(mount, valueOf(entry.remove), 'Removed: ' + entry.text + '.', position);
        }}});
      var repoint = !entry.repoint ? null : base.h('button', {type: 'button', class: 'ma-button',
        'data-ma': 'stale-repoint', 'aria-label': entry.repoint.label + ': ' + entry.text, text: entry.repoint.label,
        on: {click: function () {
          removeStale(mount, valueOf(entry.repoint.value), entry.repoint.label + ': ' + entry.text + '.', position);
        }}});
      list.items.appendChild(base.h('li', {class: 'ma-stale-item', 'data-ma': 'stale-item'},
        [base.h('span', {text: entry.text}), remove ? ' ' : null, remove, repoint ? ' ' : null, repoint]));
    });
    if (stale.length > STALE_LISTED) {
      list.items.appendChild(base.h('li', {class: 'ma-stale-item', text: 'and ' + (stale.length - STALE_LISTED) + ' more.'}));
    }
    list.removeAll.hidden = removeAll === undefined || stale.length < 2;
    list.removeAll.onclick = list.removeAll.hidden ? null : function () {
      removeStale(mount, removeAll, 'Removed ' + stale.length + ' saved marks not in this trace.', 0);
    };
  }

  function valueOf(given) { return typeof given === 'function' ? given() : given; }

  /** Store the value without the mark(s) (or with it re-pointed), re-render, and keep the focus in
   * the list: the Remove at the same place, else the form's first control that keeps focus across renders. */
  function removeStale(mount, value, words, position) {
    makeModel(mount).set(value);
    announce(mount, words);
    core.renderForm(mount.ctx.form);   // the view shows the value without the mark
    var left = staleListOf(mount).items.querySelectorAll('[data-ma=stale-remove]');
    var next = left.length ? left[Math.min(position, left.length - 1)] : mount.ctx.form.querySelector('[' + FOCUS_KEY + ']');
    if (next) { next.focus(); }
  }

  function staleListOf(mount) {
    if (mount.staleList && mount.staleList.box.isConnected) { return mount.staleList; }
    var items = base.h('ul', {class: 'ma-stale-items'});
    var removeAll = base.h('button', {type: 'button', class: 'ma-button', 'data-ma': 'stale-remove-all', hidden: true,
      text: 'Remove all saved marks not in this trace'});
    var box = base.h('div', {class: 'ma-stale-list', 'data-ma': 'stale-list', hidden: true}, [
      base.h('p', {class: 'ma-stale-title', text: 'Saved but not in this trace'}), items, removeAll]);
    var el = mount.ctx.el;
    if (el.parentNode && el !== mount.ctx.form) {
      el.parentNode.insertBefore(box, el.nextSibling);
    } else {
      el.appendChild(box);
    }
    mount.staleList = {box: box, items: items, removeAll: removeAll};
    return mount.staleList;
  }

  // -- ui: the pieces every view shares ------------------------------------------------------------

  function makeUi(mount, model) {
    return {
      state: mount.ctx.state,
      h: base.h,
      clear: base.clear,
      /** debounce(fn, ms): typing; flushed before a re-render and before the page goes away. */
      debounce: function (fn, wait) {
        var debounced = base.debounce(fn, wait);
        mount.debounced.push(debounced);
        return debounced;
      },
      /** The one pager (web/pager.js); a page turned by its buttons is said on the status line. */
      pager: function (list, options) {
        return paging.createPager(list, Object.assign({announce: function (text) { announce(mount, text); },
          focus: {save: savedFocus, restore: restoreFocus}}, options));
      },
      combobox: function (options) {
        // its match count is said while the annotator types in it, never when a render fills it
        return windowing.createCombobox(Object.assign({announce: function (text) {
          if (mount.ctx.form.contains(document.activeElement)) { announce(mount, text); }
        }}, options));
      },
      staleList: function () { return staleListOf(mount).box; },
      stepLink: function (index, text) { return stepLink(mount, index, text); },
      onStepAction: function (action, fn) { onStepAction(mount, action, fn); },
      announce: function (text) { announce(mount, text); },
      summary: function (text) { mount.ctx.store.announce(text); },   // the summary line, until the next model.set
      hook: function (name) { return mount.ctx.el.querySelector('[' + HOOK + '="' + name + '"]'); },
      model: model
    };
  }

  /**
   * "#N" for step `index` (0-based): a button that asks the trace view to show that step when the
   * page has one (section.ma-trace, rendered by the server; looked up once per render pass),
   * else plain text (no dead control).
   */
  function stepLink(mount, index, text) {
    var label = text || '#' + (index + 1);
    if (!mount.traceOnPage) {
      return base.h('span', {class: 'ma-step-number', 'data-ma': 'step-number', 'data-ma-step': index, text: label});
    }
    return base.h('button', {type: 'button', class: 'ma-step-link', 'data-ma': 'step-link',
      'data-ma-step': index, 'data-ma-focus': 'step-link-' + index, text: label,
      'aria-label': 'Show #' + (index + 1) + ' in the trace',
      on: {click: function (event) {
        // source: the link itself, so Escape in the trace view returns focus to it (docs/trace-view.md)
        document.dispatchEvent(new CustomEvent(SHOW_STEP, {detail: {index: index, source: event.currentTarget}}));
      }}});
  }

  /**
   * `fn(detail, event)` takes the trace view's `action` for this form; the form declares it
   * (data-ma-step-actions) so the trace view offers only actions some widget takes.
   */
  function onStepAction(mount, action, fn) {
    mount.stepActions.push({action: action, fn: fn});
    var declared = mount.stepActions.map(function (entry) { return entry.action; });
    mount.ctx.form.setAttribute('data-ma-step-actions', declared.filter(function (name, i) {
      return declared.indexOf(name) === i;
    }).join(' '));
  }

  /** Say `text` on the form's one status line (polite live region; widget.js tellStatus). */
  function announce(mount, text) {
    core.tellStatus(mount.ctx.formState, text);
  }

  /**
   * `multiagent:step-action` {index, action, target?} from the trace view (web/trace_view.js
   * dispatches it cancelable): to every form whose scheme is `target`, or to every form on this
   * runtime when there is no target, as fn(detail, event); a handler that acts calls
   * event.preventDefault() so the trace view knows the action was taken.
   */
  function routeStepAction(event) {
    var detail = event.detail || {};
    core.buildFor(function (state) {   // a form not built yet (lazy.js) is built to take it
      var declared = String(state.form.getAttribute('data-ma-step-actions') || '').split(/\s+/);
      return declared.indexOf(detail.action) >= 0 && (!detail.target || detail.target === state.schemaName);
    });
    core.eachFormState(function (state) {
      var mount = state.view;
      if (!mount || !mount.ctx) { return; }
      if (detail.target && detail.target !== mount.ctx.schemaName) { return; }
      mount.stepActions.forEach(function (entry) {
        if (entry.action === detail.action) { entry.fn(detail, event); }
      });
    });
  }

  // -- focus across re-renders -------------------------------------------------------------------

  /** The data-ma-focus key of the control focused inside `container` (a form, a pager's list), or null. */
  function savedFocus(container) {
    var active = document.activeElement;
    if (!active || !container.contains(active)) { return null; }
    var keyed = active.closest('[' + FOCUS_KEY + ']');
    return keyed && container.contains(keyed) ? keyed.getAttribute(FOCUS_KEY) : null;
  }

  /** Focus the control of that key in `container` again, unless the focus is still in it. */
  function restoreFocus(container, key) {
    if (key === null) { return; }
    var active = document.activeElement;
    if (active && active !== document.body && container.contains(active)) { return; }
    var candidates = container.querySelectorAll('[' + FOCUS_KEY + ']');
    for (var i = 0; i < candidates.length; i++) {
      if (candidates[i].getAttribute(FOCUS_KEY) === key) { candidates[i].focus(); return; }
    }
  }

  /** What the runtime listens to on the page: the trace view's step actions, and the page's first
   * pass, after which the forms not built yet are prepared. */
  function start() {
    document.addEventListener(STEP_ACTION, routeStepAction);
    if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', prepareAfterFirstPass); }
    else { prepareAfterFirstPass(); }
  }

  return {declare: declare, renderPass: renderPass, describePass: describePass, stepButton: stepButton, start: start,
    textLimit: TEXT_LIMIT};
}

/*
 * The API types use ('potato-multiagent', widget.js's exports):
 *   define(name, {describe(value, ctx) -> {summary, incomplete, notices, stale[, removeAllStale]},
 *     render(args)[, entryKey][, stepActions: ['mast-tag' | {action, label[, applies(row)]}, ...]][, prepare({derivation, config, el})]
 *     [, references(value) -> [{key, field, index, ref, set(index, ref), remove(value)}]]})
 *     ctx = {derivation, config, record, unreadable, stored} (stored = the raw {raw, value, error} read)
 *     args = {model, el, derivation, config, record, schemaName, ui}
 *   model.get() -> {value, unreadable, raw, stored}; model.set(value); model.on('change', fn)
 *   ui.state, ui.h, ui.clear, ui.debounce(fn, ms), ui.pager(list, {size, noun, item | draw, ...}) (pager.js),
 *   ui.combobox({...}),
 *   ui.staleList(), ui.stepLink(index[, text]), ui.onStepAction(fn), ui.announce(text), ui.hook(name)
 *   textLimit: the most characters a note or reason holds (a free-text box's maxlength)
 *   marks(typeName, factory(lib)) / marksOf(typeName): a type's marks.js (base.js)
 */
