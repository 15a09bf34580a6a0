/*
 * agent_interaction_graph.js: the `multiagent.agent_interaction_graph` widget.
 *
 * The run as a directed graph: nodes are the derivation's agents (roster first), edges its
 * `edges` (who passed control or wrote to whom, with `count` and `steps`). Clicking an agent adds
 * it to the critical path or takes it off (click order is the path's order); clicking an edge
 * cycles normal -> critical -> problematic -> normal. The stored value is
 *     {"critical_nodes": [names], "edges": {"A->B": status}, "edge_marks": [{from, to, status}]}
 * where edge_marks is authoritative and the seed's `edges` map holds the marked edges whose
 * "A->B" key names exactly one edge of the trace (a name may contain "->"). Nothing marked
 * stores "". Marks the trace lacks stay in the value and are listed with a Remove button.
 *
 * The layout is layered in the direction control moves (left to right) and deterministic:
 * cycles are broken by a depth-first pass in first-occurrence order, layers are longest paths,
 * every edge gets a slot in each column it crosses (its count label sits in one of them, so no
 * label overlaps a node or another label), columns are ordered by barycentre sweeps, and rows
 * are placed by isotonic regression, which keeps the order and the gaps. `layoutGraph` is pure
 * and exported for node tests.
 *
 * Dependency-free UMD on the shared runtime (widget.js), like failure_attribution.js.
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
    root.console.error('agent_interaction_graph.js: widget.js did not load before it');
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (runtime, windowing) {
  'use strict';

  var WIDGET = 'agent_interaction_graph';
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var NORMAL = 'normal';
  var NEXT_STATUS = {normal: 'critical', critical: 'problematic', problematic: 'normal'};
  var NOT_IN_TRACE = 'not in this trace';

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

  // ---------------------------------------------------------------------------------------------
  // Words (pure)
  // ---------------------------------------------------------------------------------------------

  function plural(count, one, many) { return count + ' ' + (count === 1 ? one : many); }

  function edgeWords(from, to) { return from + ' to ' + to; }

  /** The seed's key of an edge: ambiguous when a name contains "->". */
  function edgeKey(from, to) { return from + '->' + to; }

  /** An unambiguous identity for an edge inside this widget. */
  function edgeId(from, to) { return JSON.stringify([from, to]); }

  // Issue 18: an agent of a 50,000-step run took thousands of steps; its list is shown a page at a time.
  var STEP_PAGE = 50;

  /** "#4, #9, #12" for page `page` of the steps; a list longer than a page says which part it shows. */
  function stepList(indices, page) {
    var bounds = windowing.pageBounds(indices.length, page || 0, STEP_PAGE);
    var words = indices.slice(bounds.first, bounds.end).map(function (index) { return '#' + (index + 1); }).join(', ');
    if (bounds.pages < 2) { return words; }
    return words + ' (' + windowing.formatCount(bounds.first + 1) + '\u2013' + windowing.formatCount(bounds.end) +
      ' of ' + windowing.formatCount(indices.length) + ')';
  }

  /** How many pages the longest step list of a details text has. */
  function stepPages(lists) {
    return lists.reduce(function (most, list) { return Math.max(most, windowing.pageBounds(list.length, 0, STEP_PAGE).pages); }, 1);
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
  // Node labels (pure): wrapped, shortened, and always distinguishable
  // ---------------------------------------------------------------------------------------------

  var BREAK_AFTER = /[\s_\-\/.:>]/;
  var NO_VISIBLE_NAME = '(no visible name)';

  /**
   * A name as it can be drawn on one line: whitespace runs (newlines, tabs) become one space and
   * other control characters a visible �.
   */
  function drawable(name) {
    return String(name).replace(/\s+/g, ' ').replace(/\p{Cc}/gu, '\uFFFD');
  }

  /** What a reader can tell apart: invisible format characters dropped, spaces collapsed. */
  function visibleForm(text) {
    return drawable(text).replace(/\p{Cf}/gu, '').replace(/^ | $/g, '');
  }

  /** At most `max` code points: the head and the tail of a long name around one "…". */
  function shortName(name, max) {
    var points = Array.from(drawable(name));
    if (points.length <= max) { return points.join(''); }
    var head = Math.ceil((max - 1) / 2);
    return points.slice(0, head).join('') + '\u2026' + points.slice(points.length - (max - 1 - head)).join('');
  }

  /** At most `max` code points of a long name around code point `at` (where it differs). */
  function windowAround(name, at, max) {
    var points = Array.from(drawable(name));
    var start = Math.max(0, Math.min(at - Math.floor(max / 2), points.length - (max - 2)));
    var text = points.slice(start, start + max - 2).join('');
    return (start > 0 ? '\u2026' : '') + text + (start + max - 2 < points.length ? '\u2026' : '');
  }

  function firstDifference(a, b) {
    var x = Array.from(drawable(a));
    var y = Array.from(drawable(b));
    var index = 0;
    while (index < x.length && index < y.length && x[index] === y[index]) { index++; }
    return index;
  }

  /** Indices grouped by the visible form of their label, only the groups of two or more. */
  function collisions(labels) {
    var groups = new Map();
    labels.forEach(function (label, index) {
      var form = visibleForm(label);
      if (!groups.has(form)) { groups.set(form, []); }
      groups.get(form).push(index);
    });
    return Array.from(groups.values()).filter(function (group) { return group.length > 1; });
  }

  /**
   * One label per name, at most `max` (+4) code points, no two that look alike: a long name is
   * shortened to head…tail; names that still collide show the part where they differ; names
   * that look the same anyway ("A" and "A\u200B") get " [k]"; a name with nothing visible in it
   * is drawn as "(no visible name)".
   */
  function distinctLabels(names, max) {
    var labels = names.map(function (name) {
      return visibleForm(name) === '' ? NO_VISIBLE_NAME : shortName(name, max);
    });
    collisions(labels).forEach(function (group) {
      group.forEach(function (index) {
        if (Array.from(drawable(names[index])).length <= max) { return; }   // shown in full already
        var at = 0;
        group.forEach(function (other) {
          if (other !== index) { at = Math.max(at, firstDifference(names[index], names[other])); }
        });
        labels[index] = windowAround(names[index], at, max);
      });
    });
    collisions(labels).forEach(function (group) {
      group.forEach(function (index, k) { labels[index] = labels[index] + ' [' + (k + 1) + ']'; });
    });
    return labels;
  }

  /** Lines of at most `width` code points, broken after spaces and punctuation where possible. */
  function wrapLines(label, width, maxLines) {
    var points = Array.from(label);
    var lines = [];
    var start = 0;
    while (start < points.length) {
      var end = Math.min(start + width, points.length);
      if (end < points.length && points[end] !== ' ') {
        var cut = end;
        while (cut > start + 1 && !BREAK_AFTER.test(points[cut - 1])) { cut--; }
        if (cut > start + 1) { end = cut; }
      }
      lines.push(points.slice(start, end).join('').replace(/ $/, ''));
      start = end;
      if (points[start] === ' ') { start++; }
    }
    return lines.length <= maxLines ? lines : hardWrap(points, width);
  }

  function hardWrap(points, width) {
    var lines = [];
    for (var start = 0; start < points.length; start += width) {
      lines.push(points.slice(start, start + width).join(''));
    }
    return lines;
  }

  /** A text width estimate for node tests (the page measures with a canvas). */
  function estimateWidth(text, fontSize) {
    var width = 0;
    Array.from(text).forEach(function (point) {
      width += point.codePointAt(0) >= 0x1100 ? fontSize * 1.05 : fontSize * 0.62;
    });
    return width;
  }

  function strokeWidth(count) {
    return 1.5 + 1.5 * Math.log2(Math.max(1, count));
  }

  // ---------------------------------------------------------------------------------------------
  // Layout (pure)
  // ---------------------------------------------------------------------------------------------

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

  /** Crossings between adjacent columns: inversions of the lower ends, counted by merge sort. */
  function crossings(columns) {
    var total = 0;
    for (var c = 0; c + 1 < columns.length; c++) {
      var pairs = [];
      columns[c].forEach(function (item) {
        item.down.forEach(function (next) { pairs.push([item.pos, next.pos]); });
      });
      pairs.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
      total += inversions(pairs.map(function (pair) { return pair[1]; }));
    }
    return total;
  }

  function inversions(values) {
    if (values.length < 2) { return 0; }
    var middle = values.length >> 1;
    var left = values.slice(0, middle);
    var right = values.slice(middle);
    var count = inversions(left) + inversions(right);
    var i = 0;
    var j = 0;
    var k = 0;
    while (i < left.length && j < right.length) {
      if (left[i] <= right[j]) {
        values[k++] = left[i++];
      } else {
        values[k++] = right[j++];
        count += left.length - i;
      }
    }
    while (i < left.length) { values[k++] = left[i++]; }
    while (j < right.length) { values[k++] = right[j++]; }
    return count;
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
  function readValue(got, config) {
    if (got.raw === '' || got.raw === null || got.raw === undefined) { return {value: null, unreadable: null}; }
    var problems = got.error ? [got.error] : runtime.checkValue(got.value, config);
    if (problems.length) {
      return {value: null, unreadable: 'The saved value could not be read: ' + problems.join('; ') +
        '. It is kept until you mark an agent or an edge.'};
    }
    return {value: got.value, unreadable: null};
  }

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
    var marks = {path: [], edges: new Map(), seedKeys: []};
    if (!value) { return marks; }
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
    return {critical_nodes: marks.path.slice(), edges: edges, edge_marks: edgeMarks};
  }

  function ambiguousKey(key, count) {
    return "edges: '" + key + "' could be " + count + ' edges of this trace; edge_marks must say which';
  }

  /**
   * The problems Python's trace_problems reports for a well-formed value, with the same words,
   * each as {kind, text}: kind 'stale' (kept until removed) or 'fixable' (the next write fixes it).
   */
  function valueProblems(value, graph) {
    var problems = [];
    function add(kind, text) { problems.push({kind: kind, text: text}); }
    var path = value.critical_nodes || [];
    path.forEach(function (name, position) {
      if (path.indexOf(name) < position) {
        add('fixable', 'critical_nodes[' + position + "]: '" + name + "' is listed twice");
      } else if (!graph.agentSet.has(name)) {
        add('stale', runtime.notInTrace('critical_nodes[' + position + ']', name));
      }
    });
    var seen = new Set();
    (value.edge_marks || []).forEach(function (mark, position) {
      var id = edgeId(mark.from, mark.to);
      if (seen.has(id)) {
        add('fixable', 'edge_marks[' + position + "]: '" + edgeWords(mark.from, mark.to) + "' is listed twice");
      } else if (!graph.byId.has(id)) {
        add('stale', runtime.notInTrace('edge_marks[' + position + ']', edgeWords(mark.from, mark.to)));
      }
      seen.add(id);
    });
    mapEntries(value.edges).forEach(function (entry) {
      var named = graph.byKey.get(entry[0]) || [];
      if (!named.length) { add('stale', runtime.notInTrace('edges', entry[0])); }
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
      if (marked !== undefined && (!inMap || edges[key] !== marked)) {
        add('fixable', "edges: '" + key + "' should be '" + marked + "' as in edge_marks");
      } else if (marked === undefined && inMap) {
        add('fixable', "edges: '" + key + "' has no entry in edge_marks");
      }
    });
  }

  /** The marks the trace does not contain, each with what Python says about it and how to drop it. */
  function staleMarks(marks, graph) {
    var stale = [];
    marks.path.forEach(function (name, position) {
      if (!graph.agentSet.has(name)) {
        stale.push({kind: 'node', name: name, text: runtime.notInTrace('critical_nodes[' + position + ']', name),
          action: 'Remove agent ' + name + ' from the critical path'});
      }
    });
    var position = 0;
    marks.edges.forEach(function (mark, id) {
      if (!graph.byId.has(id)) {
        stale.push({kind: 'edge', id: id, text: runtime.notInTrace('edge_marks[' + position + ']', edgeWords(mark.from, mark.to)),
          action: 'Remove the ' + mark.status + ' mark on ' + edgeWords(mark.from, mark.to)});
      }
      position++;
    });
    marks.seedKeys.forEach(function (entry) {
      var count = (graph.byKey.get(entry.key) || []).length;
      stale.push({kind: 'seed', key: entry.key,
        text: count ? ambiguousKey(entry.key, count) : runtime.notInTrace('edges', entry.key),
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

  function nodeDetails(name, steps, page) {
    page = page || 0;
    var own = steps.get(name) || {by: [], to: []};
    var lines = [own.by.length ? plural(own.by.length, 'step', 'steps') + ' by this agent: ' + stepList(own.by, page) + '.'
      : 'No steps by this agent in this trace.'];
    if (own.to.length && page < stepPages([own.to])) { lines.push('Addressed to it: ' + stepList(own.to, page) + '.'); }
    return {title: 'Agent ' + name, text: lines.join(' '), pages: stepPages([own.by, own.to])};
  }

  function edgeDetails(edge, page) {
    page = page || 0;
    return {title: edgeWords(edge.from, edge.to) + ', ' + plural(edge.count, 'message', 'messages'),
      text: 'From ' + plural(edge.steps.length, 'step', 'steps') + ': ' + stepList(edge.steps, page) + '.',
      pages: stepPages([edge.steps])};
  }

  // ---------------------------------------------------------------------------------------------
  // Drawing
  // ---------------------------------------------------------------------------------------------

  /** An SVG element: attributes through the runtime's setAttribute path (no handler attributes). */
  function svg(tag, attrs, children) {
    var node = document.createElementNS(SVG_NS, tag);
    runtime.setAttributes(node, attrs);
    (children || []).forEach(function (child) { if (child) { node.appendChild(child); } });
    return node;
  }

  /** Text widths measured with the page's font, as the SVG will draw them. */
  function canvasMeasure(container) {
    var context = document.createElement('canvas').getContext('2d');
    if (!context) { return estimateWidth; }
    var family = window.getComputedStyle(container).fontFamily || 'sans-serif';
    return function (text, fontSize) {
      context.font = fontSize + 'px ' + family;
      return context.measureText(text).width + 2;
    };
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
    var group = svg('g', {class: 'ma-aig-node', role: 'button', tabindex: '-1', 'data-ma-aig-kind': 'node'}, [
      svg('title', {text: node.name}),
      svg('rect', {class: 'ma-aig-node-box', x: left, y: top, width: node.width, height: node.height, rx: 6}),
      badge,
      label
    ]);
    return {element: group, badge: badge, node: node};
  }

  function drawEdge(edge) {
    var d = pathData(edge.points);
    var arrow = 'M' + edge.arrow.map(function (p) { return p[0] + ',' + p[1]; }).join(' L') + ' Z';
    var box = edge.label;
    var text = svg('text', {class: 'ma-aig-edge-count', x: box.x + box.width / 2, y: box.y + box.height / 2 + 4,
      'text-anchor': 'middle', 'aria-hidden': 'true', text: String(edge.count)});
    var group = svg('g', {class: 'ma-aig-edge', role: 'button', tabindex: '-1', 'data-ma-aig-kind': 'edge'}, [
      svg('title', {text: edgeWords(edge.from, edge.to) + ', ' + plural(edge.count, 'message', 'messages')}),
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
  function drawGraph(ui, derivation) {
    runtime.clear(ui.canvas);
    ui.graph = graphOf(derivation);
    ui.steps = null;
    ui.nodes = new Map();
    ui.edges = new Map();
    ui.byElement = new Map();
    ui.rover = null;
    ui.cameFrom = null;
    if (!derivation.agents.length) {
      ui.canvas.appendChild(runtime.h('p', {class: 'ma-aig-empty', text: 'This trace has no agents to draw.'}));
      return;
    }
    var layout = layoutGraph(derivation.agents, derivation.edges, {measure: canvasMeasure(ui.canvas)});
    var edgeLayer = svg('g', {class: 'ma-aig-edges'});
    var nodeLayer = svg('g', {class: 'ma-aig-nodes'});
    layout.edges.forEach(function (edge) {
      var drawn = drawEdge(edge);
      drawn.source = derivation.edges[edge.index];
      drawn.id = edgeId(edge.from, edge.to);
      ui.edges.set(drawn.id, drawn);
      ui.byElement.set(drawn.element, drawn);
      edgeLayer.appendChild(drawn.element);
    });
    layout.nodes.forEach(function (node) {
      var drawn = drawNode(node);
      ui.nodes.set(node.name, drawn);
      ui.byElement.set(drawn.element, drawn);
      nodeLayer.appendChild(drawn.element);
    });
    var help = ui.form.querySelector('[data-ma-aig="help"]');
    ui.canvas.appendChild(svg('svg', {class: 'ma-aig-svg', viewBox: '0 0 ' + layout.width + ' ' + layout.height,
      width: layout.width, height: layout.height, role: 'group',
      'aria-label': 'Interaction graph: ' + plural(layout.nodes.length, 'agent', 'agents') + ', ' +
        plural(layout.edges.length, 'edge', 'edges'),
      'aria-describedby': help && help.id ? help.id : null}, [edgeLayer, nodeLayer]));
    ui.navigation = navigationOf(layout);
    setRover(ui, ui.nodes.get(ui.navigation.order[0]).element);
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
      var id = edgeId(edge.from, edge.to);
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

  function paintNode(ui, drawn) {
    var position = ui.marks.path.indexOf(drawn.node.name);
    var on = position >= 0;
    drawn.element.setAttribute('aria-pressed', on ? 'true' : 'false');
    drawn.element.setAttribute('aria-label', nodeName(drawn.node.name, position, ui.marks.path.length));
    drawn.element.classList.toggle('ma-aig-critical', on);
    drawn.badge.textContent = on ? String(position + 1) : '';
  }

  function paintEdge(ui, drawn) {
    var status = statusOf(ui.marks, drawn.source);
    drawn.element.setAttribute('data-status', status);
    drawn.element.setAttribute('aria-label', edgeName(drawn.source, status));
    drawn.count.textContent = status === NORMAL ? String(drawn.source.count) : drawn.source.count + ' \u00B7 ' + status;
  }

  function paintAll(ui) {
    ui.nodes.forEach(function (drawn) { paintNode(ui, drawn); });
    ui.edges.forEach(function (drawn) { paintEdge(ui, drawn); });
  }

  /** Words, notices, the list of stale marks and completeness, after any change. */
  function describe(ui) {
    var ctx = ui.ctx;
    var notices = [];
    if (ui.unreadable) { notices.push({level: 'warning', text: ui.unreadable}); }
    (ctx.derivation.problems || []).forEach(function (problem) {
      if (problem && problem.code === 'steps_not_list') {
        notices.push({level: 'warning', text: 'This trace has no steps to draw: ' + problem.message});
      }
    });
    ui.fixable.forEach(function (text) {
      notices.push({level: 'info', text: text + ' (corrected when you next mark an agent or an edge)'});
    });
    ctx.setNotices(notices);
    paintStale(ui);
    ctx.model.setIncomplete(incompleteReason(ui.marks, ui.unreadable));
    ctx.model.announce(summaryText(ui.marks, ui.graph, ui.unreadable));
  }

  function paintStale(ui) {
    var items = staleMarks(ui.marks, ui.graph);
    runtime.clear(ui.staleList);
    ui.stale.hidden = items.length === 0;
    items.forEach(function (item) {
      ui.staleList.appendChild(runtime.h('li', {class: 'ma-aig-stale-item'}, [
        runtime.h('span', {class: 'ma-aig-stale-text', text: item.text}),
        runtime.h('button', {type: 'button', class: 'ma-aig-remove', 'aria-label': item.action, text: 'Remove',
          on: {click: function () { removeStale(ui, item); }}})
      ]));
    });
  }

  // -- actions ------------------------------------------------------------------------------

  function commit(ui) {
    ui.unreadable = null;
    ui.fixable = [];
    ui.ctx.model.set(composeValue(ui.marks, ui.graph));
    describe(ui);
  }

  function toggleNode(ui, drawn) {
    var path = ui.marks.path;
    var position = path.indexOf(drawn.node.name);
    if (position >= 0) { path.splice(position, 1); } else { path.push(drawn.node.name); }
    // Only the toggled agent and the path's agents change (their "k of N").
    paintNode(ui, drawn);
    path.forEach(function (name) { if (ui.nodes.has(name)) { paintNode(ui, ui.nodes.get(name)); } });
    commit(ui);
  }

  function cycleEdge(ui, drawn) {
    var id = drawn.id;
    var next = NEXT_STATUS[statusOf(ui.marks, drawn.source)];
    if (next === NORMAL) {
      ui.marks.edges.delete(id);
    } else if (ui.marks.edges.has(id)) {
      ui.marks.edges.get(id).status = next;
    } else {
      ui.marks.edges.set(id, {from: drawn.source.from, to: drawn.source.to, status: next});
    }
    paintEdge(ui, drawn);
    commit(ui);
  }

  function removeStale(ui, item) {
    var buttons = Array.prototype.slice.call(ui.staleList.querySelectorAll('button'));
    var index = buttons.indexOf(ui.form.ownerDocument.activeElement);
    if (item.kind === 'node') { ui.marks.path.splice(ui.marks.path.indexOf(item.name), 1); }
    if (item.kind === 'edge') { ui.marks.edges.delete(item.id); }
    if (item.kind === 'seed') {
      ui.marks.seedKeys = ui.marks.seedKeys.filter(function (entry) { return entry.key !== item.key; });
    }
    paintAll(ui);
    commit(ui);
    var left = ui.staleList.querySelectorAll('button');
    if (index >= 0 && left.length) {
      left[Math.min(index, left.length - 1)].focus();
    } else if (index >= 0 && ui.rover) {
      ui.rover.focus();
    }
  }

  function activate(ui, drawn) {
    if (drawn.node) { toggleNode(ui, drawn); } else { cycleEdge(ui, drawn); }
  }

  // -- keyboard -----------------------------------------------------------------------------

  /** One element of the graph is in the Tab order: the last one focused. */
  function setRover(ui, element) {
    if (ui.rover && ui.rover !== element) { ui.rover.setAttribute('tabindex', '-1'); }
    element.setAttribute('tabindex', '0');
    ui.rover = element;
  }

  function focusDrawn(ui, drawn) {
    if (!drawn) { return; }
    setRover(ui, drawn.element);
    drawn.element.focus();
  }

  function nodeAfter(ui, name, step) {
    var order = ui.navigation.order;
    var index = order.indexOf(name) + step;
    return index >= 0 && index < order.length ? ui.nodes.get(order[index]) : null;
  }

  /** Where an arrow key leads from a node: Up/Down along the reading order, Left/Right onto its edges. */
  function moveFromNode(ui, drawn, key) {
    var name = drawn.node.name;
    if (key === 'ArrowUp') { return nodeAfter(ui, name, -1); }
    if (key === 'ArrowDown') { return nodeAfter(ui, name, 1); }
    var side = key === 'ArrowRight' ? 'right' : 'left';
    var ids = ui.navigation.sides.get(name)[side];
    if (!ids.length) { return null; }
    ui.cameFrom = {name: name, side: side};
    return ui.edges.get(ids[0]);
  }

  /** From an edge: Left/Right to the agent at that end, Up/Down to the next edge at the same agent side. */
  function moveFromEdge(ui, drawn, key) {
    var ends = ui.navigation.ends.get(drawn.id);
    if (key === 'ArrowLeft') { return ui.nodes.get(ends.left); }
    if (key === 'ArrowRight') { return ui.nodes.get(ends.right); }
    var from = ui.cameFrom;
    var ids = from ? ui.navigation.sides.get(from.name)[from.side] : [];
    if (ids.indexOf(drawn.id) < 0) {
      from = {name: ends.left, side: 'right'};
      ids = ui.navigation.sides.get(from.name).right;
      ui.cameFrom = from;
    }
    var next = ids[ids.indexOf(drawn.id) + (key === 'ArrowDown' ? 1 : -1)];
    return next === undefined ? null : ui.edges.get(next);
  }

  var ARROWS = {ArrowUp: true, ArrowDown: true, ArrowLeft: true, ArrowRight: true};

  function onKeydown(ui, event) {
    var drawn = drawnOf(ui, event.target);
    if (!drawn) { return; }
    var key = event.key;
    if (key === 'Enter' || key === ' ') {
      activate(ui, drawn);
    } else if (ARROWS[key]) {
      focusDrawn(ui, drawn.node ? moveFromNode(ui, drawn, key) : moveFromEdge(ui, drawn, key));
    } else if (key === 'Home' || key === 'End') {
      var order = ui.navigation.order;
      focusDrawn(ui, ui.nodes.get(order[key === 'Home' ? 0 : order.length - 1]));
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  }

  function drawnOf(ui, target) {
    var element = target && target.closest ? target.closest('[data-ma-aig-kind]') : null;
    return element ? ui.byElement.get(element) || null : null;
  }

  function showDetails(ui, drawn, page) {
    if (drawn.node && !ui.steps) { ui.steps = stepsByAgent(ui.ctx.derivation); }
    page = page || 0;
    var details = drawn.node ? nodeDetails(drawn.node.name, ui.steps, page) : edgeDetails(drawn.source, page);
    ui.detailsTitle.textContent = details.title;
    ui.detailsText.textContent = details.text;
    ui.detailsShown = {drawn: drawn, page: page};
    pageButtons(ui).hidden = details.pages < 2;
    ui.detailsPager.previous.disabled = page === 0;
    ui.detailsPager.next.disabled = page >= details.pages - 1;
  }

  /** Previous/Next buttons under a step list longer than a page (made once, after the text). */
  function pageButtons(ui) {
    if (ui.detailsPager) { return ui.detailsPager.bar; }
    function button(words, step) {
      return runtime.h('button', {type: 'button', class: 'ma-pager-button', text: words, on: {click: function () {
        if (ui.detailsShown) { showDetails(ui, ui.detailsShown.drawn, ui.detailsShown.page + step); }
      }}});
    }
    var previous = button('Previous ' + STEP_PAGE + ' steps', -1);
    var next = button('Next ' + STEP_PAGE + ' steps', 1);
    var bar = runtime.h('div', {class: 'ma-pager'}, [previous, next]);
    ui.detailsText.parentNode.insertBefore(bar, ui.detailsText.nextSibling);
    ui.detailsPager = {bar: bar, previous: previous, next: next};
    return bar;
  }

  // ---------------------------------------------------------------------------------------------
  // Render (called by the runtime on load and on every potato:instance-ready)
  // ---------------------------------------------------------------------------------------------

  function part(el, name) {
    var found = el.querySelector('[data-ma-aig="' + name + '"]');
    if (!found) { throw new Error('the page lacks the ' + name + ' part of this question (data-ma-aig="' + name + '")'); }
    return found;
  }

  /** Find the template's parts and wire the listeners once; the returned object lives across renders. */
  function createUi(ctx) {
    var ui = {form: ctx.form, canvas: part(ctx.el, 'canvas'), stale: part(ctx.el, 'stale'),
      staleList: part(ctx.el, 'stale-list'), detailsTitle: part(ctx.el, 'details-title'),
      detailsText: part(ctx.el, 'details-text'), derivation: null, fixable: []};
    ui.canvas.addEventListener('click', function (event) {
      var drawn = drawnOf(ui, event.target);
      if (!drawn) { return; }
      focusDrawn(ui, drawn);
      activate(ui, drawn);
    });
    ui.canvas.addEventListener('keydown', function (event) { onKeydown(ui, event); });
    // Potato's keyup shortcuts must not see the keys this graph acts on.
    ui.canvas.addEventListener('keyup', function (event) {
      if (drawnOf(ui, event.target)) { event.stopPropagation(); }
    });
    ui.canvas.addEventListener('focusin', function (event) {
      var drawn = drawnOf(ui, event.target);
      if (!drawn) { return; }
      setRover(ui, drawn.element);
      showDetails(ui, drawn);
    });
    return ui;
  }

  /** The logical control with focus (a node name or an edge id), to find it again after a redraw. */
  function focusedKey(ui) {
    var drawn = drawnOf(ui, ui.form.ownerDocument.activeElement);
    if (!drawn || !ui.canvas.contains(drawn.element)) { return null; }
    return drawn.node ? {node: drawn.node.name} : {edge: drawn.id};
  }

  function render(ctx) {
    var ui = ctx.state.ui || (ctx.state.ui = createUi(ctx));
    ui.ctx = ctx;
    if (ui.derivation !== ctx.derivation) {
      var focused = ui.derivation ? focusedKey(ui) : null;
      drawGraph(ui, ctx.derivation);
      ui.derivation = ctx.derivation;
      if (focused) { focusDrawn(ui, focused.node ? ui.nodes.get(focused.node) : ui.edges.get(focused.edge)); }
    }
    var stored = readValue(ctx.model.get(), ctx.config);
    ui.unreadable = stored.unreadable;
    ui.marks = marksOf(stored.value, ui.graph);
    ui.fixable = stored.value ? valueProblems(stored.value, ui.graph)
      .filter(function (problem) { return problem.kind === 'fixable'; })
      .map(function (problem) { return problem.text; }) : [];
    paintAll(ui);
    describe(ui);
  }

  return {
    WIDGET: WIDGET,
    GEOMETRY: GEOMETRY,
    render: render,
    layoutGraph: layoutGraph,
    pathData: pathData,
    strokeWidth: strokeWidth,
    distinctLabels: distinctLabels,
    wrapLines: wrapLines,
    shortName: shortName,
    visibleForm: visibleForm,
    estimateWidth: estimateWidth,
    graphOf: graphOf,
    readValue: readValue,
    marksOf: marksOf,
    composeValue: composeValue,
    valueProblems: valueProblems,
    staleMarks: staleMarks,
    summaryText: summaryText,
    pathGaps: pathGaps,
    incompleteReason: incompleteReason,
    nodeName: nodeName,
    edgeName: edgeName,
    stepsByAgent: stepsByAgent,
    nodeDetails: nodeDetails,
    edgeDetails: edgeDetails
  };
}));
