/*
 * marks.js of `multiagent.tool_call_review`: the pure rules (no DOM), shared by view.js in the
 * page and by the node tests (tests/js/type_cases.test.js runs cases.json against problems()).
 *
 * The stored value is a list of judged calls, in trace order:
 *     [{"index", "step", "step_ref", "position", "id", "tool", "verdict", ["verdicts",] "notes"[, "from_judgment"]}]
 * Each entry names its call by identity (the call id, else step + position + tool; seed-shaped
 * entries by index + step + tool), exactly as scheme.py's CallIndex reads it. Entries that match no
 * call, repeat one, or cannot be read are kept in the value and listed as "not in this trace"
 * (the runtime's stale list, with Remove) until the annotator removes them.
 */
import {marks} from 'potato-multiagent';

marks('tool_call_review', function (lib) {
  'use strict';

  var NOTE_SNIPPET = 60;
  var ALL = -1;   // filter choice: every agent / every tool
  // The config defaults of scheme.py (ToolCallReviewConfig), for a config given only in part (the
  // cases.json referee; the page always gets the whole config from the server).
  var CONFIG_DEFAULTS = {verdict_options: ['correct', 'wrong_tool', 'wrong_args', 'wrong_order'],
    multi_verdict: false, allow_notes: true};

  // ---------------------------------------------------------------------------------------------
  // Identity: which call a stored entry names (mirrors scheme.py CallIndex)
  // ---------------------------------------------------------------------------------------------

  function hasOwn(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }
  function given(entry, key) { return hasOwn(entry, key) && entry[key] !== null && entry[key] !== undefined; }

  /** Each call's place among its step's calls (a step's calls are consecutive in the list). */
  function callPositions(calls) {
    var positions = [];
    for (var k = 0; k < calls.length; k++) {
      var sameStep = k > 0 && calls[k - 1].step === calls[k].step;
      positions.push(sameStep ? positions[k - 1] + 1 : 0);
    }
    return positions;
  }

  /** The derivation's calls, findable by every identity a stored entry may use (the derivation is
   * kept to tell an entry whose step changed since it was judged). */
  function indexCalls(calls, derivation) {
    var index = {calls: calls, positions: callPositions(calls), byId: new Map(), byPlace: new Map(),
      derivation: derivation};
    calls.forEach(function (call, k) {
      if (call.id !== null) {
        if (!index.byId.has(call.id)) { index.byId.set(call.id, []); }
        index.byId.get(call.id).push(call);
      }
      index.byPlace.set(call.step + '/' + index.positions[k], call);
    });
    return index;
  }

  /** The call an entry names, or null when the trace has no such call. */
  function findCall(index, entry) {
    if (given(entry, 'id')) {
      var sameId = index.byId.get(entry.id) || [];
      if (sameId.length === 1) { return sameId[0]; }
      return sameId.filter(function (call) {
        return call.step === entry.step && index.positions[call.index] === entry.position;
      })[0] || null;
    }
    var tool = given(entry, 'tool') ? entry.tool : null;
    if (given(entry, 'position')) {
      var placed = index.byPlace.get(entry.step + '/' + entry.position) || null;
      return placed && placed.tool === tool ? placed : null;
    }
    var seed = entry.index < index.calls.length ? index.calls[entry.index] : null;
    return seed && seed.step === entry.step && seed.tool === tool ? seed : null;
  }

  /** How a message names an entry's call when it has no id: its place. */
  function identityText(entry) {
    var tool = given(entry, 'tool') ? 'tool ' + entry.tool : 'no tool';
    if (given(entry, 'position')) { return 'step ' + entry.step + ', position ' + entry.position + ', ' + tool; }
    return 'call ' + entry.index + ' at step ' + entry.step + ', ' + tool;
  }

  // ---------------------------------------------------------------------------------------------
  // Problems of well-formed entries (the same lines as ToolCallReview.trace_problems)
  // ---------------------------------------------------------------------------------------------

  /**
   * Match entries to calls: [{k, entry, call, duplicateOf, problem}] where call is null for an
   * entry that names no call, or one that entry `duplicateOf` already judged (problem says which).
   */
  function matchEntries(entries, index) {
    var claimed = new Map();
    return entries.map(function (item) {
      var entry = item.entry;
      var stale = typeof entry.step_ref === 'string' && index.derivation
        ? lib.stepProblems('[' + item.k + '].step', entry.step, entry.step_ref, index.derivation) : [];
      if (stale.length) {   // judged on a step that changed: it names no call of this trace
        return {k: item.k, entry: entry, call: null, duplicateOf: null, problem: stale[0], changed: true};
      }
      var call = findCall(index, entry);
      if (call === null) {
        var problem = given(entry, 'id') ? lib.notInTrace('[' + item.k + '].id', entry.id)
          : lib.notInTrace('[' + item.k + ']', identityText(entry));
        return {k: item.k, entry: entry, call: null, duplicateOf: null, problem: problem};
      }
      if (claimed.has(call.index)) {
        var first = claimed.get(call.index);
        return {k: item.k, entry: entry, call: null, duplicateOf: first,
          problem: lib.problem('repeats_entry', {field: '[' + item.k + ']', first: '[' + first + ']'})};
      }
      claimed.set(call.index, item.k);
      return {k: item.k, entry: entry, call: call, duplicateOf: null, problem: null};
    });
  }

  /** Fields an entry states that disagree with the call it names. */
  function mismatchProblems(k, entry, call, index) {
    var actual = {index: call.index, step: call.step, position: index.positions[call.index], id: call.id,
      tool: call.tool};
    return Object.keys(actual).filter(function (field) {
      return hasOwn(entry, field) && entry[field] !== actual[field];
    }).map(function (field) {
      return lib.problem('not_as_in_trace', {field: '[' + k + '].' + field, expected: actual[field], got: entry[field]});
    });
  }

  function verdictProblems(k, entry, config) {
    var options = config.verdict_options || [];
    var problems = [];
    var verdict = hasOwn(entry, 'verdict') ? entry.verdict : null;
    if (verdict !== null && options.indexOf(verdict) < 0) {
      problems.push(lib.problem('not_configured', {field: '[' + k + '].verdict', value: verdict, key: 'verdict_options'}));
    }
    if (given(entry, 'verdicts')) {
      if (!config.multi_verdict) {
        problems.push(lib.problem('off_in_config', {field: '[' + k + '].verdicts', key: 'multi_verdict'}));
      }
      entry.verdicts.forEach(function (item, j) {
        if (options.indexOf(item) < 0) {
          problems.push(lib.problem('not_configured', {field: '[' + k + '].verdicts[' + j + ']', value: item,
            key: 'verdict_options'}));
        } else if (entry.verdicts.indexOf(item) < j) {
          problems.push(lib.problem('repeats_entry', {field: '[' + k + '].verdicts[' + j + ']',
            first: '[' + k + '].verdicts[' + entry.verdicts.indexOf(item) + ']'}));
        }
      });
      var first = entry.verdicts.length ? entry.verdicts[0] : null;
      if (verdict !== first) {
        problems.push(lib.problem('not_first_of', {field: '[' + k + '].verdict', expected: first, got: verdict,
          list_field: 'verdicts'}));
      }
    }
    if (entry.notes && config.allow_notes === false) {
      problems.push(lib.problem('notes_off', {field: '[' + k + '].notes', key: 'allow_notes'}));
    }
    return problems;
  }

  /** Every problem of a list of well-formed entries against the trace and the config. */
  function traceProblems(entries, index, config) {
    var items = entries.map(function (entry, k) { return {k: k, entry: entry}; });
    var problems = [];
    matchEntries(items, index).forEach(function (row) {
      if (row.problem) { problems.push(row.problem); }
      if (row.call) { problems.push.apply(problems, mismatchProblems(row.k, row.entry, row.call, index)); }
      problems.push.apply(problems, verdictProblems(row.k, row.entry, config));
    });
    return problems;
  }

  // ---------------------------------------------------------------------------------------------
  // Reading the stored value (pure)
  // ---------------------------------------------------------------------------------------------

  /** The JSON Schema of one entry, cut out of the list schema the server sends. */
  function entrySchema(config) {
    var schema = config.value_schema || {};
    return Object.assign({}, schema.items || {}, {$defs: schema.$defs || {}});
  }

  /**
   * The stored value from model.get(): {entries: [{k, entry}], broken: [{k, entry, problem}],
   * unreadable}. Entries that fail the entry schema are kept aside (broken) with the reason; a
   * value that is not a list at all is unreadable as a whole (a sentence) and kept untouched
   * until the annotator acts.
   */
  function readStored(got, config) {
    var empty = {entries: [], broken: [], unreadable: null};
    if (got.raw === '' || got.raw === null || got.raw === undefined) { return empty; }
    var whole = got.error ? [got.error] : (Array.isArray(got.value) ? [] : lib.checkValue(got.value, config));
    if (whole.length) {
      empty.unreadable = 'The saved value could not be read: ' + whole.join('; ') +
        '. It is kept until you judge a call.';
      return empty;
    }
    var itemConfig = {value_schema: entrySchema(config)};
    var result = {entries: [], broken: [], unreadable: null};
    got.value.forEach(function (entry, k) {
      var problems = lib.checkValue(entry, itemConfig).map(function (line) {
        return line.indexOf('value:') === 0 ? '[' + k + ']:' + line.slice(6) : '[' + k + '].' + line;
      });
      if (problems.length) {
        result.broken.push({k: k, entry: entry, problem: problems.join('; ')});
      } else {
        result.entries.push({k: k, entry: entry});
      }
    });
    return result;
  }

  // ---------------------------------------------------------------------------------------------
  // Composing entries and words (pure)
  // ---------------------------------------------------------------------------------------------

  /** The verdicts an entry gives that the config knows, in the config's order. */
  function chosenVerdicts(entry, config) {
    if (!entry) { return []; }
    var stated = given(entry, 'verdicts') ? entry.verdicts : (given(entry, 'verdict') ? [entry.verdict] : []);
    return (config.verdict_options || []).filter(function (option) { return stated.indexOf(option) >= 0; });
  }

  function isJudged(entry, config) { return chosenVerdicts(entry, config).length > 0; }

  /** The entry to store for a call, or null when the annotator has given it nothing. */
  function composeEntry(call, position, verdicts, notes, config, fromJudgment) {
    if (verdicts.length === 0 && notes === '') { return null; }
    var entry = {index: call.index, step: call.step, position: position, id: call.id, tool: call.tool,
      verdict: verdicts.length ? verdicts[0] : null};
    if (config.multi_verdict) { entry.verdicts = verdicts.slice(); }
    entry.notes = notes;
    if (typeof fromJudgment === 'string') { entry.from_judgment = fromJudgment; }
    return entry;
  }

  /** "Call K: TOOL by AGENT (step N)", the card's group name. */
  function cardTitle(call) {
    var tool = call.tool === null ? '(no tool name)' : call.tool;
    var agent = call.agent === null ? 'no agent' : call.agent;
    return 'Call ' + (call.index + 1) + ': ' + tool + ' by ' + agent + ' (step ' + (call.step + 1) + ')';
  }

  /** {label, text} of a call's arguments: pretty JSON, a plain string as written, or raw and marked. */
  function argumentsView(call) {
    var args = call.arguments;
    if (call.arguments_invalid) { return {label: 'Arguments (not valid JSON, shown as written)', text: String(args)}; }
    if (args === null || args === undefined) { return {label: 'No arguments', text: ''}; }
    if (typeof args === 'string') { return {label: 'Arguments (text)', text: args}; }
    return {label: 'Arguments', text: JSON.stringify(args, null, 2)};
  }

  /** The start of `text` within `limit` lines and characters: {text, cut}. Never halves a pair. */
  function preview(text, limit) {
    var end = 0;
    for (var line = 0; line < limit.lines; line++) {
      var next = text.indexOf('\n', end);
      if (next < 0) { end = text.length; break; }
      end = next + 1;
    }
    end = Math.min(end, limit.chars);
    if (end >= text.length) { return {text: text, cut: false}; }
    var code = text.charCodeAt(end - 1);
    if (code >= 0xD800 && code <= 0xDBFF) { end -= 1; }
    return {text: text.slice(0, end).replace(/\n$/, '') + '\u2026', cut: true};
  }

  function resultView(call, derivation) {
    if (call.result_step === null || call.result_step === undefined) { return null; }
    var step = derivation.steps[call.result_step];
    if (!step) { return null; }
    // A tool result belongs to its caller (derivation kind tool_result), but the tool wrote it.
    var who = step.kind === 'tool_result' ? 'tool' : step.agent === null ? 'no agent' : step.agent;
    return {label: 'Result in step ' + (step.index + 1) + ' (' + who + ')', text: step.text,
      empty: step.text === '' ? 'That step has no text to preview.' : null};
  }

  function statusText(verdicts) {
    return verdicts.length ? 'Judged: ' + verdicts.join(', ') : 'Not judged yet';
  }

  function incompleteReason(judged, total, unreadable) {
    if (unreadable) { return 'The saved value could not be read; ' + judged + ' of ' + total + ' tool calls judged'; }
    return judged < total ? judged + ' of ' + total + ' tool calls judged' : null;
  }

  function summaryText(judged, total, staleCount) {
    var words = total === 0 ? 'This trace has no tool calls.' : judged + ' of ' + total + ' tool calls judged.';
    if (staleCount) {
      words += ' ' + staleCount + (staleCount === 1 ? ' judgement is' : ' judgements are') + ' not in this trace.';
    }
    return words;
  }

  /** "tool search at step #4 (id c9): wrong_args; notes: ..." for a judgement that matches no call. */
  function describeEntry(entry) {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) { return 'An unreadable judgement'; }
    var tool = typeof entry.tool === 'string' ? 'tool ' + entry.tool : 'no tool';
    var where = typeof entry.step === 'number' ? ' at step #' + (entry.step + 1) : '';
    var id = typeof entry.id === 'string' ? ' (id ' + entry.id + ')' : '';
    var verdicts = Array.isArray(entry.verdicts) ? entry.verdicts.join(', ')
      : (typeof entry.verdict === 'string' ? entry.verdict : 'no verdict');
    var notes = typeof entry.notes === 'string' && /\S/.test(entry.notes)
      ? '; notes: ' + lib.snippet(entry.notes, NOTE_SNIPPET) : '';
    return tool + where + id + ': ' + verdicts + notes;
  }

  /** The distinct values of `field` over the calls, in order of first appearance (null included). */
  function distinct(calls, field) {
    var seen = new Set();
    var values = [];
    calls.forEach(function (call) {
      if (!seen.has(call[field])) { seen.add(call[field]); values.push(call[field]); }
    });
    return values;
  }

  /** The call indices that pass both filters (ALL passes everything). */
  function filterCalls(calls, agent, tool) {
    var order = [];
    calls.forEach(function (call) {
      if ((agent === ALL || call.agent === agent) && (tool === ALL || call.tool === tool)) { order.push(call.index); }
    });
    return order;
  }

  /** The position in `order` of the first unjudged call after position `from`, wrapping; or -1. */
  function nextUnjudged(order, from, judged) {
    for (var step = 1; step <= order.length; step++) {
      var position = (from + step) % order.length;
      if (!judged(order[position])) { return position; }
    }
    return -1;
  }


  // ---------------------------------------------------------------------------------------------
  // A stored value against a trace: judgements by call and the kept entries that match none
  // ---------------------------------------------------------------------------------------------

  /**
   * {calls, judgements (by call index, null = none), extras [{entry, broken, reason}], judged,
   * unreadable, readable}: extras are first those that name no call or repeat one, then those that
   * cannot be read, so the readable part of the value is a prefix and its problems count entries as
   * `check` does.
   */
  function stateOf(stored, calls, config) {
    var state = {calls: calls, judgements: new Array(calls.calls.length).fill(null), extras: [], judged: 0,
      unreadable: stored.unreadable, readable: stored.entries.map(function (item) { return item.entry; })};
    matchEntries(stored.entries, calls).forEach(function (row) {
      if (row.call) {
        state.judgements[row.call.index] = row.entry;
      } else {
        state.extras.push({entry: row.entry, broken: false, changed: Boolean(row.changed),
          reason: row.duplicateOf === null ? 'not in this trace' : 'its call is judged by an earlier judgement'});
      }
    });
    stored.broken.forEach(function (item) {
      state.extras.push({entry: item.entry, broken: true, reason: 'could not be read: ' + item.problem});
    });
    state.judged = state.judgements.filter(function (entry) { return isJudged(entry, config); }).length;
    return state;
  }

  /** The value to store: judged calls in trace order, then the kept entries that match none. */
  function composeValue(judgements, extras) {
    var value = judgements.filter(function (entry) { return entry !== null; });
    extras.forEach(function (extra) { value.push(extra.entry); });
    return value.length ? value : null;
  }

  /** The trace problems of a well-formed value as data ({code, ...parameters}), as Python's
   * trace_problems finds them (cases.json); lib.words says them. */
  function problems(value, derivation, config) {
    var whole = Object.assign({}, CONFIG_DEFAULTS, config || {});
    return traceProblems(Array.isArray(value) ? value : [], indexCalls(derivation.tool_calls || [], derivation), whole);
  }

  function noticesFor(state, derivation, config) {
    var notices = [];
    if (state.unreadable) { notices.push({level: 'warning', text: state.unreadable}); }
    (derivation.problems || []).forEach(function (problem) {
      if (problem && problem.code === 'steps_not_list') {
        notices.push({level: 'warning', text: 'This trace has no steps, so no tool calls: ' + problem.message});
      }
    });
    state.extras.forEach(function (extra) {
      if (extra.broken) { notices.push({level: 'warning', text: 'A judgement ' + extra.reason}); }
    });
    traceProblems(state.readable, state.calls, config).forEach(function (found) {
      notices.push({level: 'warning', text: lib.words(found)});
    });
    return notices;
  }

  /** The runtime's stale list: each kept entry, with the value without it (a Remove button stores
   * it); an entry whose step changed since it was judged is listed by its step reference instead,
   * with Remove and Re-point (staleReferenceEntries). */
  function staleFor(state, value, derivation) {
    return state.extras.map(function (extra, position) {
      if (extra.changed) { return null; }
      var others = state.extras.filter(function (other, k) { return k !== position; });
      return {text: describeEntry(extra.entry) + ' (' + extra.reason + ')',
        remove: composeValue(state.judgements, others)};
    }).filter(Boolean).concat(lib.staleReferenceEntries(references, value, derivation));
  }

  /**
   * The value's step references (docs/step-references.md): each judged call's step, with the
   * identity it was saved with. set (into `value`) also brings the entry's index and position up to
   * the call at its new step (found by id, else by place and tool) when the derivation is given;
   * remove(copy) is the copy without that entry.
   */
  function references(value, derivation) {
    if (!Array.isArray(value)) { return []; }
    var calls = null;   // indexed when a set moves an entry (a click lists every entry: keep it cheap)
    function callIndex() {
      if (calls === null && derivation) { calls = indexCalls(derivation.tool_calls || [], derivation); }
      return calls;
    }
    return value.map(function (entry, k) {
      if (!entry || typeof entry !== 'object' || typeof entry.step !== 'number') { return null; }
      return {key: given(entry, 'id') ? 'id\u0000' + entry.id : 'place\u0000' + entry.step + '\u0000' + entry.position +
          '\u0000' + entry.tool,
        field: '[' + k + '].step', index: entry.step, ref: entry.step_ref,
        set: function (index, ref) {
          var moved = index !== entry.step;
          entry.step = index;
          if (typeof ref === 'string') { entry.step_ref = ref; } else { delete entry.step_ref; }
          var found = moved ? callIndex() : null;
          var call = found ? findCall(found, entry) : null;
          if (call) {
            entry.index = call.index;
            if (hasOwn(entry, 'position')) { entry.position = found.positions[call.index]; }
          }
        },
        remove: function (copied) {
          copied.splice(k, 1);
          return copied.length ? copied : null;
        }};
    }).filter(Boolean);
  }

  /** What the runtime paints for the stored value (define's describe); ctx.stored is what was read. */
  function describe(value, ctx) {
    var config = ctx.config || {};
    var calls = indexCalls(ctx.derivation.tool_calls || [], ctx.derivation);
    var state = stateOf(readStored(ctx.stored || {raw: ''}, config), calls, config);
    return {
      summary: summaryText(state.judged, calls.calls.length, state.extras.length),
      incomplete: incompleteReason(state.judged, calls.calls.length, state.unreadable),
      notices: noticesFor(state, ctx.derivation, config),
      stale: staleFor(state, value, ctx.derivation)
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Judgments (docs/judgments.md): {source, value} per scheme in the record, value in the stored shape
  // ---------------------------------------------------------------------------------------------

  /** The record's judgments for this scheme: [{source, value}] with a text source and a list value. */
  function judgmentsOf(record, config, schemeName) {
    return lib.judgmentsOf(record, config, schemeName, Array.isArray);
  }

  /**
   * Call index -> [{source, verdicts}]: each judgment's verdict on each call it names (by the same
   * identity rules as a stored entry), keeping only the configured verdicts; a judgment's entry that
   * names no call, or gives no configured verdict, shows nowhere.
   */
  function judgmentsByCall(judgments, calls, config) {
    var byCall = new Map();
    judgments.forEach(function (judgment) {
      var items = judgment.value.filter(function (entry) {
        return entry && typeof entry === 'object' && typeof entry.step === 'number';
      }).map(function (entry, k) { return {k: k, entry: entry}; });
      matchEntries(items, calls).forEach(function (row) {
        var verdicts = row.call ? chosenVerdicts(row.entry, config) : [];
        if (!verdicts.length) { return; }
        if (!byCall.has(row.call.index)) { byCall.set(row.call.index, []); }
        byCall.get(row.call.index).push({source: judgment.source, verdicts: verdicts});
      });
    });
    return byCall;
  }

  /**
   * Whether a call's judgments show now: 'always'; 'never'; 'after_answer' once the annotator has
   * given that call a verdict or every call is judged (the widget is complete).
   */
  function judgmentsShown(config, callJudged, complete) {
    return lib.judgmentsShown(config, callJudged || complete);
  }

  /** "llm-judge's verdict: wrong_args" beside the verdicts. */
  function judgmentText(judgment) {
    return judgment.source + '\'s verdict: ' + judgment.verdicts.join(', ');
  }

  /** The index of the first call made at step `step` (trace view 'open-tool-call'), or -1. */
  function firstCallAtStep(calls, step) {
    for (var k = 0; k < calls.length; k++) {
      if (calls[k].step === step) { return calls[k].index; }
    }
    return -1;
  }

  /** What a judgment's value marks in the trace view: [[step, words]] per call (hostile input: checked). */
  function judgedSteps(value) {
    return (Array.isArray(value) ? value : []).filter(lib.isPlainObject).map(function (entry) {
      return [entry.step, 'tool call' + (typeof entry.verdict === 'string' ? ' ' + entry.verdict : '')];
    });
  }

  return {
    judgedSteps: judgedSteps,
    ALL: ALL,
    callPositions: callPositions,
    indexCalls: indexCalls,
    findCall: findCall,
    identityText: identityText,
    matchEntries: matchEntries,
    traceProblems: traceProblems,
    problems: problems,
    readStored: readStored,
    stateOf: stateOf,
    composeValue: composeValue,
    chosenVerdicts: chosenVerdicts,
    isJudged: isJudged,
    composeEntry: composeEntry,
    cardTitle: cardTitle,
    argumentsView: argumentsView,
    preview: preview,
    resultView: resultView,
    statusText: statusText,
    incompleteReason: incompleteReason,
    summaryText: summaryText,
    describeEntry: describeEntry,
    noticesFor: noticesFor,
    staleFor: staleFor,
    references: references,
    describe: describe,
    distinct: distinct,
    filterCalls: filterCalls,
    nextUnjudged: nextUnjudged,
    judgmentsOf: judgmentsOf,
    judgmentsByCall: judgmentsByCall,
    judgmentsShown: judgmentsShown,
    judgmentText: judgmentText,
    firstCallAtStep: firstCallAtStep
  };
});
