/*
 * trace_view.js: the `multiagent.trace` display (docs/trace-view.md).
 *
 * The server sends a shell (section.ma-trace[data-ma-trace] with the options); this script derives
 * the page's record with derive.js (the same derivation as every widget, so `#N` = index + 1 and
 * the agents are the widgets'), and renders only a window of steps: the DOM is bounded by WINDOW,
 * never by the trace's length. Three layouts share the window: lanes (a column per agent), tree
 * (threads nested by delegation) and board (messages with addressees as chips).
 *
 * The page-level event contract with the widgets:
 *   document 'multiagent:show-step'  {index, source}   bring step `index` into view, highlight it,
 *                                                        focus it, announce it (Escape: back to source)
 *   document 'multiagent:step-action' {index, action}  dispatched by the view (cancelable); a widget
 *                                                        that handled it calls preventDefault()
 *   form[data-ma-step-actions="decisive add-to-behaviour ..."]  the actions a widget on the page takes
 *   any element [data-ma-step-link=INDEX]              a click dispatches show-step for INDEX
 *
 * DOM is built with createElement / textContent / setAttribute only: trace data is hostile.
 * UMD: under CommonJS (node tests) it exports the pure functions and touches no DOM.
 */
(function (root, factory) {
  'use strict';
  var isCommonJS = typeof module === 'object' && module !== null && module.exports;
  if (!isCommonJS && root && root.PotatoMultiagentTrace) { return; }
  var judgments = isCommonJS ? require('./judgments.js') : root && root.PotatoMultiagentJudgments;
  if (!judgments) { throw new Error('trace_view.js: judgments.js did not load before it'); }
  var api = factory(root, judgments);
  if (isCommonJS) {
    module.exports = api;
  } else if (root) {
    root.PotatoMultiagentTrace = api;
    api.start();
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (root, judgmentsLib) {
  'use strict';

  var WINDOW = 40;          // steps in the DOM at most (per view)
  var SHIFT = 20;           // steps the window moves when its edge comes into view
  var LAYOUTS = ['lanes', 'tree', 'board'];
  var ACTIONS = {
    'decisive': 'Set as decisive step',
    'add-to-behaviour': 'Add to behaviour',
    'open-handoff': 'Open handoff',
    'open-tool-call': 'Open tool call'
  };
  var TIME_FIELDS = ['timestamp', 'time', 'created_at', 'start_time', 'start', 'timestep'];
  var DERIVE_OPTION_KEYS = ['steps_key', 'agent_key', 'calls_key', 'resource_key', 'agents', 'agent_qualifiers'];

  // ---------------------------------------------------------------------------------------------
  // Pure: the view model (what every row shows), the layout rule
  // ---------------------------------------------------------------------------------------------

  function own(object, key) {
    return object !== null && typeof object === 'object' && Object.prototype.hasOwnProperty.call(object, key);
  }

  /** The raw step list at a (dotted) steps_key, or []. */
  function rawSteps(record, stepsKey) {
    var value = record;
    if (own(record, stepsKey)) {
      value = record[stepsKey];
    } else {
      String(stepsKey).split('.').forEach(function (part) { value = own(value, part) ? value[part] : undefined; });
    }
    return Array.isArray(value) ? value : [];
  }

  function agentLabel(step) {
    if (step.agent === null || step.agent === undefined) { return '(no agent)'; }
    return step.qualifier ? step.agent + ' (' + step.qualifier + ')' : step.agent;
  }

  function timeOf(raw) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) { return null; }
    for (var i = 0; i < TIME_FIELDS.length; i++) {
      var value = own(raw, TIME_FIELDS[i]) ? raw[TIME_FIELDS[i]] : undefined;
      if (typeof value === 'string' && value !== '') { return value; }
      if (typeof value === 'number' && isFinite(value)) { return String(value); }
    }
    return null;
  }

  function errorText(error) {
    if (typeof error === 'string') { return error; }
    if (error && typeof error === 'object' && typeof error.message === 'string') { return error.message; }
    return null;
  }

  function formatArguments(args) {
    if (args === null || args === undefined) { return ''; }
    if (typeof args === 'string') { return args; }
    return JSON.stringify(args, null, 2);
  }

  function handoffText(handoff) {
    var kind = handoff.kind || (handoff.explicit ? 'explicit' : 'implicit');
    var words = {explicit: 'Explicit handoff', implicit: 'Handoff', delegation: 'Delegation', 'return': 'Return'};
    return (words[kind] || 'Handoff') + ': ' + handoff.from + ' \u2192 ' + handoff.to;
  }

  /**
   * What the view shows, from a derivation (derive.js output) and the record: one entry per step,
   * in step order. Every string a row prints comes from here (the DOM builder adds no facts).
   */
  function viewModel(derivation, record, options) {
    var raws = rawSteps(record, (options && options.steps_key) || 'steps');
    var steps = derivation.steps.map(function (step) {
      var raw = raws[step.index];
      return {index: step.index, number: '#' + (step.index + 1), agent: step.agent, agentLabel: agentLabel(step),
        to: step.to, kind: step.kind, text: step.text, thread: step.thread || null,
        parentThread: step.parent_thread || null, error: errorText(step.error), time: timeOf(raw),
        handoffs: [], toolCalls: [], results: []};
    });
    derivation.handoffs.forEach(function (handoff) {
      var target = steps[handoff.step];
      if (target) { target.handoffs.push({index: handoff.index, from: handoff.from, to: handoff.to,
        fromStep: handoff.from_step, kind: handoff.kind || (handoff.explicit ? 'explicit' : 'implicit'),
        text: handoffText(handoff)}); }
    });
    derivation.tool_calls.forEach(function (call) {
      var target = steps[call.step];
      if (!target) { return; }
      var resultStep = typeof call.result_step === 'number' ? steps[call.result_step] : null;
      var error = errorText(call.error) || (resultStep ? resultStep.error : null);
      target.toolCalls.push({index: call.index, tool: call.tool === null ? '(no tool name)' : call.tool,
        arguments: formatArguments(call.arguments), resultStep: resultStep ? resultStep.index : null,
        result: resultStep ? resultStep.text : null, error: error});
      if (resultStep) { resultStep.results.push(call.index); }
    });
    return steps;
  }

  /** What one judgment's value points at, per type: [[stepIndex, words], ...] (hostile input: checked). */
  function judgedSteps(widget, value) {
    var found = [];
    function add(step, words) {
      if (typeof step === 'number' && step >= 0 && Math.floor(step) === step) { found.push([step, words]); }
    }
    function list(items) { return Array.isArray(items) ? items.filter(function (item) { return item && typeof item === 'object'; }) : []; }
    if (widget === 'failure_attribution' && value && typeof value === 'object') {
      add(value.decisive_step, 'decisive step');
    } else if (widget === 'handoff_review') {
      list(value).forEach(function (entry) {
        var flags = Array.isArray(entry.flags) ? entry.flags.filter(function (f) { return typeof f === 'string'; }) : [];
        add(entry.step, 'handoff' + (flags.length ? ' ' + flags.join(', ') : '') +
          (typeof entry.quality === 'number' ? ' quality ' + entry.quality : ''));
      });
    } else if (widget === 'tool_call_review') {
      list(value).forEach(function (entry) {
        add(entry.step, 'tool call' + (typeof entry.verdict === 'string' ? ' ' + entry.verdict : ''));
      });
    } else if (widget === 'emergent_behavior' && value && typeof value === 'object' && !Array.isArray(value)) {
      Object.keys(value).forEach(function (behaviour) {
        var turns = value[behaviour] && Array.isArray(value[behaviour].turns) ? value[behaviour].turns : [];
        turns.forEach(function (turn) { add(turn, behaviour); });
      });
    }
    return found;
  }

  /**
   * The judgment markers per step: {stepIndex: ["judge SOURCE: WHAT", ...]}, from the record's
   * judgments of the page's schemes ([{name, widget, config}]). The trace view knows no answer, so
   * only schemes whose show_judgments is 'always' (the default) are marked.
   */
  function judgmentMarks(record, schemes) {
    var marks = {};
    (schemes || []).forEach(function (scheme) {
      var config = scheme.config || {};
      if (judgmentsLib.showMode(config) !== 'always') { return; }
      judgmentsLib.judgmentsOf(record, config, scheme.name).forEach(function (judgment) {
        judgedSteps(scheme.widget, judgment.value).forEach(function (pair) {
          var words = 'judge ' + judgment.source + ': ' + pair[1];
          var at = marks[pair[0]] || (marks[pair[0]] = []);
          if (at.indexOf(words) < 0) { at.push(words); }
        });
      });
    });
    return marks;
  }

  /** The plain facts of one row (the numbers, agents, handoffs and calls it prints). */
  function rowFacts(entry) {
    return {number: entry.number, agent: entry.agentLabel,
      handoffs: entry.handoffs.map(function (handoff) { return handoff.text; }),
      toolCalls: entry.toolCalls.map(function (call) { return call.tool; })};
  }

  /**
   * The layout `auto` picks: tree when the run has threads or delegations; board when it is one
   * group chat (no threads, three or more agents, and at least half of its agent-bearing steps
   * name an addressee); lanes otherwise.
   */
  function autoLayout(derivation) {
    var threaded = derivation.steps.some(function (step) { return step.thread; }) ||
      derivation.handoffs.some(function (handoff) { return handoff.kind === 'delegation' || handoff.kind === 'return'; });
    if (threaded) { return 'tree'; }
    var bearing = derivation.steps.filter(function (step) { return step.agent !== null && step.kind !== 'tool_result'; });
    var addressed = bearing.filter(function (step) { return step.to; }).length;
    if (derivation.agents.length >= 3 && bearing.length > 0 && addressed * 2 >= bearing.length) { return 'board'; }
    return 'lanes';
  }

  /** Depth of each thread (root: 0), following parent_thread; cycles stop at the first repeat. */
  function threadDepths(steps) {
    var parents = Object.create(null);
    steps.forEach(function (step) {
      if (step.thread && step.parentThread && !(step.thread in parents)) { parents[step.thread] = step.parentThread; }
    });
    var depths = Object.create(null);
    function depth(thread) {
      if (!thread) { return 0; }
      if (thread in depths) { return depths[thread]; }
      var seen = Object.create(null);
      var d = 1;
      var at = parents[thread];
      while (at && !(at in seen) && d < 32) { seen[at] = true; d += 1; at = parents[at]; }
      depths[thread] = d;
      return d;
    }
    return depth;
  }

  /**
   * Lanes: one per agent that acts in a step (first appearance order), plus one first for steps
   * with no agent when there are any. {of: agent -> lane, none: lane or -1, count}.
   */
  function laneMap(entries) {
    var of = Object.create(null);
    var hasNone = entries.some(function (entry) { return entry.agent === null; });
    var count = hasNone ? 1 : 0;
    entries.forEach(function (entry) {
      if (entry.agent !== null && !(entry.agent in of)) { of[entry.agent] = count; count += 1; }
    });
    return {of: of, none: hasNone ? 0 : -1, count: Math.max(count, 1)};
  }

  /** The layout for a radio answer, given the view's map; null when the answer maps to none. */
  function layoutForAnswer(answer, layoutMap) {
    if (answer === null || answer === undefined) { return null; }
    var layout = own(layoutMap, answer) ? layoutMap[answer] : null;
    return LAYOUTS.indexOf(layout) >= 0 ? layout : null;
  }

  // ---------------------------------------------------------------------------------------------
  // DOM helpers
  // ---------------------------------------------------------------------------------------------

  function h(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (name === 'text') { node.textContent = value === null || value === undefined ? '' : String(value); return; }
      if (value === null || value === undefined || value === false) { return; }
      node.setAttribute(name, value === true ? '' : String(value));
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === false) { return; }
      node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
    });
    return node;
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  function readConfig(section) {
    try { return JSON.parse(section.getAttribute('data-ma-trace') || '{}'); } catch (error) { return null; }
  }

  function readRecord() {
    var holder = document.querySelector('[data-instance-json]');
    if (!holder) { return {error: 'This page has no trace data (no [data-instance-json] element).'}; }
    try { return {record: JSON.parse(holder.getAttribute('data-instance-json'))}; } catch (error) {
      return {error: 'The trace data on this page could not be read: ' + error.message};
    }
  }

  function deriveOptions(config) {
    var options = {};
    DERIVE_OPTION_KEYS.forEach(function (key) {
      if (own(config, key) && config[key] !== null) { options[key] = config[key]; }
    });
    return options;
  }

  /** The page's multiagent schemes, from their forms: [{name, widget, config}]. */
  function pageSchemes() {
    var schemes = [];
    document.querySelectorAll('form[data-ma-widget][data-ma-config]').forEach(function (form) {
      var config;
      try { config = JSON.parse(form.getAttribute('data-ma-config')); } catch (error) { return; }
      schemes.push({name: form.getAttribute('data-schema-name'), widget: form.getAttribute('data-ma-widget'),
        config: config && typeof config === 'object' ? config : {}});
    });
    return schemes;
  }

  /** The actions some widget on the page takes (form[data-ma-step-actions]). */
  function offeredActions() {
    var offered = Object.create(null);
    document.querySelectorAll('[data-ma-step-actions]').forEach(function (node) {
      String(node.getAttribute('data-ma-step-actions')).split(/\s+/).forEach(function (action) {
        if (own(ACTIONS, action)) { offered[action] = true; }
      });
    });
    return Object.keys(ACTIONS).filter(function (action) { return offered[action]; });
  }

  // ---------------------------------------------------------------------------------------------
  // Turn-level slots (Potato's turn_annotations DOM contract; turn-annotations.js handles clicks)
  // ---------------------------------------------------------------------------------------------

  function bindingMatches(binding, entry) {
    if (!binding) { return true; }
    var agent = entry.agent === null ? '' : entry.agent;
    if (Array.isArray(binding.agents) && binding.agents.indexOf(agent) < 0) { return false; }
    if (Array.isArray(binding.speakers) && binding.speakers.indexOf(agent) < 0) { return false; }
    if (Array.isArray(binding.step_types) && binding.step_types.indexOf(entry.kind) < 0) { return false; }
    if (Array.isArray(binding.tools) && !entry.toolCalls.some(function (call) {
      return binding.tools.indexOf(call.tool) >= 0; })) { return false; }
    if (Array.isArray(binding.turn_range) && binding.turn_range.length === 2 &&
        (entry.index < binding.turn_range[0] || entry.index > binding.turn_range[1])) { return false; }
    return true;
  }

  function turnId(entry) { return 't' + entry.index; }

  function storedTurn(schema, tid) {
    var api = root.turnAnnotations;
    var state = api && typeof api._state === 'function' ? api._state() : null;
    if (state && state[schema]) { return state[schema].turns[tid] || null; }
    var input = document.querySelector('input.turn-anno-hidden[data-schema-name="' + CSS.escape(schema) + '"]');
    if (!input || !input.value) { return null; }
    try { var parsed = JSON.parse(input.value); return parsed && parsed.turns ? parsed.turns[tid] || null : null; } catch (e) {
      return null;
    }
  }

  function paintChip(chip, entry) {
    var value = chip.getAttribute('data-value');
    var on = !!entry && (Array.isArray(entry.values) ? entry.values.indexOf(value) >= 0 : String(entry.value) === value);
    chip.classList.toggle('ta-selected', on);
    chip.setAttribute('aria-pressed', on ? 'true' : 'false');
  }

  function turnSlot(view, entry) {
    var schemes = (view.config.turn_schemes || []).filter(function (scheme) { return bindingMatches(scheme.binding, entry); });
    if (!schemes.length) { return null; }
    var tid = turnId(entry);
    var slot = h('div', {class: 'turn-anno-slot ma-trace-tags', 'data-turn-id': tid, 'data-turn-index': entry.index,
      'data-field-key': view.config.field_key, 'data-speaker': entry.agent || '', 'data-step-type': entry.kind,
      'data-agent-id': entry.agent || ''});
    schemes.forEach(function (scheme) {
      var stored = storedTurn(scheme.name, tid);
      var chips = scheme.labels.map(function (label) {
        var chip = h('button', {type: 'button', class: 'ta-chip', 'data-ta-schema': scheme.name, 'data-turn-id': tid,
          'data-value': label, 'data-multi': scheme.type === 'multiselect' ? 'true' : 'false', text: label});
        paintChip(chip, stored);
        return chip;
      });
      slot.appendChild(h('span', {class: 'turn-anno-widget', 'data-ta-schema': scheme.name, 'data-ta-type': scheme.type,
        role: 'group', 'aria-label': scheme.label + ', ' + entry.number}, [
        h('span', {class: 'ta-widget-label', text: scheme.label}),
        h('span', {class: 'ta-chips'}, chips)]));
    });
    return slot;
  }

  // ---------------------------------------------------------------------------------------------
  // Rows
  // ---------------------------------------------------------------------------------------------

  function foldedText(view, text, label) {
    var limit = view.config.fold_chars || 600;
    var block = h('div', {class: 'ma-trace-text'});
    if (text.length <= limit) {
      block.appendChild(h('p', {class: 'ma-trace-body', text: text}));
      return block;
    }
    var body = h('p', {class: 'ma-trace-body', text: text.slice(0, limit) + '\u2026'});
    var toggle = h('button', {type: 'button', class: 'ma-trace-fold', 'aria-expanded': 'false',
      text: 'Show all ' + text.length + ' characters of ' + label});
    toggle.addEventListener('click', function () {
      var open = toggle.getAttribute('aria-expanded') === 'true';
      body.textContent = open ? text.slice(0, limit) + '\u2026' : text;
      toggle.setAttribute('aria-expanded', open ? 'false' : 'true');
      toggle.textContent = open ? 'Show all ' + text.length + ' characters of ' + label : 'Fold ' + label;
    });
    block.appendChild(body);
    block.appendChild(toggle);
    return block;
  }

  function toolCallBlock(view, call) {
    var parts = [h('p', {class: 'ma-trace-tool-name'}, ['Tool call: ', h('code', {text: call.tool})])];
    if (call.arguments) { parts.push(h('pre', {class: 'ma-trace-args', text: call.arguments})); }
    if (call.error) {
      parts.push(h('p', {class: 'ma-trace-error'}, [h('strong', {text: 'Error: '}), call.error]));
    }
    if (call.result !== null) {
      var resultHead = h('p', {class: 'ma-trace-result-head'}, ['Result in ',
        h('button', {type: 'button', class: 'ma-step-link', 'data-ma-step-link': call.resultStep,
          text: '#' + (call.resultStep + 1)})]);
      parts.push(resultHead);
      parts.push(foldedText(view, call.result, 'the result'));
    }
    return h('div', {class: 'ma-trace-tool', 'data-call-index': call.index}, parts);
  }

  function actionButtons(view, entry) {
    var actions = view.actions.filter(function (action) {
      if (action === 'open-handoff') { return entry.handoffs.length > 0; }
      if (action === 'open-tool-call') { return entry.toolCalls.length > 0; }
      return true;
    });
    if (!actions.length) { return null; }
    return h('div', {class: 'ma-trace-actions', role: 'group', 'aria-label': 'Actions on ' + entry.number},
      actions.map(function (action) {
        return h('button', {type: 'button', class: 'ma-trace-action', 'data-action': action,
          'data-step': entry.index, text: ACTIONS[action]});
      }));
  }

  function handoffMarks(entry) {
    return entry.handoffs.map(function (handoff) {
      return h('p', {class: 'ma-trace-handoff ma-trace-handoff-' + handoff.kind, 'data-handoff-index': handoff.index},
        [h('span', {class: 'ma-trace-handoff-arrow', 'aria-hidden': 'true', text: '\u21C4 '}), handoff.text,
          ' (from ', h('button', {type: 'button', class: 'ma-step-link', 'data-ma-step-link': handoff.fromStep,
            text: '#' + (handoff.fromStep + 1)}), ')']);
    });
  }

  function stepCard(view, entry) {
    var head = h('div', {class: 'ma-trace-step-head'}, [
      h('span', {class: 'ma-trace-num', text: entry.number}), ' ',
      h('span', {class: 'ma-trace-agent', text: entry.agentLabel}),
      entry.kind === 'tool_result' ? h('span', {class: 'ma-trace-kind', text: ' tool result'}) : null,
      entry.kind === 'handoff' ? h('span', {class: 'ma-trace-kind', text: ' handoff event'}) : null,
      entry.time !== null ? h('time', {class: 'ma-trace-time', text: entry.time}) : null]);
    (view.judged[entry.index] || []).forEach(function (words) {
      head.appendChild(h('span', {class: 'ma-trace-judgment', text: words}));
    });
    if (view.layout === 'board' && entry.to) {
      head.appendChild(h('span', {class: 'ma-trace-chips'}, [h('span', {class: 'ma-trace-chip', text: 'to ' + entry.to})]));
    }
    var card = h('article', {class: 'ma-trace-step', 'data-step': entry.index, tabindex: '-1',
      'aria-label': entry.number + ' ' + entry.agentLabel}, [head]);
    if (entry.error) { card.appendChild(h('p', {class: 'ma-trace-error'}, [h('strong', {text: 'Error: '}), entry.error])); }
    if (entry.text !== '') { card.appendChild(foldedText(view, entry.text, entry.number)); }
    entry.toolCalls.forEach(function (call) { card.appendChild(toolCallBlock(view, call)); });
    var slot = turnSlot(view, entry);
    if (slot) { card.appendChild(slot); }
    var actions = actionButtons(view, entry);
    if (actions) { card.appendChild(actions); }
    return card;
  }

  function row(view, entry, position) {
    var wrapper = h('li', {class: 'ma-trace-row', 'data-step': entry.index});
    handoffMarks(entry).forEach(function (mark) { wrapper.appendChild(mark); });
    var card = stepCard(view, entry);
    if (view.layout === 'lanes') {
      var lane = view.laneOf(entry.agent);
      wrapper.style.setProperty('--ma-lane', String(lane));
      wrapper.style.setProperty('--ma-row', String(position + 1));
      wrapper.setAttribute('data-lane', String(lane));
    } else if (view.layout === 'tree') {
      var depth = view.depth(entry.thread);
      wrapper.style.setProperty('--ma-depth', String(depth));
      if (entry.thread) { card.querySelector('.ma-trace-step-head').appendChild(
        h('span', {class: 'ma-trace-thread', text: ' thread ' + entry.thread})); }
    }
    wrapper.appendChild(card);
    return wrapper;
  }

  // ---------------------------------------------------------------------------------------------
  // One view: state, window, layout, keyboard
  // ---------------------------------------------------------------------------------------------

  function View(section) {
    this.section = section;
    this.config = readConfig(section) || {};
    this.viewport = section.querySelector('.ma-trace-viewport');
    this.status = section.querySelector('.ma-trace-status');
    this.meta = section.querySelector('.ma-trace-meta');
    this.start = 0;
    this.current = null;
    this.returnTo = null;
    this.layout = 'lanes';
    this.chosenByAnnotator = false;
    this.judged = {};
    section.classList.add('ma-trace-live');
  }

  View.prototype.load = function () {
    var got = readRecord();
    if (got.error) { this.say(got.error); this.entries = []; return; }
    var derive = root.PotatoMultiagentDerive && root.PotatoMultiagentDerive.derive;
    if (typeof derive !== 'function') { this.say('derive.js did not load.'); this.entries = []; return; }
    this.derivation = derive(got.record, deriveOptions(this.config));
    this.entries = viewModel(this.derivation, got.record, this.config);
    var lanes = laneMap(this.entries);
    this.laneCount = lanes.count;
    this.laneOf = function (agent) { return agent === null ? lanes.none : lanes.of[agent]; };
    this.depth = threadDepths(this.entries);
    this.actions = offeredActions();
    this.judged = judgmentMarks(got.record, pageSchemes());
    this.meta.textContent = this.entries.length + ' steps, ' + this.derivation.agents.length + ' agents, ' +
      this.derivation.handoffs.length + ' handoffs, ' + this.derivation.tool_calls.length + ' tool calls';
  };

  View.prototype.say = function (text) {
    this.status.textContent = '';
    var status = this.status;
    setTimeout(function () { status.textContent = text; }, 20);
  };

  View.prototype.wantedLayout = function () {
    if (this.chosenByAnnotator) { return this.layout; }
    var fromRadio = this.config.layout_from ? layoutForAnswer(radioAnswer(this.config.layout_from), this.config.layout_map) : null;
    if (fromRadio) { return fromRadio; }
    if (LAYOUTS.indexOf(this.config.layout) >= 0) { return this.config.layout; }
    return autoLayout(this.derivation || {steps: [], handoffs: [], agents: []});
  };

  View.prototype.setLayout = function (layout, why) {
    this.layout = layout;
    this.section.setAttribute('data-layout', layout);
    this.section.style.setProperty('--ma-lanes', String(this.laneCount || 1));
    this.section.querySelectorAll('.ma-trace-layout').forEach(function (button) {
      button.setAttribute('aria-pressed', button.getAttribute('data-layout') === layout ? 'true' : 'false');
    });
    this.paint();
    if (why) { this.say('Layout: ' + layout + ' (' + why + ').'); }
  };

  View.prototype.ensureList = function () {
    if (this.list && this.list.parentNode === this.viewport) { return this.list; }
    clear(this.viewport);
    this.before = h('button', {type: 'button', class: 'ma-trace-more', 'data-more': 'before'});
    this.list = h('ol', {class: 'ma-trace-steps', 'aria-label': 'Steps'});
    this.after = h('button', {type: 'button', class: 'ma-trace-more', 'data-more': 'after'});
    this.viewport.appendChild(this.before);
    this.viewport.appendChild(this.list);
    this.viewport.appendChild(this.after);
    return this.list;
  };

  View.prototype.paint = function () {
    var list = this.ensureList();
    clear(list);
    var end = Math.min(this.entries.length, this.start + WINDOW);
    for (var i = this.start; i < end; i++) { list.appendChild(row(this, this.entries[i], i - this.start)); }
    this.before.hidden = this.start === 0;
    this.before.textContent = 'Show earlier steps (#1\u2013#' + this.start + ')';
    this.after.hidden = end >= this.entries.length;
    this.after.textContent = 'Show later steps (#' + (end + 1) + '\u2013#' + this.entries.length + ')';
    if (this.current !== null) { this.mark(this.current, false); }
    this.keepOneTabStop();
  };

  /** Roving tabindex: one step card in the Tab order (the current one, else the window's first). */
  View.prototype.keepOneTabStop = function () {
    if (!this.list || this.list.querySelector('.ma-trace-step[tabindex="0"]')) { return; }
    var first = this.list.querySelector('.ma-trace-step');
    if (first) { first.setAttribute('tabindex', '0'); }
  };

  /** Move the window so it starts at `start`, keeping the row at the viewport's top where it was. */
  View.prototype.moveWindow = function (start) {
    start = Math.max(0, Math.min(start, Math.max(0, this.entries.length - WINDOW)));
    if (start === this.start) { return; }
    var anchor = this.firstVisibleRow();
    var anchorIndex = anchor ? Number(anchor.getAttribute('data-step')) : null;
    var offset = anchor ? anchor.getBoundingClientRect().top - this.viewport.getBoundingClientRect().top : 0;
    this.start = start;
    this.paint();
    if (anchorIndex !== null) {
      var again = this.rowFor(anchorIndex);
      if (again) {
        this.viewport.scrollTop += again.getBoundingClientRect().top - this.viewport.getBoundingClientRect().top - offset;
      }
    }
  };

  View.prototype.firstVisibleRow = function () {
    var top = this.viewport.getBoundingClientRect().top;
    var rows = this.list ? this.list.children : [];
    for (var i = 0; i < rows.length; i++) {
      if (rows[i].getBoundingClientRect().bottom > top) { return rows[i]; }
    }
    return null;
  };

  View.prototype.rowFor = function (index) {
    return this.list ? this.list.querySelector('li.ma-trace-row[data-step="' + index + '"]') : null;
  };

  View.prototype.onScroll = function () {
    var viewport = this.viewport;
    var end = this.start + WINDOW;
    if (viewport.scrollTop + viewport.clientHeight >= viewport.scrollHeight - 40 && end < this.entries.length) {
      this.moveWindow(this.start + SHIFT);
    } else if (viewport.scrollTop <= 40 && this.start > 0) {
      this.moveWindow(this.start - SHIFT);
    }
  };

  /** Bring step `index` into the window and view, highlight and focus it. */
  View.prototype.show = function (index, source) {
    if (!(index >= 0 && index < this.entries.length)) {
      this.say('Step #' + (Number(index) + 1) + ' is not in this trace.');
      return false;
    }
    if (index < this.start || index >= this.start + WINDOW) {
      this.start = Math.max(0, Math.min(index - Math.floor(WINDOW / 4), this.entries.length - WINDOW));
      this.paint();
    }
    this.returnTo = source && source.nodeType === 1 ? source : null;
    this.mark(index, true);
    var entry = this.entries[index];
    this.say('Showing ' + entry.number + ', ' + entry.agentLabel + (this.returnTo ? '. Escape returns.' : '.'));
    return true;
  };

  View.prototype.mark = function (index, focus) {
    this.section.querySelectorAll('.ma-trace-step.ma-trace-current, .ma-trace-step[tabindex="0"]').forEach(function (node) {
      node.classList.remove('ma-trace-current');
      node.removeAttribute('aria-current');
      node.setAttribute('tabindex', '-1');
    });
    this.current = index;
    var rowNode = this.rowFor(index);
    if (!rowNode) { this.keepOneTabStop(); return; }
    var card = rowNode.querySelector('.ma-trace-step');
    card.classList.add('ma-trace-current');
    card.setAttribute('aria-current', 'step');
    card.setAttribute('tabindex', '0');
    if (focus) {
      card.focus({preventScroll: true});
      var top = card.getBoundingClientRect().top - this.viewport.getBoundingClientRect().top;
      this.viewport.scrollTop += top - 8;
    }
  };

  /** Keyboard: Up/Down next step, Left/Right the step of the neighbouring lane, Home/End, Escape back. */
  View.prototype.onKey = function (event) {
    var card = event.target.closest && event.target.closest('.ma-trace-step');
    if (!card || event.target !== card) { return; }
    var index = Number(card.getAttribute('data-step'));
    var next = null;
    if (event.key === 'ArrowDown') { next = index + 1; }
    else if (event.key === 'ArrowUp') { next = index - 1; }
    else if (event.key === 'Home') { next = 0; }
    else if (event.key === 'End') { next = this.entries.length - 1; }
    else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') { next = this.neighbourLane(index, event.key === 'ArrowRight' ? 1 : -1); }
    else if (event.key === 'Escape' && this.returnTo && document.contains(this.returnTo)) {
      event.preventDefault();
      var back = this.returnTo;
      this.returnTo = null;
      back.focus();
      this.say('Back where you were.');
      return;
    } else { return; }
    event.preventDefault();
    event.stopPropagation();   // Potato binds Left/Right to Prev/Next instance
    if (next === null || next < 0 || next >= this.entries.length) {
      this.say(next === null ? 'No step in that direction.' : 'No more steps.');
      return;
    }
    var keepReturn = this.returnTo;
    this.show(next, null);
    this.returnTo = keepReturn;
  };

  /** The next step (after `index`, else before it) whose lane is the neighbouring one, in lanes. */
  View.prototype.neighbourLane = function (index, direction) {
    var lane = this.laneOf(this.entries[index].agent) + direction;
    if (lane < 0 || lane >= this.laneCount || this.laneCount < 2) { return null; }
    for (var i = index + 1; i < this.entries.length; i++) { if (this.laneOf(this.entries[i].agent) === lane) { return i; } }
    for (var j = index - 1; j >= 0; j--) { if (this.laneOf(this.entries[j].agent) === lane) { return j; } }
    return null;
  };

  View.prototype.onClick = function (event) {
    var more = event.target.closest('.ma-trace-more');
    if (more) {
      this.moveWindow(more.getAttribute('data-more') === 'before' ? this.start - WINDOW : this.start + WINDOW);
      return;
    }
    var layoutButton = event.target.closest('.ma-trace-layout');
    if (layoutButton) {
      this.chosenByAnnotator = true;
      this.setLayout(layoutButton.getAttribute('data-layout'), 'chosen');
      return;
    }
    var action = event.target.closest('.ma-trace-action');
    if (action) { this.act(Number(action.getAttribute('data-step')), action.getAttribute('data-action')); return; }
    if (event.target.closest('.ta-chip')) {
      var chip = event.target.closest('.ta-chip');
      setTimeout(function () {
        chip.setAttribute('aria-pressed', chip.classList.contains('ta-selected') ? 'true' : 'false');
      }, 0);
    }
  };

  View.prototype.act = function (index, action) {
    var entry = this.entries[index];
    var event = new CustomEvent('multiagent:step-action', {cancelable: true, detail: {index: index, action: action}});
    var handled = !document.dispatchEvent(event);
    this.say(handled ? ACTIONS[action] + ': done for ' + entry.number + ' (' + entry.agentLabel + ').'
      : ACTIONS[action] + ': nothing on this page took ' + entry.number + '.');
  };

  // ---------------------------------------------------------------------------------------------
  // The page: views, the layout radio, the event contract
  // ---------------------------------------------------------------------------------------------

  var views = [];

  function radioAnswer(scheme) {
    var checked = document.querySelector('input[type="radio"][schema="' + CSS.escape(scheme) + '"]:checked');
    if (!checked) { return null; }
    return checked.getAttribute('label_name') || checked.value;
  }

  function init() {
    views = [];
    document.querySelectorAll('section.ma-trace[data-ma-trace]').forEach(function (section) {
      var view = section.__maTraceView || new View(section);
      section.__maTraceView = view;
      if (!view.wired) {
        view.wired = true;
        section.addEventListener('click', function (event) { view.onClick(event); });
        section.addEventListener('keydown', function (event) { view.onKey(event); });
        view.viewport.addEventListener('scroll', function () { view.onScroll(); }, {passive: true});
      }
      view.load();
      view.setLayout(view.wantedLayout(), null);
      views.push(view);
    });
    document.documentElement.classList.toggle('ma-has-trace', views.length > 0);
  }

  function onRadioChange(event) {
    var target = event.target;
    if (!target || target.type !== 'radio') { return; }
    var scheme = target.getAttribute('schema');
    views.forEach(function (view) {
      if (view.config.layout_from !== scheme || view.chosenByAnnotator) { return; }
      var layout = layoutForAnswer(radioAnswer(scheme), view.config.layout_map);
      if (layout && layout !== view.layout) { view.setLayout(layout, 'from the answer to ' + scheme); }
    });
  }

  /** show-step for any [data-ma-step-link] clicked anywhere on the page. */
  function onLinkClick(event) {
    var link = event.target.closest && event.target.closest('[data-ma-step-link]');
    if (!link) { return; }
    event.preventDefault();
    showStep(Number(link.getAttribute('data-ma-step-link')), link);
  }

  function showStep(index, source) {
    document.dispatchEvent(new CustomEvent('multiagent:show-step', {detail: {index: index, source: source || null}}));
  }

  function onShowStep(event) {
    var detail = event.detail || {};
    views.forEach(function (view) { view.show(Number(detail.index), detail.source || null); });
  }

  var started = false;
  function start() {
    if (started || typeof document === 'undefined') { return; }
    started = true;
    document.addEventListener('multiagent:show-step', onShowStep);
    document.addEventListener('click', onLinkClick);
    document.addEventListener('change', onRadioChange);
    document.addEventListener('click', function (event) { setTimeout(function () { onRadioChange(event); }, 0); });
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', function () { setTimeout(init, 0); });
    } else {
      setTimeout(init, 0);
    }
    document.addEventListener('potato:instance-ready', function () { setTimeout(init, 0); });
  }

  return {
    version: '1',
    start: start,
    showStep: showStep,
    viewModel: viewModel,
    rowFacts: rowFacts,
    judgmentMarks: judgmentMarks,
    autoLayout: autoLayout,
    layoutForAnswer: layoutForAnswer,
    views: function () { return views.slice(); },
    WINDOW: WINDOW
  };
}));
