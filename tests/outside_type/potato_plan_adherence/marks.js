/*
 * marks.js of `multiagent.plan_adherence`: the pure rules (no DOM), shared by view.js in the page
 * and by the node referee (tests/js/type_cases.test.js runs cases.json against problems()).
 *
 * The stored value is {"verdict": "kept"|"departed"|null, "departures": [{step, kind}]} (step the
 * 0-based step index, shown as #N = index + 1), or "" when nothing is chosen.
 */
import {marks} from 'potato-multiagent';

marks('plan_adherence', function (lib) {
  'use strict';

  function departuresOf(value) {
    return value && Array.isArray(value.departures) ? value.departures : [];
  }

  /** The value to store; null (store "") when nothing is said. */
  function composeValue(verdict, departures) {
    if (verdict === null && !departures.length) { return null; }
    return {verdict: verdict, departures: departures.map(function (d) { return {step: d.step, kind: d.kind}; })};
  }

  /** The trace problems, as Python's trace_problems finds them (data: a code and its parameters). */
  function problems(value, derivation, config) {
    var found = [];
    var first = {};
    departuresOf(value).forEach(function (departure, position) {
      var where = 'departures[' + position + ']';
      if (departure.step >= derivation.steps.length) { found.push(lib.notInTrace(where + '.step', departure.step)); }
      if ((config.kinds || []).indexOf(departure.kind) < 0) {
        found.push(lib.problem('not_configured', {field: where + '.kind', value: departure.kind, key: 'kinds'}));
      }
      if (Object.prototype.hasOwnProperty.call(first, departure.step)) {
        found.push(lib.problem('repeats_entry', {field: where, first: 'departures[' + first[departure.step] + ']'}));
      } else {
        first[departure.step] = position;
      }
    });
    return found;
  }

  function summaryText(value, unreadable) {
    if (unreadable) { return unreadable; }
    var count = departuresOf(value).length;
    var verdict = value && value.verdict === 'kept' ? 'Kept to the plan' :
      value && value.verdict === 'departed' ? 'Departed from the plan' : 'No verdict yet';
    return verdict + '; ' + (count === 1 ? '1 departure marked.' : count + ' departures marked.');
  }

  function incompleteReason(value, unreadable) {
    if (unreadable) { return 'The saved value could not be read; say whether the team kept to its plan'; }
    if (!value || value.verdict === null || value.verdict === undefined) { return 'Say whether the team kept to its plan'; }
    if (value.verdict === 'departed' && !departuresOf(value).length) { return 'Mark at least one step where it departed'; }
    return null;
  }

  function describe(value, ctx) {
    var notices = problems(value, ctx.derivation, ctx.config).map(function (found) {
      return {level: 'warning', text: lib.words(found)};
    });
    return {summary: summaryText(value, ctx.unreadable), incomplete: incompleteReason(value, ctx.unreadable),
      notices: notices, stale: []};
  }

  /** The steps one judgment's value points at (the trace view's markers). */
  function judgedSteps(value) {
    return departuresOf(value).map(function (departure) { return [departure.step, 'departed: ' + departure.kind]; });
  }

  return {composeValue: composeValue, departuresOf: departuresOf, problems: problems, describe: describe,
    judgedSteps: judgedSteps};
});
