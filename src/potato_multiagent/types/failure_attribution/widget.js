/*
 * failure_attribution.js: the `multiagent.failure_attribution` widget.
 *
 * The annotator picks the responsible agent, the decisive step and writes a reason, with the three
 * native controls of templates/failure_attribution.html. The stored value is
 *     {"responsible_agent": str|null, "decisive_step": int|null, "reason": str}
 * exactly as chosen (decisive_step is the 0-based step index, shown as #N = index + 1), or ""
 * when nothing is chosen. A stored agent or step the trace does not contain is kept and shown as
 * "not in this trace"; a stored value that cannot be read is kept untouched until a control
 * changes. Runs on the shared runtime (widget.js), which loads first.
 *
 * Dependency-free UMD: in the page it registers itself with window.PotatoMultiagent; under
 * CommonJS it exports its pure helpers for node tests.
 */
(function (root, factory) {
  'use strict';
  var isCommonJS = typeof module === 'object' && module !== null && module.exports;
  var runtime = isCommonJS ? require('../../web/widget.js') : root && root.PotatoMultiagent;
  var windowing = isCommonJS ? require('../../web/windowing.js') : root && root.PotatoMultiagentWindow;
  var api = factory(runtime, windowing);
  if (isCommonJS) {
    module.exports = api;
  } else if (runtime) {
    runtime.register(api.WIDGET, api.render);
  } else if (root && root.console) {
    root.console.error('failure_attribution.js: widget.js did not load before it');
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (runtime, windowing) {
  'use strict';

  var WIDGET = 'failure_attribution';
  var SNIPPET_LENGTH = 80;
  var TYPING_DELAY_MS = 300;
  var NOT_IN_TRACE = ' (not in this trace)';
  var CHOSEN_TEXT_CHARS = 600;     // the chosen step's text shown unfolded up to here
  var CHOSEN_TEXT_LINES = 8;

  // ---------------------------------------------------------------------------------------------
  // The value: read, check, compose (pure)
  // ---------------------------------------------------------------------------------------------

  /**
   * The stored value from model.get(): {value, unreadable}. value is the checked object or null
   * (nothing stored); unreadable is a sentence when the stored string is not a valid value. The
   * shape is checked against config.value_schema, the JSON Schema of the Python Value model.
   */
  function readValue(got, config) {
    if (got.raw === '' || got.raw === null || got.raw === undefined) { return {value: null, unreadable: null}; }
    var problems = got.error ? [got.error] : runtime.checkValue(got.value, config);
    if (problems.length) {
      return {value: null, unreadable: 'The saved value could not be read: ' + problems.join('; ') +
        '. It is kept until you change one of the controls.'};
    }
    return {value: got.value, unreadable: null};
  }

  /** The value to store for the controls' state; null (store "") when nothing is chosen. */
  function composeValue(agent, step, reason) {
    if (agent === null && step === null && reason === '') { return null; }
    return {responsible_agent: agent, decisive_step: step, reason: reason};
  }

  function chosenAgent(value) { return value ? value.responsible_agent : null; }
  function chosenStep(value) { return value ? value.decisive_step : null; }

  // ---------------------------------------------------------------------------------------------
  // Words (pure)
  // ---------------------------------------------------------------------------------------------

  /**
   * "#N · AGENT (qualifier) · first meaningful line" for one derived step: boilerplate headers
   * ("Updated Ledger:") are skipped to the line that says something; an instruction's addressee
   * shows as "-> B".
   */
  function stepLabel(step) {
    var text = runtime.snippet(windowing.firstMeaningfulLine(step.text), SNIPPET_LENGTH) || '(no text)';
    return '#' + (step.index + 1) + ' \u00B7 ' + windowing.stepAgentWords(step) + ' \u00B7 ' + text;
  }

  /** What the step search looks in: "#N agent (qualifier) -> to first line", lower case. */
  function stepHaystack(step) {
    return ('#' + (step.index + 1) + ' ' + windowing.stepAgentWords(step) + ' ' +
      windowing.firstMeaningfulLine(step.text)).toLowerCase();
  }

  /**
   * The chosen step's text, folded when long: {head, folded} where head is what shows at once
   * (the first CHOSEN_TEXT_LINES lines, at most CHOSEN_TEXT_CHARS characters) and folded says
   * whether more text follows.
   */
  function foldText(text, maxChars, maxLines) {
    text = typeof text === 'string' ? text : text === null || text === undefined ? '' : String(text);
    var head = text.length > maxChars ? text.slice(0, maxChars) : text;
    var lines = head.split('\n');
    if (lines.length > maxLines) { head = lines.slice(0, maxLines).join('\n'); }
    head = head.replace(/\s+$/, '');
    return {head: head, folded: head.length < text.replace(/\s+$/, '').length};
  }

  /** The shortfall Potato's required check shows, or null when agent and step are both chosen. */
  function incompleteReason(value, unreadable) {
    if (unreadable) { return 'The saved value could not be read; choose the responsible agent and the decisive step'; }
    var noAgent = chosenAgent(value) === null;
    var noStep = chosenStep(value) === null;
    if (noAgent && noStep) { return 'Choose the responsible agent and the decisive step'; }
    if (noAgent) { return 'Choose the responsible agent'; }
    if (noStep) { return 'Choose the decisive step'; }
    return null;
  }

  /** Which of the value's marks the trace does not contain. */
  function staleMarks(value, derivation) {
    var agent = chosenAgent(value);
    var step = chosenStep(value);
    return {
      agent: agent !== null && derivation.agents.indexOf(agent) < 0,
      step: step !== null && step >= derivation.steps.length
    };
  }

  /** The live summary: "Responsible agent: Planner. Decisive step: #3 (Coder). Reason given." */
  function summaryText(value, derivation, unreadable) {
    if (unreadable) { return 'The saved value could not be read. Nothing chosen yet.'; }
    if (value === null) { return 'Nothing chosen yet.'; }
    var stale = staleMarks(value, derivation);
    var agent = chosenAgent(value);
    var step = chosenStep(value);
    var parts = [];
    parts.push(agent === null ? 'No responsible agent chosen.'
      : 'Responsible agent: ' + agent + (stale.agent ? NOT_IN_TRACE : '') + '.');
    if (step === null) {
      parts.push('No decisive step chosen.');
    } else {
      var who = stale.step ? 'not in this trace' : (derivation.steps[step].agent || 'no agent');
      parts.push('Decisive step: #' + (step + 1) + ' (' + who + ').');
    }
    parts.push(/\S/.test(value.reason) ? 'Reason given.' : 'No reason given.');
    return parts.join(' ');
  }

  /** The warning lines under the controls. */
  function noticesFor(value, derivation, unreadable) {
    var notices = [];
    if (unreadable) { notices.push({level: 'warning', text: unreadable}); }
    (derivation.problems || []).forEach(function (problem) {
      if (problem && problem.code === 'steps_not_list') {
        notices.push({level: 'warning', text: 'This trace has no steps to choose from: ' + problem.message});
      }
    });
    var stale = staleMarks(value, derivation);
    if (stale.agent) { notices.push({level: 'warning', text: runtime.notInTrace('responsible_agent', chosenAgent(value))}); }
    if (stale.step) { notices.push({level: 'warning', text: runtime.notInTrace('decisive_step', chosenStep(value))}); }
    return notices;
  }

  // ---------------------------------------------------------------------------------------------
  // The controls
  // ---------------------------------------------------------------------------------------------

  /** Find the template's controls and wire them once; the returned object lives across renders. */
  function createUi(el) {
    var ui = {
      agent: el.querySelector('select[data-ma-field="responsible_agent"]'),
      step: el.querySelector('input[data-ma-field="decisive_step"]'),
      stepList: el.querySelector('[data-ma-fa="step-list"]'),
      stepScroll: el.querySelector('[data-ma-fa="step-scroll"]'),
      stepStatus: el.querySelector('[data-ma-fa="step-status"]'),
      chosenBox: el.querySelector('[data-ma-fa="chosen"]'),
      reason: el.querySelector('textarea[data-ma-field="reason"]'),
      optionValues: new WeakMap(),   // <option> -> the agent name it stands for
      agentOptions: new Map(),       // agent name -> <option>
      staleAgentOption: null,
      chosenStep: null,              // the step index the picker holds (may be one the trace lacks)
      labels: [],                    // step index -> its option words, made when first shown
      haystacks: [],                 // step index -> what the search looks in, made when first searched
      derivation: null,
      ctx: null,
      unreadable: null
    };
    if (!ui.agent || !ui.step || !ui.stepList || !ui.stepScroll || !ui.reason || !ui.chosenBox) {
      throw new Error('the page lacks the controls of this question (data-ma-field responsible_agent, ' +
        'decisive_step, reason; data-ma-fa step-list, step-scroll, chosen)');
    }
    ui.typing = runtime.debounce(function () { commit(ui); }, TYPING_DELAY_MS);
    ui.agent.addEventListener('change', function () { dropUnselectedStale(ui); commit(ui); });
    ui.picker = windowing.createCombobox({
      input: ui.step, listbox: ui.stepList, scroller: ui.stepScroll, status: ui.stepStatus, idBase: ui.step.id || 'ma-fa-step',
      noun: 'step',
      count: function () { return ui.derivation ? ui.derivation.steps.length : 0; },
      label: function (index) { return labelOf(ui, index); },
      number: function (index) { return index + 1; },
      haystack: function (index) { return haystackOf(ui, index); },
      chosen: function () { return ui.chosenStep; },
      choose: function (index) {
        ui.chosenStep = index;
        commit(ui);
      }
    });
    ui.reason.addEventListener('input', ui.typing);
    ui.reason.addEventListener('change', ui.typing.flush);
    ui.reason.addEventListener('blur', ui.typing.flush);
    wireTraceView(ui);
    return ui;
  }

  /**
   * The trace view (docs/trace-view.md): the chosen step links into it ("Show #N in the trace",
   * in the chosen-step box), and its "Set as decisive step" action is chosen and committed here
   * as if picked in the list, so Potato saves it.
   */
  function wireTraceView(ui) {
    document.addEventListener('multiagent:step-action', function (event) {
      var detail = event.detail || {};
      if (detail.action !== 'decisive' || !ui.ctx || !ui.derivation) { return; }
      if (!(detail.index >= 0 && detail.index < ui.derivation.steps.length)) { return; }
      ui.chosenStep = detail.index;
      commit(ui);
      event.preventDefault();
    });
  }

  function traceLink(index) {
    if (!document.querySelector('section.ma-trace')) { return null; }
    return runtime.h('button', {type: 'button', class: 'ma-step-link ma-fa-step-link', 'data-ma-step-link': String(index),
      text: 'Show #' + (index + 1) + ' in the trace'});
  }

  function labelOf(ui, index) {
    if (ui.labels[index] === undefined) { ui.labels[index] = stepLabel(ui.derivation.steps[index]); }
    return ui.labels[index];
  }

  function haystackOf(ui, index) {
    if (ui.haystacks[index] === undefined) { ui.haystacks[index] = stepHaystack(ui.derivation.steps[index]); }
    return ui.haystacks[index];
  }

  function option(ui, label, value) {
    var node = document.createElement('option');
    node.value = value === null ? '' : String(value);
    node.textContent = label;
    if (value !== null) { ui.optionValues.set(node, value); }
    return node;
  }

  /** The agent options for a derivation (one per agent, a bounded roster); step words reset. */
  function fillOptions(ui, derivation) {
    var agents = document.createDocumentFragment();
    agents.appendChild(option(ui, '\u2014 choose an agent \u2014', null));
    ui.agentOptions = new Map();
    derivation.agents.forEach(function (name) {
      var node = option(ui, name, name);
      ui.agentOptions.set(name, node);
      agents.appendChild(node);
    });
    ui.agent.textContent = '';
    ui.agent.appendChild(agents);
    ui.staleAgentOption = null;
    ui.chosenBox.removeAttribute('data-ma-step');
    ui.labels = [];
    ui.haystacks = [];
    ui.derivation = derivation;
  }

  /** Select the agent mark; a mark the trace lacks gets its own option right after the placeholder. */
  function selectAgent(ui, mark) {
    removeStale(ui);
    if (mark === null) {
      ui.agent.selectedIndex = 0;
      return;
    }
    var known = ui.agentOptions.get(mark);
    if (known) {
      known.selected = true;
      return;
    }
    var stale = option(ui, mark + NOT_IN_TRACE, mark);
    stale.className = 'ma-stale-option';
    ui.agent.insertBefore(stale, ui.agent.options[1] || null);
    stale.selected = true;
    ui.staleAgentOption = stale;
  }

  function removeStale(ui) {
    var stale = ui.staleAgentOption;
    if (stale && stale.parentNode) { stale.parentNode.removeChild(stale); }
    ui.staleAgentOption = null;
  }

  /** A "not in this trace" option stays until the annotator picks something else. */
  function dropUnselectedStale(ui) {
    if (ui.staleAgentOption && !ui.staleAgentOption.selected) { removeStale(ui); }
  }

  function selectedAgent(ui) {
    var node = ui.agent.options[ui.agent.selectedIndex];
    return node && ui.optionValues.has(node) ? ui.optionValues.get(node) : null;
  }

  /** The words the step box shows for the chosen step ("" when none). */
  function chosenStepWords(ui) {
    var step = ui.chosenStep;
    if (step === null) { return ''; }
    return step < ui.derivation.steps.length ? labelOf(ui, step) : '#' + (step + 1) + NOT_IN_TRACE;
  }

  /** The chosen step's text (inert text, folded when long) and its neighbours, under the picker. */
  function showChosenStep(ui) {
    var box = ui.chosenBox;
    var steps = ui.derivation.steps;
    var index = ui.chosenStep;
    if (box.getAttribute('data-ma-step') === String(index)) { return; }
    box.setAttribute('data-ma-step', String(index));
    box.textContent = '';
    box.hidden = index === null || index >= steps.length;
    if (box.hidden) { return; }
    var step = steps[index];
    var h = runtime.h;
    var fold = foldText(step.text, CHOSEN_TEXT_CHARS, CHOSEN_TEXT_LINES);
    var parts = [
      h('p', {class: 'ma-fa-chosen-title', text: 'Step #' + (index + 1) + ' \u00B7 ' + windowing.stepAgentWords(step)}),
      traceLink(index),
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
    if (index > 0) { parts.push(h('p', {class: 'ma-fa-neighbour', text: 'Before: ' + labelOf(ui, index - 1)})); }
    if (index + 1 < steps.length) { parts.push(h('p', {class: 'ma-fa-neighbour', text: 'After: ' + labelOf(ui, index + 1)})); }
    parts.forEach(function (node) { if (node) { box.appendChild(node); } });
  }

  function showValue(ui, value) {
    selectAgent(ui, chosenAgent(value));
    ui.chosenStep = chosenStep(value);
    ui.picker.show(chosenStepWords(ui));
    showChosenStep(ui);
    var reason = value ? value.reason : '';
    if (ui.reason.value !== reason) { ui.reason.value = reason; }   // keeps the caret when equal
  }

  /** Store what the controls show, then update words and completeness. */
  function commit(ui) {
    ui.typing.cancel();
    var value = composeValue(selectedAgent(ui), ui.chosenStep, ui.reason.value);
    ui.unreadable = null;
    ui.ctx.model.set(value);
    ui.picker.show(chosenStepWords(ui));
    showChosenStep(ui);
    describeState(ui, value);
  }

  function describeState(ui, value) {
    var ctx = ui.ctx;
    ctx.setNotices(noticesFor(value, ctx.derivation, ui.unreadable));
    ctx.model.setIncomplete(incompleteReason(value, ui.unreadable));
    ctx.model.announce(summaryText(value, ctx.derivation, ui.unreadable));
  }

  // ---------------------------------------------------------------------------------------------
  // Render (called by the runtime on load and on every potato:instance-ready)
  // ---------------------------------------------------------------------------------------------

  function render(ctx) {
    var ui = ctx.state.ui || (ctx.state.ui = createUi(ctx.el));
    if (ui.ctx) { ui.typing.flush(); }   // text typed just before this re-render is stored first
    ui.ctx = ctx;
    ctx.form.setAttribute('data-ma-step-actions', 'decisive');
    if (ui.derivation !== ctx.derivation) { fillOptions(ui, ctx.derivation); }
    var stored = readValue(ctx.model.get(), ctx.config);
    ui.unreadable = stored.unreadable;
    showValue(ui, stored.value);
    describeState(ui, stored.value);
  }

  return {
    WIDGET: WIDGET,
    render: render,
    readValue: readValue,
    composeValue: composeValue,
    stepLabel: stepLabel,
    stepHaystack: stepHaystack,
    foldText: foldText,
    incompleteReason: incompleteReason,
    staleMarks: staleMarks,
    summaryText: summaryText,
    noticesFor: noticesFor
  };
}));
