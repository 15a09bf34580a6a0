/*
 * marks.js of `multiagent.failure_attribution`: the pure rules (no DOM), shared by view.js in the
 * page and by the node tests (tests/js/type_cases.test.js runs cases.json against problems()).
 *
 * The stored value is {"responsible_agent": str|null, "decisive_step": int|null,
 * "decisive_step_ref": str (the step's identity, beside a step), "reason": str} (decisive_step is
 * the 0-based step index, shown as #N = index + 1), or "" when nothing is chosen; optionally
 * "certainty" ('confident' | 'uncertain') and "plausible_steps" ([{step, step_ref?}], other steps
 * that could be the decisive one, most plausible first, each with its step's identity).
 */
import {marks} from 'potato-multiagent';

marks('failure_attribution', function (lib) {
  'use strict';

  var SNIPPET_LENGTH = 80;
  var NOT_IN_TRACE = ' (not in this trace)';
  var CHANGED = ' (changed since it was saved)';

  /**
   * The value's step references (docs/step-references.md): the decisive step and each plausible
   * step, with the identity it was saved with. set writes into `value`; remove(copy) is the copy
   * without that step.
   */
  function references(value) {
    if (!value || typeof value !== 'object') { return []; }
    var found = [];
    if (typeof value.decisive_step === 'number') {
      found.push({key: 'decisive_step', field: 'decisive_step', index: value.decisive_step, ref: value.decisive_step_ref,
        set: function (index, ref) { value.decisive_step = index; value.decisive_step_ref = ref; },
        remove: function (copy) { copy.decisive_step = null; delete copy.decisive_step_ref; delete copy.from_judgment; return copy; }});
    }
    (Array.isArray(value.plausible_steps) ? value.plausible_steps : []).forEach(function (entry, position) {
      if (!entry || typeof entry.step !== 'number') { return; }
      found.push({key: 'plausible_steps:' + entry.step, field: 'plausible_steps[' + position + '].step', index: entry.step,
        ref: entry.step_ref,
        set: function (index, ref) { entry.step = index; entry.step_ref = ref; },
        remove: function (copy) {
          copy.plausible_steps.splice(position, 1);
          if (!copy.plausible_steps.length) { delete copy.plausible_steps; }
          return copy;
        }});
    });
    return found;
  }

  /**
   * The value to store for the controls' state; null (store "") when nothing is chosen.
   * fromJudgment (the source of an accepted judgment) is written only when given; extra holds
   * {certainty, plausible} (each written only when set: a value without them stays as before).
   */
  function composeValue(agent, step, reason, fromJudgment, extra) {
    var certainty = extra && extra.certainty ? extra.certainty : null;
    var plausible = extra && extra.plausible ? extra.plausible : [];
    if (agent === null && step === null && reason === '' && certainty === null && !plausible.length) { return null; }
    var value = {responsible_agent: agent, decisive_step: step, reason: reason};
    if (certainty !== null) { value.certainty = certainty; }
    if (plausible.length) { value.plausible_steps = plausible.map(function (entry) { return copyEntry(entry); }); }
    if (typeof fromJudgment === 'string') { value.from_judgment = fromJudgment; }
    return value;
  }

  function copyEntry(entry) {
    var copy = {step: entry.step};
    if (typeof entry.step_ref === 'string') { copy.step_ref = entry.step_ref; }
    return copy;
  }

  /** The annotator's certainty flag, or null. */
  function certaintyOf(value) {
    return value && (value.certainty === 'confident' || value.certainty === 'uncertain') ? value.certainty : null;
  }

  /** The other plausible steps, most plausible first ([{step, step_ref?}]; [] when none). */
  function plausibleOf(value) {
    return value && Array.isArray(value.plausible_steps) ? value.plausible_steps.map(copyEntry) : [];
  }

  /** The plausible steps after adding index (at the end), or null when it is already named. */
  function addPlausible(plausible, index, decisive) {
    if (index === decisive || plausible.some(function (entry) { return entry.step === index; })) { return null; }
    return plausible.concat([{step: index}]);
  }

  /** The plausible steps with the one at position moved by delta (-1 up, +1 down), or removed (delta null). */
  function movePlausible(plausible, position, delta) {
    var next = plausible.slice();
    var entry = next.splice(position, 1)[0];
    if (delta !== null) { next.splice(Math.max(0, Math.min(next.length, position + delta)), 0, entry); }
    return next;
  }

  function fromJudgmentOf(value) {
    return value && typeof value.from_judgment === 'string' ? value.from_judgment : null;
  }

  var JUDGMENT_REASON_LENGTH = 120;

  /**
   * The judgments the record carries for this scheme (record[judgments_key][schemaName]), each
   * {source, agent, step, reason}; entries that are not a judgment of this shape are left out.
   * A value given as the JSON text Potato would store is read too.
   */
  function judgmentsFor(record, config, schemaName) {
    var objects = lib.judgmentsOf(record, config, schemaName, function (value) {
      return typeof value === 'object' && !Array.isArray(value);
    });
    return objects.map(function (judgment) {
      var value = judgment.value;
      var agent = typeof value.responsible_agent === 'string' ? value.responsible_agent : null;
      var step = typeof value.decisive_step === 'number' && value.decisive_step >= 0 &&
        Math.floor(value.decisive_step) === value.decisive_step ? value.decisive_step : null;
      return {source: judgment.source, agent: agent, step: step,
        reason: typeof value.reason === 'string' ? value.reason : ''};
    });
  }

  /** "gpt-4o judge: WebSurfer, #13 — 'reason…'" (the reason shortened; no agent/step said so). */
  function judgmentWords(judgment) {
    var parts = [judgment.agent === null ? 'no agent' : judgment.agent,
      judgment.step === null ? 'no step' : '#' + (judgment.step + 1)];
    var words = judgment.source + ': ' + parts.join(', ');
    var reason = lib.snippet(judgment.reason, JUDGMENT_REASON_LENGTH);
    return /\S/.test(reason) ? words + ' \u2014 \'' + reason + '\'' : words;
  }

  /**
   * Whether the judgments show for this value: 'always'; 'never'; 'after_answer' once the
   * annotator has chosen both the agent and the step (the answer judgments could anchor).
   */
  function judgmentsShown(mode, value) {
    return lib.judgmentsShown({show_judgments: mode}, chosenAgent(value) !== null && chosenStep(value) !== null);
  }

  function chosenAgent(value) { return value ? value.responsible_agent : null; }
  function chosenStep(value) { return value ? value.decisive_step : null; }

  /**
   * "#N · AGENT (qualifier) · first meaningful line" for one derived step: boilerplate headers
   * ("Updated Ledger:") are skipped to the line that says something; an instruction's addressee
   * shows as "-> B".
   */
  function stepLabel(step) {
    var text = lib.snippet(lib.firstMeaningfulLine(step.text), SNIPPET_LENGTH) || '(no text)';
    return '#' + (step.index + 1) + ' \u00B7 ' + lib.stepAgentWords(step) + ' \u00B7 ' + text;
  }

  /** What the step search looks in: "#N agent (qualifier) -> to first line", lower case. */
  function stepHaystack(step) {
    return ('#' + (step.index + 1) + ' ' + lib.stepAgentWords(step) + ' ' +
      lib.firstMeaningfulLine(step.text)).toLowerCase();
  }

  /**
   * The chosen step's text, folded when long: {head, folded} where head is what shows at once
   * (the first maxLines lines, at most maxChars characters) and folded says whether more follows.
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

  /** Which of the value's marks the trace does not contain; `changed`: the decisive step is in
   * the trace but is no longer the step it was saved on (its identity differs). */
  function staleMarks(value, derivation) {
    var agent = chosenAgent(value);
    var step = chosenStep(value);
    var past = step !== null && step >= derivation.steps.length;
    return {
      agent: agent !== null && derivation.agents.indexOf(agent) < 0,
      step: past,
      changed: step !== null && !past && lib.isStale(step, value.decisive_step_ref, derivation)
    };
  }

  /** The trace problems of a value as data ({code, ...parameters}), as Python's trace_problems
   * finds them (cases.json); lib.words says them. */
  function problems(value, derivation) {
    var stale = staleMarks(value, derivation);
    var found = [];
    if (stale.agent) { found.push(lib.notInTrace('responsible_agent', chosenAgent(value))); }
    var step = chosenStep(value);
    if (step !== null) {
      found = found.concat(lib.stepProblems('decisive_step', step, value.decisive_step_ref, derivation));
    } else if (value && typeof value.decisive_step_ref === 'string') {
      found.push(lib.problem('ref_without_step', {field: 'decisive_step_ref', step_field: 'decisive_step'}));
    }
    var seen = [step];
    plausibleOf(value).forEach(function (entry, position) {
      var where = 'plausible_steps[' + position + '].step';
      var stepProblems = lib.stepProblems(where, entry.step, entry.step_ref, derivation);
      if (stepProblems.length) {
        found = found.concat(stepProblems);
      } else if (seen.indexOf(entry.step) >= 0) {
        found.push(lib.problem('repeat', {field: where}));
      }
      seen.push(entry.step);
    });
    return found;
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
      var who = stale.step ? 'not in this trace' : stale.changed ? 'changed since it was saved'
        : (derivation.steps[step].agent || 'no agent');
      parts.push('Decisive step: #' + (step + 1) + ' (' + who + ').');
    }
    var plausible = plausibleOf(value);
    if (plausible.length) {
      parts.push('Also plausible: ' + plausible.map(function (entry) { return '#' + (entry.step + 1); }).join(', ') + '.');
    }
    var certainty = certaintyOf(value);
    if (certainty !== null) { parts.push(certainty === 'confident' ? 'Confident.' : 'Uncertain.'); }
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
    problems(value, derivation).forEach(function (found) { notices.push({level: 'warning', text: lib.words(found)}); });
    return notices;
  }

  /** What the runtime paints for a value (define's describe): stale marks stay in the controls; a
   * decisive step that changed since it was saved is listed with Remove and Re-point. */
  function describe(value, ctx) {
    return {
      summary: summaryText(value, ctx.derivation, ctx.unreadable),
      incomplete: incompleteReason(value, ctx.unreadable),
      notices: noticesFor(value, ctx.derivation, ctx.unreadable),
      stale: lib.staleReferenceEntries(references, value, ctx.derivation)
    };
  }

  /** What a judgment's value marks in the trace view: [[step, words]] (the trace view keeps whole steps only). */
  function judgedSteps(value) {
    return value && typeof value === 'object' ? [[value.decisive_step, 'decisive step']] : [];
  }

  return {
    judgedSteps: judgedSteps,
    NOT_IN_TRACE: NOT_IN_TRACE,
    CHANGED: CHANGED,
    references: references,
    composeValue: composeValue,
    certaintyOf: certaintyOf,
    plausibleOf: plausibleOf,
    addPlausible: addPlausible,
    movePlausible: movePlausible,
    fromJudgmentOf: fromJudgmentOf,
    judgmentsFor: judgmentsFor,
    judgmentWords: judgmentWords,
    judgmentsShown: judgmentsShown,
    chosenAgent: chosenAgent,
    chosenStep: chosenStep,
    stepAgentWords: lib.stepAgentWords,
    stepLabel: stepLabel,
    stepHaystack: stepHaystack,
    foldText: foldText,
    incompleteReason: incompleteReason,
    staleMarks: staleMarks,
    problems: problems,
    summaryText: summaryText,
    noticesFor: noticesFor,
    describe: describe
  };
});
