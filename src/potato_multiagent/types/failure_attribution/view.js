/*
 * view.js of `multiagent.failure_attribution`: the DOM of the widget, on the runtime (runtime.js).
 *
 * The annotator picks the responsible agent, the decisive step (a searchable windowed combobox)
 * and writes a reason, with the three native controls of template.html. A stored agent or step
 * the trace does not contain is kept and shown as "not in this trace"; a stored value that cannot
 * be read is kept untouched until a control changes. The rules and words are in marks.js; the
 * runtime paints summary, completeness and notices from marks.describe after every model.set.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';

var marks = runtime.marksOf('failure_attribution');
var TYPING_DELAY_MS = 300;
var CHOSEN_TEXT_CHARS = 600;     // the chosen step's text shown unfolded up to here
var CHOSEN_TEXT_LINES = 8;

/** Find the template's controls and wire them once; the returned object lives across renders. */
function createView(el, ui) {
  var view = {
    agent: el.querySelector('select[data-ma-field="responsible_agent"]'),
    step: el.querySelector('input[data-ma-field="decisive_step"]'),
    stepList: ui.hook('step-list'),
    stepScroll: ui.hook('step-scroll'),
    stepStatus: ui.hook('step-status'),
    chosenBox: ui.hook('chosen'),
    judgmentsBox: ui.hook('judgments'),
    fromJudgment: null,            // the accepted judgment's source, kept until agent or step changes
    reason: el.querySelector('textarea[data-ma-field="reason"]'),
    plausibleInput: el.querySelector('input[data-ma-field="plausible_steps"]'),
    plausibleList: ui.hook('plausible-list'),
    certaintyInputs: Array.prototype.slice.call(el.querySelectorAll('input[data-ma-field="certainty"]')),
    plausible: [],                 // [{step, step_ref?}] the other plausible steps, most plausible first
    certainty: null,
    optionValues: new WeakMap(),   // <option> -> the agent name it stands for
    agentOptions: new Map(),       // agent name -> <option>
    staleAgentOption: null,
    chosenStep: null,              // the step index the picker holds (may be one the trace lacks)
    labels: [],                    // step index -> its option words, made when first shown
    haystacks: [],                 // step index -> what the search looks in, made when first searched
    derivation: null,
    model: null
  };
  if (!view.agent || !view.step || !view.stepList || !view.stepScroll || !view.reason || !view.chosenBox) {
    throw new Error('the page lacks the controls of this question (data-ma-field responsible_agent, ' +
      'decisive_step, reason; data-ma step-list, step-scroll, chosen)');
  }
  view.typing = ui.debounce(function () { commit(view); }, TYPING_DELAY_MS);
  view.agent.addEventListener('change', function () { dropUnselectedStale(view); view.fromJudgment = null; commit(view); });
  view.picker = ui.combobox({
    input: view.step, listbox: view.stepList, scroller: view.stepScroll, status: view.stepStatus,
    idBase: view.step.id || 'ma-fa-step',
    noun: 'step',
    count: function () { return view.derivation ? view.derivation.steps.length : 0; },
    label: function (index) { return labelOf(view, index); },
    number: function (index) { return index + 1; },
    haystack: function (index) { return haystackOf(view, index); },
    chosen: function () { return view.chosenStep; },
    choose: function (index) {
      view.chosenStep = index;
      view.fromJudgment = null;
      commit(view);
    }
  });
  if (view.plausibleInput) {
    view.plausiblePicker = ui.combobox({
      input: view.plausibleInput, listbox: ui.hook('plausible-options'), scroller: ui.hook('plausible-scroll'),
      status: ui.hook('plausible-status'), idBase: view.plausibleInput.id || 'ma-fa-plausible',
      noun: 'step',
      count: function () { return view.derivation ? view.derivation.steps.length : 0; },
      label: function (index) { return labelOf(view, index); },
      number: function (index) { return index + 1; },
      haystack: function (index) { return haystackOf(view, index); },
      chosen: function () { return null; },
      choose: function (index) {
        if (index === null) { return; }
        var next = marks.addPlausible(view.plausible, index, view.chosenStep);
        if (next && next.length <= view.maxPlausible) { view.plausible = next; commit(view); }
        view.plausiblePicker.show('');
      }
    });
  }
  view.certaintyInputs.forEach(function (input) {
    input.addEventListener('change', function () {
      if (input.checked) { view.certainty = input.value; commit(view); }
    });
  });
  view.reason.addEventListener('input', view.typing);
  view.reason.addEventListener('change', view.typing.flush);
  view.reason.addEventListener('blur', view.typing.flush);
  return view;
}

function labelOf(view, index) {
  if (view.labels[index] === undefined) { view.labels[index] = marks.stepLabel(view.derivation.steps[index]); }
  return view.labels[index];
}

function haystackOf(view, index) {
  if (view.haystacks[index] === undefined) { view.haystacks[index] = marks.stepHaystack(view.derivation.steps[index]); }
  return view.haystacks[index];
}

function option(view, label, value) {
  var node = document.createElement('option');
  node.value = value === null ? '' : String(value);
  node.textContent = label;
  if (value !== null) { view.optionValues.set(node, value); }
  return node;
}

/** The agent options for a derivation (one per agent, a bounded roster); step words reset. */
function fillOptions(view, derivation) {
  var agents = document.createDocumentFragment();
  agents.appendChild(option(view, '\u2014 choose an agent \u2014', null));
  view.agentOptions = new Map();
  derivation.agents.forEach(function (name) {
    var node = option(view, name, name);
    view.agentOptions.set(name, node);
    agents.appendChild(node);
  });
  view.agent.textContent = '';
  view.agent.appendChild(agents);
  view.staleAgentOption = null;
  view.chosenBox.removeAttribute('data-ma-step');
  view.labels = [];
  view.haystacks = [];
  view.derivation = derivation;
}

/** Select the agent mark; a mark the trace lacks gets its own option right after the placeholder. */
function selectAgent(view, mark) {
  removeStale(view);
  if (mark === null) {
    view.agent.selectedIndex = 0;
    return;
  }
  var known = view.agentOptions.get(mark);
  if (known) {
    known.selected = true;
    return;
  }
  var stale = option(view, mark + marks.NOT_IN_TRACE, mark);
  stale.className = 'ma-stale-option';
  view.agent.insertBefore(stale, view.agent.options[1] || null);
  stale.selected = true;
  view.staleAgentOption = stale;
}

function removeStale(view) {
  var stale = view.staleAgentOption;
  if (stale && stale.parentNode) { stale.parentNode.removeChild(stale); }
  view.staleAgentOption = null;
}

/** A "not in this trace" option stays until the annotator picks something else. */
function dropUnselectedStale(view) {
  if (view.staleAgentOption && !view.staleAgentOption.selected) { removeStale(view); }
}

function selectedAgent(view) {
  var node = view.agent.options[view.agent.selectedIndex];
  return node && view.optionValues.has(node) ? view.optionValues.get(node) : null;
}

/** The words the step box shows for the chosen step ("" when none): a step the trace lacks, or
 * one that changed since it was saved, says so instead of showing another step's words. */
function chosenStepWords(view) {
  var step = view.chosenStep;
  if (step === null) { return ''; }
  if (step >= view.derivation.steps.length) { return '#' + (step + 1) + marks.NOT_IN_TRACE; }
  return changed(view) ? '#' + (step + 1) + marks.CHANGED : labelOf(view, step);
}

/** Whether the chosen step is the stored decisive step and no longer the step it was saved on. */
function changed(view) {
  var stored = view.model ? view.model.get().value : null;
  return !!stored && stored.decisive_step === view.chosenStep && marks.staleMarks(stored, view.derivation).changed;
}

/** The chosen step's text (inert text, folded when long) and its neighbours, under the picker. */
function showChosenStep(view, ui) {
  var box = view.chosenBox;
  var steps = view.derivation.steps;
  var index = view.chosenStep;
  var key = String(index) + (changed(view) ? ' changed' : '');
  if (box.getAttribute('data-ma-step') === key) { return; }
  box.setAttribute('data-ma-step', key);
  box.textContent = '';
  box.hidden = index === null || index >= steps.length || changed(view);
  if (box.hidden) { return; }
  var step = steps[index];
  var h = ui.h;
  var fold = marks.foldText(step.text, CHOSEN_TEXT_CHARS, CHOSEN_TEXT_LINES);
  var parts = [
    h('p', {class: 'ma-fa-chosen-title'}, ['Step ', ui.stepLink(index), ' \u00B7 ' + marks.stepAgentWords(step)]),
    h('div', {class: 'ma-fa-chosen-text', text: (fold.head || '(no text)') + (fold.folded ? ' \u2026' : '')})
  ];
  if (fold.folded) {
    var more = h('details', {class: 'ma-fa-chosen-more'}, [h('summary', {text: 'Show the whole step'})]);
    more.addEventListener('toggle', function () {
      if (more.open && more.childNodes.length === 1) {
        more.appendChild(h('div', {class: 'ma-fa-chosen-text', text: step.text}));
      }
    });
    parts.push(more);
  }
  if (index > 0) { parts.push(h('p', {class: 'ma-fa-neighbour', text: 'Before: ' + labelOf(view, index - 1)})); }
  if (index + 1 < steps.length) { parts.push(h('p', {class: 'ma-fa-neighbour', text: 'After: ' + labelOf(view, index + 1)})); }
  parts.forEach(function (node) { box.appendChild(node); });
}

/** The ranked plausible steps, each with its words and Up / Down / Remove buttons. */
function showPlausible(view) {
  var list = view.plausibleList;
  if (!list) { return; }
  var key = JSON.stringify(view.plausible) + '|' + view.maxPlausible;
  if (list.getAttribute('data-ma-shown') === key && view.plausibleShownFor === view.derivation) { return; }
  list.setAttribute('data-ma-shown', key);
  view.plausibleShownFor = view.derivation;
  list.textContent = '';
  var h = view.ui.h;
  var count = view.plausible.length;
  view.plausible.forEach(function (entry, position) {
    var words = entry.step < view.derivation.steps.length ? labelOf(view, entry.step)
      : '#' + (entry.step + 1) + marks.NOT_IN_TRACE;
    var buttons = [['Up', -1, position === 0], ['Down', 1, position === count - 1], ['Remove', null, false]]
      .map(function (spec) {
        var button = h('button', {type: 'button', class: 'ma-fa-plausible-' + spec[0].toLowerCase(), text: spec[0],
          'aria-label': spec[0] + ' #' + (entry.step + 1)});
        button.disabled = spec[2];
        button.addEventListener('click', function () {
          view.plausible = marks.movePlausible(view.plausible, position, spec[1]);
          commit(view);
        });
        return button;
      });
    list.appendChild(h('li', {class: 'ma-fa-plausible-item', 'data-ma-step': String(entry.step)},
      [h('span', {class: 'ma-fa-plausible-words', text: words})].concat(buttons)));
  });
  if (view.plausibleInput) { view.plausibleInput.disabled = count >= view.maxPlausible; }
}

function showCertainty(view) {
  view.certaintyInputs.forEach(function (input) { input.checked = input.value === view.certainty; });
}

function showValue(view, value, ui) {
  selectAgent(view, marks.chosenAgent(value));
  view.chosenStep = marks.chosenStep(value);
  view.picker.show(chosenStepWords(view));
  showChosenStep(view, ui);
  view.fromJudgment = marks.fromJudgmentOf(value);
  view.plausible = marks.plausibleOf(value);
  view.certainty = marks.certaintyOf(value);
  showPlausible(view);
  showCertainty(view);
  var reason = value ? value.reason : '';
  if (view.reason.value !== reason) { view.reason.value = reason; }   // keeps the caret when equal
}

/**
 * The record's judgments for this scheme, beside the agent and step controls, each with its Accept
 * (runtime.acceptButton: agent and step; the reason when none is typed); shown per config.show_judgments.
 */
function showJudgments(view, judgments, mode, value) {
  var box = view.judgmentsBox;
  if (!box) { return; }
  var shown = judgments.length > 0 && marks.judgmentsShown(mode, value);
  box.hidden = !shown;
  var key = shown ? JSON.stringify(judgments) : '';
  if (box.getAttribute('data-ma-shown') !== key) {   // an Accept repainted in place keeps the focus
    box.setAttribute('data-ma-shown', key);
    box.textContent = '';
    var h = view.ui.h;
    (shown ? judgments : []).forEach(function (judgment, k) {
      box.appendChild(h('p', {class: 'ma-fa-judgment', 'data-source': judgment.source}, [
        h('span', {class: 'ma-fa-judgment-words', text: marks.judgmentWords(judgment)}), ' ',
        runtime.acceptButton({source: judgment.source, attrs: {class: 'ma-button ma-fa-judgment-accept',
          'data-ma-focus': 'accept-judgment-' + k}, onAccept: function () { acceptJudgment(view, judgment); }})]));
    });
  }
  box.querySelectorAll('.ma-fa-judgment-accept').forEach(function (button, k) {
    runtime.paintAccept(button, {source: judgments[k].source, accepted: marks.fromJudgmentOf(value) === judgments[k].source});
  });
}

/**
 * Copy a judgment's agent and step into the value, recording its source. A reason the annotator
 * typed stays; an empty reason box, or one still holding the reason of the judgment accepted
 * before, takes this judgment's (an adjudicator accepting annotator 2's answer keeps annotator 2's
 * reason in gold).
 */
function acceptJudgment(view, judgment) {
  view.typing.flush();
  var before = view.judgments.filter(function (other) { return other.source === view.fromJudgment; })[0];
  if (!/\S/.test(view.reason.value) || (before && view.reason.value === before.reason)) {
    view.reason.value = judgment.reason;
  }
  selectAgent(view, judgment.agent);
  view.chosenStep = judgment.step;
  view.fromJudgment = judgment.source;
  commit(view);
  showJudgments(view, view.judgments, view.judgmentMode, view.model.get().value);
}

/** Store what the controls show (the runtime paints summary, completeness and notices). */
function commit(view) {
  view.typing.cancel();
  // A step chosen as the decisive one leaves the plausible list (it would repeat it).
  view.plausible = view.plausible.filter(function (entry) { return entry.step !== view.chosenStep; });
  var value = marks.composeValue(selectedAgent(view), view.chosenStep, view.reason.value, view.fromJudgment,
    {certainty: view.certainty, plausible: view.plausible});
  view.model.set(value);
  showPlausible(view);
  view.picker.show(chosenStepWords(view));
  showChosenStep(view, view.ui);
  showJudgments(view, view.judgments, view.judgmentMode, value);
}

/** One render pass: the runtime has flushed pending typing; show the stored value. */
function render(args) {
  var ui = args.ui;
  var view = ui.state.view || (ui.state.view = createView(args.el, ui));
  view.model = args.model;
  view.ui = ui;
  if (view.derivation !== args.derivation) { fillOptions(view, args.derivation); }
  view.judgments = marks.judgmentsFor(args.record, args.config, args.schemaName);
  view.judgmentMode = (args.config && args.config.show_judgments) || 'always';
  view.maxPlausible = args.config && typeof args.config.max_plausible_steps === 'number'
    ? args.config.max_plausible_steps : 4;
  showValue(view, args.model.get().value, ui);
  showJudgments(view, view.judgments, view.judgmentMode, args.model.get().value);
  // The trace view's "Set as decisive step" (action 'decisive'): chosen as if picked in the list.
  ui.onStepAction('decisive', function (detail, event) {
    if (typeof detail.index !== 'number') { return; }
    if (detail.index < 0 || detail.index >= view.derivation.steps.length) { return; }
    view.chosenStep = detail.index;
    commit(view);
    event.preventDefault();
  });
}

runtime.define('failure_attribution', {describe: marks.describe, render: render, stepActions: [{action: 'decisive', label: 'Set as decisive step'}],
  references: marks.references});
