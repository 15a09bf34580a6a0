/*
 * trace.js of `multiagent.mast`: its part of the trace view, the failure modes of the page's mast schemes
 * (docs/trace-view.md, "Failure modes"): a chip per mode on each step, its name and definition on
 * hover and on keyboard focus (a tooltip, and the definition as the chip's accessible description),
 * the judgments' tags on the step with an Accept, and a legend of every mode, grouped by category
 * and searchable, that stays open beside the trace.
 *
 * The value lives in the scheme's form (types/mast/view.js); the view never writes it. A chip asks
 * the form through the step-action contract ('mast-tag' {index, mode}, 'mast-accept' {index, mode,
 * source}, aimed at the scheme), and the view repaints its chips from the form's hidden input
 * whenever it changes (a chip, the form's own controls, another tab's merge). The rules (which
 * modes a step has, the words) are the type's marks.js.
 * Page only; loaded with the trace view (bundling: a type's trace.js comes when the page shows a trace
 * view), it registers on the runtime's traceParts (as mast), and the view asks every part it finds
 * (web/trace_view_rows.js traceParts). Trace and config text are hostile: DOM through h only.
 */
import * as core from 'potato-multiagent';

var h = core.h;
var WIDGET = 'mast';
var LEGEND_KEY = 'multiagent:trace-legend-open';
var TIP_HIDE_DELAY_MS = 200;
var counter = 0;

function marks() { return core.marksOf(WIDGET); }

/** The stored value of a scheme's form, checked as the form reads it (null when none or unreadable). */
function storedValue(scheme) {
  var hidden = scheme.form.querySelector('input.multiagent-input');
  var raw = hidden ? hidden.value : '';
  var parsed = core.parseStored(raw);
  return core.readChecked({raw: raw, value: parsed.value, error: parsed.error}, scheme.config).value;
}

/**
 * The page's mast schemes for this view, read on load: [{name, label, config, form, taxonomy,
 * judgments, value, defIds}] (defIds: code -> the id of its definition, the chips' description).
 */
function load(view, record) {
  var rules;
  try { rules = marks(); } catch (error) { view.modeSchemes = []; return; }
  view.modeUid = view.modeUid || 'ma-modes-' + (++counter);
  view.modeSchemes = core.pageSchemes().filter(function (scheme) { return scheme.widget === WIDGET; })
    .map(function (scheme, position) {
      var legend = scheme.form.querySelector('legend');
      var taxonomy = rules.taxonomyOf(scheme.config);
      var defIds = Object.create(null);
      taxonomy.modes.forEach(function (mode, i) { defIds[mode.code] = view.modeUid + '-' + position + '-' + i; });
      return {name: scheme.name, label: legend ? legend.textContent.trim() : scheme.name, config: scheme.config,
        form: scheme.form, taxonomy: taxonomy, judgments: rules.judgmentsFor(record, scheme.config, scheme.name),
        value: null, defIds: defIds};
    });
  refreshValues(view);
  definitions(view);
  legend(view);
}

function refreshValues(view) {
  (view.modeSchemes || []).forEach(function (scheme) { scheme.value = storedValue(scheme); });
}

// -- definitions: the chips' accessible description, and the visible tooltip ------------------

/** One hidden list of every mode's definition per view: each chip's aria-describedby points here. */
function definitions(view) {
  var box = view.section.querySelector('.ma-mode-defs');
  if (box) { box.parentNode.removeChild(box); }
  if (!view.modeSchemes.length) { return; }
  box = h('div', {class: 'ma-mode-defs', hidden: true});
  view.modeSchemes.forEach(function (scheme) {
    scheme.taxonomy.modes.forEach(function (mode) {
      box.appendChild(h('span', {id: scheme.defIds[mode.code], text: mode.definition}));
    });
  });
  view.section.appendChild(box);
}

function tipOf(view) {
  if (view.modeTip && view.modeTip.isConnected) { return view.modeTip; }
  var tip = h('div', {class: 'ma-mode-tip', role: 'tooltip', id: view.modeUid + '-tip', hidden: true});
  tip.addEventListener('pointerenter', function () { clearTimeout(view.modeTipTimer); });
  tip.addEventListener('pointerleave', function () { hideTip(view, false); });
  view.section.appendChild(tip);
  view.modeTip = tip;
  return tip;
}

/** Show the mode's name, definition and example beside the chip (hover and keyboard focus). */
function showTip(view, chip) {
  var scheme = schemeNamed(view, chip.getAttribute('data-scheme'));
  var mode = scheme && scheme.taxonomy.byCode[chip.getAttribute('data-mode')];
  if (!mode) { return; }
  clearTimeout(view.modeTipTimer);
  var tip = tipOf(view);
  core.clear(tip);
  tip.appendChild(h('strong', {text: mode.label}));
  tip.appendChild(h('span', {class: 'ma-mode-tip-category', text: ' \u00B7 ' + mode.category}));
  tip.appendChild(h('p', {text: mode.definition}));
  if (mode.example) { tip.appendChild(h('p', {class: 'ma-mode-tip-example', text: 'Example: ' + mode.example})); }
  tip.hidden = false;
  var box = chip.getBoundingClientRect();
  var width = Math.min(320, globalThis.innerWidth - 16);
  tip.style.width = width + 'px';
  tip.style.left = Math.max(8, Math.min(box.left, globalThis.innerWidth - width - 8)) + 'px';
  var below = box.bottom + 6;
  tip.style.top = (below + tip.offsetHeight > globalThis.innerHeight ? Math.max(8, box.top - tip.offsetHeight - 6) : below) + 'px';
  view.modeTipFor = chip;
}

function hideTip(view, now) {
  clearTimeout(view.modeTipTimer);
  var hide = function () { if (view.modeTip) { view.modeTip.hidden = true; } view.modeTipFor = null; };
  if (now) { hide(); } else { view.modeTipTimer = setTimeout(hide, TIP_HIDE_DELAY_MS); }
}

/** Hover, focus and Escape on the view's chips (wired once per view). */
function wireTips(view) {
  if (view.modeTipsWired) { return; }
  view.modeTipsWired = true;
  var section = view.section;
  section.addEventListener('pointerover', function (event) {
    var chip = event.target.closest && event.target.closest('.ma-mode-chip');
    if (chip && chip !== view.modeTipFor) { showTip(view, chip); }
  });
  section.addEventListener('pointerout', function (event) {
    var chip = event.target.closest && event.target.closest('.ma-mode-chip');
    if (chip && !chip.contains(event.relatedTarget) && document.activeElement !== chip) { hideTip(view, false); }
  });
  section.addEventListener('focusin', function (event) {
    if (event.target.classList && event.target.classList.contains('ma-mode-chip')) { showTip(view, event.target); }
  });
  section.addEventListener('focusout', function (event) {
    if (event.target.classList && event.target.classList.contains('ma-mode-chip')) { hideTip(view, true); }
  });
  section.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && view.modeTip && !view.modeTip.hidden) {
      hideTip(view, true);
      event.stopPropagation();   // Escape closes the tooltip first, nothing else (the view's keys included)
    }
  }, true);
  view.viewport.addEventListener('scroll', function () { if (view.modeTip && !view.modeTip.hidden) { hideTip(view, true); } },
    {passive: true});
}

function schemeNamed(view, name) {
  return (view.modeSchemes || []).filter(function (scheme) { return scheme.name === name; })[0] || null;
}

// -- a step's slot ------------------------------------------------------------------------------

/** One slot per mast scheme on step `entry`: its fold toggle, its chips by category, the judgments. */
function slots(view, entry) {
  if (!view.modeSchemes || !view.modeSchemes.length) { return []; }
  wireTips(view);
  return view.modeSchemes.map(function (scheme) {
    var slot = h('div', {class: 'ma-trace-tags ma-trace-modes', 'data-turn-index': entry.index, 'data-schemes': '1',
      'data-scheme': scheme.name});
    slot.appendChild(h('button', {type: 'button', class: 'ma-trace-tags-toggle', 'data-step': entry.index,
      'data-name': scheme.label}));
    var groups = scheme.taxonomy.categories.map(function (category) {
      return h('span', {class: 'ma-mode-category', role: 'group', 'aria-label': category.name},
        category.modes.map(function (mode) {
          return h('button', {type: 'button', class: 'ma-mode-chip', 'data-scheme': scheme.name, 'data-step': entry.index,
            'data-mode': mode.code, 'aria-label': mode.label, 'aria-describedby': scheme.defIds[mode.code],
            'aria-pressed': 'false'}, [h('span', {class: 'ma-mode-code', text: mode.code}),
            h('span', {class: 'ma-mode-name', text: ' ' + mode.name})]);
        }));
    });
    slot.appendChild(h('span', {class: 'ma-mode-chips', role: 'group', 'aria-label': scheme.label + ', ' + entry.number},
      groups));
    slot.appendChild(h('div', {class: 'ma-mode-judgments'}));
    paintSlot(view, scheme, slot);
    return slot;
  });
}

/** The slot's chips pressed as the value says, and the judgments' tags on its step. */
function paintSlot(view, scheme, slot) {
  var rules = marks();
  var index = Number(slot.getAttribute('data-turn-index'));
  var value = scheme.value;
  var locked = !!value && rules.otherTaxonomy(value, scheme.taxonomy);
  var on = locked ? [] : rules.modesOnStep(value, index);
  slot.setAttribute('data-locked', locked ? 'true' : 'false');
  slot.querySelectorAll('.ma-mode-chip').forEach(function (chip) {
    var pressed = on.indexOf(chip.getAttribute('data-mode')) >= 0;
    chip.setAttribute('aria-pressed', pressed ? 'true' : 'false');
    chip.setAttribute('aria-disabled', locked ? 'true' : 'false');
  });
  paintJudgments(view, scheme, slot, index, value, locked);
}

function paintJudgments(view, scheme, slot, index, value, locked) {
  var rules = marks();
  var box = slot.querySelector('.ma-mode-judgments');
  var shown = !locked && rules.judgmentsShown(scheme.config, value);
  var judged = shown ? rules.judgedOnStep(scheme.judgments, index) : [];
  var signature = JSON.stringify(judged);
  box.hidden = judged.length === 0;
  // The lines are rebuilt only when what they say changes: a repaint comes between a button's
  // mousedown and its click (a note's box losing focus stores its text), and a rebuilt button
  // would lose that click.
  if (box.getAttribute('data-shown') !== signature) {
    box.setAttribute('data-shown', signature);
    core.clear(box);
    judged.forEach(function (found) {
      var button = core.acceptButton({source: found.source, noun: 'tag', short: true, attrs: {class: 'ma-mode-accept',
        'data-scheme': scheme.name, 'data-step': index, 'data-mode': found.tag.mode, 'data-source': found.source}});
      box.appendChild(h('p', {class: 'ma-mode-judgment', 'data-source': found.source}, [
        h('span', {text: 'judge ' + rules.judgmentWords(scheme.taxonomy, found.source, found.tag)}), ' ', button]));
    });
  }
  box.querySelectorAll('.ma-mode-accept').forEach(function (button) {
    var code = button.getAttribute('data-mode');
    var source = button.getAttribute('data-source');
    var mine = rules.stepTag(value, index, code);
    core.paintAccept(button, {source: source, accepted: !!mine && mine.from_judgment === source, noun: 'tag',
      short: true, about: rules.modeLabel(scheme.taxonomy, code) + ' on #' + (index + 1)});
  });
}

/** Every drawn slot again (the value changed: a chip, the form, another tab). */
function repaint(view) {
  refreshValues(view);
  view.section.querySelectorAll('.ma-trace-modes').forEach(function (slot) {
    var scheme = schemeNamed(view, slot.getAttribute('data-scheme'));
    if (scheme) { paintSlot(view, scheme, slot); }
  });
}

/**
 * A click on a chip or an Accept: the step action aimed at the scheme's form, which stores it (a
 * form not built yet is built to take it). Returns the words to say, or null when not ours.
 */
function clicked(view, target) {
  var chip = target.closest('.ma-mode-chip, .ma-mode-accept');
  if (!chip) { return null; }
  var scheme = schemeNamed(view, chip.getAttribute('data-scheme'));
  if (!scheme) { return null; }
  var index = Number(chip.getAttribute('data-step'));
  var code = chip.getAttribute('data-mode');
  var label = marks().modeLabel(scheme.taxonomy, code);
  var accept = chip.classList.contains('ma-mode-accept');
  var wasOn = chip.getAttribute('aria-pressed') === 'true';
  if (accept && core.isAccepted(chip)) { return null; }   // accepted already: a press changes nothing
  if (chip.getAttribute('aria-disabled') === 'true') {
    return label + ': this question\u2019s tags were saved under another taxonomy; remove them in the question first.';
  }
  var detail = {index: index, action: accept ? 'mast-accept' : 'mast-tag', target: scheme.name, mode: code};
  if (accept) { detail.source = chip.getAttribute('data-source'); }
  var event = new CustomEvent('multiagent:step-action', {cancelable: true, detail: detail});
  var handled = !document.dispatchEvent(event);
  repaint(view);
  var number = '#' + (index + 1);
  if (!handled) { return label + ': the question "' + scheme.label + '" did not take it.'; }
  if (accept) { return 'Accepted ' + detail.source + '\u2019s tag ' + label + ' on ' + number + '.'; }
  var slot = chip.closest('.ma-trace-tags');
  if (document.activeElement === chip && slot && !chip.getClientRects().length) {
    slot.querySelector('.ma-trace-tags-toggle').focus();   // an unpressed chip hides in a folded slot
  }
  return label + (wasOn ? ' taken off ' : ' tagged on ') + number + '.';
}

// -- the legend -----------------------------------------------------------------------------------

/** The legend toggle in the view's head and the legend beside the viewport, once per view. */
function legend(view) {
  var section = view.section;
  if (!view.modeSchemes.length) {
    if (view.legend) { view.legend.toggle.hidden = true; view.legend.panel.hidden = true; }
    return;
  }
  if (!view.legend) { view.legend = buildLegend(view); }
  view.legend.toggle.hidden = false;
  view.legend.filled = false;   // filled when it opens: closed, nobody reads it (and every load paid for it)
  setLegendOpen(view, readOpen());
  section.classList.add('ma-trace-has-legend');
}

function buildLegend(view) {
  var id = view.modeUid + '-legend';
  var toggle = h('button', {type: 'button', class: 'ma-trace-legend-toggle', 'aria-expanded': 'false', 'aria-controls': id,
    text: 'Failure modes'});
  var search = h('input', {type: 'search', id: id + '-search', class: 'ma-trace-legend-search', autocomplete: 'off'});
  var count = h('p', {class: 'ma-trace-legend-count'});   // said on the view's status line as the search changes
  var list = h('div', {class: 'ma-trace-legend-list'});
  var panel = h('aside', {class: 'ma-trace-legend', id: id, 'aria-label': 'Failure modes', hidden: true}, [
    h('label', {for: id + '-search', text: 'Search failure modes'}), search, count, list]);
  var head = view.section.querySelector('.ma-trace-layouts');
  head.parentNode.insertBefore(toggle, head.nextSibling);
  var body = h('div', {class: 'ma-trace-body'});
  view.viewport.parentNode.insertBefore(body, view.viewport);
  body.appendChild(view.viewport);
  body.appendChild(panel);
  toggle.addEventListener('click', function () {
    var open = toggle.getAttribute('aria-expanded') !== 'true';
    setLegendOpen(view, open);
    writeOpen(open);
    if (open) { search.focus(); }
  });
  search.addEventListener('input', function () { filterLegend(view); view.say(view.legend.count.textContent); });
  search.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && search.value) {
      search.value = '';
      filterLegend(view);
      view.say(view.legend.count.textContent);
      event.stopPropagation();
    }
  });
  return {toggle: toggle, panel: panel, search: search, count: count, list: list};
}

function fillLegend(view) {
  var parts = view.legend;
  parts.filled = true;
  core.clear(parts.list);
  var seen = Object.create(null);
  view.modeSchemes.forEach(function (scheme) {
    var taxonomy = scheme.taxonomy;
    if (taxonomy.id in seen) { return; }
    seen[taxonomy.id] = true;
    parts.list.appendChild(h('p', {class: 'ma-trace-legend-source', text: taxonomy.id + (taxonomy.source ? ' \u2014 ' +
      taxonomy.source : '')}));
    taxonomy.categories.forEach(function (category) {
      var entries = [];
      category.modes.forEach(function (mode) {
        entries.push(h('dt', {'data-mode': mode.code, text: mode.label}));
        entries.push(h('dd', {'data-mode': mode.code, text: mode.definition}));
        if (mode.example) { entries.push(h('dd', {class: 'ma-trace-legend-example', 'data-mode': mode.code,
          text: 'Example: ' + mode.example})); }
      });
      parts.list.appendChild(h('section', {class: 'ma-trace-legend-category', 'data-category': category.name}, [
        h('h4', {text: category.name}), h('dl', {}, entries)]));
    });
  });
  filterLegend(view);
}

/** Show the modes matching the search (code, name, category, definition, example); say how many. */
function filterLegend(view) {
  var parts = view.legend;
  var rules = marks();
  var total = 0;
  var shown = 0;
  var matching = Object.create(null);
  view.modeSchemes.forEach(function (scheme) {
    total = scheme.taxonomy.modes.length;
    rules.searchModes(scheme.taxonomy, parts.search.value).forEach(function (mode) { matching[mode.code] = true; });
  });
  parts.list.querySelectorAll('.ma-trace-legend-category').forEach(function (section) {
    var any = false;
    section.querySelectorAll('[data-mode]').forEach(function (node) {
      var hit = node.getAttribute('data-mode') in matching;
      node.hidden = !hit;
      any = any || hit;
    });
    section.hidden = !any;
  });
  shown = Object.keys(matching).length;
  parts.count.textContent = parts.search.value ? shown + ' of ' + total + ' modes match \u201c' + parts.search.value +
    '\u201d.' : total + ' modes.';
}

function setLegendOpen(view, open) {
  if (open && !view.legend.filled) { fillLegend(view); }
  view.legend.toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
  view.legend.panel.hidden = !open;
  view.section.classList.toggle('ma-trace-legend-open', open);
}

/** The legend stays open across items (Next reloads the page) for this tab. */
function readOpen() {
  try { return globalThis.sessionStorage.getItem(LEGEND_KEY) === 'true'; } catch (error) { return false; }
}

function writeOpen(open) {
  try { globalThis.sessionStorage.setItem(LEGEND_KEY, open ? 'true' : 'false'); } catch (error) { /* storage off: for this page */ }
}

/** A change of a mast form's stored value (document 'change' on its hidden input). */
function isInput(target) {
  return !!(target && target.classList && target.classList.contains('multiagent-input') &&
    target.closest('form[data-ma-widget="' + WIDGET + '"]'));
}

core.traceParts[WIDGET] = {load: load, slots: slots, repaint: repaint, clicked: clicked, isInput: isInput,
  chips: {all: '.ma-mode-chip', chosen: '.ma-mode-chip[aria-pressed="true"]'}};
