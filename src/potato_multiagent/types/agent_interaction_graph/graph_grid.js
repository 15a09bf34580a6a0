/*
 * graph_grid.js: the columns of graph_layout.js's layered layout as a grid of flat arrays, their
 * order (barycentre sweeps, keeping the order with the fewest crossings) and their rows (isotonic
 * regression, which keeps the order and the gaps). Plain data, no DOM; split from graph_layout.js,
 * which builds the grid's input and turns the placed grid into boxes and routes.
 */
var SWEEPS = 8;
var ROW_PASSES = 8;

/**
 * An array for n floats that the row passes read over and over: a plain array made holding null,
 * so V8 keeps its elements boxed and never turns it into an unboxed double array. In V8's
 * interpreter (a cold layout runs there) every float read from a Float64Array or a double array
 * is a new heap number (the largest part of a cold layout's garbage); from this array a read is
 * the number already stored.
 */
function boxedNumbers(n) {
  return new Array(n).fill(null);
}

/**
 * Columns alternate: agents in even columns, edge slots in odd ones. Each edge is a chain from
 * its lower end to its higher end with one slot in every column in between; its count label
 * sits in the middle odd-column slot.
 *
 * The columns are flat typed arrays, as the barycentre sweeps and row passes visit every item a
 * few dozen times: an object and two arrays per slot, closures per visit and an array per column
 * per pass made most of a cold layout's time and garbage (docs/performance.md).
 * Items are numbered column by column in the order they are placed (agents, then slots in edge
 * order); agent k is item `node.id`, `link.slots` lists an edge's slots from its lower end and
 * `link.labelSlot` is the one with its label. `order` holds each column's items top to bottom
 * (column c is order[start[c]] .. order[start[c + 1] - 1]) and `pos` is an item's place in it.
 * Each item's neighbours upstream (`up`) and downstream (`down`) are listed in edge order, so
 * every sum over them adds the same numbers in the same order.
 */
function buildGrid(nodes, links, layers) {
  var columnCount = 0;
  nodes.forEach(function (node, index) { columnCount = Math.max(columnCount, 2 * layers[index] + 1); });
  var start = new Int32Array(columnCount + 1);
  nodes.forEach(function (node, index) { start[2 * layers[index] + 1] += 1; });
  links.forEach(function (link) {
    for (var column = 2 * layers[link.low] + 1; column < 2 * layers[link.high]; column++) { start[column + 1] += 1; }
  });
  for (var c = 0; c < columnCount; c++) { start[c + 1] += start[c]; }
  var count = start[columnCount];
  var grid = {count: count, columnCount: columnCount, start: start, order: new Int32Array(count),
    pos: new Int32Array(count), column: new Int32Array(count), width: new Float64Array(count),
    height: new Float64Array(count), y: boxedNumbers(count), keySum: new Int32Array(count),
    keyCount: new Int32Array(count)};
  var next = start.slice(0, columnCount);
  function place(column, width, height) {
    var id = next[column]++;
    grid.order[id] = id;
    grid.pos[id] = id - start[column];
    grid.column[id] = column;
    grid.width[id] = width;
    grid.height[id] = height;
    return id;
  }
  nodes.forEach(function (node, index) {
    node.column = 2 * layers[index];
    node.id = place(node.column, node.width, node.height);
  });
  links.forEach(function (link) {
    var first = 2 * layers[link.low] + 1;
    var last = 2 * layers[link.high] - 1;
    var labelColumn = first + 2 * Math.floor((last - first) / 4);
    link.slots = [];
    for (var column = first; column <= last; column++) {
      var isLabel = column === labelColumn;
      var slot = place(column, isLabel ? link.labelWidth : 0, isLabel ? link.labelHeight : link.passHeight);
      if (isLabel) { link.labelSlot = slot; }
      link.slots.push(slot);
    }
  });
  grid.up = neighbourLists(nodes, links, count, -1);
  grid.down = neighbourLists(nodes, links, count, 1);
  return grid;
}

/**
 * One side's neighbour lists in compressed form (item i's are list[first[i]] .. list[first[i + 1]
 * - 1]), in edge order; `side` is -1 upstream, 1 downstream. A slot has one neighbour on each
 * side: the next slot that way on its edge's chain, else the agent at that end. An agent has,
 * on each side, the end slot of every edge that leaves it that way (downstream from its lower
 * end, upstream from its higher end).
 */
function neighbourLists(nodes, links, count, side) {
  var end = side < 0 ? 'high' : 'low';
  var first = new Int32Array(count + 1);
  for (var id = 0; id < count; id++) { first[id + 1] = 1; }
  nodes.forEach(function (node) { first[node.id + 1] = 0; });
  links.forEach(function (link) { first[nodes[link[end]].id + 1] += 1; });
  for (id = 0; id < count; id++) { first[id + 1] += first[id]; }
  var list = new Int32Array(first[count]);
  var fill = first.slice(0, count);
  links.forEach(function (link) {
    var slots = link.slots;
    for (var k = 0; k < slots.length; k++) {
      var along = k + side;
      var neighbour = along < 0 ? nodes[link.low].id : along >= slots.length ? nodes[link.high].id : slots[along];
      list[fill[slots[k]]++] = neighbour;
    }
    list[fill[nodes[link[end]].id]++] = side < 0 ? slots[slots.length - 1] : slots[0];
  });
  return {first: first, list: list};
}

/**
 * Order column c by the barycentre of its neighbours on one side (an item without any keeps its
 * place as key), ties by the current place. The order is total, so any sort gives the same
 * result. A key is kept as the fraction keySum / keyCount of integers and compared by
 * cross-multiplying, which orders exactly as the divided floats did (the fractions are small, so
 * two different ones never round to one float) without a float per comparison. Most keys are
 * whole places (a slot has one neighbour), so a counting sort by the key's whole part, stable in
 * the current order, does most of the work in one pass; an insertion pass with the exact
 * comparison then orders what shares a whole part. (More than half of a column's items move on
 * every sweep; a sort with a comparator call per comparison was the largest part of a cold
 * layout's sweeps.)
 */
function sortColumn(grid, c, near, scratch) {
  var order = grid.order;
  var pos = grid.pos;
  var keySum = grid.keySum;
  var keyCount = grid.keyCount;
  var first = grid.start[c];
  var end = grid.start[c + 1];
  var buckets = scratch.buckets;
  var nearColumn = near === grid.up ? c - 1 : c + 1;   // keys are places here or in column c
  var range = Math.max(end - first, grid.start[nearColumn + 1] - grid.start[nearColumn]);
  buckets.fill(0, 0, range + 1);
  var nearFirst = near.first;
  var nearList = near.list;
  var whole = scratch.whole;
  for (var k = first; k < end; k++) {
    var id = order[k];
    var from = nearFirst[id];
    var count = nearFirst[id + 1] - from;
    var sum = count === 0 ? pos[id] : pos[nearList[from]];
    for (var n = from + 1; n < from + count; n++) { sum += pos[nearList[n]]; }
    if (count === 0) { count = 1; }
    keySum[id] = sum;
    keyCount[id] = count;
    whole[id] = count === 1 ? sum : Math.floor(sum / count);
    buckets[whole[id] + 1] += 1;
  }
  for (var b = 1; b <= range; b++) { buckets[b] += buckets[b - 1]; }
  var sorted = scratch.order;
  for (k = first; k < end; k++) { sorted[buckets[whole[order[k]]]++] = order[k]; }
  order.set(sorted.subarray(0, end - first), first);
  for (k = first + 1; k < end; k++) {
    var moving = order[k];
    var at = k;
    var previous = order[k - 1];
    var before = keySum[previous] * keyCount[moving] - keySum[moving] * keyCount[previous];
    if (before < 0 || (before === 0 && pos[previous] < pos[moving])) { continue; }   // in place already
    while (at > first && comesAfter(grid, order[at - 1], moving)) {
      order[at] = order[at - 1];
      at--;
    }
    order[at] = moving;
  }
  for (k = first; k < end; k++) { pos[order[k]] = k - first; }
}

/** Whether item a comes after item b in a column being sorted (keys, then current places). */
function comesAfter(grid, a, b) {
  var before = grid.keySum[a] * grid.keyCount[b] - grid.keySum[b] * grid.keyCount[a];
  return before > 0 || (before === 0 && grid.pos[a] > grid.pos[b]);
}

/**
 * Crossings between adjacent columns: pairs of edges whose upper ends are in one order and whose
 * lower ends in the other (edges that share an end never cross). The lower ends' places, taken
 * in the order of their upper ends (and rising within one upper end), are insertion-sorted into
 * `lower`: each step past a greater place is one crossing. That is linear in the edges plus the
 * crossings, which are few once ordered (hundreds against a thousand edges), where a Fenwick
 * tree paid a logarithm twice per edge.
 */
function crossings(grid, lower) {
  var total = 0;
  var start = grid.start;
  var order = grid.order;
  var pos = grid.pos;
  var first = grid.down.first;
  var list = grid.down.list;
  for (var c = 0; c + 1 < grid.columnCount; c++) {
    var length = 0;
    for (var k = start[c]; k < start[c + 1]; k++) {
      var id = order[k];
      var group = length;
      for (var d = first[id], to = first[id + 1]; d < to; d++) { lower[length++] = pos[list[d]]; }
      if (length - group > 1) { sortRange(lower, group, length); }
      for (var next = group; next < length; next++) {
        var place = lower[next];
        var at = next;
        while (at > 0 && lower[at - 1] > place) { lower[at] = lower[at - 1]; at--; }
        total += next - at;
        lower[at] = place;
      }
    }
  }
  return total;
}

/** Insertion sort of values[from .. to - 1], rising (an agent's few edges). */
function sortRange(values, from, to) {
  for (var k = from + 1; k < to; k++) {
    var value = values[k];
    var at = k;
    while (at > from && values[at - 1] > value) { values[at] = values[at - 1]; at--; }
    values[at] = value;
  }
}

/** Barycentre sweeps, down then up, keeping the order with the fewest crossings. */
function orderColumns(grid) {
  var best = grid.order.slice();
  var fewest = Infinity;
  var lower = new Int32Array(grid.down.list.length);
  var tallest = 0;
  for (var c = 0; c < grid.columnCount; c++) { tallest = Math.max(tallest, grid.start[c + 1] - grid.start[c]); }
  var scratch = {buckets: new Int32Array(tallest + 1), whole: new Int32Array(grid.count),
    order: new Int32Array(tallest)};
  for (var sweep = 0; sweep < SWEEPS; sweep++) {
    var down = sweep % 2 === 0;
    for (var step = 1; step < grid.columnCount; step++) {
      if (down) {
        sortColumn(grid, step, grid.up, scratch);
      } else {
        sortColumn(grid, grid.columnCount - 1 - step, grid.down, scratch);
      }
    }
    var count = crossings(grid, lower);
    if (count < fewest) {
      fewest = count;
      best.set(grid.order);
    }
  }
  grid.order.set(best);
  for (c = 0; c < grid.columnCount; c++) {
    for (var k = grid.start[c]; k < grid.start[c + 1]; k++) { grid.pos[grid.order[k]] = k - grid.start[c]; }
  }
}

/**
 * Settle column c: centres as close as possible to each item's target height (least squares)
 * keeping the column's order and gaps: pool-adjacent-violators on the targets minus the minimum
 * offsets (`offsets`, by the column's places, fixed once the order is). The target is the mean
 * height of the item's neighbours on side `near` (else `far`, else its own height). A block's
 * mean is divided once, when the block forms. `blocks` is scratch space; in a cold run every
 * float read or computed is a new heap number, so this reads each float once.
 */
function settleColumn(grid, c, near, far, offsets, blocks) {
  var first = grid.start[c];
  var end = grid.start[c + 1];
  var order = grid.order;
  var y = grid.y;
  var sums = blocks.sum;
  var sizes = blocks.size;
  var means = blocks.mean;
  var count = 0;
  var lastMean = 0;
  for (var k = first; k < end; k++) {
    var id = order[k];
    var from = near.first[id];
    var target = near.first[id + 1] - from === 1 ? y[near.list[from]] : meanY(grid, near, id);
    if (target === null) { target = meanY(grid, far, id); }
    var sum = (target === null ? y[id] : target) - offsets[k];
    var size = 1;
    var mean = sum;
    while (count > 0 && lastMean > mean) {   // pool with the block before
      count--;
      sum = sums[count] + sum;
      size = sizes[count] + size;
      mean = sum / size;
      lastMean = count > 0 ? means[count - 1] : 0;
    }
    sums[count] = sum;
    sizes[count] = size;
    means[count] = mean;
    lastMean = mean;
    count++;
  }
  var index = first;
  for (var b = 0; b < count; b++) {
    var blockMean = means[b];
    for (var n = sizes[b]; n > 0; n--, index++) { y[order[index]] = blockMean + offsets[index]; }
  }
}

/** Each column's minimum offsets from its first centre: half heights and the gap between neighbours. */
function columnOffsets(grid, gap) {
  var offsets = boxedNumbers(grid.count);
  for (var c = 0; c < grid.columnCount; c++) {
    if (grid.start[c] < grid.start[c + 1]) { offsets[grid.start[c]] = 0; }
    for (var k = grid.start[c] + 1; k < grid.start[c + 1]; k++) {
      offsets[k] = offsets[k - 1] + (grid.height[grid.order[k - 1]] + grid.height[grid.order[k]]) / 2 + gap;
    }
  }
  return offsets;
}

/**
 * The mean height of an item's neighbours on one side, or null without any. One neighbour (most
 * items: the slots) is its height as it is: 0 + y and y / 1 are y, and no y is -0.
 */
function meanY(grid, near, id) {
  var from = near.first[id];
  var to = near.first[id + 1];
  if (to - from === 1) { return grid.y[near.list[from]]; }
  if (from === to) { return null; }
  var sum = 0;
  for (var n = from; n < to; n++) { sum += grid.y[near.list[n]]; }
  return sum / (to - from);
}

/**
 * Rows: stacked from the top, then passes alternately left to right and back, each column
 * settled towards the mean height of its neighbours on the side already placed (else the other
 * side, else where it is).
 */
function placeRows(grid, gap) {
  var count = grid.count;
  for (var c = 0; c < grid.columnCount; c++) {
    var top = 0;
    for (var k = grid.start[c]; k < grid.start[c + 1]; k++) {
      var id = grid.order[k];
      grid.y[id] = top + grid.height[id] / 2;
      top += grid.height[id] + gap;
    }
  }
  var offsets = columnOffsets(grid, gap);
  var blocks = {sum: boxedNumbers(count), size: new Int32Array(count), mean: boxedNumbers(count)};
  for (var pass = 0; pass < ROW_PASSES; pass++) {
    var forward = pass % 2 === 0;
    for (var step = 0; step < grid.columnCount; step++) {
      var column = forward ? step : grid.columnCount - 1 - step;
      settleColumn(grid, column, forward ? grid.up : grid.down, forward ? grid.down : grid.up, offsets, blocks);
    }
  }
}

/**
 * Move everything down so that the top edge is at the margin; the extent before the move. A
 * column's top edge is its first item's and its bottom edge its last item's (placeRows keeps the
 * gaps), so only those are read.
 */
function shiftRows(grid, margin) {
  var top = Infinity;
  var bottom = -Infinity;
  for (var c = 0; c < grid.columnCount; c++) {
    if (grid.start[c] === grid.start[c + 1]) { continue; }
    var upper = grid.order[grid.start[c]];
    var lower = grid.order[grid.start[c + 1] - 1];
    top = Math.min(top, grid.y[upper] - grid.height[upper] / 2);
    bottom = Math.max(bottom, grid.y[lower] + grid.height[lower] / 2);
  }
  var shift = grid.count ? margin - top : 0;
  for (var id = 0; id < grid.count; id++) { grid.y[id] += shift; }
  return {top: top, bottom: bottom};
}

export {buildGrid, orderColumns, placeRows, shiftRows};
