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
  var runtime = isCommonJS ? require('./widget.js') : root && root.PotatoMultiagent;
  var api = factory(runtime);
  if (isCommonJS) {
    module.exports = api;
  } else if (runtime) {
    runtime.register(api.WIDGET, api.render);
  } else if (root && root.console) {
    root.console.error('failure_attribution.js: widget.js did not load before it');
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (runtime) {
  'use strict';

  var WIDGET = 'failure_attribution';
  var SNIPPET_LENGTH = 80;
  var TYPING_DELAY_MS = 300;
  var NOT_IN_TRACE = ' (not in this trace)';

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

  /** "#N · AGENT · snippet" for one derived step. */
  function stepLabel(step) {
    var agent = step.agent === null || step.agent === undefined ? 'no agent' : String(step.agent);
    var text = runtime.snippet(step.text, SNIPPET_LENGTH) || '(no text)';
    return '#' + (step.index + 1) + ' \u00B7 ' + agent + ' \u00B7 ' + text;
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
      step: el.querySelector('select[data-ma-field="decisive_step"]'),
      reason: el.querySelector('textarea[data-ma-field="reason"]'),
      optionValues: new WeakMap(),   // <option> -> the agent name or step index it stands for
      agentOptions: new Map(),       // agent name -> <option>
      stepOptions: [],               // step index -> <option>
      staleAgentOption: null,
      staleStepOption: null,
      derivation: null,
      ctx: null,
      unreadable: null
    };
    if (!ui.agent || !ui.step || !ui.reason) {
      throw new Error('the page lacks the controls of this question (data-ma-field responsible_agent, ' +
        'decisive_step, reason)');
    }
    ui.typing = runtime.debounce(function () { commit(ui); }, TYPING_DELAY_MS);
    ui.agent.addEventListener('change', function () { dropUnselectedStale(ui); commit(ui); });
    ui.step.addEventListener('change', function () { dropUnselectedStale(ui); commit(ui); });
    ui.reason.addEventListener('input', ui.typing);
    ui.reason.addEventListener('change', ui.typing.flush);
    ui.reason.addEventListener('blur', ui.typing.flush);
    wireTraceView(ui);
    return ui;
  }

  /**
   * The trace view's link (docs/trace-view.md): "#N in the trace" beside the step picker, and the
   * view's "Set as decisive step" action, committed as if the step were picked in the list.
   */
  function wireTraceView(ui) {
    ui.stepLink = document.createElement('button');
    ui.stepLink.type = 'button';
    ui.stepLink.className = 'ma-step-link ma-fa-step-link';
    ui.stepLink.hidden = true;
    ui.step.parentNode.appendChild(ui.stepLink);
    document.addEventListener('multiagent:step-action', function (event) {
      var detail = event.detail || {};
      var node = ui.stepOptions[detail.index];
      if (detail.action !== 'decisive' || !ui.ctx || !node) { return; }
      node.selected = true;
      dropUnselectedStale(ui);
      commit(ui);
      event.preventDefault();
    });
  }

  function showStepLink(ui, step) {
    var shown = step !== null && !!ui.stepOptions[step] && !!document.querySelector('section.ma-trace');
    ui.stepLink.hidden = !shown;
    if (shown) {
      ui.stepLink.setAttribute('data-ma-step-link', String(step));
      ui.stepLink.textContent = 'Show #' + (step + 1) + ' in the trace';
    }
  }

  function option(ui, label, value) {
    var node = document.createElement('option');
    node.value = value === null ? '' : String(value);
    node.textContent = label;
    if (value !== null) { ui.optionValues.set(node, value); }
    return node;
  }

  /** Build both option lists for a derivation, each in one DocumentFragment. */
  function fillOptions(ui, derivation) {
    var agents = document.createDocumentFragment();
    agents.appendChild(option(ui, '\u2014 choose an agent \u2014', null));
    ui.agentOptions = new Map();
    derivation.agents.forEach(function (name) {
      var node = option(ui, name, name);
      ui.agentOptions.set(name, node);
      agents.appendChild(node);
    });
    var steps = document.createDocumentFragment();
    steps.appendChild(option(ui, '\u2014 choose a step \u2014', null));
    ui.stepOptions = derivation.steps.map(function (step) {
      var node = option(ui, stepLabel(step), step.index);
      steps.appendChild(node);
      return node;
    });
    replaceOptions(ui.agent, agents);
    replaceOptions(ui.step, steps);
    ui.staleAgentOption = null;
    ui.staleStepOption = null;
    ui.derivation = derivation;
  }

  function replaceOptions(select, fragment) {
    select.textContent = '';
    select.appendChild(fragment);
  }

  /** Select a value's mark; a mark the trace lacks gets its own option right after the placeholder. */
  function selectMark(ui, kind, mark) {
    var select = ui[kind];
    var staleKey = kind === 'agent' ? 'staleAgentOption' : 'staleStepOption';
    removeStale(ui, staleKey);
    if (mark === null) {
      select.selectedIndex = 0;
      return;
    }
    var known = kind === 'agent' ? ui.agentOptions.get(mark) : ui.stepOptions[mark];
    if (known) {
      known.selected = true;
      return;
    }
    var label = kind === 'agent' ? mark + NOT_IN_TRACE : '#' + (mark + 1) + NOT_IN_TRACE;
    var stale = option(ui, label, mark);
    stale.className = 'ma-stale-option';
    select.insertBefore(stale, select.options[1] || null);
    stale.selected = true;
    ui[staleKey] = stale;
  }

  function removeStale(ui, staleKey) {
    var stale = ui[staleKey];
    if (stale && stale.parentNode) { stale.parentNode.removeChild(stale); }
    ui[staleKey] = null;
  }

  /** A "not in this trace" option stays until the annotator picks something else. */
  function dropUnselectedStale(ui) {
    if (ui.staleAgentOption && !ui.staleAgentOption.selected) { removeStale(ui, 'staleAgentOption'); }
    if (ui.staleStepOption && !ui.staleStepOption.selected) { removeStale(ui, 'staleStepOption'); }
  }

  function selectedValue(ui, select) {
    var node = select.options[select.selectedIndex];
    return node && ui.optionValues.has(node) ? ui.optionValues.get(node) : null;
  }

  function showValue(ui, value) {
    selectMark(ui, 'agent', chosenAgent(value));
    selectMark(ui, 'step', chosenStep(value));
    var reason = value ? value.reason : '';
    if (ui.reason.value !== reason) { ui.reason.value = reason; }   // keeps the caret when equal
    showStepLink(ui, chosenStep(value));
  }

  /** Store what the controls show, then update words and completeness. */
  function commit(ui) {
    ui.typing.cancel();
    var value = composeValue(selectedValue(ui, ui.agent), selectedValue(ui, ui.step), ui.reason.value);
    ui.unreadable = null;
    ui.ctx.model.set(value);
    showStepLink(ui, chosenStep(value));
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
    incompleteReason: incompleteReason,
    staleMarks: staleMarks,
    summaryText: summaryText,
    noticesFor: noticesFor
  };
}));
