/*
 * sync.js: nothing an annotator did is lost (issue 14), for the core in widget.js.
 *
 * Two tabs of one annotator merge instead of overwriting (each edit is applied as a change to
 * what Potato now holds, base.mergeValues). The page's one save
 * path (saving.js) waits for a merge read in flight before it saves, reads first when it retries,
 * and tells this file what each save posted (noteSent) and what the server confirmed (noteSaved).
 * install(core) -> the functions widget.js calls;
 * core = {currentInstanceId, renderForm, writeHidden, eachFormState, keyOf(state), ensureSaved()}.
 */
import * as base from './base.js';

var h = base.h;
var parseStored = base.parseStored;
var mergeValues = base.mergeValues;
var flushEdits = base.flushEdits;
var isPlainObject = base.isPlainObject;

export function install(core) {
  // ---------------------------------------------------------------------------------------------
  // Two tabs of one annotator: merge, never overwrite
  // ---------------------------------------------------------------------------------------------
  //
  // Potato stores one string per question, so a tab that writes its whole value would erase what
  // another tab saved meanwhile. After every edit, and when the tab comes back into view, the
  // runtime reads what Potato now holds for the item (GET /get_annotations, Potato 2.12.1's
  // per-instance read: label_values[schema][label] is the stored string) and, when another tab
  // changed it, applies this tab's edit to it as a change (mergeValues), stores the result,
  // redraws the widget and says so in a status line. Every save waits for that read.
  //
  // A stored string is this page's own when this page posted it (sync.posted: every string a
  // save of this page carried for the form on this item, read from the save's payload, never
  // forgotten while the item is open): a read that lands while this page's saves are on their way
  // may show any of them, and none of them is another tab's edit.

  var SYNC_WAIT_MS = 1500;    // the longest a save waits for a read in flight
  var latestRead = null;      // {instanceId, promise}: one read serves every form of the page
  var potatoRestored = false; // Potato has put the saved answers in (potato:instance-ready)

  /** The stored string is the server's (Potato's restore, not an edit): it is the merge base. */
  function trackServerValue(state) {
    var sync = state.sync;
    var instanceId = core.currentInstanceId();
    if (sync.instanceId !== instanceId) {
      sync.instanceId = instanceId;
      sync.posted = new Set();
      sync.base = state.hidden.value;
    } else if (!state.hidden.hasAttribute('data-modified')) {
      sync.base = state.hidden.value;
    }
  }

  /** What Potato holds for this item and question: a string ('' = nothing), or undefined. */
  function readLatest(state, instanceId) {
    if (!latestRead || latestRead.instanceId !== instanceId) {
      var url = '/get_annotations?instance_id=' + encodeURIComponent(instanceId);
      var promise = globalThis.fetch(url, {credentials: 'same-origin', cache: 'no-store',
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
    var instanceId = core.currentInstanceId();
    if (!state.hidden || !instanceId || typeof globalThis.fetch !== 'function') { return Promise.resolve(); }
    if (sync.inFlight) { sync.again = true; return sync.inFlight; }
    sync.inFlight = readLatest(state, instanceId).then(function (latest) {
      if (latest !== undefined && instanceId === core.currentInstanceId() && sync.instanceId === instanceId) {
        reconcile(state, latest);
      }
    }).catch(function (error) {
      if (globalThis.console && typeof globalThis.console.error === 'function') {
        globalThis.console.error('multiagent: merging with another tab failed:', error);
      }
    }).then(function () {
      sync.inFlight = null;
      if (sync.again) { sync.again = false; return requestSync(state); }
      return undefined;
    });
    return sync.inFlight;
  }

  /**
   * `latest` is what Potato holds; the base is the last value known to be there (read, or
   * carried by a save the server confirmed). What this tab shows: in step. The base or a string
   * this page posted: nobody else wrote, and the server may hold an older state of this page, so
   * a save of what the tab shows is made sure of. Anything else is another tab's: apply this tab's
   * edit (base -> current) to it, store, redraw, tell; and when the result is not what the server
   * holds (this tab's value won a cell), save it. Values that are not JSON are never merged
   * (nothing is rewritten that cannot be read).
   */
  function reconcile(state, latest) {
    var sync = state.sync;
    if (latest === state.hidden.value) { sync.base = latest; return; }
    if (latest === sync.base || sync.posted.has(latest)) { core.ensureSaved(); return; }
    flushEdits();   // text typed while the read was out is part of this tab's edit
    var base = parseStored(sync.base);
    var mine = parseStored(state.hidden.value);
    var theirs = parseStored(latest);
    if (base.error || mine.error || theirs.error) { return; }
    var keyOf = core.keyOf(state);
    var merged = mergeValues(base.value, mine.value, theirs.value, keyOf).value;
    var raw = merged === null ? '' : JSON.stringify(merged);
    sync.base = latest;
    if (raw === state.hidden.value) {   // this tab's value stands
      if (raw !== latest) { core.ensureSaved(); }   // and the server lacks it
      return;
    }
    state.lastWrite = {instanceId: core.currentInstanceId(), raw: raw};
    writeOwn(state, raw);   // its `change` has Potato save it
    core.renderForm(state.form);
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

  /** Back in view: store what is pending, then pick up what other tabs saved. Not before Potato
   * has restored the saved answers: until then the hidden inputs are not the server's yet. */
  function syncAll() {
    if (!potatoRestored) { return; }
    flushEdits();
    core.eachFormState(function (state) { requestSync(state); });
  }

  /**
   * Before a save (saving.js): pending typing stored, and every read in flight settled (at most
   * SYNC_WAIT_MS), so the save posts the merged value; a retry reads first, since another tab may
   * have saved while this one could not.
   */
  function beforeSave(retrying) {
    flushEdits();
    if (retrying) { syncAll(); }
    return settleSyncs();
  }

  /** The strings a save carries for our forms ("schema:label" -> value of its payload). */
  function eachPosted(annotations, fn) {
    if (!annotations) { return; }
    var instanceId = core.currentInstanceId();
    core.eachFormState(function (state) {
      if (state.sync.instanceId !== instanceId) { return; }
      var key = (state.hidden.getAttribute('schema') || state.schemaName) + ':' +
        (state.hidden.getAttribute('label_name') || state.schemaName);
      if (Object.prototype.hasOwnProperty.call(annotations, key) && typeof annotations[key] === 'string') {
        fn(state, annotations[key]);
      }
    });
  }

  /** A save is posting these strings: they are this page's own from now on. */
  function noteSent(annotations) {
    eachPosted(annotations, function (state, raw) { state.sync.posted.add(raw); });
  }

  /** The server confirmed a save: what it carried is what the server holds (the merge base). */
  function noteSaved(annotations) {
    eachPosted(annotations, function (state, raw) { state.sync.base = raw; });
  }

  /** Resolves when every form's read in flight has settled, or after SYNC_WAIT_MS. */
  function settleSyncs() {
    var waiting = [];
    core.eachFormState(function (state) { if (state.sync.inFlight) { waiting.push(state.sync.inFlight); } });
    if (!waiting.length) { return Promise.resolve(); }
    return Promise.race([Promise.all(waiting), new Promise(function (resolve) {
      setTimeout(resolve, SYNC_WAIT_MS);
    })]);
  }

  // -- coming back to the tab: pick up what other tabs saved ---------------------------------------

  /** Read and merge when the tab is shown again, the window focused, or the page restored from the
   * back-forward cache (leaving the page is saving.js's). */
  function watchReturns() {
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'visible') { syncAll(); }
    }, true);
    globalThis.addEventListener('focus', syncAll);
    globalThis.addEventListener('pageshow', function (event) { if (event.persisted) { syncAll(); } });
  }

  /** Potato's global `name` becomes around(original, this, arguments), once per `tag` (a second
   * wrapper with another tag, e.g. lazy.js's, goes around this one). */
  function wrapGlobal(name, around, tag) {
    var mark = tag || 'multiagentWrapped';
    var original = globalThis[name];
    if (typeof original !== 'function' || original[mark]) { return; }
    var wrapped = function () { return around(original, this, arguments); };
    Object.keys(original).forEach(function (key) { if (/^multiagent/.test(key)) { wrapped[key] = original[key]; } });
    wrapped[mark] = true;
    globalThis[name] = wrapped;
  }


  /** Write the hidden input as this page's edit (its `change` has Potato save it). */
  function writeOwn(state, raw) {
    core.writeHidden(state.hidden, raw);
  }


  return {
    trackServerValue: trackServerValue,
    requestSync: requestSync,
    writeOwn: writeOwn,
    syncNoticeOf: syncNoticeOf,
    watchReturns: watchReturns,
    beforeSave: beforeSave,
    noteSent: noteSent,
    noteSaved: noteSaved,
    wrapGlobal: wrapGlobal,
    markRestored: function () { potatoRestored = true; }
  };
}
