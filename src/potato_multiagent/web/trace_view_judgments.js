/*
 * trace_view_judgments.js: the trace view's judgment markers ("judge SOURCE: WHAT" on the steps a
 * record's judgments point at, docs/judgments.md), from the judgments of the page's multiagent
 * schemes (which judgments a record carries, and whether they show: judgments.js). Pure: the
 * schemes come from the runtime (pageSchemes, which reads the forms).
 */
import {judgmentsOf, showMode} from './widget.js';

/** What one judgment's value points at: [[stepIndex, words], ...], as the type's marks.js says
 * (its judgedSteps; a type without one marks nothing); whole step indices only (hostile input). */
function judgedSteps(rules, value) {
  if (!rules || typeof rules.judgedSteps !== 'function') { return []; }
  return rules.judgedSteps(value).filter(function (pair) {
    var step = pair[0];
    return typeof step === 'number' && step >= 0 && Math.floor(step) === step;
  });
}

/**
 * The judgment markers per step: {stepIndex: ["judge SOURCE: WHAT", ...]}, from the record's
 * judgments of the page's schemes ([{name, widget, config}]); rulesOf(widget) is the type's marks.js
 * (the runtime's registeredMarks). The trace view knows no answer, so only schemes whose
 * show_judgments is 'always' (the default) are marked.
 */
function judgmentMarks(record, schemes, rulesOf) {
  var marks = {};
  (schemes || []).forEach(function (scheme) {
    var config = scheme.config || {};
    if (showMode(config) !== 'always') { return; }
    judgmentsOf(record, config, scheme.name).forEach(function (judgment) {
      judgedSteps(rulesOf(scheme.widget), judgment.value).forEach(function (pair) {
        var words = 'judge ' + judgment.source + ': ' + pair[1];
        var at = marks[pair[0]] || (marks[pair[0]] = []);
        if (at.indexOf(words) < 0) { at.push(words); }
      });
    });
  });
  return marks;
}

export {judgedSteps, judgmentMarks};
