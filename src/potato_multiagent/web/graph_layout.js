/*
 * graph_layout.js: the layered layout of a directed graph, a plain-data algorithm (no DOM), in the
 * spirit of networkx's layouts: layoutGraph(agents, edges, {measure}) -> boxes, polylines, arrows
 * and label boxes in SVG user units. Used by the interaction graph's view.js; tested under node
 * (tests/js/graph_layout.test.js). Page global PotatoMultiagentGraphLayout, module.exports under node.
 *
 * The layout is layered in the direction control moves (left to right) and deterministic:
 * cycles are broken by a depth-first pass in first-occurrence order, layers are longest paths,
 * every edge gets a slot in each column it crosses (its count label sits in one of them, so no
 * label overlaps a node or another label), columns are ordered by barycentre sweeps, and rows
 * are placed by isotonic regression, which keeps the order and the gaps.
 */
(function (root, factory) {
  'use strict';
  var isCommonJS = typeof module === 'object' && module !== null && module.exports;
  var labels = isCommonJS ? require('./graph_labels.js') : root && root.PotatoMultiagentGraphLabels;
  var api = factory(labels);
  if (isCommonJS) {
    module.exports = api;
  } else if (root && !root.PotatoMultiagentGraphLayout) {
    root.PotatoMultiagentGraphLayout = api;
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (labelsLib) {
  'use strict';
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
  var SWEEPS = 8;
  var ROW_PASSES = 8;
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

  /**
   * Columns alternate: agents in even columns, edge slots in odd ones. Each edge is a chain from
   * its lower end to its higher end with one slot in every column in between; its count label
   * sits in the middle odd-column slot.
   */
  function buildColumns(nodes, links, layers) {
    var columns = [];
    function place(item, column) {
      while (columns.length <= column) { columns.push([]); }
      item.column = column;
      columns[column].push(item);
    }
    nodes.forEach(function (node, index) { place(node, 2 * layers[index]); });
    links.forEach(function (link) {
      var first = 2 * layers[link.low] + 1;
      var last = 2 * layers[link.high] - 1;
      var labelColumn = first + 2 * Math.floor((last - first) / 4);
      link.chain = [nodes[link.low]];
      for (var column = first; column <= last; column++) {
        var isLabel = column === labelColumn;
        var slot = {width: isLabel ? link.labelWidth : 0, height: isLabel ? link.labelHeight : link.passHeight};
        if (isLabel) { link.labelSlot = slot; }
        place(slot, column);
        link.chain.push(slot);
      }
      link.chain.push(nodes[link.high]);
    });
    columns.forEach(function (column) { column.forEach(function (item) { item.up = []; item.down = []; }); });
    links.forEach(function (link) {
      for (var k = 1; k < link.chain.length; k++) {
        link.chain[k - 1].down.push(link.chain[k]);
        link.chain[k].up.push(link.chain[k - 1]);
      }
    });
    return columns;
  }

  function barycentre(neighbours, fallback) {
    if (!neighbours.length) { return fallback; }
    var sum = 0;
    neighbours.forEach(function (item) { sum += item.pos; });
    return sum / neighbours.length;
  }

  function sortColumn(column, side) {
    column.forEach(function (item) { item.key = barycentre(item[side], item.pos); });
    column.sort(function (a, b) { return a.key - b.key || a.pos - b.pos; });
    column.forEach(function (item, pos) { item.pos = pos; });
  }

  /**
   * Crossings between adjacent columns: pairs of edges whose upper ends are in one order and whose
   * lower ends in the other. The upper ends are taken in column order, and each edge counts the
   * edges of earlier upper ends whose lower end is further down, from a Fenwick tree of the lower
   * ends seen so far (edges that share an upper end never cross). No sorting and no arrays per
   * pair: the barycentre sweeps call this once per sweep, and it was a tenth of a cold layout of a
   * long run under node (docs/performance.md section 13).
   */
  function crossings(columns) {
    var total = 0;
    for (var c = 0; c + 1 < columns.length; c++) {
      var upper = columns[c];
      var byPosition = new Array(upper.length);
      upper.forEach(function (item) { byPosition[item.pos] = item; });
      var tree = new Int32Array(columns[c + 1].length + 1);
      var seen = 0;
      for (var k = 0; k < byPosition.length; k++) {
        var down = byPosition[k].down;
        for (var d = 0; d < down.length; d++) { total += seen - countUpTo(tree, down[d].pos); }
        for (d = 0; d < down.length; d++) { addAt(tree, down[d].pos); }
        seen += down.length;
      }
    }
    return total;
  }

  /** Fenwick tree over positions 0..n-1: how many added at positions up to `pos`, and add one. */
  function countUpTo(tree, pos) {
    var count = 0;
    for (var i = pos + 1; i > 0; i -= i & -i) { count += tree[i]; }
    return count;
  }

  function addAt(tree, pos) {
    for (var i = pos + 1; i < tree.length; i += i & -i) { tree[i] += 1; }
  }

  /** Barycentre sweeps, down then up, keeping the order with the fewest crossings. */
  function orderColumns(columns) {
    columns.forEach(function (column) { column.forEach(function (item, pos) { item.pos = pos; }); });
    var best = null;
    var fewest = Infinity;
    for (var sweep = 0; sweep < SWEEPS; sweep++) {
      var down = sweep % 2 === 0;
      for (var step = 1; step < columns.length; step++) {
        var c = down ? step : columns.length - 1 - step;
        sortColumn(columns[c], down ? 'up' : 'down');
      }
      var count = crossings(columns);
      if (count < fewest) {
        fewest = count;
        best = columns.map(function (column) { return column.slice(); });
      }
    }
    if (best) {
      best.forEach(function (column, c) {
        columns[c] = column;
        column.forEach(function (item, pos) { item.pos = pos; });
      });
    }
  }

  /**
   * Centres as close as possible to `desired` (least squares) keeping the column's order and
   * gaps: pool-adjacent-violators on the centres minus the minimum offsets.
   */
  function settleColumn(column, desired, gap) {
    var offsets = [0];
    for (var i = 1; i < column.length; i++) {
      offsets.push(offsets[i - 1] + (column[i - 1].height + column[i].height) / 2 + gap);
    }
    var blocks = [];
    desired.forEach(function (target, index) {
      blocks.push({sum: target - offsets[index], size: 1});
      while (blocks.length > 1) {
        var last = blocks[blocks.length - 1];
        var before = blocks[blocks.length - 2];
        if (before.sum / before.size <= last.sum / last.size) { break; }
        blocks.pop();
        before.sum += last.sum;
        before.size += last.size;
      }
    });
    var index = 0;
    blocks.forEach(function (block) {
      for (var k = 0; k < block.size; k++, index++) {
        column[index].y = block.sum / block.size + offsets[index];
      }
    });
  }

  function placeRows(columns, gap) {
    columns.forEach(function (column) {
      var top = 0;
      column.forEach(function (item) {
        item.y = top + item.height / 2;
        top += item.height + gap;
      });
    });
    for (var pass = 0; pass < ROW_PASSES; pass++) {
      var forward = pass % 2 === 0;
      for (var step = 0; step < columns.length; step++) {
        var column = columns[forward ? step : columns.length - 1 - step];
        var desired = column.map(function (item) {
          var near = forward ? item.up : item.down;
          if (!near.length) { near = forward ? item.down : item.up; }
          if (!near.length) { return item.y; }
          var sum = 0;
          near.forEach(function (other) { sum += other.y; });
          return sum / near.length;
        });
        settleColumn(column, desired, gap);
      }
    }
  }

  function placeColumns(columns, geometry) {
    var x = geometry.margin;
    return columns.map(function (column, c) {
      var width = geometry.emptyColumn;
      column.forEach(function (item) { width = Math.max(width, item.width); });
      var box = {left: x, right: x + width, centre: x + width / 2};
      x += width + geometry.columnGap;
      return box;
    });
  }

  /** Each node side spreads its edges' ends over its height, in the order of their other ends. */
  function assignPorts(nodes, links) {
    nodes.forEach(function (node) { node.ports = {left: [], right: []}; });
    links.forEach(function (link) {
      var chain = link.chain;
      [[chain[0], chain[1], 'lowPort'], [chain[chain.length - 1], chain[chain.length - 2], 'highPort']]
        .forEach(function (end) {
          var side = end[1].column > end[0].column ? 'right' : 'left';
          end[0].ports[side].push({link: link, towards: end[1], end: end[2]});
        });
    });
    nodes.forEach(function (node) {
      ['left', 'right'].forEach(function (side) {
        var ports = node.ports[side];
        ports.sort(function (a, b) { return a.towards.y - b.towards.y || a.link.index - b.link.index; });
        ports.forEach(function (port, k) {
          port.y = node.y - node.height / 2 + node.height * (k + 1) / (ports.length + 1);
          port.x = side === 'right' ? node.x + node.width / 2 : node.x - node.width / 2;
          port.link[port.end] = port;
        });
      });
    });
  }

  function round(value) { return Math.round(value * 10) / 10; }

  /** The drawn polyline of a link (source to target), its arrowhead and its label box. */
  function routeLink(link, boxes) {
    var points = [[link.lowPort.x, link.lowPort.y]];
    link.chain.slice(1, -1).forEach(function (slot) {
      points.push([boxes[slot.column].left, slot.y], [boxes[slot.column].right, slot.y]);
    });
    points.push([link.highPort.x, link.highPort.y]);
    if (link.reversed) { points.reverse(); }
    var tip = points[points.length - 1];
    var before = points[points.length - 2];
    var direction = before[0] < tip[0] ? 1 : -1;
    var length = 5 + link.stroke;
    var half = 2.5 + link.stroke * 0.6;
    var base = [tip[0] - direction * length, tip[1]];
    points[points.length - 1] = base;
    var slot = link.labelSlot;
    return {
      points: points.map(function (p) { return [round(p[0]), round(p[1])]; }),
      arrow: [tip, [base[0], tip[1] - half], [base[0], tip[1] + half]].map(function (p) { return [round(p[0]), round(p[1])]; }),
      label: {x: round(boxes[slot.column].centre - slot.width / 2), y: round(slot.y - slot.height / 2),
        width: round(slot.width), height: round(slot.height)}
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
    var links = edges.map(function (edge, index) {
      var stroke = strokeWidth(edge.count);
      return {index: index, edge: edge, from: position.get(edge.from), to: position.get(edge.to), reversed: false,
        stroke: stroke, passHeight: Math.max(geometry.passHeight, stroke + 4),
        labelHeight: Math.max(geometry.labelHeight, stroke + 6),
        labelWidth: Math.ceil(measure(edge.count + LABEL_RESERVE, geometry.labelFont) + 2 * geometry.labelPadX)};
    });
    breakCycles(nodes.length, links);
    links.forEach(function (link) {
      link.low = link.reversed ? link.to : link.from;
      link.high = link.reversed ? link.from : link.to;
    });
    var columns = buildColumns(nodes, links, longestPathLayers(nodes.length, links));
    orderColumns(columns);
    placeRows(columns, geometry.rowGap);
    var top = Infinity;
    var bottom = -Infinity;
    columns.forEach(function (column) {
      column.forEach(function (item) {
        top = Math.min(top, item.y - item.height / 2);
        bottom = Math.max(bottom, item.y + item.height / 2);
      });
    });
    var shift = nodes.length ? geometry.margin - top : 0;
    columns.forEach(function (column) { column.forEach(function (item) { item.y += shift; }); });
    var boxes = placeColumns(columns, geometry);
    nodes.forEach(function (node) { node.x = boxes[node.column].centre; });
    assignPorts(nodes, links);
    var last = boxes[boxes.length - 1];
    return {
      width: Math.ceil(last ? last.right + geometry.margin : 2 * geometry.margin),
      height: Math.ceil(nodes.length ? bottom - top + 2 * geometry.margin : 2 * geometry.margin),
      nodes: nodes.map(function (node) {
        return {name: node.name, label: node.label, lines: node.lines, column: node.column,
          x: round(node.x), y: round(node.y), width: node.width, height: node.height};
      }),
      edges: links.map(function (link) {
        var route = routeLink(link, boxes);
        return {from: link.edge.from, to: link.edge.to, count: link.edge.count, index: link.index,
          stroke: round(link.stroke), reversed: link.reversed, points: route.points, arrow: route.arrow,
          label: route.label};
      })
    };
  }

  return {
    GEOMETRY: GEOMETRY,
    layoutGraph: layoutGraph,
    pathData: pathData,
    strokeWidth: strokeWidth,
    distinctLabels: distinctLabels,
    wrapLines: wrapLines,
    shortName: labelsLib.shortName,
    visibleForm: labelsLib.visibleForm,
    estimateWidth: estimateWidth
  };
}));
