/*
 * trace_view_judgments.js: the trace view's judgment markers ("judge SOURCE: WHAT" on the steps a
 * record's judgments point at, docs/judgments.md), from the judgments of the page's multiagent
 * schemes (which judgments a record carries, and whether they show: judgments.js). Pure: the
 * schemes come from the runtime (PotatoMultiagent.pageSchemes, which reads the forms).
 * Page global PotatoMultiagentTraceJudgments; module.exports under node (tests).
 */
(function (root, factory) {
  'use strict';
  var isCommonJS = typeof module === 'object' && module !== null && module.exports;
  var judgments = isCommonJS ? require('./judgments.js') : root && root.PotatoMultiagentJudgments;
  if (!judgments) { throw new Error('trace_view_judgments.js: judgments.js did not load before it'); }
  var api = factory(judgments);
  if (isCommonJS) {
    module.exports = api;
  } else if (root && !root.PotatoMultiagentTraceJudgments) {
    root.PotatoMultiagentTraceJudgments = api;
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (judgmentsLib) {
  'use strict';

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

  return {judgedSteps: judgedSteps, judgmentMarks: judgmentMarks};
}));
