/*
 * marks.js of `multiagent.handoff_review`: the pure rules (no DOM), shared by view.js in the page
 * and by the node tests (tests/js/type_cases.test.js runs cases.json against problems()).
 *
 * The stored value is the list [{index, step, from_step, step_ref?, from_step_ref?, from, to, explicit,
 * flags, quality, note?, bulk?, from_judgment?}] with one entry per handoff the annotator touched, or "" when
 * nothing is stored (from_judgment: the source of the judgment whose flags and quality were accepted).
 * Entries are matched to handoffs by identity (from_step, step, from, to), never by position; an
 * entry that matches no handoff (or repeats one) is kept and listed as having no card. The value
 * lives in a "book" (Map identity -> entry with running counts) so a click repaints one card.
 */
import {marks} from 'potato-multiagent';

marks('handoff_review', function (lib) {
  'use strict';

  var PAGE_SIZE = 20;   // cards a page: one open, the others a line each
  var SNIPPET_LENGTH = 160;
  var MAX_LISTED = 20;   // problems and card-less entries named one by one before "and N more"
  var FILTER_WORDS = {all: 'handoffs', unreviewed: 'unreviewed handoffs', flagged: 'flagged handoffs'};
  var UNREVIEWED_FIRST_ABOVE = 30;   // runs with more handoffs open on "unreviewed only"

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

  /** Every mark of a well-formed list that the trace or the config does not contain. */
  function traceProblems(entries, derivation, config) {
    var handoffs = handoffIndex(derivation).byKey;
    var firstPosition = new Map();
    var problems = [];
    entries.forEach(function (entry, position) {
      var where = '[' + position + ']';
      var key = identityKey(entry);
      var changed = changedSteps(where, entry, derivation);
      var found = changed.length ? changed
        : identityProblems(where, entry, handoffs.get(key), derivation.steps.length, firstPosition.get(key));
      Array.prototype.push.apply(problems, found.concat(configProblems(where, entry, config)));
      if (!firstPosition.has(key)) { firstPosition.set(key, position); }
    });
    return problems;
  }

  /** The entry's steps that changed since it was reviewed (their step references), as Python says
   * them; a handoff whose steps changed names no handoff of this trace. */
  function changedSteps(where, entry, derivation) {
    var found = [];
    ['from_step', 'step'].forEach(function (field) {
      var ref = entry[field + '_ref'];
      if (typeof ref === 'string') { found = found.concat(lib.stepProblems(where + '.' + field, entry[field], ref, derivation)); }
    });
    return found;
  }

  /**
   * The value's step references (docs/step-references.md): each entry's from_step and step, with
   * the identity it was saved with. set writes into `value` (the entry's index and explicit follow
   * the handoff it names then, when the derivation is given and has it); remove(copy) is the copy
   * without that entry.
   */
  function references(value, derivation) {
    if (!Array.isArray(value)) { return []; }
    var handoffs = derivation ? handoffIndex(derivation).byKey : null;
    var found = [];
    value.forEach(function (entry, k) {
      if (!entry || typeof entry !== 'object') { return; }
      ['from_step', 'step'].forEach(function (field) {
        if (typeof entry[field] !== 'number') { return; }
        found.push({key: identityKey(entry) + '\u0000' + field, field: '[' + k + '].' + field, index: entry[field],
          ref: entry[field + '_ref'],
          set: function (index, ref) {
            entry[field] = index;
            if (typeof ref === 'string') { entry[field + '_ref'] = ref; } else { delete entry[field + '_ref']; }
            var handoff = handoffs ? handoffs.get(identityKey(entry)) : null;
            if (handoff) { entry.index = handoff.index; entry.explicit = handoff.explicit; }
          },
          remove: function (copied) {
            copied.splice(k, 1);
            return copied.length ? copied : null;
          }});
      });
    });
    return found;
  }

  function identityProblems(where, entry, handoff, stepCount, earlierPosition) {
    var outOfRange = ['from_step', 'step'].filter(function (field) { return entry[field] >= stepCount; })
      .map(function (field) { return lib.notInTrace(where + '.' + field, entry[field]); });
    if (outOfRange.length) { return outOfRange; }
    if (!handoff) { return [lib.notInTrace(where, describeEntry(entry))]; }
    var problems = [];
    if (earlierPosition !== undefined) {
      problems.push(lib.problem('repeats_entry', {field: where, first: '[' + earlierPosition + ']'}));
    }
    if (entry.index !== handoff.index) {
      problems.push(lib.problem('not_as_in_trace', {field: where + '.index', expected: handoff.index, got: entry.index}));
    }
    if (entry.explicit !== handoff.explicit) {
      problems.push(lib.problem('not_as_in_trace', {field: where + '.explicit', expected: handoff.explicit,
        got: entry.explicit}));
    }
    return problems;
  }

  function configProblems(where, entry, config) {
    var problems = entry.flags.filter(function (flag) { return config.flags.indexOf(flag) < 0; })
      .map(function (flag) { return lib.problem('not_configured', {field: where + '.flags', value: flag, key: 'flags'}); });
    if (entry.quality !== null && entry.quality > config.quality_scale) {
      problems.push(lib.aboveBound(where + '.quality', entry.quality, config.quality_scale));
    }
    if (entry.note && !config.allow_note) {
      problems.push(lib.problem('notes_off', {field: where + '.note', key: 'allow_note'}));
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
      if (handoffs.has(key) && !book.byKey.has(key) && !changedSteps('', entry, derivation).length) {
        putEntry(book, key, entry);
      } else {
        book.orphans.push(entry);   // names no handoff of this trace, repeats one, or its steps changed
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
      ownReview(entry);
    });
  }

  function setQuality(book, handoff, config, quality) {
    return editEntry(book, handoff, config, function (entry) {
      entry.quality = quality;
      ownReview(entry);
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
      ownReview(entry);
    });
  }

  /** A hand edit of flags or quality: neither bulk nor a judgment's any more (a note edit keeps both). */
  function ownReview(entry) {
    delete entry.bulk;
    delete entry.from_judgment;
  }

  // -- judgments (docs/judgments.md): a judge's flags and quality per handoff, accepted in one click --

  /**
   * Handoff identity -> [{source, flags, quality}] from the record's judgments of scheme `name`,
   * keeping configured flags and a quality on the scale; an entry naming no handoff, or saying nothing, is left out.
   */
  function judgmentsByHandoff(record, config, name, derivation) {
    var handoffs = handoffIndex(derivation).byKey, byKey = new Map();
    lib.judgmentsOf(record, config, name, Array.isArray).forEach(function (judgment) {
      judgment.value.forEach(function (entry) {
        var key = entry && typeof entry === 'object' ? identityKey(entry) : null;
        if (!handoffs.has(key)) { return; }
        var flags = config.flags.filter(function (flag) { return Array.isArray(entry.flags) && entry.flags.indexOf(flag) >= 0; });
        var quality = Number.isInteger(entry.quality) && entry.quality >= 1 && entry.quality <= config.quality_scale
          ? entry.quality : null;
        if (!flags.length && quality === null) { return; }
        var note = typeof entry.note === 'string' ? entry.note : '';
        byKey.set(key, (byKey.get(key) || []).concat([{source: judgment.source, flags: flags, quality: quality, note: note}]));
      });
    });
    return byKey;
  }

  var JUDGMENT_NOTE_LENGTH = 120;

  /** "llm-judge: quality 2 of 5, flagged: info loss — 'lost the date'" (the judge's note shortened). */
  function judgmentText(judged, scale) {
    var note = lib.snippet(judged.note || '', JUDGMENT_NOTE_LENGTH);
    return judged.source + ': ' + marksText(judged, scale) + (/\S/.test(note) ? ' \u2014 \'' + note + '\'' : '');
  }

  /** Whether a card's judgments show now: 'always'; 'never'; 'after_answer' once the card is reviewed. */
  function judgmentsShown(config, entry) { return lib.judgmentsShown(config, isReviewed(entry)); }

  /** Copy a judge's flags and quality into the handoff's entry (the note stays), naming its source. */
  function acceptJudgment(book, handoff, config, judged) {
    return editEntry(book, handoff, config, function (entry) {
      Object.assign(entry, {flags: judged.flags.slice(), quality: judged.quality, from_judgment: judged.source});
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
   * The messages a card quotes (issue 15 item 3): the message that handed over (the latest step
   * before the handoff addressed to the receiver, e.g. Magentic-One's `Orchestrator (-> B)`
   * instruction, when it is not the giver's last message), the giver's last message and the
   * receiver's first. For an explicit handoff event the event itself (its context) comes first,
   * then the next step by any agent (null when the run ends).
   */
  function excerptSteps(handoff, steps) {
    if (handoff.explicit) {
      return [{part: 'before', heading: 'Handoff event', step: steps[handoff.step]},
        {part: 'after', heading: 'First message after', step: nextAgentStep(steps, handoff.step)}];
    }
    var parts = [];
    var instruction = handingOverStep(handoff, steps);
    if (instruction && instruction.index !== handoff.from_step) {
      parts.push({part: 'instruction', heading: 'Instruction to ' + handoff.to, step: instruction});
    }
    return parts.concat([{part: 'before', heading: 'Last message before', step: steps[handoff.from_step]},
      {part: 'after', heading: 'First message after', step: steps[handoff.step]}]);
  }

  /**
   * The step that handed over: the latest step before the handoff whose addressee is the receiver,
   * looking back no further than the receiver's previous turn (an older instruction was for that
   * turn); null when no step addressed the receiver.
   */
  function handingOverStep(handoff, steps) {
    for (var i = Math.min(handoff.step, steps.length) - 1; i >= 0; i--) {
      var step = steps[i];
      if (step.to === handoff.to) { return step; }
      if (step.agent === handoff.to && step.kind !== 'tool_result') { return null; }
    }
    return null;
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
    problems.slice(0, MAX_LISTED).forEach(function (found) { notices.push({level: 'warning', text: lib.words(found)}); });
    if (problems.length > MAX_LISTED) {
      notices.push({level: 'warning', text: 'and ' + (problems.length - MAX_LISTED) + ' more problems in the saved answer.'});
    }
    return notices;
  }

  /** The trace problems of a value as data ({code, ...parameters}), as Python's trace_problems
   * finds them (cases.json); lib.words says them. */
  function problems(value, derivation, config) {
    return Array.isArray(value) ? traceProblems(value, derivation, config) : [];
  }

  /** The handoff received at step `index` (its `step`; the trace view's 'open-handoff'), or null. */
  function handoffReceivedAt(derivation, index) {
    if (typeof index !== 'number') { return null; }
    for (var i = 0; i < derivation.handoffs.length; i++) {
      if (derivation.handoffs[i].step === index) { return derivation.handoffs[i]; }
    }
    return null;
  }

  /** The filter a run opens on: "unreviewed" when it has more than 30 handoffs, else "all". */
  function openingFilter(derivation) {
    return derivation.handoffs.length > UNREVIEWED_FIRST_ABOVE ? 'unreviewed' : 'all';
  }

  /**
   * What the runtime paints for a value (define's describe): the entries without a card go to the
   * runtime's stale list, each removable, and all at once.
   */
  function describe(value, ctx) {
    var entries = Array.isArray(value) ? value : [];
    var book = makeBook(entries, ctx.derivation);
    var total = ctx.derivation.handoffs.length;
    function without(orphans) {
      return composeValue(Object.assign({}, book, {orphans: orphans}), ctx.derivation);
    }
    return {
      summary: progressText(book, total),
      incomplete: incompleteReason(book, total),
      notices: noticesFor(traceProblems(entries, ctx.derivation, ctx.config), ctx.derivation, ctx.unreadable),
      stale: book.orphans.map(function (entry, position) {
        if (changedSteps('', entry, ctx.derivation).length) { return null; }   // listed by its step references below
        return {text: orphanText(entry, ctx.derivation, ctx.config.quality_scale),
          remove: without(book.orphans.filter(function (other, i) { return i !== position; }))};
      }).filter(Boolean).concat(lib.staleReferenceEntries(references, value, ctx.derivation)),
      removeAllStale: without([])
    };
  }

  /** What a judgment's value marks in the trace view: [[step, words]] per handoff (hostile input: checked). */
  function judgedSteps(value) {
    return (Array.isArray(value) ? value : []).filter(lib.isPlainObject).map(function (entry) {
      var flags = Array.isArray(entry.flags) ? entry.flags.filter(function (f) { return typeof f === 'string'; }) : [];
      return [entry.step, 'handoff' + (flags.length ? ' ' + flags.join(', ') : '') +
        (typeof entry.quality === 'number' ? ' quality ' + entry.quality : '')];
    });
  }

  return {
    judgedSteps: judgedSteps,
    PAGE_SIZE: PAGE_SIZE,
    SNIPPET_LENGTH: SNIPPET_LENGTH,
    MAX_LISTED: MAX_LISTED,
    FILTER_WORDS: FILTER_WORDS,
    identityKey: identityKey,
    flagLabel: flagLabel,
    handoffName: handoffName,
    describeEntry: describeEntry,
    isReviewed: isReviewed,
    isFlagged: isFlagged,
    isBulk: isBulk,
    traceProblems: traceProblems,
    references: references,
    problems: problems,
    makeBook: makeBook,
    toggleFlag: toggleFlag,
    setQuality: setQuality,
    setNote: setNote,
    clearReview: clearReview,
    markAllFine: markAllFine,
    undoBulk: undoBulk,
    composeValue: composeValue,
    judgmentsByHandoff: judgmentsByHandoff, judgmentText: judgmentText,
    judgmentsShown: judgmentsShown, acceptJudgment: acceptJudgment,
    filterIndices: filterIndices,
    openingFilter: openingFilter,
    handoffReceivedAt: handoffReceivedAt,
    jumpRefusal: jumpRefusal,
    excerptSteps: excerptSteps,
    handingOverStep: handingOverStep,
    excerptHeading: excerptHeading,
    entryStatus: entryStatus,
    progressText: progressText,
    incompleteReason: incompleteReason,
    orphanText: orphanText,
    noticesFor: noticesFor,
    describe: describe
  };
});
