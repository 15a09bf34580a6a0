/*
 * trace_view_rows.js: one row of the trace view, built from its view-model entry
 * (trace_view_model.js): the step card (#N, agent, time, judgment markers, text folded past
 * fold_chars, tool calls with arguments and result links, errors), the handoffs received, the
 * turn-level tag chips (Potato's turn_annotations DOM contract, folded but on the current step), the
 * parts types add (MAST's failure-mode chips, types/mast/trace.js, folded the same way) and the
 * actions some widget on the page takes; then placed for the layout (lanes: a column per agent, tree: indented by thread
 * depth, board: addressee chips). Page only; trace_view.js calls row(view, entry, position).
 * Trace data is hostile: DOM through the runtime's h only.
 */
import * as core from './widget.js';

var h = core.h;
/** The parts types add to the trace view (a type's trace.js, e.g. MAST's failure-mode chips), each
 * {load(view, record), slots(view, entry), repaint(view), clicked(view, target), isInput(target)
 * [, chips: {all, chosen}: selectors of its chips in a step's tag slot, folded with Potato's]};
 * read when used: the type scripts load after the view's. */
function traceParts() {
  var parts = core.traceParts || {};
  return Object.keys(parts).sort().map(function (name) { return parts[name]; });
}
/** The step actions some widget on the page takes (form[data-ma-step-actions]) that its type
 * offers as a button (define's stepActions), in page order. */
function offeredActions() {
  var offered = [];
  document.querySelectorAll('[data-ma-step-actions]').forEach(function (node) {
    String(node.getAttribute('data-ma-step-actions')).split(/\s+/).forEach(function (action) {
      if (core.stepButton(action) && offered.indexOf(action) < 0) { offered.push(action); }
    });
  });
  return offered;
}

/** The words of a step action's button. */
function actionLabel(action) { return core.stepButton(action).label; }

// ---------------------------------------------------------------------------------------------
// Turn-level slots (Potato's turn_annotations DOM contract; turn-annotations.js handles clicks)
// ---------------------------------------------------------------------------------------------

function bindingMatches(binding, entry) {
  if (!binding) { return true; }
  var agent = entry.agent === null ? '' : entry.agent;
  if (Array.isArray(binding.agents) && binding.agents.indexOf(agent) < 0) { return false; }
  if (Array.isArray(binding.speakers) && binding.speakers.indexOf(agent) < 0) { return false; }
  if (Array.isArray(binding.step_types) && binding.step_types.indexOf(entry.kind) < 0) { return false; }
  if (Array.isArray(binding.tools) && !entry.toolCalls.some(function (call) {
    return binding.tools.indexOf(call.tool) >= 0; })) { return false; }
  if (Array.isArray(binding.turn_range) && binding.turn_range.length === 2 &&
      (entry.index < binding.turn_range[0] || entry.index > binding.turn_range[1])) { return false; }
  return true;
}

function turnId(entry) { return 't' + entry.index; }

function storedTurn(schema, tid) {
  var api = globalThis.turnAnnotations;
  var state = api && typeof api._state === 'function' ? api._state() : null;
  if (state && state[schema]) { return state[schema].turns[tid] || null; }
  var input = document.querySelector('input.turn-anno-hidden[data-schema-name="' + CSS.escape(schema) + '"]');
  if (!input || !input.value) { return null; }
  try { var parsed = JSON.parse(input.value); return parsed && parsed.turns ? parsed.turns[tid] || null : null; } catch (e) {
    return null;
  }
}

function paintChip(chip, entry) {
  var value = chip.getAttribute('data-value');
  var on = !!entry && (Array.isArray(entry.values) ? entry.values.indexOf(value) >= 0 : String(entry.value) === value);
  chip.classList.toggle('ta-selected', on);
  chip.setAttribute('aria-pressed', on ? 'true' : 'false');
}

function turnSlot(view, entry) {
  var schemes = (view.config.turn_schemes || []).filter(function (scheme) { return bindingMatches(scheme.binding, entry); });
  if (!schemes.length) { return null; }
  var tid = turnId(entry);
  var slot = h('div', {class: 'turn-anno-slot ma-trace-tags', 'data-turn-id': tid, 'data-turn-index': entry.index,
    'data-field-key': view.config.field_key, 'data-speaker': entry.agent || '', 'data-step-type': entry.kind,
    'data-agent-id': entry.agent || '', 'data-schemes': String(schemes.length)});
  slot.appendChild(h('button', {type: 'button', class: 'ma-trace-tags-toggle', 'data-step': entry.index,
    'data-name': schemes.length === 1 ? schemes[0].label : 'Tags'}));
  schemes.forEach(function (scheme) {
    var stored = storedTurn(scheme.name, tid);
    var chips = scheme.labels.map(function (label) {
      var chip = h('button', {type: 'button', class: 'ta-chip', 'data-ta-schema': scheme.name, 'data-turn-id': tid,
        'data-value': label, 'data-multi': scheme.type === 'multiselect' ? 'true' : 'false', text: label});
      paintChip(chip, stored);
      return chip;
    });
    slot.appendChild(h('span', {class: 'turn-anno-widget', 'data-ta-schema': scheme.name, 'data-ta-type': scheme.type,
      role: 'group', 'aria-label': scheme.label + ', ' + entry.number}, [
      h('span', {class: 'ta-widget-label', text: scheme.label}),
      h('span', {class: 'ta-chips'}, chips)]));
  });
  paintFold(view, slot);
  return slot;
}

// Folding: the 14 MAST chips on every step were half the trace's height (docs/performance.md).
// A folded slot shows only its chosen chips (pressed) and one toggle; the current step's slot is
// unfolded, so "Show #N in the trace" and a click on the mode stay two actions. The chips stay
// Potato's turn-level inputs (hidden by CSS, never replaced); what the annotator unfolded or folded
// lives on the view, so a row that leaves the window and comes back keeps it.

/** Unfolded: as the annotator last set it on this step, else when it is the current step. */
function tagsOpen(view, index) {
  var chosen = view.tagFolds ? view.tagFolds[index] : undefined;
  return chosen === undefined ? view.current === index : chosen;
}

function paintFold(view, slot) {
  var open = tagsOpen(view, Number(slot.getAttribute('data-turn-index')));
  var toggle = slot.querySelector('.ma-trace-tags-toggle');
  var chosen = slot.querySelectorAll(chipSelectors().chosen).length;
  slot.setAttribute('data-folded', open ? 'false' : 'true');
  toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
  toggle.textContent = toggle.getAttribute('data-name') + ': ' + chosen + ' chosen';
  // the name says its step (five toggles on five steps must not sound the same); it keeps the
  // visible words first, so voice control by what is shown still finds it
  toggle.setAttribute('aria-label', toggle.textContent + ', on #' + (Number(slot.getAttribute('data-turn-index')) + 1));
  rovingChips(slot);
}

/** A slot's chips are one Tab stop (the first chosen one, else the first drawn); arrows move among them. */
function rovingChips(slot) {
  var chips = chipSelectors();
  core.oneTabStop(slot, chips.all, slot.querySelector(chips.chosen));
}

/** The chips of a step's tag slot: Potato's turn-level chips and those the parts declare. */
function chipSelectors() {
  var all = ['.ta-chip'], chosen = ['.ta-chip.ta-selected'];
  traceParts().forEach(function (part) {
    if (part.chips) { all.push(part.chips.all); chosen.push(part.chips.chosen); }
  });
  return {all: all.join(', '), chosen: chosen.join(', ')};
}

/** Repaint every drawn slot's fold (after the current step moved, or a chip was clicked). */
function paintFolds(view) {
  view.section.querySelectorAll('.ma-trace-tags').forEach(function (slot) { paintFold(view, slot); });
}

function toggleTags(view, index) {
  view.tagFolds = view.tagFolds || {};
  view.tagFolds[index] = !tagsOpen(view, index);
  paintFolds(view);
}

/** After Potato handled a chip click: its pressed state, the count, and focus kept visible (a chip
 * unpressed in a folded slot hides, so focus goes to the slot's toggle). */
function afterChipClick(view, chip) {
  chip.setAttribute('aria-pressed', chip.classList.contains('ta-selected') ? 'true' : 'false');
  var slot = chip.closest('.ma-trace-tags');
  if (!slot) { return; }
  var focused = document.activeElement === chip;   // before the repaint: a hidden chip loses focus on layout
  paintFold(view, slot);
  if (focused && !chip.getClientRects().length) {
    slot.querySelector('.ma-trace-tags-toggle').focus();
  }
}

// ---------------------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------------------

function foldedText(view, text, label) {
  var limit = view.config.fold_chars || 600;
  var block = h('div', {class: 'ma-trace-text'});
  if (text.length <= limit) {
    block.appendChild(h('p', {class: 'ma-trace-body', text: text}));
    return block;
  }
  var body = h('p', {class: 'ma-trace-body', text: text.slice(0, limit) + '\u2026'});
  var toggle = h('button', {type: 'button', class: 'ma-trace-fold', 'aria-expanded': 'false',
    text: 'Show all ' + text.length + ' characters of ' + label});
  toggle.addEventListener('click', function () {
    var open = toggle.getAttribute('aria-expanded') === 'true';
    body.textContent = open ? text.slice(0, limit) + '\u2026' : text;
    toggle.setAttribute('aria-expanded', open ? 'false' : 'true');
    toggle.textContent = open ? 'Show all ' + text.length + ' characters of ' + label : 'Fold ' + label;
  });
  block.appendChild(body);
  block.appendChild(toggle);
  return block;
}

/** "#N" in a row, a link to step `index`; named "Show #N" (a bare "#2" says nothing to a screen reader). */
function stepLinkButton(index) {
  return h('button', {type: 'button', class: 'ma-step-link', 'data-ma-step-link': index,
    'aria-label': 'Show #' + (index + 1), text: '#' + (index + 1)});
}

function toolCallBlock(view, call) {
  var parts = [h('p', {class: 'ma-trace-tool-name'}, ['Tool call: ', h('code', {text: call.tool})])];
  if (call.arguments) { parts.push(h('pre', {class: 'ma-trace-args', text: call.arguments})); }
  if (call.error) {
    parts.push(h('p', {class: 'ma-trace-error'}, [h('strong', {text: 'Error: '}), call.error]));
  }
  if (call.result !== null) {
    var resultHead = h('p', {class: 'ma-trace-result-head'}, ['Result in ',
      stepLinkButton(call.resultStep)]);
    parts.push(resultHead);
    parts.push(foldedText(view, call.result, 'the result'));
  }
  return h('div', {class: 'ma-trace-tool', 'data-call-index': call.index}, parts);
}

function actionButtons(view, entry) {
  var actions = view.actions.filter(function (action) { return core.stepButton(action).applies(entry); });
  if (!actions.length) { return null; }
  return h('div', {class: 'ma-trace-actions', role: 'group', 'aria-label': 'Actions on ' + entry.number},
    actions.map(function (action) {
      return h('button', {type: 'button', class: 'ma-trace-action', 'data-action': action,
        'data-step': entry.index, text: actionLabel(action)});
    }));
}

function handoffMarks(entry) {
  return entry.handoffs.map(function (handoff) {
    return h('p', {class: 'ma-trace-handoff ma-trace-handoff-' + handoff.kind, 'data-handoff-index': handoff.index},
      [h('span', {class: 'ma-trace-handoff-arrow', 'aria-hidden': 'true', text: '\u21C4 '}), handoff.text,
        ' (from ', stepLinkButton(handoff.fromStep), ')']);
  });
}

function stepCard(view, entry) {
  // a heading per step: a screen reader's heading keys go step to step ("#4 Writer")
  var head = h('div', {class: 'ma-trace-step-head', role: 'heading', 'aria-level': '4'}, [
    h('span', {class: 'ma-trace-num', text: entry.number}), ' ',
    h('span', {class: 'ma-trace-agent', text: entry.agentLabel}),
    entry.kind === 'tool_result' ? h('span', {class: 'ma-trace-kind', text: ' tool result'}) : null,
    entry.kind === 'handoff' ? h('span', {class: 'ma-trace-kind', text: ' handoff event'}) : null,
    entry.time !== null ? h('time', {class: 'ma-trace-time', text: entry.time}) : null]);
  (view.judged[entry.index] || []).forEach(function (words) {
    head.appendChild(h('span', {class: 'ma-trace-judgment', text: words}));
  });
  if (view.layout === 'board' && entry.to) {
    head.appendChild(h('span', {class: 'ma-trace-chips'}, [h('span', {class: 'ma-trace-chip', text: 'to ' + entry.to})]));
  }
  var card = h('article', {class: 'ma-trace-step', 'data-step': entry.index, tabindex: '-1',
    'aria-label': entry.number + ' ' + entry.agentLabel}, [head]);
  if (entry.error) { card.appendChild(h('p', {class: 'ma-trace-error'}, [h('strong', {text: 'Error: '}), entry.error])); }
  if (entry.text !== '') { card.appendChild(foldedText(view, entry.text, entry.number)); }
  entry.toolCalls.forEach(function (call) { card.appendChild(toolCallBlock(view, call)); });
  var slot = turnSlot(view, entry);
  if (slot) { card.appendChild(slot); }
  traceParts().forEach(function (part) {
    part.slots(view, entry).forEach(function (partSlot) { paintFold(view, partSlot); card.appendChild(partSlot); });
  });
  var actions = actionButtons(view, entry);
  if (actions) { card.appendChild(actions); }
  return card;
}

function row(view, entry, position) {
  var wrapper = h('li', {class: 'ma-trace-row', 'data-step': entry.index});
  handoffMarks(entry).forEach(function (mark) { wrapper.appendChild(mark); });
  var card = stepCard(view, entry);
  if (view.layout === 'lanes') {
    var lane = view.laneOf(entry.agent);
    wrapper.style.setProperty('--ma-lane', String(lane));
    wrapper.style.setProperty('--ma-row', String(position + 1));
    wrapper.setAttribute('data-lane', String(lane));
  } else if (view.layout === 'tree') {
    var depth = view.depth(entry.thread);
    wrapper.style.setProperty('--ma-depth', String(depth));
    if (entry.thread) { card.querySelector('.ma-trace-step-head').appendChild(
      h('span', {class: 'ma-trace-thread', text: ' thread ' + entry.thread})); }
  }
  wrapper.appendChild(card);
  return wrapper;
}

export {actionLabel, offeredActions, row, paintFolds, toggleTags, afterChipClick, traceParts};
