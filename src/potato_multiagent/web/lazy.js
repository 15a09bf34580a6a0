/*
 * lazy.js: a widget is built when it comes into view (issue 18: "render what is visible").
 *
 * A form far from the viewport is *deferred*: widget.js wires it (hidden input, recovery from
 * Potato's reset, two-tab tracking) and has the widget *describe* its stored value (summary,
 * data-incomplete-reason for Potato's required check, notices: runtime.js's describePass), but
 * does not call the widget's render; the form gets
 * data-ma-deferred="true", its body is hidden behind a short placeholder, and data-ma-ready is not
 * set (it means "built"). A deferred form is built once, then renders on later passes as before,
 * when any of these happens:
 *   - Potato shows the item and has restored its answers (`potato:instance-ready`; until then no
 *     form is built, so none is built twice): the pass that shows the item builds the forms in
 *     sight, on the screen and in what the box that scrolls them shows when one does (the forms'
 *     column beside a trace view); in a task after the next frame (what is in sight painted first)
 *     those within about one viewport of it, and of that box, are built too;
 *   - it comes within about one viewport of the screen, and of what its box shows, later:
 *     checked by IntersectionObservers on the window and on the
 *     box that scrolls the form (the window's sees a form that box hides only once it shows), once
 *     the scrolling has settled (no scroll for SETTLE_MS): a jump (a link, a search, the scroll bar,
 *     Bootstrap's smooth scrolling of the page) passes forms without building them, since forms built
 *     on the way would lengthen the page under a scroll that aimed at the old place of its target;
 *   - it receives focus or a pointer (Tab reaches its placeholder button);
 *   - another part of the page needs it: buildFor(predicate), e.g. the runtime for a trace-view
 *     step action aimed at it;
 *   - Potato is about to leave the item (its globals navigateTo*), or End is about to scroll to
 *     the end of the page (which the forms it passes would lengthen as they are built): every
 *     deferred form is built synchronously first;
 *   - idle time after the item is shown, one form per callback (a hidden page gets there through
 *     the callback's timeout), so every widget is eventually built without scrolling.
 * Step actions a widget type declares (register options.stepActions) are written on its deferred
 * forms, so the trace view offers them before the form is built.
 * A deferred form's describe pass (describe(state, run)) is not run before the item is shown: Potato
 * then hides the item, resets and restores the answers, and its load-time required check shows
 * nothing (no Next attempt yet), so the pass that shows the item describes every deferred form.
 * In that pass the describes wait for a task of their own after the next frame (the in-view builds
 * are painted first); Potato's required check (validateRequiredFields) and a build run the waiting
 * ones first.
 * (On a long run they held up the forms in view: docs/performance.md.)
 * install(core) -> the functions widget.js calls;
 * core = {base (base.js), renderForm(form), eachFormState(fn), wrapGlobal(name, around, tag), stepActionsOf(state)}.
 */
var NEAR_MARGIN = 1;          // viewports above and below the screen that count as "near"
var IDLE_TIMEOUT_MS = 300;    // the longest an idle build waits (a busy or hidden page)
var SETTLE_MS = 120;          // no scroll for this long: the scrolling has settled, near forms are built
var IN_VIEW_MARK = 'multiagent:in-view-ready';
var POTATO_LEAVING = ['navigateToNext', 'navigateToPrevious', 'navigateToInstance'];
var POTATO_REQUIRED_CHECK = 'validateRequiredFields';

export function install(core) {
  var h = core.base.h;
  var afterNextFrame = core.base.afterNextFrame;   // the forms in view painted first
  var shown = false;          // the item is on screen: positions are real, idle builds may run
  var showing = false;        // inside the pass that shows the item (itemShown's renderAll)
  var observers = [];         // IntersectionObservers: the window's, and one per box that scrolls forms
  var idleQueued = false;
  var waitingDescribes = [];  // deferred forms' states whose describe pass waits (state.describeLater)
  var describesQueued = false;
  var settling = null;        // the timer that ends a scroll: near forms wait for it

  /**
   * Within about one screen (`margin` screens; none: in sight) of what can be seen: of the window,
   * and of the box that scrolls the form when it has one (beside a trace view the forms scroll in a
   * column of their own, whose hidden part is not on screen however near the window's edge it is).
   * A form with no box (hidden page part) is not near.
   */
  function isNear(form, margin) {
    if (!form.getClientRects().length) { return false; }
    if (margin === undefined) { margin = NEAR_MARGIN; }
    var rect = form.getBoundingClientRect();
    var height = globalThis.innerHeight || document.documentElement.clientHeight || 0;
    var top = -height * margin;
    var bottom = height * (1 + margin);
    var scroller = scrollerOf(form);
    if (scroller) {
      var seen = scroller.getBoundingClientRect();
      top = Math.max(top, seen.top - scroller.clientHeight * margin);
      bottom = Math.min(bottom, seen.bottom + scroller.clientHeight * margin);
    }
    return rect.bottom >= top && rect.top <= bottom;
  }

  /** The nearest element above `form` that scrolls its content vertically, or null (the page scrolls). */
  function scrollerOf(form) {
    for (var node = form.parentElement; node && node !== document.body; node = node.parentElement) {
      var overflow = globalThis.getComputedStyle(node).overflowY;
      if ((overflow === 'auto' || overflow === 'scroll') && node.scrollHeight > node.clientHeight) { return node; }
    }
    return null;
  }

  /** Called by the render pass before the widget's render: true when the form stays deferred.
   * Until the item is shown every form waits: Potato's values are not restored yet; the pass that
   * shows it builds what is in sight (the near ones follow: itemShown). */
  function defers(state) {
    if (state.built) { return false; }
    if (!state.wanted && !(shown && isNear(state.form, showing ? 0 : NEAR_MARGIN))) { showDeferred(state); return true; }
    state.built = true;
    state.describeLater = null;   // its render pass paints the description
    hideDeferred(state);
    return false;
  }

  /** Run (or hold) a deferred form's describe pass `run`; see the header. */
  function describe(state, run) {
    if (!shown) { return; }
    if (!showing) { state.describeLater = null; run(); return; }
    state.describeLater = run;
    if (waitingDescribes.indexOf(state) < 0) { waitingDescribes.push(state); }
    if (!describesQueued) {
      describesQueued = true;
      afterNextFrame(describeWaiting);
    }
  }

  /** The waiting describe passes, in the order they were asked for (the page's order). */
  function describeWaiting() {
    describesQueued = false;
    waitingDescribes.splice(0).forEach(function (state) {
      var run = state.describeLater;
      state.describeLater = null;
      if (run && !state.built) { run(); }
    });
  }

  function showDeferred(state) {
    var form = state.form;
    if (!state.placeholder) {
      state.placeholder = h('div', {class: 'ma-deferred', 'data-ma': 'deferred'}, [
        h('p', {class: 'ma-deferred-text', text: 'This question is drawn when you scroll to it.'}),
        h('button', {type: 'button', class: 'ma-button', 'data-ma': 'deferred-build', text: 'Show this question'})
      ]);
      wireWakeUps(state);
    }
    if (!state.placeholder.isConnected) {
      var body = state.body;
      if (body !== form && body.parentNode) { body.parentNode.insertBefore(state.placeholder, body); }
      else { (form.querySelector('fieldset') || form).appendChild(state.placeholder); }
    }
    if (state.body !== form) { state.body.hidden = true; }
    form.setAttribute('data-ma-deferred', 'true');
    var declared = core.stepActionsOf(state);
    if (declared.length && !form.hasAttribute('data-ma-step-actions')) {
      form.setAttribute('data-ma-step-actions', declared.join(' '));
    }
    if (shown) { observe(form); }
  }

  function hideDeferred(state) {
    if (!state.placeholder) { return; }
    if (state.placeholder.parentNode) { state.placeholder.parentNode.removeChild(state.placeholder); }
    if (state.body !== state.form) { state.body.hidden = false; }
    state.form.removeAttribute('data-ma-deferred');
    observers.forEach(function (observer) { observer.unobserve(state.form); });
  }

  /** Focus or a pointer on a deferred form builds it; focus moves to its first control. */
  function wireWakeUps(state) {
    var form = state.form;
    form.addEventListener('focusin', function () {
      if (state.built) { return; }
      build(state);
      var active = document.activeElement;
      if (!active || active === document.body || !form.contains(active)) { focusFirstControl(state); }
    });
    form.addEventListener('pointerdown', function () { if (!state.built) { build(state); } });
  }

  function focusFirstControl(state) {
    var control = state.body.querySelector('button:not([disabled]), input:not([type=hidden]):not([disabled]), ' +
      'select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])');
    if (control) { control.focus(); }
  }

  function build(state) {
    state.wanted = true;
    core.renderForm(state.form);
  }

  /** Build now every deferred form `wanted(state)` accepts (every one without a predicate). */
  function buildFor(wanted) {
    var waiting = [];
    core.eachFormState(function (state) {
      if (!state.built && state.form.hasAttribute('data-ma-deferred') && (!wanted || wanted(state))) {
        waiting.push(state);
      }
    });
    waiting.forEach(build);
  }

  /** Watch a deferred form near the window, and near what its column shows when a box scrolls it. */
  function observe(form) {
    if (typeof globalThis.IntersectionObserver !== 'function') { return; }
    observerOf(null).observe(form);
    var column = scrollerOf(form);
    if (column) { observerOf(column).observe(form); }
  }

  /** The observer whose root is `box` (null: the window), margins one root height above and below. */
  function observerOf(box) {
    for (var i = 0; i < observers.length; i++) {
      if (observers[i].root === box) { return observers[i]; }
    }
    var made = new globalThis.IntersectionObserver(onIntersect, {root: box, rootMargin: (NEAR_MARGIN * 100) + '% 0px'});
    observers.push(made);
    return made;
  }

  /** A column's observer sees its forms whether or not the column is near the screen (or still
   * scrolls, after a resize): its forms are built only when isNear agrees. */
  function onIntersect(entries, observer) {
    if (settling !== null) { return; }   // buildNear runs when the scroll settles
    var near = entries.filter(function (entry) {
      return entry.isIntersecting && (observer.root === null || isNear(entry.target));
    }).map(function (entry) { return entry.target; });
    if (near.length) { buildFor(function (state) { return near.indexOf(state.form) >= 0; }); }
  }

  /** Any scroll of the page or of a box in it (captured) restarts the wait for it to settle. */
  function onScroll() {
    if (!shown) { return; }
    if (settling !== null) { clearTimeout(settling); }
    settling = setTimeout(buildNear, SETTLE_MS);
  }

  /** The scrolling has settled: build the deferred forms near what is on screen now. */
  function buildNear() {
    settling = null;
    buildFor(function (state) { return isNear(state.form); });
  }

  /** After the frame that shows the item: the forms near what is in sight, unless a scroll has
   * begun (its settling builds those near where it ends). */
  function buildNearShown() {
    if (settling === null) { buildNear(); }
  }

  /** The item is on screen (Potato's instance-ready, or the first pass on a page without Potato):
   * the render pass `renderAll` builds the forms in sight, the mark says they are (the bench's
   * "ready"); after the next frame (the item painted) those near are built, before the deferred
   * describe passes; the deferred ones are watched, and the rest are built when idle. */
  function itemShown(renderAll) {
    if (!shown) {
      document.addEventListener('keydown', buildBeforeEnd);
      document.addEventListener('scroll', onScroll, {capture: true, passive: true});
    }
    shown = true;
    afterNextFrame(buildNearShown);
    showing = true;
    try { renderAll(); } finally { showing = false; }
    core.base.markTime(IN_VIEW_MARK);
    core.eachFormState(function (state) { if (!state.built) { observe(state.form); } });
    scheduleIdle();
  }

  /** End (the page's, not a control's: nothing took it) scrolls to the end of the page, which the
   * forms it passes would lengthen by being built as they come near, after the scroll aimed at
   * the old end: every deferred form is built first, as before Potato leaves the item. */
  function buildBeforeEnd(event) {
    var target = event.target;
    if (event.key !== 'End' || event.defaultPrevented || !target || target.isContentEditable ||
        /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) { return; }
    buildFor(null);
  }

  function scheduleIdle() {
    if (idleQueued) { return; }
    var next = null;
    core.eachFormState(function (state) {
      if (!next && !state.built && state.form.hasAttribute('data-ma-deferred')) { next = state; }
    });
    if (!next) { return; }
    idleQueued = true;
    whenIdle(function () {
      idleQueued = false;
      if (!next.built) { build(next); }
      scheduleIdle();
    });
  }

  function whenIdle(fn) {
    if (typeof globalThis.requestIdleCallback === 'function') {
      globalThis.requestIdleCallback(fn, {timeout: IDLE_TIMEOUT_MS});
    } else {
      setTimeout(fn, 0);
    }
  }

  /** Potato leaves the item: every deferred form is built first, so the item is left as it is
   * when every widget was drawn. Potato's required check (validateRequiredFields, called on load
   * and on every input) reads data-incomplete-reason: the waiting describe passes run first
   * (building there would build everything at load). */
  function wrapPotato() {
    POTATO_LEAVING.forEach(function (name) {
      core.wrapGlobal(name, function (original, self, args) {
        buildFor(null);
        return original.apply(self, args);
      }, 'multiagentLazy');
    });
    core.wrapGlobal(POTATO_REQUIRED_CHECK, function (original, self, args) {
      describeWaiting();
      return original.apply(self, args);
    }, 'multiagentLazy');
  }

  return {
    defers: defers,
    describe: describe,
    buildFor: buildFor,
    itemShown: itemShown,
    wrapPotato: wrapPotato,
    /** Potato's annotation page, which dispatches potato:instance-ready once the item is shown. */
    potatoOnPage: function () {
      return typeof globalThis.navigateToNext === 'function' && !(globalThis.config && globalThis.config.is_annotation_page === false);
    }
  };
}
