/*
 * view_judgments.js of `multiagent.handoff_review`: each shown judgment's flags and quality beside
 * a handoff card's controls, labelled with its source, with its Accept (runtime.acceptButton) that
 * copies them into the card's entry with from_judgment (docs/judgments.md). DOM only; the rules
 * are in marks.js. Loaded after marks.js and before view.js (types/__init__.py), which calls
 * read() on every render and paint() whenever it paints a card.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';

var marks = runtime.marksOf('handoff_review');
var h = runtime.h;

/** The record's judgments by handoff, for this render; `afterEdit(view, refs, words)` stores an accept. */
function read(view, args, afterEdit) {
  view.judgments = marks.judgmentsByHandoff(args.record, args.config, args.schemaName, args.derivation);
  view.afterJudgmentEdit = afterEdit;
}

/** The card's judgment box, made once, just after its Quality group. */
function boxOf(refs) {
  if (!refs.judgmentBox) {
    refs.judgmentBox = h('div', {class: 'ma-judgments ma-hr-judgments', 'data-ma': 'judgments', role: 'group',
      'aria-label': 'Judgments', hidden: true});
    var quality = refs.body.querySelector('.ma-hr-quality');
    quality.parentNode.insertBefore(refs.judgmentBox, quality.nextSibling);
  }
  return refs.judgmentBox;
}

/**
 * Show (or hide, per show_judgments) the card's judgments; redrawn only when what they say changes,
 * their Accepts repainted in place (an accepted one keeps the focus).
 */
function paint(view, refs, entry) {
  var judged = view.judgments ? view.judgments.get(refs.key) || [] : [];
  if (!judged.length && !refs.judgmentBox) { return; }
  var box = boxOf(refs);
  var shown = judged.length > 0 && marks.judgmentsShown(view.config, entry);
  var accepted = entry && typeof entry.from_judgment === 'string' ? entry.from_judgment : null;
  var signature = shown ? JSON.stringify([judged, view.config.quality_scale]) : '';
  box.hidden = !shown;
  if (signature !== refs.judgmentSignature) {
    refs.judgmentSignature = signature;
    runtime.clear(box);
    (shown ? judged : []).forEach(function (judgment, k) { box.appendChild(judgmentLine(view, refs, judgment, k)); });
  }
  box.querySelectorAll('.ma-hr-judgment-accept').forEach(function (button, k) {
    runtime.paintAccept(button, acceptWords(refs, judged[k], accepted === judged[k].source));
  });
}

function acceptWords(refs, judgment, accepted) {
  return {source: judgment.source, accepted: accepted, about: 'for ' + marks.handoffName(refs.handoff)};
}

/** "llm-judge: quality 2 of 5, flagged: info loss [Accept llm-judge's answer]" (inert text). */
function judgmentLine(view, refs, judgment, k) {
  return h('p', {class: 'ma-judgment ma-hr-judgment', 'data-ma': 'judgment', 'data-source': judgment.source}, [
    h('span', {class: 'ma-hr-judgment-words', text: marks.judgmentText(judgment, view.config.quality_scale)}), ' ',
    runtime.acceptButton(Object.assign(acceptWords(refs, judgment, false), {
      attrs: {class: 'ma-button ma-hr-judgment-accept',
        'data-ma-focus': 'accept-judgment-' + refs.handoff.index + '-' + k},
      onAccept: function () { accept(view, refs, judgment); }}))]);
}

/** Store the judge's review (its Accept, repainted in place, now says "Accepted"). */
function accept(view, refs, judgment) {
  marks.acceptJudgment(view.book, refs.handoff, view.config, judgment);
  view.afterJudgmentEdit(view, refs, marks.handoffName(refs.handoff) + ': accepted ' + judgment.source +
    '\u2019s answer (' + marks.judgmentText(judgment, view.config.quality_scale) + ').');
}

export {read, paint};
