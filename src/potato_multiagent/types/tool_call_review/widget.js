/*
 * tool_call_review.js: the `multiagent.tool_call_review` widget.
 *
 * One card per tool call of the derivation (OpenAI tool_calls, a flat tool_call, Anthropic
 * tool_use blocks, ReAct actions): a group named "Call K: TOOL by AGENT (step N)" with the
 * pretty-printed arguments, the result when a later step holds it (derivation `result_step`), a
 * radio group "Verdict" (checkboxes with multi_verdict) and a "Notes" field. Cards come a page at
 * a time; filters by agent and tool and a "Next unjudged call" button find the rest.
 *
 * The stored value is a list of judged calls, in trace order:
 *     [{"index", "step", "position", "id", "tool", "verdict", ["verdicts",] "notes"}]
 * Each entry names its call by identity (the call id, else step + position + tool; seed-shaped
 * entries by index + step + tool), exactly as schemes/tool_call_review.py reads it. Entries that
 * match no call, or repeat one, are kept in the value and listed as "not in this trace" until the
 * annotator removes them. A click updates one entry in memory and stores once: no page re-scan.
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
    root.console.error('tool_call_review.js: widget.js did not load before it');
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (runtime) {
  'use strict';

  var WIDGET = 'tool_call_review';
  var PAGE_SIZE = 20;
  var TYPING_DELAY_MS = 300;
  var ARGUMENT_PREVIEW = {lines: 12, chars: 800};
  var RESULT_PREVIEW = {lines: 6, chars: 400};
  var NOTE_SNIPPET = 60;
  var ALL = -1;   // filter choice: every agent / every tool
  var ARROW_STEP = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};

  // ---------------------------------------------------------------------------------------------
  // Identity: which call a stored entry names (mirrors schemes/tool_call_review.py CallIndex)
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

  /** The derivation's calls, findable by every identity a stored entry may use. */
  function indexCalls(calls) {
    var index = {calls: calls, positions: callPositions(calls), byId: new Map(), byPlace: new Map()};
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

  function jsonText(value) { return JSON.stringify(value === undefined ? null : value); }

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
      var call = findCall(index, entry);
      if (call === null) {
        var problem = given(entry, 'id') ? runtime.notInTrace('[' + item.k + '].id', entry.id)
          : runtime.notInTrace('[' + item.k + ']', identityText(entry));
        return {k: item.k, entry: entry, call: null, duplicateOf: null, problem: problem};
      }
      if (claimed.has(call.index)) {
        var first = claimed.get(call.index);
        return {k: item.k, entry: entry, call: null, duplicateOf: first,
          problem: '[' + item.k + ']: judges the same call as [' + first + ']'};
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
      return '[' + k + '].' + field + ': ' + jsonText(entry[field]) + ' does not match the call it names (' +
        jsonText(actual[field]) + ')';
    });
  }

  function verdictProblems(k, entry, config) {
    var options = config.verdict_options || [];
    var problems = [];
    var verdict = hasOwn(entry, 'verdict') ? entry.verdict : null;
    if (verdict !== null && options.indexOf(verdict) < 0) {
      problems.push('[' + k + "].verdict: '" + verdict + "' is not one of the configured verdicts");
    }
    if (given(entry, 'verdicts')) {
      if (!config.multi_verdict) { problems.push('[' + k + '].verdicts: only stored when multi_verdict is true'); }
      entry.verdicts.forEach(function (item, j) {
        if (options.indexOf(item) < 0) {
          problems.push('[' + k + '].verdicts[' + j + "]: '" + item + "' is not one of the configured verdicts");
        } else if (entry.verdicts.indexOf(item) < j) {
          problems.push('[' + k + '].verdicts[' + j + "]: '" + item + "' is repeated");
        }
      });
      var first = entry.verdicts.length ? entry.verdicts[0] : null;
      if (verdict !== first) {
        problems.push('[' + k + '].verdict: should be ' + jsonText(first) + ' (the first of verdicts), got ' +
          jsonText(verdict));
      }
    }
    if (entry.notes && config.allow_notes === false) {
      problems.push('[' + k + '].notes: notes are turned off (allow_notes is false)');
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
  function readValue(got, config) {
    var empty = {entries: [], broken: [], unreadable: null};
    if (got.raw === '' || got.raw === null || got.raw === undefined) { return empty; }
    var whole = got.error ? [got.error] : (Array.isArray(got.value) ? [] : runtime.checkValue(got.value, config));
    if (whole.length) {
      empty.unreadable = 'The saved value could not be read: ' + whole.join('; ') +
        '. It is kept until you judge a call.';
      return empty;
    }
    var itemConfig = {value_schema: entrySchema(config)};
    var result = {entries: [], broken: [], unreadable: null};
    got.value.forEach(function (entry, k) {
      var problems = runtime.checkValue(entry, itemConfig).map(function (line) {
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
  function composeEntry(call, position, verdicts, notes, config) {
    if (verdicts.length === 0 && notes === '') { return null; }
    var entry = {index: call.index, step: call.step, position: position, id: call.id, tool: call.tool,
      verdict: verdicts.length ? verdicts[0] : null};
    if (config.multi_verdict) { entry.verdicts = verdicts.slice(); }
    entry.notes = notes;
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
      ? '; notes: ' + runtime.snippet(entry.notes, NOTE_SNIPPET) : '';
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
  // The widget
  // ---------------------------------------------------------------------------------------------

  function h(tag, attrs, children) { return runtime.h(tag, attrs, children); }

  var expandableTexts = new WeakMap();   // expandable block -> {full, preview}: its two texts
  var TEMPLATE_PARTS = ['agentFilter', 'toolFilter', 'nextUnjudgedButton', 'range', 'cardList', 'previousPage',
    'nextPage', 'staleSection', 'staleList'];

  /** Find the template's elements and wire them once; the returned object lives across renders. */
  function createUi(el) {
    var find = function (selector) { return el.querySelector(selector); };
    var ui = {
      agentFilter: find('select[data-ma-field="agent-filter"]'),
      toolFilter: find('select[data-ma-field="tool-filter"]'),
      nextUnjudgedButton: find('button[data-ma-action="next-unjudged"]'),
      range: find('[data-ma-field="range"]'),
      cardList: find('[data-ma-field="cards"]'),
      previousPage: find('button[data-ma-action="previous-page"]'),
      nextPage: find('button[data-ma-action="next-page"]'),
      staleSection: find('[data-ma-field="stale"]'),
      staleList: find('[data-ma-field="stale-list"]'),
      ctx: null, derivation: null, calls: null,
      judgements: [], extras: [], judged: 0, unreadable: null,
      agents: [], tools: [], order: [], page: 0, cards: new Map(), typingCall: null
    };
    TEMPLATE_PARTS.forEach(function (key) {
      if (!ui[key]) { throw new Error('the page lacks a part of this question (' + key + ')'); }
    });
    ui.typing = runtime.debounce(function () { commitCall(ui, ui.typingCall); }, TYPING_DELAY_MS);
    wire(ui);
    return ui;
  }

  function wire(ui) {
    ui.agentFilter.addEventListener('change', function () { applyFilters(ui); });
    ui.toolFilter.addEventListener('change', function () { applyFilters(ui); });
    ui.nextUnjudgedButton.addEventListener('click', function () { goToNextUnjudged(ui); });
    ui.previousPage.addEventListener('click', function () { turnPage(ui, -1); });
    ui.nextPage.addEventListener('click', function () { turnPage(ui, 1); });
    ui.cardList.addEventListener('change', function (event) { onChoice(ui, event.target); });
    ui.cardList.addEventListener('keydown', function (event) { onCardKey(ui, event); });
    ui.cardList.addEventListener('click', function (event) { onCardClick(ui, event.target); });
    ui.cardList.addEventListener('input', function (event) {
      var card = cardOf(ui, event.target);
      if (!card || event.target !== card.notes) { return; }
      if (ui.typingCall !== null && ui.typingCall !== card.call.index) { ui.typing.flush(); }
      ui.typingCall = card.call.index;
      ui.typing();
    });
    ui.cardList.addEventListener('focusout', function () { ui.typing.flush(); });
    ui.staleList.addEventListener('click', function (event) {
      var button = event.target.closest('button[data-ma-extra]');
      if (button) { removeExtra(ui, Number(button.getAttribute('data-ma-extra'))); }
    });
  }

  // -- state from a derivation and a stored value --------------------------------------------

  function adoptDerivation(ui, derivation) {
    ui.derivation = derivation;
    ui.calls = indexCalls(derivation.tool_calls || []);
    ui.agents = distinct(ui.calls.calls, 'agent');
    ui.tools = distinct(ui.calls.calls, 'tool');
    fillFilter(ui.agentFilter, 'All agents', ui.agents, 'no agent');
    fillFilter(ui.toolFilter, 'All tools', ui.tools, '(no tool name)');
    ui.order = filterCalls(ui.calls.calls, ALL, ALL);
    ui.page = 0;
  }

  function fillFilter(select, allLabel, values, nullLabel) {
    var fragment = document.createDocumentFragment();
    fragment.appendChild(h('option', {value: String(ALL), text: allLabel}));
    values.forEach(function (value, i) {
      fragment.appendChild(h('option', {value: String(i), text: value === null ? nullLabel : value}));
    });
    select.textContent = '';
    select.appendChild(fragment);
  }

  /**
   * Judgements by call, and the stored entries that judge no call (extras), kept in the value:
   * first those that name no call or repeat one, then those that cannot be read at all, so the
   * readable part of the value is a prefix and its problems count entries as `check` does.
   */
  function adoptValue(ui, stored) {
    var calls = ui.calls;
    ui.unreadable = stored.unreadable;
    ui.judgements = new Array(calls.calls.length).fill(null);
    ui.extras = [];
    matchEntries(stored.entries, calls).forEach(function (row) {
      if (row.call) {
        ui.judgements[row.call.index] = row.entry;
      } else {
        ui.extras.push({entry: row.entry, broken: false,
          reason: row.duplicateOf === null ? 'not in this trace' : 'its call is judged by an earlier judgement'});
      }
    });
    stored.broken.forEach(function (item) {
      ui.extras.push({entry: item.entry, broken: true, reason: 'could not be read: ' + item.problem});
    });
    ui.judged = ui.judgements.filter(function (entry) { return isJudged(entry, ui.ctx.config); }).length;
  }

  /** The value to store: judged calls in trace order, then the kept judgements that match none. */
  function composeValue(ui) {
    var value = ui.judgements.filter(function (entry) { return entry !== null; });
    ui.extras.forEach(function (extra) { value.push(extra.entry); });
    return value.length ? value : null;
  }

  // -- cards ---------------------------------------------------------------------------------

  function cardOf(ui, node) {
    var li = node && node.closest ? node.closest('li[data-ma-call]') : null;
    return li ? ui.cards.get(Number(li.getAttribute('data-ma-call'))) || null : null;
  }

  function buildCard(ui, call) {
    var config = ui.ctx.config;
    var position = ui.calls.positions[call.index];
    var entry = ui.judgements[call.index];
    var chosen = chosenVerdicts(entry, config);
    var card = {call: call, position: position, inputs: [], notes: null, status: null};
    var name = 'ma-tcr-' + ui.ctx.schemaName + '-' + call.index;
    var choices = (config.verdict_options || []).map(function (option, i) {
      var input = h('input', {type: config.multi_verdict ? 'checkbox' : 'radio', name: name, value: String(i),
        'data-ma-part': 'verdict'});
      input.checked = chosen.indexOf(option) >= 0;
      card.inputs.push(input);
      return h('label', {class: 'ma-tcr-choice'}, [input, h('span', {text: option})]);
    });
    card.status = h('p', {class: 'ma-tcr-status', 'data-judged': chosen.length ? 'true' : 'false',
      text: statusText(chosen)});
    var verdictGroup = h('div', {class: 'ma-tcr-verdicts', role: config.multi_verdict ? 'group' : 'radiogroup',
      'aria-label': 'Verdict'}, [h('span', {class: 'ma-tcr-group-label', 'aria-hidden': 'true', text: 'Verdict'}),
      choices, h('button', {type: 'button', class: 'ma-tcr-clear', 'data-ma-part': 'clear', text: 'Clear verdict'})]);
    if (config.allow_notes !== false) {
      card.notes = h('textarea', {class: 'ma-tcr-notes-input', rows: '2', 'data-ma-part': 'notes'});
      card.notes.value = entry && typeof entry.notes === 'string' ? entry.notes : '';
    }
    var title = cardTitle(call);
    card.li = h('li', {class: 'ma-tcr-card', 'data-ma-call': String(call.index),
      'data-judged': chosen.length ? 'true' : 'false'}, [
      h('section', {role: 'group', 'aria-label': title}, [
        h('h4', {class: 'ma-tcr-title', text: title}),
        traceLinks(call),
        card.status,
        call.id === null ? null : h('p', {class: 'ma-tcr-id', text: 'Call id: ' + call.id}),
        expandable('arguments', argumentsView(call), ARGUMENT_PREVIEW, 'Show all arguments'),
        resultBlock(call, ui.derivation),
        errorLine(call),
        verdictGroup,
        card.notes ? h('label', {class: 'ma-tcr-notes'}, [h('span', {text: 'Notes'}), card.notes]) : null
      ])
    ]);
    return card;
  }

  /** "Call at #N, result in #M": links into the trace view (docs/trace-view.md), when the page has one. */
  function traceLinks(call) {
    if (!document.querySelector('section.ma-trace')) { return null; }
    function link(index) {
      return h('button', {type: 'button', class: 'ma-step-link', 'data-ma-step-link': String(index), text: '#' + (index + 1)});
    }
    var hasResult = typeof call.result_step === 'number';
    return h('p', {class: 'ma-tcr-trace-links'}, ['In the trace: call at ', link(call.step),
      hasResult ? ', result in ' : null, hasResult ? link(call.result_step) : null]);
  }

  /** The failure the trace records for the call (its result step's error, else its own), as text. */
  function errorLine(call) {
    if (typeof call.error !== 'string') { return null; }
    return h('p', {class: 'ma-tcr-error', 'data-ma-part': 'error', text: 'Error: ' + call.error});
  }

  function resultBlock(call, derivation) {
    var view = resultView(call, derivation);
    if (view === null) { return null; }
    if (view.empty) {
      return h('div', {class: 'ma-tcr-block ma-tcr-result'}, [h('p', {class: 'ma-tcr-label', text: view.label}),
        h('p', {class: 'ma-tcr-empty', text: view.empty})]);
    }
    return expandable('result', view, RESULT_PREVIEW, 'Show the whole result');
  }

  /** A labelled <pre> showing the start of a long text, with a toggle for the rest. */
  function expandable(part, view, limit, showLabel) {
    var shown = preview(view.text, limit);
    var children = [h('p', {class: 'ma-tcr-label', text: view.label})];
    if (view.text !== '') {
      children.push(h('pre', {class: 'ma-tcr-code', 'data-ma-part': part + '-text', text: shown.text}));
    }
    if (shown.cut) {
      children.push(h('button', {type: 'button', class: 'ma-tcr-toggle', 'data-ma-part': part + '-toggle',
        'aria-expanded': 'false', 'data-ma-show': showLabel, text: showLabel + ' (' + view.text.length +
        ' characters)'}));
    }
    var block = h('div', {class: 'ma-tcr-block ma-tcr-' + part}, children);
    expandableTexts.set(block, {full: view.text, preview: shown.text});
    return block;
  }

  function toggleExpandable(button) {
    var block = button.parentNode;
    var texts = expandableTexts.get(block);
    var expand = button.getAttribute('aria-expanded') !== 'true';
    block.querySelector('pre').textContent = expand ? texts.full : texts.preview;
    button.setAttribute('aria-expanded', expand ? 'true' : 'false');
    button.textContent = expand ? 'Show less' : button.getAttribute('data-ma-show') + ' (' + texts.full.length +
      ' characters)';
  }

  // -- page ----------------------------------------------------------------------------------

  function pageCount(ui) { return Math.max(1, Math.ceil(ui.order.length / PAGE_SIZE)); }

  /** Build the current page's cards in one fragment; keeps focus on the same logical control. */
  function showPage(ui) {
    var focus = focusedPart(ui);
    ui.page = Math.min(ui.page, pageCount(ui) - 1);
    ui.cards = new Map();
    var fragment = document.createDocumentFragment();
    var first = ui.page * PAGE_SIZE;
    ui.order.slice(first, first + PAGE_SIZE).forEach(function (callIndex) {
      var card = buildCard(ui, ui.calls.calls[callIndex]);
      ui.cards.set(callIndex, card);
      fragment.appendChild(card.li);
    });
    ui.cardList.textContent = '';
    ui.cardList.appendChild(fragment);
    ui.range.textContent = rangeText(ui, first);
    ui.previousPage.setAttribute('aria-disabled', ui.page === 0 ? 'true' : 'false');
    ui.nextPage.setAttribute('aria-disabled', ui.page >= pageCount(ui) - 1 ? 'true' : 'false');
    ui.previousPage.parentNode.hidden = ui.order.length <= PAGE_SIZE;
    if (focus) { restoreFocus(ui, focus); }
  }

  function rangeText(ui, first) {
    var total = ui.calls.calls.length;
    if (total === 0) { return 'This trace has no tool calls.'; }
    if (ui.order.length === 0) { return 'No call matches these filters.'; }
    var last = Math.min(first + PAGE_SIZE, ui.order.length);
    var range = 'Calls ' + (first + 1) + '\u2013' + last + ' of ' + ui.order.length;
    return ui.order.length === total ? range + '.' : range + ' matching the filters (' + total + ' in all).';
  }

  /** {call, part, option} of the focused card control, to focus the same one after a rebuild. */
  function focusedPart(ui) {
    var active = document.activeElement;
    var card = active && ui.cardList.contains(active) ? cardOf(ui, active) : null;
    if (!card) { return null; }
    return {call: card.call.index, part: active.getAttribute('data-ma-part'), option: active.value};
  }

  function restoreFocus(ui, focus) {
    var card = ui.cards.get(focus.call);
    if (!card) { return; }
    var target = focus.part === 'verdict'
      ? card.inputs[Number(focus.option)] : card.li.querySelector('[data-ma-part="' + focus.part + '"]');
    if (target) { target.focus(); }
  }

  function turnPage(ui, direction) {
    var page = ui.page + direction;
    if (page < 0 || page >= pageCount(ui)) { return; }
    ui.typing.flush();
    ui.page = page;
    showPage(ui);
    ui.ctx.model.announce(ui.range.textContent);
  }

  function applyFilters(ui) {
    ui.typing.flush();
    var agent = Number(ui.agentFilter.value);
    var tool = Number(ui.toolFilter.value);
    ui.order = filterCalls(ui.calls.calls, agent === ALL ? ALL : ui.agents[agent], tool === ALL ? ALL : ui.tools[tool]);
    ui.page = 0;
    showPage(ui);
    ui.ctx.model.announce(ui.range.textContent);
  }

  function goToNextUnjudged(ui) {
    ui.typing.flush();
    var config = ui.ctx.config;
    var current = cardOf(ui, document.activeElement);
    var from = current ? ui.order.indexOf(current.call.index) : ui.page * PAGE_SIZE - 1;
    var position = nextUnjudged(ui.order, from, function (callIndex) {
      return isJudged(ui.judgements[callIndex], config);
    });
    if (position < 0) {
      ui.ctx.model.announce(ui.order.length === ui.calls.calls.length ? 'Every tool call is judged.'
        : 'Every call matching the filters is judged.');
      return;
    }
    var page = Math.floor(position / PAGE_SIZE);
    if (page !== ui.page) {
      ui.page = page;
      showPage(ui);
    }
    var card = ui.cards.get(ui.order[position]);
    card.inputs[0].focus();
    card.li.scrollIntoView({block: 'nearest'});
    ui.ctx.model.announce(cardTitle(card.call) + ': not judged yet.');
  }

  // -- actions -------------------------------------------------------------------------------

  function onChoice(ui, target) {
    var card = cardOf(ui, target);
    if (card && card.inputs.indexOf(target) >= 0) { commitCall(ui, card.call.index); }
  }

  function onCardClick(ui, target) {
    var button = target.closest ? target.closest('button[data-ma-part]') : null;
    var card = button ? cardOf(ui, button) : null;
    if (!card) { return; }
    var part = button.getAttribute('data-ma-part');
    if (part === 'clear') {
      card.inputs.forEach(function (input) { input.checked = false; });
      commitCall(ui, card.call.index);
    } else {
      toggleExpandable(button);
    }
  }

  /** Arrow keys inside a verdict group move between the choices (radios also choose), and stop here. */
  function onCardKey(ui, event) {
    var card = cardOf(ui, event.target);
    var from = card ? card.inputs.indexOf(event.target) : -1;
    if (from < 0) { return; }
    var count = card.inputs.length;
    var to = event.key === 'Home' ? 0 : event.key === 'End' ? count - 1
      : hasOwn(ARROW_STEP, event.key) ? (from + ARROW_STEP[event.key] + count) % count : -1;
    if (to < 0) { return; }
    event.preventDefault();
    event.stopPropagation();
    var input = card.inputs[to];
    input.focus();
    if (input.type === 'radio') {
      input.checked = true;
      commitCall(ui, card.call.index);
    }
  }

  /** Store what one card shows: one entry replaced in memory, one write, words updated. */
  function commitCall(ui, callIndex) {
    var card = ui.cards.get(callIndex);
    if (!card) { return; }
    if (ui.typingCall === callIndex) { ui.typing.cancel(); ui.typingCall = null; }
    var config = ui.ctx.config;
    var verdicts = (config.verdict_options || []).filter(function (option, i) { return card.inputs[i].checked; });
    var notes = card.notes ? card.notes.value : '';
    var before = ui.judgements[callIndex];
    var entry = composeEntry(card.call, card.position, verdicts, notes, config);
    ui.judged += (isJudged(entry, config) ? 1 : 0) - (isJudged(before, config) ? 1 : 0);
    ui.judgements[callIndex] = entry;
    ui.unreadable = null;
    card.status.textContent = statusText(verdicts);
    card.status.setAttribute('data-judged', verdicts.length ? 'true' : 'false');
    card.li.setAttribute('data-judged', verdicts.length ? 'true' : 'false');
    storeValue(ui);
    ui.ctx.model.announce(cardTitle(card.call) + ': ' + statusText(verdicts).toLowerCase() + '. ' +
      summaryText(ui.judged, ui.calls.calls.length, ui.extras.length));
  }

  function removeExtra(ui, position) {
    ui.extras.splice(position, 1);
    ui.unreadable = null;
    storeValue(ui);
    var buttons = ui.staleList.querySelectorAll('button[data-ma-extra]');
    (buttons[Math.min(position, buttons.length - 1)] || ui.nextUnjudgedButton).focus();
  }

  /** One write of the whole value, then its notices and completeness. */
  function storeValue(ui) {
    var value = composeValue(ui);
    ui.ctx.model.set(value);
    var brokenCount = ui.extras.filter(function (extra) { return extra.broken; }).length;
    describeState(ui, value ? value.slice(0, value.length - brokenCount) : []);
  }

  function showExtras(ui) {
    var fragment = document.createDocumentFragment();
    ui.extras.forEach(function (extra, position) {
      var words = describeEntry(extra.entry);
      fragment.appendChild(h('li', {class: 'ma-tcr-extra'}, [
        h('span', {class: 'ma-tcr-extra-text', text: words}),
        h('span', {class: 'ma-tcr-extra-reason', text: ' (' + extra.reason + ')'}),
        h('button', {type: 'button', 'data-ma-extra': String(position), 'aria-label': 'Remove: ' + words,
          text: 'Remove'})
      ]));
    });
    ui.staleList.textContent = '';
    ui.staleList.appendChild(fragment);
    ui.staleSection.hidden = ui.extras.length === 0;
  }

  /**
   * Notices and completeness. `readable` is the readable part of the value just read or stored,
   * in stored order, so each problem names its entry as `potato-multiagent check` does.
   */
  function describeState(ui, readable) {
    var ctx = ui.ctx;
    var notices = [];
    if (ui.unreadable) { notices.push({level: 'warning', text: ui.unreadable}); }
    (ui.derivation.problems || []).forEach(function (problem) {
      if (problem && problem.code === 'steps_not_list') {
        notices.push({level: 'warning', text: 'This trace has no steps, so no tool calls: ' + problem.message});
      }
    });
    var broken = ui.extras.filter(function (extra) { return extra.broken; });
    broken.forEach(function (extra) { notices.push({level: 'warning', text: 'A judgement ' + extra.reason}); });
    traceProblems(readable, ui.calls, ctx.config).forEach(function (line) {
      notices.push({level: 'warning', text: line});
    });
    ctx.setNotices(notices);
    showExtras(ui);
    ctx.model.setIncomplete(incompleteReason(ui.judged, ui.calls.calls.length, ui.unreadable));
  }

  // ---------------------------------------------------------------------------------------------
  // Render (called by the runtime on load and on every potato:instance-ready)
  // ---------------------------------------------------------------------------------------------

  function render(ctx) {
    var ui = ctx.state.ui || (ctx.state.ui = createUi(ctx.el));
    if (ui.ctx) { ui.typing.flush(); }   // notes typed just before this re-render are stored first
    ui.ctx = ctx;
    if (ui.derivation !== ctx.derivation) { adoptDerivation(ui, ctx.derivation); }
    var stored = readValue(ctx.model.get(), ctx.config);
    adoptValue(ui, stored);
    showPage(ui);
    describeState(ui, stored.entries.map(function (item) { return item.entry; }));
    ctx.model.announce(summaryText(ui.judged, ui.calls.calls.length, ui.extras.length));
  }

  return {
    WIDGET: WIDGET,
    PAGE_SIZE: PAGE_SIZE,
    render: render,
    callPositions: callPositions,
    indexCalls: indexCalls,
    findCall: findCall,
    identityText: identityText,
    matchEntries: matchEntries,
    traceProblems: traceProblems,
    readValue: readValue,
    chosenVerdicts: chosenVerdicts,
    composeEntry: composeEntry,
    cardTitle: cardTitle,
    argumentsView: argumentsView,
    preview: preview,
    resultView: resultView,
    incompleteReason: incompleteReason,
    summaryText: summaryText,
    describeEntry: describeEntry,
    filterCalls: filterCalls,
    nextUnjudged: nextUnjudged
  };
}));
