/*
 * trace_view_model.js: what the trace view shows, as plain data (no DOM): one entry per step with
 * every string its row prints (stepModel, built as rows are drawn; viewModel: all of them), the
 * layout `auto` picks, the lanes and thread depths the layouts place rows by, and the layout a
 * radio answer maps to. The first of the trace view's
 * files (trace_view_model, trace_view_judgments, trace_view_rows, trace_view, and the parts types add;
 * docs/trace-view.md).
 */
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

/** One list per step index of the items `stepOf(item)` places on it (only steps that have any). */
function byStep(items, stepOf) {
  var lists = Object.create(null);
  items.forEach(function (item) {
    var step = stepOf(item);
    if (typeof step !== 'number') { return; }
    (lists[step] || (lists[step] = [])).push(item);
  });
  return lists;
}

/**
 * What the view shows, from a derivation (derive.js output) and the record, built a step at a
 * time: {length, at(i)}, where at(i) is step i's entry (every string its row prints; the DOM
 * builder adds no facts), built on first use and kept. The view draws a window of steps, so a
 * long trace costs its handoff and call indexes, not an entry per step (docs/performance.md).
 */
function stepModel(derivation, record, options) {
  var raws = rawSteps(record, (options && options.steps_key) || 'steps');
  var steps = derivation.steps;
  var handoffsAt = byStep(derivation.handoffs, function (handoff) { return handoff.step; });
  var callsAt = byStep(derivation.tool_calls, function (call) { return call.step; });
  var resultsAt = byStep(derivation.tool_calls, function (call) { return steps[call.step] ? call.result_step : null; });
  var built = Object.create(null);

  function callEntry(call) {
    var resultStep = typeof call.result_step === 'number' ? steps[call.result_step] : undefined;
    var error = errorText(call.error) || (resultStep ? errorText(resultStep.error) : null);
    return {index: call.index, tool: call.tool === null ? '(no tool name)' : call.tool,
      arguments: formatArguments(call.arguments), resultStep: resultStep ? resultStep.index : null,
      result: resultStep ? resultStep.text : null, error: error};
  }

  function handoffEntry(handoff) {
    return {index: handoff.index, from: handoff.from, to: handoff.to, fromStep: handoff.from_step,
      kind: handoff.kind || (handoff.explicit ? 'explicit' : 'implicit'), text: handoffText(handoff)};
  }

  function entry(i) {
    var step = steps[i];
    return {index: step.index, number: '#' + (step.index + 1), agent: step.agent, agentLabel: agentLabel(step),
      to: step.to, kind: step.kind, text: step.text, thread: step.thread || null,
      parentThread: step.parent_thread || null, error: errorText(step.error), time: timeOf(raws[step.index]),
      handoffs: (handoffsAt[i] || []).map(handoffEntry), toolCalls: (callsAt[i] || []).map(callEntry),
      results: (resultsAt[i] || []).map(function (call) { return call.index; })};
  }

  return {
    length: steps.length,
    at: function (i) { return built[i] || (built[i] = entry(i)); },
    built: function () { return Object.keys(built).length; }
  };
}

/** Every step's entry (stepModel's, all of them), in step order: for tests and the corpus. */
function viewModel(derivation, record, options) {
  var model = stepModel(derivation, record, options);
  var entries = [];
  for (var i = 0; i < model.length; i++) { entries.push(model.at(i)); }
  return entries;
}

/** The plain facts of one row (the numbers, agents, handoffs and calls it prints). */
function rowFacts(entry) {
  return {number: entry.number, agent: entry.agentLabel,
    handoffs: entry.handoffs.map(function (handoff) { return handoff.text; }),
    toolCalls: entry.toolCalls.map(function (call) { return call.tool; })};
}

/**
 * The layout `auto` picks from the derivation, and why (trace_view/layout.py holds the same rule
 * for init; trace_view/layout_cases.json referees both): tree for threads; board for a group
 * chat of three or more agents (at least half of the agents' turns name an addressee, or the
 * turn comes back to an agent after another spoke); lanes for fewer than three agents or a
 * pipeline (each agent speaks in one stretch). The view then weighs the pane's width.
 */
function layoutRule(derivation) {
  var threaded = derivation.steps.some(function (step) { return step.thread; }) ||
    derivation.handoffs.some(function (handoff) { return handoff.kind === 'delegation' || handoff.kind === 'return'; });
  if (threaded) { return {layout: 'tree', because: 'threads'}; }
  if (derivation.agents.length < 3) { return {layout: 'lanes', because: 'few_agents'}; }
  var bearing = derivation.steps.filter(function (step) { return step.agent !== null && step.kind !== 'tool_result'; });
  var addressed = bearing.filter(function (step) { return step.to; }).length;
  if (bearing.length > 0 && addressed * 2 >= bearing.length) { return {layout: 'board', because: 'addressed'}; }
  var finished = Object.create(null);
  for (var i = 1; i < bearing.length; i++) {
    if (bearing[i].agent === bearing[i - 1].agent) { continue; }
    finished[bearing[i - 1].agent] = true;
    if (finished[bearing[i].agent]) { return {layout: 'board', because: 'turns_return'}; }
  }
  return {layout: 'lanes', because: 'pipeline'};
}

function autoLayout(derivation) { return layoutRule(derivation).layout; }

/** Depth of each thread (root: 0), following the derivation's steps' parent_thread; cycles stop at
 * the first repeat. */
function threadDepths(steps) {
  var parents = Object.create(null);
  steps.forEach(function (step) {
    if (step.thread && step.parent_thread && !(step.thread in parents)) { parents[step.thread] = step.parent_thread; }
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
 * with no agent when there are any. {of: agent -> lane, none: lane or -1, count}. `steps`: the
 * derivation's (or entries: both carry `agent`).
 */
function laneMap(steps) {
  var of = Object.create(null);
  var hasNone = steps.some(function (step) { return step.agent === null; });
  var count = hasNone ? 1 : 0;
  steps.forEach(function (step) {
    if (step.agent !== null && !(step.agent in of)) { of[step.agent] = count; count += 1; }
  });
  return {of: of, none: hasNone ? 0 : -1, count: Math.max(count, 1)};
}

/** The layout for a radio answer, given the view's map; null when the answer maps to none. */
function layoutForAnswer(answer, layoutMap) {
  if (answer === null || answer === undefined) { return null; }
  var layout = own(layoutMap, answer) ? layoutMap[answer] : null;
  return LAYOUTS.indexOf(layout) >= 0 ? layout : null;
}

export {LAYOUTS, own, stepModel, viewModel, rowFacts, autoLayout, layoutRule, threadDepths, laneMap, layoutForAnswer};
