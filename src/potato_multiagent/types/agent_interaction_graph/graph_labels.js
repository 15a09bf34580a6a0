/*
 * graph_labels.js: node labels of the interaction graph, as plain data (no DOM): names wrapped,
 * shortened and always distinguishable, and a text-width estimate for node tests. Used by
 * graph_layout.js.
 */
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

export {drawable, visibleForm, shortName, distinctLabels, wrapLines, estimateWidth};
