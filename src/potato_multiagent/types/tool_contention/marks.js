/*
 * marks.js of `multiagent.tool_contention`: the pure rules (no DOM), shared by view.js and
 * view_timeline.js in the page and by the node tests (tests/js/type_cases.test.js runs cases.json
 * against problems(); tests/js/tool_contention.test.js the time axis, identities and words).
 *
 * The stored value is
 *     {"contentions": {"<index>": label}, "regions": [{index, resource, start, end, agents,
 *      calls: [{index, agent, resource, start, end}], label, note}]}
 * and restore matches a region by resource, interval and set of agents, never by its index. A
 * saved label whose region is not in the trace is kept and listed as "not in this trace".
 */
import {marks} from 'potato-multiagent';

marks('tool_contention', function (lib) {
  'use strict';

  var MAX_STALE_NOTICES = 10, MAX_NAME = 120, DAY = 86400;
  var CLOCK_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200];
  var LAYOUT = {labelWidth: 130, axisHeight: 30, laneHeight: 30, rowHeight: 18, maxRows: 4, padRight: 12,
    minBlockWidth: 3, defaultWidth: 900};

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
    return name.length > MAX_NAME ? lib.snippet(name, MAX_NAME) : name;
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
  // The value: match by identity, compose (pure)
  // ---------------------------------------------------------------------------------------------

  var keyedRegions = typeof WeakMap === 'function' ? new WeakMap() : null;   // regions list -> Map(regionKey -> region)

  /**
   * The regions by identity, built once per regions list: every paint matches the stored marks
   * against them, and a long run has tens of thousands of regions.
   */
  function regionsByKey(regions) {
    var byKey = keyedRegions && keyedRegions.get(regions);
    if (!byKey) {
      byKey = new Map();
      regions.forEach(function (region) { byKey.set(regionKey(region), region); });
      if (keyedRegions) { keyedRegions.set(regions, byKey); }
    }
    return byKey;
  }

  /**
   * Stored marks against the derivation's regions: {marks: Map(regionIndex -> {label, note}),
   * stale: [{mark, reason: 'not_in_trace'|'repeat', position}]}, position being the mark's place
   * in the stored regions list. Matching is by regionKey only.
   */
  function matchMarks(value, regions) {
    var marks = new Map();
    var stale = [];
    var stored = value ? value.regions : [];
    var byKey = stored.length ? regionsByKey(regions) : null;
    stored.forEach(function (mark, position) {
      var region = byKey.get(regionKey(mark));
      var index = region === undefined ? undefined : region.index;
      if (index === undefined) {
        stale.push({mark: mark, reason: 'not_in_trace', position: position});
      } else if (marks.has(index)) {
        stale.push({mark: mark, reason: 'repeat', position: position});
      } else {
        var kept = {label: mark.label, note: mark.note};
        if (typeof mark.from_judgment === 'string') { kept.fromJudgment = mark.from_judgment; }
        marks.set(index, kept);
      }
    });
    return {marks: marks, stale: stale};
  }

  /** One stored entry for a labelled region, described from the derivation. */
  function markEntry(region, mark, callsByIndex) {
    var entry = {
      index: region.index, resource: region.resource, start: region.start, end: region.end,
      agents: region.agents.slice(),
      calls: region.calls.map(function (index) {
        var call = callsByIndex.get(index);
        return {index: index, agent: call.agent, resource: call.resource, start: call.start, end: call.end};
      }),
      label: mark.label, note: mark.note
    };
    if (typeof mark.fromJudgment === 'string') { entry.from_judgment = mark.fromJudgment; }
    return entry;
  }

  /** Region index -> [{source, label}]: each judgment's configured label per region it names (by regionKey). */
  function judgmentsByRegion(record, config, name, regions) {
    var byKey = new Map(), byRegion = new Map();
    regions.forEach(function (region) { byKey.set(regionKey(region), region.index); });
    lib.judgmentsOf(record, config, name, function (value) { return Array.isArray(value.regions); }).forEach(function (judgment) {
      judgment.value.regions.forEach(function (mark) {
        var index = mark && Array.isArray(mark.agents) ? byKey.get(regionKey(mark)) : undefined;
        if (index === undefined || config.contention_labels.indexOf(mark.label) < 0) { return; }
        byRegion.set(index, (byRegion.get(index) || []).concat([{source: judgment.source, label: mark.label}]));
      });
    });
    return byRegion;
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
        : lib.words(lib.notInTrace('regions[' + position + ']', describeRegion(item.mark)))});
    });
    if (stale.length > MAX_STALE_NOTICES) {
      notices.push({level: 'warning', text: (stale.length - MAX_STALE_NOTICES) + ' more saved labels are not in this trace.'});
    }
    return notices;
  }

  // ---------------------------------------------------------------------------------------------
  // What a value says against a derivation (describe, problems)
  // ---------------------------------------------------------------------------------------------

  /** The derivation's regions and calls, indexed once per derivation (the view shares it). */
  var indexed = typeof WeakMap === 'function' ? new WeakMap() : null;
  function regionsOf(derivation) {
    var known = indexed && indexed.get(derivation);
    if (known) { return known; }
    var callsByIndex = new Map();
    (derivation.calls || []).forEach(function (call) { callsByIndex.set(call.index, call); });
    known = {regions: derivation.contentions || [], callsByIndex: callsByIndex,
      leftOut: (derivation.problems || []).filter(isCallProblem).length, scale: timeScale(derivation.calls || [])};
    if (indexed) { indexed.set(derivation, known); }
    return known;
  }

  /**
   * The trace problems of a value as data ({code, ...parameters}), as Python's trace_problems finds
   * them (cases.json; lib.words says them): each
   * entry's label and note against the config, repeats, regions the trace lacks, a matched
   * region's index and calls, then the seed map against the entries.
   */
  function problems(value, derivation, config) {
    if (!value) { return []; }
    config = config || {};
    var labels = config.contention_labels || [];
    var byKey = regionsByKey(regionsOf(derivation).regions);
    var callsByIndex = regionsOf(derivation).callsByIndex;
    var seen = new Map();
    var found = [];
    value.regions.forEach(function (mark, position) {
      var field = 'regions[' + position + ']';
      if (labels.indexOf(mark.label) < 0) {
        found.push(lib.problem('not_configured', {field: field + '.label', value: mark.label, key: 'contention_labels'}));
      }
      if (mark.note && config.allow_note === false) {
        found.push(lib.problem('notes_off', {field: field + '.note', key: 'allow_note'}));
      }
      var key = regionKey(mark);
      if (seen.has(key)) {
        found.push(lib.problem('repeats_entry', {field: field, first: 'regions[' + seen.get(key) + ']'}));
        return;
      }
      seen.set(key, position);
      var region = byKey.get(key);
      if (!region) { found.push(lib.notInTrace(field, describeRegion(mark))); return; }
      found = found.concat(matchedRegionProblems(field, mark, region, callsByIndex));
    });
    return found.concat(mapProblems(value));
  }

  function callKey(call) { return JSON.stringify([call.agent, call.resource, Number(call.start), Number(call.end)]); }

  /** A mark whose region is in the trace: its index and its calls must be that region's. */
  function matchedRegionProblems(field, mark, region, callsByIndex) {
    var found = [];
    if (mark.index !== region.index) {
      found.push(lib.problem('not_as_in_trace', {field: field + '.index', expected: region.index, got: mark.index}));
    }
    var left = new Map();
    region.calls.forEach(function (index) {
      var key = callKey(callsByIndex.get(index));
      left.set(key, (left.get(key) || 0) + 1);
    });
    mark.calls.forEach(function (call, position) {
      var key = callKey(call);
      if (left.get(key) > 0) {
        left.set(key, left.get(key) - 1);
      } else {
        found.push(lib.notInTrace(field + '.calls[' + position + ']', call.agent + ' on ' + call.resource + ' [' +
          String(call.start) + ', ' + String(call.end) + ')'));
      }
    });
    return found;
  }

  /** The seed's contentions map must say exactly what regions says. */
  function mapProblems(value) {
    var expected = new Map();
    var first = new Map();
    var found = [];
    value.regions.forEach(function (mark, position) {
      var key = String(mark.index);
      if (expected.has(key)) {
        found.push(lib.problem('repeats_entry', {field: 'regions[' + position + '].index',
          first: 'regions[' + first.get(key) + '].index'}));
      } else {
        first.set(key, position);
      }
      expected.set(key, mark.label);
    });
    Object.keys(value.contentions).forEach(function (key) {
      var label = value.contentions[key];
      if (!expected.has(key)) {
        found.push(lib.problem('no_entry_in', {field: 'contentions', value: key, source: 'regions'}));
      } else if (label !== expected.get(key)) {
        found.push(lib.problem('not_as_in', {field: 'contentions', value: key, expected: expected.get(key), got: label,
          source: 'regions'}));
      }
    });
    expected.forEach(function (label, key) {
      if (!Object.prototype.hasOwnProperty.call(value.contentions, key)) {
        found.push(lib.problem('missing_in_map', {field: 'contentions', value: key, source: 'regions'}));
      }
    });
    return found;
  }

  /** "Saved region K: RESOURCE, T1 to T2, AGENTS, labelled L (not in this trace)". */
  function staleWords(item, scale) {
    var mark = item.mark;
    return 'Saved region ' + (mark.index + 1) + ': ' + clip(mark.resource) + ', ' + formatTime(scale, mark.start) +
      ' to ' + formatTime(scale, mark.end) + ', ' + mark.agents.map(clip).join(', ') + ', labelled ' + clip(mark.label) +
      (item.reason === 'repeat' ? ' (repeats a region labelled above)' : ' (not in this trace)');
  }

  /** The stored value without its entry at `position` (what a Remove button stores). */
  function withoutEntry(value, position) {
    var entries = value.regions.filter(function (entry, i) { return i !== position; });
    var contentions = {};
    entries.forEach(function (entry) {
      var key = String(entry.index);
      if (!Object.prototype.hasOwnProperty.call(contentions, key)) { contentions[key] = entry.label; }
    });
    return entries.length ? {contentions: contentions, regions: entries} : null;
  }

  /**
   * What the runtime paints for a value (define's describe): the summary (the view adds the
   * chosen region and the last action), completeness, notices and the stale marks with Remove.
   */
  function describe(value, ctx) {
    var data = regionsOf(ctx.derivation);
    var matched = matchMarks(value, data.regions);
    var total = data.regions.length;
    return {
      summary: summaryText({total: total, labelled: matched.marks.size, stale: matched.stale.length,
        leftOut: data.leftOut, unreadable: ctx.unreadable}, null),
      incomplete: incompleteReason(total, matched.marks.size, value !== null, ctx.unreadable),
      notices: noticesFor(ctx.derivation, matched.stale, ctx.unreadable, data.leftOut),
      stale: matched.stale.map(function (item) {
        return {text: staleWords(item, data.scale), remove: withoutEntry(value, item.position)};
      })
    };
  }

  return {
    LAYOUT: LAYOUT, timeScale: timeScale, formatTime: formatTime, niceStep: niceStep, ticks: ticks,
    maxTicksFor: maxTicksFor, axisCaption: axisCaption, clip: clip, callName: callName, regionName: regionName,
    regionKey: regionKey, describeRegion: describeRegion, linkedSets: linkedSets, matchMarks: matchMarks,
    composeValue: composeValue, judgmentsByRegion: judgmentsByRegion, leftOutText: leftOutText,
    incompleteReason: incompleteReason, summaryText: summaryText, noticesFor: noticesFor,
    isCallProblem: isCallProblem, problems: problems, describe: describe
  };
});
