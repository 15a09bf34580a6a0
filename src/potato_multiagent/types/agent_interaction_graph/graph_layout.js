/*
 * graph_layout.js: the layered layout of a directed graph, a plain-data algorithm (no DOM), in the
 * spirit of networkx's layouts: layoutGraph(agents, edges, {measure}) -> boxes, polylines, arrows
 * and label boxes in SVG user units. Used by the interaction graph's view.js; tested under node
 * (tests/js/graph_layout.test.js).
 *
 * The layout is layered in the direction control moves (left to right) and deterministic:
 * cycles are broken by a depth-first pass in first-occurrence order, layers are longest paths,
 * every edge gets a slot in each column it crosses (its count label sits in one of them, so no
 * label overlaps a node or another label), columns are ordered by barycentre sweeps, and rows
 * are placed by isotonic regression, which keeps the order and the gaps. The columns' grid, their
 * ordering and the rows are graph_grid.js; the labels graph_labels.js.
 */
import * as labelsLib from './graph_labels.js';
import * as gridLib from './graph_grid.js';

var buildGrid = gridLib.buildGrid;
var orderColumns = gridLib.orderColumns;
var placeRows = gridLib.placeRows;
var shiftRows = gridLib.shiftRows;
var distinctLabels = labelsLib.distinctLabels;
var wrapLines = labelsLib.wrapLines;
var estimateWidth = labelsLib.estimateWidth;

/** Sizes in SVG user units; the SVG is drawn at its natural size, so one unit is one CSS px. */
var GEOMETRY = {
  margin: 12,
  columnGap: 36,
  rowGap: 14,
  nodeFont: 13,
  nodeLine: 17,
  nodePadX: 10,
  nodePadY: 8,
  badge: 22,            // room left of a node's name for its critical-path position
  labelFont: 11,
  labelPadX: 5,
  labelHeight: 17,
  passHeight: 6,        // an edge crossing a column without a label
  emptyColumn: 12,
  lineChars: 18,        // a node name wraps at about this many characters per line ...
  maxLines: 3,          // ... on at most this many lines,
  maxLabel: 50          // longer names are shortened to this many (the full name stays in <title>)
};
var LABEL_RESERVE = ' \u00B7 problematic';   // every edge label has room for its longest status

function strokeWidth(count) {
  return 1.5 + 1.5 * Math.log2(Math.max(1, count));
}


/**
 * Mark the edges that close a cycle (depth-first from each agent in order, following edges in
 * first-occurrence order); drawing them backwards leaves a graph without cycles.
 */
function breakCycles(nodeCount, links) {
  var outgoing = [];
  for (var n = 0; n < nodeCount; n++) { outgoing.push([]); }
  links.forEach(function (link) { outgoing[link.from].push(link); });
  var state = new Array(nodeCount).fill(0);   // 0 unseen, 1 on the stack, 2 done
  for (var start = 0; start < nodeCount; start++) {
    if (state[start] !== 0) { continue; }
    var stack = [{node: start, next: 0}];
    state[start] = 1;
    while (stack.length) {
      var top = stack[stack.length - 1];
      var link = outgoing[top.node][top.next++];
      if (!link) {
        state[top.node] = 2;
        stack.pop();
      } else if (state[link.to] === 1) {
        link.reversed = true;
      } else if (state[link.to] === 0) {
        state[link.to] = 1;
        stack.push({node: link.to, next: 0});
      }
    }
  }
}

/** Longest-path layers over the edges as drawn (a source is layer 0). */
function longestPathLayers(nodeCount, links) {
  var layer = new Array(nodeCount).fill(0);
  var incoming = new Array(nodeCount).fill(0);
  var outgoing = [];
  for (var n = 0; n < nodeCount; n++) { outgoing.push([]); }
  links.forEach(function (link) {
    outgoing[link.low].push(link.high);
    incoming[link.high] += 1;
  });
  var ready = [];
  for (var node = 0; node < nodeCount; node++) { if (incoming[node] === 0) { ready.push(node); } }
  for (var head = 0; head < ready.length; head++) {
    outgoing[ready[head]].forEach(function (next) {
      layer[next] = Math.max(layer[next], layer[ready[head]] + 1);
      if (--incoming[next] === 0) { ready.push(next); }
    });
  }
  return layer;
}

function placeColumns(grid, geometry) {
  var widths = [];
  for (var c = 0; c < grid.columnCount; c++) {
    var width = geometry.emptyColumn;
    for (var k = grid.start[c]; k < grid.start[c + 1]; k++) { width = Math.max(width, grid.width[k]); }
    widths.push(width);
  }
  var x = geometry.margin;
  return widths.map(function (width) {
    var box = {left: x, right: x + width, centre: x + width / 2};
    x += width + geometry.columnGap;
    return box;
  });
}

/** Each node side spreads its edges' ends over its height, in the order of their other ends. */
function assignPorts(nodes, links, grid) {
  nodes.forEach(function (node) { node.ports = {left: [], right: []}; });
  links.forEach(function (link) {
    var slots = link.slots;
    addPort(nodes[link.low], link, slots[0], 'lowPort', grid);
    addPort(nodes[link.high], link, slots[slots.length - 1], 'highPort', grid);
  });
  nodes.forEach(function (node) {
    ['left', 'right'].forEach(function (side) {
      var ports = node.ports[side];
      ports.sort(function (a, b) { return a.towardsY - b.towardsY || a.link.index - b.link.index; });
      ports.forEach(function (port, k) {
        port.y = node.y - node.height / 2 + node.height * (k + 1) / (ports.length + 1);
        port.x = side === 'right' ? node.x + node.width / 2 : node.x - node.width / 2;
        port.link[port.end] = port;
      });
    });
  });
}

/** The end of `link` at `node`, on the side of its neighbouring slot (item `towards`). */
function addPort(node, link, towards, end, grid) {
  var side = grid.column[towards] > node.column ? 'right' : 'left';
  node.ports[side].push({link: link, towardsY: grid.y[towards], end: end});
}

function round(value) { return Math.round(value * 10) / 10; }
function roundedPoint(x, y) { return [round(x), round(y)]; }

/**
 * The drawn polyline of a link (source to target), its arrowhead and its label box, rounded. The
 * polyline runs from the lower end's port over each slot's left and right ends to the higher
 * end's port (backwards for a reversed link); the last point is pulled back to the arrow's base.
 * Points are rounded as they are made (a cold layout paid for every intermediate array).
 */
function routeLink(link, boxes, grid) {
  var slots = link.slots;
  var last = 2 * slots.length + 1;
  var points = new Array(last + 1);
  var previousX = 0;
  for (var k = 0; k <= last; k++) {
    var along = link.reversed ? last - k : k;
    var x;
    var y;
    if (along === 0 || along === last) {
      var port = along === 0 ? link.lowPort : link.highPort;
      x = port.x;
      y = port.y;
    } else {
      var slot = slots[(along - 1) >> 1];
      x = (along - 1) % 2 === 0 ? boxes[grid.column[slot]].left : boxes[grid.column[slot]].right;
      y = grid.y[slot];
    }
    if (k < last) {
      points[k] = roundedPoint(x, y);
      previousX = x;
    }
  }
  var direction = previousX < x ? 1 : -1;
  var half = 2.5 + link.stroke * 0.6;
  var baseX = x - direction * (5 + link.stroke);
  points[last] = roundedPoint(baseX, y);
  var label = link.labelSlot;
  return {
    points: points,
    arrow: [roundedPoint(x, y), roundedPoint(baseX, y - half), roundedPoint(baseX, y + half)],
    label: {x: round(boxes[grid.column[label]].centre - grid.width[label] / 2),
      y: round(grid.y[label] - grid.height[label] / 2), width: round(grid.width[label]),
      height: round(grid.height[label])}
  };
}

/** SVG path data through the points, leaving and entering every point horizontally. */
function pathData(points) {
  var parts = ['M' + points[0][0] + ',' + points[0][1]];
  for (var k = 1; k < points.length; k++) {
    var p = points[k - 1];
    var q = points[k];
    var dx = round((q[0] - p[0]) / 2);
    parts.push('C' + round(p[0] + dx) + ',' + p[1] + ' ' + round(q[0] - dx) + ',' + q[1] + ' ' + q[0] + ',' + q[1]);
  }
  return parts.join(' ');
}

/**
 * The whole picture of a graph, deterministic for the same input:
 *   layoutGraph(agents, edges, {measure(text, fontSize) -> px}) ->
 *     {width, height, nodes: [{name, label, lines, x, y, width, height, column}],
 *      edges: [{from, to, count, index, stroke, reversed, points, arrow, label}]}
 * Node x/y are centres; `label` boxes are {x, y, width, height}. Every edge's ends must be
 * agents (the derivation guarantees it) and no edge is a self-loop.
 */
function layoutGraph(agents, edges, options) {
  var geometry = GEOMETRY;
  var measure = (options && options.measure) || estimateWidth;
  var labels = distinctLabels(agents, geometry.maxLabel);
  var nodes = agents.map(function (name, index) {
    var lines = wrapLines(labels[index], geometry.lineChars, geometry.maxLines);
    var textWidth = 0;
    lines.forEach(function (line) { textWidth = Math.max(textWidth, measure(line, geometry.nodeFont)); });
    return {name: name, label: labels[index], lines: lines,
      width: Math.ceil(textWidth + geometry.badge + 2 * geometry.nodePadX),
      height: lines.length * geometry.nodeLine + 2 * geometry.nodePadY};
  });
  var position = new Map(agents.map(function (name, index) { return [name, index]; }));
  var labelWidths = new Map();   // edges share counts: measure each label text once
  var links = edges.map(function (edge, index) {
    var stroke = strokeWidth(edge.count);
    var text = edge.count + LABEL_RESERVE;
    if (!labelWidths.has(text)) { labelWidths.set(text, measure(text, geometry.labelFont)); }
    return {index: index, edge: edge, from: position.get(edge.from), to: position.get(edge.to), reversed: false,
      stroke: stroke, passHeight: Math.max(geometry.passHeight, stroke + 4),
      labelHeight: Math.max(geometry.labelHeight, stroke + 6),
      labelWidth: Math.ceil(labelWidths.get(text) + 2 * geometry.labelPadX)};
  });
  breakCycles(nodes.length, links);
  links.forEach(function (link) {
    link.low = link.reversed ? link.to : link.from;
    link.high = link.reversed ? link.from : link.to;
  });
  var grid = buildGrid(nodes, links, longestPathLayers(nodes.length, links));
  orderColumns(grid);
  placeRows(grid, geometry.rowGap);
  var extent = shiftRows(grid, geometry.margin);
  var boxes = placeColumns(grid, geometry);
  nodes.forEach(function (node) {
    node.x = boxes[node.column].centre;
    node.y = grid.y[node.id];
  });
  assignPorts(nodes, links, grid);
  var last = boxes[boxes.length - 1];
  return {
    width: Math.ceil(last ? last.right + geometry.margin : 2 * geometry.margin),
    height: Math.ceil(nodes.length ? extent.bottom - extent.top + 2 * geometry.margin : 2 * geometry.margin),
    nodes: nodes.map(function (node) {
      return {name: node.name, label: node.label, lines: node.lines, column: node.column,
        x: round(node.x), y: round(node.y), width: node.width, height: node.height};
    }),
    edges: links.map(function (link) {
      var route = routeLink(link, boxes, grid);
      return {from: link.edge.from, to: link.edge.to, count: link.edge.count, index: link.index,
        stroke: round(link.stroke), reversed: link.reversed, points: route.points, arrow: route.arrow,
        label: route.label};
    })
  };
}

const shortName = labelsLib.shortName;
const visibleForm = labelsLib.visibleForm;
export {GEOMETRY, layoutGraph, pathData, strokeWidth, distinctLabels, wrapLines, shortName, visibleForm, estimateWidth};
