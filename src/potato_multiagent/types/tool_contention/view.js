/*
 * view.js of `multiagent.tool_contention`: the DOM of the widget, on the runtime (runtime.js).
 *
 * The timeline (view_timeline.js) shows the agents' timed calls and the
 * contention regions as bands; the region list here, paged, is where the annotator labels each
 * region (a "Label" radio group, a note, "label the linked set"). The rules and words are in
 * marks.js; the runtime paints summary, completeness, notices and the "saved but not in this
 * trace" list (with Remove) from marks.describe after every model.set.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';
import * as judgmentsPart from './view_judgments.js';   // judged labels beside each region
import * as tl from './view_timeline.js';

var marks = runtime.marksOf('tool_contention');
var PAGE_SIZE = 20;
var TYPING_DELAY_MS = 300;
var MAX_LISTED_LINKS = 8;
var LEFT_OUT_PAGE = 50;
var formSerial = 0;

// ---------------------------------------------------------------------------------------------
// The UI: the template's containers, wired once
// ---------------------------------------------------------------------------------------------

function part(el, name) {
  var node = el.querySelector('[data-ma-tc="' + name + '"]');
  if (!node) { throw new Error('the page lacks the ' + name + ' part of this question (data-ma-tc="' + name + '")'); }
  return node;
}

function createUi(el, rt) {
  formSerial += 1;
  var ui = {
    serial: formSerial,
    timeline: part(el, 'timeline'), caption: part(el, 'caption'), windowText: part(el, 'window'),
    detail: part(el, 'detail'), progress: part(el, 'progress'), regionList: part(el, 'regions'),
    leftOut: part(el, 'left-out'), leftOutSummary: part(el, 'left-out-summary'),
    leftOutList: part(el, 'left-out-list'),
    rt: rt, actions: {}, model: null, config: null, data: null, derivation: null,
    view: null, chosen: null, focusCall: null, rovingCall: null,
    marks: new Map(), stale: [], unreadable: null, stored: false, confirmedEmpty: false, labelled: 0,
    lastAction: null,                 // words for the live region after the next describe()
    rects: new Map(), callOfRect: new WeakMap(), items: new Map(), bandPaths: [], svg: null, selection: null,
    width: 0
  };
  Array.prototype.forEach.call(el.querySelectorAll('[data-ma-tc-action]'), function (button) {
    ui.actions[button.getAttribute('data-ma-tc-action')] = button;
  });
  ui.act = {
    choose: function (index, options) { choose(ui, index, options); },
    stepRegion: function (direction) { stepRegion(ui, direction); },
    focusRegion: function (index) { focusRegionButton(ui, index); },
    announce: function (text) { ui.rt.summary(text); },
    describeView: function () { describeView(ui); }
  };
  wireToolbar(ui);
  tl.wireTimeline(ui);
  wireRegionList(ui);
  ui.typing = ui.rt.debounce(function () { commit(ui); }, TYPING_DELAY_MS);
  ui.regionPager = rt.pager(ui.regionList, {size: PAGE_SIZE, noun: 'regions',
    draw: function (first, end) { return drawRegions(ui, first, end); }});
  ui.leftOut.addEventListener('toggle', function () { fillLeftOut(ui); });
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(function () {
      if (ui.data && tl.plotWidthOf(ui) !== ui.width) { tl.drawTimeline(ui); }
    }).observe(ui.timeline);
  }
  return ui;
}

function wireToolbar(ui) {
  var handlers = {
    'zoom-in': function () { tl.zoom(ui, 0.5); },
    'zoom-out': function () { tl.zoom(ui, 2); },
    'show-all': function () { tl.setView(ui, ui.data.scale.start, ui.data.scale.end); },
    earlier: function () { tl.pan(ui, -0.5); },
    later: function () { tl.pan(ui, 0.5); },
    'next-unlabelled': function () { chooseNextUnlabelled(ui); },
    'confirm-empty': function () {
      ui.confirmedEmpty = true;
      ui.lastAction = 'Confirmed: this timeline has nothing to label.';
      commit(ui);
    }
  };
  Object.keys(handlers).forEach(function (name) {
    var button = ui.actions[name];
    if (button) { button.addEventListener('click', function () { if (ui.data) { handlers[name](); } }); }
  });
}


// ---------------------------------------------------------------------------------------------
// The region list: pages of PAGE_SIZE groups, each with a "Label" radio group
// ---------------------------------------------------------------------------------------------

/** Regions `first`..`end` (the pager's page), one fragment; their nodes in order. */
function drawRegions(ui, first, end) {
  ui.items = new Map();
  var fragment = document.createDocumentFragment();
  var nodes = ui.data.regions.slice(first, end).map(function (region) {
    return fragment.appendChild(regionItem(ui, region));
  });
  runtime.clear(ui.regionList);
  if (!ui.data.regions.length) {
    ui.regionList.appendChild(runtime.h('p', {class: 'ma-tc-empty',
      text: 'No two agents use one resource at overlapping times in this trace: there is nothing to label.'}));
  }
  ui.regionList.appendChild(fragment);
  describeRegionActions(ui);
  return nodes;
}

/** The buttons beside the pager: "Next unlabelled region", "Confirm there is nothing to label". */
function describeRegionActions(ui) {
  var total = ui.data.regions.length;
  ui.actions['next-unlabelled'].disabled = ui.labelled >= total;
  ui.actions['confirm-empty'].hidden = total > 0;
  ui.actions['confirm-empty'].disabled = Boolean(ui.stored);
}

function regionItem(ui, region) {
  var scale = ui.data.scale;
  var name = marks.regionName(region, scale);
  var radios = ui.config.contention_labels.map(function (label) {
    return runtime.h('label', {class: 'ma-tc-label-option'}, [
      runtime.h('input', {type: 'radio', name: 'ma-tc-' + ui.serial + '-' + region.index, value: label,
        'data-ma-tc-label': ''}), ' ', label]);
  });
  var item = {
    choose: runtime.h('button', {type: 'button', class: 'ma-tc-choose', 'aria-pressed': 'false',
      'data-ma-tc-choose': region.index, text: 'Region ' + (region.index + 1)}),
    zoom: runtime.h('button', {type: 'button', class: 'ma-tc-zoom', 'data-ma-tc-zoom': region.index,
      'aria-label': 'Zoom to region ' + (region.index + 1), text: 'Zoom to region'}),
    status: runtime.h('span', {class: 'ma-tc-status'}),
    radios: radios.map(function (label) { return label.querySelector('input'); }),
    clearButton: runtime.h('button', {type: 'button', class: 'ma-tc-clear', 'data-ma-tc-clear': region.index,
      text: 'Clear label'}),
    note: null,
    links: linksLine(ui, region)
  };
  var children = [
    runtime.h('div', {class: 'ma-tc-region-head'}, [item.choose,
      runtime.h('span', {class: 'ma-tc-region-text', text: marks.clip(region.resource) + ' \u00B7 ' + marks.formatTime(scale, region.start) +
        ' to ' + marks.formatTime(scale, region.end) + ' \u00B7 ' + region.agents.map(marks.clip).join(', ') + ' \u00B7 ' +
        region.calls.length + ' calls'}), item.status, item.zoom]),
    runtime.h('div', {role: 'radiogroup', 'aria-label': 'Label', class: 'ma-tc-labels'}, [radios, item.clearButton]),
    judgmentsPart.box(ui, item)
  ];
  if (ui.config.allow_note !== false) {
    item.note = runtime.h('textarea', {rows: 2, class: 'ma-tc-note-input', 'data-ma-tc-note': region.index,
      maxlength: runtime.textLimit});
    children.push(runtime.h('label', {class: 'ma-tc-note'}, ['Note', item.note]));
  }
  if (item.links) { children.push(item.links.line); }
  item.node = runtime.h('div', {role: 'group', 'aria-label': name, class: 'ma-tc-region',
    'data-ma-region': region.index}, children);
  ui.items.set(region.index, item);
  paintItem(ui, region.index);
  return item.node;
}

/** "Linked with Region 4 and Region 5 ..." and the button that labels the whole set. */
function linksLine(ui, region) {
  var members = ui.data.links[region.index];
  if (members.length < 2) { return null; }
  var others = members.filter(function (index) { return index !== region.index; });
  var listed = others.slice(0, MAX_LISTED_LINKS).map(function (index) { return 'Region ' + (index + 1); });
  if (others.length > MAX_LISTED_LINKS) { listed.push((others.length - MAX_LISTED_LINKS) + ' more'); }
  var button = runtime.h('button', {type: 'button', class: 'ma-tc-label-set', 'data-ma-tc-label-set': region.index,
    text: 'Give all ' + members.length + ' linked regions this label'});
  return {
    button: button,
    line: runtime.h('p', {class: 'ma-tc-links'}, [
      runtime.h('span', {text: 'Linked with ' + listed.join(', ') + ' (shared agents at overlapping times). '}), button])
  };
}

/** Show one region's mark in its controls (in place: focus and caret stay). */
function paintItem(ui, index) {
  var item = ui.items.get(index);
  if (!item) { return; }
  var mark = ui.marks.get(index) || null;
  item.radios.forEach(function (radio) {
    var on = mark !== null && radio.value === mark.label;
    if (radio.checked !== on) { radio.checked = on; }
  });
  var unknown = mark !== null && ui.config.contention_labels.indexOf(mark.label) < 0;
  item.status.textContent = mark === null ? 'not labelled'
    : unknown ? 'saved label "' + mark.label + '" is not one of the labels offered' : '\u2713 labelled';
  item.node.classList.toggle('ma-tc-region-done', mark !== null);
  item.clearButton.disabled = mark === null;
  if (item.note) {
    var note = mark ? mark.note : '';
    if (item.note.value !== note) { item.note.value = note; }
    item.note.disabled = mark === null;
    item.note.setAttribute('placeholder', mark === null ? 'Choose a label first' : '');
  }
  if (item.links) { item.links.button.disabled = mark === null; }
  var chosen = ui.chosen === index;
  item.choose.setAttribute('aria-pressed', chosen ? 'true' : 'false');
  item.node.classList.toggle('ma-tc-region-chosen', chosen);
  judgmentsPart.paint(ui, index, item, mark);
}

function wireRegionList(ui) {
  var list = ui.regionList;
  list.addEventListener('change', function (event) {
    var target = event.target;
    if (target.hasAttribute('data-ma-tc-label') && target.checked) {
      setLabel(ui, [regionIndexOf(target)], target.value);
    } else if (target.hasAttribute('data-ma-tc-note')) {
      ui.typing.flush();
    }
  });
  list.addEventListener('input', function (event) {
    if (event.target.hasAttribute('data-ma-tc-note')) {
      var mark = ui.marks.get(regionIndexOf(event.target));
      if (mark) { mark.note = event.target.value; ui.typing(); }
    }
  });
  list.addEventListener('focusout', function (event) {
    if (event.target.hasAttribute('data-ma-tc-note')) { ui.typing.flush(); }
  });
  list.addEventListener('click', function (event) {
    var target = event.target.closest ? event.target.closest('button') : null;
    if (!target || !ui.data) { return; }
    if (target.hasAttribute('data-ma-tc-choose')) { choose(ui, Number(target.getAttribute('data-ma-tc-choose')), {toggle: true}); }
    if (target.hasAttribute('data-ma-tc-zoom')) { chooseAndZoom(ui, Number(target.getAttribute('data-ma-tc-zoom'))); }
    if (target.hasAttribute('data-ma-tc-clear')) { clearLabel(ui, Number(target.getAttribute('data-ma-tc-clear'))); }
    if (target.hasAttribute('data-ma-tc-label-set')) { labelLinkedSet(ui, Number(target.getAttribute('data-ma-tc-label-set'))); }
  });
  list.addEventListener('keydown', function (event) {
    if (!event.target.hasAttribute('data-ma-tc-choose')) { return; }
    var index = Number(event.target.getAttribute('data-ma-tc-choose'));
    var total = ui.data.regions.length;
    var to = {ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: total - 1}[event.key];
    if (to === undefined) { return; }
    event.preventDefault();
    event.stopPropagation();
    if (to >= 0 && to < total) { focusRegionButton(ui, to); }
  });
}

function regionIndexOf(node) {
  return Number(node.closest('[data-ma-region]').getAttribute('data-ma-region'));
}

/** Focus a region's "Region K" button, turning the page when it is on another one. */
function focusRegionButton(ui, index) {
  ui.regionPager.open(index);
  var item = ui.items.get(index);
  if (item) { item.choose.focus(); }
}

// ---------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------

/** Choose a region (or, with toggle, un-choose the chosen one): outline it and its calls. */
function choose(ui, index, options) {
  var previous = ui.chosen;
  ui.chosen = options.toggle && previous === index ? null : index;
  if (ui.chosen !== null) {
    var region = ui.data.regions[ui.chosen];
    ui.regionPager.open(ui.chosen);
    tl.reveal(ui, region.start, region.end);
  }
  if (previous !== null) { paintItem(ui, previous); }
  if (ui.chosen !== null) { paintItem(ui, ui.chosen); }
  tl.paintChosen(ui, previous);
  describe(ui);
}

function chooseAndZoom(ui, index) {
  if (ui.chosen !== index) { choose(ui, index, {toggle: false}); }
  tl.zoomToRegion(ui, index);
}

/** Page Up/Down on the timeline: choose the next region and focus its first call. */
function stepRegion(ui, direction) {
  var total = ui.data.regions.length;
  if (!total) { return; }
  var from = ui.chosen === null ? (direction > 0 ? -1 : total) : ui.chosen;
  var to = Math.min(Math.max(from + direction, 0), total - 1);
  choose(ui, to, {toggle: false});
  var first = ui.data.callsByIndex.get(ui.data.regions[to].calls[0]);
  tl.focusCall(ui, first);
}

function chooseNextUnlabelled(ui) {
  var regions = ui.data.regions;
  var start = ui.chosen === null ? 0 : ui.chosen + 1;
  for (var step = 0; step < regions.length; step++) {
    var index = (start + step) % regions.length;
    if (!ui.marks.has(index)) {
      choose(ui, index, {toggle: false});
      focusRegionButton(ui, index);
      return;
    }
  }
}

/** Give `indices` the label, by hand or accepted from judgment `source` (from_judgment); notes stay. */
function setLabel(ui, indices, label, source) {
  indices.forEach(function (index) {
    var mark = {label: label, note: ui.marks.has(index) ? ui.marks.get(index).note : ''};
    ui.marks.set(index, source ? Object.assign(mark, {fromJudgment: source}) : mark);
  });
  ui.confirmedEmpty = false;
  afterMarks(ui, indices);
  var words = indices.length === 1 ? 'Region ' + (indices[0] + 1) : indices.length + ' linked regions';
  ui.lastAction = words + ' labelled ' + label + (source ? ' (accepted ' + source + '’s answer).' : '.');
  commit(ui);
}

function clearLabel(ui, index) {
  ui.marks.delete(index);
  afterMarks(ui, [index]);
  ui.lastAction = 'Label of Region ' + (index + 1) + ' cleared.';
  commit(ui);
  var item = ui.items.get(index);
  if (item) { item.choose.focus(); }   // the Clear button is now disabled
}

function labelLinkedSet(ui, index) {
  var mark = ui.marks.get(index);
  if (mark) { setLabel(ui, ui.data.links[index].slice(), mark.label); }
}

/** After marks changed: repaint the touched items and the lanes of their agents. */
function afterMarks(ui, indices) {
  ui.unreadable = null;
  ui.labelled = ui.marks.size;
  var agents = new Set();
  indices.forEach(function (index) {
    paintItem(ui, index);
    ui.data.regions[index].agents.forEach(function (agent) { agents.add(agent); });
  });
  tl.paintBands(ui, Array.from(agents));
}

/** Store what the widget shows, once per action (the runtime paints the description), then say it. */
function commit(ui) {
  ui.typing.cancel();
  var value = marks.composeValue(ui.marks, ui.stale, ui.data.regions, ui.data.callsByIndex, ui.confirmedEmpty);
  ui.unreadable = null;
  ui.model.set(value);
  ui.stored = value !== null;
  ui.stale.forEach(function (item, position) { item.position = ui.marks.size + position; });   // as now stored
  describe(ui);
}

// ---------------------------------------------------------------------------------------------
// Words on the page the runtime does not paint: progress, region actions, the chosen region, left-out calls
// ---------------------------------------------------------------------------------------------

/** Progress and region actions; the live line says the last action, the summary and the chosen region. */
function describe(ui) {
  var data = ui.data;
  var total = data.regions.length;
  ui.progress.textContent = total ? ui.labelled + ' of ' + total + ' regions labelled.' : '';
  describeRegionActions(ui);
  var chosen = null;
  if (ui.chosen !== null) {
    var mark = ui.marks.get(ui.chosen);
    chosen = marks.regionName(data.regions[ui.chosen], data.scale) + ', ' + (mark ? 'labelled ' + mark.label : 'not labelled');
  }
  var summary = marks.summaryText({total: total, labelled: ui.labelled, stale: ui.stale.length,
    leftOut: data.leftOut.length, unreadable: ui.unreadable}, chosen);
  ui.rt.summary((ui.lastAction ? ui.lastAction + ' ' : '') + summary);
  ui.lastAction = null;
}

/** The left-out list is built when opened, a page at a time: a trace may leave thousands of calls out. */
function fillLeftOut(ui) {
  if (!ui.leftOut.open || ui.leftOutList.childNodes.length || !ui.data) { return; }
  if (!ui.leftOutPager) {
    ui.leftOutPager = ui.rt.pager(ui.leftOutList, {size: LEFT_OUT_PAGE, noun: 'calls left out'});
  }
  var leftOut = ui.data.leftOut;
  ui.leftOutPager.show(leftOut.length, function (i) { return runtime.h('li', {text: marks.leftOutText(leftOut[i])}); });
}

// ---------------------------------------------------------------------------------------------
// Render (called by the runtime on load and on every potato:instance-ready)
// ---------------------------------------------------------------------------------------------

/** One render pass (the runtime has flushed pending typing): show the stored value. */
function render(args) {
  var ui = args.ui.state.view || (args.ui.state.view = createUi(args.el, args.ui));
  ui.rt = args.ui;
  ui.model = args.model;
  ui.config = args.config;
  var fresh = ui.derivation !== args.derivation;
  if (fresh) { adopt(ui, args.derivation); }
  judgmentsPart.read(ui, args, setLabel);
  var stored = args.model.get();
  var matched = marks.matchMarks(stored.value, ui.data.regions);
  ui.unreadable = stored.unreadable;
  ui.stored = stored.value !== null;
  ui.confirmedEmpty = stored.value !== null && stored.value.regions.length === 0;
  ui.marks = matched.marks;
  ui.stale = matched.stale;
  ui.labelled = ui.marks.size;
  if (fresh) {
    tl.drawTimeline(ui);
    ui.regionPager.show(ui.data.regions.length);
  } else {
    ui.items.forEach(function (item, index) { paintItem(ui, index); });
    tl.paintBands(ui, null);
  }
  describe(ui);
}

/** A new derivation (a new page's record): arrange it and start from the whole timeline. */
function adopt(ui, derivation) {
  ui.derivation = derivation;
  ui.data = tl.arrange(derivation);
  ui.view = tl.firstView(ui.data);
  ui.chosen = null;
  ui.focusCall = null;
  var leftOut = ui.data.leftOut.length;
  ui.leftOut.hidden = leftOut === 0;
  ui.leftOutSummary.textContent = 'Calls left out of the timeline (' + leftOut + ')';
  runtime.clear(ui.leftOutList);
  fillLeftOut(ui);
}

function describeView(ui) {
  var scale = ui.data.scale;
  ui.caption.textContent = marks.axisCaption(scale);
  var whole = ui.view.start <= scale.start && ui.view.end >= scale.end;
  ui.windowText.textContent = whole ? 'Showing the whole timeline.'
    : 'Showing ' + marks.formatTime(scale, ui.view.start) + ' to ' + marks.formatTime(scale, ui.view.end) + '.';
  var outside = outsideWordsOf(ui);
  outside.textContent = windowWords(ui);
  outside.hidden = outside.textContent === '';
  ui.actions['zoom-in'].disabled = !ui.data.calls.length;
  ui.actions['zoom-out'].disabled = whole;
  ui.actions['show-all'].disabled = whole;
  ui.actions.earlier.disabled = ui.view.start <= scale.start;
  ui.actions.later.disabled = ui.view.end >= scale.end;
}

/** The line under the window's interval that says what the window leaves out (made once). */
function outsideWordsOf(ui) {
  if (!ui.outsideWords) {
    ui.outsideWords = runtime.h('p', {class: 'ma-tc-outside-words', hidden: true});
    ui.caption.parentNode.insertBefore(ui.outsideWords, ui.caption);   // under the toolbar
  }
  return ui.outsideWords;
}

/** What the window leaves out, in words: calls before and after it, and a view too full to draw. */
function windowWords(ui) {
  var totals = (ui.around || []).reduce(function (sum, counts) {
    return {inside: sum.inside + counts.inside, before: sum.before + counts.before, after: sum.after + counts.after};
  }, {inside: 0, before: 0, after: 0});
  var words = '';
  if (totals.before || totals.after) {
    words += runtime.formatCount(totals.inside) + ' of ' + runtime.formatCount(ui.data.calls.length) +
      ' calls in view; ' + runtime.formatCount(totals.before) + ' earlier and ' +
      runtime.formatCount(totals.after) + ' later (use Earlier, Later and the zoom buttons to move).';
  }
  if (ui.dense) {
    words += (words ? ' ' : '') + 'Too many calls in view to draw one by one (more than ' + tl.MAX_DRAWN_CALLS +
      '): each agent\'s calls are drawn as one shape; zoom in to pick a call.';
  }
  return words;
}

runtime.define('tool_contention', {describe: marks.describe, render: render});
