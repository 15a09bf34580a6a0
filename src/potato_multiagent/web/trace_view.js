/*
 * trace_view.js: the `multiagent.trace` display (docs/trace-view.md): one view per server shell
 * (section.ma-trace[data-ma-trace] with the options), its window of steps, keyboard and clicks, and
 * the page's links both ways between the view and the widgets.
 *
 * The record and its derivation are the runtime's (pageDerivation, with the
 * derive options the server put in the view's config): parsed and derived once per page with every
 * widget on it, so `#N` = index + 1 and the agents are the widgets'. Only a window of steps is in
 * the DOM (WINDOW, never the trace's length), and only the steps drawn have a row model built
 * (stepModel); the three layouts (lanes, tree, board) share it. When the item is shown the view
 * draws the rows its viewport can show, then the rest of its window after the next frame
 * (drawRest: at once when a row not drawn yet is asked for, scrolled or tabbed to).
 * Its parts: trace_view_model.js (what a row shows, the layout rules), trace_view_judgments.js
 * (judgment markers), trace_view_rows.js (a row's DOM), and the parts types add (a type's
 * trace.js, MAST's failure-mode chips and legend, registered on the runtime's traceParts).
 *
 * The page-level event contract with the widgets:
 *   document 'multiagent:show-step'  {index, source}   bring step `index` into view, highlight it,
 *                                                        focus it, announce it (Escape: back to source)
 *   document 'multiagent:step-action' {index, action}  dispatched by the view (cancelable); a widget
 *                                                        that handled it calls preventDefault()
 *   form[data-ma-step-actions="decisive add-to-behaviour ..."]  the actions a widget on the page takes
 *   any element [data-ma-step-link=INDEX]              a click dispatches show-step for INDEX
 *
 * The bundle's trace view part (bundling.py) is this module: imported, it starts in the page and,
 * under node (the tests), exports the pure functions of its parts and touches no DOM.
 */
import * as model from './trace_view_model.js';
import * as judgments from './trace_view_judgments.js';
import * as rows from './trace_view_rows.js';
import * as core from './widget.js';

var WINDOW = 40;          // steps in the DOM at most (per view)
var SHIFT = 20;           // steps the window moves when its edge comes into view
var EDGE_ROWS = 2;        // focus on one of the window's first or last rows moves it too
var MIN_LANE_PX = 280;    // auto shows lanes only when each gets this much of the pane
var LANE_GAP_PX = 8;      // the gap between two lanes (trace_view.css: 0.4rem), rounded up
var MIN_VIEWPORT_PX = 180;  // beside the forms, the viewport is never shorter (the area scrolls then)
var MIN_ROW_PX = 32;      // no row is shorter (a step without text: 36 px): the first drawing fills its viewport at this height
var IN_VIEW_MARK = 'multiagent:trace-in-view';   // the rows in sight are drawn (the bench's "ready")

function readConfig(section) {
  try { return JSON.parse(section.getAttribute('data-ma-trace') || '{}'); } catch (error) { return null; }
}

/** The page's record and derivation for this view's options (the runtime's, shared), or {error}. */
function pageDerivation(config) {
  try { return core.pageDerivation(config); } catch (error) { return {error: String(error && error.message)}; }
}

// ---------------------------------------------------------------------------------------------
// One view: state, window, layout, keyboard
// ---------------------------------------------------------------------------------------------

function View(section) {
  this.section = section;
  this.config = readConfig(section) || {};
  this.viewport = section.querySelector('.ma-trace-viewport');
  this.status = section.querySelector('.ma-trace-status');
  this.meta = section.querySelector('.ma-trace-meta');
  this.start = 0;
  this.end = 0;             // the window: steps start..end-1 ...
  this.drawnEnd = 0;        // ... of which start..drawnEnd-1 are drawn (paint, drawRest)
  this.current = null;
  this.returnTo = null;
  this.layout = 'lanes';
  this.chosenByAnnotator = false;
  this.judged = {};
  this.tagFolds = {};       // step index -> tags unfolded (true) or folded (false) by the annotator
  section.classList.add('ma-trace-live');
}

var NO_STEPS = {length: 0, at: function () { return null; }};

/** The page's derivation and what the view keeps of it. On Potato's instance-ready the page's
 * derivation is the same object (the record is parsed and derived once per page): only what the
 * saved answers and the page's forms decide (judgment marks, actions, folds) is read again. */
View.prototype.load = function () {
  var page = pageDerivation(this.config);
  this.tagFolds = {};
  this.actions = rows.offeredActions();
  if (page.error) {
    this.say(page.error);
    this.derivation = null;
    this.steps = NO_STEPS;
    this.auto = 'lanes';
    return;
  }
  paintTask(this.section, page.record, this.config);
  this.judged = judgments.judgmentMarks(page.record, core.pageSchemes(), core.registeredMarks);
  var view = this;
  rows.traceParts().forEach(function (part) { part.load(view, page.record); });
  if (page.derivation === this.derivation) { return; }
  var derivation = this.derivation = page.derivation;
  this.steps = model.stepModel(derivation, page.record, core.deriveOptions(this.config));
  var lanes = model.laneMap(derivation.steps);
  this.laneCount = lanes.count;
  this.laneOf = function (agent) { return agent === null ? lanes.none : lanes.of[agent]; };
  this.depth = model.threadDepths(derivation.steps);
  this.auto = model.autoLayout(derivation);
  this.meta.textContent = derivation.steps.length + ' steps, ' + derivation.agents.length + ' agents, ' +
    derivation.handoffs.length + ' handoffs, ' + derivation.tool_calls.length + ' tool calls';
  var skip = this.section.querySelector('[data-ma="skip-trace"]');
  if (skip) { skip.textContent = 'Skip the trace (' + derivation.steps.length + ' steps)'; }
};

/** The task's question and reference answer above the steps (question_key, answer_key), as text. */
function paintTask(section, record, config) {
  section.querySelectorAll('[data-ma-task]').forEach(function (slot) {
    var key = config[slot.getAttribute('data-ma-task')];
    var value = record && Object.prototype.hasOwnProperty.call(record, key) ? record[key] : null;
    var missing = value === null || value === undefined || value === '';
    slot.textContent = missing ? '(none in this run\u2019s data: no \u201C' + key + '\u201D field)'
      : (typeof value === 'string' ? value : JSON.stringify(value));
    slot.classList.toggle('ma-trace-task-missing', missing);
  });
}

View.prototype.say = function (text) {
  this.status.textContent = '';
  var status = this.status;
  setTimeout(function () { status.textContent = text; }, 20);
};

View.prototype.wantedLayout = function () {
  if (this.chosenByAnnotator) { return this.layout; }
  var fromRadio = this.config.layout_from ? model.layoutForAnswer(radioAnswer(this.config.layout_from), this.config.layout_map) : null;
  return fromRadio || this.configuredLayout();
};

/** The config's layout, else the auto rule fitted to the pane: lanes only when every lane gets
 * MIN_LANE_PX (a lane narrower than that wraps every line; one wider than the pane is clipped). */
View.prototype.configuredLayout = function () {
  if (model.LAYOUTS.indexOf(this.config.layout) >= 0) { return this.config.layout; }
  return this.auto === 'lanes' && !this.lanesFit() ? 'board' : this.auto;
};

View.prototype.lanesFit = function () {
  var width = this.viewport.clientWidth, lanes = this.laneCount || 1;
  return !width || lanes * MIN_LANE_PX + (lanes - 1) * LANE_GAP_PX <= width;   // unmeasured (hidden): keep the rule's
};

/** Lanes shown (chosen, answered or configured) in a pane too narrow for them stack in step order
 * (trace_view.css), each step still naming its agent: no lane under MIN_LANE_PX, no sideways scroll. */
View.prototype.markLanesFit = function (fits) {
  this.section.setAttribute('data-lanes-fit', (fits === undefined ? this.lanesFit() : fits) ? 'true' : 'false');
};

/**
 * Beside the forms the item's area scrolls in a pane of its own (trace_view.css); the viewport is
 * sized to what the area leaves it (the task text and the view's header above it), so the pane
 * has one scroller, the viewport, not the area around it as well. Elsewhere the CSS height holds.
 * Returns the viewport's height beside the forms, else null.
 */
View.prototype.fitPane = function () {
  var area = this.section.closest('.instance-area');
  var besideForms = area && getComputedStyle(area).overflowY === 'auto' &&
    document.documentElement.classList.contains('ma-has-trace');
  if (!besideForms) { this.section.style.removeProperty('--ma-trace-fit'); return null; }
  // The body holds the viewport and the legend beside it, the legend never taller than the viewport
  // (trace_view.css): everything in the area but the body is what the viewport cannot have.
  var body = this.viewport.parentNode !== this.section ? this.viewport.parentNode : this.viewport;
  var others = area.scrollHeight - body.offsetHeight;
  var height = Math.max(MIN_VIEWPORT_PX, Math.floor(area.clientHeight - others));
  if (Math.abs(height - this.viewport.offsetHeight) > 1) { this.section.style.setProperty('--ma-trace-fit', height + 'px'); }
  return height;
};

/** The pane changed size: an automatic layout follows its width (one chosen or answered stays). */
View.prototype.onResize = function () {
  this.fitPane();
  this.markLanesFit();
  if (this.chosenByAnnotator || !this.derivation) { return; }
  var wanted = this.wantedLayout();
  if (wanted !== this.layout) {
    this.setLayout(wanted, wanted === 'board' ? 'the lanes do not fit this width' : 'the lanes fit this width');
  }
};

/** The width is read before anything is written, and the rows drawn last: the rows are laid out
 * once, in the frame that shows them, not also by a read of the pane after them. `sightPx`: only
 * the rows a viewport that tall can show now, the rest after the next frame (paint). */
View.prototype.setLayout = function (layout, why, sightPx) {
  var fits = this.lanesFit();
  this.layout = layout;
  this.section.setAttribute('data-layout', layout);
  this.section.style.setProperty('--ma-lanes', String(this.laneCount || 1));
  this.markLanesFit(fits);
  this.section.querySelectorAll('.ma-trace-layout').forEach(function (button) {
    button.setAttribute('aria-pressed', button.getAttribute('data-layout') === layout ? 'true' : 'false');
  });
  this.paint(sightPx);
  if (why && layout === 'lanes' && !fits) {
    why += '; stacked in step order: ' + this.laneCount + ' lanes do not fit this width';
  }
  if (why) { this.say('Layout: ' + layout + ' (' + why + ').'); }
};

View.prototype.ensureList = function () {
  if (this.list && this.list.parentNode === this.viewport) { return this.list; }
  core.clear(this.viewport);
  this.before = core.h('button', {type: 'button', class: 'ma-trace-more', 'data-more': 'before'});
  this.list = core.h('ol', {class: 'ma-trace-steps', 'aria-label': 'Steps'});
  this.after = core.h('button', {type: 'button', class: 'ma-trace-more', 'data-more': 'after'});
  this.viewport.appendChild(this.before);
  this.viewport.appendChild(this.list);
  this.viewport.appendChild(this.after);
  return this.list;
};

/** Draw the window's rows: all of them, or (`sightPx`) those a viewport that tall can show, the
 * rest after the next frame. */
View.prototype.paint = function (sightPx) {
  var list = this.ensureList();
  core.clear(list);
  this.end = Math.min(this.steps.length, this.start + WINDOW);
  this.drawnEnd = this.start;
  this.drawRows(sightPx ? Math.min(this.end, this.start + Math.ceil(sightPx / MIN_ROW_PX) + 1) : this.end);
  this.before.hidden = this.start === 0;
  this.before.textContent = 'Show earlier steps (#1\u2013#' + this.start + ')';
  this.after.hidden = this.end >= this.steps.length;
  this.after.textContent = 'Show later steps (#' + (this.end + 1) + '\u2013#' + this.steps.length + ')';
  if (this.current !== null) { this.mark(this.current, false); }
  this.keepOneTabStop();
  if (this.drawnEnd < this.end) {
    var view = this;
    core.afterNextFrame(function () { view.drawRest(); });
  }
};

/** The rows from the last drawn to `end`, appended (those drawn stay where they are). */
View.prototype.drawRows = function (end) {
  for (var i = this.drawnEnd; i < end; i++) { this.list.appendChild(rows.row(this, this.steps.at(i), i - this.start)); }
  this.drawnEnd = Math.max(this.drawnEnd, end);
};

/** The rest of the window, if the first drawing left some (see paint). The current step is marked
 * already: a current step past the first drawing had paint's mark draw the rest (rowFor). */
View.prototype.drawRest = function () {
  if (this.list && this.drawnEnd < this.end) { this.drawRows(this.end); }
};

/** Roving tabindex: one step card in the Tab order (the current one, else the window's first). */
View.prototype.keepOneTabStop = function () {
  if (!this.list || this.list.querySelector('.ma-trace-step[tabindex="0"]')) { return; }
  var first = this.list.querySelector('.ma-trace-step');
  if (first) { first.setAttribute('tabindex', '0'); }
};

/** Move the window so it starts at `start`, keeping the row at the viewport's top where it was. */
View.prototype.moveWindow = function (start) {
  start = Math.max(0, Math.min(start, Math.max(0, this.steps.length - WINDOW)));
  if (start === this.start) { return; }
  var anchor = this.firstVisibleRow();
  var anchorIndex = anchor ? Number(anchor.getAttribute('data-step')) : null;
  var offset = anchor ? anchor.getBoundingClientRect().top - this.viewport.getBoundingClientRect().top : 0;
  var focused = this.focusInWindow();
  this.start = start;
  this.paint();
  if (anchorIndex !== null) {
    var again = this.rowFor(anchorIndex);
    if (again) {
      this.viewport.scrollTop += again.getBoundingClientRect().top - this.viewport.getBoundingClientRect().top - offset;
    }
  }
  if (focused) { this.refocus(focused); }
};

/** Where focus is among the drawn rows: {index: its step, position: among the row's controls}. */
View.prototype.focusInWindow = function () {
  var active = document.activeElement;
  var row = this.list && active && this.list.contains(active) ? active.closest('li.ma-trace-row') : null;
  if (!row) { return null; }
  var position = Array.prototype.indexOf.call(row.querySelectorAll(FOCUSABLE), active);
  return {index: Number(row.getAttribute('data-step')), position: position};
};

/** Focus back on the same control of the same step after the rows were rebuilt (the window moved
 * under the keyboard: the focused row is drawn anew, and focus would fall to the page's body). */
View.prototype.refocus = function (focused) {
  var row = this.rowFor(focused.index);
  if (!row) { return; }
  var target = row.querySelectorAll(FOCUSABLE)[focused.position] || row.querySelector('.ma-trace-step');
  if (target) { target.focus({preventScroll: true}); }
};

View.prototype.firstVisibleRow = function () {
  var top = this.viewport.getBoundingClientRect().top;
  var rows = this.list ? this.list.children : [];
  for (var i = 0; i < rows.length; i++) {
    if (rows[i].getBoundingClientRect().bottom > top) { return rows[i]; }
  }
  return null;
};

/** The drawn row of step `index` (the rest of the window drawn first if the first drawing left it out). */
View.prototype.rowFor = function (index) {
  if (index >= this.drawnEnd) { this.drawRest(); }
  return this.list ? this.list.querySelector('li.ma-trace-row[data-step="' + index + '"]') : null;
};

/** Focus reaching the window's first or last rows (Tab, Shift+Tab) moves the window on, as a scroll
 * to its edge does: in a layout whose last row does not bring the viewport to its end (the board),
 * scrolling alone never moved it and Tab left the trace at the 40th step. */
View.prototype.onFocusIn = function (event) {
  this.drawRest();
  var row = event.target && event.target.closest ? event.target.closest('li.ma-trace-row') : null;
  if (!row || !this.list || !this.list.contains(row)) { return; }
  var index = Number(row.getAttribute('data-step'));
  if (index >= this.start + WINDOW - EDGE_ROWS && this.start + WINDOW < this.steps.length) {
    this.moveWindow(this.start + SHIFT);
  } else if (index < this.start + EDGE_ROWS && this.start > 0) {
    this.moveWindow(this.start - SHIFT);
  }
};

View.prototype.onScroll = function () {
  this.drawRest();
  var viewport = this.viewport;
  var end = this.start + WINDOW;
  if (viewport.scrollTop + viewport.clientHeight >= viewport.scrollHeight - 40 && end < this.steps.length) {
    this.moveWindow(this.start + SHIFT);
  } else if (viewport.scrollTop <= 40 && this.start > 0) {
    this.moveWindow(this.start - SHIFT);
  }
};

/** Bring step `index` into the window and view, highlight and focus it. */
View.prototype.show = function (index, source) {
  if (!(index >= 0 && index < this.steps.length)) {
    this.say('Step #' + (Number(index) + 1) + ' is not in this trace.');
    return false;
  }
  if (index < this.start || index >= this.start + WINDOW) {
    this.start = Math.max(0, Math.min(index - Math.floor(WINDOW / 4), this.steps.length - WINDOW));
    this.paint();
  }
  this.returnTo = source && source.nodeType === 1 ? source : null;
  this.mark(index, true);
  var entry = this.steps.at(index);
  this.say('Showing ' + entry.number + ', ' + entry.agentLabel + (this.returnTo ? '. Escape returns.' : '.'));
  return true;
};

View.prototype.mark = function (index, focus) {
  this.section.querySelectorAll('.ma-trace-step.ma-trace-current, .ma-trace-step[tabindex="0"]').forEach(function (node) {
    node.classList.remove('ma-trace-current');
    node.removeAttribute('aria-current');
    node.setAttribute('tabindex', '-1');
  });
  this.current = index;
  rows.paintFolds(this);   // the current step's tags unfold, the previous one's fold back
  var rowNode = this.rowFor(index);
  if (!rowNode) { this.keepOneTabStop(); return; }
  var card = rowNode.querySelector('.ma-trace-step');
  card.classList.add('ma-trace-current');
  card.setAttribute('aria-current', 'step');
  card.setAttribute('tabindex', '0');
  if (focus) {
    card.focus({preventScroll: true});
    var top = card.getBoundingClientRect().top - this.viewport.getBoundingClientRect().top;
    this.viewport.scrollTop += top - 8;
  }
};

/** Mark step `index` current without moving focus; the tags it unfolds sit above its actions, so
 * the pane scrolls by what they added and the clicked button stays under the pointer. */
View.prototype.markKeepingPlace = function (index, button) {
  var before = button ? button.getBoundingClientRect().top : null;
  this.mark(index, false);
  if (before !== null && button.isConnected) { this.viewport.scrollTop += button.getBoundingClientRect().top - before; }
};

/** "Skip the trace": focus the first control of the page's first question (ours or Potato's). */
View.prototype.skipToQuestions = function () {
  var control = firstControl(document.querySelectorAll('form.annotation-form'));
  if (control) { control.focus(); } else { this.say('No question on this page.'); }
};

/** "Back to the trace": the current step, else the view's first control (its layout buttons). */
View.prototype.backToTrace = function () {
  var current = this.section.querySelector('.ma-trace-step.ma-trace-current');
  var target = current || firstControl([this.section.querySelector('.ma-trace-head')]);
  if (target) { target.focus(); }
};

/** Keyboard: on a step, Up/Down next step, Left/Right the step of the neighbouring lane, Home/End;
 * Escape anywhere in the step a link brought you to goes back to the link. (A step's chips are
 * one Tab stop with arrows inside: core.oneTabStop, which keeps those keys.) */
View.prototype.onKey = function (event) {
  var card = event.target.closest && event.target.closest('.ma-trace-step');
  if (!card) { return; }
  if (event.target !== card) {
    if (event.key === 'Escape') {
      this.goBack(event);   // a part that takes Escape first (MAST's shown definition) stops it before the view
    }
    return;
  }
  var index = Number(card.getAttribute('data-step'));
  var next = null;
  if (event.key === 'ArrowDown') { next = index + 1; }
  else if (event.key === 'ArrowUp') { next = index - 1; }
  else if (event.key === 'Home') { next = 0; }
  else if (event.key === 'End') { next = this.steps.length - 1; }
  else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') { next = this.neighbourLane(index, event.key === 'ArrowRight' ? 1 : -1); }
  else if (event.key === 'Escape') { this.goBack(event); return; }
  else { return; }
  event.preventDefault();
  event.stopPropagation();   // Potato binds Left/Right to Prev/Next instance
  if (next === null || next < 0 || next >= this.steps.length) {
    this.say(next === null ? 'No step in that direction.' : 'No more steps.');
    return;
  }
  var keepReturn = this.returnTo;
  this.show(next, null);
  this.returnTo = keepReturn;
};

/** Escape: focus back on the link or control that showed the current step, if it is still there. */
View.prototype.goBack = function (event) {
  if (!this.returnTo || !document.contains(this.returnTo)) { return; }
  event.preventDefault();
  var back = this.returnTo;
  this.returnTo = null;
  back.focus();
  this.say('Back where you were.');
};

/** The next step (after `index`, else before it) whose lane is the neighbouring one, in lanes. */
View.prototype.neighbourLane = function (index, direction) {
  var steps = this.derivation.steps;
  var lane = this.laneOf(steps[index].agent) + direction;
  if (lane < 0 || lane >= this.laneCount || this.laneCount < 2) { return null; }
  for (var i = index + 1; i < steps.length; i++) { if (this.laneOf(steps[i].agent) === lane) { return i; } }
  for (var j = index - 1; j >= 0; j--) { if (this.laneOf(steps[j].agent) === lane) { return j; } }
  return null;
};

View.prototype.onClick = function (event) {
  var skip = event.target.closest('[data-ma="skip-trace"], [data-ma="back-to-trace"]');
  if (skip) {
    event.preventDefault();
    if (skip.getAttribute('data-ma') === 'skip-trace') { this.skipToQuestions(); } else { this.backToTrace(); }
    return;
  }
  var more = event.target.closest('.ma-trace-more');
  if (more) {
    this.moveWindow(more.getAttribute('data-more') === 'before' ? this.start - WINDOW : this.start + WINDOW);
    return;
  }
  var layoutButton = event.target.closest('.ma-trace-layout');
  if (layoutButton) {
    this.chosenByAnnotator = true;
    this.setLayout(layoutButton.getAttribute('data-layout'), 'chosen');
    return;
  }
  var action = event.target.closest('.ma-trace-action');
  if (action) { this.act(Number(action.getAttribute('data-step')), action.getAttribute('data-action'), action); return; }
  var said = null;
  for (var parts = rows.traceParts(), i = 0; i < parts.length && !said; i++) { said = parts[i].clicked(this, event.target); }
  if (said) {
    rows.paintFolds(this);
    this.say(said);
    return;
  }
  var tagsToggle = event.target.closest('.ma-trace-tags-toggle');
  if (tagsToggle) { rows.toggleTags(this, Number(tagsToggle.getAttribute('data-step'))); return; }
  var chip = event.target.closest('.ta-chip');
  if (chip) {
    var view = this;
    setTimeout(function () { rows.afterChipClick(view, chip); }, 0);   // after Potato's handler
  }
};

/** A step action; the step a widget took it for becomes current (its tags unfold: "Set as decisive
 * step", then the MAST mode on that step, is two clicks). */
View.prototype.act = function (index, action, button) {
  var entry = this.steps.at(index);
  var event = new CustomEvent('multiagent:step-action', {cancelable: true, detail: {index: index, action: action}});
  var handled = !document.dispatchEvent(event);
  if (handled) { this.markKeepingPlace(index, button); }
  this.say(handled ? rows.actionLabel(action) + ': done for ' + entry.number + ' (' + entry.agentLabel + ').'
    : rows.actionLabel(action) + ': nothing on this page took ' + entry.number + '.');
};

// ---------------------------------------------------------------------------------------------
// The page: views, the layout radio, the event contract
// ---------------------------------------------------------------------------------------------

var views = [];

function radioAnswer(scheme) {
  var checked = document.querySelector('input[type="radio"][schema="' + CSS.escape(scheme) + '"]:checked');
  if (!checked) { return null; }
  return checked.getAttribute('label_name') || checked.value;
}

var SECTIONS = 'section.ma-trace[data-ma-trace]';
var CONTROLS = 'button, a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])';
var FOCUSABLE = 'button, a[href], input, select, textarea, [tabindex]';

/** The first visible, enabled control inside `containers`, in their order. */
function firstControl(containers) {
  for (var i = 0; i < containers.length; i++) {
    var found = containers[i] ? containers[i].querySelectorAll(CONTROLS) : [];
    for (var j = 0; j < found.length; j++) {
      if (!found[j].disabled && found[j].getClientRects().length) { return found[j]; }
    }
  }
  return null;
}

/**
 * On DOMContentLoaded. The page's layout for a trace view (ma-has-trace) is set now, once (the views
 * come with the page): the forms' build near the screen (lazy.js) measures in it. The rows are drawn
 * now only where no Potato will show the item later: on Potato's annotation page the item is hidden
 * until potato:instance-ready, whose init draws them, so a drawing now would be done twice before
 * anyone sees it (docs/performance.md).
 */
/** The page has a trace view (the page's layout rules read the class), known once it is parsed. */
function markPage() {
  document.documentElement.classList.toggle('ma-has-trace', document.querySelector(SECTIONS) !== null);
}

function init() {
  views = [];
  document.querySelectorAll(SECTIONS).forEach(function (section) {
    var view = section.__maTraceView || new View(section);
    section.__maTraceView = view;
    if (!view.wired) {
      view.wired = true;
      section.addEventListener('click', function (event) { view.onClick(event); });
      section.addEventListener('keydown', function (event) { view.onKey(event); });
      section.addEventListener('focusin', function (event) { view.onFocusIn(event); });
      core.keepArrows(section);   // every button and chip of the view, not only the step cards
      view.viewport.addEventListener('scroll', function () { view.onScroll(); }, {passive: true});
      if (typeof ResizeObserver === 'function') {
        var observer = new ResizeObserver(function () { view.onResize(); });
        observer.observe(view.viewport);
        var area = section.closest('.instance-area');
        if (area) { observer.observe(area); }
        // the parts above the viewport: a status line filled or wrapped changes what the pane leaves it
        [view.status, section.querySelector('.ma-trace-head')].forEach(function (part) {
          if (part) { observer.observe(part); }
        });
      }
    }
    view.load();
    var layout = view.wantedLayout();   // the pane read (one layout) before its rows are drawn
    var height = view.fitPane();   // beside the forms, else the viewport is at most the window's height
    view.setLayout(layout, null, height || window.innerHeight || null);
    views.push(view);
  });
  core.markTime(IN_VIEW_MARK);
}

function onRadioChange(event) {
  var target = event.target;
  if (!target || target.type !== 'radio') { return; }
  var scheme = target.getAttribute('schema');
  views.forEach(function (view) {
    if (view.config.layout_from !== scheme || view.chosenByAnnotator) { return; }
    var answer = radioAnswer(scheme);
    var layout = model.layoutForAnswer(answer, view.config.layout_map);
    if (layout) {
      if (layout !== view.layout) { view.setLayout(layout, 'from the answer to ' + scheme); }
      return;
    }
    // An answer the map does not name (a debate, "other") sets no layout: back to the configured one,
    // said, so the last "from the answer" never stands for an answer that no longer holds.
    view.setLayout(view.configuredLayout(), 'the answer ' + answer + ' sets no layout');
  });
}

/** show-step for any [data-ma-step-link] clicked anywhere on the page. */
function onLinkClick(event) {
  var link = event.target.closest && event.target.closest('[data-ma-step-link]');
  if (!link) { return; }
  event.preventDefault();
  showStep(Number(link.getAttribute('data-ma-step-link')), link);
}

function showStep(index, source) {
  document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: index, source: source || null}}));
}

function onShowStep(event) {
  var detail = event.detail || {};
  views.forEach(function (view) { view.show(Number(detail.index), detail.source || null); });
}

var started = false;
function start() {
  if (started || typeof document === 'undefined') { return; }
  started = true;
  document.addEventListener('multiagent:show-step', onShowStep);
  document.addEventListener('click', onLinkClick);
  document.addEventListener('change', onRadioChange);
  document.addEventListener('click', function (event) { setTimeout(function () { onRadioChange(event); }, 0); });
  if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', markPage); } else { markPage(); }
  core.onItemShown(init);   // drawn for each item the page shows, after the forms (the core's lifecycle)
  document.addEventListener('change', onPartInputChange);
}

/** A form's value a part of the view shows changed (MAST: a chip, the form's own controls, another
 * tab): that part repaints. */
function onPartInputChange(event) {
  rows.traceParts().forEach(function (part) {
    if (!part.isInput(event.target)) { return; }
    views.forEach(function (view) {
      part.repaint(view);
      rows.paintFolds(view);
    });
  });
}

// what the node tests read of the view's parts
export {stepModel, viewModel, rowFacts, autoLayout, layoutRule, layoutForAnswer} from './trace_view_model.js';
export {judgmentMarks} from './trace_view_judgments.js';

start();   // in the page: the view joins the runtime's lifecycle (no DOM under node: nothing)
