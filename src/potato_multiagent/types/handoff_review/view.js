/*
 * view.js of `multiagent.handoff_review`: the DOM of the widget, on the runtime (runtime.js).
 *
 * One card per derived handoff, a group named "Handoff K: FROM to TO" quoting the instruction that
 * handed over (when a step addressed the receiver), the giver's last message and the receiver's
 * first, each with its #N link into the trace view; flag toggles, a "Quality" radio group and an
 * optional note. The list is reviewed one open card at a time: the card under review (the first
 * unreviewed, then whichever "next unreviewed" (the button or N) or "Show review" opened) is open,
 * every other card one line, 20 to a page, so the form stays within a few pane heights on a run of
 * any length. A filter shows all, unreviewed or flagged handoffs; runs with more than 30 handoffs
 * open on "unreviewed only". The rules and words are in marks.js; the runtime paints summary,
 * completeness and notices from marks.describe after every model.set.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';
import * as judgments from './view_judgments.js';

var marks = runtime.marksOf('handoff_review');
var TYPING_DELAY_MS = 300;
var ARROW_STEP = {ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1};
var formSerial = 0;   // makes element ids unique when a page has several of these widgets

/** Find the template's parts and wire them once; the returned object lives across renders. */
function createView(el, ui, derivation) {
  function part(name) {
    var node = ui.hook(name);
    if (!node) { throw new Error('the page lacks the "' + name + '" part of this question (data-ma)'); }
    return node;
  }
  var view = {
    serial: ++formSerial,
    progress: part('progress'), filter: part('filter'), jump: part('jump'), jumpGo: part('jump-go'),
    bulk: part('bulk'), undoBulk: part('undo-bulk'), empty: part('empty'), cards: part('cards'),
    nextUnreviewed: part('next-unreviewed'), lastShown: -1,
    currentKey: null, opened: new Set(),
    cardsByIndex: new Map(), visible: [], filterName: 'all',
    book: null, derivation: null, config: null, model: null, ui: ui, root: el
  };
  view.typing = ui.debounce(function () { commit(view, null); }, TYPING_DELAY_MS);
  view.pager = ui.pager(view.cards, {size: marks.PAGE_SIZE,
    noun: marks.FILTER_WORDS.all, always: true,
    draw: function (first, end) { return drawCards(view, first, end); }});
  wire(view);
  return view;
}

function wire(view) {
  view.cards.addEventListener('click', function (event) { onCardClick(view, event); });
  view.cards.addEventListener('change', function (event) { onQualityChange(view, event.target); });
  view.cards.addEventListener('keydown', function (event) { onQualityArrow(view, event); });
  view.cards.addEventListener('input', function (event) { onNoteInput(view, event.target); });
  view.cards.addEventListener('focusout', function (event) {
    if (event.target.classList.contains('ma-hr-note')) { view.typing.flush(); }
  });
  view.filter.addEventListener('change', function () { showFilter(view, view.filter.value); });
  view.jumpGo.addEventListener('click', function () { jumpTo(view, view.jump.value); });
  view.jump.addEventListener('keydown', function (event) {
    if (event.key === 'Enter') { event.preventDefault(); jumpTo(view, view.jump.value); }
  });
  view.bulk.addEventListener('click', function () { markAllAsFine(view); });
  view.nextUnreviewed.addEventListener('click', function () { showNextUnreviewed(view); });
  view.undoBulk.addEventListener('click', function () { undoMarkAll(view); });
  // N anywhere in the widget but a text field: the next unreviewed handoff (the button's key).
  view.root.addEventListener('keydown', function (event) {
    if (!isNextKey(event)) { return; }
    event.preventDefault();
    event.stopPropagation();
    showNextUnreviewed(view);
  });
  // Potato's keyup shortcuts toggle other schemes' checkboxes by letter: not with this one.
  view.root.addEventListener('keyup', function (event) { if (isNextKey(event)) { event.stopPropagation(); } });
}

function isNextKey(event) {
  var target = event.target, tag = target && target.tagName;
  var typing = tag === 'TEXTAREA' || tag === 'SELECT' || (tag === 'INPUT' && !/^(radio|checkbox|button)$/.test(target.type));
  return (event.key === 'n' || event.key === 'N') && !event.ctrlKey && !event.metaKey && !event.altKey && !typing;
}

// -- one card -------------------------------------------------------------------------------------

function buildCard(view, handoff) {
  var h = view.ui.h, config = view.config;
  var idBase = 'ma-hr-' + view.serial + '-' + handoff.index;
  var refs = {handoff: handoff, key: marks.identityKey(handoff), flagButtons: new Map(), radios: [], note: null,
    extraFlags: h('span', {class: 'ma-hr-extra-flags'}), extraSignature: '[]', excerpts: {}};
  refs.status = h('p', {class: 'ma-hr-status'});
  refs.body = h('div', {class: 'ma-hr-body', id: idBase + '-body'}, [
    kindLine(view, handoff),
    h('div', {class: 'ma-hr-excerpts'}, marks.excerptSteps(handoff, view.derivation.steps).map(function (part) {
      return excerptBlock(view, refs, part, idBase);
    })),
    flagGroup(view, refs, config),
    qualityGroup(h, refs, config, idBase),
    config.allow_note ? noteField(h, refs, idBase) : null,
    h('div', {class: 'ma-hr-actions'}, [h('button', {type: 'button', class: 'ma-hr-clear',
      'data-ma-action': 'clear', 'data-ma-focus': 'clear', text: 'Clear review'})])]);
  // Every card but the one under review and those opened by hand is one line: title, status and
  // "Show review" (a card reviewed when drawn is folded even when it is the one under review).
  var reviewed = marks.isReviewed(view.book.byKey.get(refs.key));
  var collapsed = !view.opened.has(refs.key) && (reviewed || refs.key !== view.currentKey);
  refs.toggle = h('button', {type: 'button', class: 'ma-hr-toggle',
    'data-ma-action': 'toggle-card', 'data-ma-focus': 'toggle-card', 'aria-controls': idBase + '-body'});
  refs.root = h('div', {class: 'ma-hr-card', role: 'group', 'aria-label': marks.handoffName(handoff),
    'data-ma-handoff': handoff.index, tabindex: '-1'}, [
    h('div', {class: 'ma-hr-head'}, [cardTitle(h, handoff), refs.status, refs.toggle]), refs.body]);
  setOpen(refs, !collapsed);
  paintCard(view, refs);
  return refs;
}

/** Open or fold a card drawn reviewed (its body hidden, one line left). */
function setOpen(refs, open) {
  refs.body.hidden = !open;
  refs.root.classList.toggle('ma-hr-collapsed', !open);
  refs.toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
  refs.toggle.textContent = open ? 'Hide review' : 'Show review';
}

function cardTitle(h, handoff) {
  return h('h4', {class: 'ma-hr-title'}, [
    'Handoff ' + (handoff.index + 1) + ': ',
    h('span', {class: 'ma-hr-agent', text: handoff.from}),
    h('span', {class: 'ma-hr-arrow', 'aria-hidden': 'true', text: ' \u2192 '}),
    h('span', {class: 'ma-hr-sr-only', text: ' to '}),
    h('span', {class: 'ma-hr-agent', text: handoff.to})
  ]);
}

function kindLine(view, handoff) {
  var h = view.ui.h;
  if (handoff.explicit) {
    return h('p', {class: 'ma-hr-kind ma-hr-kind-explicit'}, [
      h('span', {class: 'ma-hr-badge', text: 'Explicit handoff event'}), ' at ', view.ui.stepLink(handoff.step)]);
  }
  var from = view.ui.stepLink(handoff.from_step);
  var to = view.ui.stepLink(handoff.step);
  // threads of work (docs/derivation.md#threads): a thread started from another agent, or ended
  if (handoff.kind === 'delegation') {
    return h('p', {class: 'ma-hr-kind'}, ['Delegation: ', from, ' starts a thread of work at ', to]);
  }
  if (handoff.kind === 'return') {
    return h('p', {class: 'ma-hr-kind'}, ['Return: a thread of work ends at ', from, ', control is back at ', to]);
  }
  return h('p', {class: 'ma-hr-kind'}, ['Control passes from ', from, ' to ', to]);
}

/** "Last message before, #4 · Planner" with #4 a link into the trace view. */
function excerptHead(view, heading, step) {
  var agent = step.agent !== null && step.agent !== undefined ? String(step.agent) : 'no agent';
  return view.ui.h('p', {class: 'ma-hr-excerpt-head'}, [heading + ', ', view.ui.stepLink(step.index), ' \u00B7 ' + agent]);
}

function excerptBlock(view, refs, part, idBase) {
  var h = view.ui.h, step = part.step;
  if (!step) {
    return h('div', {class: 'ma-hr-excerpt'}, [
      h('p', {class: 'ma-hr-excerpt-head', text: part.heading}),
      h('p', {class: 'ma-hr-excerpt-text ma-hr-muted', text: 'No later message in this run.'})]);
  }
  var text = step.text;
  var short = runtime.snippet(text, marks.SNIPPET_LENGTH);
  var excerpt = {step: step, snippet: h('p', {class: 'ma-hr-excerpt-text', text: short || '(no text)'}),
    full: null, toggle: null};
  if (short !== text) {
    var fullId = idBase + '-' + part.part;
    excerpt.full = h('div', {class: 'ma-hr-excerpt-full', id: fullId, hidden: true});
    excerpt.toggle = h('button', {type: 'button', class: 'ma-hr-expand', 'aria-expanded': 'false',
      'aria-controls': fullId, 'data-ma-action': 'expand', 'data-ma-part': part.part,
      'data-ma-focus': 'expand:' + part.part, text: 'Show full message'});
  }
  refs.excerpts[part.part] = excerpt;
  return h('div', {class: 'ma-hr-excerpt', 'data-ma-part': part.part}, [
    excerptHead(view, part.heading, step), excerpt.snippet, excerpt.full, excerpt.toggle]);
}

function flagButton(h, flag, label) {
  return h('button', {type: 'button', class: 'ma-hr-flag', 'aria-pressed': 'false', 'data-ma-action': 'flag',
    'data-ma-flag': flag, 'data-ma-focus': 'flag:' + flag}, [
    h('span', {class: 'ma-hr-check', 'aria-hidden': 'true'}), label]);
}

function flagGroup(view, refs, config) {
  var h = view.ui.h;
  var buttons = config.flags.map(function (flag) {
    var button = flagButton(h, flag, marks.flagLabel(flag));
    refs.flagButtons.set(flag, button);
    return button;
  });
  return h('div', {class: 'ma-hr-flags', role: 'group', 'aria-label': 'Flags'}, [
    h('span', {class: 'ma-hr-group-label', 'aria-hidden': 'true', text: 'Flags'}), buttons, refs.extraFlags]);
}

function qualityGroup(h, refs, config, idBase) {
  var scale = config.quality_scale;
  var options = [];
  for (var value = 1; value <= scale; value++) {
    var radio = h('input', {type: 'radio', class: 'ma-hr-q', name: idBase + '-quality', value: value,
      'data-ma-focus': 'q:' + value});
    refs.radios.push(radio);
    var words = value === 1 ? ' (poor)' : (value === scale ? ' (good)' : '');
    options.push(h('label', {class: 'ma-hr-q-option'}, [radio, h('span', {text: value + words})]));
  }
  return h('div', {class: 'ma-hr-quality', role: 'radiogroup', 'aria-label': 'Quality'}, [
    h('span', {class: 'ma-hr-group-label', 'aria-hidden': 'true', text: 'Quality'}), options]);
}

function noteField(h, refs, idBase) {
  refs.note = h('textarea', {id: idBase + '-note', class: 'ma-hr-note', rows: '2', 'data-ma-focus': 'note',
    maxlength: runtime.textLimit});
  return h('div', {class: 'ma-hr-note-field'}, [h('label', {for: idBase + '-note', text: 'Note'}), refs.note]);
}

/** Update one card's controls and words from the book (in place: focus and caret stay). */
function paintCard(view, refs) {
  var config = view.config, entry = view.book.byKey.get(refs.key) || null;
  var flags = entry ? entry.flags : [];
  refs.flagButtons.forEach(function (button, flag) { paintToggle(button, flags.indexOf(flag) >= 0); });
  paintExtraFlags(view, refs, flags.filter(function (flag) { return config.flags.indexOf(flag) < 0; }));
  refs.radios.forEach(function (radio) {
    var checked = !!entry && entry.quality === Number(radio.value);
    if (radio.checked !== checked) { radio.checked = checked; }
  });
  if (refs.note) {
    var note = entry && entry.note ? entry.note : '';
    if (refs.note.value !== note) { refs.note.value = note; }
  }
  refs.status.textContent = marks.entryStatus(entry, config.quality_scale);
  refs.root.classList.toggle('ma-hr-reviewed', marks.isReviewed(entry));
  refs.root.classList.toggle('ma-hr-flagged', marks.isFlagged(entry));
  judgments.paint(view, refs, entry);   // the judges' flags and quality (view_judgments.js)
}

function paintToggle(button, on) {
  button.setAttribute('aria-pressed', on ? 'true' : 'false');
  button.firstChild.textContent = on ? '\u2713' : '';
}

/** Stored flags the config lacks get a pressed toggle of their own, so they can be removed. */
function paintExtraFlags(view, refs, unknown) {
  var signature = JSON.stringify(unknown);
  if (signature === refs.extraSignature) { return; }
  refs.extraSignature = signature;
  view.ui.clear(refs.extraFlags);
  unknown.forEach(function (flag) {
    var button = flagButton(view.ui.h, flag, marks.flagLabel(flag) + ' (not a configured flag)');
    paintToggle(button, true);
    refs.extraFlags.appendChild(button);
  });
}

// -- pages and filter ------------------------------------------------------------------------------

/** Draw cards `first`..`end` of the current filter's list (the pager's page), one DocumentFragment. */
function drawCards(view, first, end) {
  var fragment = document.createDocumentFragment();
  view.cardsByIndex = new Map();
  var roots = view.visible.slice(first, end).map(function (index) {
    var refs = buildCard(view, view.derivation.handoffs[index]);
    view.cardsByIndex.set(index, refs);
    fragment.appendChild(refs.root);
    return refs.root;
  });
  view.ui.clear(view.cards);
  view.cards.appendChild(fragment);
  paintEmpty(view);
  return roots;
}

function paintEmpty(view) {
  var total = view.derivation.handoffs.length;
  var text = '';
  if (total === 0) {
    text = 'No handoffs in this run: nothing to review. If this question is required, press ' +
      '\u201CMark all unreviewed handoffs as fine\u201D to record that.';
  } else if (view.visible.length === 0) {
    text = 'No ' + marks.FILTER_WORDS[view.filterName] + ' right now. Choose \u201CAll handoffs\u201D to see every handoff.';
  }
  view.empty.textContent = text;
  view.empty.hidden = text === '';
}

function setFilter(view, filter) {
  view.filterName = marks.FILTER_WORDS[filter] ? filter : 'all';
  view.filter.value = view.filterName;
  view.visible = marks.filterIndices(view.book, view.derivation, view.filterName);
}

function showFilter(view, filter) {
  setFilter(view, filter);
  view.pager.recount(view.visible.length, null, marks.FILTER_WORDS[view.filterName]);
}

/** Show handoff `index` (0-based): its page, switching to "all" when the filter hides it; focus its card. */
function showHandoff(view, index) {
  var position = view.visible.indexOf(index);
  if (position < 0) {
    setFilter(view, 'all');
    view.pager.show(view.visible.length, null, marks.FILTER_WORDS.all);
    position = index;
  }
  var key = marks.identityKey(view.derivation.handoffs[index]);
  if (key !== view.currentKey) { view.opened.add(key); }   // shown by hand: open until folded by hand
  view.pager.open(position, true);
  var refs = view.cardsByIndex.get(index);
  setOpen(refs, true);
  view.lastShown = index;
  view.ui.announce('Showing ' + marks.handoffName(view.derivation.handoffs[index]) + '.');
  return refs;
}

/** Review in order: the first unreviewed handoff after the one last shown (wrapping), shown with
 * focus on its first flag, so the keyboard goes card to card without scrolling for them. */
function showNextUnreviewed(view) {
  var handoffs = view.derivation.handoffs;
  for (var step = 1; step <= handoffs.length; step++) {
    var index = (view.lastShown + step + handoffs.length) % handoffs.length;
    var key = marks.identityKey(handoffs[index]);
    if (!marks.isReviewed(view.book.byKey.get(key))) {
      // the card under review moves on: the one before folds (unless opened by hand)
      var before = view.currentKey;
      view.currentKey = key;
      view.cardsByIndex.forEach(function (other) {
        if (other.key === before && !view.opened.has(before)) { setOpen(other, false); }
      });
      var refs = showHandoff(view, index);
      var first = refs && refs.root.querySelector('[data-ma-action="flag"]');
      if (first) { first.focus(); }
      return;
    }
  }
  view.ui.announce(handoffs.length ? 'Every handoff is reviewed.' : 'This run has no handoffs.');
}

function jumpTo(view, raw) {
  var total = view.derivation.handoffs.length;
  var number = Number(raw);
  if (!(Number.isInteger(number) && number >= 1 && number <= total)) {
    view.jump.setAttribute('aria-invalid', 'true');
    view.ui.announce(marks.jumpRefusal(String(raw).trim(), total));
    return;
  }
  view.jump.removeAttribute('aria-invalid');
  showHandoff(view, number - 1);
}

// -- actions ---------------------------------------------------------------------------------------

function refsOf(view, node) {   // the card refs of a node inside a card
  var card = node.closest('[data-ma-handoff]');
  return card ? view.cardsByIndex.get(Number(card.getAttribute('data-ma-handoff'))) || null : null;
}

function onCardClick(view, event) {
  var button = event.target.closest('button[data-ma-action]');
  var refs = button && refsOf(view, button);
  if (!refs) { return; }
  var name = marks.handoffName(refs.handoff);
  var action = button.getAttribute('data-ma-action');
  if (action === 'toggle-card') {
    var open = refs.body.hidden;
    setOpen(refs, open);
    if (open) { view.opened.add(refs.key); } else { view.opened.delete(refs.key); }
    if (!open && refs.key === view.currentKey) { view.currentKey = null; }
  } else if (action === 'expand') {
    toggleExcerpt(refs.excerpts[button.getAttribute('data-ma-part')]);
  } else if (action === 'flag') {
    var flag = button.getAttribute('data-ma-flag');
    var entry = marks.toggleFlag(view.book, refs.handoff, view.config, flag);
    var on = !!entry && entry.flags.indexOf(flag) >= 0;
    afterEdit(view, refs, name + ': ' + marks.flagLabel(flag) + (on ? ' flagged.' : ' no longer flagged.'));
  } else if (action === 'clear') {
    marks.clearReview(view.book, refs.handoff, view.config);
    afterEdit(view, refs, name + ': review cleared.');
  }
}

function toggleExcerpt(excerpt) {
  var open = excerpt.toggle.getAttribute('aria-expanded') !== 'true';
  if (open && !excerpt.full.firstChild) { excerpt.full.textContent = excerpt.step.text; }
  excerpt.full.hidden = !open;
  excerpt.snippet.hidden = open;
  excerpt.toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
  excerpt.toggle.textContent = open ? 'Show less' : 'Show full message';
}

function onQualityChange(view, target) {
  if (!target.classList.contains('ma-hr-q') || !target.checked) { return; }
  chooseQuality(view, refsOf(view, target), Number(target.value));
}

/** All four arrows move within the card's Quality group (and never reach Potato's Prev/Next). */
function onQualityArrow(view, event) {
  var step = ARROW_STEP[event.key];
  if (!step || !event.target.classList.contains('ma-hr-q')) { return; }
  event.preventDefault();
  event.stopPropagation();
  var refs = refsOf(view, event.target);
  var radios = refs.radios;
  var next = radios[(radios.indexOf(event.target) + step + radios.length) % radios.length];
  next.checked = true;
  next.focus();
  chooseQuality(view, refs, Number(next.value));
}

function chooseQuality(view, refs, quality) {
  marks.setQuality(view.book, refs.handoff, view.config, quality);
  afterEdit(view, refs, marks.handoffName(refs.handoff) + ': quality ' + quality + ' of ' + view.config.quality_scale + '.');
}

function onNoteInput(view, target) {
  if (!target.classList.contains('ma-hr-note')) { return; }
  var refs = refsOf(view, target);
  marks.setNote(view.book, refs.handoff, view.config, target.value);
  paintCard(view, refs);
  view.typing();
}

function afterEdit(view, refs, words) {
  paintCard(view, refs);
  keepFocusIn(refs.root);
  commit(view, words);
}

/** A control that vanished under the focus (an unknown flag switched off) hands focus to the card's first. */
function keepFocusIn(container) {
  var active = document.activeElement;
  if (active && active !== document.body && active.isConnected) { return; }
  var first = container.querySelector('[data-ma-focus]');
  if (first) { first.focus(); }
}

function markAllAsFine(view) {
  var config = view.config;
  var marked = marks.markAllFine(view.book, view.derivation, config);
  // Every card is reviewed now: the page is drawn again, each card one line (or, on "Unreviewed
  // handoffs", none left), not 50 full cards until a reload.
  setFilter(view, view.filterName);
  view.pager.show(view.visible.length, null, marks.FILTER_WORDS[view.filterName], view.pager.page() * marks.PAGE_SIZE);
  var total = view.derivation.handoffs.length;
  var words = total === 0 ? 'This run has no handoffs; recorded that there was nothing to review.'
    : (marked === 0 ? 'Every handoff was already reviewed; nothing was marked.'
      : 'Marked ' + marked + ' unreviewed handoff' + (marked === 1 ? '' : 's') + ' as fine: quality ' +
        config.quality_scale + ' of ' + config.quality_scale + ', no flags.');
  commit(view, words, total === 0);
}

function undoMarkAll(view) {
  var undone = marks.undoBulk(view.book, view.derivation, view.config);
  view.currentKey = firstUnreviewedKey(view);
  setFilter(view, view.filterName);
  view.pager.show(view.visible.length, null, marks.FILTER_WORDS[view.filterName], view.pager.page() * marks.PAGE_SIZE);
  commit(view, 'Took back \u201Cfine\u201D from ' + undone + ' handoff' + (undone === 1 ? '' : 's') + ' marked in bulk.');
  view.bulk.focus();   // the Undo button hides itself
}

// -- store and render ------------------------------------------------------------------------------

/** Store the book (model.set paints describe), then the words of the action. `keepEmpty` stores [] not "". */
function commit(view, words, keepEmpty) {
  view.typing.cancel();
  var list = marks.composeValue(view.book, view.derivation);
  view.model.set(list.length || keepEmpty ? list : null);
  var progress = paintCounts(view);
  view.ui.announce(words ? words + ' ' + progress : progress);
}

function paintCounts(view) {
  var progress = marks.progressText(view.book, view.derivation.handoffs.length);
  view.progress.textContent = progress;
  view.undoBulk.hidden = view.book.bulk === 0;
  return progress;
}

/** The key of the first handoff not reviewed yet (the card a long list opens on), or null. */
function firstUnreviewedKey(view) {
  var found = null;
  view.derivation.handoffs.some(function (handoff) {
    var key = marks.identityKey(handoff);
    if (marks.isReviewed(view.book.byKey.get(key))) { return false; }
    found = key;
    return true;
  });
  return found;
}

/** One render pass (the runtime has flushed pending typing): show the stored value. */
function render(args) {
  var ui = args.ui;
  var view = ui.state.view || (ui.state.view = createView(args.el, ui, args.derivation));
  Object.assign(view, {model: args.model, config: args.config, ui: ui});
  judgments.read(view, args, afterEdit);
  view.book = marks.makeBook(args.model.get().value || [], args.derivation);
  if (view.derivation !== args.derivation) {
    view.derivation = args.derivation;
    view.currentKey = firstUnreviewedKey(view);
    if (view.currentKey !== null) {   // its card is open: "next" goes on from it
      view.lastShown = view.derivation.handoffs.findIndex(function (handoff) {
        return marks.identityKey(handoff) === view.currentKey;
      });
    }
    view.jump.setAttribute('max', String(Math.max(1, args.derivation.handoffs.length)));
    setFilter(view, marks.openingFilter(args.derivation));
    view.pager.show(view.visible.length, null, marks.FILTER_WORDS[view.filterName]);
  } else {
    view.cardsByIndex.forEach(function (refs) { paintCard(view, refs); });
  }
  paintCounts(view);   // not announced: the status line keeps what another tab's merge said
  // The trace view's "Open handoff" (action 'open-handoff', detail.index = a step): the card of
  // the handoff received at that step, shown and focused.
  ui.onStepAction('open-handoff', function (detail, event) {
    var handoff = marks.handoffReceivedAt(view.derivation, detail.index);
    if (!handoff) { return; }
    showHandoff(view, handoff.index);
    event.preventDefault();
  });
}

runtime.define('handoff_review', {describe: marks.describe, render: render, stepActions: [{action: 'open-handoff', label: 'Open handoff',
    applies: function (row) { return row.handoffs.length > 0; }}],
  references: marks.references});
