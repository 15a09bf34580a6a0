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

/** Show (or hide, per show_judgments) the card's judgments; redrawn only when what they say changes. */
function paint(view, refs, entry) {
  var judged = view.judgments ? view.judgments.get(refs.key) || [] : [];
  if (!judged.length && !refs.judgmentBox) { return; }
  var box = boxOf(refs);
  var shown = judged.length > 0 && marks.judgmentsShown(view.config, entry);
  var accepted = entry && typeof entry.from_judgment === 'string' ? entry.from_judgment : null;
  var signature = shown ? JSON.stringify([judged, accepted, view.config.quality_scale]) : '';
  box.hidden = !shown;
  if (signature === refs.judgmentSignature) { return; }
  refs.judgmentSignature = signature;
  runtime.clear(box);
  if (!shown) { return; }
  judged.forEach(function (judgment, k) {
    box.appendChild(judgmentLine(view, refs, judgment, k, accepted === judgment.source));
  });
}

/** "llm-judge: quality 2 of 5, flagged: info loss [Accept llm-judge's answer]" (inert text). */
function judgmentLine(view, refs, judgment, k, accepted) {
  var name = marks.handoffName(refs.handoff);
  return h('p', {class: 'ma-judgment ma-hr-judgment', 'data-ma': 'judgment', 'data-source': judgment.source}, [
    h('span', {class: 'ma-hr-judgment-words', text: marks.judgmentText(judgment, view.config.quality_scale)}), ' ',
    runtime.acceptButton({source: judgment.source, accepted: accepted, about: 'for ' + name,
      attrs: {class: 'ma-button ma-hr-judgment-accept', 'data-ma-focus': focusKey(refs.handoff.index, k)},
      onAccept: function () { accept(view, refs, judgment, k); }})]);
}

function focusKey(index, k) { return 'accept-judgment-' + index + '-' + k; }

/** Store the judge's review; focus stays on the (redrawn) button, now "Accepted". */
function accept(view, refs, judgment, k) {
  marks.acceptJudgment(view.book, refs.handoff, view.config, judgment);
  view.afterJudgmentEdit(view, refs, marks.handoffName(refs.handoff) + ': accepted ' + judgment.source +
    '\u2019s answer (' + marks.judgmentText(judgment, view.config.quality_scale) + ').');
  var button = refs.judgmentBox.querySelector('[data-ma-focus="' + focusKey(refs.handoff.index, k) + '"]');
  if (button) { button.focus(); }
}

export {read, paint};
