/*
 * marks.js of `multiagent.agent_scorecard`: the pure rules (no DOM), shared by view.js in the page
 * and by the node tests (tests/js/type_cases.test.js runs cases.json against problems()).
 *
 * The stored value:
 *     {"agents": {name: {dim: score}}, "team": {dim: score}, "milestones": {name: true},
 *      "not_applicable": {"agents": {name: [dim]}, "team": [dim]},   (only when some cell is N/A)
 *      "milestone_steps": {name: stepIndex},                          (only when some step is set)
 *      "milestone_step_refs": {name: identity of that step},          (beside milestone_steps)
 *      "from_judgment": {"agents/A/dim"|"team/dim"|"milestones/M": source}}  (only when accepted)
 * or "" when nothing is marked. A row is {team: true} or {agent: name}; a choice is a score, NA
 * or null. Maps keyed by names from the trace use own properties only (an agent may be called
 * "__proto__").
 */
import {marks} from 'potato-multiagent';

marks('agent_scorecard', function (lib) {
  'use strict';

  var NA = 'na';
  var TEAM_LABEL = 'Team';
  var NOT_IN_TRACE = ' (not in this trace)';
  var SNIPPET_LENGTH = 80;

  function hasOwn(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }
  function own(object, key) { return object && hasOwn(object, key) ? object[key] : undefined; }
  function put(object, key, value) {
    Object.defineProperty(object, key, {value: value, enumerable: true, writable: true, configurable: true});
    return object;
  }

  function copy(value) { return JSON.parse(JSON.stringify(value)); }
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
    if (value.milestone_step_refs) {
      Object.keys(value.milestone_step_refs).forEach(function (name) {
        if (own(value.milestone_steps, name) === undefined) { delete value.milestone_step_refs[name]; }
      });
      if (Object.keys(value.milestone_step_refs).length === 0) { delete value.milestone_step_refs; }
    }
    if (value.from_judgment && Object.keys(value.from_judgment).length === 0) { delete value.from_judgment; }
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

  /** A copy with milestone `name` reached at `step` (null: no step); its identity is the runtime's
   * to add (the old one goes with the old step). */
  function withMilestoneStep(value, name, step) {
    var next = copy(value);
    if (next.milestone_step_refs) { delete next.milestone_step_refs[name]; }
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
    Object.keys(next.from_judgment || {}).forEach(function (key) {
      if (key.indexOf('agents/' + name + '/') === 0) { delete next.from_judgment[key]; }
    });
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
      next.milestone_step_refs = {};
      Object.keys(value.milestone_steps).forEach(function (name) {
        if (own(next.milestones, name) === true) {
          put(next.milestone_steps, name, value.milestone_steps[name]);
          var ref = own(value.milestone_step_refs, name);
          if (typeof ref === 'string') { put(next.milestone_step_refs, name, ref); }
        }
      });
    }
    if (value.from_judgment) { next.from_judgment = copy(value.from_judgment); }
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


  /** The agents of the value the trace lacks, in the value's order (scores first, then N/A). */
  function staleAgents(value, agents) {
    var names = Object.keys(value.agents);
    var marked = value.not_applicable && value.not_applicable.agents;
    Object.keys(marked || {}).forEach(function (name) { if (names.indexOf(name) < 0) { names.push(name); } });
    return names.filter(function (name) { return agents.indexOf(name) < 0; });
  }

  /**
   * Every mark of a well-formed value that the trace or config does not contain, as Python's
   * AgentScorecard.trace_problems finds them: {kind, problem, text}, the problem as data, in
   * words, and its kind: 'stale-agent' (shown as a row), 'stale-step' (shown in its picker) or
   * 'unasked' (listed, removed by fittingValue).
   */
  function audit(value, config, derivation) {
    var agents = derivation.agents;
    var found = [];
    function add(kind, problem) { found.push({kind: kind, problem: problem, text: lib.words(problem)}); }
    Object.keys(value.agents).forEach(function (name) {
      if (agents.indexOf(name) < 0) { add('stale-agent', lib.notInTrace('agents', name)); }
      auditScores('agents.' + name, value.agents[name], config.agent_dimensions, 'agent_dimensions', config, add);
    });
    auditScores('team', value.team, config.team_dimensions, 'team_dimensions', config, add);
    auditMilestones(value, derivation, config, add);
    auditNotApplicable(value, agents, config, add);
    return found;
  }

  function notConfigured(path, label, key) {
    return lib.problem('not_configured', {field: path, value: label, key: key});
  }

  function auditScores(path, scores, dims, key, config, add) {
    var known = Object.keys(scores).filter(function (dim) { return dims.indexOf(dim) >= 0; });
    Object.keys(scores).forEach(function (dim) {
      if (dims.indexOf(dim) < 0) { add('unasked', notConfigured(path, dim, key)); }
    });
    known.forEach(function (dim) {
      if (scores[dim] > config.scale) {
        add('unasked', lib.aboveBound(path + '.' + dim, scores[dim], config.scale));
      }
    });
  }

  function auditMilestones(value, derivation, config, add) {
    Object.keys(value.milestones).forEach(function (name) {
      if (config.milestones.indexOf(name) < 0) { add('unasked', notConfigured('milestones', name, 'milestones')); }
    });
    Object.keys(value.milestone_step_refs || {}).forEach(function (name) {
      if (own(value.milestone_steps, name) === undefined) {
        add('unasked', lib.problem('ref_without_step', {field: 'milestone_step_refs.' + name,
          step_field: 'milestone_steps'}));
      }
    });
    var steps = value.milestone_steps || {};
    if (Object.keys(steps).length && !config.milestone_steps) {
      add('unasked', lib.problem('off_in_config', {field: 'milestone_steps', key: 'milestone_steps'}));
      return;
    }
    Object.keys(steps).forEach(function (name) {
      if (config.milestones.indexOf(name) < 0) {
        add('unasked', notConfigured('milestone_steps', name, 'milestones'));
      } else if (own(value.milestones, name) !== true) {
        add('unasked', lib.problem('not_reached', {field: 'milestone_steps.' + name}));
      } else {
        lib.stepProblems('milestone_steps.' + name, steps[name], own(value.milestone_step_refs, name), derivation)
          .forEach(function (problem) { add('stale-step', problem); });
      }
    });
  }

  /**
   * The value's step references (docs/step-references.md): each milestone's step, with the identity
   * it was saved with. set writes into `value`; remove(copy) is the copy without that step (the
   * milestone stays reached).
   */
  function references(value) {
    var steps = value && value.milestone_steps;
    if (!steps) { return []; }
    return Object.keys(steps).map(function (name) {
      return {key: 'milestone_steps/' + name, field: 'milestone_steps.' + name, index: steps[name],
        ref: own(value.milestone_step_refs, name),
        set: function (index, ref) {
          put(value.milestone_steps, name, index);
          if (typeof ref === 'string') { put(value.milestone_step_refs || (value.milestone_step_refs = {}), name, ref); }
          else if (value.milestone_step_refs) { delete value.milestone_step_refs[name]; }
        },
        remove: function (copied) { return withMilestoneStep(copied, name, null); }};
    });
  }

  function auditNotApplicable(value, agents, config, add) {
    var marked = value.not_applicable || {};
    var markedAgents = marked.agents || {};
    if (!Object.keys(markedAgents).length && !(marked.team || []).length) { return; }
    if (!config.allow_na) {
      add('unasked', lib.problem('off_in_config', {field: 'not_applicable', key: 'allow_na'}));
      return;
    }
    Object.keys(markedAgents).forEach(function (name) {
      if (agents.indexOf(name) < 0) { add('stale-agent', lib.notInTrace('not_applicable.agents', name)); }
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
        add('unasked', lib.problem('also_scored', {field: path, value: dim}));
      }
    });
  }

  // -- Words (pure). Nothing here that reaches setIncomplete ever holds trace text.

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
    var text = lib.snippet(step.text, SNIPPET_LENGTH) || '(no text)';
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


  /** A radio's accessible name: "3", "5: excellent" with a scale label, or "N/A (not applicable)"
   * (it starts with the words shown, so speech input by what is on screen finds it). */
  function optionName(choice, config) {
    if (choice === NA) { return 'N/A (not applicable)'; }
    var label = scaleLabel(choice, config);
    return label ? choice + ': ' + label : String(choice);
  }

  /** How many kept marks the config does not ask for (what the "Remove N saved marks" button drops). */
  function unaskedCount(value, config, derivation) {
    return audit(value || emptyValue(), config, derivation).filter(function (mark) {
      return mark.kind === 'unasked';
    }).length;
  }

  // AgentScorecardConfig's defaults (scheme.py): the page always gets a full config from the
  // server; a cases.json case gives only the keys it changes.
  var CONFIG_DEFAULTS = {agent_dimensions: ['role fidelity', 'contribution', 'coordination'],
    team_dimensions: ['coordination', 'communication', 'efficiency'], milestones: [], scale: 5,
    scale_labels: null, allow_na: true, milestone_steps: false};

  function withDefaults(config) {
    var full = {};
    Object.keys(CONFIG_DEFAULTS).forEach(function (key) {
      full[key] = config && config[key] !== undefined ? config[key] : CONFIG_DEFAULTS[key];
    });
    return full;
  }

  /** The trace problems of a value as data ({code, ...parameters}), as Python's trace_problems
   * finds them (cases.json); lib.words says them. */
  function problems(value, derivation, config) {
    if (!value) { return []; }
    return audit(value, withDefaults(config), derivation).map(function (mark) { return mark.problem; });
  }

  /**
   * What the runtime paints for a value (define's describe). Stale agents stay rows of the grid
   * with their own Remove button, so the shared stale list stays empty.
   */
  function describe(value, ctx) {
    var shown = value || emptyValue();
    var count = progress(shown, ctx.config, ctx.derivation.agents);
    return {
      summary: summaryText(shown, ctx.config, count, null),
      incomplete: incompleteReason(count, ctx.unreadable),
      notices: noticesFor(audit(shown, ctx.config, ctx.derivation), ctx.unreadable, ctx.derivation),
      stale: lib.staleReferenceEntries(references, value, ctx.derivation)
    };
  }


  // -- judgments (docs/judgments.md): another's answer shown beside each cell and milestone --------

  /** The from_judgment key of a cell ("agents/AGENT/DIM", "team/DIM") or a milestone ("milestones/NAME"). */
  function judgmentKey(row, dim) { return row.team ? 'team/' + dim : 'agents/' + row.agent + '/' + dim; }
  function milestoneKey(name) { return 'milestones/' + name; }
  function isMap(thing) { return thing !== null && typeof thing === 'object' && !Array.isArray(thing); }

  /** The readable judgments the record carries for this scheme: [{source, value}], in the record's order. */
  function judgmentsOf(record, config, schemaName) {
    return lib.judgmentsOf(record, config, schemaName, function (value) {
      return isMap(value) && isMap(value.agents) && isMap(value.team) && isMap(value.milestones);
    });
  }

  /** Whether judgments show now: 'always'; 'never'; 'after_answer' once answered or the grid is complete. */
  function judgmentsShown(config, answered, complete) {
    return lib.judgmentsShown(config, answered || complete);
  }

  /** A judge's choice for one cell when the grid offers it (a score on the scale, or N/A with allow_na). */
  function judgedChoice(judgment, row, dim, config) {
    var choice = cellChoice(judgment.value, row, dim);
    if (choice === NA) { return config.allow_na ? NA : null; }
    return onScale(choice, config) ? choice : null;
  }

  function withSource(value, key, source) {
    var next = copy(value);
    var from = next.from_judgment || {};
    if (source === null) { delete from[key]; } else { put(from, key, source); }
    if (Object.keys(from).length) { next.from_judgment = from; } else { delete next.from_judgment; }
    return next;
  }

  /** The cell set to a choice: by hand (source null, its from_judgment goes) or from a judgment. */
  function withJudgedCell(value, row, dim, choice, source) {
    return withSource(withCell(value, row, dim, choice), judgmentKey(row, dim), source);
  }

  /** A judge's milestone answer: reached (with its step when the scheme records steps) or not. */
  function judgedMilestone(judgment, name) {
    var reached = own(judgment.value.milestones, name) === true;
    var step = reached ? own(judgment.value.milestone_steps, name) : undefined;
    return {reached: reached, step: typeof step === 'number' ? step : null};
  }

  function withJudgedMilestone(value, name, judged, source, config) {
    var next = withMilestone(value, name, judged.reached);
    if (judged.reached && config.milestone_steps) { next = withMilestoneStep(next, name, judged.step); }
    return withSource(next, milestoneKey(name), source);
  }

  /** "reached (#3)", "reached", "not reached": a judge's milestone answer in words. */
  function milestoneWords(judged) {
    if (!judged.reached) { return 'not reached'; }
    return judged.step === null ? 'reached' : 'reached (#' + (judged.step + 1) + ')';
  }

  return {
    NA: NA, CONFIG_DEFAULTS: CONFIG_DEFAULTS, NOT_IN_TRACE: NOT_IN_TRACE, own: own, emptyValue: emptyValue,
    cellChoice: cellChoice, withCell: withCell, withRowNotApplicable: withRowNotApplicable,
    references: references,
    withMilestone: withMilestone, withMilestoneStep: withMilestoneStep, withoutAgent: withoutAgent,
    isEmptyValue: isEmptyValue, fittingValue: fittingValue, staleAgents: staleAgents, audit: audit,
    unaskedCount: unaskedCount, progress: progress, incompleteReason: incompleteReason,
    remainingText: remainingText, choiceWords: choiceWords, optionName: optionName, rowName: rowName,
    summaryText: summaryText, stepLabel: stepLabel, problems: problems, describe: describe,
    judgmentKey: judgmentKey, milestoneKey: milestoneKey, judgmentsOf: judgmentsOf,
    judgmentsShown: judgmentsShown, judgedChoice: judgedChoice, withSource: withSource,
    withJudgedCell: withJudgedCell, judgedMilestone: judgedMilestone,
    withJudgedMilestone: withJudgedMilestone, milestoneWords: milestoneWords
  };
});
