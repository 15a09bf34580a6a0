/*
 * view_timeline.js of `multiagent.tool_contention`: the timeline part of the view (DOM only; the rules
 * and words are in marks.js, the region list and the actions in view.js, which imports it).
 *
 * The agents' timed calls (derivation.calls) are drawn with one lane per agent; each contention
 * region is a band across the lanes of its own agents. Issue 18: the calls are plain <rect>s in
 * one SVG, drawn only inside the visible time window and at most MAX_DRAWN_CALLS of them; a window
 * holding more shows each lane's calls as one shape (zoom in to pick calls), and a long trace
 * opens on a window of about FIRST_WINDOW_CALLS calls. The region bands are one <path> per lane.
 * view.js gives `ui.act` {choose(index, options), stepRegion(direction), announce(text)}.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';

var marks = runtime.marksOf('tool_contention');
var SVG_NS = 'http://www.w3.org/2000/svg';
var LAYOUT = marks.LAYOUT;
var MAX_DRAWN_CALLS = 300;
var FIRST_WINDOW_CALLS = 150;

// ---------------------------------------------------------------------------------------------
// The derivation, arranged for drawing (built once per derivation)
// ---------------------------------------------------------------------------------------------

function arrange(derivation) {
  var calls = derivation.calls || [];
  var regions = derivation.contentions || [];
  var callsByIndex = new Map();
  var regionOfCall = new Map();
  var laneOf = new Map();
  var lanes = [];
  calls.forEach(function (call) { callsByIndex.set(call.index, call); });
  regions.forEach(function (region) {
    region.calls.forEach(function (index) { regionOfCall.set(index, region.index); });
  });
  var callAgents = new Set(calls.map(function (call) { return call.agent; }));
  derivation.agents.forEach(function (agent) {
    if (callAgents.has(agent) && !laneOf.has(agent)) {
      laneOf.set(agent, lanes.length);
      lanes.push({agent: agent, calls: []});
    }
  });
  calls.forEach(function (call) { lanes[laneOf.get(call.agent)].calls.push(call); });
  var top = LAYOUT.axisHeight;
  var place = new Map();   // call index -> {position in its lane, row}; the shared derivation stays untouched
  lanes.forEach(function (lane) {
    lane.calls.sort(function (a, b) { return a.start - b.start || a.index - b.index; });
    lane.rows = assignRows(lane.calls, place);
    lane.top = top;
    lane.height = Math.max(LAYOUT.laneHeight, lane.rows * LAYOUT.rowHeight + 8);
    top += lane.height;
  });
  var starts = calls.map(function (call) { return call.start; }).sort(function (a, b) { return a - b; });
  return {
    height: top + 6, place: place, starts: starts,
    calls: calls, regions: regions, lanes: lanes, laneOf: laneOf, callsByIndex: callsByIndex,
    regionOfCall: regionOfCall, links: marks.linkedSets(regions), scale: marks.timeScale(calls),
    leftOut: (derivation.problems || []).filter(marks.isCallProblem)
  };
}

/**
 * Calls of one agent that overlap in time go on separate rows of its lane (greedy, in start
 * order; past maxRows a call shares the row that frees first). Fills `place`; returns the rows.
 */
function assignRows(sortedCalls, place) {
  var rowEnds = [];
  sortedCalls.forEach(function (call, position) {
    var row = rowEnds.findIndex(function (end) { return end <= call.start; });
    if (row < 0 && rowEnds.length < LAYOUT.maxRows) { row = rowEnds.length; }
    if (row < 0) { row = rowEnds.indexOf(Math.min.apply(null, rowEnds)); }
    rowEnds[row] = Math.max(rowEnds[row] === undefined ? -Infinity : rowEnds[row], call.end);
    place.set(call.index, {position: position, row: row});
  });
  return Math.max(1, rowEnds.length);
}

function svg(tag, attrs, text) {
  var node = document.createElementNS(SVG_NS, tag);
  Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, String(attrs[name])); });
  if (text !== undefined) { node.textContent = text; }
  return node;
}

function plotWidthOf(ui) {
  var width = ui.timeline.clientWidth || LAYOUT.defaultWidth;
  return Math.max(200, width - LAYOUT.labelWidth - LAYOUT.padRight);
}

function xOf(ui, t) { return LAYOUT.labelWidth + (t - ui.view.start) * ui.width / (ui.view.end - ui.view.start); }

/** Draw the whole timeline for the current view; focus stays on the same call. */
function drawTimeline(ui) {
  var data = ui.data;
  var hadFocus = ui.svg && ui.svg.contains(document.activeElement);
  ui.width = plotWidthOf(ui);
  ui.rects = new Map();
  ui.callOfRect = new WeakMap();
  if (!data.calls.length) {
    ui.svg = null;
    ui.timeline.replaceChildren(runtime.h('p', {class: 'ma-tc-empty', text: 'No timed calls in this record.'}));
    ui.act.describeView();
    return;
  }
  var height = data.height;
  var root = svg('svg', {class: 'ma-tc-svg', width: LAYOUT.labelWidth + ui.width + LAYOUT.padRight,
    height: height, role: 'group', 'aria-label': 'Timeline of ' + data.calls.length + ' calls by ' +
    data.lanes.length + ' agents'});
  root.appendChild(patterns(ui));
  root.appendChild(axis(ui, height));
  var around = data.lanes.map(function (lane) { return runtime.countAround(lane.calls, ui.view.start, ui.view.end); });
  ui.around = around;
  ui.dense = around.reduce(function (sum, counts) { return sum + counts.inside; }, 0) > MAX_DRAWN_CALLS;
  ui.bandPaths = data.lanes.map(function (lane, position) {
    return drawLane(ui, root, lane, position % 2 === 1, around[position]);
  });
  ui.selection = root.appendChild(svg('g', {class: 'ma-tc-selection', 'aria-hidden': 'true'}));
  ui.svg = root;
  ui.timeline.replaceChildren(root);   // one swap: removing 5,000 old blocks one by one is slow
  paintBands(ui, null);
  paintChosen(ui, null);
  ui.act.describeView();
  if (ui.focusCall === null || !ui.rects.has(ui.focusCall)) { ui.focusCall = firstDrawnCall(ui); }
  setRoving(ui, ui.focusCall, hadFocus);
}

function patterns(ui) {
  var defs = svg('defs');
  var hatch = svg('pattern', {id: patternId(ui, 'open'), width: 6, height: 6, patternUnits: 'userSpaceOnUse',
    patternTransform: 'rotate(45)'});
  hatch.appendChild(svg('rect', {width: 2, height: 6, class: 'ma-tc-pattern-ink'}));
  var dots = svg('pattern', {id: patternId(ui, 'done'), width: 5, height: 5, patternUnits: 'userSpaceOnUse'});
  dots.appendChild(svg('circle', {cx: 2.5, cy: 2.5, r: 1.2, class: 'ma-tc-pattern-ink'}));
  defs.appendChild(hatch);
  defs.appendChild(dots);
  return defs;
}

function patternId(ui, kind) { return 'ma-tc-' + ui.serial + '-' + kind; }

function axis(ui, height) {
  var group = svg('g', {class: 'ma-tc-axis', 'aria-hidden': 'true'});
  var scale = ui.data.scale;
  marks.ticks(scale, ui.view.start, ui.view.end, marks.maxTicksFor(scale, ui.width)).forEach(function (tick) {
    var x = xOf(ui, tick.t);
    group.appendChild(svg('line', {x1: x, x2: x, y1: LAYOUT.axisHeight - 6, y2: height, class: 'ma-tc-tick'}));
    group.appendChild(svg('text', {x: x, y: LAYOUT.axisHeight - 10, 'text-anchor': 'middle',
      class: 'ma-tc-tick-label'}, tick.label));
  });
  return group;
}

/**
 * One lane: its name, its band paths (open and labelled regions), its calls in the view (one
 * block each, or one shape for all when the view holds too many) and how many lie outside it.
 */
function drawLane(ui, root, lane, odd, around) {
  var top = lane.top;
  var group = svg('g', {class: 'ma-tc-lane', role: 'group', 'aria-label': 'Calls of ' + lane.agent});
  group.appendChild(svg('rect', {x: 0, y: top, width: LAYOUT.labelWidth + ui.width, height: lane.height,
    class: 'ma-tc-lane-bg' + (odd ? ' ma-tc-lane-odd' : ''), 'aria-hidden': 'true'}));
  var name = svg('text', {x: 6, y: top + lane.height / 2 + 4, class: 'ma-tc-lane-name', 'aria-hidden': 'true'},
    runtime.snippet(lane.agent, 18));
  name.appendChild(svg('title', {}, lane.agent));
  group.appendChild(name);
  var paths = {
    open: group.appendChild(svg('path', {class: 'ma-tc-band ma-tc-band-open', fill: 'url(#' + patternId(ui, 'open') + ')',
      'aria-hidden': 'true', d: ''})),
    done: group.appendChild(svg('path', {class: 'ma-tc-band ma-tc-band-done', fill: 'url(#' + patternId(ui, 'done') + ')',
      'aria-hidden': 'true', d: ''}))
  };
  if (ui.dense) {
    group.appendChild(denseShape(ui, lane));
  } else {
    var fragment = document.createDocumentFragment();
    lane.calls.forEach(function (call) {
      if (call.end < ui.view.start || call.start > ui.view.end) { return; }
      fragment.appendChild(callRect(ui, call, lane));
    });
    group.appendChild(fragment);
  }
  outsideCounts(ui, group, lane, around);
  root.appendChild(group);
  return paths;
}

/** All of a lane's calls in the view as one path (rows kept), for a view too full to draw one by one. */
function denseShape(ui, lane) {
  var parts = [];
  var rowOffset = lane.top + (lane.height - lane.rows * LAYOUT.rowHeight) / 2;
  lane.calls.forEach(function (call) {
    if (call.end < ui.view.start || call.start > ui.view.end) { return; }
    var x = Math.max(LAYOUT.labelWidth, xOf(ui, call.start));
    var width = Math.max(1, Math.min(LAYOUT.labelWidth + ui.width, xOf(ui, call.end)) - x);
    var y = rowOffset + ui.data.place.get(call.index).row * LAYOUT.rowHeight + 1;
    parts.push('M' + x.toFixed(1) + ' ' + y.toFixed(1) + 'h' + width.toFixed(1) + 'v' + (LAYOUT.rowHeight - 2) +
      'h' + (-width).toFixed(1) + 'z');
  });
  return svg('path', {class: 'ma-tc-dense', d: parts.join(''), 'aria-hidden': 'true'});
}

/** "‹ 12" at the window's left edge and "30 ›" at its right: the lane's calls outside it. */
function outsideCounts(ui, group, lane, around) {
  var y = lane.top + lane.height - 4;
  if (around.before) {
    group.appendChild(svg('text', {x: LAYOUT.labelWidth + 3, y: y, class: 'ma-tc-outside', 'aria-hidden': 'true'},
      '\u2039 ' + runtime.formatCount(around.before)));
  }
  if (around.after) {
    group.appendChild(svg('text', {x: LAYOUT.labelWidth + ui.width - 3, y: y, 'text-anchor': 'end',
      class: 'ma-tc-outside', 'aria-hidden': 'true'}, runtime.formatCount(around.after) + ' \u203A'));
  }
}

function callRect(ui, call, lane) {
  var x = xOf(ui, call.start);
  var instant = call.end === call.start;
  var width = Math.max(LAYOUT.minBlockWidth, xOf(ui, call.end) - x);
  var row = ui.data.place.get(call.index).row;
  var rowTop = lane.top + (lane.height - lane.rows * LAYOUT.rowHeight) / 2 + row * LAYOUT.rowHeight;
  var inset = instant ? 0 : 1;
  // As few attributes as a named block needs: 5,000 of them are drawn at once. Only the roving
  // block gets a tabindex (setRoving); the corner radius is in the CSS.
  var rect = document.createElementNS(SVG_NS, 'rect');
  rect.setAttribute('x', instant ? x - 1 : x);
  rect.setAttribute('y', rowTop + inset);
  rect.setAttribute('width', instant ? 3 : width);
  rect.setAttribute('height', LAYOUT.rowHeight - 2 * inset);
  rect.setAttribute('class', instant ? 'ma-tc-call ma-tc-instant' : 'ma-tc-call');
  // a button that says the region Enter chooses (a list item offered no action to a screen reader)
  var region = ui.data.regionOfCall.get(call.index);
  rect.setAttribute('role', 'button');
  rect.setAttribute('aria-label', marks.callName(call, ui.data.scale) + (instant ? ' (zero length)' : '') +
    (region === undefined ? '' : ', region ' + (region + 1)));
  ui.rects.set(call.index, rect);
  ui.callOfRect.set(rect, call);
  return rect;
}

/** Rewrite the band paths of the lanes of `agents` (all lanes when null). */
function paintBands(ui, agents) {
  var data = ui.data;
  if (!ui.svg) { return; }
  var lanes = agents ? agents.map(function (agent) { return data.laneOf.get(agent); }) : data.lanes.map(function (l, i) { return i; });
  var shapes = lanes.map(function () { return {open: [], done: []}; });
  var wanted = new Map(lanes.map(function (lane, i) { return [lane, shapes[i]]; }));
  data.regions.forEach(function (region) {
    if (region.end < ui.view.start || region.start > ui.view.end) { return; }
    var x = Math.max(LAYOUT.labelWidth, xOf(ui, region.start));
    var width = Math.max(LAYOUT.minBlockWidth, Math.min(LAYOUT.labelWidth + ui.width, xOf(ui, region.end)) - x);
    var kind = ui.marks.has(region.index) ? 'done' : 'open';
    region.agents.forEach(function (agent) {
      var shape = wanted.get(data.laneOf.get(agent));
      if (shape) {
        var lane = data.lanes[data.laneOf.get(agent)];
        shape[kind].push('M' + x.toFixed(1) + ' ' + (lane.top + 2) + 'h' + width.toFixed(1) + 'v' + (lane.height - 4) +
          'h' + (-width).toFixed(1) + 'z');
      }
    });
  });
  lanes.forEach(function (lane, i) {
    ui.bandPaths[lane].open.setAttribute('d', shapes[i].open.join(''));
    ui.bandPaths[lane].done.setAttribute('d', shapes[i].done.join(''));
  });
}

/** Outline the chosen region in its own lanes, its calls, and the regions linked with it. */
function paintChosen(ui, previous) {
  var data = ui.data;
  if (previous !== null && previous !== undefined) { markCalls(ui, data.regions[previous], false); }
  if (!ui.svg) { return; }
  runtime.clear(ui.selection);
  if (ui.chosen === null) { return; }
  var region = data.regions[ui.chosen];
  markCalls(ui, region, true);
  data.links[ui.chosen].forEach(function (index) {
    if (index !== ui.chosen) { outlineRegion(ui, data.regions[index], 'ma-tc-linked'); }
  });
  outlineRegion(ui, region, 'ma-tc-chosen');
}

function markCalls(ui, region, on) {
  region.calls.forEach(function (index) {
    var rect = ui.rects.get(index);
    if (rect) { rect.classList.toggle('ma-tc-call-chosen', on); }
  });
}

function outlineRegion(ui, region, className) {
  if (region.end < ui.view.start || region.start > ui.view.end) { return; }
  var x = Math.max(LAYOUT.labelWidth, xOf(ui, region.start));
  var width = Math.max(LAYOUT.minBlockWidth, Math.min(LAYOUT.labelWidth + ui.width, xOf(ui, region.end)) - x);
  region.agents.forEach(function (agent, position) {
    var lane = ui.data.lanes[ui.data.laneOf.get(agent)];
    ui.selection.appendChild(svg('rect', {x: x, y: lane.top + 1, width: width, height: lane.height - 2,
      class: 'ma-tc-outline ' + className}));
    if (position === 0) {
      ui.selection.appendChild(svg('text', {x: x + 2, y: lane.top + 10, class: 'ma-tc-outline-label ' + className},
        'R' + (region.index + 1)));
    }
  });
}

/** The view a trace opens on: the whole timeline, or for a long one its first FIRST_WINDOW_CALLS calls. */
function firstView(data) {
  var scale = data.scale;
  if (data.calls.length <= MAX_DRAWN_CALLS) { return {start: scale.start, end: scale.end}; }
  return {start: scale.start, end: runtime.timeWindowEnd(data.starts, scale.start, FIRST_WINDOW_CALLS, scale.end)};
}

// -- the view: zoom and pan ----------------------------------------------------------------

function setView(ui, start, end) {
  var scale = ui.data.scale;
  var span = Math.min(end - start, scale.end - scale.start);
  span = Math.max(span, (scale.end - scale.start) * 1e-6);
  start = Math.min(Math.max(start, scale.start), scale.end - span);
  ui.view = {start: start, end: start + span};
  drawTimeline(ui);
}

function zoom(ui, factor) {
  var centre = focusTime(ui);
  var span = (ui.view.end - ui.view.start) * factor;
  setView(ui, centre - span / 2, centre + span / 2);
}

function pan(ui, fraction) {
  var shift = (ui.view.end - ui.view.start) * fraction;
  setView(ui, ui.view.start + shift, ui.view.end + shift);
}

/** Where zooming centres: the chosen region, else the focused call, else the view's middle. */
function focusTime(ui) {
  var region = ui.chosen === null ? null : ui.data.regions[ui.chosen];
  if (region) { return (region.start + region.end) / 2; }
  var call = ui.focusCall === null ? null : ui.data.callsByIndex.get(ui.focusCall);
  if (call && call.end >= ui.view.start && call.start <= ui.view.end) { return (call.start + call.end) / 2; }
  return (ui.view.start + ui.view.end) / 2;
}

function zoomToRegion(ui, index) {
  var region = ui.data.regions[index];
  var pad = Math.max((region.end - region.start) * 0.25, (ui.data.scale.end - ui.data.scale.start) * 1e-4);
  setView(ui, region.start - pad, region.end + pad);
}

/** Bring a time interval into the view without changing the zoom. */
function reveal(ui, start, end) {
  if (start >= ui.view.start && end <= ui.view.end) { return; }
  var span = ui.view.end - ui.view.start;
  setView(ui, (start + end) / 2 - span / 2, (start + end) / 2 + span / 2);
}

// -- keyboard and pointer on the timeline ----------------------------------------------------

function firstDrawnCall(ui) {
  var first = null;
  ui.rects.forEach(function (rect, index) { if (first === null) { first = index; } });
  return first;
}

/** Roving tabindex: one call block is in the tab order. */
function setRoving(ui, index, moveFocus) {
  var previous = ui.rects.get(ui.rovingCall);
  var rect = index === null ? null : ui.rects.get(index);
  ui.rovingCall = index;
  if (rect) {
    rect.setAttribute('tabindex', '0');
    if (moveFocus) { rect.focus(); }
  }
  // Only after focus has moved: a focused element that loses its tabindex loses focus too.
  if (previous && previous !== rect) { previous.removeAttribute('tabindex'); }
}

function focusCall(ui, call) {
  ui.focusCall = call.index;
  reveal(ui, call.start, call.end);
  setRoving(ui, call.index, true);
  showDetail(ui, call);
}

function showDetail(ui, call) {
  var region = ui.data.regionOfCall.get(call.index);
  ui.detail.textContent = marks.callName(call, ui.data.scale) +
    (region === undefined ? ' \u00B7 in no contention region' : ' \u00B7 in Region ' + (region + 1));
}

/** The call the arrow key leads to from `call`, or null. */
function neighbour(ui, call, key) {
  var lanes = ui.data.lanes;
  var laneIndex = ui.data.laneOf.get(call.agent);
  var lane = lanes[laneIndex].calls;
  var position = ui.data.place.get(call.index).position;
  if (key === 'ArrowRight') { return lane[position + 1] || null; }
  if (key === 'ArrowLeft') { return lane[position - 1] || null; }
  if (key === 'Home') { return lane[0]; }
  if (key === 'End') { return lane[lane.length - 1]; }
  var other = lanes[laneIndex + (key === 'ArrowDown' ? 1 : -1)];
  return other ? nearestInTime(other.calls, call.start) : null;
}

function nearestInTime(calls, t) {
  var low = 0;
  var high = calls.length - 1;
  while (low < high) {
    var middle = (low + high) >> 1;
    if (calls[middle].start < t) { low = middle + 1; } else { high = middle; }
  }
  var before = calls[low - 1];
  return before && Math.abs(before.start - t) <= Math.abs(calls[low].start - t) ? before : calls[low];
}

var CALL_KEYS = ['ArrowRight', 'ArrowLeft', 'ArrowUp', 'ArrowDown', 'Home', 'End'];

function wireTimeline(ui) {
  var timeline = ui.timeline;
  timeline.addEventListener('keydown', function (event) {
    var call = callOf(ui, event.target);
    if (!call) { return; }
    if (CALL_KEYS.indexOf(event.key) >= 0) {
      event.preventDefault();
      event.stopPropagation();
      var next = neighbour(ui, call, event.key);
      if (next) { focusCall(ui, next); }
    } else if (event.key === 'PageDown' || event.key === 'PageUp') {
      event.preventDefault();
      ui.act.stepRegion(event.key === 'PageDown' ? 1 : -1);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      chooseRegionOfCall(ui, call);
    } else if (event.key === 'Tab' && !event.shiftKey && ui.chosen !== null &&
               ui.data.regionOfCall.get(call.index) === ui.chosen) {
      // From a call of the chosen region, Tab goes on to that region's controls (its "Region K"
      // button, then its labels), not to Region 1's, which come first in the page.
      event.preventDefault();
      ui.act.focusRegion(ui.chosen);
    }
  });
  timeline.addEventListener('focusin', function (event) {
    var call = callOf(ui, event.target);
    if (call) {
      ui.focusCall = call.index;
      setRoving(ui, call.index, false);
      showDetail(ui, call);
    }
  });
  timeline.addEventListener('mouseover', function (event) {
    var call = callOf(ui, event.target);
    if (call) { showDetail(ui, call); }
  });
  timeline.addEventListener('click', function (event) {
    var call = callOf(ui, event.target);
    if (call) {
      focusCall(ui, call);
      chooseRegionOfCall(ui, call);
    } else {
      chooseRegionAtPoint(ui, event);
    }
  });
}

function callOf(ui, target) {
  return ui.callOfRect && target ? ui.callOfRect.get(target) || null : null;
}

function chooseRegionOfCall(ui, call) {
  var region = ui.data.regionOfCall.get(call.index);
  if (region === undefined) {
    ui.act.announce(marks.callName(call, ui.data.scale) + ' is in no contention region.');
    return;
  }
  ui.act.choose(region, {toggle: false});
}

/** A click on a band: the region in that lane at that time. */
function chooseRegionAtPoint(ui, event) {
  if (!ui.svg) { return; }
  var box = ui.svg.getBoundingClientRect();
  var x = event.clientX - box.left;
  var y = event.clientY - box.top;
  var lane = ui.data.lanes.filter(function (l) { return l.top <= y && y < l.top + l.height; })[0];
  if (!lane || x < LAYOUT.labelWidth) { return; }
  var t = ui.view.start + (x - LAYOUT.labelWidth) * (ui.view.end - ui.view.start) / ui.width;
  var hit = ui.data.regions.filter(function (region) {
    return region.start <= t && t < region.end && region.agents.indexOf(lane.agent) >= 0;
  })[0];
  if (hit) { ui.act.choose(hit.index, {toggle: false}); }
}

export {arrange, firstView, plotWidthOf, drawTimeline, paintBands, paintChosen, setView, zoom, pan, zoomToRegion, reveal, focusCall, wireTimeline, MAX_DRAWN_CALLS};
