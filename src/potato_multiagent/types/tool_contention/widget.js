/*
 * tool_contention.js: the `multiagent.tool_contention` widget.
 *
 * The agents' timed calls (derivation.calls) are drawn on a timeline with one lane per agent; each
 * contention region (derivation.contentions: a whole cluster of overlapping calls on one resource,
 * two or more agents) is a band across the lanes of its own agents and a group in a paged list,
 * where the annotator labels it. The stored value is
 *     {"contentions": {"<index>": label}, "regions": [{index, resource, start, end, agents,
 *      calls: [{index, agent, resource, start, end}], label, note}]}
 * and restore matches a region by resource, interval and set of agents, never by its index. A
 * saved label whose region is not in the trace is kept and listed as "not in this trace".
 *
 * Built for 5,000 calls: the calls are plain <rect>s in one SVG, drawn only inside the visible time
 * window, the region bands are one <path> per lane, the region list is paged, and a click updates
 * only the elements it touches. Runs on the shared runtime (widget.js), which loads first.
 *
 * Dependency-free UMD: in the page it registers itself with window.PotatoMultiagent; under
 * CommonJS it exports its pure helpers for node tests.
 */
(function (root, factory) {
  'use strict';
  var isCommonJS = typeof module === 'object' && module !== null && module.exports;
  var runtime = isCommonJS ? require('../../web/widget.js') : root && root.PotatoMultiagent;
  var windowing = isCommonJS ? require('../../web/windowing.js') : root && root.PotatoMultiagentWindow;
  var api = factory(runtime, windowing);
  if (isCommonJS) {
    module.exports = api;
  } else if (runtime) {
    runtime.register(api.WIDGET, api.render);
  } else if (root && root.console) {
    root.console.error('tool_contention.js: widget.js did not load before it');
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (runtime, windowing) {
  'use strict';

  var WIDGET = 'tool_contention';
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var PAGE_SIZE = 20;
  var TYPING_DELAY_MS = 300;
  var MAX_LISTED_LINKS = 8;
  var MAX_STALE_NOTICES = 10;
  var MAX_NAME = 120;
  var DAY = 86400;
  var CLOCK_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200];
  var LAYOUT = {labelWidth: 130, axisHeight: 30, laneHeight: 30, rowHeight: 18, maxRows: 4, padRight: 12,
    minBlockWidth: 3, defaultWidth: 900};
  var formSerial = 0;
  // Issue 18: the timeline draws the calls of the visible time window, at most MAX_DRAWN_CALLS
  // blocks; a window holding more shows each lane's calls as one shape (zoom in to pick calls).
  // A long trace opens on a window of about FIRST_WINDOW_CALLS calls, not the whole run.
  var MAX_DRAWN_CALLS = 300;
  var FIRST_WINDOW_CALLS = 150;
  var LEFT_OUT_PAGE = 50;

  // ---------------------------------------------------------------------------------------------
  // Time: the axis domain, words for a time, nice ticks (pure)
  // ---------------------------------------------------------------------------------------------

  /** The axis of a list of calls: {kind, start, end, multiDay}; it starts at the first call. */
  function timeScale(calls) {
    var kind = calls.length ? calls[0].kind : 'number';
    var start = Infinity;
    var end = -Infinity;
    calls.forEach(function (call) {
      if (call.start < start) { start = call.start; }
      if (call.end > end) { end = call.end; }
    });
    if (!calls.length) { start = 0; end = 1; }
    if (!(end > start)) { end = start + 1; }   // a single instant still gets a readable axis
    var multiDay = kind === 'iso' && utcDay(start) !== Math.ceil(end / DAY) - 1;   // ending at midnight is still one day
    return {kind: kind, start: start, end: end, multiDay: multiDay};
  }

  function utcDay(seconds) { return Math.floor(seconds / DAY); }

  /** A time in words: the number as written for numbers, UTC HH:MM:SS[.ffffff] for ISO times. */
  function formatTime(scale, seconds) {
    if (scale.kind !== 'iso') { return String(seconds); }
    return clock(seconds, scale.multiDay, 6);
  }

  /** UTC clock time, with the date first when asked; fraction digits trimmed of trailing zeros. */
  function clock(seconds, withDate, maxDigits) {
    var micros = Math.round(seconds * 1e6);
    var day = Math.floor(micros / 864e8);
    var rest = micros - day * 864e8;
    var whole = Math.floor(rest / 1e6);
    var text = pad2(Math.floor(whole / 3600)) + ':' + pad2(Math.floor(whole / 60) % 60) + ':' + pad2(whole % 60);
    var fraction = String(rest % 1e6 + 1e6).slice(1, 1 + maxDigits).replace(/0+$/, '');
    if (fraction) { text += '.' + fraction; }
    return withDate ? utcDate(day) + ' ' + text : text;
  }

  function utcDate(day) { return new Date(day * 864e5).toISOString().slice(0, 10); }

  function pad2(number) { return number < 10 ? '0' + number : String(number); }

  /** 1, 2 or 5 times a power of ten, the smallest not below `rough`. */
  function decimalStep(rough) {
    var power = Math.pow(10, Math.floor(Math.log10(rough)));
    var factors = [1, 2, 5, 10];
    for (var i = 0; i < factors.length; i++) {
      if (factors[i] * power >= rough * (1 - 1e-12)) { return factors[i] * power; }
    }
    return 10 * power;
  }

  /** A tick step a reader can count in: 1-2-5 for numbers, whole clock units for ISO times. */
  function niceStep(kind, span, maxTicks) {
    var rough = span / Math.max(1, maxTicks);
    if (kind !== 'iso' || rough < 1) { return decimalStep(rough); }
    for (var i = 0; i < CLOCK_STEPS.length; i++) {
      if (CLOCK_STEPS[i] >= rough) { return CLOCK_STEPS[i]; }
    }
    return DAY * decimalStep(rough / DAY);
  }

  function decimalsOf(step) { return step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step) - 1e-9)); }

  /** Ticks inside [from, to]: [{t, label}], at whole multiples of the step (UTC-aligned for clocks). */
  function ticks(scale, from, to, maxTicks) {
    var step = niceStep(scale.kind, to - from, maxTicks);
    var decimals = decimalsOf(step);
    var result = [];
    for (var k = Math.ceil(from / step - 1e-9); k * step <= to + step * 1e-9 && result.length < 100; k++) {
      var t = k * step;
      result.push({t: t, label: tickLabel(scale, t, step, decimals)});
    }
    return result;
  }

  function tickLabel(scale, t, step, decimals) {
    if (scale.kind !== 'iso') { return String(Number(t.toFixed(decimals))); }
    if (step >= DAY) { return utcDate(utcDay(Math.round(t))); }
    return clock(t, scale.multiDay, decimals);
  }

  /** How many tick labels fit: long clock labels need more room than short numbers. */
  function maxTicksFor(scale, plotWidth) {
    var characters = scale.kind === 'iso' ? (scale.multiDay ? 19 : 9) : 7;
    return Math.max(2, Math.floor(plotWidth / (characters * 7 + 28)));
  }

  function axisCaption(scale) {
    var from = formatTime(scale, scale.start);
    if (scale.kind === 'iso') {
      return 'Time axis: clock times in UTC (' + (scale.multiDay ? 'YYYY-MM-DD ' : '') +
        'HH:MM:SS), starting at the first call, ' + from + '.';
    }
    return 'Time axis: the trace\'s own time numbers, starting at the first call, ' + from + '.';
  }

  // ---------------------------------------------------------------------------------------------
  // Calls and regions in words; identities; linked regions (pure)
  // ---------------------------------------------------------------------------------------------

  /** A name as it is, or its first MAX_NAME characters when longer (a 100 KB tool name is data, not a label). */
  function clip(name) {
    return name.length > MAX_NAME ? runtime.snippet(name, MAX_NAME) : name;
  }

  /** "AGENT TOOL on RESOURCE from T1 to T2" (no tool: "AGENT on RESOURCE ..."). */
  function callName(call, scale) {
    return clip(call.agent) + (call.tool ? ' ' + clip(call.tool) : '') + ' on ' + clip(call.resource) + ' from ' +
      formatTime(scale, call.start) + ' to ' + formatTime(scale, call.end);
  }

  /** "Region K: RESOURCE, T1 to T2, AGENTS" with K = index + 1. */
  function regionName(region, scale) {
    return 'Region ' + (region.index + 1) + ': ' + clip(region.resource) + ', ' + formatTime(scale, region.start) +
      ' to ' + formatTime(scale, region.end) + ', ' + region.agents.map(clip).join(', ');
  }

  /** What identifies a region: resource, interval, the set of agents (same rule as Python). */
  function regionKey(region) {
    return JSON.stringify([region.resource, region.start, region.end, region.agents.slice().sort()]);
  }

  /** "fork_0 [4, 5) P0, P2": a region in messages, worded as Python's describe_region. */
  function describeRegion(region) {
    return region.resource + ' [' + String(region.start) + ', ' + String(region.end) + ') ' + region.agents.join(', ');
  }

  /**
   * Regions linked by a shared agent at overlapping times, transitively (a circular wait across
   * resources is one linked set). One sweep per agent over its regions sorted by start.
   * Returns, per region index, the sorted member indices of its set (shared arrays).
   */
  function linkedSets(regions) {
    var parent = regions.map(function (region, i) { return i; });
    function find(i) {
      while (parent[i] !== i) { parent[i] = parent[parent[i]]; i = parent[i]; }
      return i;
    }
    var byAgent = new Map();
    regions.forEach(function (region, i) {
      region.agents.forEach(function (agent) {
        if (!byAgent.has(agent)) { byAgent.set(agent, []); }
        byAgent.get(agent).push(i);
      });
    });
    byAgent.forEach(function (members) {
      members.sort(function (a, b) { return regions[a].start - regions[b].start || a - b; });
      var head = null;
      var reach = -Infinity;
      members.forEach(function (i) {
        if (head !== null && regions[i].start < reach) {
          parent[find(i)] = find(head);
          reach = Math.max(reach, regions[i].end);
        } else {
          head = i;
          reach = regions[i].end;
        }
      });
    });
    var sets = new Map();
    regions.forEach(function (region, i) {
      var rootIndex = find(i);
      if (!sets.has(rootIndex)) { sets.set(rootIndex, []); }
      sets.get(rootIndex).push(i);
    });
    return regions.map(function (region, i) { return sets.get(find(i)); });
  }

  // ---------------------------------------------------------------------------------------------
  // The value: read, match by identity, compose (pure)
  // ---------------------------------------------------------------------------------------------

  /** {value, unreadable}: the checked stored value (null when nothing is stored) or a sentence. */
  function readValue(got, config) {
    if (got.raw === '' || got.raw === null || got.raw === undefined) { return {value: null, unreadable: null}; }
    var problems = got.error ? [got.error] : runtime.checkValue(got.value, config);
    if (problems.length) {
      return {value: null, unreadable: 'The saved value could not be read: ' + problems.join('; ') +
        '. It is kept until you label a region.'};
    }
    return {value: got.value, unreadable: null};
  }

  /**
   * Stored marks against the derivation's regions: {marks: Map(regionIndex -> {label, note}),
   * stale: [{mark, reason: 'not_in_trace'|'repeat', position}]}, position being the mark's place
 * in the stored regions list. Matching is by regionKey only.
   */
  function matchMarks(value, regions) {
    var byKey = new Map();
    regions.forEach(function (region) { byKey.set(regionKey(region), region.index); });
    var marks = new Map();
    var stale = [];
    (value ? value.regions : []).forEach(function (mark, position) {
      var index = byKey.get(regionKey(mark));
      if (index === undefined) {
        stale.push({mark: mark, reason: 'not_in_trace', position: position});
      } else if (marks.has(index)) {
        stale.push({mark: mark, reason: 'repeat', position: position});
      } else {
        marks.set(index, {label: mark.label, note: mark.note});
      }
    });
    return {marks: marks, stale: stale};
  }

  /** One stored entry for a labelled region, described from the derivation. */
  function markEntry(region, mark, callsByIndex) {
    return {
      index: region.index, resource: region.resource, start: region.start, end: region.end,
      agents: region.agents.slice(),
      calls: region.calls.map(function (index) {
        var call = callsByIndex.get(index);
        return {index: index, agent: call.agent, resource: call.resource, start: call.start, end: call.end};
      }),
      label: mark.label, note: mark.note
    };
  }

  /**
   * The value to store: labelled regions by index, then kept stale entries as they were saved.
   * The seed's map lists each entry by its index (on a clash the region in this trace wins).
   * null (store "") when nothing is labelled, unless the annotator confirmed an empty timeline.
   */
  function composeValue(marks, stale, regions, callsByIndex, confirmedEmpty) {
    if (marks.size === 0 && stale.length === 0) {
      return confirmedEmpty ? {contentions: {}, regions: []} : null;
    }
    var entries = Array.from(marks.keys()).sort(function (a, b) { return a - b; }).map(function (index) {
      return markEntry(regions[index], marks.get(index), callsByIndex);
    });
    stale.forEach(function (item) { entries.push(item.mark); });
    var contentions = {};
    entries.forEach(function (entry) {
      var key = String(entry.index);
      if (!Object.prototype.hasOwnProperty.call(contentions, key)) { contentions[key] = entry.label; }
    });
    return {contentions: contentions, regions: entries};
  }

  // ---------------------------------------------------------------------------------------------
  // Words: left-out calls, completeness, summary, notices (pure)
  // ---------------------------------------------------------------------------------------------

  var LEFT_OUT_REASONS = {
    call_not_object: 'it is not an object',
    call_agent_missing: 'it names no agent',
    call_resource_missing: 'it names no resource',
    time_kind_mixed: 'its times mix numbers and ISO date-times (with each other or with the calls before it)',
    time_reversed: 'its end is before its start'
  };

  function isCallProblem(problem) {
    return problem && /^calls\[\d+\]/.test(problem.path) && problem.code !== 'calls_not_list';
  }

  /** "Call 4 (calls[3].end): its end time is not a number or an ISO date-time." */
  function leftOutText(problem) {
    var match = /^calls\[(\d+)\](?:\.(\w+))?$/.exec(problem.path) || [];
    var field = match[2] === 'start' ? 'start' : 'end';
    var reason = LEFT_OUT_REASONS[problem.code];
    if (problem.code === 'time_missing') { reason = 'its ' + field + ' time is missing'; }
    if (problem.code === 'time_unparseable') { reason = 'its ' + field + ' time is not a number or an ISO date-time'; }
    var number = match[1] === undefined ? '' : 'Call ' + (Number(match[1]) + 1) + ' ';
    return number + '(' + problem.path + '): ' + (reason || problem.message || problem.code) + '.';
  }

  /** The fixed shortfall sentence Potato shows for a required scheme (no trace text), or null. */
  function incompleteReason(total, labelled, stored, unreadable) {
    if (unreadable) { return 'The saved value could not be read; label the contention regions again'; }
    if (total === 0) { return stored ? null : 'Confirm that this timeline has no contention regions'; }
    if (labelled < total) { return labelled + ' of ' + total + ' contention regions labelled'; }
    return null;
  }

  /** The live summary in words. */
  function summaryText(counts, chosen) {
    var parts = [];
    if (counts.unreadable) { parts.push('The saved value could not be read.'); }
    parts.push(counts.total === 0 ? 'No contention regions in this trace.'
      : counts.labelled + ' of ' + counts.total + ' contention regions labelled.');
    if (chosen) { parts.push('Chosen: ' + chosen + '.'); }
    if (counts.stale) { parts.push(counts.stale + ' saved label(s) not in this trace.'); }
    if (counts.leftOut) { parts.push(counts.leftOut + ' call(s) left out of the timeline.'); }
    return parts.join(' ');
  }

  function noticesFor(derivation, stale, unreadable, leftOut) {
    var notices = [];
    if (unreadable) { notices.push({level: 'warning', text: unreadable}); }
    (derivation.problems || []).forEach(function (problem) {
      if (problem && problem.code === 'calls_not_list') {
        notices.push({level: 'warning', text: 'The calls of this record are not a list, so there is no timeline: ' +
          problem.message});
      }
    });
    if (leftOut) {
      notices.push({level: 'warning', text: leftOut + ' call(s) are left out of the timeline; see "Calls left out" ' +
        'below for each reason.'});
    }
    stale.slice(0, MAX_STALE_NOTICES).forEach(function (item) {
      var position = item.position;
      notices.push({level: 'warning', text: item.reason === 'repeat'
        ? 'regions[' + position + ']: repeats a region labelled earlier in the saved value'
        : runtime.notInTrace('regions[' + position + ']', describeRegion(item.mark))});
    });
    if (stale.length > MAX_STALE_NOTICES) {
      notices.push({level: 'warning', text: (stale.length - MAX_STALE_NOTICES) + ' more saved labels are not in this trace.'});
    }
    return notices;
  }

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
      regionOfCall: regionOfCall, links: linkedSets(regions), scale: timeScale(calls),
      leftOut: (derivation.problems || []).filter(isCallProblem)
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

  // ---------------------------------------------------------------------------------------------
  // The UI: the template's containers, wired once
  // ---------------------------------------------------------------------------------------------

  function part(el, name) {
    var node = el.querySelector('[data-ma-tc="' + name + '"]');
    if (!node) { throw new Error('the page lacks the ' + name + ' part of this question (data-ma-tc="' + name + '")'); }
    return node;
  }

  function createUi(el) {
    formSerial += 1;
    var ui = {
      serial: formSerial,
      timeline: part(el, 'timeline'), caption: part(el, 'caption'), windowText: part(el, 'window'),
      detail: part(el, 'detail'), progress: part(el, 'progress'), regionList: part(el, 'regions'),
      pageText: part(el, 'page'), staleSection: part(el, 'stale'), staleList: part(el, 'stale-list'),
      leftOut: part(el, 'left-out'), leftOutSummary: part(el, 'left-out-summary'),
      leftOutList: part(el, 'left-out-list'),
      actions: {}, ctx: null, data: null, derivation: null,
      view: null, page: 0, chosen: null, focusCall: null, rovingCall: null,
      marks: new Map(), stale: [], unreadable: null, stored: false, confirmedEmpty: false, labelled: 0,
      lastAction: null,                 // words for the live region after the next describe()
      rects: new Map(), callOfRect: new WeakMap(), items: new Map(), bandPaths: [], svg: null, selection: null,
      width: 0
    };
    Array.prototype.forEach.call(el.querySelectorAll('[data-ma-tc-action]'), function (button) {
      ui.actions[button.getAttribute('data-ma-tc-action')] = button;
    });
    wireToolbar(ui);
    wireTimeline(ui);
    wireRegionList(ui);
    ui.typing = runtime.debounce(function () { commit(ui); }, TYPING_DELAY_MS);
    ui.leftOut.addEventListener('toggle', function () { fillLeftOut(ui); });
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(function () {
        if (ui.data && plotWidthOf(ui) !== ui.width) { drawTimeline(ui); }
      }).observe(ui.timeline);
    }
    return ui;
  }

  function wireToolbar(ui) {
    var handlers = {
      'zoom-in': function () { zoom(ui, 0.5); },
      'zoom-out': function () { zoom(ui, 2); },
      'show-all': function () { setView(ui, ui.data.scale.start, ui.data.scale.end); },
      earlier: function () { pan(ui, -0.5); },
      later: function () { pan(ui, 0.5); },
      'previous-page': function () { showPage(ui, ui.page - 1); },
      'next-page': function () { showPage(ui, ui.page + 1); },
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
  // The timeline: one SVG; axis, lanes, region bands (one path per lane), call blocks
  // ---------------------------------------------------------------------------------------------

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
      describeView(ui);
      return;
    }
    var height = data.height;
    var root = svg('svg', {class: 'ma-tc-svg', width: LAYOUT.labelWidth + ui.width + LAYOUT.padRight,
      height: height, role: 'group', 'aria-label': 'Timeline of ' + data.calls.length + ' calls by ' +
      data.lanes.length + ' agents'});
    root.appendChild(patterns(ui));
    root.appendChild(axis(ui, height));
    var around = data.lanes.map(function (lane) { return windowing.countAround(lane.calls, ui.view.start, ui.view.end); });
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
    describeView(ui);
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
    ticks(scale, ui.view.start, ui.view.end, maxTicksFor(scale, ui.width)).forEach(function (tick) {
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
    var group = svg('g', {class: 'ma-tc-lane', role: 'list', 'aria-label': 'Calls of ' + lane.agent});
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
        '\u2039 ' + windowing.formatCount(around.before)));
    }
    if (around.after) {
      group.appendChild(svg('text', {x: LAYOUT.labelWidth + ui.width - 3, y: y, 'text-anchor': 'end',
        class: 'ma-tc-outside', 'aria-hidden': 'true'}, windowing.formatCount(around.after) + ' \u203A'));
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
    rect.setAttribute('role', 'listitem');
    rect.setAttribute('aria-label', callName(call, ui.data.scale) + (instant ? ' (zero length)' : ''));
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

  function describeView(ui) {
    var scale = ui.data.scale;
    ui.caption.textContent = axisCaption(scale);
    var whole = ui.view.start <= scale.start && ui.view.end >= scale.end;
    ui.windowText.textContent = whole ? 'Showing the whole timeline.'
      : 'Showing ' + formatTime(scale, ui.view.start) + ' to ' + formatTime(scale, ui.view.end) + '.';
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
      words += windowing.formatCount(totals.inside) + ' of ' + windowing.formatCount(ui.data.calls.length) +
        ' calls in view; ' + windowing.formatCount(totals.before) + ' earlier and ' +
        windowing.formatCount(totals.after) + ' later (use Earlier, Later and the zoom buttons to move).';
    }
    if (ui.dense) {
      words += (words ? ' ' : '') + 'Too many calls in view to draw one by one (more than ' + MAX_DRAWN_CALLS +
        '): each agent\'s calls are drawn as one shape; zoom in to pick a call.';
    }
    return words;
  }

  /** The view a trace opens on: the whole timeline, or for a long one its first FIRST_WINDOW_CALLS calls. */
  function firstView(data) {
    var scale = data.scale;
    if (data.calls.length <= MAX_DRAWN_CALLS) { return {start: scale.start, end: scale.end}; }
    return {start: scale.start, end: windowing.timeWindowEnd(data.starts, scale.start, FIRST_WINDOW_CALLS, scale.end)};
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
    ui.detail.textContent = callName(call, ui.data.scale) +
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
        stepRegion(ui, event.key === 'PageDown' ? 1 : -1);
      } else if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        chooseRegionOfCall(ui, call);
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
      ui.ctx.model.announce(callName(call, ui.data.scale) + ' is in no contention region.');
      return;
    }
    choose(ui, region, {toggle: false});
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
    if (hit) { choose(ui, hit.index, {toggle: false}); }
  }

  // ---------------------------------------------------------------------------------------------
  // The region list: pages of PAGE_SIZE groups, each with a "Label" radio group
  // ---------------------------------------------------------------------------------------------

  function pageCount(ui) { return Math.max(1, Math.ceil(ui.data.regions.length / PAGE_SIZE)); }

  function showPage(ui, page) {
    ui.page = Math.min(Math.max(0, page), pageCount(ui) - 1);
    ui.items = new Map();
    var fragment = document.createDocumentFragment();
    var first = ui.page * PAGE_SIZE;
    ui.data.regions.slice(first, first + PAGE_SIZE).forEach(function (region) {
      fragment.appendChild(regionItem(ui, region));
    });
    runtime.clear(ui.regionList);
    if (!ui.data.regions.length) {
      ui.regionList.appendChild(runtime.h('p', {class: 'ma-tc-empty',
        text: 'No two agents use one resource at overlapping times in this trace: there is nothing to label.'}));
    }
    ui.regionList.appendChild(fragment);
    describePager(ui);
  }

  function describePager(ui) {
    var total = ui.data.regions.length;
    var first = ui.page * PAGE_SIZE;
    ui.pageText.textContent = total ? 'Regions ' + (first + 1) + '\u2013' + Math.min(total, first + PAGE_SIZE) +
      ' of ' + total : '';
    ui.actions['previous-page'].disabled = ui.page === 0;
    ui.actions['next-page'].disabled = ui.page >= pageCount(ui) - 1;
    ui.actions['next-unlabelled'].disabled = ui.labelled >= total;
    ui.actions['confirm-empty'].hidden = total > 0;
    ui.actions['confirm-empty'].disabled = Boolean(ui.stored);
  }

  function regionItem(ui, region) {
    var scale = ui.data.scale;
    var name = regionName(region, scale);
    var radios = ui.ctx.config.contention_labels.map(function (label) {
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
        runtime.h('span', {class: 'ma-tc-region-text', text: clip(region.resource) + ' \u00B7 ' + formatTime(scale, region.start) +
          ' to ' + formatTime(scale, region.end) + ' \u00B7 ' + region.agents.map(clip).join(', ') + ' \u00B7 ' +
          region.calls.length + ' calls'}), item.status, item.zoom]),
      runtime.h('div', {role: 'radiogroup', 'aria-label': 'Label', class: 'ma-tc-labels'}, [radios, item.clearButton])
    ];
    if (ui.ctx.config.allow_note !== false) {
      item.note = runtime.h('textarea', {rows: 2, class: 'ma-tc-note-input', 'data-ma-tc-note': region.index});
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
    var unknown = mark !== null && ui.ctx.config.contention_labels.indexOf(mark.label) < 0;
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
    ui.staleList.addEventListener('click', function (event) {
      var target = event.target.closest ? event.target.closest('button[data-ma-tc-remove]') : null;
      if (target) { removeStale(ui, Number(target.getAttribute('data-ma-tc-remove'))); }
    });
  }

  function regionIndexOf(node) {
    return Number(node.closest('[data-ma-region]').getAttribute('data-ma-region'));
  }

  /** Focus a region's "Region K" button, turning the page when it is on another one. */
  function focusRegionButton(ui, index) {
    var page = Math.floor(index / PAGE_SIZE);
    if (page !== ui.page) { showPage(ui, page); }
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
      if (Math.floor(ui.chosen / PAGE_SIZE) !== ui.page) { showPage(ui, Math.floor(ui.chosen / PAGE_SIZE)); }
      reveal(ui, region.start, region.end);
    }
    if (previous !== null) { paintItem(ui, previous); }
    if (ui.chosen !== null) { paintItem(ui, ui.chosen); }
    paintChosen(ui, previous);
    describe(ui);
  }

  function chooseAndZoom(ui, index) {
    if (ui.chosen !== index) { choose(ui, index, {toggle: false}); }
    zoomToRegion(ui, index);
  }

  /** Page Up/Down on the timeline: choose the next region and focus its first call. */
  function stepRegion(ui, direction) {
    var total = ui.data.regions.length;
    if (!total) { return; }
    var from = ui.chosen === null ? (direction > 0 ? -1 : total) : ui.chosen;
    var to = Math.min(Math.max(from + direction, 0), total - 1);
    choose(ui, to, {toggle: false});
    var first = ui.data.callsByIndex.get(ui.data.regions[to].calls[0]);
    focusCall(ui, first);
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

  /** Give `indices` the label; notes already written stay. */
  function setLabel(ui, indices, label) {
    indices.forEach(function (index) {
      var mark = ui.marks.get(index);
      ui.marks.set(index, {label: label, note: mark ? mark.note : ''});
    });
    ui.confirmedEmpty = false;
    afterMarks(ui, indices);
    var words = indices.length === 1 ? 'Region ' + (indices[0] + 1) : indices.length + ' linked regions';
    ui.lastAction = words + ' labelled ' + label + '.';
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

  function removeStale(ui, position) {
    ui.stale.splice(position, 1);
    ui.lastAction = 'A saved label that is not in this trace was removed.';
    paintStale(ui);
    commit(ui);
    // The button is gone: focus the Remove button now in its place, else the first region.
    var buttons = ui.staleList.querySelectorAll('button');
    var next = buttons[Math.min(position, buttons.length - 1)] || ui.regionList.querySelector('button.ma-tc-choose');
    if (next) { next.focus(); }
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
    paintBands(ui, Array.from(agents));
  }

  /** Store what the widget shows, once per action, then update words and completeness. */
  function commit(ui) {
    ui.typing.cancel();
    var value = composeValue(ui.marks, ui.stale, ui.data.regions, ui.data.callsByIndex, ui.confirmedEmpty);
    ui.unreadable = null;
    ui.ctx.model.set(value);
    ui.stored = value !== null;
    ui.stale.forEach(function (item, position) { item.position = ui.marks.size + position; });   // as now stored
    describe(ui);
  }

  // ---------------------------------------------------------------------------------------------
  // Words on the page: progress, summary, notices, stale marks, left-out calls
  // ---------------------------------------------------------------------------------------------

  function describe(ui) {
    var ctx = ui.ctx;
    var data = ui.data;
    var total = data.regions.length;
    ui.progress.textContent = total ? ui.labelled + ' of ' + total + ' regions labelled.' : '';
    describePager(ui);
    ctx.setNotices(noticesFor(ctx.derivation, ui.stale, ui.unreadable, data.leftOut.length));
    ctx.model.setIncomplete(incompleteReason(total, ui.labelled, ui.stored, ui.unreadable));
    var chosen = null;
    if (ui.chosen !== null) {
      var mark = ui.marks.get(ui.chosen);
      chosen = regionName(data.regions[ui.chosen], data.scale) + ', ' + (mark ? 'labelled ' + mark.label : 'not labelled');
    }
    var summary = summaryText({total: total, labelled: ui.labelled, stale: ui.stale.length,
      leftOut: data.leftOut.length, unreadable: ui.unreadable}, chosen);
    ctx.model.announce((ui.lastAction ? ui.lastAction + ' ' : '') + summary);
    ui.lastAction = null;
  }

  function paintStale(ui) {
    runtime.clear(ui.staleList);
    ui.stale.forEach(function (item, position) {
      var mark = item.mark;
      var words = 'Saved region ' + (mark.index + 1) + ': ' + clip(mark.resource) + ', ' + formatTime(ui.data.scale, mark.start) +
        ' to ' + formatTime(ui.data.scale, mark.end) + ', ' + mark.agents.map(clip).join(', ') + ', labelled ' + clip(mark.label) +
        (item.reason === 'repeat' ? ' (repeats a region labelled above)' : ' (not in this trace)');
      ui.staleList.appendChild(runtime.h('li', {class: 'ma-tc-stale-item'}, [
        runtime.h('span', {text: words + ' '}),
        runtime.h('button', {type: 'button', 'data-ma-tc-remove': position, 'aria-label': 'Remove saved label: ' + words,
          text: 'Remove'})]));
    });
    ui.staleSection.hidden = ui.stale.length === 0;
  }

  /** The left-out list is built when opened, a page at a time: a trace may leave thousands of calls out. */
  function fillLeftOut(ui) {
    if (!ui.leftOut.open || ui.leftOutList.childNodes.length || !ui.data) { return; }
    if (!ui.leftOutPager) {
      ui.leftOutPager = windowing.createPager(ui.leftOutList, {size: LEFT_OUT_PAGE, noun: 'calls left out'});
    }
    var leftOut = ui.data.leftOut;
    ui.leftOutPager.show(leftOut.length, function (i) { return runtime.h('li', {text: leftOutText(leftOut[i])}); });
  }

  // ---------------------------------------------------------------------------------------------
  // Render (called by the runtime on load and on every potato:instance-ready)
  // ---------------------------------------------------------------------------------------------

  function render(ctx) {
    var ui = ctx.state.ui || (ctx.state.ui = createUi(ctx.el));
    if (ui.ctx) { ui.typing.flush(); }   // a note typed just before this re-render is stored first
    ui.ctx = ctx;
    var fresh = ui.derivation !== ctx.derivation;
    if (fresh) { adopt(ui, ctx.derivation); }
    var stored = readValue(ctx.model.get(), ctx.config);
    var matched = matchMarks(stored.value, ui.data.regions);
    ui.unreadable = stored.unreadable;
    ui.stored = stored.value !== null;
    ui.confirmedEmpty = stored.value !== null && stored.value.regions.length === 0;
    ui.marks = matched.marks;
    ui.stale = matched.stale;
    ui.labelled = ui.marks.size;
    if (fresh) {
      drawTimeline(ui);
      showPage(ui, 0);
    } else {
      ui.items.forEach(function (item, index) { paintItem(ui, index); });
      paintBands(ui, null);
    }
    paintStale(ui);
    describe(ui);
  }

  /** A new derivation (a new page's record): arrange it and start from the whole timeline. */
  function adopt(ui, derivation) {
    ui.derivation = derivation;
    ui.data = arrange(derivation);
    ui.view = firstView(ui.data);
    ui.chosen = null;
    ui.focusCall = null;
    var leftOut = ui.data.leftOut.length;
    ui.leftOut.hidden = leftOut === 0;
    ui.leftOutSummary.textContent = 'Calls left out of the timeline (' + leftOut + ')';
    runtime.clear(ui.leftOutList);
    fillLeftOut(ui);
  }

  return {
    WIDGET: WIDGET,
    render: render,
    timeScale: timeScale,
    formatTime: formatTime,
    niceStep: niceStep,
    ticks: ticks,
    axisCaption: axisCaption,
    callName: callName,
    regionName: regionName,
    regionKey: regionKey,
    describeRegion: describeRegion,
    linkedSets: linkedSets,
    readValue: readValue,
    matchMarks: matchMarks,
    composeValue: composeValue,
    leftOutText: leftOutText,
    firstView: firstView,
    incompleteReason: incompleteReason,
    summaryText: summaryText,
    noticesFor: noticesFor
  };
}));
