/*
 * marks.js of `multiagent.agent_interaction_graph`: the pure rules (no DOM), shared by view.js in
 * the page and by the node tests (tests/js/type_cases.test.js runs cases.json against problems()).
 *
 * The stored value is
 *     {"critical_nodes": [names], "edges": {"A->B": status}, "edge_marks": [{from, to, status}]}
 * where edge_marks is authoritative and the seed's `edges` map holds the marked edges whose
 * "A->B" key names exactly one edge of the trace (a name may contain "->"); an accepted judgment
 * adds "from_judgment": source. Nothing marked stores "". The layout is graph_layout.js.
 */
import {marks} from 'potato-multiagent';

marks('agent_interaction_graph', function (lib) {
  'use strict';

  var NORMAL = 'normal';
  var NEXT_STATUS = {normal: 'critical', critical: 'problematic', problematic: 'normal'};
  var NOT_IN_TRACE = 'not in this trace';
  var STEP_PAGE = 50;   // issue 18: an agent of a 50,000-step run took thousands of steps

  function plural(count, one, many) { return count + ' ' + (count === 1 ? one : many); }

  function edgeWords(from, to) { return from + ' to ' + to; }

  /** The seed's key of an edge: ambiguous when a name contains "->". */
  function edgeKey(from, to) { return from + '->' + to; }

  /** An unambiguous identity for an edge inside this widget. */
  function edgeId(from, to) { return JSON.stringify([from, to]); }

  /** The part of a list page `page` shows: {items, more} where more is "(51–100 of 230)" or "". */
  function pageOf(items, page) {
    var bounds = lib.pageBounds(items.length, page || 0, STEP_PAGE);
    var more = bounds.pages < 2 ? '' : ' (' + lib.formatCount(bounds.first + 1) + '\u2013' +
      lib.formatCount(bounds.end) + ' of ' + lib.formatCount(items.length) + ')';
    return {items: items.slice(bounds.first, bounds.end), more: more};
  }

  /** How many pages the longest of the lists has. */
  function stepPages(lists) {
    return lists.reduce(function (most, list) { return Math.max(most, lib.pageBounds(list.length, 0, STEP_PAGE).pages); }, 1);
  }

  /** "Agent NAME" plus its place on the critical path. */
  function nodeName(name, position, pathLength) {
    var text = 'Agent ' + name;
    return position < 0 ? text : text + ', on the critical path (' + (position + 1) + ' of ' + pathLength + ')';
  }

  /** "FROM to TO, N messages, STATUS". */
  function edgeName(edge, status) {
    return edgeWords(edge.from, edge.to) + ', ' + plural(edge.count, 'message', 'messages') + ', ' + status;
  }

  // ---------------------------------------------------------------------------------------------
  // The graph of a derivation, and the value (pure)
  // ---------------------------------------------------------------------------------------------

  /** Lookups over the derivation's agents and edges, built once per derivation. */
  function graphOf(derivation) {
    var byId = new Map();
    var byKey = new Map();
    derivation.edges.forEach(function (edge) {
      byId.set(edgeId(edge.from, edge.to), edge);
      var key = edgeKey(edge.from, edge.to);
      if (!byKey.has(key)) { byKey.set(key, []); }
      byKey.get(key).push(edge);
    });
    return {agentSet: new Set(derivation.agents), byId: byId, byKey: byKey};
  }

  /**
   * The stored value from model.get(): {value, unreadable}, checked against config.value_schema
   * (the JSON Schema of the Python Value model).
   */
  function hasOwn(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }

  function mapEntries(map) {
    return Object.keys(map || {}).map(function (key) { return [key, map[key]]; });
  }

  /**
   * The marks a value holds, by identity: {path: [names], edges: Map(id -> {from, to, status}),
   * seedKeys: [{key, status}]}. With edge_marks, those are the marks (the first of duplicates);
   * a value written for the seed (no edge_marks) marks the edges its keys name. A key that names
   * no edge of this trace, or several that edge_marks does not settle, is kept as it is.
   */
  function marksOf(value, graph) {
    var marks = {path: [], edges: new Map(), seedKeys: [], fromJudgment: null};
    if (!value) { return marks; }
    if (typeof value.from_judgment === 'string') { marks.fromJudgment = value.from_judgment; }
    (value.critical_nodes || []).forEach(function (name) {
      if (marks.path.indexOf(name) < 0) { marks.path.push(name); }
    });
    var fromSeed = !hasOwn(value, 'edge_marks');
    (value.edge_marks || []).forEach(function (mark) {
      var id = edgeId(mark.from, mark.to);
      if (!marks.edges.has(id)) { marks.edges.set(id, {from: mark.from, to: mark.to, status: mark.status}); }
    });
    mapEntries(value.edges).forEach(function (entry) {
      var named = graph.byKey.get(entry[0]) || [];
      if (named.length !== 1) {
        if (!settled(named, marks.edges)) { marks.seedKeys.push({key: entry[0], status: entry[1]}); }
      } else if (fromSeed) {
        marks.edges.set(edgeId(named[0].from, named[0].to), {from: named[0].from, to: named[0].to, status: entry[1]});
      }
    });
    return marks;
  }

  /** True when one of the edges an ambiguous key could name is marked: edge_marks says which it is. */
  function settled(named, markedEdges) {
    return named.some(function (edge) { return markedEdges.has(edgeId(edge.from, edge.to)); });
  }

  /** The value to store for the marks; null (store "") when nothing is marked. */
  function composeValue(marks, graph) {
    if (!marks.path.length && !marks.edges.size && !marks.seedKeys.length) { return null; }
    var edges = Object.create(null);   // no prototype: a stored key "__proto__" stays a key
    var edgeMarks = [];
    marks.edges.forEach(function (mark) {
      edgeMarks.push({from: mark.from, to: mark.to, status: mark.status});
      var key = edgeKey(mark.from, mark.to);
      var named = graph.byKey.get(key) || [];
      if (named.length === 1 && named[0].from === mark.from && named[0].to === mark.to) { edges[key] = mark.status; }
    });
    marks.seedKeys.forEach(function (entry) { edges[entry.key] = entry.status; });
    var value = {critical_nodes: marks.path.slice(), edges: edges, edge_marks: edgeMarks};
    if (marks.fromJudgment) { value.from_judgment = marks.fromJudgment; }
    return value;
  }

  function ambiguousKey(key, count) {
    return lib.problem('ambiguous_edge', {field: 'edges', value: key, count: count});
  }

  /**
   * The problems Python's trace_problems reports for a well-formed value, each as {kind, problem,
   * text}: the problem as data, in words, and its kind, 'stale' (kept until removed) or 'fixable'
   * (the next write fixes it).
   */
  function valueProblems(value, graph) {
    var problems = [];
    function add(kind, found) { problems.push({kind: kind, problem: found, text: lib.words(found)}); }
    var path = value.critical_nodes || [];
    path.forEach(function (name, position) {
      if (path.indexOf(name) < position) {
        add('fixable', lib.problem('repeats_entry', {field: 'critical_nodes[' + position + ']',
          first: 'critical_nodes[' + path.indexOf(name) + ']'}));
      } else if (!graph.agentSet.has(name)) {
        add('stale', lib.notInTrace('critical_nodes[' + position + ']', name));
      }
    });
    var seen = new Map();
    (value.edge_marks || []).forEach(function (mark, position) {
      var id = edgeId(mark.from, mark.to);
      if (seen.has(id)) {
        add('fixable', lib.problem('repeats_entry', {field: 'edge_marks[' + position + ']',
          first: 'edge_marks[' + seen.get(id) + ']'}));
        return;
      }
      seen.set(id, position);
      if (!graph.byId.has(id)) {
        add('stale', lib.notInTrace('edge_marks[' + position + ']', edgeWords(mark.from, mark.to)));
      }
    });
    mapEntries(value.edges).forEach(function (entry) {
      var named = graph.byKey.get(entry[0]) || [];
      if (!named.length) { add('stale', lib.notInTrace('edges', entry[0])); }
      if (named.length > 1) { add(settled(named, seen) ? 'fixable' : 'stale', ambiguousKey(entry[0], named.length)); }
    });
    if (hasOwn(value, 'edge_marks')) { mapAgreesWithMarks(value, graph, add); }
    return problems;
  }

  function mapAgreesWithMarks(value, graph, add) {
    var statusOf = new Map();
    value.edge_marks.forEach(function (mark) {
      var id = edgeId(mark.from, mark.to);
      if (!statusOf.has(id)) { statusOf.set(id, mark.status); }
    });
    var edges = value.edges || {};
    graph.byKey.forEach(function (named, key) {
      if (named.length !== 1) { return; }
      var marked = statusOf.get(edgeId(named[0].from, named[0].to));
      var inMap = hasOwn(edges, key);
      if (marked !== undefined && !inMap) {
        add('fixable', lib.problem('missing_in_map', {field: 'edges', value: key, source: 'edge_marks'}));
      } else if (marked !== undefined && edges[key] !== marked) {
        add('fixable', lib.problem('not_as_in', {field: 'edges', value: key, expected: marked, got: edges[key],
          source: 'edge_marks'}));
      } else if (marked === undefined && inMap) {
        add('fixable', lib.problem('no_entry_in', {field: 'edges', value: key, source: 'edge_marks'}));
      }
    });
  }

  /** The marks the trace does not contain, each with what Python says about it and how to drop it. */
  function staleMarks(marks, graph) {
    var stale = [];
    marks.path.forEach(function (name, position) {
      if (!graph.agentSet.has(name)) {
        stale.push({kind: 'node', name: name, text: lib.words(lib.notInTrace('critical_nodes[' + position + ']', name)),
          action: 'Remove agent ' + name + ' from the critical path'});
      }
    });
    var position = 0;
    marks.edges.forEach(function (mark, id) {
      if (!graph.byId.has(id)) {
        stale.push({kind: 'edge', id: id, text: lib.words(lib.notInTrace('edge_marks[' + position + ']', edgeWords(mark.from, mark.to))),
          action: 'Remove the ' + mark.status + ' mark on ' + edgeWords(mark.from, mark.to)});
      }
      position++;
    });
    marks.seedKeys.forEach(function (entry) {
      var count = (graph.byKey.get(entry.key) || []).length;
      stale.push({kind: 'seed', key: entry.key,
        text: lib.words(count ? ambiguousKey(entry.key, count) : lib.notInTrace('edges', entry.key)),
        action: 'Remove the ' + entry.status + ' mark on edges key ' + entry.key});
    });
    return stale;
  }

  function statusOf(marks, edge) {
    var mark = marks.edges.get(edgeId(edge.from, edge.to));
    return mark ? mark.status : NORMAL;
  }
  // ---------------------------------------------------------------------------------------------
  // Summary, completeness, details (pure)
  // ---------------------------------------------------------------------------------------------

  /**
   * "Critical path: A -> B -> C. Flagged edges: A to B (problematic). No edge from B to C in this
   * trace." Marks the trace lacks say so.
   */
  function summaryText(marks, graph, unreadable) {
    var parts = [];
    if (unreadable) { parts.push('The saved value could not be read.'); }
    if (marks.path.length) {
      parts.push('Critical path: ' + marks.path.map(function (name) {
        return graph.agentSet.has(name) ? name : name + ' (' + NOT_IN_TRACE + ')';
      }).join(' -> ') + '.');
    } else {
      parts.push('No critical path chosen.');
    }
    var flagged = [];
    marks.edges.forEach(function (mark, id) {
      var where = graph.byId.has(id) ? '' : ', ' + NOT_IN_TRACE;
      flagged.push(edgeWords(mark.from, mark.to) + ' (' + mark.status + where + ')');
    });
    marks.seedKeys.forEach(function (entry) {
      var count = (graph.byKey.get(entry.key) || []).length;
      flagged.push('edges key ' + entry.key + ' (' + entry.status + ', ' +
        (count ? 'could be ' + count + ' edges' : NOT_IN_TRACE) + ')');
    });
    parts.push(flagged.length ? 'Flagged edges: ' + flagged.join(', ') + '.' : 'No flagged edges.');
    pathGaps(marks.path, graph).forEach(function (gap) {
      parts.push('No edge from ' + edgeWords(gap[0], gap[1]) + ' in this trace.');
    });
    return parts.join(' ');
  }

  /** Consecutive critical-path agents (both in the trace) with no edge from the first to the second. */
  function pathGaps(path, graph) {
    var gaps = [];
    for (var k = 1; k < path.length; k++) {
      var from = path[k - 1];
      var to = path[k];
      if (graph.agentSet.has(from) && graph.agentSet.has(to) && !graph.byId.has(edgeId(from, to))) {
        gaps.push([from, to]);
      }
    }
    return gaps;
  }

  /** The shortfall Potato shows for a required graph (never trace text), or null when complete. */
  function incompleteReason(marks, unreadable) {
    if (marks.path.length) { return null; }
    if (unreadable) { return 'The saved value could not be read; click at least one agent on the critical path'; }
    return 'No agent is on the critical path yet; click at least one agent';
  }

  /** For each agent, the steps it took and the steps addressed to it. */
  function stepsByAgent(derivation) {
    var byAgent = new Map();
    function entry(name) {
      if (!byAgent.has(name)) { byAgent.set(name, {by: [], to: []}); }
      return byAgent.get(name);
    }
    derivation.steps.forEach(function (step) {
      if (step.agent !== null) { entry(step.agent).by.push(step.index); }
      if (step.to !== null) { entry(step.to).to.push(step.index); }
    });
    return byAgent;
  }

  /** An agent's steps, page `page`: {title, by: {items, more}, to: {items, more} | null, pages}. */
  function nodeDetails(name, steps, page) {
    var own = steps.get(name) || {by: [], to: []};
    var pages = stepPages([own.by, own.to]);
    var to = own.to.length && (page || 0) < stepPages([own.to]) ? pageOf(own.to, page) : null;
    return {title: 'Agent ' + name, count: own.by.length, by: pageOf(own.by, page), to: to, pages: pages};
  }

  /** The same as one line of words: "3 steps by this agent: #4, #9, #12. Addressed to it: #3." */
  function nodeDetailsText(details) {
    var numbers = function (part) {
      return part.items.map(function (index) { return '#' + (index + 1); }).join(', ') + part.more;
    };
    var lines = [details.count ? plural(details.count, 'step', 'steps') + ' by this agent: ' + numbers(details.by) + '.'
      : 'No steps by this agent in this trace.'];
    if (details.to) { lines.push('Addressed to it: ' + numbers(details.to) + '.'); }
    return lines.join(' ');
  }

  /** Lookups over the derivation's handoffs and steps, for edgeHandoffs (built once per derivation). */
  function handoffIndex(derivation) {
    var byStep = new Map();
    var byFromStep = new Map();
    derivation.handoffs.forEach(function (handoff) {
      var key = handoff.from + '\u0000' + handoff.to;
      if (!byStep.has(handoff.step)) { byStep.set(handoff.step, new Map()); }
      if (!byStep.get(handoff.step).has(key)) { byStep.get(handoff.step).set(key, handoff); }
      if (handoff.step > handoff.from_step) {
        if (!byFromStep.has(handoff.from_step)) { byFromStep.set(handoff.from_step, new Map()); }
        if (!byFromStep.get(handoff.from_step).has(key)) { byFromStep.get(handoff.from_step).set(key, handoff); }
      }
    });
    return {byStep: byStep, byFromStep: byFromStep, steps: derivation.steps, byAgent: stepsByAgent(derivation)};
  }

  /** The first step by `agent` after step `index`, or null (binary search over its steps). */
  function nextStepBy(index, agent, lookup) {
    var own = (lookup.byAgent.get(agent) || {by: []}).by;
    var low = 0;
    var high = own.length;
    while (low < high) {
      var middle = (low + high) >> 1;
      if (own[middle] <= index) { low = middle + 1; } else { high = middle; }
    }
    return low < own.length ? own[low] : null;
  }

  /**
   * Each handoff on an edge as {giver, receiver}: the giver's step and the receiver's step (issue
   * 15: never the receiver's own message alone). An edge step that is the receiver's turn after
   * the giver's is the handoff from_step -> step; one that addresses the receiver ("-> B", an
   * explicit handoff) is the addressing step -> the receiver's next step (null when none follows).
   */
  function edgeHandoffs(edge, lookup) {
    var key = edge.from + '\u0000' + edge.to;
    return edge.steps.map(function (index) {
      var step = lookup.steps[index];
      var addressing = step && step.agent === edge.from && step.to === edge.to;
      if (!addressing) {
        var taken = lookup.byStep.get(index);
        var handoff = taken && taken.get(key);
        return {giver: handoff ? handoff.from_step : null, receiver: index};
      }
      var answered = lookup.byFromStep.get(index);
      var next = answered && answered.get(key);
      return {giver: index, receiver: next ? next.step : nextStepBy(index, edge.to, lookup)};
    });
  }

  /** An edge's handoffs, page `page`: {title, count, handoffs: {items, more}, pages}. */
  function edgeDetails(edge, lookup, page) {
    var handoffs = edgeHandoffs(edge, lookup);
    return {title: edgeWords(edge.from, edge.to) + ', ' + plural(edge.count, 'message', 'messages'),
      count: handoffs.length, handoffs: pageOf(handoffs, page), pages: stepPages([handoffs])};
  }

  /** "#N" of a step or the words for none. */
  function stepWords(index) { return index === null ? '(none)' : '#' + (index + 1); }

  /** "2 handoffs: #3 -> #4, #7 -> #8." */
  function edgeDetailsText(details) {
    return plural(details.count, 'handoff', 'handoffs') + ': ' + details.handoffs.items.map(function (pair) {
      return stepWords(pair.giver) + ' -> ' + stepWords(pair.receiver);
    }).join(', ') + details.handoffs.more + '.';
  }

  /** The trace problems of a value as data ({code, ...parameters}), as Python's trace_problems
   * finds them (cases.json); lib.words says them. */
  function problems(value, derivation) {
    if (!value) { return []; }
    return valueProblems(value, graphOf(derivation)).map(function (found) { return found.problem; });
  }

  /** The marks without one stale item: what its Remove button stores. */
  function withoutStale(marks, item, graph) {
    var copy = {path: marks.path.slice(), edges: new Map(marks.edges), seedKeys: marks.seedKeys.slice(),
      fromJudgment: null};
    if (item.kind === 'node') { copy.path.splice(copy.path.indexOf(item.name), 1); }
    if (item.kind === 'edge') { copy.edges.delete(item.id); }
    if (item.kind === 'seed') { copy.seedKeys = copy.seedKeys.filter(function (entry) { return entry.key !== item.key; }); }
    return composeValue(copy, graph);
  }

  /** The warning and info lines under the graph. */
  function noticesFor(value, derivation, unreadable, graph) {
    var notices = [];
    if (unreadable) { notices.push({level: 'warning', text: unreadable}); }
    (derivation.problems || []).forEach(function (problem) {
      if (problem && problem.code === 'steps_not_list') {
        notices.push({level: 'warning', text: 'This trace has no steps to draw: ' + problem.message});
      }
    });
    (value ? valueProblems(value, graph) : []).forEach(function (problem) {
      if (problem.kind === 'fixable') {
        notices.push({level: 'info', text: problem.text + ' (corrected when you next mark an agent or an edge)'});
      }
    });
    return notices;
  }

  var graphs = new WeakMap();   // derivation -> its graphOf, so describe() stays cheap on every mark

  function graphFor(derivation) {
    if (!graphs.has(derivation)) { graphs.set(derivation, graphOf(derivation)); }
    return graphs.get(derivation);
  }

  /** What the runtime paints for a value (define's describe): stale marks listed with Remove. */
  function describe(value, ctx) {
    var graph = graphFor(ctx.derivation);
    var marks = marksOf(value, graph);
    return {
      summary: summaryText(marks, graph, ctx.unreadable),
      incomplete: incompleteReason(marks, ctx.unreadable),
      notices: noticesFor(value, ctx.derivation, ctx.unreadable, graph),
      stale: staleMarks(marks, graph).map(function (item) {
        return {text: item.text, remove: withoutStale(marks, item, graph)};
      })
    };
  }

  // -- judgments (docs/judgments.md) ------------------------------------------------------------

  /** The judgments a record carries for this scheme that are graph values: [{source, value}]. */
  function judgmentsFor(record, config, schemeName) {
    return lib.judgmentsOf(record, config, schemeName, function (value) {
      return typeof value === 'object' && Array.isArray(value.critical_nodes || []) &&
        Array.isArray(value.edge_marks || []);
    });
  }

  /** Whether judgments show now: 'always', 'never', or 'after_answer' once the path has an agent. */
  function judgmentsVisible(config, value) {
    return lib.judgmentsShown(config, value && (value.critical_nodes || []).length > 0);
  }

  /** What a judgment says, in the summary's words: "Critical path: A -> B. Flagged edges: ..." */
  function judgmentText(judgment, graph) {
    return summaryText(marksOf(judgment.value, graph), graph, null);
  }

  /** The value an accepted judgment stores: its marks, with from_judgment naming its source. */
  function acceptedValue(judgment, graph) {
    var marks = marksOf(judgment.value, graph);
    marks.fromJudgment = judgment.source;
    return composeValue(marks, graph);
  }

  return {
    NORMAL: NORMAL,
    NEXT_STATUS: NEXT_STATUS,
    STEP_PAGE: STEP_PAGE,
    plural: plural,
    edgeWords: edgeWords,
    edgeId: edgeId,
    graphOf: graphFor,
    marksOf: marksOf,
    composeValue: composeValue,
    valueProblems: valueProblems,
    staleMarks: staleMarks,
    statusOf: statusOf,
    summaryText: summaryText,
    pathGaps: pathGaps,
    incompleteReason: incompleteReason,
    nodeName: nodeName,
    edgeName: edgeName,
    stepsByAgent: stepsByAgent,
    nodeDetails: nodeDetails,
    nodeDetailsText: nodeDetailsText,
    handoffIndex: handoffIndex,
    edgeHandoffs: edgeHandoffs,
    edgeDetails: edgeDetails,
    edgeDetailsText: edgeDetailsText,
    problems: problems,
    noticesFor: noticesFor,
    describe: describe,
    judgmentsFor: judgmentsFor,
    judgmentsVisible: judgmentsVisible,
    judgmentText: judgmentText,
    acceptedValue: acceptedValue
  };
});
