/*
 * view.js of `multiagent.agent_scorecard`: the DOM of the widget, on the runtime (runtime.js).
 *
 * A grid of radio groups: one row per agent of the trace (the roster first), one column per agent
 * dimension, and a separate team row; each cell is a radio group named "AGENT: DIMENSION" (or
 * "Team: DIMENSION") offering the scores 1..scale and, with allow_na, "not applicable". Milestones
 * are checkboxes; with milestone_steps each ticked milestone gets a step picker and, once a step
 * is chosen, a link to it in the trace (ui.stepLink). Agents of the value that the trace lacks
 * stay as rows marked "not in this trace" until removed; marks the config does not ask for are
 * listed in the notices and removed by one button. Rules and words are in marks.js.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';

var marks = runtime.marksOf('agent_scorecard');
var NA = marks.NA;
var NOT_IN_TRACE = marks.NOT_IN_TRACE;
var own = marks.own;
var rowName = marks.rowName;
// Arrow keys move the choice within one cell, as native radios do, but handled here so that
// Potato (which turns Left/Right into Prev/Next) never sees them.
var ARROW_STEP = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};
// The words of the action being stored, said before the summary (describe cannot know them).
var pendingChange = null;

function h(tag, attrs, children) { return runtime.h(tag, attrs, children); }

function createView(el, ui) {
  var agentsTable = ui.hook('agents');
  var teamTable = ui.hook('team');
  var view = {
    el: el,
    agentsBody: agentsTable && agentsTable.querySelector('tbody'),
    teamBody: teamTable && teamTable.querySelector('tbody'),
    milestoneList: ui.hook('milestones'),
    remaining: ui.hook('remaining'),
    dropButton: ui.hook('drop-unasked'),
    cellOf: new WeakMap(),        // radio -> {group, choice}
    pickerOf: new WeakMap(),      // milestone checkbox or step select -> its picker
    groups: [],                   // every cell: {row, dim, radios: [{input, choice}]}
    rows: [],                     // the agent rows: {row, stale, groups, controls}
    rowsKey: null,
    pickers: [],
    stepOptions: null,            // every step's <option>, to clone into a picker
    derivation: null,
    value: marks.emptyValue(),
    args: null
  };
  if (!view.agentsBody || !view.teamBody || !view.remaining || !view.dropButton) {
    throw new Error('the page lacks the parts of this question (data-ma agents, team, remaining, drop-unasked)');
  }
  el.addEventListener('change', function (event) { onChange(view, event.target); });
  el.addEventListener('focusin', function (event) { keepClearOfStickyParts(event.target); });
  if (typeof ResizeObserver === 'function') {   // shown by display logic, the window resized: widths changed
    new ResizeObserver(function () { padForStickyParts(el); }).observe(el);
  }
  el.addEventListener('keydown', function (event) { onKeydown(view, event); });
  view.dropButton.addEventListener('click', function () { dropUnasked(view); });
  return view;
}

/** A control's identity across rebuilds (data-ma-focus); an agent called "Team" is not the team row. */
function focusKey(kind, row, detail) {
  return JSON.stringify([kind, row.team ? 'team' : 'agent', rowName(row)].concat(detail));
}

function keyed(control, key) {
  control.setAttribute('data-ma-focus', key);
  return control;
}

/** One cell: a radio group named "ROW: DIMENSION" with a radio per score, then N/A. */
function buildCell(view, row, dim, config) {
  var group = {row: row, dim: dim, radios: []};
  var groupName = 'ma-asc-' + view.groups.length;
  var choices = [];
  for (var score = 1; score <= config.scale; score++) { choices.push(score); }
  if (config.allow_na) { choices.push(NA); }
  var options = choices.map(function (choice) {
    var name = marks.optionName(choice, config);
    var input = keyed(h('input', {type: 'radio', class: 'ma-asc-radio', name: groupName,
      value: choice === NA ? 'na' : String(choice), 'aria-label': name}), focusKey('cell', row, [dim, String(choice)]));
    view.cellOf.set(input, {group: group, choice: choice});
    group.radios.push({input: input, choice: choice});
    // The title names the cell too: in a long grid the headers may be out of view.
    return h('label', {class: choice === NA ? 'ma-asc-option ma-asc-na' : 'ma-asc-option',
      title: rowName(row) + ' \u00B7 ' + dim + ': ' + name},
      [input, choice === NA ? 'N/A' : String(choice)]);
  });
  view.groups.push(group);
  group.judged = h('div', {class: 'ma-asc-judged', hidden: true});
  return {group: group, node: h('td', null, [h('div', {class: 'ma-asc-cell', role: 'radiogroup',
    'aria-label': rowName(row) + ': ' + dim}, options), group.judged])};
}

/** The row header: the name, then Rest N/A; or "(not in this trace)" and Remove. */
function buildRowHeader(view, entry, dims, config) {
  var row = entry.row;
  if (entry.stale) {
    entry.controls.push(keyed(h('button', {type: 'button',
      class: 'ma-asc-remove', 'aria-label': 'Remove ' + row.agent + NOT_IN_TRACE, text: 'Remove',
      on: {click: function () { removeRow(view, entry); }}}), focusKey('remove', row, [])));
  }
  if (config.allow_na && !entry.stale) {   // a row not in this trace has no cells to fill
    entry.controls.push(keyed(h('button', {type: 'button',
      class: 'ma-asc-rest-na', 'aria-label': 'Rest N/A for ' + rowName(row), text: 'Rest N/A',
      title: 'Mark every cell of this row that is not scored yet as not applicable',
      on: {click: function () { markRestNotApplicable(view, entry, dims); }}}), focusKey('rest-na', row, [])));
  }
  return h('th', {scope: 'row', class: 'ma-asc-row-name'}, [
    h('span', {class: 'ma-asc-name', text: rowName(row)}),
    entry.stale ? h('span', {class: 'ma-asc-stale', text: NOT_IN_TRACE}) : null,
    h('span', {class: 'ma-asc-row-actions ma-buttons'}, entry.controls)
  ]);
}

function buildRow(view, row, stale, dims, config) {
  var entry = {row: row, stale: stale, groups: [], controls: []};
  var header = buildRowHeader(view, entry, dims, config);
  var cells = dims.map(function (dim) { return buildCell(view, row, dim, config); });
  entry.groups = cells.map(function (cell) { return cell.group; });
  entry.node = h('tr', {class: stale ? 'ma-asc-row ma-asc-row-stale' : 'ma-asc-row'},
    [header, cells.map(function (cell) { return cell.node; })]);
  return entry;
}

/** (Re)build the rows when the set of rows changed; focus returns to the same control. */
function syncRows(view, config, derivation) {
  var stale = marks.staleAgents(view.value, derivation.agents);
  var key = JSON.stringify([derivation.agents, stale]);
  if (key === view.rowsKey) { return; }
  var active = document.activeElement;
  var focused = active && view.el.contains(active) ? active.getAttribute('data-ma-focus') : null;
  view.rowsKey = key;
  view.groups = [];
  view.rows = derivation.agents.map(function (name) {
    return buildRow(view, {agent: name}, false, config.agent_dimensions, config);
  }).concat(stale.map(function (name) {
    return buildRow(view, {agent: name}, true, config.agent_dimensions, config);
  }));
  replaceRows(view.agentsBody, view.rows);
  replaceRows(view.teamBody, [buildRow(view, {team: true}, false, config.team_dimensions, config)]);
  if (focused !== null) { refocus(view, focused); }
}

function refocus(view, key) {
  var candidates = view.el.querySelectorAll('[data-ma-focus]');
  for (var i = 0; i < candidates.length; i++) {
    if (candidates[i].getAttribute('data-ma-focus') === key) { candidates[i].focus(); return; }
  }
}

function replaceRows(body, entries) {
  var rows = document.createDocumentFragment();
  entries.forEach(function (entry) { rows.appendChild(entry.node); });
  body.textContent = '';
  body.appendChild(rows);
}

function paintGroups(view, groups) {
  groups.forEach(function (group) {
    var choice = marks.cellChoice(view.value, group.row, group.dim);
    group.radios.forEach(function (radio) {
      var checked = radio.choice === choice;
      if (radio.input.checked !== checked) { radio.input.checked = checked; }
    });
  });
}

function buildMilestones(view, config) {
  view.pickers = [];
  if (!view.milestoneList) { return; }
  var items = document.createDocumentFragment();
  config.milestones.forEach(function (name) {
    var picker = {name: name, checkbox: h('input', {type: 'checkbox', class: 'ma-asc-milestone-box'}),
      select: null, link: null, filled: false, staleOption: null};
    keyed(picker.checkbox, JSON.stringify(['milestone', name]));
    view.pickerOf.set(picker.checkbox, picker);
    var children = [h('label', {class: 'ma-asc-milestone-name'}, [picker.checkbox, name])];
    if (config.milestone_steps) {
      picker.select = h('select', {class: 'ma-asc-step', 'aria-label': 'Step where ' + name + ' was reached'});
      view.pickerOf.set(picker.select, picker);
      ['focus', 'mousedown', 'keydown'].forEach(function (type) {
        picker.select.addEventListener(type, function () { fillSteps(view, picker); });
      });
      keyed(picker.select, JSON.stringify(['milestone-step', name]));
      picker.link = h('span', {class: 'ma-asc-step-link', 'data-ma': 'milestone-step-link', hidden: true});
      children.push(picker.select, picker.link);
    }
    picker.judged = h('span', {class: 'ma-asc-judged', hidden: true});
    children.push(picker.judged);
    view.pickers.push(picker);
    items.appendChild(h('li', {class: 'ma-asc-milestone'}, children));
  });
  view.milestoneList.textContent = '';
  view.milestoneList.appendChild(items);
}

function chosenStep(value, name) {
  var step = own(value.milestone_steps, name);
  return typeof step === 'number' ? step : null;
}

function stepOption(label, step) {
  return h('option', {value: step === null ? '' : String(step), text: label});
}

/** Every step's option, built once per trace; each picker gets a copy (cloning is cheap). */
function allStepOptions(view) {
  if (!view.stepOptions) {
    view.stepOptions = document.createDocumentFragment();
    view.derivation.steps.forEach(function (step) { view.stepOptions.appendChild(stepOption(marks.stepLabel(step), step.index)); });
  }
  return view.stepOptions.cloneNode(true);
}

/** Options of a picker: every step once the annotator opens it, else only the chosen one. */
function showStepOptions(view, picker, step) {
  var steps = view.derivation.steps;
  var options = document.createDocumentFragment();
  options.appendChild(stepOption('\u2014 step not recorded \u2014', null));
  picker.staleOption = step !== null && step >= steps.length ? stepOption('#' + (step + 1) + NOT_IN_TRACE, step) : null;
  if (picker.staleOption) { options.appendChild(picker.staleOption); }
  if (picker.filled) {
    options.appendChild(allStepOptions(view));
  } else if (step !== null && step < steps.length) {
    options.appendChild(stepOption(marks.stepLabel(steps[step]), step));
  }
  picker.select.textContent = '';
  picker.select.appendChild(options);
  picker.select.value = step === null ? '' : String(step);
}

function fillSteps(view, picker) {
  if (picker.filled) { return; }
  picker.filled = true;
  showStepOptions(view, picker, chosenStep(view.value, picker.name));
}

/** A step "not in this trace" stays in its picker until the annotator picks another. */
function dropUnselectedStale(picker) {
  if (picker.staleOption && !picker.staleOption.selected) {
    picker.select.removeChild(picker.staleOption);
    picker.staleOption = null;
  }
}

function paintMilestones(view) {
  view.pickers.forEach(function (picker) {
    var reached = own(view.value.milestones, picker.name) === true;
    if (picker.checkbox.checked !== reached) { picker.checkbox.checked = reached; }
    if (!picker.select) { return; }
    picker.select.hidden = !reached;
    var step = chosenStep(view.value, picker.name);
    if (picker.select.value !== (step === null ? '' : String(step)) || !picker.select.options.length) {
      showStepOptions(view, picker, step);
    }
    showStepLink(view, picker, reached ? step : null);
  });
}

/** "reached at #N" beside a picker, #N a link to the step in the trace (ui.stepLink). */
function showStepLink(view, picker, step) {
  var shown = step !== null && step < view.derivation.steps.length ? String(step) : '';
  if (picker.link.getAttribute('data-ma-step') === shown) { return; }
  picker.link.setAttribute('data-ma-step', shown);
  picker.link.textContent = '';
  picker.link.hidden = shown === '';
  if (shown !== '') { picker.link.append('reached at ', view.ui.stepLink(step)); }
}

// ---------------------------------------------------------------------------------------------
// Actions: one new value, one model.set, then only the touched controls are repainted
// ---------------------------------------------------------------------------------------------

function onChange(view, target) {
  var cell = view.cellOf.get(target);
  if (cell) {
    if (target.checked) { chooseCell(view, cell.group, cell.choice); }
    return;
  }
  var picker = view.pickerOf.get(target);
  if (!picker) { return; }
  var byHand = marks.withSource(view.value, marks.milestoneKey(picker.name), null);   // its source goes
  if (target === picker.checkbox) {
    commit(view, marks.withMilestone(byHand, picker.name, target.checked),
      picker.name + (target.checked ? ': reached.' : ': not reached.'));
    paintMilestones(view);
  } else {
    dropUnselectedStale(picker);
    var step = target.value === '' ? null : Number(target.value);
    commit(view, marks.withMilestoneStep(byHand, picker.name, step),
      picker.name + (step === null ? ': step not recorded.' : ': reached at step #' + (step + 1) + '.'));
  }
}

function onKeydown(view, event) {
  var cell = view.cellOf.get(event.target);
  var step = ARROW_STEP[event.key];
  if (!cell || !step || event.altKey || event.ctrlKey || event.metaKey) { return; }
  event.preventDefault();
  event.stopPropagation();
  var radios = cell.group.radios;
  var at = radios.findIndex(function (radio) { return radio.input === event.target; });
  var next = radios[(at + step + radios.length) % radios.length];
  next.input.checked = true;
  next.input.focus();
  chooseCell(view, cell.group, next.choice);
}

function chooseCell(view, group, choice) {
  var config = view.args.config;
  commit(view, marks.withJudgedCell(view.value, group.row, group.dim, choice, null),
    rowName(group.row) + ': ' + group.dim + ' ' + marks.choiceWords(choice, config) + '.');
}

function markRestNotApplicable(view, entry, dims) {
  commit(view, marks.withRowNotApplicable(view.value, entry.row, dims),
    rowName(entry.row) + ': every cell not scored yet marked not applicable.');
  paintGroups(view, entry.groups);
}

function removeRow(view, entry) {
  var at = view.rows.indexOf(entry);
  commit(view, marks.withoutAgent(view.value, entry.row.agent), entry.row.agent + ' removed.');
  syncRows(view, view.args.config, view.derivation);
  paintGroups(view, view.groups);
  focusRowNear(view, at);
}

/** After a row went away: the first control of the row now in its place, or the one above. */
function focusRowNear(view, at) {
  var entry = view.rows[at] || view.rows[at - 1];
  var control = entry && (entry.controls[0] || entry.groups[0] && entry.groups[0].radios[0].input);
  (control || view.remaining).focus();
}

function dropUnasked(view) {
  commit(view, marks.fittingValue(view.value, view.args.config), 'Marks this question does not ask for removed.');
  syncRows(view, view.args.config, view.derivation);
  paintGroups(view, view.groups);
  paintMilestones(view);
  view.remaining.focus();
}

// ---------------------------------------------------------------------------------------------
// Judgments: each judge's answer beside its cell or milestone, accepted with one click
// ---------------------------------------------------------------------------------------------

/** Whether judgments show for a control now (config.show_judgments; after_answer: answered or complete). */
function judgmentsShownFor(view, answered) {
  var count = marks.progress(view.value, view.args.config, view.derivation.agents);
  return marks.judgmentsShown(view.args.config, answered, count.total > 0 && count.done >= count.total);
}

/**
 * The judgments of one cell or milestone, each "SOURCE: 4" as its Accept, named "Accept SOURCE’s
 * answer for WHERE (4)" (inert text only). judged: [{source, words, accept}]. The buttons are
 * rebuilt only when what they say changes; an Accept is repainted in place, so it keeps the focus.
 */
function paintBox(box, where, judged, accepted) {
  var options = judged.map(function (entry) {
    return {source: entry.source, accepted: accepted === entry.source, about: 'for ' + where + ' (' + entry.words + ')',
      text: entry.source + ': ' + entry.words, onAccept: entry.accept};
  });
  var signature = JSON.stringify(options.map(function (option) { return option.text; }));
  if (box.getAttribute('data-ma-shown') !== signature) {
    box.setAttribute('data-ma-shown', signature);
    box.textContent = '';
    box.hidden = options.length === 0;
    options.forEach(function (option, k) {
      box.appendChild(runtime.acceptButton(Object.assign({attrs: {class: 'ma-asc-judgment', 'data-ma': 'judgment',
        'data-ma-source': option.source, 'data-ma-focus': 'judgment-' + where + '-' + k,
        title: 'Accept ' + option.source + '\u2019s answer: ' + judged[k].words}}, option)));
    });
  }
  box.querySelectorAll('[data-ma="judgment"]').forEach(function (button, k) { runtime.paintAccept(button, options[k]); });
}

function paintCellJudgments(view, group) {
  var config = view.args.config;
  var key = marks.judgmentKey(group.row, group.dim);
  var shown = judgmentsShownFor(view, marks.cellChoice(view.value, group.row, group.dim) !== null);
  var judged = !shown ? [] : view.judgments.map(function (judgment) {
    return {source: judgment.source, choice: marks.judgedChoice(judgment, group.row, group.dim, config)};
  }).filter(function (entry) { return entry.choice !== null; }).map(function (entry) {
    return {source: entry.source, words: entry.choice === NA ? 'N/A' : String(entry.choice),
      accept: function () { acceptCell(view, group, entry); }};
  });
  paintBox(group.judged, rowName(group.row) + ': ' + group.dim, judged, marks.own(view.value.from_judgment, key) || null);
}

function paintMilestoneJudgments(view, picker) {
  var shown = judgmentsShownFor(view, own(view.value.milestones, picker.name) === true);
  var judged = !shown ? [] : view.judgments.map(function (judgment) {
    var entry = {source: judgment.source, answer: marks.judgedMilestone(judgment, picker.name)};
    return {source: entry.source, words: marks.milestoneWords(entry.answer),
      accept: function () { acceptMilestone(view, picker, entry); }};
  });
  paintBox(picker.judged, picker.name, judged,
    marks.own(view.value.from_judgment, marks.milestoneKey(picker.name)) || null);
}

function paintJudgments(view) {
  view.groups.forEach(function (group) { paintCellJudgments(view, group); });
  view.pickers.forEach(function (picker) { paintMilestoneJudgments(view, picker); });
}

function acceptCell(view, group, entry) {
  commit(view, marks.withJudgedCell(view.value, group.row, group.dim, entry.choice, entry.source),
    rowName(group.row) + ': ' + group.dim + ' ' + marks.choiceWords(entry.choice, view.args.config) +
    ', accepted from ' + entry.source + '.');
  paintGroups(view, [group]);
}

function acceptMilestone(view, picker, entry) {
  commit(view, marks.withJudgedMilestone(view.value, picker.name, entry.answer, entry.source, view.args.config),
    picker.name + ': ' + marks.milestoneWords(entry.answer) + ', accepted from ' + entry.source + '.');
  paintMilestones(view);
}

/** Store a value (the runtime paints summary, completeness and notices), then the counts. */
function commit(view, value, change) {
  view.value = value;
  pendingChange = change;
  try {
    view.model.set(marks.isEmptyValue(value) ? null : value);
  } finally {
    pendingChange = null;
  }
  paintCounts(view);
  paintJudgments(view);
}

/** "N of M cells left" and the button that drops the marks the config does not ask for. */
function paintCounts(view) {
  var config = view.args.config;
  var count = marks.progress(view.value, config, view.derivation.agents);
  var unasked = marks.unaskedCount(view.value, config, view.derivation);
  view.remaining.textContent = marks.remainingText(count);
  view.dropButton.hidden = unasked === 0;
  view.dropButton.textContent = 'Remove ' + unasked + ' saved mark' + (unasked === 1 ? '' : 's') +
    ' this question does not ask for';
}

/** marks.describe, with the words of the action being stored first in the summary. */
function describe(value, ctx) {
  var said = marks.describe(value, ctx);
  if (pendingChange) { said.summary = pendingChange + ' ' + said.summary; }
  return said;
}

/** One render pass (load, instance-ready, a merge from another tab): show the stored value. */
/**
 * The agent names stay on the left and the dimension headers on top while the grid scrolls: a cell
 * focused under either (Tab, arrows) is scrolled clear of them, so the focused score is seen, and
 * clicked, not the row's name over it.
 */
function keepClearOfStickyParts(target) {
  var cell = target.closest && target.closest('td');
  var scroller = cell && cell.closest('.ma-asc-scroll');
  if (!scroller) { return; }
  var box = cell.getBoundingClientRect();
  var name = cell.parentNode.querySelector('th.ma-asc-row-name');
  var head = scroller.querySelector('thead');
  var left = name ? name.getBoundingClientRect().right : scroller.getBoundingClientRect().left;
  var top = head ? head.getBoundingClientRect().bottom : scroller.getBoundingClientRect().top;
  if (box.left < left) { scroller.scrollLeft -= left - box.left + 2; }
  if (box.top < top) { scroller.scrollTop -= top - box.top + 2; }
}

/**
 * Each grid's scroll padding is its sticky parts' size (the names' column, the header row), so
 * whatever scrolls a score into view (the browser's focus, scrollIntoView, a test driver's click)
 * stops with the score beside the names, never under them.
 */
function padForStickyParts(el) {
  el.querySelectorAll('.ma-asc-scroll').forEach(function (scroller) {
    var name = scroller.querySelector('tbody th.ma-asc-row-name');
    var head = scroller.querySelector('thead');
    scroller.style.scrollPaddingLeft = (name ? name.getBoundingClientRect().width : 0) + 'px';
    scroller.style.scrollPaddingTop = (head ? head.getBoundingClientRect().height : 0) + 'px';
  });
}

function render(args) {
  var ui = args.ui;
  var view = ui.state.view || (ui.state.view = createView(args.el, ui));
  view.args = args;
  view.ui = ui;
  view.model = args.model;
  view.value = args.model.get().value || marks.emptyValue();
  view.judgments = marks.judgmentsOf(args.record, args.config, args.schemaName);
  if (view.derivation !== args.derivation) {
    view.derivation = args.derivation;
    view.stepOptions = null;
    view.rowsKey = null;
    buildMilestones(view, args.config);
  }
  syncRows(view, args.config, args.derivation);
  paintGroups(view, view.groups);
  paintMilestones(view);
  paintCounts(view);
  paintJudgments(view);
  padForStickyParts(view.el);
}

runtime.define('agent_scorecard', {describe: describe, render: render, references: marks.references});
