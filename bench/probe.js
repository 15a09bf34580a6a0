/*
 * probe.js: added to every measured page before any of the page's own scripts run
 * (Playwright's add_init_script), after a line that sets window.__benchConfig =
 * {builtins: [{selector, count}]}.
 *
 * It records, in performance.now() milliseconds since navigation start:
 *   builtinReadyAt  the first moment every built-in widget holds its expected number of items
 *                   (a MutationObserver: its callback runs right after the script task that
 *                   built them, so this is the end of the built-in's build);
 *   shownAt         when Potato last showed `#main-content` before the item was ready (its
 *                   `setLoading(false)`); from here the page is laid out and painted;
 *   instanceReadyAt Potato's `potato:instance-ready` (the item is on screen; our widgets render
 *                   again from the hidden input);
 *   paintedAt       the first frame after that, once the page has been laid out and painted;
 *   traceRowsAt     (pages with our trace view, `__benchConfig.traceView`) the end of the last
 *                   script task that drew trace view rows (`li.ma-trace-row`): on Potato's page the
 *                   view draws its window in a timer after `potato:instance-ready` (before 98c3176
 *                   also on DOMContentLoaded), the rows in sight first (its own mark,
 *                   `multiagent:trace-in-view`, which scale.py's ready reads) and the rest a frame
 *                   later; versions before that mark are read only here, so a MutationObserver on
 *                   its section watches it;
 *   tracePaintedAt  the first frame after the trace view's last drawing (it draws in a timer after
 *                   instance-ready, possibly after paintedAt).
 * Our widgets need no observer: each marks `multiagent:ready:<schema>` itself. Our derivation
 * (derive.js, run once per page and shared by our widgets) is timed on its own in bench.deriveMs.
 *
 * Every widget, ours and the built-ins, renders from a DOMContentLoaded listener, and the page has
 * other such listeners (Potato's own) that run before or after it. To tell a widget's own time
 * from theirs, every DOMContentLoaded listener on the document is wrapped and logged in
 * bench.listeners as {owner, start, end}: owner is the registering script's file name
 * (inside our bundle, its part, told by the line of the call: "core" is the runtime's) or, for a built-in's inline
 * script, "schema:<its SCHEMA>".
 *
 * window.__benchInteract(formSelector, actionBody) runs one interaction (a function body with
 * `form` in scope) and resolves to {valueMs, frameMs, value}: milliseconds until the form's
 * hidden input holds a different value, and until the next frame after it.
 */
(function () {
  'use strict';
  var config = window.__benchConfig || {builtins: []};
  var bench = window.__bench = {builtinReadyAt: null, shownAt: null, instanceReadyAt: null, paintedAt: null,
    traceRowsAt: null, tracePaintedAt: null, listeners: []};

  // Our derivation is timed by the runtime itself: a `multiagent:derive` measure on the timeline.
  Object.defineProperty(bench, 'deriveMs', {enumerable: true, get: function () {
    return performance.getEntriesByName('multiagent:derive').map(function (entry) { return entry.duration; });
  }});

  // Our page scripts come as one bundle (served.py); the part a bundle line belongs to is the last
  // one starting at or before it (config.bundle: [first line, part] per part: "core" is the runtime).
  var BUNDLE_FRAME = /\/multiagent\.[0-9a-f]+\.js[^\s:]*:(\d+):\d+/;

  function bundledFile(stack) {
    var frame = BUNDLE_FRAME.exec(stack || '');
    var name = null;
    (config.bundle || []).forEach(function (part) { if (frame && part[0] <= Number(frame[1])) { name = part[1]; } });
    return name && name.split('/').pop();
  }

  function scriptOwner(script) {
    if (!script) { return 'unknown'; }
    if (script.src) {
      var file = script.src.split('?')[0].split('/').pop();
      return /^multiagent\.[0-9a-f]+\.js$/.test(file) ? bundledFile(new Error().stack) || file : file;
    }
    var schema = /var SCHEMA = '([^']*)'/.exec(script.textContent);
    return schema ? 'schema:' + schema[1] : 'inline';
  }

  var addListener = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (this !== document || type !== 'DOMContentLoaded' || typeof listener !== 'function') {
      return addListener.call(this, type, listener, options);
    }
    var entry = {owner: scriptOwner(document.currentScript), start: null, end: null};
    bench.listeners.push(entry);
    return addListener.call(this, type, function (event) {
      entry.start = performance.now();
      try { return listener.call(this, event); } finally { entry.end = performance.now(); }
    }, options);
  };

  function afterNextFrame(callback) {
    requestAnimationFrame(function () { setTimeout(callback, 0); });
  }

  function builtinsBuilt() {
    return config.builtins.every(function (item) {
      return document.querySelectorAll(item.selector).length >= item.count;
    });
  }

  if (config.builtins.length) {
    var observer = new MutationObserver(function () {
      if (builtinsBuilt()) {
        bench.builtinReadyAt = performance.now();
        observer.disconnect();
      }
    });
    observer.observe(document, {childList: true, subtree: true});
  }

  // Registered before any of the page's own listeners, so #main-content is watched before
  // Potato's first setLoading() call, and the trace view's section before its first drawing.
  document.addEventListener('DOMContentLoaded', function () {
    if (config.traceView) { watchTraceRows(); }
    var main = document.getElementById('main-content');
    if (!main) { return; }
    new MutationObserver(function () {
      if (bench.instanceReadyAt === null && main.style.display !== 'none') { bench.shownAt = performance.now(); }
    }).observe(main, {attributes: true, attributeFilter: ['style']});
  });

  var traceDrawings = 0;
  function watchTraceRows() {
    document.querySelectorAll('section.ma-trace').forEach(function (section) {
      new MutationObserver(function () {
        if (!section.querySelector('li.ma-trace-row')) { return; }
        bench.traceRowsAt = performance.now();
        bench.tracePaintedAt = null;
        var drawing = ++traceDrawings;
        afterNextFrame(function () { if (drawing === traceDrawings) { bench.tracePaintedAt = performance.now(); } });
      }).observe(section, {childList: true, subtree: true});
    });
  }

  document.addEventListener('potato:instance-ready', function () {
    if (bench.instanceReadyAt !== null) { return; }
    bench.instanceReadyAt = performance.now();
    afterNextFrame(function () { bench.paintedAt = performance.now(); });
  });

  window.__benchInteract = function (formSelector, actionBody) {
    var form = document.querySelector(formSelector);
    var hidden = form.querySelector('input.annotation-input');
    var before = hidden.value;
    var act = new Function('form', actionBody);
    return new Promise(function (resolve, reject) {
      var start = performance.now();
      var valueAt = null;
      function changed() {
        if (valueAt === null && hidden.value !== before) { valueAt = performance.now(); }
        return valueAt !== null;
      }
      hidden.addEventListener('change', changed);
      act(form);
      function settle(attempt) {
        if (changed()) {
          afterNextFrame(function () {
            hidden.removeEventListener('change', changed);
            resolve({valueMs: valueAt - start, frameMs: performance.now() - start, value: hidden.value});
          });
        } else if (attempt > 600) {
          hidden.removeEventListener('change', changed);
          reject(new Error('the hidden input did not change within ~10 s of the interaction'));
        } else {
          requestAnimationFrame(function () { settle(attempt + 1); });
        }
      }
      settle(0);
    });
  };
}());
