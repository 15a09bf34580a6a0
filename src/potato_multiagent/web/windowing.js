/*
 * windowing.js: render what is visible, not what exists (issue 18). The one home of the widgets'
 * windowing and paging, shared by every widget that lists steps or calls:
 *
 *   - pure arithmetic (node tests): clampWindow, scrollWindow, moveActive, pageBounds, and the
 *     words of a page (pageWords: "51–100 of 2,501 handoffs", the one wording of web/pager.js);
 *   - words (node tests): firstMeaningfulLine, a step's one-line label parts, and the search
 *     (parseQuery, matchesQuery, filterItems) of a step picker;
 *   - createCombobox(...): the ARIA 1.2 combobox + listbox pattern over any number of items,
 *     drawing only the options in view (a few dozen elements at 50,000 steps);
 *   - the pager of a long list is in pager.js (it uses pageBounds and pageWords).
 *
 * DOM is built with createElement / textContent / setAttribute only: item labels are trace data.
 * Types reach the parts they use through the runtime ('potato-multiagent': formatCount, ...).
 */
// ---------------------------------------------------------------------------------------------
// Window arithmetic (pure)
// ---------------------------------------------------------------------------------------------

/** {first, end} (end exclusive) of `size` items starting near `first`, inside [0, total). */
function clampWindow(total, first, size) {
  total = Math.max(0, total | 0);
  size = Math.max(0, size | 0);
  if (size >= total) { return {first: 0, end: total}; }
  first = Math.min(Math.max(0, first | 0), total - size);
  return {first: first, end: first + size};
}

/**
 * The rows a scrolled list must draw: those under the viewport plus `overscan` rows each side.
 * Rows have one fixed height, so this is arithmetic, never a measurement of the DOM.
 */
function scrollWindow(scrollTop, rowHeight, viewportRows, total, overscan) {
  var top = Math.floor(Math.max(0, scrollTop) / rowHeight);
  var first = Math.max(0, top - overscan);
  var end = Math.min(total, top + viewportRows + overscan);
  return {first: Math.min(first, end), end: end};
}

/** Where a listbox key moves the active position (null = it does not move it). */
function moveActive(active, key, total, pageRows) {
  if (total <= 0) { return null; }
  var from = active === null || active === undefined ? -1 : active;
  var target;
  switch (key) {
    case 'ArrowDown': target = from < 0 ? 0 : from + 1; break;
    case 'ArrowUp': target = from < 0 ? total - 1 : from - 1; break;
    case 'PageDown': target = (from < 0 ? 0 : from) + pageRows; break;
    case 'PageUp': target = (from < 0 ? 0 : from) - pageRows; break;
    case 'Home': target = 0; break;
    case 'End': target = total - 1; break;
    default: return null;
  }
  return Math.min(total - 1, Math.max(0, target));
}

/** Page `page` (0-based) of `size` items out of `total`: {page, pages, first, end}. */
function pageBounds(total, page, size) {
  var pages = Math.max(1, Math.ceil(total / size));
  page = Math.min(Math.max(0, page | 0), pages - 1);
  var first = page * size;
  return {page: page, pages: pages, first: first, end: Math.min(total, first + size)};
}

/** Where page `bounds` (pageBounds) is among `count` items: "51–100 of 2,501 handoffs" ('' for none). */
function pageWords(bounds, count, noun) {
  if (!count) { return ''; }
  return formatCount(bounds.first + 1) + '\u2013' + formatCount(bounds.end) + ' of ' + formatCount(count) + ' ' +
    noun;
}

/** How many of the ascending `values` are below `limit` (binary search). */
function countBelow(values, limit) {
  var low = 0;
  var high = values.length;
  while (low < high) {
    var middle = (low + high) >> 1;
    if (values[middle] < limit) { low = middle + 1; } else { high = middle; }
  }
  return low;
}

/**
 * The end of a time window from `from` in which `most` of the ascending `starts` begin (more
 * only when calls start at the same instant; at least one, so a window is never empty), halfway
 * to the next start, capped at `last`.
 */
function timeWindowEnd(starts, from, most, last) {
  var cut = countBelow(starts, from) + Math.max(1, most);
  while (cut < starts.length && starts[cut] === starts[cut - 1]) { cut += 1; }
  if (cut >= starts.length) { return last; }
  return Math.min(last, starts[cut - 1] + (starts[cut] - starts[cut - 1]) / 2);
}

/**
 * Intervals ({start, end}) seen from a window [from, to]: {inside, before, after} counts; an
 * interval touching the window is inside.
 */
function countAround(intervals, from, to) {
  var counts = {inside: 0, before: 0, after: 0};
  for (var i = 0; i < intervals.length; i++) {
    var item = intervals[i];
    if (item.end < from) { counts.before += 1; } else if (item.start > to) { counts.after += 1; } else { counts.inside += 1; }
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------
// Words (pure)
// ---------------------------------------------------------------------------------------------

var LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;
var LINES_LOOKED_AT = 40;           // a step's first 40 lines are enough to find what it says
var CHARS_LOOKED_AT = 4000;
// Says nothing: punctuation, symbols, markdown rules and fences, bare brackets.
var NOTHING_SAID = /^[\s\p{P}\p{S}]*$/u;
// A heading that announces what follows: "Updated Ledger:", "## Plan", "Thought:", "**Answer:**".
// At most four words, so a sentence ending in a colon ("We need the following:") still counts.
var HEADER_LINE = /^[\s#>*_`-]*[\p{L}\p{N}][\p{L}\p{N}'()\/&.-]*(?: [\p{L}\p{N}'()\/&.-]+){0,3}:[\s*_`]*$|^\s*#{1,6}\s+\S.{0,38}$/u;
// A JSON key that opens an object or list ("is_request_satisfied": {), and one with a string
// value ("reason": "The request is ..."), whose value is what it says.
var JSON_OPENER = /^"[^"]{1,60}"\s*:\s*[[{]?\s*$/;
var JSON_STRING = /^"[^"]{1,60}"\s*:\s*"(.*?)"?,?$/;

/**
 * The first line of `text` that says something: empty lines, lines of punctuation only and
 * short header lines ("Updated Ledger:", "## Plan") are skipped. When every line looked at is
 * skipped, the first non-blank one is used. Whitespace runs collapse to one space. Only a
 * bounded prefix of the text is looked at: a 1 MB step costs no more than a short one.
 */
function firstMeaningfulLine(text) {
  if (typeof text !== 'string') { text = text === null || text === undefined ? '' : String(text); }
  var lines = text.slice(0, CHARS_LOOKED_AT).split(LINE_BREAK, LINES_LOOKED_AT);
  var fallback = '';
  for (var i = 0; i < lines.length; i++) {
    var line = lines[i].replace(/\s+/g, ' ').trim();
    if (line === '') { continue; }
    if (fallback === '') { fallback = line; }
    var value = JSON_STRING.exec(line);
    if (value) { line = value[1].trim(); }
    if (NOTHING_SAID.test(line) || HEADER_LINE.test(line) || JSON_OPENER.test(line)) { continue; }
    return line;
  }
  return fallback;
}

/**
 * The agent of a step as the derivation names it: "Orchestrator (thought)", with the qualifier;
 * an instruction addressed to someone its qualifier does not already name: "Planner -> Coder".
 */
function stepAgentWords(step) {
  var agent = step.agent === null || step.agent === undefined ? 'no agent' : String(step.agent);
  var qualifier = step.qualifier === null || step.qualifier === undefined ? '' : String(step.qualifier);
  var words = qualifier ? agent + ' (' + qualifier + ')' : agent;
  var to = step.to === null || step.to === undefined ? '' : String(step.to);
  if (to && !/^\s*(->|\u2192)/.test(qualifier)) { words += ' -> ' + to; }
  return words;
}

/** A search string typed by the annotator: {number: digits after "#" or null, words: [...]} */
function parseQuery(query) {
  var words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
  var number = null;
  if (words.length && /^#\d+$/.test(words[0])) { number = words.shift().slice(1); }
  return {number: number, words: words, empty: number === null && words.length === 0};
}

/**
 * Whether an item matches a parsed query: "#12" keeps the numbers that start with 12 (#12,
 * #120, ...: the exact one comes first in step order); every other word must occur in the
 * item's number, agent or text (`haystack`, lower case).
 */
function matchesQuery(parsed, number, haystack) {
  if (parsed.number !== null && String(number).indexOf(parsed.number) !== 0) { return false; }
  for (var i = 0; i < parsed.words.length; i++) {
    if (haystack.indexOf(parsed.words[i]) < 0) { return false; }
  }
  return true;
}

/** The items (0..count-1) matching `query`, in order; null when the query keeps them all. */
function filterItems(count, query, numberOf, haystackOf) {
  var parsed = parseQuery(query);
  if (parsed.empty) { return null; }
  var kept = [];
  for (var i = 0; i < count; i++) {
    if (matchesQuery(parsed, numberOf(i), parsed.words.length ? haystackOf(i) : '')) { kept.push(i); }
  }
  return kept;
}

function formatCount(count) {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// ---------------------------------------------------------------------------------------------
// The windowed combobox (ARIA 1.2 combobox with a listbox popup)
// ---------------------------------------------------------------------------------------------

var ROW_PX = 28;          // one option row; the CSS (windowing.css) gives options this height
var VIEW_ROWS = 10;       // rows in view when the list is open
var OVERSCAN = 5;

/**
 * A searchable single choice among `count()` items whose DOM holds only the options in view.
 *
 * options: {input, listbox, scroller (the box around the listbox that scrolls), status, idBase, count(), label(i), number(i), haystack(i) (lower
 *   case), choose(i or null), noun ("step"), stop (keys to keep from page-wide shortcuts), announce(text)
 *   (says the status aloud; the runtime's ui.combobox passes the form's status line)}
 * The input carries role=combobox (the template's label names it); focus stays in it and the
 * active option is aria-activedescendant. Keys: Down/Up open the list and move, PageDown/PageUp
 * by a screenful, Home/End to the ends while open, Enter chooses (an emptied box chooses
 * nothing), Escape closes and puts the chosen item's words back. Typing filters by number,
 * agent and text. Every key the list handles stops there, arrows always (Potato binds Left/Right
 * to Prev/Next for the whole page).
 * Returns {show(words): the chosen item's words in the box, close(), isOpen()}.
 */
function createCombobox(options) {
  var input = options.input;
  var listbox = options.listbox;
  var scroller = options.scroller;   // the listbox's scrolling box (its padding stands for rows not drawn)
  var noun = options.noun || 'item';
  var state = {open: false, matches: null, active: null, shownWords: '', editing: false, first: 0, end: 0};

  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-expanded', 'false');
  input.setAttribute('aria-controls', listbox.id);
  input.setAttribute('autocomplete', 'off');
  listbox.setAttribute('role', 'listbox');
  scroller.hidden = true;

  function total() { return state.matches ? state.matches.length : options.count(); }
  function itemAt(position) { return state.matches ? state.matches[position] : position; }
  function optionId(item) { return options.idBase + '-opt-' + item; }

  // the visible line under the box; said aloud through options.announce (the form's one live region)
  function say(text) {
    if (!options.status || options.status.textContent === text) { return; }
    options.status.textContent = text;
    if (options.announce) { options.announce(text); }
  }

  function describe() {
    var all = options.count();
    if (!state.open) { say(''); return; }
    if (total() === 0) { say('No ' + noun + ' matches "' + input.value + '".'); return; }
    say(state.matches ? formatCount(total()) + ' of ' + formatCount(all) + ' ' + noun + 's match.'
      : formatCount(all) + ' ' + noun + 's; type to search by number, agent or text.');
  }

  function open() {
    if (state.open) { return; }
    state.open = true;
    // The popup hangs just under the box (the CSS positions it absolutely).
    scroller.style.top = (input.offsetTop + input.offsetHeight + 2) + 'px';
    input.setAttribute('aria-expanded', 'true');
    scroller.hidden = total() === 0;
    describe();
  }

  function close() {
    if (!state.open) { return; }
    state.open = false;
    state.active = null;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    scroller.hidden = true;
    listbox.textContent = '';
    describe();
  }

  function filter() {
    state.matches = filterItems(options.count(), input.value, options.number, options.haystack);
    // A search makes its first match active (Enter takes it); an emptied box makes none active,
    // so Enter there chooses nothing.
    state.active = total() && input.value.trim() !== '' ? 0 : null;
    scroller.hidden = !state.open || total() === 0;
    scroller.scrollTop = 0;
    draw();
    describe();
  }

  /** Draw the options under the viewport; padding stands in for the rows not drawn. */
  function draw() {
    if (!state.open) { return; }
    var count = total();
    // The rows under the scroll position (the keys scroll the active option into view first;
    // the wheel may take the view away from it).
    var view = scrollWindow(scroller.scrollTop, ROW_PX, VIEW_ROWS, count, OVERSCAN);
    state.first = view.first;
    state.end = view.end;
    var fragment = document.createDocumentFragment();
    for (var position = view.first; position < view.end; position++) {
      fragment.appendChild(optionNode(position, count));
    }
    listbox.style.paddingTop = (view.first * ROW_PX) + 'px';
    listbox.style.paddingBottom = ((count - view.end) * ROW_PX) + 'px';
    listbox.replaceChildren(fragment);
    paintActive();
  }

  function optionNode(position, count) {
    var item = itemAt(position);
    var node = document.createElement('li');
    node.id = optionId(item);
    node.className = 'ma-combo-option';
    node.setAttribute('role', 'option');
    node.setAttribute('aria-setsize', String(count));
    node.setAttribute('aria-posinset', String(position + 1));
    node.setAttribute('aria-selected', position === state.active ? 'true' : 'false');
    node.setAttribute('data-ma-item', String(item));
    node.textContent = options.label(item);
    return node;
  }

  function paintActive() {
    var previous = listbox.querySelector('.ma-combo-active');
    if (previous) { previous.classList.remove('ma-combo-active'); previous.setAttribute('aria-selected', 'false'); }
    if (state.active === null) { input.removeAttribute('aria-activedescendant'); return; }
    var node = document.getElementById(optionId(itemAt(state.active)));
    if (!node) { input.removeAttribute('aria-activedescendant'); return; }   // scrolled out of view
    node.classList.add('ma-combo-active');
    node.setAttribute('aria-selected', 'true');
    input.setAttribute('aria-activedescendant', node.id);
  }

  /** Make `position` active and scroll it into view (drawing the rows around it). */
  function activate(position) {
    state.active = position;
    var top = position * ROW_PX;
    if (top < scroller.scrollTop) {
      scroller.scrollTop = top;
    } else if (top + ROW_PX > scroller.scrollTop + ROW_PX * VIEW_ROWS) {
      scroller.scrollTop = top + ROW_PX - ROW_PX * VIEW_ROWS;
    }
    if (position < state.first || position >= state.end) { draw(); } else { paintActive(); }
  }

  function chooseActive() {
    var item = state.active === null ? null : itemAt(state.active);
    close();
    state.editing = false;
    options.choose(item);
  }

  function openAt(position) {
    open();
    draw();
    if (position !== null && position < total()) { activate(position); }
  }

  /** Where the chosen item is in the current list (so opening the list starts there). */
  function chosenPosition() {
    var chosen = options.chosen ? options.chosen() : null;
    if (chosen === null || chosen === undefined) { return null; }
    if (!state.matches) { return chosen < total() ? chosen : null; }
    var at = state.matches.indexOf(chosen);
    return at < 0 ? null : at;
  }

  function onKeyDown(event) {
    var key = event.key;
    var handled = true;
    if (key === 'ArrowDown' || key === 'ArrowUp') {
      if (!state.open) {
        if (!state.editing) { state.matches = null; }
        var at = chosenPosition();
        openAt(event.altKey ? at : at === null ? moveActive(null, key, total(), VIEW_ROWS) : at);
      } else if (!event.altKey && total()) {
        activate(moveActive(state.active, key, total(), VIEW_ROWS));
      } else if (event.altKey && key === 'ArrowUp') {
        chooseActive();
      }
    } else if ((key === 'PageDown' || key === 'PageUp' || key === 'Home' || key === 'End') && state.open) {
      if (total()) { activate(moveActive(state.active, key, total(), VIEW_ROWS)); }
    } else if (key === 'Enter') {
      if (state.open && state.active !== null) {
        chooseActive();
      } else if (input.value.trim() === '') {
        state.active = null;
        chooseActive();
      } else if (!state.open) {
        openAt(0);
      }
    } else if (key === 'Escape') {
      handled = state.open || input.value !== state.shownWords;
      close();
      restoreWords();
    } else if (key !== 'ArrowLeft' && key !== 'ArrowRight') {
      handled = false;
    }
    if (key === 'ArrowLeft' || key === 'ArrowRight' || handled) { event.stopPropagation(); }
    if (handled) { event.preventDefault(); }
  }

  function restoreWords() {
    state.editing = false;
    state.matches = null;
    if (input.value !== state.shownWords) { input.value = state.shownWords; }
  }

  input.addEventListener('keydown', onKeyDown);
  // Potato's letter shortcuts listen for keyup on the page: typing here is a search.
  input.addEventListener('keyup', function (event) { event.stopPropagation(); });
  input.addEventListener('input', function () {
    state.editing = true;
    open();
    filter();
  });
  input.addEventListener('focus', function () { if (!state.editing && !state.open) { input.select(); } });
  input.addEventListener('click', function () {
    if (state.open) { return; }
    if (!state.editing) { state.matches = null; }
    openAt(chosenPosition());
  });
  // Focus leaving the box closes the list; a blur followed at once by focus (a script checking
  // the focus ring, a window switch) does not.
  input.addEventListener('blur', function () {
    setTimeout(function () {
      if (document.activeElement === input) { return; }
      close();
      restoreWords();
    }, 0);
  });
  scroller.addEventListener('scroll', function () {
    var view = scrollWindow(scroller.scrollTop, ROW_PX, VIEW_ROWS, total(), OVERSCAN);
    if (view.first < state.first || view.end > state.end) { draw(); }
  });
  // Keep focus in the box: the list is part of it.
  scroller.addEventListener('mousedown', function (event) { event.preventDefault(); });
  listbox.addEventListener('click', function (event) {
    var node = event.target && event.target.closest ? event.target.closest('[data-ma-item]') : null;
    if (!node) { return; }
    var item = Number(node.getAttribute('data-ma-item'));
    state.active = state.matches ? state.matches.indexOf(item) : item;
    chooseActive();
  });

  return {
    /** Put the chosen item's words in the box (unless the annotator is typing a search). */
    show: function (words) {
      state.shownWords = words;
      if (!state.editing && input.value !== words) { input.value = words; }
    },
    close: close,
    isOpen: function () { return state.open; }
  };
}

export {clampWindow, scrollWindow, moveActive, pageBounds, pageWords, countBelow, timeWindowEnd, countAround, firstMeaningfulLine, stepAgentWords, parseQuery, matchesQuery, filterItems, formatCount, createCombobox, ROW_PX};
