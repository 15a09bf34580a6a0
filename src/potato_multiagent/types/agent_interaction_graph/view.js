/*
 * view.js of `multiagent.agent_interaction_graph`: the DOM of the widget, on the runtime (runtime.js).
 *
 * The run as a directed graph: nodes are the derivation's agents (roster first), edges its
 * `edges`. Clicking an agent adds it to the critical path or takes it off (click order is the
 * path's order); clicking an edge cycles normal -> critical -> problematic -> normal. The layout
 * is graph_layout.js (pure); the rules and words are marks.js; the runtime paints summary,
 * completeness, notices and the "Saved but not in this trace" list from marks.describe.
 * A judgment the record carries (docs/judgments.md) is listed under the graph with its source,
 * its path drawn on the graph as a dashed outline and a "J" label, and can be accepted.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';
import * as layoutLib from './graph_layout.js';

var marks = runtime.marksOf('agent_interaction_graph');
var SVG_NS = 'http://www.w3.org/2000/svg';
var GEOMETRY = layoutLib.GEOMETRY;
var plural = marks.plural;

/** An SVG element: attributes through the runtime's setAttribute path (no handler attributes). */
function svg(tag, attrs, children) {
  var node = document.createElementNS(SVG_NS, tag);
  runtime.setAttributes(node, attrs);
  (children || []).forEach(function (child) { if (child) { node.appendChild(child); } });
  return node;
}

/** Text widths measured with the page's font and text spacing, as the SVG will draw them. */
function canvasMeasure(family, spacing) {
  var context = document.createElement('canvas').getContext('2d');
  if (!context) { return layoutLib.estimateWidth; }
  return function (text, fontSize) {
    context.font = fontSize + 'px ' + family;
    var points = Array.from(text), spaces = points.filter(function (point) { return point === ' '; }).length;
    return context.measureText(text).width + 2 + fontSize * (spacing.letter * points.length + spacing.word * spaces);
  };
}

/**
 * The letter and word spacing the labels inherit, in em (a user's style sheet for WCAG 1.4.12 sets
 * 0.12em and 0.16em on every element): the canvas measures without them, the SVG draws with them.
 */
function spacingOf(canvas) {
  var style = window.getComputedStyle(canvas), size = parseFloat(style.fontSize) || 16;
  return {letter: (parseFloat(style.letterSpacing) || 0) / size, word: (parseFloat(style.wordSpacing) || 0) / size};
}

var layouts = new WeakMap();   // derivation -> {font, layout, spare}: layoutFor; spare: prepare's drawing

function familyOf(canvas) { return window.getComputedStyle(canvas).fontFamily || 'sans-serif'; }
/** Whether the page's web font for the labels has arrived (else canvas measures a fallback font). */
function fontArrived(family) { return !document.fonts || document.fonts.check(GEOMETRY.nodeFont + 'px ' + family); }

/**
 * The derivation's layout in the canvas's font, computed once per derivation and font: by prepare
 * before the form is built (runtime.js runs it while Potato waits for the server), else by the
 * first drawing. Whether the web font has arrived, and the text spacing, are part of the key: they
 * measure differently.
 */
function layoutFor(derivation, canvas) {
  var family = familyOf(canvas), spacing = spacingOf(canvas);
  var font = family + (fontArrived(family) ? '' : ' (not arrived)') + ' spaced ' + spacing.letter + ' ' + spacing.word;
  var known = layouts.get(derivation);
  if (!known || known.font !== font) {
    var layout = runtime.measured('multiagent:graph-layout', function () {
      return layoutLib.layoutGraph(derivation.agents, derivation.edges, {measure: canvasMeasure(family, spacing)});
    });
    known = {font: font, layout: layout, spare: null};
    layouts.set(derivation, known);
  }
  return known.layout;
}

function drawNode(node) {
  var g = GEOMETRY;
  var left = node.x - node.width / 2;
  var top = node.y - node.height / 2;
  var textX = left + g.badge + g.nodePadX;
  var label = svg('text', {class: 'ma-aig-node-label', x: textX, y: top + g.nodePadY},
    node.lines.map(function (line, k) {
      return svg('tspan', {x: textX, y: top + g.nodePadY + (k + 0.78) * g.nodeLine, text: line});
    }));
  var badge = svg('text', {class: 'ma-aig-node-badge', x: left + g.nodePadX + (g.badge - g.nodePadX) / 2,
    y: node.y + 4.5, 'text-anchor': 'middle', 'aria-hidden': 'true'});
  var judged = svg('text', {class: 'ma-aig-judged-label', x: left + node.width - 4, y: top - 2,
    'text-anchor': 'end', 'aria-hidden': 'true'});
  var group = svg('g', {class: 'ma-aig-node', role: 'button', tabindex: '-1', 'data-ma-aig-kind': 'node'}, [
    svg('title', {text: node.name}),
    svg('rect', {class: 'ma-aig-judged-outline', x: left - 4, y: top - 4, width: node.width + 8,
      height: node.height + 8, rx: 8}),
    svg('rect', {class: 'ma-aig-node-box', x: left, y: top, width: node.width, height: node.height, rx: 6}),
    badge, label, judged
  ]);
  return {element: group, badge: badge, judged: judged, node: node};
}

function drawEdge(edge) {
  var d = layoutLib.pathData(edge.points);
  var arrow = 'M' + edge.arrow.map(function (p) { return p[0] + ',' + p[1]; }).join(' L') + ' Z';
  var box = edge.label;
  var text = svg('text', {class: 'ma-aig-edge-count', x: box.x + box.width / 2, y: box.y + box.height / 2 + 4,
    'text-anchor': 'middle', 'aria-hidden': 'true', text: String(edge.count)});
  var group = svg('g', {class: 'ma-aig-edge', role: 'button', tabindex: '-1', 'data-ma-aig-kind': 'edge'}, [
    svg('title', {text: marks.edgeWords(edge.from, edge.to) + ', ' + plural(edge.count, 'message', 'messages')}),
    svg('path', {class: 'ma-aig-edge-hit', d: d, 'stroke-width': Math.max(12, edge.stroke + 8)}),
    svg('path', {class: 'ma-aig-edge-focus', d: d, 'stroke-width': edge.stroke + 8}),
    svg('path', {class: 'ma-aig-edge-casing', d: d, 'stroke-width': edge.stroke + 4}),
    svg('path', {class: 'ma-aig-edge-line', d: d, 'stroke-width': edge.stroke}),
    svg('path', {class: 'ma-aig-edge-arrow', d: arrow}),
    svg('rect', {class: 'ma-aig-edge-label', x: box.x, y: box.y, width: box.width, height: box.height, rx: 4}),
    text
  ]);
  return {element: group, count: text};
}

/** Build the SVG for a derivation once; marks are painted on it afterwards, in place. */
function drawGraph(view, derivation) {
  runtime.clear(view.canvas);
  view.graph = marks.graphOf(derivation);
  view.steps = null;
  view.handoffs = null;
  view.nodes = new Map();
  view.edges = new Map();
  view.byElement = new Map();
  view.rover = null;
  view.cameFrom = null;
  if (!derivation.agents.length) {
    view.canvas.appendChild(runtime.h('p', {class: 'ma-aig-empty', text: 'This trace has no agents to draw.'}));
    return;
  }
  var drawing = takeDrawing(derivation, view.canvas, view.help);
  drawing.edges.forEach(function (drawn) {
    view.edges.set(drawn.id, drawn);
    view.byElement.set(drawn.element, drawn);
  });
  drawing.nodes.forEach(function (drawn) {
    view.nodes.set(drawn.node.name, drawn);
    view.byElement.set(drawn.element, drawn);
  });
  view.canvas.appendChild(drawing.svg);
  view.navigation = navigationOf(drawing.layout);
  setRover(view, view.nodes.get(view.navigation.order[0]).element);
}

/** The drawing prepare made for this form (its layout and help text) if it is there, else a new one.
 * A drawing can be in one place only: a second form on the same derivation draws its own. */
function takeDrawing(derivation, canvas, help) {
  var layout = layoutFor(derivation, canvas);
  var known = layouts.get(derivation), spare = known.spare;
  if (!spare || spare.layout !== layout || spare.help !== help) { return drawingOf(derivation, layout, help); }
  known.spare = null;
  return spare;
}

/** The SVG of a layout, not yet in the page (nothing is laid out or painted until it is). */
function drawingOf(derivation, layout, help) {
  var edgeLayer = svg('g', {class: 'ma-aig-edges'});
  var nodeLayer = svg('g', {class: 'ma-aig-nodes'});
  var edges = layout.edges.map(function (edge) {
    var drawn = drawEdge(edge);
    drawn.source = derivation.edges[edge.index];
    drawn.id = marks.edgeId(edge.from, edge.to);
    edgeLayer.appendChild(drawn.element);
    return drawn;
  });
  var nodes = layout.nodes.map(function (node) {
    var drawn = drawNode(node);
    nodeLayer.appendChild(drawn.element);
    return drawn;
  });
  var root = svg('svg', {class: 'ma-aig-svg', viewBox: '0 0 ' + layout.width + ' ' + layout.height,
    width: layout.width, height: layout.height, role: 'group',
    'aria-label': 'Interaction graph: ' + plural(layout.nodes.length, 'agent', 'agents') + ', ' +
      plural(layout.edges.length, 'edge', 'edges'),
    'aria-describedby': help && help.id ? help.id : null}, [edgeLayer, nodeLayer]);
  return {svg: root, edges: edges, nodes: nodes, layout: layout, help: help};
}

/** Reading order of the agents and, per agent side, its edges from top to bottom. */
function navigationOf(layout) {
  var order = layout.nodes.slice().sort(function (a, b) { return a.column - b.column || a.y - b.y; })
    .map(function (node) { return node.name; });
  var sides = new Map(layout.nodes.map(function (node) { return [node.name, {left: [], right: []}]; }));
  var ends = new Map();
  layout.edges.forEach(function (edge) {
    var start = edge.points[0];
    var end = edge.arrow[0];
    var id = marks.edgeId(edge.from, edge.to);
    var fromSide = end[0] > start[0] ? 'right' : 'left';
    var toSide = fromSide === 'right' ? 'left' : 'right';
    sides.get(edge.from)[fromSide].push({id: id, y: start[1]});
    sides.get(edge.to)[toSide].push({id: id, y: end[1]});
    ends.set(id, fromSide === 'right' ? {left: edge.from, right: edge.to} : {left: edge.to, right: edge.from});
  });
  sides.forEach(function (side) {
    ['left', 'right'].forEach(function (name) {
      side[name] = side[name].sort(function (a, b) { return a.y - b.y; }).map(function (port) { return port.id; });
    });
  });
  return {order: order, sides: sides, ends: ends};
}

// -- painting marks in place --------------------------------------------------------------

function paintNode(view, drawn) {
  var position = view.marks.path.indexOf(drawn.node.name);
  var on = position >= 0;
  drawn.element.setAttribute('aria-pressed', on ? 'true' : 'false');
  drawn.element.setAttribute('aria-label', marks.nodeName(drawn.node.name, position, view.marks.path.length));
  drawn.element.classList.toggle('ma-aig-critical', on);
  drawn.badge.textContent = on ? String(position + 1) : '';
}

function paintEdge(view, drawn) {
  var status = marks.statusOf(view.marks, drawn.source);
  drawn.element.setAttribute('data-status', status);
  drawn.element.setAttribute('aria-label', marks.edgeName(drawn.source, status));
  drawn.count.textContent = status === marks.NORMAL ? String(drawn.source.count) : drawn.source.count + ' \u00B7 ' + status;
}

function paintAll(view) {
  view.nodes.forEach(function (drawn) { paintNode(view, drawn); });
  view.edges.forEach(function (drawn) { paintEdge(view, drawn); });
}

// -- actions ------------------------------------------------------------------------------

/** Store the marks (an edit is the annotator's own: from_judgment goes). */
function commit(view) {
  view.marks.fromJudgment = null;
  view.model.set(marks.composeValue(view.marks, view.graph));
}

function toggleNode(view, drawn) {
  var path = view.marks.path;
  var position = path.indexOf(drawn.node.name);
  if (position >= 0) { path.splice(position, 1); } else { path.push(drawn.node.name); }
  // Only the toggled agent and the path's agents change (their "k of N").
  paintNode(view, drawn);
  path.forEach(function (name) { if (view.nodes.has(name)) { paintNode(view, view.nodes.get(name)); } });
  commit(view);
}

function cycleEdge(view, drawn) {
  var id = drawn.id;
  var next = marks.NEXT_STATUS[marks.statusOf(view.marks, drawn.source)];
  if (next === marks.NORMAL) {
    view.marks.edges.delete(id);
  } else if (view.marks.edges.has(id)) {
    view.marks.edges.get(id).status = next;
  } else {
    view.marks.edges.set(id, {from: drawn.source.from, to: drawn.source.to, status: next});
  }
  paintEdge(view, drawn);
  commit(view);
}

function activate(view, drawn) {
  if (drawn.node) { toggleNode(view, drawn); } else { cycleEdge(view, drawn); }
}

// -- keyboard -----------------------------------------------------------------------------

/** One element of the graph is in the Tab order: the last one focused. */
function setRover(view, element) {
  if (view.rover && view.rover !== element) { view.rover.setAttribute('tabindex', '-1'); }
  element.setAttribute('tabindex', '0');
  view.rover = element;
}

function focusDrawn(view, drawn) {
  if (!drawn) { return; }
  setRover(view, drawn.element);
  drawn.element.focus();
}

function nodeAfter(view, name, step) {
  var order = view.navigation.order;
  var index = order.indexOf(name) + step;
  return index >= 0 && index < order.length ? view.nodes.get(order[index]) : null;
}

/** Where an arrow key leads from a node: Up/Down along the reading order, Left/Right onto its edges. */
function moveFromNode(view, drawn, key) {
  var name = drawn.node.name;
  if (key === 'ArrowUp') { return nodeAfter(view, name, -1); }
  if (key === 'ArrowDown') { return nodeAfter(view, name, 1); }
  var side = key === 'ArrowRight' ? 'right' : 'left';
  var ids = view.navigation.sides.get(name)[side];
  if (!ids.length) { return null; }
  view.cameFrom = {name: name, side: side};
  return view.edges.get(ids[0]);
}

/** From an edge: Left/Right to the agent at that end, Up/Down to the next edge at the same agent side. */
function moveFromEdge(view, drawn, key) {
  var ends = view.navigation.ends.get(drawn.id);
  if (key === 'ArrowLeft') { return view.nodes.get(ends.left); }
  if (key === 'ArrowRight') { return view.nodes.get(ends.right); }
  var from = view.cameFrom;
  var ids = from ? view.navigation.sides.get(from.name)[from.side] : [];
  if (ids.indexOf(drawn.id) < 0) {
    from = {name: ends.left, side: 'right'};
    ids = view.navigation.sides.get(from.name).right;
    view.cameFrom = from;
  }
  var next = ids[ids.indexOf(drawn.id) + (key === 'ArrowDown' ? 1 : -1)];
  return next === undefined ? null : view.edges.get(next);
}

var ARROWS = {ArrowUp: true, ArrowDown: true, ArrowLeft: true, ArrowRight: true};

function onKeydown(view, event) {
  var drawn = drawnOf(view, event.target);
  if (!drawn) { return; }
  var key = event.key;
  if (key === 'Enter' || key === ' ') {
    activate(view, drawn);
  } else if (ARROWS[key]) {
    focusDrawn(view, drawn.node ? moveFromNode(view, drawn, key) : moveFromEdge(view, drawn, key));
  } else if (key === 'Home' || key === 'End') {
    var order = view.navigation.order;
    focusDrawn(view, view.nodes.get(order[key === 'Home' ? 0 : order.length - 1]));
  } else {
    return;
  }
  event.preventDefault();
  event.stopPropagation();
}

function drawnOf(view, target) {
  var element = target && target.closest ? target.closest('[data-ma-aig-kind]') : null;
  return element ? view.byElement.get(element) || null : null;
}

// -- the steps of the focused agent or edge -----------------------------------------------

/** "#4, #9" as step links (ui.stepLink), with "(51–100 of 230)" after a partial page. */
function linkList(ui, part, nodeOf) {
  var children = [];
  part.items.forEach(function (item, k) {
    if (k) { children.push(', '); }
    children = children.concat(nodeOf(item));
  });
  if (part.more) { children.push(part.more); }
  return children;
}

/** The steps of a focused agent or edge, a page (marks.STEP_PAGE) at a time by the pager. */
function showDetails(view, drawn) {
  view.detailsShown = drawn;
  if (drawn.node) {
    view.steps = view.steps || marks.stepsByAgent(view.derivation);
    var own = view.steps.get(drawn.node.name) || {by: [], to: []};
    view.detailsPager.show(Math.max(own.by.length, own.to.length), null, 'steps');
  } else {
    view.detailsPager.show(drawn.source.steps.length, null, 'handoffs');
  }
}

/** The words of page `page` of the shown agent's or edge's steps, with #N step links. */
function paintDetails(view, page) {
  var ui = view.ui;
  var drawn = view.detailsShown;
  var parts;
  var details;
  if (drawn.node) {
    details = marks.nodeDetails(drawn.node.name, view.steps, page);
    var link = function (index) { return [ui.stepLink(index)]; };
    parts = details.count ? [plural(details.count, 'step', 'steps') + ' by this agent: ']
      .concat(linkList(ui, details.by, link), ['.']) : ['No steps by this agent in this trace.'];
    if (details.to) { parts = parts.concat([' Addressed to it: '], linkList(ui, details.to, link), ['.']); }
  } else {
    view.handoffs = view.handoffs || marks.handoffIndex(view.derivation);
    details = marks.edgeDetails(drawn.source, view.handoffs, page);
    var pair = function (handoff) {
      var end = function (index) { return index === null ? '(none)' : ui.stepLink(index); };
      return [end(handoff.giver), ' -> ', end(handoff.receiver)];
    };
    parts = [plural(details.count, 'handoff', 'handoffs') + ': '].concat(linkList(ui, details.handoffs, pair), ['.']);
  }
  view.detailsTitle.textContent = details.title;
  runtime.clear(view.detailsText);
  parts.forEach(function (child) {
    view.detailsText.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  });
  // the agent's steps are one Tab stop, arrows along them: Tab passes a 40-step agent in one key
  runtime.oneTabStop(view.detailsText, '[data-ma="step-link"]');
}

// -- judgments ----------------------------------------------------------------------------

/**
 * The record's judgments for this scheme under the graph (per config.show_judgments), each
 * labelled with its source, with its Accept (runtime.acceptButton); the shown judges' critical paths
 * are outlined (dashed) on the graph and labelled with the judge's place list, never by colour.
 */
function showJudgments(view, args) {
  var judgments = marks.judgmentsFor(args.record, args.config, args.schemaName);
  var value = args.model.get().value;
  var visible = judgments.length > 0 && marks.judgmentsVisible(args.config, value);
  var accepted = value && typeof value.from_judgment === 'string' ? value.from_judgment : null;
  var box = view.judgmentsBox;
  box.hidden = !visible;
  view.nodes.forEach(function (drawn) {
    drawn.element.classList.remove('ma-aig-judged');
    drawn.judged.textContent = '';
  });
  var lines = visible ? judgments.map(function (judgment, k) {
    return 'J' + (k + 1) + ' \u00B7 ' + judgment.source + ': ' + marks.judgmentText(judgment, view.graph);
  }) : [];
  // rebuilt only when the lines change: an Accept repainted in place keeps the focus
  var signature = JSON.stringify(lines);
  if (box.getAttribute('data-ma-shown') !== signature) {
    box.setAttribute('data-ma-shown', signature);
    runtime.clear(box);
    if (visible) { box.appendChild(runtime.h('p', {class: 'ma-aig-judgments-title', text: 'Judgments'})); }
    lines.forEach(function (line, k) {
      box.appendChild(runtime.h('div', {class: 'ma-aig-judgment', 'data-ma': 'judgment'}, [
        runtime.h('p', {class: 'ma-aig-judgment-text', text: line}),
        runtime.acceptButton({source: judgments[k].source, attrs: {class: 'ma-button', 'data-ma': 'accept-judgment',
          'data-ma-focus': 'accept-judgment-' + k}, onAccept: function () { acceptJudgment(view, judgments[k]); }})
      ]));
    });
  }
  box.querySelectorAll('[data-ma="accept-judgment"]').forEach(function (button, k) {
    runtime.paintAccept(button, {source: judgments[k].source, accepted: accepted === judgments[k].source});
  });
  if (!visible) { return; }
  judgments.forEach(function (judgment, k) {
    (judgment.value.critical_nodes || []).forEach(function (name, position) {
      var drawn = view.nodes.get(name);
      if (!drawn) { return; }
      drawn.element.classList.add('ma-aig-judged');
      var said = drawn.judged.textContent;
      drawn.judged.textContent = (said ? said + ' ' : '') + 'J' + (k + 1) + ':' + (position + 1);
    });
  });
}

function acceptJudgment(view, judgment) {
  view.model.set(marks.acceptedValue(judgment, view.graph));
  view.ui.announce('Accepted ' + judgment.source + '\u2019s answer.');
  runtime.renderForm(view.form);
}

// -- render -------------------------------------------------------------------------------

function part(el, name) {
  var found = el.querySelector('[data-ma-aig="' + name + '"]');
  if (!found) { throw new Error('the page lacks the ' + name + ' part of this question (data-ma-aig="' + name + '")'); }
  return found;
}

/** Find the template's parts and wire the listeners once; the returned object lives across renders. */
function createView(args) {
  var el = args.el;
  var view = {form: el.closest('form') || el, canvas: part(el, 'canvas'), help: part(el, 'help'),
    detailsTitle: part(el, 'details-title'), detailsText: part(el, 'details-text'), derivation: null,
    judgmentsBox: runtime.h('div', {class: 'ma-aig-judgments', 'data-ma': 'judgments', hidden: true})};
  view.detailsPager = args.ui.pager(view.detailsText, {size: marks.STEP_PAGE,
    draw: function (first) { if (view.detailsShown) { paintDetails(view, first / marks.STEP_PAGE); } }});
  view.canvas.parentNode.insertBefore(view.judgmentsBox, view.canvas.nextSibling);
  // The drawing fits its box (scaled down, never up); "Full size" shows it at its natural size, the
  // box scrolling, for a team whose names the fitted drawing shrinks below reading.
  var zoom = part(el, 'zoom');
  zoom.addEventListener('click', function () {
    var full = zoom.getAttribute('aria-pressed') !== 'true';
    zoom.setAttribute('aria-pressed', full ? 'true' : 'false');
    view.canvas.classList.toggle('ma-aig-full-size', full);
  });
  view.canvas.addEventListener('click', function (event) {
    var drawn = drawnOf(view, event.target);
    if (!drawn) { return; }
    focusDrawn(view, drawn);
    activate(view, drawn);
  });
  view.canvas.addEventListener('keydown', function (event) { onKeydown(view, event); });
  // Potato's keyup shortcuts must not see the keys this graph acts on.
  view.canvas.addEventListener('keyup', function (event) {
    if (drawnOf(view, event.target)) { event.stopPropagation(); }
  });
  view.canvas.addEventListener('focusin', function (event) {
    var drawn = drawnOf(view, event.target);
    if (!drawn) { return; }
    setRover(view, drawn.element);
    showDetails(view, drawn);
  });
  return view;
}


/** The logical control with focus (a node name or an edge id), to find it again after a redraw. */
function focusedKey(view) {
  var drawn = drawnOf(view, document.activeElement);
  if (!drawn || !view.canvas.contains(drawn.element)) { return null; }
  return drawn.node ? {node: drawn.node.name} : {edge: drawn.id};
}

function render(args) {
  var ui = args.ui;
  var view = ui.state.view || (ui.state.view = createView(args));
  view.model = args.model;
  view.ui = ui;
  if (view.derivation !== args.derivation) {
    var focused = view.derivation ? focusedKey(view) : null;
    drawGraph(view, args.derivation);
    view.derivation = args.derivation;
    view.detailsShown = null;
    view.detailsPager.show(0);
    if (focused) { focusDrawn(view, focused.node ? view.nodes.get(focused.node) : view.edges.get(focused.edge)); }
  }
  view.marks = marks.marksOf(args.model.get().value, view.graph);
  paintAll(view);
  showJudgments(view, args);
  args.model.on('change', function () { showJudgments(view, args); });
}

/** Before the form is built: its layout in the page's font and its SVG, outside the page (the build
 * then only puts it in); a web font still on its way is waited for (and asked for), unless the form
 * is built first. */
function prepare(args) {
  if (!args.derivation.agents.length) { return; }
  var canvas = part(args.el, 'canvas'), family = familyOf(canvas);
  function layOut() {
    if (args.el.closest('form[data-ma-ready]')) { return; }
    var layout = layoutFor(args.derivation, canvas), known = layouts.get(args.derivation);
    if (!known.spare) { known.spare = drawingOf(args.derivation, layout, part(args.el, 'help')); }
  }
  if (fontArrived(family)) { layOut(); return; }
  document.fonts.load(GEOMETRY.nodeFont + 'px ' + family).then(layOut).catch(function (error) {
    window.console.error('multiagent: preparing the interaction graph failed:', error);   // its build redoes it
  });
}

runtime.define('agent_interaction_graph', {describe: marks.describe, render: render, prepare: prepare});
