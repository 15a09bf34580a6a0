/*
 * pager.js: the one pager of every paged list (issue 13): handoff cards, tool-call cards, the
 * lanes of turns, a graph element's steps, the calls left out of a contention window.
 *
 * createPager(list, options): a list shown one page at a time, with one markup, one set of hooks,
 * one wording (windowing.js pageWords: "51–100 of 2,501 handoffs") and one keyboard and
 * screen-reader behaviour for every widget (exposed as ui.pager).
 *
 * The bar is <nav class="ma-pager" data-ma="pager" aria-label="Pages of NOUN">, holding
 * "Previous page" (data-ma="page-previous"), the words (data-ma="page-where") and "Next page"
 * (data-ma="page-next"). A button at an end is aria-disabled, not disabled, so the focus stays on
 * it; a page turned by a button is announced through the runtime's status line.
 * Page only: runtime.js offers it as ui.pager. Its pure part is windowing.js's (page arithmetic and
 * words), tested under node there.
 */
import {pageBounds, pageWords} from './windowing.js';

/**
 * Show `count` items in `list`, `size` at a time, with the pager bar after `options.after`
 * (default: the list).
 *
 * options: {size (50), noun ("items": plural, after the count), item(i) -> node of item i (the
 *   pager fills `list` with them) or draw(first, end) (the view draws that range itself: cards
 *   it keeps refs of, lanes, a line of step links; it returns the items' nodes in order, if
 *   any, for open() to focus), announce(text) (ui.pager gives the runtime's status line),
 *   focus: {save(list) -> key, restore(list, key)} (ui.pager gives the runtime's data-ma-focus
 *   keeping: a redrawn page focuses the same logical control again), turned(bounds) (after a
 *   button turned the page), always (show the bar even when every item fits on one page; by
 *   default it is hidden then: two dead buttons would only be two more tab stops)}
 * Returns {show(count[, item][, noun][, position]): a new list, at the page holding position
 *   (the first by default); recount(the same): the list filtered anew, its page announced;
 *   open(position[, focus]): the page holding item `position`, its node (focused and
 *   scrolled into view when asked); redraw(): the current page again; turn(delta); page();
 *   bounds(); where(): the words; bar}
 */
function createPager(list, options) {
  var size = options.size || 50;
  var state = {count: 0, item: options.item || null, noun: options.noun || 'items', page: 0, nodes: []};
  var bar = document.createElement('nav');
  bar.className = 'ma-pager';
  bar.setAttribute('data-ma', 'pager');
  var previous = pageButton('Previous page', 'page-previous', -1);
  var where = document.createElement('span');
  where.className = 'ma-pager-where';
  where.setAttribute('data-ma', 'page-where');
  var next = pageButton('Next page', 'page-next', 1);
  bar.appendChild(previous);
  bar.appendChild(where);
  bar.appendChild(next);
  var after = options.after || list;
  after.parentNode.insertBefore(bar, after.nextSibling);

  function pageButton(text, hook, delta) {
    var node = document.createElement('button');
    node.type = 'button';
    node.className = 'ma-button ma-pager-button';
    node.setAttribute('data-ma', hook);
    node.setAttribute('data-ma-focus', hook);
    node.textContent = text;
    node.addEventListener('click', function () { turn(delta); });
    return node;
  }

  /** Draw page `page`; a control focused in the list keeps the focus when the new page has it. */
  function draw(page) {
    var bounds = pageBounds(state.count, page, size);
    var focusKey = options.focus ? options.focus.save(list) : null;
    state.page = bounds.page;
    state.nodes = options.draw ? options.draw(bounds.first, bounds.end) || [] : fill(bounds);
    if (options.focus) { options.focus.restore(list, focusKey); }
    paintBar(bounds);
    return bounds;
  }

  function fill(bounds) {
    var nodes = [];
    var fragment = document.createDocumentFragment();
    for (var i = bounds.first; i < bounds.end; i++) {
      nodes.push(state.item(i));
      fragment.appendChild(nodes[nodes.length - 1]);
    }
    list.replaceChildren(fragment);
    return nodes;
  }

  function paintBar(bounds) {
    bar.setAttribute('aria-label', 'Pages of ' + state.noun);
    bar.hidden = state.count === 0 || (!options.always && bounds.pages < 2);
    previous.setAttribute('aria-disabled', bounds.page === 0 ? 'true' : 'false');
    next.setAttribute('aria-disabled', bounds.page >= bounds.pages - 1 ? 'true' : 'false');
    where.textContent = pageWords(bounds, state.count, state.noun);
  }

  function say(text) { if (options.announce && text) { options.announce(text + '.'); } }

  /** Previous/Next: nothing at an end (the button is aria-disabled and keeps the focus). */
  function turn(delta) {
    var target = state.page + delta;
    if (target < 0 || target >= pageBounds(state.count, 0, size).pages) { return; }
    var bounds = draw(target);
    say(where.textContent);
    if (options.turned) { options.turned(bounds); }
  }

  /** A new or re-counted list (null item/noun keep theirs), drawn at the page holding `position` (0). */
  function show(count, item, noun, position) {
    state.count = Math.max(0, count | 0);
    if (item) { state.item = item; }
    if (noun) { state.noun = noun; }
    draw(Math.floor(Math.max(0, position || 0) / size));
  }

  return {
    bar: bar,
    show: function (count, item, noun, position) { show(count, item, noun, position); },
    recount: function (count, item, noun, position) {
      show(count, item, noun, position);
      say(where.textContent || 'No ' + state.noun);
    },
    open: function (position, focus) {
      var page = Math.floor(position / size);
      if (page !== state.page || !state.nodes.length) { draw(page); }
      var node = state.nodes[position - state.page * size] || null;
      if (node && focus) {
        if (typeof node.scrollIntoView === 'function') { node.scrollIntoView({block: 'nearest'}); }
        node.focus();
      }
      return node;
    },
    redraw: function () { draw(state.page); },
    turn: turn,
    page: function () { return state.page; },
    bounds: function () { return pageBounds(state.count, state.page, size); },
    where: function () { return where.textContent; }
  };
}

export {createPager};
