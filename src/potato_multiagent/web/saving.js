/*
 * saving.js: the page's one save path (issue 39): no answer is lost when the network or the server
 * fails, and no older answer lands after a newer one.
 *
 * Potato 2.12.1 saves the item's whole state per POST (saveAnnotations -> /updateinstance, every
 * scheme of the page in one payload, ours and Potato's own), from several timers, without waiting
 * for the save in flight, and forgets a save that failed. Its global saveAnnotations (called by
 * name everywhere) is wrapped here into one discipline:
 *   - one save in flight; a save asked for meanwhile runs once it returns, with the page's state
 *     at that moment (the latest), so no older state can land last;
 *   - a save that fails, is refused or gets no answer (SAVE_TIMEOUT_MS, then aborted) leaves the
 *     page "Not saved" and is sent again by itself: after a backoff (RETRY_MS), and at once on
 *     `online`, window focus, the tab shown again and a new edit;
 *   - one polite status line says "Saved" or "Not saved: retrying since HH:MM:SS (why)";
 *   - what the annotator changed and the server has not confirmed is kept in localStorage, per task,
 *     annotator, item and page, until a save confirms it; opening the item again offers it back;
 *   - leaving the page while something is unsaved: the latest state goes with Potato's own unload
 *     beacon (armed here when Potato's timer would not, e.g. a turn-level tag), and the page warns
 *     (beforeunload) when that beacon cannot help (a save has failed, or the browser is offline).
 * Potato's own schemes ride along: every save is Potato's own function building its own payload.
 * The payload each save actually posted is read on its way out (a fetch wrapper only for that
 * call), so the two-tab merge (sync.js) knows which stored strings are this page's own.
 * install(core) -> the functions widget.js calls;
 * core = {base, currentInstanceId(), wrapGlobal(name, around, tag),
 *   beforeSave(retrying) -> Promise (sync.js: reads in flight settled; when retrying, read and merge
 *   first), noteSent(annotations), noteSaved(annotations), restoreOwn(schema, raw) -> bool}.
 */
var SAVE_TIMEOUT_MS = 10000;   // a save with no answer by then has failed (its request is aborted)
var RETRY_MS = [1000, 2000, 4000, 8000, 15000, 30000];   // the waits between retries, the last repeated
var STORE_PREFIX = 'potato-multiagent:unsaved:';
var STORE_VERSION = 1;
var STORE_KEPT_DAYS = 30;      // a kept answer nobody came back for is dropped after this long
var BACKUP_WAIT_MS = 200;      // typing is written to localStorage at most this often (and on leave)
var DATA_INPUT = 'input.annotation-data-input';
var ANSWER_INPUT = '.annotation-input';
var LEAVING = ['navigateToNext', 'navigateToPrevious', 'navigateToInstance'];

/** "HH:MM:SS", the annotator's local time. */
function clock(date) { return date.toTimeString().slice(0, 8); }

/** Whether a fetch is Potato's save: a POST to /updateinstance (the deployment's prefix before it). */
function isSaveRequest(input, init) {
  var url = typeof input === 'string' ? input : input && typeof input.url === 'string' ? input.url : '';
  var method = (init && init.method) || (input && typeof input === 'object' && input.method) || 'GET';
  return String(method).toUpperCase() === 'POST' && isSaveUrl(url);
}

function isSaveUrl(url) { return /\/updateinstance(?:[?#]|$)/.test(String(url || '')); }

/** The `annotations` map ("schema:label" -> value) of a save's JSON body, or null. */
function annotationsOf(body) {
  if (typeof body !== 'string') { return null; }
  try {
    var parsed = JSON.parse(body);
    return parsed && typeof parsed.annotations === 'object' && parsed.annotations ? parsed.annotations : null;
  } catch (error) {
    return null;
  }
}

/** Why a save failed, in words for the status line; signedOut when the session is gone (HTTP 401). */
function failureOf(attempt, navigatorOnline) {
  if (attempt.status === 401) { return {words: 'signed out', signedOut: true}; }
  if (attempt.timedOut) { return {words: 'no answer from the server', signedOut: false}; }
  if (attempt.status >= 400) { return {words: 'the server answered ' + attempt.status, signedOut: false}; }
  if (attempt.status) { return {words: 'the server refused it', signedOut: false}; }
  if (navigatorOnline === false) { return {words: 'offline', signedOut: false}; }
  return {words: 'the server cannot be reached', signedOut: false};
}

/** The wait before retry number `attempt` (0-based). */
function retryWait(attempt) { return RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]; }

/**
 * The kept answers of one item, from every entry kept for it (several pages may have kept some):
 * {since, values: {schema: {label: value}}}, a later entry's schema replacing an earlier one's.
 */
function combineKept(entries) {
  var values = {};
  var since = null;
  entries.slice().sort(function (a, b) { return String(a.at).localeCompare(String(b.at)); })
    .forEach(function (entry) {
      Object.keys(entry.values || {}).forEach(function (schema) { values[schema] = entry.values[schema]; });
      if (!since || String(entry.since) < since) { since = String(entry.since); }
    });
  return {since: since, values: values};
}

export function install(core) {
  var base = core.base;
  var h = base.h;
  var sameValue = base.sameValue;
  var storage = localStorageOrNull();
  var pageId = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);

  var potatoSave = null;     // Potato's saveAnnotations, as found
  var inFlight = null;       // the save running now (a promise)
  var queued = null;         // {foreground, waiters}: one more save, wanted while one runs
  var failing = null;        // {since: Date, words, signedOut}: the last save failed, none succeeded since
  var attempts = 0;          // saves failed in a row (the backoff step)
  var retryTimer = null;
  var everSaved = false;
  var quiet = false;         // inside a retry: Potato's repeated failure toasts are the status line's job
  var navigating = 0;        // inside Potato's navigateTo*: its save is the annotator's, shown if it fails
  var unloading = false;     // the page is going away: Potato's beacon is the only save left
  var ready = false;         // Potato has shown the item: changes from now on are the annotator's
  var changes = Object.create(null);   // schema -> changes seen
  var unsaved = new Set();   // schemas changed and not yet confirmed saved
  var unsavedSince = null;
  var statusLine = null;
  var offer = null;          // the "kept in this browser" box, while it is shown
  var backupLater = base.debounce(writeBackup, BACKUP_WAIT_MS);

  // -- the one save path ------------------------------------------------------------------------

  /** Wrap Potato's saveAnnotations and navigation (once each; annotation.js may load after us). */
  function wrapPotato() {
    if (typeof globalThis.saveAnnotations === 'function' && !globalThis.saveAnnotations.multiagentSaving) {
      potatoSave = globalThis.saveAnnotations;
      core.wrapGlobal('saveAnnotations', function (original, self, args) {
        potatoSave = original;
        return requestSave(navigating > 0, args && args[0]);
      }, 'multiagentSaving');
    }
    LEAVING.forEach(function (name) {
      core.wrapGlobal(name, function (original, self, args) {
        base.flushEdits();
        navigating += 1;   // Potato calls saveAnnotations() synchronously before its first await
        try { return original.apply(self, args); } finally { navigating -= 1; }
      }, 'multiagentSaving');
    });
    if (globalThis.navigator && typeof globalThis.navigator.sendBeacon === 'function' && !globalThis.navigator.sendBeacon.multiagentSaving) {
      var sendBeacon = globalThis.navigator.sendBeacon;
      var guarded = function (url, data) {
        if (isSaveUrl(url) && !unloading && potatoSave) {   // a hidden tab, still alive: in turn, not racing
          requestSave(false);
          return true;
        }
        if (isSaveUrl(url) && data && typeof data.text === 'function') {   // its payload is this page's too
          data.text().then(function (text) { core.noteSent(annotationsOf(text)); }, function () {});
        }
        return sendBeacon.apply(globalThis.navigator, arguments);
      };
      guarded.multiagentSaving = true;
      globalThis.navigator.sendBeacon = guarded;
    }
    if (typeof globalThis.showNotification === 'function' && !globalThis.showNotification.multiagentSaving) {
      var notify = globalThis.showNotification;
      var filtered = function (message, type) {
        if (quiet && type === 'error') { return undefined; }   // the status line already says it
        return notify.apply(this, arguments);
      };
      filtered.multiagentSaving = true;
      globalThis.showNotification = filtered;
    }
  }

  /** A save of the page's state as it is when the save starts; resolves to Potato's answer
   * (true saved, false not, undefined nothing to save). One runs at a time. */
  function requestSave(foreground, options) {
    if (!potatoSave) { return Promise.resolve(undefined); }
    var wantsForeground = !!foreground && !(options && options.background);
    if (inFlight) {
      if (!queued) { queued = {foreground: false, waiters: []}; }
      queued.foreground = queued.foreground || wantsForeground;
      var waiters = queued.waiters;
      return new Promise(function (resolve) { waiters.push(resolve); });
    }
    return start(wantsForeground, []);
  }

  function start(foreground, waiters) {
    var running = run(foreground).then(function (result) {
      inFlight = null;
      waiters.forEach(function (resolve) { resolve(result); });
      if (queued) {
        var next = queued;
        queued = null;
        start(next.foreground, next.waiters);
      }
      paintBusy();
      return result;
    });
    inFlight = running;
    paintBusy();
    return running;
  }

  /** data-ma-saving on the status line: a save is on its way (a style hook; never spoken). */
  function paintBusy() {
    if (statusLine) { statusLine.setAttribute('data-ma-saving', inFlight ? 'true' : 'false'); }
  }

  function run(foreground) {
    clearRetry();
    var retrying = failing !== null;
    return core.beforeSave(retrying).then(null, function () { return undefined; }).then(function () {
      var seen = Object.assign(Object.create(null), changes);
      var attempt = {sent: false, body: null, status: 0, timedOut: false, timer: null, panelUp: potatoErrorShown()};
      quiet = retrying && !foreground;
      var result;
      var fetchBefore = globalThis.fetch;
      globalThis.fetch = watchedFetch(fetchBefore, attempt);
      try {
        // a background save never hides the page when it fails (Potato's showError does, for the
        // annotator's own navigation only); turn-level tags call saveAnnotations() bare
        result = potatoSave.call(globalThis, foreground ? {} : {background: true});
      } catch (error) {
        result = Promise.reject(error);
      } finally {
        globalThis.fetch = fetchBefore;
      }
      return Promise.resolve(result).then(null, function () { return false; }).then(function (saved) {
        clearTimeout(attempt.timer);
        quiet = false;
        settle(saved, attempt, seen);
        return saved;
      });
    });
  }

  /** fetch for the length of one save: the POST it makes is recorded, bounded in time, then sent. */
  function watchedFetch(fetchBefore, attempt) {
    return function (input, init) {
      if (attempt.sent || !isSaveRequest(input, init)) { return fetchBefore.apply(globalThis, arguments); }
      attempt.sent = true;
      attempt.body = init && init.body;
      core.noteSent(annotationsOf(attempt.body));
      var options = init;
      if (typeof globalThis.AbortController === 'function') {
        var controller = new globalThis.AbortController();
        options = Object.assign({}, init, {signal: controller.signal});
        attempt.timer = setTimeout(function () { attempt.timedOut = true; controller.abort(); }, SAVE_TIMEOUT_MS);
      }
      return fetchBefore.call(globalThis, input, options).then(function (response) {
        attempt.status = response.status;
        return response;
      });
    };
  }

  /** After a save: confirm what it carried, or keep the page unsaved and plan the retry. */
  function settle(saved, attempt, seen) {
    if (!attempt.sent && saved !== false) { return; }   // nothing was posted (no item on the page)
    if (saved === true) {
      unsaved.forEach(function (schema) { if (seen[schema] === changes[schema]) { unsaved.delete(schema); } });
      if (!unsaved.size) { unsavedSince = null; }
      core.noteSaved(annotationsOf(attempt.body));
      var raisedPanel = failing && failing.raisedPanel;
      failing = null;
      attempts = 0;
      everSaved = true;
      if (raisedPanel && potatoErrorShown() && typeof globalThis.showError === 'function') { globalThis.showError(false); }
      writeBackup();
    } else {
      var why = failureOf(attempt, globalThis.navigator ? globalThis.navigator.onLine : undefined);
      failing = {since: failing ? failing.since : new Date(), words: why.words, signedOut: why.signedOut,
        raisedPanel: !!(failing && failing.raisedPanel) || (!attempt.panelUp && potatoErrorShown())};
      writeBackup();
      planRetry();
    }
    paintStatus();
  }

  function planRetry() {
    clearRetry();
    retryTimer = setTimeout(retryNow, retryWait(attempts));
    attempts += 1;
  }

  function clearRetry() {
    if (retryTimer !== null) { clearTimeout(retryTimer); retryTimer = null; }
  }

  /** Send again now, if the last save failed. */
  function retryNow() {
    retryTimer = null;
    if (failing) { requestSave(false); }
  }

  /** A save is wanted when none is on its way (sync.js: the server lacks what this tab shows). */
  function ensureSaved() {
    if (!inFlight && !queued && !unsaved.size) { requestSave(false); }
  }

  /** Potato's error panel (it hides the item) is up: a failed save raised it (a lost session, the
   * annotator's Next), and a save that later goes through takes it down again. */
  function potatoErrorShown() {
    var panel = typeof document === 'undefined' ? null : document.getElementById('error-state');
    return !!panel && panel.style.display !== 'none';
  }

  // -- what changed since the last confirmed save --------------------------------------------------

  /** The scheme an element answers (Potato's `schema` attribute, a data input's name), or null. */
  function schemaOf(element) {
    if (!element || element.nodeType !== 1) { return null; }
    if (element.matches(DATA_INPUT)) { return element.getAttribute('name'); }
    if (element.matches(ANSWER_INPUT)) { return element.getAttribute('schema'); }
    return null;
  }

  function noteChange(element) {
    var schema = schemaOf(element);
    if (!ready || !schema) { return; }
    changes[schema] = (changes[schema] || 0) + 1;
    unsaved.add(schema);
    if (!unsavedSince) { unsavedSince = new Date(); }
    backupLater();
  }

  function watchChanges() {
    document.addEventListener('change', function (event) { noteChange(event.target); }, true);
    document.addEventListener('input', function (event) { noteChange(event.target); }, true);
    // Turn-level tags (Potato's turn-annotations.js, the trace view's chips) and several of
    // Potato's own schemes write their hidden input's value and data-modified, with no event (our
    // widgets' inputs dispatch `change`, counted above).
    if (typeof globalThis.MutationObserver === 'function') {
      new globalThis.MutationObserver(function (records) {
        records.forEach(function (record) {
          if (!record.target.classList || !record.target.classList.contains('multiagent-input')) { noteChange(record.target); }
        });
      }).observe(document.documentElement, {subtree: true, attributes: true, attributeFilter: ['data-modified']});
    }
  }

  // -- the answers, read from and written back to the page ------------------------------------------

  /** {schema: {label: value}} of the given schemes as the page holds them (Potato's own reading of
   * its inputs: a checked box or radio, a filled text, a touched slider, a hidden or data input). */
  function answersOf(schemas) {
    var wanted = new Set(schemas);
    var answers = {};
    schemas.forEach(function (schema) { answers[schema] = {}; });
    document.querySelectorAll(ANSWER_INPUT + '[schema][label_name]').forEach(function (input) {
      var schema = input.getAttribute('schema');
      if (!wanted.has(schema)) { return; }
      var value = answerValue(input);
      if (value !== null) { answers[schema][input.getAttribute('label_name')] = value; }
    });
    document.querySelectorAll(DATA_INPUT + '[name]').forEach(function (input) {
      var schema = input.getAttribute('name');
      if (wanted.has(schema) && input.value) { answers[schema][':::_data'] = input.value; }
    });
    return answers;
  }

  function answerValue(input) {
    var type = (input.getAttribute('type') || '').toLowerCase();
    if (type === 'radio' || type === 'checkbox') { return input.checked ? input.value : null; }
    if (type === 'range') {
      return input.hasAttribute('data-modified') || input.hasAttribute('data-server-set') ? input.value : null;
    }
    return input.value ? input.value : null;
  }

  /** Put kept answers back into the page, as if the annotator had given them again. */
  function applyAnswers(values) {
    Object.keys(values).forEach(function (schema) {
      var labels = values[schema] || {};
      document.querySelectorAll(ANSWER_INPUT + '[schema][label_name]').forEach(function (input) {
        if (input.getAttribute('schema') !== schema) { return; }
        var label = input.getAttribute('label_name');
        var kept = Object.prototype.hasOwnProperty.call(labels, label) ? labels[label] : null;
        var type = (input.getAttribute('type') || '').toLowerCase();
        if (type === 'radio' || type === 'checkbox') {
          var on = kept !== null && kept === input.value;
          if (input.checked !== on) {
            input.checked = on;
            input.dispatchEvent(new Event('change', {bubbles: true}));
          }
        } else if (type === 'hidden' && core.restoreOwn(input, kept === null ? '' : kept)) {
          return;   // one of our widgets: written through its form and drawn again
        } else if (input.value !== (kept === null ? '' : kept)) {
          input.value = kept === null ? '' : kept;
          if (type === 'range' || type === 'hidden') { input.setAttribute('data-modified', 'true'); }
          input.dispatchEvent(new Event('input', {bubbles: true}));
          input.dispatchEvent(new Event('change', {bubbles: true}));
        }
      });
      document.querySelectorAll(DATA_INPUT + '[name]').forEach(function (input) {
        if (input.getAttribute('name') !== schema) { return; }
        var data = Object.prototype.hasOwnProperty.call(labels, ':::_data') ? labels[':::_data'] : '';
        input.value = data;
        input.setAttribute('value', data);
        input.setAttribute('data-modified', 'true');
        input.dispatchEvent(new Event('change', {bubbles: true}));
      });
    });
    // Potato's turn-level chips are drawn from their hidden inputs
    if (globalThis.turnAnnotations && typeof globalThis.turnAnnotations.refresh === 'function') { globalThis.turnAnnotations.refresh(); }
  }

  // -- kept in this browser: localStorage --------------------------------------------------------

  function localStorageOrNull() {
    if (typeof document === 'undefined') { return null; }   // node tests: no page, nothing kept
    try {
      var store = globalThis.localStorage;
      var probe = STORE_PREFIX + 'probe';
      store.setItem(probe, '1');
      store.removeItem(probe);
      return store;
    } catch (error) {
      return null;   // disabled or full: the warning on leaving still stands
    }
  }

  function itemPrefix(instanceId) {
    var config = globalThis.config || {};
    return STORE_PREFIX + JSON.stringify([String(config.annotation_task_name || ''),
      String(config.username || ''), String(instanceId)]).slice(0, -1) + ',';
  }

  function ownKey(instanceId) { return itemPrefix(instanceId) + JSON.stringify(pageId) + ']'; }

  /** Keep the unsaved schemes' answers (this page's entry), or drop the entry when none is left. */
  function writeBackup() {
    backupLater.cancel();
    var instanceId = core.currentInstanceId();
    if (!storage || !instanceId) { return; }
    try {
      if (!unsaved.size) { storage.removeItem(ownKey(instanceId)); return; }
      storage.setItem(ownKey(instanceId), JSON.stringify({v: STORE_VERSION, at: new Date().toISOString(),
        since: (unsavedSince || new Date()).toISOString(), values: answersOf(Array.from(unsaved))}));
    } catch (error) {
      if (globalThis.console) { globalThis.console.error('multiagent: the unsaved answers could not be kept in this browser:', error); }
    }
  }

  /** [{key, entry}] kept for this item by any page; entries too old or unreadable are dropped. */
  function keptFor(instanceId) {
    var found = [];
    if (!storage) { return found; }
    var prefix = itemPrefix(instanceId);
    var oldest = Date.now() - STORE_KEPT_DAYS * 86400000;
    var keys = [];
    for (var i = 0; i < storage.length; i++) { keys.push(storage.key(i)); }
    keys.forEach(function (key) {
      if (typeof key !== 'string' || key.indexOf(STORE_PREFIX) !== 0) { return; }
      var entry = null;
      try { entry = JSON.parse(storage.getItem(key)); } catch (error) { entry = null; }
      if (!entry || entry.v !== STORE_VERSION || !(Date.parse(entry.at) >= oldest)) { storage.removeItem(key); return; }
      if (key.indexOf(prefix) === 0 && key !== ownKey(instanceId)) { found.push({key: key, entry: entry}); }
    });
    return found;
  }

  /** Opening an item: answers kept for it that the page does not show now are offered back. */
  function offerKept() {
    var instanceId = core.currentInstanceId();
    var kept = keptFor(instanceId);
    if (!kept.length) { return; }
    var combined = combineKept(kept.map(function (found) { return found.entry; }));
    var schemas = Object.keys(combined.values);
    var now = answersOf(schemas);
    var differing = schemas.filter(function (schema) { return !sameValue(now[schema], combined.values[schema]); });
    if (!differing.length) {   // the server got them after all (an unload beacon)
      kept.forEach(function (found) { storage.removeItem(found.key); });
      return;
    }
    var values = {};
    differing.forEach(function (schema) { values[schema] = combined.values[schema]; });
    showOffer(kept, values, new Date(combined.since));
  }

  function showOffer(kept, values, since) {
    var names = Object.keys(values).map(function (schema) { return '\u201C' + questionName(schema) + '\u201D'; });
    var forget = function () { kept.forEach(function (found) { storage.removeItem(found.key); }); };
    var close = function (words) {   // the box says what was done, and keeps the focus where it was
      var done = h('p', {class: 'ma-kept-text', tabindex: '-1', text: words});
      base.clear(offer);
      offer.appendChild(done);
      offer.removeAttribute('data-ma-kept');
      offer = null;
      done.focus();
      paintStatus();
    };
    offer = h('section', {class: 'ma-kept-offer', 'data-ma-kept': '', role: 'region',
      'aria-label': 'Answers kept in this browser'}, [
      h('p', {class: 'ma-kept-text', text: 'This browser kept answers you gave here at ' + clock(since) +
        ' that the server does not have: ' + names.join(', ') + '.'}),
      h('button', {type: 'button', class: 'ma-button', 'data-ma-kept-restore': '', text: 'Restore them',
        on: {click: function () {
          applyAnswers(values);
          forget();
          writeBackup();
          close('Restored: ' + names.join(', ') + '.');
          requestSave(false);
        }}}),
      ' ',
      h('button', {type: 'button', class: 'ma-button', 'data-ma-kept-discard': '', text: 'Discard them',
        on: {click: function () { forget(); close('Discarded the kept answers.'); }}})
    ]);
    var forms = document.getElementById('annotation-forms') || document.getElementById('main-content') || document.body;
    forms.insertBefore(offer, forms.firstChild);
    paintStatus();
  }

  /** A question's name for the annotator: its legend, else its scheme name. */
  function questionName(schema) {
    var forms = document.querySelectorAll('form[data-schema-name]');
    for (var i = 0; i < forms.length; i++) {
      if (forms[i].getAttribute('data-schema-name') !== schema) { continue; }
      var legend = forms[i].querySelector('legend');
      var text = legend ? legend.textContent.replace(/\s+/g, ' ').trim() : '';
      if (text) { return base.snippet(text, 60); }
    }
    return schema;
  }

  // -- the status line ------------------------------------------------------------------------------

  /** The one live region of the save state, beside Potato's navigation; empty until it has news. */
  function makeStatusLine() {
    if (statusLine || !potatoSave) { return; }
    statusLine = h('div', {class: 'ma-save-status', 'data-ma-save-status': '', role: 'status',
      'aria-live': 'polite', tabindex: '-1'});
    var nav = document.querySelector('.potato-nav');
    var next = nav && nav.querySelector('#next-btn');
    if (nav) { nav.insertBefore(statusLine, next && next.parentNode === nav ? next : null); }
    else { document.body.appendChild(statusLine); }
  }

  function paintStatus(words) {
    if (!statusLine) { return; }
    var state = failing ? 'unsaved' : offer ? 'kept' : everSaved ? 'saved' : 'idle';
    var text = words || '';
    if (!words && failing && failing.signedOut) {
      text = 'Not saved: signed out since ' + clock(failing.since) + '. Sign in again in another tab; your ' +
        'answers are kept in this browser and sent when you are back.';
    } else if (!words && failing) {
      text = 'Not saved: retrying since ' + clock(failing.since) + ' (' + failing.words + ').';
    } else if (!words && offer) {
      text = 'Answers kept in this browser are not saved: restore or discard them above the questions.';
    } else if (!words && everSaved) {
      text = 'Saved';
    }
    statusLine.setAttribute('data-ma-save-state', state);
    if (statusLine.textContent !== text) { statusLine.textContent = text; }
  }

  // -- leaving, coming back ---------------------------------------------------------------------------

  /** Something the server may not have: unsaved changes, a save on its way, or a failed one. */
  function pending() { return unsaved.size > 0 || inFlight !== null || failing !== null; }

  /** Leaving would lose work that Potato's unload beacon cannot carry. */
  function mustWarn() {
    var offline = globalThis.navigator && globalThis.navigator.onLine === false;
    return failing !== null || (offline && pending());
  }

  function onBeforeUnload(event) {
    base.flushEdits();
    writeBackup();
    unloading = true;
    setTimeout(function () { unloading = false; }, 0);   // runs only when the annotator stays
    // Potato's unload flush (a beacon of the whole state) runs after this listener, but only when
    // its own text timer is armed; a turn-level tag or a save in flight does not arm it.
    if (pending() && typeof globalThis.scheduleAnnotationDataSave === 'function') { globalThis.scheduleAnnotationDataSave(); }
    if (mustWarn()) {
      event.preventDefault();
      event.returnValue = 'Some answers are not saved yet.';
      return event.returnValue;
    }
    return undefined;
  }

  function guard() {
    watchChanges();
    document.addEventListener('submit', base.flushEdits, true);
    document.addEventListener('click', function (event) {   // before Potato's onclick reads the page
      var target = event.target;
      if (target && target.closest && target.closest('#next-btn, #prev-btn')) { base.flushEdits(); }
    }, true);
    globalThis.addEventListener('beforeunload', onBeforeUnload, true);
    globalThis.addEventListener('pagehide', function () { base.flushEdits(); writeBackup(); unloading = true; }, true);
    globalThis.addEventListener('pageshow', function (event) {
      unloading = false;
      if (event.persisted) { retryNow(); }
    });
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'hidden') {
        base.flushEdits();
        writeBackup();
        if (unsaved.size && !unloading) { requestSave(false); }
      } else {
        retryNow();
      }
    }, true);
    globalThis.addEventListener('online', function () { attempts = 0; retryNow(); });
    globalThis.addEventListener('focus', retryNow);
    document.addEventListener('potato:instance-ready', function () {
      var first = !ready;
      ready = true;
      makeStatusLine();
      if (first) { setTimeout(offerKept, 0); }   // after the widgets have drawn the restored answers
    });
  }

  return {
    wrapPotato: wrapPotato,
    guard: guard,
    requestSave: requestSave,
    ensureSaved: ensureSaved,
    makeStatusLine: makeStatusLine
  };
}

export {retryWait, failureOf, combineKept, annotationsOf, isSaveRequest};
