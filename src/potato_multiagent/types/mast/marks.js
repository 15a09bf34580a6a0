/*
 * marks.js of `multiagent.mast`: the pure rules (no DOM) of failure-mode tags, shared by view.js
 * (the form), the trace view's chips (trace.js) and the node tests
 * (tests/js/type_cases.test.js runs cases.json against problems()).
 *
 * The stored value (scheme.py says it in full):
 *   {"taxonomy": "mast@8c7d8a52",
 *    "steps": [{"step": 3, "mode": "1.3", "note": "", "severity": "major"[, "step_ref", "from_judgment"]}],
 *    "run":   [{"mode": "2.4", "note": ""[, "severity", "from_judgment"]}],
 *    "none_found": false}
 * A mode is tagged on a step (steps) or marked for the whole run without a step (run); the run's
 * modes are both together. The taxonomy is the scheme's (config.modes, sent by the server; a config
 * written for the tests may give it inline as config.taxonomy with a name and a version).
 */
import {marks} from 'potato-multiagent';

marks('mast', function (lib) {
  'use strict';

  var NOTE_SNIPPET = 120;

  // -- the taxonomy --------------------------------------------------------------------------

  /** {id, source, categories: [{name, modes}], modes: [mode], byCode} of a scheme's config. */
  function taxonomyOf(config) {
    var given = config && config.modes;
    if (!given || typeof given !== 'object') { given = inlineTaxonomy(config && config.taxonomy); }
    var categories = Array.isArray(given.categories) ? given.categories : [];
    var modes = [];
    var byCode = Object.create(null);
    categories.forEach(function (category) {
      (category.modes || []).forEach(function (mode) {
        var entry = {category: category.name, code: String(mode.code), name: String(mode.name),
          definition: String(mode.definition || ''), example: String(mode.example || '')};
        entry.label = entry.code + ' ' + entry.name;
        modes.push(entry);
        byCode[entry.code] = entry;
      });
    });
    return {id: String(given.id || ''), source: String(given.source || ''), categories: categories.map(function (c) {
      return {name: c.name, modes: (c.modes || []).map(function (m) { return byCode[String(m.code)]; })};
    }), modes: modes, byCode: byCode};
  }

  /** A taxonomy written inline in the config ({name, version, modes: [{category, code, ...}]}). */
  function inlineTaxonomy(taxonomy) {
    if (!taxonomy || typeof taxonomy !== 'object' || !Array.isArray(taxonomy.modes)) { return {categories: []}; }
    var categories = [];
    var at = Object.create(null);
    taxonomy.modes.forEach(function (mode) {
      if (!(mode.category in at)) { at[mode.category] = categories.length; categories.push({name: mode.category, modes: []}); }
      categories[at[mode.category]].modes.push(mode);
    });
    return {id: taxonomy.name + '@' + taxonomy.version, source: taxonomy.source || '', categories: categories};
  }

  function modeLabel(taxonomy, code) {
    var mode = taxonomy.byCode[code];
    return mode ? mode.label : code;
  }

  /** The modes whose code, name or definition holds every word of `query` (case ignored). */
  function searchModes(taxonomy, query) {
    var words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
    return taxonomy.modes.filter(function (mode) {
      var haystack = (mode.label + ' ' + mode.category + ' ' + mode.definition + ' ' + mode.example).toLowerCase();
      return words.every(function (word) { return haystack.indexOf(word) >= 0; });
    });
  }

  // -- reading a value -----------------------------------------------------------------------

  function stepTags(value) { return value && Array.isArray(value.steps) ? value.steps : []; }
  function runTags(value) { return value && Array.isArray(value.run) ? value.run : []; }

  function hasTags(value) { return stepTags(value).length > 0 || runTags(value).length > 0; }

  /** The value's taxonomy is not the scheme's: its tags are another taxonomy's, never read as this one's. */
  function otherTaxonomy(value, taxonomy) {
    return !!value && value.taxonomy !== taxonomy.id;
  }

  /** The codes tagged on step `index`, in the value's order. */
  function modesOnStep(value, index) {
    return stepTags(value).filter(function (tag) { return tag.step === index; }).map(function (tag) { return tag.mode; });
  }

  function stepTag(value, index, code) {
    var tags = stepTags(value);
    for (var i = 0; i < tags.length; i++) { if (tags[i].step === index && tags[i].mode === code) { return tags[i]; } }
    return null;
  }

  function runTag(value, code) {
    var tags = runTags(value);
    for (var i = 0; i < tags.length; i++) { if (tags[i].mode === code) { return tags[i]; } }
    return null;
  }

  /** The run's modes in taxonomy order: [{mode, steps: [index...], whole: runTag|null}]. */
  function runModes(value, taxonomy) {
    var found = Object.create(null);
    stepTags(value).forEach(function (tag) {
      var entry = found[tag.mode] || (found[tag.mode] = {code: tag.mode, steps: [], whole: null});
      if (entry.steps.indexOf(tag.step) < 0) { entry.steps.push(tag.step); }
    });
    runTags(value).forEach(function (tag) {
      var entry = found[tag.mode] || (found[tag.mode] = {code: tag.mode, steps: [], whole: null});
      entry.whole = tag;
    });
    var ordered = taxonomy.modes.filter(function (mode) { return mode.code in found; }).map(function (mode) {
      return found[mode.code];
    });
    Object.keys(found).forEach(function (code) { if (!(code in taxonomy.byCode)) { ordered.push(found[code]); } });
    ordered.forEach(function (entry) { entry.steps.sort(function (a, b) { return a - b; }); });
    return ordered;
  }

  // -- composing a value (each returns a new value; the input is never changed) ------------------

  function base(value, taxonomy) {
    var next = {taxonomy: value && typeof value.taxonomy === 'string' ? value.taxonomy : taxonomy.id,
      steps: stepTags(value).map(copy), run: runTags(value).map(copy)};
    if (value && value.none_found === true && !next.steps.length && !next.run.length) { next.none_found = true; }
    return next;
  }

  function copy(tag) {
    var out = {};
    Object.keys(tag).forEach(function (key) { out[key] = tag[key]; });
    return out;
  }

  function tidy(next) {
    if (next.steps.length || next.run.length) { delete next.none_found; }
    return next;
  }

  /** Tag step `index` with `code`, or take the tag off when it is there. */
  function toggleStepTag(value, config, index, code) {
    var taxonomy = taxonomyOf(config);
    var next = base(value, taxonomy);
    var at = -1;
    next.steps.forEach(function (tag, i) { if (tag.step === index && tag.mode === code) { at = i; } });
    if (at >= 0) {
      next.steps.splice(at, 1);
    } else {
      next.steps.push({step: index, mode: code, note: '', severity: null});
      next.steps.sort(byStepThenTaxonomy(taxonomy));
    }
    return tidy(next);
  }

  function byStepThenTaxonomy(taxonomy) {
    var order = Object.create(null);
    taxonomy.modes.forEach(function (mode, i) { order[mode.code] = i; });
    return function (a, b) {
      if (a.step !== b.step) { return a.step - b.step; }
      return (a.mode in order ? order[a.mode] : 1e9) - (b.mode in order ? order[b.mode] : 1e9);
    };
  }

  /** Mark `code` for the whole run (on) or take the mark off. */
  function setRunMark(value, config, code, on) {
    var taxonomy = taxonomyOf(config);
    var next = base(value, taxonomy);
    next.run = next.run.filter(function (tag) { return tag.mode !== code; });
    if (on) {
      next.run.push({mode: code, note: '', severity: null});
      var order = taxonomy.modes.map(function (mode) { return mode.code; });
      next.run.sort(function (a, b) { return order.indexOf(a.mode) - order.indexOf(b.mode); });
    }
    return tidy(next);
  }

  /**
   * Set a tag's note or severity: `where` is {step, mode} for a step tag, {mode} for a whole-run
   * mark. A hand edit of the tag keeps its from_judgment (the mode was accepted; the words are the
   * annotator's own).
   */
  function setDetail(value, config, where, field, text) {
    var next = base(value, taxonomyOf(config));
    var list = typeof where.step === 'number' ? next.steps : next.run;
    list.forEach(function (tag) {
      if (tag.mode === where.mode && (typeof where.step !== 'number' || tag.step === where.step)) {
        tag[field] = field === 'severity' ? (text === '' ? null : text) : text;
      }
    });
    return next;
  }

  function setNoneFound(value, config, on) {
    var next = base(value, taxonomyOf(config));
    if (on) { next.none_found = true; } else { delete next.none_found; }
    return tidy(next);
  }

  /**
   * Take a judgment's tag: `tag` is {step, mode, note, severity} (step null for a whole-run mark).
   * The tag is added (or the annotator's own is kept) with from_judgment: source; the judgment's
   * note and severity fill the annotator's where they are empty.
   */
  function acceptJudgment(value, config, source, tag) {
    var taxonomy = taxonomyOf(config);
    var next = base(value, taxonomy);
    var whole = tag.step === null || tag.step === undefined;
    var list = whole ? next.run : next.steps;
    var mine = null;
    list.forEach(function (entry) { if (entry.mode === tag.mode && (whole || entry.step === tag.step)) { mine = entry; } });
    if (!mine) {
      mine = whole ? {mode: tag.mode, note: '', severity: null} : {step: tag.step, mode: tag.mode, note: '', severity: null};
      list.push(mine);
      if (whole) {
        var order = taxonomy.modes.map(function (mode) { return mode.code; });
        next.run.sort(function (a, b) { return order.indexOf(a.mode) - order.indexOf(b.mode); });
      } else {
        next.steps.sort(byStepThenTaxonomy(taxonomy));
      }
    }
    if (!mine.note && tag.note && config.allow_note !== false) { mine.note = tag.note; }
    if (mine.severity === null && tag.severity && config.allow_severity !== false && severities(config).indexOf(tag.severity) >= 0) {
      mine.severity = tag.severity;
    }
    mine.from_judgment = source;
    return tidy(next);
  }

  /** Identity of a list entry for the two-tab merge: a step tag by step and mode, a mark by mode. */
  function entryKey(entry) {
    if (entry && typeof entry === 'object' && typeof entry.mode === 'string') {
      return (typeof entry.step === 'number' ? 'step ' + entry.step + ' ' : 'run ') + entry.mode;
    }
    return lib.entryKey(entry);
  }

  // -- judgments -------------------------------------------------------------------------------

  /**
   * The judgments the record carries for this scheme, in this scheme's taxonomy: [{source, steps:
   * [{step, mode, note, severity}], run: [{step: null, mode, note, severity}]}]. A judgment under
   * another taxonomy, and entries of the wrong shape, are left out.
   */
  function judgmentsFor(record, config, schemaName) {
    var taxonomy = taxonomyOf(config);
    return lib.judgmentsOf(record, config, schemaName, function (value) {
      return typeof value === 'object' && !Array.isArray(value) && value.taxonomy === taxonomy.id;
    }).map(function (judgment) {
      function tagOf(entry, step) {
        return {step: step, mode: entry.mode, note: typeof entry.note === 'string' ? entry.note : '',
          severity: typeof entry.severity === 'string' ? entry.severity : null};
      }
      var steps = stepTags(judgment.value).filter(function (entry) {
        return entry && typeof entry.mode === 'string' && typeof entry.step === 'number' && entry.step >= 0 &&
          Math.floor(entry.step) === entry.step;
      }).map(function (entry) { return tagOf(entry, entry.step); });
      var run = runTags(judgment.value).filter(function (entry) { return entry && typeof entry.mode === 'string'; })
        .map(function (entry) { return tagOf(entry, null); });
      return {source: judgment.source, steps: steps, run: run};
    });
  }

  /** The judgments' tags on step `index`: [{source, tag}]. */
  function judgedOnStep(judgments, index) {
    var found = [];
    judgments.forEach(function (judgment) {
      judgment.steps.forEach(function (tag) { if (tag.step === index) { found.push({source: judgment.source, tag: tag}); } });
    });
    return found;
  }

  /** Whether every one of two or more sources gave this tag (in adjudication: the annotators agree). */
  function agreedByAll(judgments, tag) {
    if (judgments.length < 2) { return false; }
    return judgments.every(function (judgment) {
      var list = tag.step === null ? judgment.run : judgment.steps;
      return list.some(function (other) { return other.mode === tag.mode && (tag.step === null || other.step === tag.step); });
    });
  }

  /** Judgments show per show_judgments; after_answer once the annotator tagged or found none. */
  function judgmentsShown(config, value) {
    return lib.judgmentsShown(config, hasTags(value) || !!(value && value.none_found));
  }

  /** "llm-judge: 1.3 Step repetition (major) — 'runs the tests again'". */
  function judgmentWords(taxonomy, source, tag) {
    var words = source + ': ' + modeLabel(taxonomy, tag.mode) + (tag.severity ? ' (' + tag.severity + ')' : '');
    var note = lib.snippet(tag.note, NOTE_SNIPPET);
    return /\S/.test(note) ? words + ' \u2014 \u2018' + note + '\u2019' : words;
  }

  // -- problems and what the runtime paints ---------------------------------------------------------

  function severities(config) { return Array.isArray(config.severities) ? config.severities : ['minor', 'major', 'critical']; }

  function detailProblems(where, tag, config) {
    var found = [];
    if (tag.severity !== null && tag.severity !== undefined && config.allow_severity === false) {
      found.push(lib.problem('severity_off', {field: where + '.severity'}));
    } else if (tag.severity !== null && tag.severity !== undefined && severities(config).indexOf(tag.severity) < 0) {
      found.push(lib.problem('not_configured', {field: where + '.severity', value: tag.severity, key: 'severities'}));
    }
    if (tag.note && config.allow_note === false) { found.push(lib.problem('notes_off', {field: where + '.note', key: 'allow_note'})); }
    return found;
  }

  /** The trace problems of a value as data ({code, ...parameters}), as Python's trace_problems
   * finds them (cases.json); lib.words says them. */
  function problems(value, derivation, config) {
    var taxonomy = taxonomyOf(config);
    if (value.taxonomy !== taxonomy.id) { return [lib.problem('other_taxonomy', {got: value.taxonomy, want: taxonomy.id})]; }
    var found = [];
    var firstTag = Object.create(null);
    stepTags(value).forEach(function (tag, position) {
      var where = 'steps[' + position + ']';
      found = found.concat(lib.stepProblems(where + '.step', tag.step, tag.step_ref, derivation));
      if (!(tag.mode in taxonomy.byCode)) { found.push(lib.problem('unknown_mode', {field: where + '.mode', value: tag.mode, taxonomy: taxonomy.id})); }
      var key = tag.step + '\u0000' + tag.mode;
      if (key in firstTag) { found.push(lib.problem('repeats_entry', {field: where, first: 'steps[' + firstTag[key] + ']'})); } else { firstTag[key] = position; }
      found = found.concat(detailProblems(where, tag, config));
    });
    if (runTags(value).length && config.whole_run === false) { found.push(lib.problem('run_off')); }
    var firstMode = Object.create(null);
    runTags(value).forEach(function (tag, position) {
      var where = 'run[' + position + ']';
      if (!(tag.mode in taxonomy.byCode)) { found.push(lib.problem('unknown_mode', {field: where + '.mode', value: tag.mode, taxonomy: taxonomy.id})); }
      if (tag.mode in firstMode) { found.push(lib.problem('repeats_entry', {field: where, first: 'run[' + firstMode[tag.mode] + ']'})); } else { firstMode[tag.mode] = position; }
      found = found.concat(detailProblems(where, tag, config));
    });
    if (value.none_found === true && hasTags(value)) { found.push(lib.problem('none_with_tags')); }
    return found;
  }

  /** "#4 1.3 Step repetition" for a step tag, "whole run: 2.4 Information withholding" for a mark. */
  function tagWords(taxonomy, tag) {
    return (typeof tag.step === 'number' ? '#' + (tag.step + 1) + ' ' : 'whole run: ') + modeLabel(taxonomy, tag.mode);
  }

  /**
   * The value's step references (docs/step-references.md): each step tag's step with the identity
   * it was saved with. set writes into `value`; remove(copy) is the copy without that tag.
   */
  function references(value) {
    return stepTags(value).map(function (tag, position) {
      return {key: 'steps:' + tag.mode, field: 'steps[' + position + '].step', index: tag.step, ref: tag.step_ref,
        set: function (index, ref) { tag.step = index; tag.step_ref = ref; },
        remove: function (copy) { return withoutTag(copy, copy.steps[position]); }};
    });
  }

  /** Tags the trace or the taxonomy lacks (shown "not in this trace", each with Remove), or all of
   * them when the value was made under another taxonomy. A tag whose step changed since it was
   * saved is listed by its reference instead (with Re-point: staleReferenceEntries). */
  function staleTags(value, derivation, taxonomy) {
    if (!value) { return []; }
    var other = otherTaxonomy(value, taxonomy);
    var stale = [];
    stepTags(value).forEach(function (tag) {
      var gone = tag.step >= derivation.steps.length && typeof tag.step_ref !== 'string';
      if (other || gone || !(tag.mode in taxonomy.byCode)) { stale.push(tag); }
    });
    runTags(value).forEach(function (tag) { if (other || !(tag.mode in taxonomy.byCode)) { stale.push(tag); } });
    return stale;
  }

  function withoutTag(value, tag) {
    var next = {taxonomy: value.taxonomy, steps: stepTags(value).filter(function (t) { return t !== tag; }),
      run: runTags(value).filter(function (t) { return t !== tag; })};
    if (value.none_found === true) { next.none_found = true; }
    return next;
  }

  function summaryText(value, taxonomy, unreadable) {
    if (unreadable) { return 'The saved value could not be read. Nothing tagged yet.'; }
    if (!value) { return 'Nothing tagged yet.'; }
    if (otherTaxonomy(value, taxonomy)) { return 'The saved tags were made under taxonomy ' + value.taxonomy + ', not this one.'; }
    if (!hasTags(value)) { return value.none_found ? 'No failure mode in this run.' : 'Nothing tagged.'; }
    var steps = stepTags(value);
    var tagged = steps.map(function (tag) { return tag.step; }).filter(function (step, i, all) { return all.indexOf(step) === i; });
    var parts = [steps.length + ' step tag' + (steps.length === 1 ? '' : 's') + ' on ' + tagged.length + ' step' +
      (tagged.length === 1 ? '' : 's')];
    if (runTags(value).length) { parts.push(runTags(value).length + ' whole-run mark' + (runTags(value).length === 1 ? '' : 's')); }
    var modes = runModes(value, taxonomy).map(function (entry) { return entry.code; });
    return parts.join(', ') + '. This run\u2019s modes: ' + modes.join(', ') + '.';
  }

  function incompleteReason(value, taxonomy, unreadable) {
    if (unreadable) { return 'The saved value could not be read; tag a failure mode or tick \u201cNo failure mode in this run\u201d'; }
    if (value && otherTaxonomy(value, taxonomy)) { return 'The saved tags were made under another taxonomy; remove them and tag again'; }
    if (hasTags(value) || (value && value.none_found)) { return null; }
    return 'Tag a failure mode (on a step or the whole run), or tick \u201cNo failure mode in this run\u201d';
  }

  function noticesFor(value, ctx, taxonomy) {
    var notices = [];
    if (ctx.unreadable) { notices.push({level: 'warning', text: ctx.unreadable}); }
    if (value && otherTaxonomy(value, taxonomy)) {
      notices.push({level: 'warning', text: 'These tags were saved under taxonomy ' + value.taxonomy + '; this question now ' +
        'uses ' + taxonomy.id + '. They are kept as they were, listed below, and not compared with answers under ' +
        taxonomy.id + '. Remove them to tag again.'});
      return notices;
    }
    if (value) {
      problems(value, ctx.derivation, ctx.config).forEach(function (found) { notices.push({level: 'warning', text: lib.words(found)}); });
    }
    return notices;
  }

  /** What the runtime paints for a value (define's describe). */
  /** The stale list's entries of tags whose step changed since they were saved (or is gone): each
   * named by its tag, with Remove and Re-point; tags listed already (unknown mode) are left out. */
  function changedTags(value, derivation, taxonomy, listed) {
    var changed = stepTags(value).filter(function (tag) { return lib.isStale(tag.step, tag.step_ref, derivation); });
    var entries = lib.staleReferenceEntries(references, value, derivation);   // in the same order
    return entries.map(function (entry, n) {
      entry.text = tagWords(taxonomy, changed[n]) + ': ' + entry.text.replace(/^[^:]*: /, '');
      return entry;
    }).filter(function (entry, n) { return listed.indexOf(changed[n]) < 0; });
  }

  function describe(value, ctx) {
    var taxonomy = taxonomyOf(ctx.config);
    var stale = staleTags(value, ctx.derivation, taxonomy);
    var other = value && otherTaxonomy(value, taxonomy);
    var listed = stale.map(function (tag) {
      var left = withoutTag(value, tag);
      return {text: tagWords(taxonomy, tag) + (other ? ' (taxonomy ' + value.taxonomy + ')' : ''),
        remove: other && !hasTags(left) ? null : left};
    });
    var said = {summary: summaryText(value, taxonomy, ctx.unreadable),
      incomplete: incompleteReason(value, taxonomy, ctx.unreadable), notices: noticesFor(value, ctx, taxonomy),
      stale: other ? listed : listed.concat(changedTags(value, ctx.derivation, taxonomy, stale))};
    if (other) {
      said.removeAllStale = null;
      if (!stale.length) { said.stale = [{text: 'an answer saved under taxonomy ' + value.taxonomy + ' (no tags)', remove: null}]; }
    } else if (stale.length > 1) {
      var kept = value;
      stale.forEach(function (tag) { kept = withoutTag(kept, tag); });
      said.removeAllStale = kept;
    }
    return said;
  }

  return {
    references: references,
    taxonomyOf: taxonomyOf,
    modeLabel: modeLabel,
    searchModes: searchModes,
    stepTags: stepTags,
    runTags: runTags,
    hasTags: hasTags,
    otherTaxonomy: otherTaxonomy,
    modesOnStep: modesOnStep,
    stepTag: stepTag,
    runTag: runTag,
    runModes: runModes,
    toggleStepTag: toggleStepTag,
    setRunMark: setRunMark,
    setDetail: setDetail,
    setNoneFound: setNoneFound,
    acceptJudgment: acceptJudgment,
    entryKey: entryKey,
    judgmentsFor: judgmentsFor,
    judgedOnStep: judgedOnStep,
    agreedByAll: agreedByAll,
    judgmentsShown: judgmentsShown,
    judgmentWords: judgmentWords,
    tagWords: tagWords,
    severities: severities,
    problems: problems,
    summaryText: summaryText,
    incompleteReason: incompleteReason,
    describe: describe
  };
});
