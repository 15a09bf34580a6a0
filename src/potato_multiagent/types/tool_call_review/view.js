/*
 * view.js of `multiagent.tool_call_review`: the DOM of the widget, on the runtime (runtime.js).
 *
 * One card per tool call of the derivation: a group named "Call K: TOOL by AGENT (step N)" with
 * the pretty-printed arguments, the result when a later step holds it, the failure the trace
 * records (`error`, as text), a radio group "Verdict" (checkboxes with multi_verdict), a judge's
 * verdict beside it when the record carries judgments, and a "Notes" field. Cards come a page at a
 * time; filters by agent and tool and a "Next unjudged call" button find the rest. The rules and
 * words are in marks.js; the runtime paints summary, completeness, notices and the stale list
 * (entries that judge no call, with Remove) from marks.describe after every model.set.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';

var marks = runtime.marksOf('tool_call_review');
var PAGE_SIZE = 20;
var TYPING_DELAY_MS = 300;
var ARGUMENT_PREVIEW = {lines: 12, chars: 800};
var RESULT_PREVIEW = {lines: 6, chars: 400};
var ALL = marks.ALL;
var ARROW_STEP = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};
var TEMPLATE_PARTS = ['agentFilter', 'toolFilter', 'nextUnjudgedButton', 'matches', 'cardList'];

var expandableTexts = new WeakMap();   // expandable block -> {full, preview}: its two texts

/** Find the template's elements and wire them once; the returned object lives across renders. */
function createView(el, ui) {
  var view = {
    agentFilter: ui.hook('agent-filter'),
    toolFilter: ui.hook('tool-filter'),
    nextUnjudgedButton: ui.hook('next-unjudged'),
    matches: ui.hook('matches'),
    cardList: ui.hook('cards'),
    ui: ui, model: null, config: null, schemaName: null, derivation: null, calls: null, judgments: new Map(),
    judgements: [], extras: [], judged: 0, unreadable: null,
    agents: [], tools: [], order: [], cards: new Map(), typingCall: null
  };
  TEMPLATE_PARTS.forEach(function (key) {
    if (!view[key]) { throw new Error('the page lacks a part of this question (' + key + ')'); }
  });
  view.typing = ui.debounce(function () { commitCall(view, view.typingCall); }, TYPING_DELAY_MS);
  view.pager = ui.pager(view.cardList, {size: PAGE_SIZE, noun: 'tool calls',
    draw: function (first, end) { return drawCards(view, first, end); }});
  wire(view);
  return view;
}

function wire(view) {
  view.agentFilter.addEventListener('change', function () { applyFilters(view); });
  view.toolFilter.addEventListener('change', function () { applyFilters(view); });
  view.nextUnjudgedButton.addEventListener('click', function () { goToNextUnjudged(view); });
  view.cardList.addEventListener('change', function (event) { onChoice(view, event.target); });
  view.cardList.addEventListener('keydown', function (event) { onCardKey(view, event); });
  view.cardList.addEventListener('click', function (event) { onCardClick(view, event.target); });
  view.cardList.addEventListener('input', function (event) {
    var card = cardOf(view, event.target);
    if (!card || event.target !== card.notes) { return; }
    if (view.typingCall !== null && view.typingCall !== card.call.index) { view.typing.flush(); }
    view.typingCall = card.call.index;
    view.typing();
  });
  view.cardList.addEventListener('focusout', function () { view.typing.flush(); });
}

// -- state from a derivation and a stored value --------------------------------------------

function adoptDerivation(view, derivation) {
  view.derivation = derivation;
  view.calls = marks.indexCalls(derivation.tool_calls || [], derivation);
  view.agents = marks.distinct(view.calls.calls, 'agent');
  view.tools = marks.distinct(view.calls.calls, 'tool');
  fillFilter(view, view.agentFilter, 'All agents', view.agents, 'no agent');
  fillFilter(view, view.toolFilter, 'All tools', view.tools, '(no tool name)');
  view.order = marks.filterCalls(view.calls.calls, ALL, ALL);
}

function fillFilter(view, select, allLabel, values, nullLabel) {
  var h = view.ui.h;
  var fragment = document.createDocumentFragment();
  fragment.appendChild(h('option', {value: String(ALL), text: allLabel}));
  values.forEach(function (value, i) {
    fragment.appendChild(h('option', {value: String(i), text: value === null ? nullLabel : value}));
  });
  select.textContent = '';
  select.appendChild(fragment);
}

function adoptValue(view, got) {
  var state = marks.stateOf(marks.readStored(got.stored, view.config), view.calls, view.config);
  view.unreadable = state.unreadable;
  view.judgements = state.judgements;
  view.extras = state.extras;
  view.judged = state.judged;
}

// -- cards ---------------------------------------------------------------------------------

function cardOf(view, node) {
  var li = node && node.closest ? node.closest('li[data-ma-call]') : null;
  return li ? view.cards.get(Number(li.getAttribute('data-ma-call'))) || null : null;
}

function buildCard(view, call) {
  var h = view.ui.h;
  var config = view.config;
  var position = view.calls.positions[call.index];
  var entry = view.judgements[call.index];
  var chosen = marks.chosenVerdicts(entry, config);
  var card = {call: call, position: position, inputs: [], notes: null, status: null, fromJudgment: null};
  card.fromJudgment = entry && typeof entry.from_judgment === 'string' ? entry.from_judgment : null;
  var name = 'ma-tcr-' + view.schemaName + '-' + call.index;
  var focusBase = 'call-' + call.index + '-';
  var choices = (config.verdict_options || []).map(function (option, i) {
    var input = h('input', {type: config.multi_verdict ? 'checkbox' : 'radio', name: name, value: String(i),
      'data-ma-part': 'verdict', 'data-ma-focus': focusBase + 'verdict-' + i});
    input.checked = chosen.indexOf(option) >= 0;
    card.inputs.push(input);
    return h('label', {class: 'ma-tcr-choice'}, [input, h('span', {text: option})]);
  });
  card.status = h('p', {class: 'ma-tcr-status', 'data-judged': chosen.length ? 'true' : 'false',
    text: marks.statusText(chosen)});
  var verdictGroup = h('div', {class: 'ma-tcr-verdicts', role: config.multi_verdict ? 'group' : 'radiogroup',
    'aria-label': 'Verdict'}, [h('span', {class: 'ma-tcr-group-label', 'aria-hidden': 'true', text: 'Verdict'}),
    choices, h('button', {type: 'button', class: 'ma-tcr-clear', 'data-ma-part': 'clear',
      'data-ma-focus': focusBase + 'clear', text: 'Clear verdict'})]);
  if (config.allow_notes !== false) {
    card.notes = h('textarea', {class: 'ma-tcr-notes-input', rows: '2', 'data-ma-part': 'notes',
      'data-ma-focus': focusBase + 'notes', maxlength: runtime.textLimit});
    card.notes.value = entry && typeof entry.notes === 'string' ? entry.notes : '';
  }
  var title = marks.cardTitle(call);
  card.judgmentBox = h('div', {class: 'ma-judgments ma-tcr-judgments', 'data-ma': 'judgments'});
  card.li = h('li', {class: 'ma-tcr-card', 'data-ma-call': String(call.index),
    'data-judged': chosen.length ? 'true' : 'false'}, [
    h('section', {role: 'group', 'aria-label': title}, [
      h('h4', {class: 'ma-tcr-title', text: title}),
      traceLinks(view, call),
      card.status,
      call.id === null ? null : h('p', {class: 'ma-tcr-id', text: 'Call id: ' + call.id}),
      expandable(view, 'arguments', marks.argumentsView(call), ARGUMENT_PREVIEW, 'Show all arguments',
        focusBase),
      resultBlock(view, call, focusBase),
      errorLine(view, call),
      verdictGroup,
      card.judgmentBox,
      card.notes ? h('label', {class: 'ma-tcr-notes'}, [h('span', {text: 'Notes'}), card.notes]) : null
    ])
  ]);
  showJudgments(view, card);
  return card;
}

/** "In the trace: call at #N, result in #M": ui.stepLink (a button with a trace view, else text). */
function traceLinks(view, call) {
  if (!document.querySelector('section.ma-trace')) { return null; }
  var ui = view.ui;
  var hasResult = typeof call.result_step === 'number';
  return ui.h('p', {class: 'ma-tcr-trace-links'}, ['In the trace: call at ', ui.stepLink(call.step),
    hasResult ? ', result in ' : null, hasResult ? ui.stepLink(call.result_step) : null]);
}

/** The failure the trace records for the call (its result step's error, else its own), as text. */
function errorLine(view, call) {
  if (typeof call.error !== 'string') { return null; }
  return view.ui.h('p', {class: 'ma-tcr-error', 'data-ma-part': 'error', text: 'Error: ' + call.error});
}

function resultBlock(view, call, focusBase) {
  var h = view.ui.h;
  var shown = marks.resultView(call, view.derivation);
  if (shown === null) { return null; }
  if (shown.empty) {
    return h('div', {class: 'ma-tcr-block ma-tcr-result'}, [h('p', {class: 'ma-tcr-label', text: shown.label}),
      h('p', {class: 'ma-tcr-empty', text: shown.empty})]);
  }
  return expandable(view, 'result', shown, RESULT_PREVIEW, 'Show the whole result', focusBase);
}

/** A labelled <pre> showing the start of a long text, with a toggle for the rest. */
function expandable(view, part, shown, limit, showLabel, focusBase) {
  var h = view.ui.h;
  var start = marks.preview(shown.text, limit);
  var children = [h('p', {class: 'ma-tcr-label', text: shown.label})];
  if (shown.text !== '') {
    children.push(h('pre', {class: 'ma-tcr-code', 'data-ma-part': part + '-text', text: start.text}));
  }
  if (start.cut) {
    children.push(h('button', {type: 'button', class: 'ma-tcr-toggle', 'data-ma-part': part + '-toggle',
      'data-ma-focus': focusBase + part + '-toggle', 'aria-expanded': 'false', 'data-ma-show': showLabel,
      text: showLabel + ' (' + shown.text.length + ' characters)'}));
  }
  var block = h('div', {class: 'ma-tcr-block ma-tcr-' + part}, children);
  expandableTexts.set(block, {full: shown.text, preview: start.text});
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

/**
 * The judgments on this call beside its verdicts, labelled with their source, each with its Accept
 * (runtime.acceptButton: copies its verdicts, stores from_judgment); shown per config.show_judgments.
 */
function showJudgments(view, card) {
  var box = card.judgmentBox;
  var judgments = view.judgments.get(card.call.index) || [];
  var config = view.config;
  var shown = judgments.length > 0 && marks.judgmentsShown(config,
    marks.isJudged(view.judgements[card.call.index], config), view.judged === view.calls.calls.length);
  var key = shown ? 'shown' : 'hidden';
  box.hidden = !shown;
  if (box.getAttribute('data-ma-state') !== key) {   // an Accept repainted in place keeps the focus
    box.setAttribute('data-ma-state', key);
    view.ui.clear(box);
    var h = view.ui.h;
    (shown ? judgments : []).forEach(function (judgment, k) {
      box.appendChild(h('p', {class: 'ma-judgment ma-tcr-judgment', 'data-ma': 'judgment'}, [
        h('span', {text: marks.judgmentText(judgment)}),
        runtime.acceptButton({source: judgment.source, attrs: {class: 'ma-button', 'data-ma-part': 'accept',
          'data-ma-judgment': String(k), 'data-ma-focus': 'call-' + card.call.index + '-accept-' + k},
          onAccept: function () { acceptJudgment(view, card, k); }})
      ]));
    });
  }
  box.querySelectorAll('[data-ma-part="accept"]').forEach(function (button, k) {
    runtime.paintAccept(button, {source: judgments[k].source, accepted: card.fromJudgment === judgments[k].source});
  });
}

/** Accept a judgment: its verdicts into the controls, from_judgment stored with them. */
function acceptJudgment(view, card, k) {
  var judgment = (view.judgments.get(card.call.index) || [])[k];
  if (!judgment) { return; }
  (view.config.verdict_options || []).forEach(function (option, i) {
    card.inputs[i].checked = judgment.verdicts.indexOf(option) >= 0 &&
      (view.config.multi_verdict || option === judgment.verdicts[0]);
  });
  card.fromJudgment = judgment.source;
  commitCall(view, card.call.index);
}

// -- page ----------------------------------------------------------------------------------

/**
 * Build cards `first`..`end` of the filtered calls (the pager's page) in one fragment; typing
 * is stored first (its card goes). The pager keeps the focus on the same logical control.
 */
function drawCards(view, first, end) {
  view.typing.flush();
  view.cards = new Map();
  var fragment = document.createDocumentFragment();
  var items = view.order.slice(first, end).map(function (callIndex) {
    var card = buildCard(view, view.calls.calls[callIndex]);
    view.cards.set(callIndex, card);
    fragment.appendChild(card.li);
    return card.li;
  });
  view.cardList.textContent = '';
  view.cardList.appendChild(fragment);
  view.matches.textContent = matchesText(view);
  view.matches.hidden = view.matches.textContent === '';
  return items;
}

/** What the filters keep, when they keep less than every call (the pager says where the page is). */
function matchesText(view) {
  var total = view.calls.calls.length;
  if (total === 0) { return 'This trace has no tool calls.'; }
  if (view.order.length === total) { return ''; }
  if (view.order.length === 0) { return 'No call matches these filters.'; }
  return view.order.length + ' of ' + total + ' tool calls match these filters.';
}

function applyFilters(view) {
  view.typing.flush();
  var agent = Number(view.agentFilter.value);
  var tool = Number(view.toolFilter.value);
  view.order = marks.filterCalls(view.calls.calls, agent === ALL ? ALL : view.agents[agent],
    tool === ALL ? ALL : view.tools[tool]);
  view.pager.recount(view.order.length);
}

/** Show the card of call `callIndex` (its page; all filters off when they hide it) and focus its first verdict. */
function openCall(view, callIndex, words) {
  var position = view.order.indexOf(callIndex);
  if (position < 0) {
    view.agentFilter.value = String(ALL);
    view.toolFilter.value = String(ALL);
    view.order = marks.filterCalls(view.calls.calls, ALL, ALL);
    position = view.order.indexOf(callIndex);
    view.pager.show(view.order.length);
  }
  view.pager.open(position);
  var card = view.cards.get(callIndex);
  (card.inputs[0] || card.li).focus();
  card.li.scrollIntoView({block: 'nearest'});
  view.ui.announce(marks.cardTitle(card.call) + ': ' + words);
}

function goToNextUnjudged(view) {
  view.typing.flush();
  var config = view.config;
  var current = cardOf(view, document.activeElement);
  var from = current ? view.order.indexOf(current.call.index) : view.pager.bounds().first - 1;
  var position = marks.nextUnjudged(view.order, from, function (callIndex) {
    return marks.isJudged(view.judgements[callIndex], config);
  });
  if (position < 0) {
    view.ui.announce(view.order.length === view.calls.calls.length ? 'Every tool call is judged.'
      : 'Every call matching the filters is judged.');
    return;
  }
  openCall(view, view.order[position], 'not judged yet.');
}

// -- actions -------------------------------------------------------------------------------

function onChoice(view, target) {
  var card = cardOf(view, target);
  if (card && card.inputs.indexOf(target) >= 0) { card.fromJudgment = null; commitCall(view, card.call.index); }
}

function onCardClick(view, target) {
  var button = target.closest ? target.closest('button[data-ma-part]') : null;
  var card = button ? cardOf(view, button) : null;
  if (!card) { return; }
  var part = button.getAttribute('data-ma-part');
  if (part === 'clear') {
    card.inputs.forEach(function (input) { input.checked = false; });
    card.fromJudgment = null;
    commitCall(view, card.call.index);
  } else if (part === 'arguments-toggle' || part === 'result-toggle') {
    toggleExpandable(button);
  }
}

/** Arrow keys inside a verdict group move between the choices (radios also choose), and stop here. */
function onCardKey(view, event) {
  var card = cardOf(view, event.target);
  var from = card ? card.inputs.indexOf(event.target) : -1;
  if (from < 0) { return; }
  var count = card.inputs.length;
  var to = event.key === 'Home' ? 0 : event.key === 'End' ? count - 1
    : Object.prototype.hasOwnProperty.call(ARROW_STEP, event.key) ? (from + ARROW_STEP[event.key] + count) % count
      : -1;
  if (to < 0) { return; }
  event.preventDefault();
  event.stopPropagation();
  var input = card.inputs[to];
  input.focus();
  if (input.type === 'radio') {
    input.checked = true;
    card.fromJudgment = null;
    commitCall(view, card.call.index);
  }
}

/** Store what one card shows: one entry replaced in memory, one write (the runtime paints the words). */
function commitCall(view, callIndex) {
  var card = view.cards.get(callIndex);
  if (!card) { return; }
  if (view.typingCall === callIndex) { view.typing.cancel(); view.typingCall = null; }
  var config = view.config;
  var verdicts = (config.verdict_options || []).filter(function (option, i) { return card.inputs[i].checked; });
  var notes = card.notes ? card.notes.value : '';
  var before = view.judgements[callIndex];
  var entry = marks.composeEntry(card.call, card.position, verdicts, notes, config, card.fromJudgment);
  view.judged += (marks.isJudged(entry, config) ? 1 : 0) - (marks.isJudged(before, config) ? 1 : 0);
  view.judgements[callIndex] = entry;
  view.unreadable = null;
  card.status.textContent = marks.statusText(verdicts);
  card.status.setAttribute('data-judged', verdicts.length ? 'true' : 'false');
  card.li.setAttribute('data-judged', verdicts.length ? 'true' : 'false');
  view.cards.forEach(function (shownCard) { showJudgments(view, shownCard); });   // after_answer
  view.model.set(marks.composeValue(view.judgements, view.extras));
  view.ui.announce(marks.cardTitle(card.call) + ': ' + marks.statusText(verdicts).toLowerCase() + '. ' +
    marks.summaryText(view.judged, view.calls.calls.length, view.extras.length));
}

// ---------------------------------------------------------------------------------------------
// Render (the runtime calls it on load, on Potato's instance-ready, after a merge or a Remove)
// ---------------------------------------------------------------------------------------------

function render(args) {
  var ui = args.ui;
  var view = ui.state.view || (ui.state.view = createView(args.el, ui));
  view.ui = ui;
  view.model = args.model;
  view.config = args.config;
  view.schemaName = args.schemaName;
  view.record = args.record;
  var fresh = view.derivation !== args.derivation;
  if (fresh) { adoptDerivation(view, args.derivation); }
  view.judgments = marks.judgmentsByCall(marks.judgmentsOf(args.record, args.config, args.schemaName), view.calls,
    args.config);
  adoptValue(view, args.model.get());
  if (fresh) { view.pager.show(view.order.length); } else { view.pager.redraw(); }
  // The trace view's "Open tool call" (action 'open-tool-call'): the first call of that step.
  ui.onStepAction('open-tool-call', function (detail, event) {
    if (typeof detail.index !== 'number') { return; }
    var callIndex = marks.firstCallAtStep(view.calls.calls, detail.index);
    if (callIndex < 0) { return; }
    view.typing.flush();
    openCall(view, callIndex, marks.statusText(marks.chosenVerdicts(view.judgements[callIndex], view.config))
      .toLowerCase() + '.');
    event.preventDefault();
  });
}

runtime.define('tool_call_review', {describe: marks.describe, render: render, stepActions: [{action: 'open-tool-call', label: 'Open tool call',
    applies: function (row) { return row.toolCalls.length > 0; }}],
  references: marks.references});
