/*
 * handoff_review.js: the `multiagent.handoff_review` widget.
 *
 * One card per derived handoff (speaker change, addressed message or explicit handoff event), each
 * a group named "Handoff K: FROM to TO" with the last message before and the first after, flag
 * toggles, a "Quality" radio group and an optional note. The stored value is the seed's list
 *     [{index, step, from_step, from, to, explicit, flags, quality, note?, bulk?}]
 * with one entry per handoff the annotator touched; "Mark all unreviewed handoffs as fine" adds an
 * explicit entry (quality = scale, no flags, "bulk": true) for every handoff left unreviewed.
 * Entries are matched to handoffs by identity (from_step, step, from, to), never by position; an
 * entry that matches no handoff (or repeats one) is kept and listed as having no card.
 *
 * Long runs: the cards are drawn a page (50) at a time, with a filter and "jump to handoff K".
 * The value lives in a Map identity -> entry with running counts, so a click repaints one card and
 * stores once, whatever the number of handoffs.
 *
 * Dependency-free UMD: in the page it registers itself with window.PotatoMultiagent; under
 * CommonJS it exports its pure helpers for node tests.
 */
(function (root, factory) {
  'use strict';
  var isCommonJS = typeof module === 'object' && module !== null && module.exports;
  var runtime = isCommonJS ? require('../../web/widget.js') : root && root.PotatoMultiagent;
  var api = factory(runtime);
  if (isCommonJS) {
    module.exports = api;
  } else if (runtime) {
    runtime.register(api.WIDGET, api.render);
  } else if (root && root.console) {
    root.console.error('handoff_review.js: widget.js did not load before it');
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (runtime) {
  'use strict';

  var WIDGET = 'handoff_review';
  var PAGE_SIZE = 50;
  var SNIPPET_LENGTH = 160;
  var TYPING_DELAY_MS = 300;
  var MAX_LISTED = 20;   // problems and card-less entries named one by one before "and N more"
  var ARROW_STEP = {ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1};
  var FILTER_WORDS = {all: 'handoffs', unreviewed: 'unreviewed handoffs', flagged: 'flagged handoffs'};
  var formSerial = 0;   // makes element ids unique when a page has several of these widgets

  // ---------------------------------------------------------------------------------------------
  // Identity and words (pure)
  // ---------------------------------------------------------------------------------------------

  /** One string per handoff identity (from_step, step, from, to), the same for a handoff and its entry. */
  function identityKey(item) {
    return JSON.stringify([item.from_step, item.step, item.from, item.to]);
  }

  /**
   * What the annotator reads for a flag name (as Python's flag_label): a snake_case identifier
   * reads as words ("info_loss" -> "info loss"); any other label is shown exactly as configured.
   */
  function flagLabel(flag) {
    flag = String(flag);
    return /^[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+$/.test(flag) ? flag.replace(/_/g, ' ') : flag;
  }

  /** "Handoff K: FROM to TO" (K = index + 1): the card's accessible name. */
  function handoffName(handoff) {
    return 'Handoff ' + (handoff.index + 1) + ': ' + handoff.from + ' to ' + handoff.to;
  }

  /** A stored entry's handoff in words, as Python's `described` (used in "not in this trace"). */
  function describeEntry(entry) {
    return entry.from + ' to ' + entry.to + ', from_step ' + entry.from_step + ', step ' + entry.step;
  }

  /** Reviewed = a quality or at least one flag; a note alone is not a review. */
  function isReviewed(entry) { return !!entry && (entry.quality !== null || entry.flags.length > 0); }
  function isFlagged(entry) { return !!entry && entry.flags.length > 0; }
  function isBulk(entry) { return !!entry && entry.bulk === true; }
  function isBlank(entry) { return !isReviewed(entry) && !entry.note; }

  var indexes = new WeakMap();   // derivation -> {keys, byKey}

  /** The derivation's handoffs by identity, built once per derivation: {keys[i], byKey: Map}. */
  function handoffIndex(derivation) {
    var index = indexes.get(derivation);
    if (!index) {
      index = {keys: [], byKey: new Map()};
      derivation.handoffs.forEach(function (handoff) {
        var key = identityKey(handoff);
        index.keys.push(key);
        index.byKey.set(key, handoff);
      });
      indexes.set(derivation, index);
    }
    return index;
  }

  // ---------------------------------------------------------------------------------------------
  // The stored value: read and validate (pure; messages equal Python's trace_problems)
  // ---------------------------------------------------------------------------------------------

  /** {entries, unreadable}: the checked list (null when nothing is stored) or why it cannot be read. */
  function readValue(got, config) {
    if (got.raw === '' || got.raw === null || got.raw === undefined) { return {entries: null, unreadable: null}; }
    var problems = got.error ? [got.error] : runtime.checkValue(got.value, config);
    if (problems.length) {
      return {entries: null, unreadable: 'The saved value could not be read: ' + problems.join('; ') +
        '. It is kept until you change a handoff.'};
    }
    return {entries: got.value, unreadable: null};
  }

  /** Every mark of a well-formed list that the trace or the config does not contain. */
  function traceProblems(entries, derivation, config) {
    var handoffs = handoffIndex(derivation).byKey;
    var firstPosition = new Map();
    var problems = [];
    entries.forEach(function (entry, position) {
      var where = '[' + position + ']';
      var key = identityKey(entry);
      var found = identityProblems(where, entry, handoffs.get(key), derivation.steps.length, firstPosition.get(key));
      Array.prototype.push.apply(problems, found.concat(configProblems(where, entry, config)));
      if (!firstPosition.has(key)) { firstPosition.set(key, position); }
    });
    return problems;
  }

  function identityProblems(where, entry, handoff, stepCount, earlierPosition) {
    var outOfRange = ['from_step', 'step'].filter(function (field) { return entry[field] >= stepCount; })
      .map(function (field) { return runtime.notInTrace(where + '.' + field, entry[field]); });
    if (outOfRange.length) { return outOfRange; }
    if (!handoff) { return [runtime.notInTrace(where, describeEntry(entry))]; }
    var problems = [];
    if (earlierPosition !== undefined) { problems.push(where + ': repeats the handoff of [' + earlierPosition + ']'); }
    if (entry.index !== handoff.index) {
      problems.push(where + '.index: should be ' + handoff.index + ' for this handoff, got ' + entry.index);
    }
    if (entry.explicit !== handoff.explicit) {
      problems.push(where + '.explicit: should be ' + handoff.explicit + ' for this handoff');
    }
    return problems;
  }

  function configProblems(where, entry, config) {
    var problems = entry.flags.filter(function (flag) { return config.flags.indexOf(flag) < 0; })
      .map(function (flag) { return where + ".flags: '" + flag + "' is not one of the configured flags"; });
    if (entry.quality !== null && entry.quality > config.quality_scale) {
      problems.push(runtime.aboveBound(where + '.quality', entry.quality, config.quality_scale));
    }
    if (entry.note && !config.allow_note) {
      problems.push(where + '.note: notes are turned off for this scheme (allow_note: false)');
    }
    return problems;
  }

  // ---------------------------------------------------------------------------------------------
  // The book: entries by handoff identity, with running counts (pure)
  // ---------------------------------------------------------------------------------------------

  /**
   * `byKey` maps a handoff's identity to its entry (the first stored entry naming it); `orphans`
   * keeps, in stored order, every entry that names no handoff of the trace or repeats an earlier
   * one. `reviewed`, `flagged` and `bulk` count the entries in `byKey`.
   */
  function makeBook(entries, derivation) {
    var handoffs = handoffIndex(derivation).byKey;
    var book = {byKey: new Map(), orphans: [], reviewed: 0, flagged: 0, bulk: 0};
    entries.forEach(function (entry) {
      var key = identityKey(entry);
      if (handoffs.has(key) && !book.byKey.has(key)) {
        putEntry(book, key, entry);
      } else {
        book.orphans.push(entry);
      }
    });
    return book;
  }

  /** Store (or, when blank, drop) the entry of one identity, keeping the counts right. */
  function putEntry(book, key, entry) {
    tally(book, book.byKey.get(key), -1);
    if (entry && !isBlank(entry)) {
      book.byKey.set(key, entry);
    } else {
      book.byKey.delete(key);
    }
    tally(book, book.byKey.get(key), 1);
  }

  function tally(book, entry, sign) {
    if (!entry) { return; }
    if (isReviewed(entry)) { book.reviewed += sign; }
    if (isFlagged(entry)) { book.flagged += sign; }
    if (isBulk(entry)) { book.bulk += sign; }
  }

  function blankEntry(handoff, config) {
    var entry = {index: handoff.index, step: handoff.step, from_step: handoff.from_step, from: handoff.from,
      to: handoff.to, explicit: handoff.explicit, flags: [], quality: null};
    if (config.allow_note) { entry.note = ''; }
    return entry;
  }

  /** Apply `change` to a copy of the handoff's entry (or a blank one) and store it; the result or null. */
  function editEntry(book, handoff, config, change) {
    var key = identityKey(handoff);
    var before = book.byKey.get(key);
    var entry = before ? Object.assign({}, before, {flags: before.flags.slice()}) : blankEntry(handoff, config);
    entry.index = handoff.index;
    entry.explicit = handoff.explicit;
    change(entry);
    putEntry(book, key, entry);
    return book.byKey.get(key) || null;
  }

  /** Configured flags in config order, then any others the entry holds, in their stored order. */
  function orderFlags(flags, configured) {
    return configured.filter(function (flag) { return flags.indexOf(flag) >= 0; })
      .concat(flags.filter(function (flag) { return configured.indexOf(flag) < 0; }));
  }

  function toggleFlag(book, handoff, config, flag) {
    return editEntry(book, handoff, config, function (entry) {
      var flags = entry.flags.indexOf(flag) < 0 ? entry.flags.concat([flag])
        : entry.flags.filter(function (other) { return other !== flag; });
      entry.flags = orderFlags(flags, config.flags);
      delete entry.bulk;
    });
  }

  function setQuality(book, handoff, config, quality) {
    return editEntry(book, handoff, config, function (entry) {
      entry.quality = quality;
      delete entry.bulk;
    });
  }

  function setNote(book, handoff, config, note) {
    return editEntry(book, handoff, config, function (entry) { entry.note = note; });
  }

  /** Forget flags and quality (a note stays). */
  function clearReview(book, handoff, config) {
    return editEntry(book, handoff, config, function (entry) {
      entry.flags = [];
      entry.quality = null;
      delete entry.bulk;
    });
  }

  /** Rate every unreviewed handoff quality = scale with no flags, marked bulk; how many were marked. */
  function markAllFine(book, derivation, config) {
    var marked = 0;
    derivation.handoffs.forEach(function (handoff) {
      if (isReviewed(book.byKey.get(identityKey(handoff)))) { return; }
      editEntry(book, handoff, config, function (entry) {
        entry.quality = config.quality_scale;
        entry.bulk = true;
      });
      marked += 1;
    });
    return marked;
  }

  /** Take back what markAllFine set on entries nobody has changed since; how many were undone. */
  function undoBulk(book, derivation, config) {
    var undone = 0;
    derivation.handoffs.forEach(function (handoff) {
      if (!isBulk(book.byKey.get(identityKey(handoff)))) { return; }
      clearReview(book, handoff, config);
      undone += 1;
    });
    return undone;
  }

  /** The list to store: entries in handoff order, then the card-less entries as they were stored. */
  function composeValue(book, derivation) {
    var list = [];
    handoffIndex(derivation).keys.forEach(function (key) {
      var entry = book.byKey.get(key);
      if (entry) { list.push(entry); }
    });
    return list.concat(book.orphans);
  }

  // ---------------------------------------------------------------------------------------------
  // Pages and filters (pure)
  // ---------------------------------------------------------------------------------------------

  /** Indices of the handoffs a filter ('all', 'unreviewed', 'flagged') shows, in trace order. */
  function filterIndices(book, derivation, filter) {
    var shown = [];
    handoffIndex(derivation).keys.forEach(function (key, index) {
      var entry = book.byKey.get(key);
      if (filter === 'all' || (filter === 'unreviewed' && !isReviewed(entry)) ||
          (filter === 'flagged' && isFlagged(entry))) {
        shown.push(index);
      }
    });
    return shown;
  }

  function pageCount(length) { return Math.max(1, Math.ceil(length / PAGE_SIZE)); }

  function pageSlice(list, page) { return list.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE); }

  /** "Page 2 of 5: 51-100 of 230 handoffs" (counts are of the list drawn, not live). */
  function pageText(length, page, filter) {
    var words = FILTER_WORDS[filter] || FILTER_WORDS.all;
    var head = 'Page ' + (page + 1) + ' of ' + pageCount(length) + ': ';
    if (length === 0) { return head + 'no ' + words; }
    var first = page * PAGE_SIZE + 1;
    var last = Math.min(length, (page + 1) * PAGE_SIZE);
    return head + first + '\u2013' + last + ' of ' + length + ' ' + words;
  }

  // ---------------------------------------------------------------------------------------------
  // What a card and the summary say (pure)
  // ---------------------------------------------------------------------------------------------

  /** Why "Jump to handoff" cannot go where asked. */
  function jumpRefusal(asked, total) {
    if (total === 0) { return 'This run has no handoffs.'; }
    var range = 'this run has handoffs 1 to ' + total + '.';
    return asked === '' ? 'Type a handoff number: ' + range : 'There is no handoff ' + asked + ': ' + range;
  }

  /**
   * The two messages a card quotes: before and after control moved. For an explicit handoff event
   * the event itself comes first, then the next step by any agent (null when the run ends).
   */
  function excerptSteps(handoff, steps) {
    if (!handoff.explicit) {
      return [{part: 'before', heading: 'Last message before', step: steps[handoff.from_step]},
        {part: 'after', heading: 'First message after', step: steps[handoff.step]}];
    }
    return [{part: 'before', heading: 'Handoff event', step: steps[handoff.step]},
      {part: 'after', heading: 'First message after', step: nextAgentStep(steps, handoff.step)}];
  }

  function nextAgentStep(steps, index) {
    for (var i = index + 1; i < steps.length; i++) {
      // a tool result is its caller's, but not a message by it; parallel threads are not "after"
      if (steps[i].agent !== null && steps[i].kind !== 'tool_result' &&
          (steps[i].thread || null) === (steps[index].thread || null)) { return steps[i]; }
    }
    return null;
  }

  /** "Last message before, #4 · Planner". */
  function excerptHeading(heading, step) {
    var agent = step.agent === null || step.agent === undefined ? 'no agent' : step.agent;
    return heading + ', #' + (step.index + 1) + ' \u00B7 ' + agent;
  }

  function qualityWords(quality, scale) {
    return quality > scale ? 'quality ' + quality + ' (outside 1..' + scale + ')' : 'quality ' + quality + ' of ' + scale;
  }

  /** The marks of an entry in words: "quality 4 of 5, flagged: info loss". */
  function marksText(entry, scale) {
    var quality = entry.quality === null ? 'no quality rating' : qualityWords(entry.quality, scale);
    return quality + ', ' + (entry.flags.length ? 'flagged: ' + entry.flags.map(flagLabel).join(', ') : 'no flags');
  }

  /** The card's status line, so that no state rests on colour or position. */
  function entryStatus(entry, scale) {
    if (!isReviewed(entry)) { return entry && entry.note ? 'Not reviewed yet (note written).' : 'Not reviewed yet.'; }
    return (isBulk(entry) ? 'Marked fine in bulk: ' : 'Reviewed: ') + marksText(entry, scale) + '.';
  }

  function progressText(book, total) {
    return book.reviewed + ' of ' + total + ' handoffs reviewed, ' + book.flagged + ' flagged.';
  }

  /** Potato's required check shows this (innerHTML): counts only, never trace text. */
  function incompleteReason(book, total) {
    return book.reviewed < total ? book.reviewed + ' of ' + total + ' handoffs reviewed' : null;
  }

  /** An entry without a card, in words: what it names, why it has no card, what it holds. */
  function orphanText(entry, derivation, scale) {
    var reason = handoffIndex(derivation).byKey.has(identityKey(entry))
      ? 'repeats an earlier saved review of this handoff' : 'not in this trace';
    return describeEntry(entry) + ' (' + reason + '): ' + marksText(entry, scale) + '.';
  }

  function noticesFor(problems, derivation, unreadable) {
    var notices = [];
    if (unreadable) { notices.push({level: 'warning', text: unreadable}); }
    (derivation.problems || []).forEach(function (problem) {
      if (problem && problem.code === 'steps_not_list') {
        notices.push({level: 'warning', text: 'This trace has no steps to review: ' + problem.message});
      }
    });
    problems.slice(0, MAX_LISTED).forEach(function (text) { notices.push({level: 'warning', text: text}); });
    if (problems.length > MAX_LISTED) {
      notices.push({level: 'warning', text: 'and ' + (problems.length - MAX_LISTED) + ' more problems in the saved answer.'});
    }
    return notices;
  }

  // ---------------------------------------------------------------------------------------------
  // DOM: the static parts (template) and the cards of one page
  // ---------------------------------------------------------------------------------------------

  var h = runtime.h;

  function createUi(el) {
    function part(name) {
      var node = el.querySelector('[data-ma-hr="' + name + '"]');
      if (!node) { throw new Error('the page lacks the "' + name + '" part of this question'); }
      return node;
    }
    var ui = {
      serial: ++formSerial,
      progress: part('progress'), filter: part('filter'), jump: part('jump'), jumpGo: part('jump-go'),
      bulk: part('bulk'), undoBulk: part('undo-bulk'), empty: part('empty'), cards: part('cards'),
      prev: part('prev'), next: part('next'), page: part('page'), orphans: part('orphans'),
      orphanList: part('orphan-list'), orphansRemoveAll: part('orphans-remove-all'),
      cardsByIndex: new Map(), visible: [], pageNumber: 0, filterName: 'all',
      book: null, derivation: null, ctx: null, unreadable: null
    };
    ui.typing = runtime.debounce(function () { commit(ui, null); }, TYPING_DELAY_MS);
    wire(ui);
    return ui;
  }

  function wire(ui) {
    ui.cards.addEventListener('click', function (event) { onCardClick(ui, event); });
    ui.cards.addEventListener('change', function (event) { onQualityChange(ui, event.target); });
    ui.cards.addEventListener('keydown', function (event) { onQualityArrow(ui, event); });
    ui.cards.addEventListener('input', function (event) { onNoteInput(ui, event.target); });
    ui.cards.addEventListener('focusout', function (event) {
      if (event.target.classList.contains('ma-hr-note')) { ui.typing.flush(); }
    });
    ui.filter.addEventListener('change', function () { showFilter(ui, ui.filter.value); });
    ui.jumpGo.addEventListener('click', function () { jumpTo(ui, ui.jump.value); });
    ui.jump.addEventListener('keydown', function (event) {
      if (event.key === 'Enter') {
        event.preventDefault();
        jumpTo(ui, ui.jump.value);
      }
    });
    ui.prev.addEventListener('click', function () { turnPage(ui, -1); });
    ui.next.addEventListener('click', function () { turnPage(ui, 1); });
    ui.bulk.addEventListener('click', function () { markAllAsFine(ui); });
    ui.undoBulk.addEventListener('click', function () { undoMarkAll(ui); });
    ui.orphanList.addEventListener('click', function (event) { onOrphanRemove(ui, event); });
    ui.orphansRemoveAll.addEventListener('click', function () { removeAllOrphans(ui); });
  }

  function buildCard(ui, handoff) {
    var config = ui.ctx.config;
    var idBase = 'ma-hr-' + ui.serial + '-' + handoff.index;
    var refs = {handoff: handoff, key: identityKey(handoff), flagButtons: new Map(), radios: [], note: null,
      extraFlags: h('span', {class: 'ma-hr-extra-flags'}), extraSignature: '[]', excerpts: {}};
    refs.status = h('p', {class: 'ma-hr-status'});
    refs.root = h('div', {class: 'ma-hr-card', role: 'group', 'aria-label': handoffName(handoff),
      'data-ma-handoff': handoff.index, tabindex: '-1'}, [
      cardTitle(handoff),
      kindLine(handoff),
      h('div', {class: 'ma-hr-excerpts'}, excerptSteps(handoff, ui.derivation.steps).map(function (part) {
        return excerptBlock(refs, part, idBase);
      })),
      flagGroup(refs, config),
      qualityGroup(refs, config, idBase),
      config.allow_note ? noteField(refs, idBase) : null,
      h('div', {class: 'ma-hr-actions'}, [
        h('button', {type: 'button', class: 'ma-hr-clear', 'data-ma-action': 'clear', 'data-ma-focus': 'clear',
          text: 'Clear review'})
      ]),
      refs.status
    ]);
    paintCard(ui, refs);
    return refs;
  }

  function cardTitle(handoff) {
    return h('h4', {class: 'ma-hr-title'}, [
      'Handoff ' + (handoff.index + 1) + ': ',
      h('span', {class: 'ma-hr-agent', text: handoff.from}),
      h('span', {class: 'ma-hr-arrow', 'aria-hidden': 'true', text: ' \u2192 '}),
      h('span', {class: 'ma-hr-sr-only', text: ' to '}),
      h('span', {class: 'ma-hr-agent', text: handoff.to})
    ]);
  }

  function kindLine(handoff) {
    if (handoff.explicit) {
      return h('p', {class: 'ma-hr-kind ma-hr-kind-explicit'}, [
        h('span', {class: 'ma-hr-badge', text: 'Explicit handoff event'}), ' at ', stepRef(handoff.step)]);
    }
    var from = stepRef(handoff.from_step);
    var to = stepRef(handoff.step);
    // threads of work (docs/derivation.md#threads): a thread started from another agent, or ended
    if (handoff.kind === 'delegation') {
      return h('p', {class: 'ma-hr-kind'}, ['Delegation: ', from, ' starts a thread of work at ', to]);
    }
    if (handoff.kind === 'return') {
      return h('p', {class: 'ma-hr-kind'}, ['Return: a thread of work ends at ', from, ', control is back at ', to]);
    }
    return h('p', {class: 'ma-hr-kind'}, ['Control passes from ', from, ' to ', to]);
  }

  /** "#N": a link into the trace view (docs/trace-view.md) when the page has one, else text. */
  function stepRef(index) {
    var text = '#' + (index + 1);
    if (!document.querySelector('section.ma-trace')) { return text; }
    return h('button', {type: 'button', class: 'ma-step-link', 'data-ma-step-link': String(index), text: text});
  }

  function excerptBlock(refs, part, idBase) {
    var step = part.step;
    if (!step) {
      return h('div', {class: 'ma-hr-excerpt'}, [
        h('p', {class: 'ma-hr-excerpt-head', text: part.heading}),
        h('p', {class: 'ma-hr-excerpt-text ma-hr-muted', text: 'No later message in this run.'})]);
    }
    var text = step.text;
    var short = runtime.snippet(text, SNIPPET_LENGTH);
    var view = {step: step, snippet: h('p', {class: 'ma-hr-excerpt-text', text: short || '(no text)'}),
      full: null, toggle: null};
    if (short !== text) {
      var fullId = idBase + '-' + part.part;
      view.full = h('div', {class: 'ma-hr-excerpt-full', id: fullId, hidden: true});
      view.toggle = h('button', {type: 'button', class: 'ma-hr-expand', 'aria-expanded': 'false',
        'aria-controls': fullId, 'data-ma-action': 'expand', 'data-ma-part': part.part,
        'data-ma-focus': 'expand:' + part.part, text: 'Show full message'});
    }
    refs.excerpts[part.part] = view;
    return h('div', {class: 'ma-hr-excerpt'}, [
      h('p', {class: 'ma-hr-excerpt-head', text: excerptHeading(part.heading, step)}),
      view.snippet, view.full, view.toggle]);
  }

  function flagButton(flag, label) {
    return h('button', {type: 'button', class: 'ma-hr-flag', 'aria-pressed': 'false', 'data-ma-action': 'flag',
      'data-ma-flag': flag, 'data-ma-focus': 'flag:' + flag}, [
      h('span', {class: 'ma-hr-check', 'aria-hidden': 'true'}), label]);
  }

  function flagGroup(refs, config) {
    var buttons = config.flags.map(function (flag) {
      var button = flagButton(flag, flagLabel(flag));
      refs.flagButtons.set(flag, button);
      return button;
    });
    return h('div', {class: 'ma-hr-flags', role: 'group', 'aria-label': 'Flags'}, [
      h('span', {class: 'ma-hr-group-label', 'aria-hidden': 'true', text: 'Flags'}), buttons, refs.extraFlags]);
  }

  function qualityGroup(refs, config, idBase) {
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

  function noteField(refs, idBase) {
    refs.note = h('textarea', {id: idBase + '-note', class: 'ma-hr-note', rows: '2', 'data-ma-focus': 'note'});
    return h('div', {class: 'ma-hr-note-field'}, [h('label', {for: idBase + '-note', text: 'Note'}), refs.note]);
  }

  /** Update one card's controls and words from the book (in place: focus and caret stay). */
  function paintCard(ui, refs) {
    var config = ui.ctx.config;
    var entry = ui.book.byKey.get(refs.key) || null;
    var flags = entry ? entry.flags : [];
    refs.flagButtons.forEach(function (button, flag) { paintToggle(button, flags.indexOf(flag) >= 0); });
    paintExtraFlags(refs, flags.filter(function (flag) { return config.flags.indexOf(flag) < 0; }));
    refs.radios.forEach(function (radio) {
      var checked = !!entry && entry.quality === Number(radio.value);
      if (radio.checked !== checked) { radio.checked = checked; }
    });
    if (refs.note) {
      var note = entry && entry.note ? entry.note : '';
      if (refs.note.value !== note) { refs.note.value = note; }
    }
    refs.status.textContent = entryStatus(entry, config.quality_scale);
    refs.root.classList.toggle('ma-hr-reviewed', isReviewed(entry));
    refs.root.classList.toggle('ma-hr-flagged', isFlagged(entry));
  }

  function paintToggle(button, pressed) {
    button.setAttribute('aria-pressed', pressed ? 'true' : 'false');
    button.firstChild.textContent = pressed ? '\u2713' : '';
  }

  /** Stored flags the config lacks get a pressed toggle of their own, so they can be removed. */
  function paintExtraFlags(refs, unknown) {
    var signature = JSON.stringify(unknown);
    if (signature === refs.extraSignature) { return; }
    refs.extraSignature = signature;
    runtime.clear(refs.extraFlags);
    unknown.forEach(function (flag) {
      var button = flagButton(flag, flagLabel(flag) + ' (not a configured flag)');
      paintToggle(button, true);
      refs.extraFlags.appendChild(button);
    });
  }

  /** Draw the current page of the current filter's list, one DocumentFragment. */
  function drawPage(ui) {
    var pages = pageCount(ui.visible.length);
    ui.pageNumber = Math.min(Math.max(ui.pageNumber, 0), pages - 1);
    var fragment = document.createDocumentFragment();
    ui.cardsByIndex = new Map();
    pageSlice(ui.visible, ui.pageNumber).forEach(function (index) {
      var refs = buildCard(ui, ui.derivation.handoffs[index]);
      ui.cardsByIndex.set(index, refs);
      fragment.appendChild(refs.root);
    });
    runtime.clear(ui.cards);
    ui.cards.appendChild(fragment);
    ui.page.textContent = pageText(ui.visible.length, ui.pageNumber, ui.filterName);
    ui.prev.setAttribute('aria-disabled', ui.pageNumber > 0 ? 'false' : 'true');
    ui.next.setAttribute('aria-disabled', ui.pageNumber < pages - 1 ? 'false' : 'true');
    paintEmpty(ui);
  }

  function paintEmpty(ui) {
    var total = ui.derivation.handoffs.length;
    var text = '';
    if (total === 0) {
      text = 'No handoffs in this run: nothing to review. If this question is required, press ' +
        '\u201CMark all unreviewed handoffs as fine\u201D to record that.';
    } else if (ui.visible.length === 0) {
      text = 'No ' + FILTER_WORDS[ui.filterName] + ' right now. Choose \u201CAll handoffs\u201D to see every handoff.';
    }
    ui.empty.textContent = text;
    ui.empty.hidden = text === '';
  }

  function paintOrphans(ui) {
    var orphans = ui.book.orphans;
    var scale = ui.ctx.config.quality_scale;
    ui.orphans.hidden = orphans.length === 0;
    runtime.clear(ui.orphanList);
    orphans.slice(0, MAX_LISTED).forEach(function (entry, position) {
      var text = orphanText(entry, ui.derivation, scale);
      ui.orphanList.appendChild(h('li', {class: 'ma-hr-orphan'}, [
        h('span', {text: text}), ' ',
        h('button', {type: 'button', 'data-ma-orphan': position, 'aria-label': 'Remove saved review: ' + text,
          text: 'Remove'})]));
    });
    if (orphans.length > MAX_LISTED) {
      ui.orphanList.appendChild(h('li', {class: 'ma-hr-orphan',
        text: 'and ' + (orphans.length - MAX_LISTED) + ' more.'}));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Actions
  // ---------------------------------------------------------------------------------------------

  function refsOf(ui, node) {
    var card = node.closest('[data-ma-handoff]');
    return card ? ui.cardsByIndex.get(Number(card.getAttribute('data-ma-handoff'))) || null : null;
  }

  function onCardClick(ui, event) {
    var button = event.target.closest('button[data-ma-action]');
    var refs = button && refsOf(ui, button);
    if (!refs) { return; }
    var config = ui.ctx.config;
    var name = handoffName(refs.handoff);
    var action = button.getAttribute('data-ma-action');
    if (action === 'expand') {
      toggleExcerpt(refs.excerpts[button.getAttribute('data-ma-part')]);
    } else if (action === 'flag') {
      var flag = button.getAttribute('data-ma-flag');
      var entry = toggleFlag(ui.book, refs.handoff, config, flag);
      var on = !!entry && entry.flags.indexOf(flag) >= 0;
      afterEdit(ui, refs, name + ': ' + flagLabel(flag) + (on ? ' flagged.' : ' no longer flagged.'));
    } else if (action === 'clear') {
      clearReview(ui.book, refs.handoff, config);
      afterEdit(ui, refs, name + ': review cleared.');
    }
  }

  function toggleExcerpt(view) {
    var open = view.toggle.getAttribute('aria-expanded') !== 'true';
    if (open && !view.full.firstChild) { view.full.textContent = view.step.text; }
    view.full.hidden = !open;
    view.snippet.hidden = open;
    view.toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    view.toggle.textContent = open ? 'Show less' : 'Show full message';
  }

  function onQualityChange(ui, target) {
    if (!target.classList.contains('ma-hr-q') || !target.checked) { return; }
    chooseQuality(ui, refsOf(ui, target), Number(target.value));
  }

  /** All four arrows move within the card's Quality group (and never reach Potato's Prev/Next). */
  function onQualityArrow(ui, event) {
    var step = ARROW_STEP[event.key];
    if (!step || !event.target.classList.contains('ma-hr-q')) { return; }
    event.preventDefault();
    event.stopPropagation();
    var refs = refsOf(ui, event.target);
    var radios = refs.radios;
    var next = radios[(radios.indexOf(event.target) + step + radios.length) % radios.length];
    next.checked = true;
    next.focus();
    chooseQuality(ui, refs, Number(next.value));
  }

  function chooseQuality(ui, refs, quality) {
    setQuality(ui.book, refs.handoff, ui.ctx.config, quality);
    afterEdit(ui, refs, handoffName(refs.handoff) + ': quality ' + quality + ' of ' + ui.ctx.config.quality_scale + '.');
  }

  function onNoteInput(ui, target) {
    if (!target.classList.contains('ma-hr-note')) { return; }
    var refs = refsOf(ui, target);
    setNote(ui.book, refs.handoff, ui.ctx.config, target.value);
    paintCard(ui, refs);
    ui.typing();
  }

  function afterEdit(ui, refs, words) {
    paintCard(ui, refs);
    keepFocusIn(refs.root);
    commit(ui, words);
  }

  /** A control that vanished under the focus (an unknown flag switched off) hands focus to the card's first. */
  function keepFocusIn(container) {
    var active = document.activeElement;
    if (active && active !== document.body && active.isConnected) { return; }
    var first = container.querySelector('[data-ma-focus]');
    if (first) { first.focus(); }
  }

  function showFilter(ui, filter) {
    ui.filterName = FILTER_WORDS[filter] ? filter : 'all';
    ui.visible = filterIndices(ui.book, ui.derivation, ui.filterName);
    ui.pageNumber = 0;
    drawPage(ui);
    ui.ctx.model.announce(ui.page.textContent + '.');
  }

  function turnPage(ui, delta) {
    var target = ui.pageNumber + delta;
    if (target < 0 || target >= pageCount(ui.visible.length)) { return; }
    ui.pageNumber = target;
    drawPage(ui);
    focusFirstCard(ui);
    ui.ctx.model.announce(ui.page.textContent + '.');
  }

  function focusFirstCard(ui) {
    var first = ui.cards.firstChild;
    if (first) { first.focus(); }
  }

  function jumpTo(ui, raw) {
    var total = ui.derivation.handoffs.length;
    var number = Number(raw);
    if (!(Number.isInteger(number) && number >= 1 && number <= total)) {
      ui.jump.setAttribute('aria-invalid', 'true');
      ui.ctx.model.announce(jumpRefusal(String(raw).trim(), total));
      return;
    }
    ui.jump.removeAttribute('aria-invalid');
    var index = number - 1;
    var position = ui.visible.indexOf(index);
    if (position < 0) {   // not in the current filter: show every handoff
      ui.filter.value = 'all';
      ui.filterName = 'all';
      ui.visible = filterIndices(ui.book, ui.derivation, 'all');
      position = index;
    }
    ui.pageNumber = Math.floor(position / PAGE_SIZE);
    drawPage(ui);
    ui.cardsByIndex.get(index).root.focus();
    ui.ctx.model.announce('Showing ' + handoffName(ui.derivation.handoffs[index]) + '.');
  }

  function markAllAsFine(ui) {
    var config = ui.ctx.config;
    var marked = markAllFine(ui.book, ui.derivation, config);
    ui.cardsByIndex.forEach(function (refs) { paintCard(ui, refs); });
    var total = ui.derivation.handoffs.length;
    var words = total === 0 ? 'This run has no handoffs; recorded that there was nothing to review.'
      : (marked === 0 ? 'Every handoff was already reviewed; nothing was marked.'
        : 'Marked ' + marked + ' unreviewed handoff' + (marked === 1 ? '' : 's') + ' as fine: quality ' +
          config.quality_scale + ' of ' + config.quality_scale + ', no flags.');
    commit(ui, words, total === 0);
  }

  function undoMarkAll(ui) {
    var undone = undoBulk(ui.book, ui.derivation, ui.ctx.config);
    ui.cardsByIndex.forEach(function (refs) { paintCard(ui, refs); });
    commit(ui, 'Took back \u201Cfine\u201D from ' + undone + ' handoff' + (undone === 1 ? '' : 's') + ' marked in bulk.');
    ui.bulk.focus();   // the Undo button hides itself
  }

  function onOrphanRemove(ui, event) {
    var button = event.target.closest('button[data-ma-orphan]');
    if (!button) { return; }
    var position = Number(button.getAttribute('data-ma-orphan'));
    var removed = ui.book.orphans.splice(position, 1)[0];
    paintOrphans(ui);
    commit(ui, 'Removed the saved review of ' + describeEntry(removed) + '.');
    var buttons = ui.orphanList.querySelectorAll('button[data-ma-orphan]');
    var successor = buttons[Math.min(position, buttons.length - 1)];
    (successor || ui.bulk).focus();
  }

  function removeAllOrphans(ui) {
    var count = ui.book.orphans.length;
    ui.book.orphans = [];
    paintOrphans(ui);
    commit(ui, 'Removed ' + count + ' saved review' + (count === 1 ? '' : 's') + ' without a card.');
    ui.bulk.focus();
  }

  // ---------------------------------------------------------------------------------------------
  // Store and describe
  // ---------------------------------------------------------------------------------------------

  /** Store the book (one model.set), then words, notices and completeness. `keepEmpty` stores [] not "". */
  function commit(ui, words, keepEmpty) {
    ui.typing.cancel();
    var list = composeValue(ui.book, ui.derivation);
    ui.unreadable = null;
    ui.ctx.model.set(list.length || keepEmpty ? list : null);
    describeState(ui, list, words);
  }

  function describeState(ui, entries, words) {
    var ctx = ui.ctx;
    var total = ui.derivation.handoffs.length;
    var progress = progressText(ui.book, total);
    ctx.setNotices(noticesFor(traceProblems(entries, ui.derivation, ctx.config), ui.derivation, ui.unreadable));
    ctx.model.setIncomplete(incompleteReason(ui.book, total));
    ui.progress.textContent = progress;
    ui.undoBulk.hidden = ui.book.bulk === 0;
    ctx.model.announce(words ? words + ' ' + progress : progress);
  }

  // ---------------------------------------------------------------------------------------------
  // Render (called by the runtime on load and on every potato:instance-ready)
  // ---------------------------------------------------------------------------------------------

  function render(ctx) {
    var ui = ctx.state.ui || (ctx.state.ui = createUi(ctx.el));
    if (ui.ctx) { ui.typing.flush(); }   // a note typed just before this re-render is stored first
    ui.ctx = ctx;
    var stored = readValue(ctx.model.get(), ctx.config);
    ui.unreadable = stored.unreadable;
    var entries = stored.entries || [];
    ui.book = makeBook(entries, ctx.derivation);
    if (ui.derivation !== ctx.derivation) {
      ui.derivation = ctx.derivation;
      ui.jump.setAttribute('max', String(Math.max(1, ctx.derivation.handoffs.length)));
      ui.filter.value = 'all';
      ui.filterName = 'all';
      ui.visible = filterIndices(ui.book, ui.derivation, 'all');
      ui.pageNumber = 0;
      drawPage(ui);
    } else {
      ui.cardsByIndex.forEach(function (refs) { paintCard(ui, refs); });
    }
    paintOrphans(ui);
    describeState(ui, entries, null);
  }

  return {
    WIDGET: WIDGET,
    PAGE_SIZE: PAGE_SIZE,
    render: render,
    identityKey: identityKey,
    flagLabel: flagLabel,
    handoffName: handoffName,
    describeEntry: describeEntry,
    isReviewed: isReviewed,
    readValue: readValue,
    traceProblems: traceProblems,
    makeBook: makeBook,
    toggleFlag: toggleFlag,
    setQuality: setQuality,
    setNote: setNote,
    clearReview: clearReview,
    markAllFine: markAllFine,
    undoBulk: undoBulk,
    composeValue: composeValue,
    filterIndices: filterIndices,
    pageCount: pageCount,
    pageSlice: pageSlice,
    pageText: pageText,
    jumpRefusal: jumpRefusal,
    excerptSteps: excerptSteps,
    excerptHeading: excerptHeading,
    entryStatus: entryStatus,
    progressText: progressText,
    incompleteReason: incompleteReason,
    orphanText: orphanText,
    noticesFor: noticesFor
  };
}));
