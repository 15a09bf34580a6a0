/*
 * view.js of `multiagent.mast`: the form's DOM, on the runtime (runtime.js). The trace view puts a
 * mode's chip on every step (trace.js) and sends its clicks here as step actions
 * ('mast-tag', 'mast-accept'); this form holds the one value and shows it in full: the step tags
 * (each with its note, severity and Remove; paged), a row to add a tag without the trace, the
 * whole-run marks (the template's checkboxes, one per mode with its definition), the run's modes,
 * "No failure mode in this run", and the record's judgments with an Accept per tag.
 * The rules and words are in marks.js; the runtime paints summary, completeness, notices and the
 * "not in this trace" list from marks.describe after every model.set.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';

var marks = runtime.marksOf('mast');
var PAGE_SIZE = 20;
var TYPING_DELAY_MS = 300;
var DEFINITIONS_KEY = 'potato-multiagent:mast-definitions';

function createView(args) {
  var ui = args.ui;
  var el = args.el;
  var view = {
    ui: ui, el: el,
    list: ui.hook('step-tags'), empty: ui.hook('steps-empty'),
    addStep: ui.hook('add-step'), addMode: ui.hook('add-mode'), addButton: ui.hook('add-tag'),
    runModesLine: ui.hook('run-modes'), noneFound: ui.hook('none-found'), judgmentsBox: ui.hook('judgments'),
    runRows: Object.create(null), pending: Object.create(null), tags: []
  };
  if (!view.list || !view.addStep || !view.addMode || !view.addButton || !view.noneFound) {
    throw new Error('the page lacks the controls of this question (data-ma step-tags, add-step, add-mode, ' +
      'add-tag, none-found)');
  }
  el.querySelectorAll('[data-ma="run-mode"]').forEach(function (row) {
    var code = row.getAttribute('data-mode');
    var entry = {row: row, check: row.querySelector('[data-ma="run-check"]'), located: row.querySelector('[data-ma="located"]'),
      details: row.querySelector('[data-ma="run-details"]')};
    entry.check.addEventListener('change', function () {
      var on = entry.check.checked;
      commit(view, function (value) { return marks.setRunMark(value, view.config, code, on); },
        marks.modeLabel(view.taxonomy, code) + (on ? ': marked for the whole run.' : ': whole-run mark taken off.'));
    });
    view.runRows[code] = entry;
  });
  view.definitionsToggle = ui.hook('definitions-toggle');
  if (view.definitionsToggle) {
    showDefinitions(view, readDefinitionsShown());
    view.definitionsToggle.addEventListener('click', function () {
      var shown = !view.definitionsShown;
      showDefinitions(view, shown);
      writeDefinitionsShown(shown);
    });
  }
  view.typing = ui.debounce(function () { commit(view, null, null, true); }, TYPING_DELAY_MS);
  view.pager = ui.pager(view.list, {size: PAGE_SIZE, noun: 'step tags', item: function (i) { return tagNode(view, view.tags[i]); }});
  view.addButton.addEventListener('click', function () { addTag(view); });
  view.addStep.addEventListener('keydown', function (event) {
    if (event.key === 'Enter') { event.preventDefault(); addTag(view); }
  });
  view.noneFound.addEventListener('change', function () {
    var on = view.noneFound.checked;
    commit(view, function (value) { return marks.setNoneFound(value, view.config, on); },
      on ? 'No failure mode in this run.' : 'No longer marked as having no failure mode.');
  });
  return view;
}

/** The whole-run list is one line per mode, in columns; each definition is the checkbox's
 * description (read by a screen reader and shown on hover) and in full under it on demand. */
function showDefinitions(view, shown) {
  view.definitionsShown = shown;
  view.el.querySelectorAll('[data-ma="definition"]').forEach(function (definition) { definition.hidden = !shown; });
  view.el.classList.toggle('ma-mast-definitions-shown', shown);
  view.definitionsToggle.textContent = shown ? 'Hide definitions' : 'Show definitions';
}

/** Shown or not stays so across items (Next reloads the page) for this tab. */
function readDefinitionsShown() {
  try { return window.sessionStorage.getItem(DEFINITIONS_KEY) === 'true'; } catch (error) { return false; }
}

function writeDefinitionsShown(shown) {
  try { window.sessionStorage.setItem(DEFINITIONS_KEY, shown ? 'true' : 'false'); } catch (error) { /* storage off: for this page */ }
}

// -- storing -----------------------------------------------------------------------------------

/** The stored value with the notes typed but not stored yet. */
function withPending(view, value) {
  Object.keys(view.pending).forEach(function (key) {
    var edit = view.pending[key];
    value = marks.setDetail(value, view.config, edit.where, 'note', edit.text);
  });
  view.pending = Object.create(null);
  return value;
}

/**
 * Store change(value) (with any pending typing first) once; `words` go to the status line.
 * `typingOnly`: a note's debounced store, which repaints nothing (the caret stays in its box).
 */
function commit(view, change, words, typingOnly) {
  if (!typingOnly) { view.typing.cancel(); }
  var current = view.model.get().value;
  if (view.locked) { return; }
  var value = withPending(view, current || blank(view));
  if (change) { value = change(value); }
  view.model.set(value);
  if (words) { view.ui.announce(words); }
  if (!typingOnly) { paint(view, value); }
}

function blank(view) { return {taxonomy: view.taxonomy.id, steps: [], run: []}; }

function addTag(view) {
  var number = Number(view.addStep.value);
  var steps = view.derivation.steps.length;
  if (!(number >= 1 && number <= steps && Math.floor(number) === number)) {
    view.ui.announce('Give a step number from 1 to ' + steps + '.');
    view.addStep.focus();
    return;
  }
  var code = view.addMode.value;
  var index = number - 1;
  if (marks.stepTag(view.model.get().value, index, code)) {
    view.ui.announce(marks.modeLabel(view.taxonomy, code) + ' is already tagged on #' + number + '.');
    return;
  }
  tagStep(view, index, code);
}

function tagStep(view, index, code) {
  var on = !marks.stepTag(view.model.get().value, index, code);
  var step = view.derivation.steps[index];
  commit(view, function (value) { return marks.toggleStepTag(value, view.config, index, code); },
    marks.modeLabel(view.taxonomy, code) + (on ? ' tagged on #' : ' taken off #') + (index + 1) +
    ' (' + (step.agent === null ? 'no agent' : step.agent) + ').');
}

// -- painting ----------------------------------------------------------------------------------

function paint(view, value) {
  var taxonomy = view.taxonomy;
  view.locked = !!value && marks.otherTaxonomy(value, taxonomy);
  var steps = view.derivation.steps.length;
  view.tags = view.locked ? [] : marks.stepTags(value).filter(function (tag) {
    return tag.step < steps && tag.mode in taxonomy.byCode;
  });
  var first = view.pager.bounds ? view.pager.bounds().first || 0 : 0;
  view.pager.show(view.tags.length, null, null, Math.min(first, Math.max(0, view.tags.length - 1)));
  if (view.empty) { view.empty.hidden = view.tags.length > 0; }
  var modes = view.locked ? [] : marks.runModes(value, taxonomy);
  Object.keys(view.runRows).forEach(function (code) { paintRunRow(view, value, code, modes); });
  paintRunModes(view, modes);
  view.noneFound.checked = !!(value && value.none_found === true && !marks.hasTags(value));
  view.noneFound.disabled = view.locked || marks.hasTags(value);
  [view.addStep, view.addMode, view.addButton].forEach(function (control) { control.disabled = view.locked; });
  view.addStep.max = String(steps);
  paintJudgments(view, value);
}

function paintRunRow(view, value, code, modes) {
  var entry = view.runRows[code];
  var found = modes.filter(function (mode) { return mode.code === code; })[0] || null;
  var mark = view.locked ? null : marks.runTag(value, code);
  entry.check.checked = !!mark;
  entry.check.disabled = view.locked;
  entry.located.textContent = found && found.steps.length ? 'tagged at ' + found.steps.map(function (step) {
    return '#' + (step + 1); }).join(', ') : '';
  view.ui.clear(entry.details);
  entry.details.hidden = !mark;
  if (mark) {
    detailControls(view, {mode: code}, mark, marks.modeLabel(view.taxonomy, code) + ' (whole run)', 'run-' + code)
      .forEach(function (node) { entry.details.appendChild(node); });
  }
}

function paintRunModes(view, modes) {
  if (!view.runModesLine) { return; }
  view.runModesLine.textContent = !modes.length ? 'This run\u2019s modes: none yet.' : 'This run\u2019s modes: ' +
    modes.map(function (entry) {
      var where = entry.steps.map(function (step) { return '#' + (step + 1); });
      if (entry.whole) { where.push('whole run'); }
      return marks.modeLabel(view.taxonomy, entry.code) + ' (' + where.join(', ') + ')';
    }).join('; ') + '.';
}

/** One step tag: #N and agent, the mode, severity, note, where it came from, Remove. */
function tagNode(view, tag) {
  var ui = view.ui;
  var h = ui.h;
  var step = view.derivation.steps[tag.step];
  var mode = view.taxonomy.byCode[tag.mode];
  var key = tag.step + '-' + tag.mode;
  var name = mode.label + ' on #' + (tag.step + 1);
  var head = h('p', {class: 'ma-mast-tag-head'}, [ui.stepLink(tag.step), ' ',
    h('span', {class: 'ma-mast-agent', text: step.agent === null ? '(no agent)' : step.agent}), ' \u00B7 ',
    h('strong', {class: 'ma-mast-mode-label', text: mode.label}),
    tag.from_judgment ? h('span', {class: 'ma-mast-from', text: ' (accepted from ' + tag.from_judgment + ')'}) : null]);
  var remove = h('button', {type: 'button', class: 'ma-button', 'data-ma': 'remove-tag', 'data-ma-focus': 'remove-' + key,
    'aria-label': 'Remove ' + name, text: 'Remove', on: {click: function () { removeTag(view, tag); }}});
  var controls = detailControls(view, {step: tag.step, mode: tag.mode}, tag, name, key);
  return h('li', {class: 'ma-mast-tag', 'data-ma': 'step-tag', 'data-step': tag.step, 'data-mode': tag.mode},
    [head, h('div', {class: 'ma-mast-details ma-buttons'}, controls.concat([remove]))]);
}

/** The severity select and note box of a tag (as configured), bound to `where`. */
function detailControls(view, where, tag, name, key) {
  var h = view.ui.h;
  var nodes = [];
  var severities = marks.severities(view.config);
  if (view.config.allow_severity !== false) {
    var select = h('select', {'data-ma': 'severity', 'data-ma-focus': 'severity-' + key, 'aria-label': 'Severity of ' + name},
      [h('option', {value: '', text: 'severity: none'})].concat(severities.map(function (level) {
        return h('option', {value: level, text: level});
      })));
    select.value = tag.severity || '';
    select.disabled = view.locked;
    select.addEventListener('change', function () {
      var level = select.value;
      commit(view, function (value) { return marks.setDetail(value, view.config, where, 'severity', level); },
        'Severity of ' + name + ': ' + (level || 'none') + '.');
    });
    nodes.push(select);
  }
  if (view.config.allow_note !== false) {
    var note = h('input', {type: 'text', class: 'ma-mast-note', 'data-ma': 'note', 'data-ma-focus': 'note-' + key,
      'aria-label': 'Note on ' + name, placeholder: 'Note (evidence)'});
    note.value = tag.note || '';
    note.disabled = view.locked;
    note.addEventListener('input', function () {
      view.pending[key] = {where: where, text: note.value};
      view.typing();
    });
    note.addEventListener('change', view.typing.flush);
    nodes.push(note);
  }
  return nodes;
}

function removeTag(view, tag) {
  var position = view.tags.indexOf(tag);
  commit(view, function (value) { return marks.toggleStepTag(value, view.config, tag.step, tag.mode); },
    'Removed ' + marks.modeLabel(view.taxonomy, tag.mode) + ' from #' + (tag.step + 1) + '.');
  var left = view.list.querySelectorAll('[data-ma="remove-tag"]');
  var next = left.length ? left[Math.min(Math.max(position, 0) % PAGE_SIZE, left.length - 1)] : view.addStep;
  next.focus();
}

// -- judgments -----------------------------------------------------------------------------------

function paintJudgments(view, value) {
  var box = view.judgmentsBox;
  var judged = view.judgments.filter(function (judgment) { return judgment.steps.length || judgment.run.length; });
  var shown = judged.length > 0 && !view.locked && marks.judgmentsShown(view.config, value);
  box.hidden = !shown;
  view.ui.clear(box);
  if (!shown) { return; }
  var h = view.ui.h;
  box.appendChild(h('p', {class: 'ma-mast-title', text: 'Judgments'}));
  judged.forEach(function (judgment) {
    var items = judgment.steps.concat(judgment.run).map(function (tag) { return judgmentItem(view, value, judgment, tag); });
    box.appendChild(h('div', {class: 'ma-judgment ma-mast-judgment', 'data-ma': 'judgment', 'data-source': judgment.source},
      [h('p', {class: 'ma-mast-judgment-source', text: judgment.source}), h('ul', {class: 'ma-mast-judgment-tags'}, items)]));
  });
}

function judgmentItem(view, value, judgment, tag) {
  var h = view.ui.h;
  var whole = tag.step === null;
  var mine = whole ? marks.runTag(value, tag.mode) : marks.stepTag(value, tag.step, tag.mode);
  var accepted = !!mine && mine.from_judgment === judgment.source;
  var name = marks.modeLabel(view.taxonomy, tag.mode) + (whole ? ' for the whole run' : ' on #' + (tag.step + 1));
  var words = marks.judgmentWords(view.taxonomy, judgment.source, tag).slice(judgment.source.length + 2);
  var agreed = marks.agreedByAll(view.judgments, tag) ? ' (all ' + view.judgments.length + ' sources)' : '';
  var key = 'accept-' + judgment.source + '-' + (whole ? 'run' : tag.step) + '-' + tag.mode;
  return h('li', {class: 'ma-mast-judgment-tag', 'data-ma': 'judgment-tag'}, [
    whole ? 'whole run: ' : view.ui.stepLink(tag.step), whole ? null : ' ',
    h('span', {text: words + agreed}), ' ',
    runtime.acceptButton({source: judgment.source, accepted: accepted, noun: 'tag', about: name, short: true,
      attrs: {class: 'ma-button', 'data-ma': 'accept-judgment', 'data-ma-focus': key,
        disabled: whole && view.config.whole_run === false ? true : null},
      onAccept: function () { accept(view, judgment.source, tag); }})]);
}

function accept(view, source, tag) {
  commit(view, function (value) { return marks.acceptJudgment(value, view.config, source, tag); },
    'Accepted ' + source + '\u2019s tag ' + marks.modeLabel(view.taxonomy, tag.mode) +
    (tag.step === null ? ' for the whole run.' : ' on #' + (tag.step + 1) + '.'));
}

// -- the render pass ---------------------------------------------------------------------------------

function render(args) {
  var ui = args.ui;
  var view = ui.state.view || (ui.state.view = createView(args));
  view.model = args.model;
  view.config = args.config;
  view.derivation = args.derivation;
  view.taxonomy = marks.taxonomyOf(args.config);
  view.judgments = marks.judgmentsFor(args.record, args.config, args.schemaName);
  view.pending = Object.create(null);
  paint(view, args.model.get().value);
  // The trace view's chips (trace.js): a mode on a step, and a judgment's tag taken.
  ui.onStepAction('mast-tag', function (detail, event) {
    if (typeof detail.index !== 'number' || detail.index < 0 || detail.index >= view.derivation.steps.length ||
        !(detail.mode in view.taxonomy.byCode)) { return; }
    event.preventDefault();
    if (view.locked) { ui.announce('These tags were saved under another taxonomy: remove them first.'); return; }
    tagStep(view, detail.index, detail.mode);
  });
  ui.onStepAction('mast-accept', function (detail, event) {
    var judgment = view.judgments.filter(function (j) { return j.source === detail.source; })[0];
    var tag = judgment && marks.judgedOnStep([judgment], detail.index).filter(function (found) {
      return found.tag.mode === detail.mode; })[0];
    if (!tag || view.locked) { return; }
    event.preventDefault();
    accept(view, detail.source, tag.tag);
  });
}

runtime.define('mast', {describe: marks.describe, render: render, entryKey: marks.entryKey,
  stepActions: ['mast-tag', 'mast-accept'], references: marks.references});
