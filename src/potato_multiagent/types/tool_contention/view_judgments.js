/*
 * view_judgments.js of `multiagent.tool_contention`: each shown judgment's label beside a region's
 * "Label" group, labelled with its source, with its Accept (runtime.acceptButton) that gives the
 * region that label with from_judgment (docs/judgments.md). DOM only; the rules are in marks.js and
 * web/judgments.js. Loaded after marks.js and before view.js (types/__init__.py), which calls read()
 * on every render, box() when it builds a region's item and paint() whenever it paints one.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';

var marks = runtime.marksOf('tool_contention');
var h = runtime.h;

/** The record's judged labels by region, for this render; `setLabel(ui, [index], label, source)` accepts one. */
function read(ui, args, setLabel) {
  ui.judged = marks.judgmentsByRegion(args.record, args.config, args.schemaName, ui.data.regions);
  ui.acceptJudgment = setLabel;
}

/** A region's judgment box (empty and hidden until paint() fills it). */
function box(ui, item) {
  item.judgmentBox = h('div', {class: 'ma-judgments ma-tc-judgments', 'data-ma': 'judgments', role: 'group',
    'aria-label': 'Judgments', hidden: true});
  item.judgmentSignature = null;
  return item.judgmentBox;
}

/**
 * Show (or hide, per show_judgments) the region's judged labels; redrawn only when they change,
 * their Accepts repainted in place (an accepted one keeps the focus).
 */
function paint(ui, index, item, mark) {
  var judged = (ui.judged && ui.judged.get(index)) || [];
  var shown = judged.length > 0 && runtime.judgmentsShown(ui.config, mark !== null);
  var accepted = mark && typeof mark.fromJudgment === 'string' ? mark.fromJudgment : null;
  var signature = shown ? JSON.stringify(judged) : '';
  item.judgmentBox.hidden = !shown;
  if (signature !== item.judgmentSignature) {
    item.judgmentSignature = signature;
    runtime.clear(item.judgmentBox);
    (shown ? judged : []).forEach(function (judgment, k) {
      item.judgmentBox.appendChild(judgmentLine(ui, index, judgment, k));
    });
  }
  item.judgmentBox.querySelectorAll('.ma-tc-judgment-accept').forEach(function (button, k) {
    runtime.paintAccept(button, acceptWords(index, judged[k], accepted === judged[k].source));
  });
}

function acceptWords(index, judgment, accepted) {
  return {source: judgment.source, accepted: accepted, about: 'for region ' + (index + 1)};
}

/** "llm-judge: deadlock [Accept llm-judge's answer]" (inert text). */
function judgmentLine(ui, index, judgment, k) {
  return h('p', {class: 'ma-judgment ma-tc-judgment', 'data-ma': 'judgment', 'data-source': judgment.source}, [
    h('span', {class: 'ma-tc-judgment-words', text: judgment.source + ': ' + judgment.label}), ' ',
    runtime.acceptButton(Object.assign(acceptWords(index, judgment, false), {
      attrs: {class: 'ma-button ma-tc-judgment-accept', 'data-ma-focus': 'accept-judgment-' + index + '-' + k},
      onAccept: function () { ui.acceptJudgment(ui, [index], judgment.label, judgment.source); }}))]);
}

export {read, box, paint};
