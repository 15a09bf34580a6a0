/*
 * agent_scorecard.js: the `multiagent.agent_scorecard` widget.
 *
 * A grid of radio groups: one row per agent of the trace (the roster first), one column per agent
 * dimension, and a separate team row; each cell is a radio group named "AGENT: DIMENSION" (or
 * "Team: DIMENSION") offering the scores 1..scale and, with allow_na, "not applicable". Milestones
 * are checkboxes; with milestone_steps each ticked milestone gets a step picker. The stored value:
 *     {"agents": {name: {dim: score}}, "team": {dim: score}, "milestones": {name: true},
 *      "not_applicable": {"agents": {name: [dim]}, "team": [dim]},   (only when some cell is N/A)
 *      "milestone_steps": {name: stepIndex}}                          (only when some step is set)
 * or "" when nothing is marked. Agents of the value that the trace lacks stay as rows marked
 * "not in this trace" until removed; marks the config does not ask for (unknown dimensions or
 * milestones, scores off the scale) are kept, listed in words, and removed by one button.
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
    root.console.error('agent_scorecard.js: widget.js did not load before it');
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (runtime) {
  'use strict';

  var WIDGET = 'agent_scorecard';
  var NA = 'na';
  var TEAM_LABEL = 'Team';
  var NOT_IN_TRACE = ' (not in this trace)';
  var SNIPPET_LENGTH = 80;
  // Arrow keys move the choice within one cell, as native radios do, but handled here so that
  // Potato (which turns Left/Right into Prev/Next) never sees them.
  var ARROW_STEP = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};

  // ---------------------------------------------------------------------------------------------
  // Maps keyed by names from the trace: own properties only (an agent may be called "__proto__")
  // ---------------------------------------------------------------------------------------------

  function hasOwn(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }

  function own(object, key) { return object && hasOwn(object, key) ? object[key] : undefined; }

  function put(object, key, value) {
    Object.defineProperty(object, key, {value: value, enumerable: true, writable: true, configurable: true});
    return object;
  }

  function copy(value) { return JSON.parse(JSON.stringify(value)); }

  // ---------------------------------------------------------------------------------------------
  // The value (pure). A row is {team: true} or {agent: name}; a choice is a score, NA or null.
  // ---------------------------------------------------------------------------------------------

  function emptyValue() { return {agents: {}, team: {}, milestones: {}}; }

  function scoresOf(value, row) { return row.team ? value.team : own(value.agents, row.agent); }

  function naListOf(value, row) {
    var marked = value.not_applicable;
    if (!marked) { return undefined; }
    return row.team ? marked.team : own(marked.agents, row.agent);
  }

  /** What the value holds for one cell: its score, NA, or null (not scored yet). */
  function cellChoice(value, row, dim) {
    var scores = scoresOf(value, row);
    if (scores && hasOwn(scores, dim)) { return scores[dim]; }
    var na = naListOf(value, row);
    return na && na.indexOf(dim) >= 0 ? NA : null;
  }

  /** A copy of `value` with one cell set to a score, NA, or null. */
  function withCell(value, row, dim, choice) {
    var next = copy(value);
    clearCell(next, row, dim);
    if (typeof choice === 'number') {
      if (row.team) {
        put(next.team, dim, choice);
      } else {
        put(next.agents, row.agent, put(own(next.agents, row.agent) || {}, dim, choice));
      }
    } else if (choice === NA) {
      var marked = next.not_applicable || (next.not_applicable = {agents: {}, team: []});
      if (!marked.agents) { marked.agents = {}; }
      if (!marked.team) { marked.team = []; }
      if (row.team) {
        marked.team.push(dim);
      } else {
        put(marked.agents, row.agent, (own(marked.agents, row.agent) || []).concat([dim]));
      }
    }
    return tidy(next);
  }

  function clearCell(value, row, dim) {
    var scores = scoresOf(value, row);
    if (scores) { delete scores[dim]; }
    var na = naListOf(value, row);
    if (!na) { return; }
    var kept = na.filter(function (marked) { return marked !== dim; });
    if (row.team) { value.not_applicable.team = kept; } else { put(value.not_applicable.agents, row.agent, kept); }
  }

  /** Drop what says nothing: agents without scores, empty N/A lists, empty optional keys. */
  function tidy(value) {
    Object.keys(value.agents).forEach(function (name) {
      if (Object.keys(value.agents[name]).length === 0) { delete value.agents[name]; }
    });
    var marked = value.not_applicable;
    if (marked) {
      Object.keys(marked.agents || {}).forEach(function (name) {
        if (marked.agents[name].length === 0) { delete marked.agents[name]; }
      });
      if (marked.agents && Object.keys(marked.agents).length === 0) { delete marked.agents; }
      if (marked.team && marked.team.length === 0) { delete marked.team; }
      if (Object.keys(marked).length === 0) { delete value.not_applicable; }
    }
    if (value.milestone_steps && Object.keys(value.milestone_steps).length === 0) { delete value.milestone_steps; }
    return value;
  }

  /** Every cell of `row` that is not scored yet marked NA. */
  function withRowNotApplicable(value, row, dims) {
    return dims.reduce(function (next, dim) {
      return cellChoice(next, row, dim) === null ? withCell(next, row, dim, NA) : next;
    }, value);
  }

  function withMilestone(value, name, reached) {
    var next = copy(value);
    if (reached) {
      put(next.milestones, name, true);
    } else {
      delete next.milestones[name];
      if (next.milestone_steps) { delete next.milestone_steps[name]; }
    }
    return tidy(next);
  }

  function withMilestoneStep(value, name, step) {
    var next = copy(value);
    if (step === null) {
      if (next.milestone_steps) { delete next.milestone_steps[name]; }
    } else {
      put(next.milestone_steps || (next.milestone_steps = {}), name, step);
    }
    return tidy(next);
  }

  /** A copy without any mark of agent `name` (a row "not in this trace" the annotator removed). */
  function withoutAgent(value, name) {
    var next = copy(value);
    delete next.agents[name];
    if (next.not_applicable && next.not_applicable.agents) { delete next.not_applicable.agents[name]; }
    return tidy(next);
  }

  function isEmptyValue(value) {
    return Object.keys(value.agents).length === 0 && Object.keys(value.team).length === 0 &&
      Object.keys(value.milestones).length === 0 && !value.not_applicable && !value.milestone_steps;
  }

  function onScale(score, config) { return typeof score === 'number' && score >= 1 && score <= config.scale; }

  /**
   * The value without the marks the config does not ask for (what "Remove" drops): unknown
   * dimensions and milestones, scores off the scale, N/A when not offered or on a scored cell,
   * steps that are not recorded or whose milestone is not ticked. Marks missing from the trace
   * (agents, steps) are kept: they are shown and removed one by one.
   */
  function fittingValue(value, config) {
    var next = {agents: {}, team: fittingScores(value.team, config.team_dimensions, config), milestones: {}};
    Object.keys(value.agents).forEach(function (name) {
      put(next.agents, name, fittingScores(value.agents[name], config.agent_dimensions, config));
    });
    Object.keys(value.milestones).forEach(function (name) {
      if (config.milestones.indexOf(name) >= 0) { put(next.milestones, name, value.milestones[name]); }
    });
    if (config.milestone_steps && value.milestone_steps) {
      next.milestone_steps = {};
      Object.keys(value.milestone_steps).forEach(function (name) {
        if (own(next.milestones, name) === true) { put(next.milestone_steps, name, value.milestone_steps[name]); }
      });
    }
    var marked = value.not_applicable;
    if (config.allow_na && marked) {
      next.not_applicable = {agents: {}, team: fittingNa(marked.team, config.team_dimensions, next.team)};
      Object.keys(marked.agents || {}).forEach(function (name) {
        put(next.not_applicable.agents, name,
          fittingNa(marked.agents[name], config.agent_dimensions, own(next.agents, name) || {}));
      });
    }
    return tidy(next);
  }

  function fittingScores(scores, dims, config) {
    var kept = {};
    Object.keys(scores).forEach(function (dim) {
      if (dims.indexOf(dim) >= 0 && onScale(scores[dim], config)) { put(kept, dim, scores[dim]); }
    });
    return kept;
  }

  function fittingNa(marked, dims, scored) {
    return (marked || []).filter(function (dim) { return dims.indexOf(dim) >= 0 && !hasOwn(scored, dim); });
  }

  // ---------------------------------------------------------------------------------------------
  // Reading the stored value, and what in it the trace or config does not contain (pure)
  // ---------------------------------------------------------------------------------------------

  /** {value, unreadable} from model.get(): the checked value (or null), or a sentence. */
  function readValue(got, config) {
    if (got.raw === '' || got.raw === null || got.raw === undefined) { return {value: null, unreadable: null}; }
    var problems = got.error ? [got.error] : runtime.checkValue(got.value, config);
    if (problems.length) {
      return {value: null, unreadable: 'The saved value could not be read: ' + problems.join('; ') +
        '. It is kept until you mark something.'};
    }
    return {value: got.value, unreadable: null};
  }

  /** The agents of the value the trace lacks, in the value's order (scores first, then N/A). */
  function staleAgents(value, agents) {
    var names = Object.keys(value.agents);
    var marked = value.not_applicable && value.not_applicable.agents;
    Object.keys(marked || {}).forEach(function (name) { if (names.indexOf(name) < 0) { names.push(name); } });
    return names.filter(function (name) { return agents.indexOf(name) < 0; });
  }

  /**
   * Every mark of a well-formed value that the trace or config does not contain, worded exactly
   * as Python's AgentScorecard.trace_problems, each with its kind: 'stale-agent' (shown as a row),
   * 'stale-step' (shown in its picker) or 'unasked' (listed, removed by fittingValue).
   */
  function audit(value, config, derivation) {
    var agents = derivation.agents;
    var found = [];
    function add(kind, text) { found.push({kind: kind, text: text}); }
    Object.keys(value.agents).forEach(function (name) {
      if (agents.indexOf(name) < 0) { add('stale-agent', runtime.notInTrace('agents', name)); }
      auditScores('agents.' + name, value.agents[name], config.agent_dimensions, 'agent_dimensions', config, add);
    });
    auditScores('team', value.team, config.team_dimensions, 'team_dimensions', config, add);
    auditMilestones(value, derivation.steps.length, config, add);
    auditNotApplicable(value, agents, config, add);
    return found;
  }

  function notConfigured(path, label, key) {
    return path + ": '" + label + "' is not one of the configured " + key;
  }

  function auditScores(path, scores, dims, key, config, add) {
    var known = Object.keys(scores).filter(function (dim) { return dims.indexOf(dim) >= 0; });
    Object.keys(scores).forEach(function (dim) {
      if (dims.indexOf(dim) < 0) { add('unasked', notConfigured(path, dim, key)); }
    });
    known.forEach(function (dim) {
      if (scores[dim] > config.scale) {
        add('unasked', runtime.aboveBound(path + '.' + dim, scores[dim], config.scale));
      }
    });
  }

  function auditMilestones(value, stepCount, config, add) {
    Object.keys(value.milestones).forEach(function (name) {
      if (config.milestones.indexOf(name) < 0) { add('unasked', notConfigured('milestones', name, 'milestones')); }
    });
    var steps = value.milestone_steps || {};
    if (Object.keys(steps).length && !config.milestone_steps) {
      add('unasked', 'milestone_steps: not recorded by this scheme (milestone_steps is false)');
      return;
    }
    Object.keys(steps).forEach(function (name) {
      if (config.milestones.indexOf(name) < 0) {
        add('unasked', notConfigured('milestone_steps', name, 'milestones'));
      } else if (own(value.milestones, name) !== true) {
        add('unasked', 'milestone_steps.' + name + ': the milestone is not marked reached');
      } else if (steps[name] >= stepCount) {
        add('stale-step', runtime.notInTrace('milestone_steps.' + name, steps[name]));
      }
    });
  }

  function auditNotApplicable(value, agents, config, add) {
    var marked = value.not_applicable || {};
    var markedAgents = marked.agents || {};
    if (!Object.keys(markedAgents).length && !(marked.team || []).length) { return; }
    if (!config.allow_na) {
      add('unasked', 'not_applicable: not applicable is not offered by this scheme (allow_na is false)');
      return;
    }
    Object.keys(markedAgents).forEach(function (name) {
      if (agents.indexOf(name) < 0) { add('stale-agent', runtime.notInTrace('not_applicable.agents', name)); }
      auditMarked('not_applicable.agents.' + name, markedAgents[name], config.agent_dimensions,
        'agent_dimensions', own(value.agents, name) || {}, add);
    });
    auditMarked('not_applicable.team', marked.team || [], config.team_dimensions, 'team_dimensions', value.team, add);
  }

  function auditMarked(path, dims, configured, key, scored, add) {
    dims.forEach(function (dim) {
      if (configured.indexOf(dim) < 0) {
        add('unasked', notConfigured(path, dim, key));
      } else if (hasOwn(scored, dim)) {
        add('unasked', path + ": '" + dim + "' is also scored");
      }
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Words (pure). Nothing here that reaches setIncomplete ever holds trace text.
  // ---------------------------------------------------------------------------------------------

  /** Cells of the live agents and the team: how many, and how many are scored or NA. */
  function progress(value, config, agents) {
    var count = {total: 0, done: 0};
    function tally(row, dims) {
      dims.forEach(function (dim) {
        var choice = cellChoice(value, row, dim);
        count.total += 1;
        if (choice === NA ? config.allow_na : onScale(choice, config)) { count.done += 1; }
      });
    }
    agents.forEach(function (agent) { tally({agent: agent}, config.agent_dimensions); });
    tally({team: true}, config.team_dimensions);
    return count;
  }

  function cellsWord(count) { return count === 1 ? ' cell' : ' cells'; }

  /** "7 of 24 cells left" while a cell is open; null when every cell is scored or NA. */
  function incompleteReason(count, unreadable) {
    if (count.done >= count.total) { return null; }
    var left = (count.total - count.done) + ' of ' + count.total + cellsWord(count.total) + ' left';
    return unreadable ? 'The saved value could not be read; ' + left : left;
  }

  function remainingText(count) {
    if (count.total === 0) { return 'No cells to score.'; }
    if (count.done >= count.total) {
      return 'All ' + count.total + cellsWord(count.total) + ' scored or marked not applicable.';
    }
    return incompleteReason(count, null) + ' to score or mark not applicable.';
  }

  function scoreWords(score, config) {
    var label = scaleLabel(score, config);
    return label ? score + ' (' + label + ')' : String(score);
  }

  function scaleLabel(score, config) {
    var labels = config.scale_labels;
    return labels ? own(labels, String(score)) || null : null;
  }

  function choiceWords(choice, config) {
    if (choice === NA) { return 'not applicable'; }
    return choice === null ? 'not scored' : scoreWords(choice, config);
  }

  function rowName(row) { return row.team ? TEAM_LABEL : row.agent; }

  /** The live summary: the last change, the counts, and the milestones reached. */
  function summaryText(value, config, count, change) {
    var parts = [];
    if (change) { parts.push(change); }
    parts.push(count.done + ' of ' + count.total + cellsWord(count.total) + ' scored or not applicable.');
    if (config.milestones.length) {
      var reached = config.milestones.filter(function (name) { return own(value.milestones, name) === true; });
      parts.push(reached.length ? 'Milestones reached: ' + reached.join(', ') + '.' : 'No milestone reached.');
    }
    return parts.join(' ');
  }

  /** "#N · AGENT · snippet" for one derived step (as failure_attribution words it). */
  function stepLabel(step) {
    var agent = step.agent === null || step.agent === undefined ? 'no agent' : String(step.agent);
    var text = runtime.snippet(step.text, SNIPPET_LENGTH) || '(no text)';
    return '#' + (step.index + 1) + ' \u00B7 ' + agent + ' \u00B7 ' + text;
  }

  function noticesFor(marks, unreadable, derivation) {
    var notices = [];
    if (unreadable) { notices.push({level: 'warning', text: unreadable}); }
    (derivation.problems || []).forEach(function (problem) {
      if (problem && problem.code === 'steps_not_list') {
        notices.push({level: 'warning', text: 'This trace has no steps: ' + problem.message});
      }
    });
    marks.forEach(function (mark) { notices.push({level: 'warning', text: mark.text}); });
    return notices;
  }

  // ---------------------------------------------------------------------------------------------
  // The grid: built once per set of rows, then only checked states change
  // ---------------------------------------------------------------------------------------------

  function h(tag, attrs, children) { return runtime.h(tag, attrs, children); }

  function createUi(el) {
    var ui = {
      agentsBody: el.querySelector('[data-ma-part="agents"] tbody'),
      teamBody: el.querySelector('[data-ma-part="team"] tbody'),
      milestoneList: el.querySelector('[data-ma-part="milestones"]'),
      remaining: el.querySelector('[data-ma-part="remaining"]'),
      dropButton: el.querySelector('[data-ma-part="drop-unasked"]'),
      cellOf: new WeakMap(),        // radio -> {group, choice}
      pickerOf: new WeakMap(),      // milestone checkbox or step select -> its picker
      groups: [],                   // every cell: {row, dim, radios: [{input, choice}]}
      rows: [],                     // the agent rows: {row, stale, groups, controls}
      rowsKey: null,
      controlsByKey: new Map(),     // logical key -> control, to put focus back after a rebuild
      keyOf: new WeakMap(),
      pickers: [],
      stepOptions: null,            // every step's <option>, to clone into a picker
      derivation: null,
      value: emptyValue(),
      unreadable: null,
      ctx: null
    };
    if (!ui.agentsBody || !ui.teamBody || !ui.remaining || !ui.dropButton) {
      throw new Error('the page lacks the parts of this question (data-ma-part agents, team, remaining, ' +
        'drop-unasked)');
    }
    el.addEventListener('change', function (event) { onChange(ui, event.target); });
    el.addEventListener('keydown', function (event) { onKeydown(ui, event); });
    ui.dropButton.addEventListener('click', function () { dropUnasked(ui); });
    return ui;
  }

  function remember(ui, key, control) {
    ui.controlsByKey.set(key, control);
    ui.keyOf.set(control, key);
    return control;
  }

  /** A control's identity across rebuilds; an agent called "Team" is not the team row. */
  function controlKey(kind, row, detail) {
    return [kind, row.team ? 'team' : 'agent', rowName(row)].concat(detail).join('\u0000');
  }

  /** A radio's accessible name: "3", "5: excellent" with a scale label, or "not applicable". */
  function optionName(choice, config) {
    if (choice === NA) { return 'not applicable'; }
    var label = scaleLabel(choice, config);
    return label ? choice + ': ' + label : String(choice);
  }

  /** One cell: a radio group named "ROW: DIMENSION" with a radio per score, then N/A. */
  function buildCell(ui, row, dim, config) {
    var group = {row: row, dim: dim, radios: []};
    var groupName = 'ma-asc-' + ui.groups.length;
    var choices = [];
    for (var score = 1; score <= config.scale; score++) { choices.push(score); }
    if (config.allow_na) { choices.push(NA); }
    var options = choices.map(function (choice) {
      var name = optionName(choice, config);
      var input = h('input', {type: 'radio', class: 'ma-asc-radio', name: groupName,
        value: choice === NA ? 'na' : String(choice), 'aria-label': name});
      ui.cellOf.set(input, {group: group, choice: choice});
      remember(ui, controlKey('cell', row, [dim, String(choice)]), input);
      group.radios.push({input: input, choice: choice});
      // The title names the cell too: in a long grid the headers may be out of view.
      return h('label', {class: choice === NA ? 'ma-asc-option ma-asc-na' : 'ma-asc-option',
        title: rowName(row) + ' \u00B7 ' + dim + ': ' + name},
        [input, choice === NA ? 'N/A' : String(choice)]);
    });
    ui.groups.push(group);
    return {group: group, node: h('td', null, h('div', {class: 'ma-asc-cell', role: 'radiogroup',
      'aria-label': rowName(row) + ': ' + dim}, options))};
  }

  /** The row header: the name, then Rest N/A; or "(not in this trace)" and Remove. */
  function buildRowHeader(ui, entry, dims, config) {
    var row = entry.row;
    if (entry.stale) {
      entry.controls.push(remember(ui, controlKey('remove', row, []), h('button', {type: 'button',
        class: 'ma-asc-remove', 'aria-label': 'Remove ' + row.agent + NOT_IN_TRACE, text: 'Remove',
        on: {click: function () { removeRow(ui, entry); }}})));
    }
    if (config.allow_na && !entry.stale) {   // a row not in this trace has no cells to fill
      entry.controls.push(remember(ui, controlKey('rest-na', row, []), h('button', {type: 'button',
        class: 'ma-asc-rest-na', 'aria-label': 'Rest N/A for ' + rowName(row), text: 'Rest N/A',
        title: 'Mark every cell of this row that is not scored yet as not applicable',
        on: {click: function () { markRestNotApplicable(ui, entry, dims); }}})));
    }
    return h('th', {scope: 'row', class: 'ma-asc-row-name'}, [
      h('span', {class: 'ma-asc-name', text: rowName(row)}),
      entry.stale ? h('span', {class: 'ma-asc-stale', text: NOT_IN_TRACE}) : null,
      h('span', {class: 'ma-asc-row-actions'}, entry.controls)
    ]);
  }

  function buildRow(ui, row, stale, dims, config) {
    var entry = {row: row, stale: stale, groups: [], controls: []};
    var header = buildRowHeader(ui, entry, dims, config);
    var cells = dims.map(function (dim) { return buildCell(ui, row, dim, config); });
    entry.groups = cells.map(function (cell) { return cell.group; });
    entry.node = h('tr', {class: stale ? 'ma-asc-row ma-asc-row-stale' : 'ma-asc-row'},
      [header, cells.map(function (cell) { return cell.node; })]);
    return entry;
  }

  /** (Re)build the rows when the set of rows changed; focus returns to the same control. */
  function syncRows(ui, config, derivation) {
    var stale = staleAgents(ui.value, derivation.agents);
    var key = JSON.stringify([derivation.agents, stale]);
    if (key === ui.rowsKey) { return; }
    var focusKey = ui.keyOf.get(document.activeElement);
    ui.rowsKey = key;
    ui.groups = [];
    ui.controlsByKey = new Map();
    ui.rows = derivation.agents.map(function (name) {
      return buildRow(ui, {agent: name}, false, config.agent_dimensions, config);
    }).concat(stale.map(function (name) {
      return buildRow(ui, {agent: name}, true, config.agent_dimensions, config);
    }));
    replaceRows(ui.agentsBody, ui.rows);
    replaceRows(ui.teamBody, [buildRow(ui, {team: true}, false, config.team_dimensions, config)]);
    if (ui.controlsByKey.has(focusKey)) { ui.controlsByKey.get(focusKey).focus(); }
  }

  function replaceRows(body, entries) {
    var rows = document.createDocumentFragment();
    entries.forEach(function (entry) { rows.appendChild(entry.node); });
    body.textContent = '';
    body.appendChild(rows);
  }

  function paintGroups(ui, groups) {
    groups.forEach(function (group) {
      var choice = cellChoice(ui.value, group.row, group.dim);
      group.radios.forEach(function (radio) {
        var checked = radio.choice === choice;
        if (radio.input.checked !== checked) { radio.input.checked = checked; }
      });
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Milestones: a checkbox each; with milestone_steps a step picker, filled on first use
  // ---------------------------------------------------------------------------------------------

  function buildMilestones(ui, config) {
    ui.pickers = [];
    if (!ui.milestoneList) { return; }
    var items = document.createDocumentFragment();
    config.milestones.forEach(function (name) {
      var picker = {name: name, checkbox: h('input', {type: 'checkbox', class: 'ma-asc-milestone-box'}),
        select: null, filled: false, staleOption: null};
      ui.pickerOf.set(picker.checkbox, picker);
      var children = [h('label', {class: 'ma-asc-milestone-name'}, [picker.checkbox, name])];
      if (config.milestone_steps) {
        picker.select = h('select', {class: 'ma-asc-step', 'aria-label': 'Step where ' + name + ' was reached'});
        ui.pickerOf.set(picker.select, picker);
        ['focus', 'mousedown', 'keydown'].forEach(function (type) {
          picker.select.addEventListener(type, function () { fillSteps(ui, picker); });
        });
        children.push(picker.select);
      }
      ui.pickers.push(picker);
      items.appendChild(h('li', {class: 'ma-asc-milestone'}, children));
    });
    ui.milestoneList.textContent = '';
    ui.milestoneList.appendChild(items);
  }

  function chosenStep(value, name) {
    var step = own(value.milestone_steps, name);
    return typeof step === 'number' ? step : null;
  }

  function stepOption(label, step) {
    return h('option', {value: step === null ? '' : String(step), text: label});
  }

  /** Every step's option, built once per trace; each picker gets a copy (cloning is cheap). */
  function allStepOptions(ui) {
    if (!ui.stepOptions) {
      ui.stepOptions = document.createDocumentFragment();
      ui.derivation.steps.forEach(function (step) { ui.stepOptions.appendChild(stepOption(stepLabel(step), step.index)); });
    }
    return ui.stepOptions.cloneNode(true);
  }

  /** Options of a picker: every step once the annotator opens it, else only the chosen one. */
  function showStepOptions(ui, picker, step) {
    var steps = ui.derivation.steps;
    var options = document.createDocumentFragment();
    options.appendChild(stepOption('\u2014 step not recorded \u2014', null));
    picker.staleOption = step !== null && step >= steps.length ? stepOption('#' + (step + 1) + NOT_IN_TRACE, step) : null;
    if (picker.staleOption) { options.appendChild(picker.staleOption); }
    if (picker.filled) {
      options.appendChild(allStepOptions(ui));
    } else if (step !== null && step < steps.length) {
      options.appendChild(stepOption(stepLabel(steps[step]), step));
    }
    picker.select.textContent = '';
    picker.select.appendChild(options);
    picker.select.value = step === null ? '' : String(step);
  }

  function fillSteps(ui, picker) {
    if (picker.filled) { return; }
    picker.filled = true;
    showStepOptions(ui, picker, chosenStep(ui.value, picker.name));
  }

  /** A step "not in this trace" stays in its picker until the annotator picks another. */
  function dropUnselectedStale(picker) {
    if (picker.staleOption && !picker.staleOption.selected) {
      picker.select.removeChild(picker.staleOption);
      picker.staleOption = null;
    }
  }

  function paintMilestones(ui) {
    ui.pickers.forEach(function (picker) {
      var reached = own(ui.value.milestones, picker.name) === true;
      if (picker.checkbox.checked !== reached) { picker.checkbox.checked = reached; }
      if (!picker.select) { return; }
      picker.select.hidden = !reached;
      var step = chosenStep(ui.value, picker.name);
      if (picker.select.value !== (step === null ? '' : String(step)) || !picker.select.options.length) {
        showStepOptions(ui, picker, step);
      }
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Actions: one new value, one model.set, then only the touched controls are repainted
  // ---------------------------------------------------------------------------------------------

  function onChange(ui, target) {
    var cell = ui.cellOf.get(target);
    if (cell) {
      if (target.checked) { chooseCell(ui, cell.group, cell.choice); }
      return;
    }
    var picker = ui.pickerOf.get(target);
    if (!picker) { return; }
    if (target === picker.checkbox) {
      commit(ui, withMilestone(ui.value, picker.name, target.checked),
        picker.name + (target.checked ? ': reached.' : ': not reached.'));
      paintMilestones(ui);
    } else {
      dropUnselectedStale(picker);
      var step = target.value === '' ? null : Number(target.value);
      commit(ui, withMilestoneStep(ui.value, picker.name, step),
        picker.name + (step === null ? ': step not recorded.' : ': reached at step #' + (step + 1) + '.'));
    }
  }

  function onKeydown(ui, event) {
    var cell = ui.cellOf.get(event.target);
    var step = ARROW_STEP[event.key];
    if (!cell || !step || event.altKey || event.ctrlKey || event.metaKey) { return; }
    event.preventDefault();
    event.stopPropagation();
    var radios = cell.group.radios;
    var at = radios.findIndex(function (radio) { return radio.input === event.target; });
    var next = radios[(at + step + radios.length) % radios.length];
    next.input.checked = true;
    next.input.focus();
    chooseCell(ui, cell.group, next.choice);
  }

  function chooseCell(ui, group, choice) {
    var config = ui.ctx.config;
    commit(ui, withCell(ui.value, group.row, group.dim, choice),
      rowName(group.row) + ': ' + group.dim + ' ' + choiceWords(choice, config) + '.');
  }

  function markRestNotApplicable(ui, entry, dims) {
    commit(ui, withRowNotApplicable(ui.value, entry.row, dims),
      rowName(entry.row) + ': every cell not scored yet marked not applicable.');
    paintGroups(ui, entry.groups);
  }

  function removeRow(ui, entry) {
    var at = ui.rows.indexOf(entry);
    commit(ui, withoutAgent(ui.value, entry.row.agent), entry.row.agent + ' removed.');
    syncRows(ui, ui.ctx.config, ui.derivation);
    paintGroups(ui, ui.groups);
    focusRowNear(ui, at);
  }

  /** After a row went away: the first control of the row now in its place, or the one above. */
  function focusRowNear(ui, at) {
    var entry = ui.rows[at] || ui.rows[at - 1];
    var control = entry && (entry.controls[0] || entry.groups[0] && entry.groups[0].radios[0].input);
    (control || ui.remaining).focus();
  }

  function dropUnasked(ui) {
    commit(ui, fittingValue(ui.value, ui.ctx.config), 'Marks this question does not ask for removed.');
    syncRows(ui, ui.ctx.config, ui.derivation);
    paintGroups(ui, ui.groups);
    paintMilestones(ui);
    ui.remaining.focus();
  }

  function commit(ui, value, change) {
    ui.value = value;
    ui.unreadable = null;
    ui.ctx.model.set(isEmptyValue(value) ? null : value);
    describe(ui, change);
  }

  /** Counts, notices, completeness and the live summary for the current value. */
  function describe(ui, change) {
    var ctx = ui.ctx;
    var config = ctx.config;
    var count = progress(ui.value, config, ui.derivation.agents);
    var marks = audit(ui.value, config, ui.derivation);
    var unasked = marks.filter(function (mark) { return mark.kind === 'unasked'; }).length;
    ui.remaining.textContent = remainingText(count);
    ui.dropButton.hidden = unasked === 0;
    ui.dropButton.textContent = 'Remove ' + unasked + ' saved mark' + (unasked === 1 ? '' : 's') +
      ' this question does not ask for';
    ctx.setNotices(noticesFor(marks, ui.unreadable, ui.derivation));
    ctx.model.setIncomplete(incompleteReason(count, ui.unreadable));
    ctx.model.announce(summaryText(ui.value, config, count, change));
  }

  // ---------------------------------------------------------------------------------------------
  // Render (called by the runtime on load and on every potato:instance-ready)
  // ---------------------------------------------------------------------------------------------

  function render(ctx) {
    var ui = ctx.state.ui || (ctx.state.ui = createUi(ctx.el));
    ui.ctx = ctx;
    var stored = readValue(ctx.model.get(), ctx.config);
    ui.unreadable = stored.unreadable;
    ui.value = stored.value || emptyValue();
    if (ui.derivation !== ctx.derivation) {
      ui.derivation = ctx.derivation;
      ui.stepOptions = null;
      ui.rowsKey = null;
      buildMilestones(ui, ctx.config);
    }
    syncRows(ui, ctx.config, ctx.derivation);
    paintGroups(ui, ui.groups);
    paintMilestones(ui);
    describe(ui, null);
  }

  return {
    WIDGET: WIDGET,
    NA: NA,
    render: render,
    readValue: readValue,
    emptyValue: emptyValue,
    cellChoice: cellChoice,
    withCell: withCell,
    withRowNotApplicable: withRowNotApplicable,
    withMilestone: withMilestone,
    withMilestoneStep: withMilestoneStep,
    withoutAgent: withoutAgent,
    isEmptyValue: isEmptyValue,
    fittingValue: fittingValue,
    staleAgents: staleAgents,
    audit: audit,
    progress: progress,
    incompleteReason: incompleteReason,
    remainingText: remainingText,
    summaryText: summaryText,
    stepLabel: stepLabel
  };
}));
