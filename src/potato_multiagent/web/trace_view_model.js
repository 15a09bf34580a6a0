/*
 * trace_view_model.js: what the trace view shows, as plain data (no DOM): one entry per step with
 * every string its row prints (viewModel), the layout `auto` picks, the lanes and thread depths the
 * layouts place rows by, and the layout a radio answer maps to. The first of the trace view's
 * files (trace_view_model, trace_view_judgments, trace_view_rows, trace_view; docs/trace-view.md).
 * Page global PotatoMultiagentTraceModel; module.exports under node (tests).
 */
(function (root, factory) {
  'use strict';
  var api = factory();
  if (typeof module === 'object' && module !== null && module.exports) {
    module.exports = api;
  } else if (root && !root.PotatoMultiagentTraceModel) {
    root.PotatoMultiagentTraceModel = api;
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function () {
  'use strict';

  var LAYOUTS = ['lanes', 'tree', 'board'];
  var TIME_FIELDS = ['timestamp', 'time', 'created_at', 'start_time', 'start', 'timestep'];

  function own(object, key) {
    return object !== null && typeof object === 'object' && Object.prototype.hasOwnProperty.call(object, key);
  }

  /** The raw step list at a (dotted) steps_key, or []. */
  function rawSteps(record, stepsKey) {
    var value = record;
    if (own(record, stepsKey)) {
      value = record[stepsKey];
    } else {
      String(stepsKey).split('.').forEach(function (part) { value = own(value, part) ? value[part] : undefined; });
    }
    return Array.isArray(value) ? value : [];
  }

  function agentLabel(step) {
    if (step.agent === null || step.agent === undefined) { return '(no agent)'; }
    return step.qualifier ? step.agent + ' (' + step.qualifier + ')' : step.agent;
  }

  function timeOf(raw) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) { return null; }
    for (var i = 0; i < TIME_FIELDS.length; i++) {
      var value = own(raw, TIME_FIELDS[i]) ? raw[TIME_FIELDS[i]] : undefined;
      if (typeof value === 'string' && value !== '') { return value; }
      if (typeof value === 'number' && isFinite(value)) { return String(value); }
    }
    return null;
  }

  function errorText(error) {
    if (typeof error === 'string') { return error; }
    if (error && typeof error === 'object' && typeof error.message === 'string') { return error.message; }
    return null;
  }

  function formatArguments(args) {
    if (args === null || args === undefined) { return ''; }
    if (typeof args === 'string') { return args; }
    return JSON.stringify(args, null, 2);
  }

  function handoffText(handoff) {
    var kind = handoff.kind || (handoff.explicit ? 'explicit' : 'implicit');
    var words = {explicit: 'Explicit handoff', implicit: 'Handoff', delegation: 'Delegation', 'return': 'Return'};
    return (words[kind] || 'Handoff') + ': ' + handoff.from + ' \u2192 ' + handoff.to;
  }

  /**
   * What the view shows, from a derivation (derive.js output) and the record: one entry per step,
   * in step order. Every string a row prints comes from here (the DOM builder adds no facts).
   */
  function viewModel(derivation, record, options) {
    var raws = rawSteps(record, (options && options.steps_key) || 'steps');
    var steps = derivation.steps.map(function (step) {
      var raw = raws[step.index];
      return {index: step.index, number: '#' + (step.index + 1), agent: step.agent, agentLabel: agentLabel(step),
        to: step.to, kind: step.kind, text: step.text, thread: step.thread || null,
        parentThread: step.parent_thread || null, error: errorText(step.error), time: timeOf(raw),
        handoffs: [], toolCalls: [], results: []};
    });
    derivation.handoffs.forEach(function (handoff) {
      var target = steps[handoff.step];
      if (target) { target.handoffs.push({index: handoff.index, from: handoff.from, to: handoff.to,
        fromStep: handoff.from_step, kind: handoff.kind || (handoff.explicit ? 'explicit' : 'implicit'),
        text: handoffText(handoff)}); }
    });
    derivation.tool_calls.forEach(function (call) {
      var target = steps[call.step];
      if (!target) { return; }
      var resultStep = typeof call.result_step === 'number' ? steps[call.result_step] : null;
      var error = errorText(call.error) || (resultStep ? resultStep.error : null);
      target.toolCalls.push({index: call.index, tool: call.tool === null ? '(no tool name)' : call.tool,
        arguments: formatArguments(call.arguments), resultStep: resultStep ? resultStep.index : null,
        result: resultStep ? resultStep.text : null, error: error});
      if (resultStep) { resultStep.results.push(call.index); }
    });
    return steps;
  }


  /** The plain facts of one row (the numbers, agents, handoffs and calls it prints). */
  function rowFacts(entry) {
    return {number: entry.number, agent: entry.agentLabel,
      handoffs: entry.handoffs.map(function (handoff) { return handoff.text; }),
      toolCalls: entry.toolCalls.map(function (call) { return call.tool; })};
  }

  /**
   * The layout `auto` picks: tree when the run has threads or delegations; board when it is one
   * group chat (no threads, three or more agents, and at least half of its agent-bearing steps
   * name an addressee); lanes otherwise.
   */
  function autoLayout(derivation) {
    var threaded = derivation.steps.some(function (step) { return step.thread; }) ||
      derivation.handoffs.some(function (handoff) { return handoff.kind === 'delegation' || handoff.kind === 'return'; });
    if (threaded) { return 'tree'; }
    var bearing = derivation.steps.filter(function (step) { return step.agent !== null && step.kind !== 'tool_result'; });
    var addressed = bearing.filter(function (step) { return step.to; }).length;
    if (derivation.agents.length >= 3 && bearing.length > 0 && addressed * 2 >= bearing.length) { return 'board'; }
    return 'lanes';
  }

  /** Depth of each thread (root: 0), following parent_thread; cycles stop at the first repeat. */
  function threadDepths(steps) {
    var parents = Object.create(null);
    steps.forEach(function (step) {
      if (step.thread && step.parentThread && !(step.thread in parents)) { parents[step.thread] = step.parentThread; }
    });
    var depths = Object.create(null);
    function depth(thread) {
      if (!thread) { return 0; }
      if (thread in depths) { return depths[thread]; }
      var seen = Object.create(null);
      var d = 1;
      var at = parents[thread];
      while (at && !(at in seen) && d < 32) { seen[at] = true; d += 1; at = parents[at]; }
      depths[thread] = d;
      return d;
    }
    return depth;
  }

  /**
   * Lanes: one per agent that acts in a step (first appearance order), plus one first for steps
   * with no agent when there are any. {of: agent -> lane, none: lane or -1, count}.
   */
  function laneMap(entries) {
    var of = Object.create(null);
    var hasNone = entries.some(function (entry) { return entry.agent === null; });
    var count = hasNone ? 1 : 0;
    entries.forEach(function (entry) {
      if (entry.agent !== null && !(entry.agent in of)) { of[entry.agent] = count; count += 1; }
    });
    return {of: of, none: hasNone ? 0 : -1, count: Math.max(count, 1)};
  }

  /** The layout for a radio answer, given the view's map; null when the answer maps to none. */
  function layoutForAnswer(answer, layoutMap) {
    if (answer === null || answer === undefined) { return null; }
    var layout = own(layoutMap, answer) ? layoutMap[answer] : null;
    return LAYOUTS.indexOf(layout) >= 0 ? layout : null;
  }

  return {
    LAYOUTS: LAYOUTS,
    own: own,
    viewModel: viewModel,
    rowFacts: rowFacts,
    autoLayout: autoLayout,
    threadDepths: threadDepths,
    laneMap: laneMap,
    layoutForAnswer: layoutForAnswer
  };
}));
