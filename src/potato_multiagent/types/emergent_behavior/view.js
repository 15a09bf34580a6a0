/*
 * view.js of `multiagent.emergent_behavior`: the DOM of the widget, on the runtime (runtime.js).
 *
 * For each configured behaviour the annotator marks episodes (sets of turns, with a note). The
 * turns are laid out in lanes, one per agent, a page of PAGE_SIZE turns at a time; turn toggles
 * edit the active episode (the one whose "Mark turns" toggle is pressed) and the focused turn's
 * text shows in a detail panel. The rules and words are in marks.js; the runtime paints summary,
 * completeness and notices from marks.describe after every model.set.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';
import * as lanes from './view_lanes.js';

var marks = runtime.marksOf('emergent_behavior');
var TYPING_DELAY_MS = 300;
var h = runtime.h;
var PAGE_SIZE = marks.PAGE_SIZE;
var NONE_LABEL = marks.NONE_LABEL;
var emptyEpisode = marks.emptyEpisode;
var hasContent = marks.hasContent;
var toDraft = marks.toDraft;
var composeValue = marks.composeValue;
var includesTurn = marks.includesTurn;
var toggleTurn = marks.toggleTurn;
var draftHasContent = marks.draftHasContent;
var agentName = marks.agentName;
var inTrace = marks.inTrace;
var turnLabel = marks.turnLabel;

// The words of the action that led to the next model.set, said before the summary (describe
// is per type and runs synchronously inside model.set, so one slot serves every form).
var pendingAction = null;

function describeWithAction(value, ctx) {
  var said = marks.describe(value, ctx);
  if (pendingAction) { said.summary = pendingAction + ' ' + said.summary; }
  pendingAction = null;
  return said;
}


function createUi(el, rt) {
  function part(name) {
    var node = el.querySelector('[data-ma="' + name + '"]');
    if (!node) { throw new Error('the page lacks part "' + name + '" of this question'); }
    return node;
  }
  var ui = {
    form: el.closest('form') || el, rt: rt, model: null, config: null,
    behaviorsEl: part('behaviors'), noneBox: part('none'), noneHint: part('none-hint'),
    filterEl: part('filter'), jumpInput: part('jump'), jumpGo: part('jump-go'),
    lanesEl: part('lanes'), detailTitle: part('detail-title'),
    detailMembership: part('detail-membership'), detailText: part('detail-text'),
    derivation: null, view: null, hidden: new Set(), shown: [], startPosition: null,
    draft: null, value: null, editing: null, judgments: [], lastRaw: null, unreadable: null, active: {b: 0, e: 0},
    membership: new Map(), turnButtons: new Map(), rovingStep: null, detailStep: null
  };
  ui.typing = rt.debounce(function () { commit(ui); }, TYPING_DELAY_MS);
  ui.noneHint.id = ui.form.id + '-ma-eb-none-hint';
  ui.noneBox.setAttribute('aria-describedby', ui.noneHint.id);
  wireBehaviors(ui);
  lanes.wireToolbar(ui);
  ui.pager = lanes.createPager(ui, rt);
  lanes.wireLanes(ui, function (button) { toggleFromButton(ui, button); });
  return ui;
}

function wireBehaviors(ui) {
  ui.behaviorsEl.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-ma-action]');
    if (button && ui.behaviorsEl.contains(button)) { runAction(ui, button); }
  });
  ui.behaviorsEl.addEventListener('input', function (event) {
    if (!event.target.matches('textarea[data-ma="note"]')) { return; }
    activeEpisode(ui).note = event.target.value;
    ui.editing = ui.draft.behaviors[ui.active.b];
    paintEpisodeText(ui, ui.active.b, ui.active.e);
    ui.typing();
  });
  ui.behaviorsEl.addEventListener('focusout', function (event) {
    if (event.target.matches('textarea[data-ma="note"]')) { ui.typing.flush(); }
  });
  ui.noneBox.addEventListener('change', function () {
    ui.draft.none = ui.noneBox.checked && !draftHasContent(ui.draft);
    commit(ui);
  });
}

// ---------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------

function activeEpisode(ui) {
  return ui.draft.behaviors[ui.active.b].episodes[ui.active.e];
}

function runAction(ui, button) {
  var action = button.getAttribute('data-ma-action');
  var b = Number(button.getAttribute('data-ma-behavior'));
  var e = Number(button.getAttribute('data-ma-episode'));
  var step = Number(button.getAttribute('data-ma-step'));
  if (action === 'activate') { activate(ui, b, e); }
  if (action === 'add') { addEpisode(ui, b); }
  if (action === 'remove') { removeEpisode(ui, b, e); }
  if (action === 'goto') { lanes.goToTurn(ui, step, true); }
  if (action === 'drop') { dropTurn(ui, step); }
}

function activate(ui, b, e) {
  ui.typing.flush();
  ui.active = {b: b, e: e};
  paintBehaviors(ui);
  lanes.paintTurnStates(ui);
  lanes.focusPart(ui, 'activate:' + b + ':' + e);
  ui.rt.announce('Now marking ' + activeName(ui) + '.');
}

function activeName(ui) {
  return ui.draft.behaviors[ui.active.b].name + ', episode ' + (ui.active.e + 1);
}

function addEpisode(ui, b) {
  ui.typing.flush();
  var episodes = ui.draft.behaviors[b].episodes;
  episodes.push(emptyEpisode());
  activate(ui, b, episodes.length - 1);
}

function removeEpisode(ui, b, e) {
  ui.typing.flush();
  var behavior = ui.draft.behaviors[b];
  behavior.episodes.splice(e, 1);
  ui.editing = behavior;
  if (!behavior.configured && !behavior.episodes.length) {
    ui.draft.behaviors.splice(b, 1);
  } else if (!behavior.episodes.length) {
    behavior.episodes.push(emptyEpisode());
  }
  keepActiveInRange(ui, b, e);
  commit(ui, 'Removed ' + behavior.name + ', episode ' + (e + 1) + '.');
  paintBehaviors(ui);
  lanes.paintTurnStates(ui);
  focusAfterRemoval(ui, b, e);
}

/** The removed episode's neighbour takes focus (its "Episode N", or its "Remove" when unknown). */
function focusAfterRemoval(ui, b, e) {
  var left = ui.draft.behaviors[b];
  var neighbour = left ? Math.min(e, left.episodes.length - 1) : -1;
  if (left && left.configured) {
    lanes.focusPart(ui, 'activate:' + b + ':' + neighbour);
  } else if (left) {
    lanes.focusPart(ui, 'remove:' + b + ':' + neighbour);
  } else {
    lanes.focusPart(ui, 'activate:' + ui.active.b + ':' + ui.active.e);
  }
}

/** After a removal, the active episode is the same one, or its neighbour in the same behaviour. */
function keepActiveInRange(ui, removedB, removedE) {
  var active = ui.active;
  if (active.b === removedB && active.e > removedE) { active.e -= 1; }
  var behavior = ui.draft.behaviors[active.b];
  if (!behavior || !behavior.configured) {
    ui.active = {b: 0, e: 0};
    return;
  }
  active.e = Math.min(active.e, behavior.episodes.length - 1);
}

function dropTurn(ui, step) {
  var episode = activeEpisode(ui);
  if (includesTurn(episode.turns, step)) { toggleTurn(episode, step); }
  ui.editing = ui.draft.behaviors[ui.active.b];
  commit(ui, 'Removed turn #' + (step + 1) + ' from ' + activeName(ui) + '.');
  paintBehaviors(ui);
  if (!lanes.focusPart(ui, 'note')) { lanes.focusPart(ui, 'activate:' + ui.active.b + ':' + ui.active.e); }
}

function toggleFromButton(ui, button) {
  var step = Number(button.getAttribute('data-ma-step'));
  var marked = toggleTurn(activeEpisode(ui), step);
  ui.editing = ui.draft.behaviors[ui.active.b];
  var words = 'Turn #' + (step + 1) + (marked ? ' marked in ' : ' unmarked in ') + activeName(ui) + '.';
  if (ui.draft.none) { words += ' ' + NONE_LABEL + ' is no longer ticked.'; }
  ui.draft.none = false;
  commit(ui, words);
  paintBehaviors(ui);
  lanes.paintTurn(ui, button, step);
  lanes.showDetail(ui, step);
}

/**
 * Store the draft and update what depends on the value: notices, completeness, the summary
 * (after `action`, a sentence saying what just changed), the "none observed" box. The callers
 * repaint the parts their action changed.
 */
function commit(ui, action) {
  ui.typing.cancel();
  if (ui.editing) { ui.editing.fromJudgment = null; }
  ui.editing = null;
  ui.unreadable = null;
  ui.value = composeValue(ui.draft);
  pendingAction = action || null;
  ui.model.set(ui.value);
  ui.lastRaw = ui.model.get().raw;
  rebuildMembership(ui);
  paintNone(ui);
}


// ---------------------------------------------------------------------------------------------
// Painting
// ---------------------------------------------------------------------------------------------

/** Which episodes hold each turn: step -> [{b, e}]. */
function rebuildMembership(ui) {
  var membership = new Map();
  ui.draft.behaviors.forEach(function (behavior, b) {
    behavior.episodes.forEach(function (episode, e) {
      episode.turns.forEach(function (turn) {
        if (!membership.has(turn)) { membership.set(turn, []); }
        membership.get(turn).push({b: b, e: e});
      });
    });
  });
  ui.membership = membership;
}

function paintBehaviors(ui) {
  var fragment = document.createDocumentFragment();
  ui.draft.behaviors.forEach(function (behavior, b) { fragment.appendChild(behaviorGroup(ui, behavior, b)); });
  var focused = lanes.focusKeyInside(ui.behaviorsEl);
  runtime.clear(ui.behaviorsEl).appendChild(fragment);
  if (focused) { lanes.focusPart(ui, focused); }
  ui.lanesEl.setAttribute('aria-label', 'Turns by agent, marking ' + ui.draft.behaviors[ui.active.b].name +
    ', episode ' + (ui.active.e + 1));
}

function behaviorGroup(ui, behavior, b) {
  var steps = ui.derivation.steps;
  var heading = behavior.configured ? behavior.name : behavior.name + ' (not one of the configured behaviors)';
  var episodes = behavior.episodes.map(function (episode, e) {
    var active = behavior.configured && ui.active.b === b && ui.active.e === e;
    return episodeItem(ui, behavior, b, e, active, steps);
  });
  return h('div', {role: 'group', 'aria-label': behavior.name,
    class: 'ma-eb-behavior' + (behavior.configured ? '' : ' ma-eb-behavior-unknown')}, [
    h('div', {class: 'ma-eb-behavior-head'}, [
      h('p', {class: 'ma-eb-behavior-name', text: heading}),
      behavior.configured ? h('button', {type: 'button', class: 'ma-button ma-eb-add', 'data-ma-action': 'add',
        'data-ma-behavior': b, 'data-ma-focus': 'add:' + b, 'aria-label': 'Add another ' + behavior.name + ' episode',
        text: '+ Add episode'}) : null
    ]),
    behavior.configured ? judgmentLines(ui, behavior, b) : null,
    h('ol', {class: 'ma-eb-episodes'}, episodes)
  ]);
}

/**
 * The record's judgments of this behaviour (inert text), each with its Accept (runtime.acceptButton)
 * when the judge marked it; shown per config.show_judgments (marks.judgmentsShown).
 */
function judgmentLines(ui, behavior, b) {
  var judgments = ui.judgments || [];
  var steps = ui.derivation.steps;
  if (!judgments.length || !marks.judgmentsShown(ui.config.show_judgments, ui.value, behavior.name, steps.length,
    ui.config.behaviors)) { return null; }
  return h('div', {class: 'ma-eb-judgments', 'data-ma': 'judgments', role: 'group',
    'aria-label': 'Judgments of ' + behavior.name}, judgments.map(function (judgment, j) {
    var episodes = marks.judgedEpisodes(judgment, behavior.name);
    var accepted = behavior.fromJudgment === judgment.source;
    var accept = episodes && episodes.length ? runtime.acceptButton({source: judgment.source, accepted: accepted,
      about: 'for ' + behavior.name, attrs: {class: 'ma-button ma-eb-accept', 'data-ma-focus': acceptKey(b, j)},
      onAccept: function () { acceptJudgment(ui, b, j); }}) : null;
    return h('p', {class: 'ma-eb-judgment', 'data-source': judgment.source}, [
      h('span', {class: 'ma-eb-judgment-words', text: marks.judgmentWords(judgment, behavior.name, steps)}),
      accept ? ' ' : null, accept]);
  }));
}

function acceptKey(b, j) { return 'accept:' + b + ':' + j; }

/** Copy a judge's episodes of behaviour b into the draft, recording its source (from_judgment);
 * the focus stays on the (redrawn) button, now "Accepted". */
function acceptJudgment(ui, b, j) {
  ui.typing.flush();
  var behavior = ui.draft.behaviors[b];
  var judgment = ui.judgments[j];
  behavior.episodes = marks.judgedEpisodes(judgment, behavior.name);
  behavior.fromJudgment = judgment.source;
  ui.draft.none = false;
  ui.active = {b: b, e: 0};
  commit(ui, 'Accepted ' + judgment.source + '\u2019s answer for ' + behavior.name + '.');
  paintBehaviors(ui);
  lanes.paintTurnStates(ui);
  lanes.focusPart(ui, acceptKey(b, j));
}

function episodeItem(ui, behavior, b, e, active, steps) {
  var episode = behavior.episodes[e];
  var name = behavior.name + ', episode ' + (e + 1);
  var pick = behavior.configured
    ? h('button', {type: 'button', class: 'ma-button ma-eb-pick', 'aria-pressed': active ? 'true' : 'false',
      'data-ma-action': 'activate', 'data-ma-behavior': b, 'data-ma-episode': e,
      'data-ma-focus': 'activate:' + b + ':' + e, 'aria-label': 'Mark turns of ' + name},
    [h('span', {class: 'ma-eb-pick-mark', 'aria-hidden': 'true', text: active ? '\u25B6' : ''}),
      'Episode ' + (e + 1)])
    : h('span', {class: 'ma-eb-pick-static', text: 'Episode ' + (e + 1)});
  var removable = hasContent(episode) || behavior.episodes.length > 1 || !behavior.configured;
  return h('li', {class: 'ma-eb-episode' + (active ? ' is-active' : '')}, [
    h('div', {class: 'ma-eb-episode-line'}, [
      pick,
      active ? h('span', {class: 'ma-eb-editing', text: 'marking now'}) : null,
      h('span', {class: 'ma-eb-episode-text', 'data-ma-episode-text': b + ':' + e}, episodeNodes(ui, episode)),
      removable ? h('button', {type: 'button', class: 'ma-button ma-eb-remove', 'data-ma-action': 'remove',
        'data-ma-behavior': b, 'data-ma-episode': e, 'data-ma-focus': 'remove:' + b + ':' + e,
        'aria-label': 'Remove ' + name, text: 'Remove'}) : null
    ]),
    !active && episode.note !== '' && !ui.config.allow_note
      ? h('p', {class: 'ma-eb-note-static', text: 'Note: ' + episode.note}) : null,
    active ? activeEpisodeDetails(ui, episode, name, steps) : null
  ]);
}

/** The active episode's marked turns (each a way back to it) and its note. */
function activeEpisodeDetails(ui, episode, name, steps) {
  var turns = episode.turns.map(function (turn) {
    if (!inTrace(turn, steps.length)) {
      return h('li', {class: 'ma-eb-marked-stale'}, [
        h('span', {text: '#' + (turn + 1) + ' (not in this trace) '}),
        h('button', {type: 'button', class: 'ma-button', 'data-ma-action': 'drop', 'data-ma-step': turn,
          'data-ma-focus': 'drop:' + turn, text: 'Remove #' + (turn + 1)})
      ]);
    }
    return h('li', null, h('button', {type: 'button', class: 'ma-button ma-eb-goto', 'data-ma-action': 'goto',
      'data-ma-step': turn, 'data-ma-focus': 'goto:' + turn, 'aria-label': 'Go to ' + turnLabel(steps[turn]),
      text: '#' + (turn + 1) + ' ' + agentName(steps[turn])}));
  });
  var noteId = ui.form.id + '-ma-eb-note';
  return h('div', {class: 'ma-eb-active-details'}, [
    h('p', {class: 'ma-eb-marked-title', text: episode.turns.length
      ? 'Marked turns of ' + name + ':' : 'No turns marked in ' + name + ' yet: mark them in the lanes below.'}),
    turns.length ? h('ul', {class: 'ma-eb-marked'}, turns) : null,
    ui.config.allow_note ? h('div', {class: 'ma-field ma-eb-note'}, [
      h('label', {for: noteId, text: 'Note on ' + name}),
      noteBox(episode, noteId)
    ]) : (episode.note !== '' ? h('p', {class: 'ma-eb-note-static', text: 'Note: ' + episode.note}) : null)
  ]);
}

function noteBox(episode, id) {
  var box = h('textarea', {id: id, rows: '2', 'data-ma': 'note', 'data-ma-focus': 'note', maxlength: runtime.textLimit});
  box.value = episode.note;
  return box;
}

/** An episode in words, each "#N" of a turn the trace has a link to that step (ui.stepLink). */
function episodeNodes(ui, episode) {
  var steps = ui.derivation.steps;
  return marks.episodePieces(episode, steps).map(function (piece) {
    if (typeof piece !== 'number') { return piece; }
    return inTrace(piece, steps.length) ? ui.rt.stepLink(piece) : '#' + (piece + 1);
  });
}

function paintEpisodeText(ui, b, e) {
  var line = ui.behaviorsEl.querySelector('[data-ma-episode-text="' + b + ':' + e + '"]');
  if (!line) { return; }
  runtime.clear(line);
  episodeNodes(ui, ui.draft.behaviors[b].episodes[e]).forEach(function (node) {
    line.appendChild(typeof node === 'string' ? document.createTextNode(node) : node);
  });
}

function paintNone(ui) {
  var blocked = draftHasContent(ui.draft);
  ui.noneBox.checked = ui.draft.none;
  ui.noneBox.disabled = blocked;
  ui.noneHint.textContent = blocked ? 'Not available while episodes are marked: remove them first.' : '';
}

// ---------------------------------------------------------------------------------------------
// Render (called by the runtime on load and on every potato:instance-ready)
// ---------------------------------------------------------------------------------------------

/** One render pass (load, instance-ready, a merge from another tab): the runtime flushed the note. */
function render(args) {
  var ui = args.ui.state.view || (args.ui.state.view = createUi(args.el, args.ui));
  ui.rt = args.ui;
  ui.model = args.model;
  ui.config = args.config;
  ui.judgments = marks.judgmentsFor(args.record, args.config, args.schemaName, function (value) {
    return runtime.checkValue(value, args.config).length === 0;
  });
  if (ui.derivation !== args.derivation) { lanes.useDerivation(ui, args.derivation); }
  var got = args.model.get();
  if (ui.draft === null || got.raw !== ui.lastRaw) {
    ui.draft = toDraft(got.value, args.config.behaviors);
    ui.value = got.value;
    ui.lastRaw = got.raw;
    keepActiveInRange(ui, -1, -1);
  }
  rebuildMembership(ui);
  if (ui.detailStep === null) { ui.detailStep = lanes.firstTurnToShow(ui); }
  paintBehaviors(ui);
  paintNone(ui);
  lanes.paintFilter(ui);
  lanes.paintLanes(ui);
  lanes.showDetail(ui, ui.detailStep);
  ui.rt.onStepAction('add-to-behaviour', function (detail, event) { addFromTrace(ui, detail, event); });
}

/**
 * The trace view's "Add to behaviour" (action 'add-to-behaviour', detail.index a step): that turn
 * joins the episode being marked (the one whose "Mark turns" toggle is pressed). With no such
 * episode, or a step the trace lacks, nothing happens and the event passes uncancelled.
 */
function addFromTrace(ui, detail, event) {
  var step = detail.index;
  if (typeof step !== 'number' || step < 0 || step >= ui.derivation.steps.length) { return; }
  if (!ui.behaviorsEl.querySelector('[data-ma-action="activate"][aria-pressed="true"]')) { return; }
  var episode = activeEpisode(ui);
  var words = 'Turn #' + (step + 1) + (includesTurn(episode.turns, step) ? ' was already in ' : ' added to ') +
    activeName(ui) + '.';
  if (!includesTurn(episode.turns, step)) { toggleTurn(episode, step); ui.editing = ui.draft.behaviors[ui.active.b]; }
  if (ui.draft.none) { words += ' ' + NONE_LABEL + ' is no longer ticked.'; }
  ui.draft.none = false;
  commit(ui, words);
  paintBehaviors(ui);
  lanes.goToTurn(ui, step, false);
  lanes.paintTurnStates(ui);
  event.preventDefault();
}


runtime.define('emergent_behavior', {describe: describeWithAction, render: render,
  stepActions: [{action: 'add-to-behaviour', label: 'Add to behaviour'}], references: marks.references});
