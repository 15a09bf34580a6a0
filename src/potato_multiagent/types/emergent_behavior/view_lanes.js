/*
 * view_lanes.js of `multiagent.emergent_behavior`: the lane view of the turns (DOM only), used by
 * view.js. One lane per agent, a page of PAGE_SIZE turns at a time (the pages are the runtime's
 * ui.pager); "Show lanes" filter, "Jump to turn", arrow keys between turns (Up/Down change lane,
 * Page Up/Down change page), and the detail panel with the focused turn's text. Loaded after marks.js and before view.js (types/__init__.py).
 */
import * as runtime from 'potato-multiagent';
import './marks.js';

var marks = runtime.marksOf('emergent_behavior');
var h = runtime.h;
var PAGE_SIZE = marks.PAGE_SIZE;
var sortedPosition = marks.sortedPosition;
var includesTurn = marks.includesTurn;
var agentName = marks.agentName;
var inTrace = marks.inTrace;
var turnLabel = marks.turnLabel;
var buildLanes = marks.buildLanes;
var visibleSteps = marks.visibleSteps;
var nearestInLane = marks.nearestInLane;

function activeEpisode(ui) {
  return ui.draft.behaviors[ui.active.b].episodes[ui.active.e];
}

function wireToolbar(ui) {
  ui.filterEl.addEventListener('change', function (event) {
    var lane = Number(event.target.getAttribute('data-ma-lane'));
    if (event.target.checked) { ui.hidden.delete(lane); } else { ui.hidden.add(lane); }
    applyFilter(ui);
  });
  ui.filterEl.addEventListener('click', function (event) {
    if (event.target.closest('button[data-ma-action="all-lanes"]')) {
      ui.hidden.clear();
      applyFilter(ui);
    }
  });
  ui.jumpInput.addEventListener('keydown', function (event) {
    if (event.key === 'Enter') {
      event.preventDefault();
      jumpToTyped(ui);
    }
  });
  ui.jumpGo.addEventListener('click', function () { jumpToTyped(ui); });
}

/** The pager of the turns (after the jump box); a page turned by its buttons shows its first turn. */
function createPager(ui, rt) {
  return rt.pager(ui.lanesEl, {size: PAGE_SIZE, noun: 'turns', after: ui.jumpGo.parentNode,
    draw: function (first, end) { return drawLanes(ui, first, end); },
    turned: function (bounds) { showDetail(ui, ui.shown[bounds.first]); }});
}

function wireLanes(ui, onToggle) {
  ui.lanesEl.addEventListener('click', function (event) {
    var button = event.target.closest('button.ma-eb-turn');
    if (button) { onToggle(button); }
  });
  ui.lanesEl.addEventListener('keydown', function (event) {
    var button = event.target.closest('button.ma-eb-turn');
    if (button && moveByKey(ui, Number(button.getAttribute('data-ma-step')), event)) {
      event.preventDefault();
      event.stopPropagation();
    }
  });
  ui.lanesEl.addEventListener('focusin', function (event) {
    var button = event.target.closest('button.ma-eb-turn');
    if (button) {
      setRoving(ui, Number(button.getAttribute('data-ma-step')));
      showDetail(ui, Number(button.getAttribute('data-ma-step')));
    }
  });
}

// -- moving around the lanes ------------------------------------------------------------------

/** Arrow keys, Home/End and Page Up/Down on a turn; true when the key was ours. */
function moveByKey(ui, step, event) {
  var position = sortedPosition(ui.shown, step);
  var page = ui.pager.bounds();
  var target = null;
  switch (event.key) {
    case 'ArrowLeft': target = ui.shown[position - 1]; break;
    case 'ArrowRight': target = ui.shown[position + 1]; break;
    case 'ArrowUp': target = stepInNextLane(ui, step, -1); break;
    case 'ArrowDown': target = stepInNextLane(ui, step, 1); break;
    case 'Home': target = ui.shown[page.first]; break;
    case 'End': target = ui.shown[page.end - 1]; break;
    case 'PageUp': target = ui.shown[Math.max(position - PAGE_SIZE, 0)]; break;
    case 'PageDown': target = ui.shown[Math.min(position + PAGE_SIZE, ui.shown.length - 1)]; break;
    default: return false;
  }
  if (target !== undefined && target !== null) { goToTurn(ui, target, true); }
  return true;
}

/** The nearest turn in the next shown lane above (-1) or below (+1) that has turns. */
function stepInNextLane(ui, step, direction) {
  var lanes = ui.view.lanes;
  for (var lane = ui.view.laneOf[step] + direction; lane >= 0 && lane < lanes.length; lane += direction) {
    if (!ui.hidden.has(lane)) { return nearestInLane(lanes[lane], step); }
  }
  return null;
}

/** Show the page holding `step` (showing its lane again if hidden) and, when asked, focus its toggle. */
function goToTurn(ui, step, focus) {
  revealLane(ui, step);
  var button = ui.pager.open(sortedPosition(ui.shown, step));
  setRoving(ui, step);
  showDetail(ui, step);
  if (focus && button) { button.focus(); }
}

function jumpToTyped(ui) {
  var typed = ui.jumpInput.value.trim();
  var number = Number(typed);
  var count = ui.derivation.steps.length;
  if (!/^\d+$/.test(typed) || number < 1 || number > count) {
    ui.rt.announce(count ? 'Type a turn number from 1 to ' + count + '.' : 'This run has no turns.');
    return;
  }
  goToTurn(ui, number - 1, true);
}

function revealLane(ui, step) {
  var lane = ui.view.laneOf[step];
  if (!ui.hidden.has(lane)) { return; }
  ui.hidden.delete(lane);
  applyFilter(ui);
  ui.rt.announce('Turn #' + (step + 1) + ' is in the lane of ' + ui.view.lanes[lane].label +
    ', which is shown again.');
}

function applyFilter(ui) {
  var keep = ui.detailStep;
  ui.shown = visibleSteps(ui.view, ui.hidden);
  var position = keep !== null && !ui.hidden.has(ui.view.laneOf[keep]) ? sortedPosition(ui.shown, keep) : 0;
  paintFilter(ui);
  ui.pager.show(ui.shown.length, null, turnsNoun(ui), Math.min(position, ui.shown.length - 1));
  var lanes = ui.hidden.size ? 'Showing ' + (ui.view.lanes.length - ui.hidden.size) + ' of ' + ui.view.lanes.length +
    ' lanes.' : 'Showing every lane.';
  ui.rt.announce(ui.shown.length ? lanes + ' ' + ui.pager.where() + '.' : lanes);
}

function setRoving(ui, step) {
  var previous = ui.turnButtons.get(ui.rovingStep);
  if (previous) { previous.setAttribute('tabindex', '-1'); }
  ui.rovingStep = step;
  var current = ui.turnButtons.get(step);
  if (current) { current.setAttribute('tabindex', '0'); }
}

/** Focus the control with this data-ma-focus key (a rebuilt note box gets its caret at the end). */
function focusPart(ui, key) {
  var node = ui.form.querySelector('[data-ma-focus="' + key + '"]');
  if (!node) { return false; }
  node.focus();
  if (node.tagName === 'TEXTAREA') { node.setSelectionRange(node.value.length, node.value.length); }
  return true;
}

function focusKeyInside(container) {
  var active = document.activeElement;
  return active && container.contains(active) ? active.getAttribute('data-ma-focus') : null;
}

function paintFilter(ui) {
  var lanes = ui.view.lanes;
  var boxes = lanes.map(function (lane, position) {
    var id = ui.form.id + '-ma-eb-lane-' + position;
    var box = h('input', {type: 'checkbox', id: id, 'data-ma-lane': position, 'data-ma-focus': 'lane:' + position});
    box.checked = !ui.hidden.has(position);
    return h('span', {class: 'ma-eb-filter-item'}, [box,
      h('label', {for: id, text: lane.label + ' (' + lane.steps.length + ')'})]);
  });
  if (ui.hidden.size) {
    boxes.push(h('button', {type: 'button', class: 'ma-button', 'data-ma-action': 'all-lanes',
      'data-ma-focus': 'all-lanes', text: 'Show all lanes'}));
  }
  var focused = focusKeyInside(ui.filterEl);
  runtime.clear(ui.filterEl);
  boxes.forEach(function (node) { ui.filterEl.appendChild(node); });
  if (focused && !focusPart(ui, focused)) { focusPart(ui, 'lane:0'); }
}

/** "turns", or "turns shown" while a lane is hidden (the pager says "1–20 of 57 turns shown"). */
function turnsNoun(ui) { return ui.hidden.size ? 'turns shown' : 'turns'; }

/**
 * Draw the page again; on a new derivation (ui.startPosition set), the page of that position.
 * The render pass calls it once the draft is known.
 */
function paintLanes(ui) {
  if (ui.startPosition === null) { ui.pager.redraw(); return; }
  ui.pager.show(ui.shown.length, null, turnsNoun(ui), ui.startPosition);
  ui.startPosition = null;
}

/** Draw shown turns `first`..`end` (the pager's page): a label and a track per shown lane, a toggle per turn. */
function drawLanes(ui, first, end) {
  var lanesEl = runtime.clear(ui.lanesEl);
  ui.turnButtons = new Map();
  var page = ui.shown.slice(first, end);
  if (!page.length) {
    lanesEl.appendChild(h('p', {class: 'ma-eb-empty',
      text: ui.derivation.steps.length ? 'No lane is shown: tick a lane above.' : 'This trace has no turns.'}));
    return [];
  }
  lanesEl.style.setProperty('--ma-eb-columns', String(page.length));
  var rowOf = laneRows(ui, lanesEl);
  if (page.indexOf(ui.rovingStep) < 0) { ui.rovingStep = page[0]; }
  var buttons = page.map(function (step, column) {
    var button = turnButton(ui, ui.derivation.steps[step], rowOf[ui.view.laneOf[step]], column + 2);
    ui.turnButtons.set(step, button);
    lanesEl.appendChild(button);
    return button;
  });
  return buttons;
}

/** A label and a track for each shown lane; returns lane position -> grid row. */
function laneRows(ui, lanesEl) {
  var rowOf = {};
  var row = 1;
  ui.view.lanes.forEach(function (lane, position) {
    if (ui.hidden.has(position)) { return; }
    rowOf[position] = row;
    lanesEl.appendChild(h('div', {class: 'ma-eb-lane-label', style: 'grid-row: ' + row, text: lane.label}));
    lanesEl.appendChild(h('div', {class: 'ma-eb-lane-track', 'aria-hidden': 'true', style: 'grid-row: ' + row}));
    row += 1;
  });
  return rowOf;
}

function turnButton(ui, step, row, column) {
  // described by its text: "Turn 2 (Researcher)" alone leaves a screen reader guessing which turn it is
  var button = h('button', {type: 'button', class: 'ma-eb-turn', 'data-ma-step': step.index,
    'data-ma-focus': 'turn:' + step.index, 'aria-label': turnLabel(step),
    'aria-description': runtime.snippet(step.text || '', 120),
    tabindex: step.index === ui.rovingStep ? '0' : '-1',
    style: 'grid-row: ' + row + '; grid-column: ' + column}, [
    h('span', {class: 'ma-eb-turn-mark', 'aria-hidden': 'true'}),
    h('span', {class: 'ma-eb-turn-number', text: String(step.index + 1)})
  ]);
  paintTurn(ui, button, step.index);
  return button;
}

/** Pressed = in the active episode (check mark and solid outline); dashed = marked in another. */
function paintTurn(ui, button, step) {
  var pressed = includesTurn(activeEpisode(ui).turns, step);
  var elsewhere = (ui.membership.get(step) || []).some(function (where) {
    return where.b !== ui.active.b || where.e !== ui.active.e;
  });
  button.setAttribute('aria-pressed', pressed ? 'true' : 'false');
  button.firstChild.textContent = pressed ? '\u2713' : (elsewhere ? '\u2022' : '');
  button.classList.toggle('is-elsewhere', elsewhere);
  button.classList.toggle('is-shown', step === ui.detailStep);
}

function paintTurnStates(ui) {
  ui.turnButtons.forEach(function (button, step) { paintTurn(ui, button, step); });
}

/** The detail panel: the turn's number, agent, addressee, where it is marked, and its whole text. */
function showDetail(ui, step) {
  var previous = ui.turnButtons.get(ui.detailStep);
  if (previous) { previous.classList.remove('is-shown'); }
  ui.detailStep = step;
  var current = ui.turnButtons.get(step);
  if (current) { current.classList.add('is-shown'); }
  var info = ui.derivation.steps[step];
  if (!info) {
    ui.detailTitle.textContent = 'No turn to show';
    ui.detailMembership.textContent = '';
    ui.detailText.textContent = '';
    return;
  }
  var kind = info.kind === 'handoff' ? ' \u00B7 hands off to ' : ' \u00B7 to ';
  runtime.clear(ui.detailTitle);
  ['Turn ', ui.rt.stepLink(step), ' \u00B7 ' + agentName(info) +
    (info.to === null || info.to === undefined ? '' : kind + info.to)].forEach(function (node) {
    ui.detailTitle.appendChild(typeof node === 'string' ? document.createTextNode(node) : node);
  });
  ui.detailMembership.textContent = membershipText(ui, step);
  ui.detailText.textContent = info.text === '' ? '(no text)' : info.text;
}

function membershipText(ui, step) {
  var where = (ui.membership.get(step) || []).map(function (place) {
    return ui.draft.behaviors[place.b].name + ' episode ' + (place.e + 1);
  });
  return where.length ? 'Marked in: ' + where.join('; ') + '.' : 'Not marked in any episode.';
}

function useDerivation(ui, derivation) {
  ui.derivation = derivation;
  ui.view = buildLanes(derivation);
  ui.hidden = new Set();
  ui.shown = visibleSteps(ui.view, ui.hidden);
  ui.startPosition = 0;
  ui.rovingStep = null;
  ui.detailStep = null;
}

/** On a first render: the active episode's first marked turn (its page shown), else the first turn. */
function firstTurnToShow(ui) {
  var marked = activeEpisode(ui).turns.filter(function (turn) { return inTrace(turn, ui.derivation.steps.length); });
  if (!marked.length) { return ui.shown.length ? ui.shown[0] : null; }
  ui.startPosition = sortedPosition(ui.shown, marked[0]);
  ui.rovingStep = marked[0];
  return marked[0];
}

export {wireToolbar, createPager, wireLanes, moveByKey, stepInNextLane, goToTurn, jumpToTyped, revealLane, applyFilter, setRoving, focusPart, focusKeyInside, paintFilter, paintLanes, drawLanes, laneRows, turnButton, paintTurn, paintTurnStates, showDetail, membershipText, useDerivation, firstTurnToShow};
