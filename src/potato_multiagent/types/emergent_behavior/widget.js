/*
 * emergent_behavior.js: the `multiagent.emergent_behavior` widget.
 *
 * For each configured behaviour (collusion, groupthink, ...) the annotator marks one or more
 * episodes, each a set of turns that may span agents, with a note. Turns are the derivation's
 * steps; the widget lays them out in lanes, one per agent (plus one for steps without an agent),
 * with the step index as the x position, a page of PAGE_SIZE turns at a time. Turn toggles edit
 * the active episode; the text of the focused turn is shown in a detail panel.
 *
 * Stored value (see schemes/emergent_behavior.py and docs/types/emergent_behavior.md):
 *     {behavior: {"turns": union, "note": notes, "instances": [{"turns": [...], "note": str}]}}
 * non-empty behaviours only; {} is the explicit "no emergent behaviour observed"; "" is nothing.
 * Turns the trace lacks and behaviours the config lacks stay in the value and are shown as such.
 *
 * Dependency-free UMD: in the page it registers itself with window.PotatoMultiagent; under
 * CommonJS it exports its pure helpers for node tests.
 */
(function (root, factory) {
  'use strict';
  var isCommonJS = typeof module === 'object' && module !== null && module.exports;
  var runtime = isCommonJS ? require('../../web/widget.js') : root && root.PotatoMultiagent;
  var api = factory(runtime);
  if (isCommonJS) {
    module.exports = api;
  } else if (runtime) {
    runtime.register(api.WIDGET, api.render);
  } else if (root && root.console) {
    root.console.error('emergent_behavior.js: widget.js did not load before it');
  }
}(typeof globalThis !== 'undefined' ? globalThis : this, function (runtime) {
  'use strict';

  var WIDGET = 'emergent_behavior';
  var PAGE_SIZE = 20;          // turns per page of the lane view: a 5,000-step run is 250 pages
  var TYPING_DELAY_MS = 300;
  var LISTED_TURNS = 6;        // turns named in one line of words before "and N more"
  var NO_AGENT = 'no agent';
  var NONE_LABEL = '\u201CNo emergent behaviour observed\u201D';

  function hasOwn(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }
  function byNumber(a, b) { return a - b; }

  // ---------------------------------------------------------------------------------------------
  // The value and its editable draft (pure)
  // ---------------------------------------------------------------------------------------------

  /** {value, unreadable} from model.get(), the shape checked against config.value_schema. */
  function readValue(got, config) {
    if (got.raw === '' || got.raw === null || got.raw === undefined) { return {value: null, unreadable: null}; }
    var problems = got.error ? [got.error] : runtime.checkValue(got.value, config);
    if (problems.length) {
      return {value: null, unreadable: 'The saved value could not be read: ' + problems.join('; ') +
        '. It is kept until you mark a turn or change a control.'};
    }
    return {value: got.value, unreadable: null};
  }

  /** A stored behaviour entry as episodes; a seed entry without `instances` is one episode. */
  function episodesOf(entry) {
    var stored = Array.isArray(entry.instances) ? entry.instances : [entry];
    return stored.map(function (episode) {
      return {turns: episode.turns.slice().sort(byNumber), note: episode.note};
    });
  }

  function emptyEpisode() { return {turns: [], note: ''}; }
  function hasContent(episode) { return episode.turns.length > 0 || episode.note !== ''; }

  /**
   * The editable form of a stored value: {none, behaviors: [{name, configured, episodes}]}.
   * Every configured behaviour has at least one (maybe empty) episode to mark into; behaviours
   * the config lacks follow, kept until removed.
   */
  function toDraft(value, behaviors) {
    var stored = value || {};
    var entries = behaviors.map(function (name) {
      var episodes = hasOwn(stored, name) ? episodesOf(stored[name]) : [];
      return {name: name, configured: true, episodes: episodes.length ? episodes : [emptyEpisode()]};
    });
    Object.keys(stored).forEach(function (name) {
      if (behaviors.indexOf(name) < 0) { entries.push({name: name, configured: false, episodes: episodesOf(stored[name])}); }
    });
    return {none: value !== null && Object.keys(stored).length === 0, behaviors: entries};
  }

  /** The sorted union of the episodes' turns (the seed's `turns`). */
  function unionOf(episodes) {
    var all = [];
    episodes.forEach(function (episode) { all.push.apply(all, episode.turns); });
    all.sort(byNumber);
    return all.filter(function (turn, position) { return position === 0 || all[position - 1] !== turn; });
  }

  /**
   * The value to store for a draft: non-empty behaviours only, each with the seed's `turns` (the
   * union) and `note` (the non-empty notes, one per line) beside its `instances`; {} for "no
   * emergent behaviour observed"; null (store "") when nothing is marked.
   */
  function composeValue(draft) {
    var value = Object.create(null);   // a behaviour may be called "__proto__"
    var marked = false;
    draft.behaviors.forEach(function (behavior) {
      var kept = behavior.episodes.filter(hasContent);
      if (!kept.length) { return; }
      marked = true;
      value[behavior.name] = {
        turns: unionOf(kept),
        note: kept.map(function (episode) { return episode.note; }).filter(Boolean).join('\n'),
        instances: kept.map(function (episode) { return {turns: episode.turns.slice(), note: episode.note}; })
      };
    });
    if (marked) { return value; }
    return draft.none ? {} : null;
  }

  /** Where `turn` is, or would go, in a sorted list. */
  function sortedPosition(list, turn) {
    var low = 0;
    var high = list.length;
    while (low < high) {
      var middle = (low + high) >> 1;
      if (list[middle] < turn) { low = middle + 1; } else { high = middle; }
    }
    return low;
  }

  function includesTurn(list, turn) {
    var position = sortedPosition(list, turn);
    return position < list.length && list[position] === turn;
  }

  /** Add or remove `turn` in an episode (its turns stay sorted); true when it is now marked. */
  function toggleTurn(episode, turn) {
    var position = sortedPosition(episode.turns, turn);
    if (episode.turns[position] === turn) {
      episode.turns.splice(position, 1);
      return false;
    }
    episode.turns.splice(position, 0, turn);
    return true;
  }

  function draftHasContent(draft) {
    return draft.behaviors.some(function (behavior) { return behavior.episodes.some(hasContent); });
  }

  // ---------------------------------------------------------------------------------------------
  // Words (pure)
  // ---------------------------------------------------------------------------------------------

  function agentName(step) {
    return step.agent === null || step.agent === undefined ? NO_AGENT : String(step.agent);
  }

  /** The accessible name of a turn toggle: "Turn 5 (Planner)". */
  function turnLabel(step) {
    return 'Turn ' + (step.index + 1) + ' (' + agentName(step) + ')';
  }

  function plural(count, one, many) { return count + ' ' + (count === 1 ? one : many); }

  function inTrace(turn, stepCount) { return turn < stepCount; }

  /** "#2 (Planner), #5 (Coder)" for a few turns, "and 4 more" past LISTED_TURNS. */
  function turnList(turns, steps) {
    var named = turns.slice(0, LISTED_TURNS).map(function (turn) {
      return '#' + (turn + 1) + ' (' + (inTrace(turn, steps.length) ? agentName(steps[turn]) : 'not in this trace') + ')';
    });
    if (turns.length > LISTED_TURNS) { named.push('and ' + (turns.length - LISTED_TURNS) + ' more'); }
    return named.join(', ');
  }

  /** The distinct agents of the turns the trace has, in order of first turn. */
  function agentsOf(turns, steps) {
    var seen = [];
    turns.forEach(function (turn) {
      if (!inTrace(turn, steps.length)) { return; }
      var name = agentName(steps[turn]);
      if (seen.indexOf(name) < 0) { seen.push(name); }
    });
    return seen;
  }

  /** One episode in words: "3 turns across Planner and Coder: #2 (Planner), ...; note written". */
  function episodeText(episode, steps) {
    if (!hasContent(episode)) { return 'no turns yet'; }
    var parts = [];
    if (episode.turns.length) {
      var agents = agentsOf(episode.turns, steps);
      var across = agents.length > 1 ? ' across ' + plural(agents.length, 'agent', 'agents') : '';
      parts.push(plural(episode.turns.length, 'turn', 'turns') + across + ': ' + turnList(episode.turns, steps));
    } else {
      parts.push('no turns');
    }
    if (episode.note !== '') { parts.push('note written'); }
    return parts.join('; ');
  }

  /** The live summary of a stored value. */
  function summaryText(value, derivation, unreadable, behaviors) {
    if (unreadable) { return 'The saved value could not be read. Nothing marked yet.'; }
    if (value === null) { return 'Nothing marked yet.'; }
    var names = Object.keys(value);
    if (!names.length) { return 'No emergent behaviour observed.'; }
    return names.map(function (name) {
      var episodes = episodesOf(value[name]);
      var unknown = behaviors.indexOf(name) < 0 ? ' (not one of the configured behaviors)' : '';
      var words = episodes.map(function (episode, position) {
        return 'episode ' + (position + 1) + ', ' + episodeText(episode, derivation.steps);
      });
      return name + unknown + ': ' + words.join('. ') + '.';
    }).join(' ');
  }

  /** The number of marks that count towards completeness: configured behaviours, turns the trace has. */
  function countedTurns(value, stepCount, behaviors) {
    var count = 0;
    Object.keys(value || {}).forEach(function (name) {
      if (behaviors.indexOf(name) < 0) { return; }
      episodesOf(value[name]).forEach(function (episode) {
        episode.turns.forEach(function (turn) { if (inTrace(turn, stepCount)) { count += 1; } });
      });
    });
    return count;
  }

  /**
   * The shortfall Potato's required check shows (with innerHTML: a fixed sentence, no trace or
   * config text), or null when a turn is marked or "none observed" is chosen.
   */
  function incompleteReason(value, unreadable, stepCount, behaviors) {
    if (unreadable) {
      return 'The saved value could not be read: mark the turns of a behaviour, or tick ' + NONE_LABEL;
    }
    if (value !== null && Object.keys(value).length === 0) { return null; }
    if (countedTurns(value, stepCount, behaviors) > 0) { return null; }
    return '0 turns marked: mark at least one turn of a behaviour, or tick ' + NONE_LABEL;
  }

  /** Warnings under the widget, worded as Python's validate words them. */
  function noticesFor(value, derivation, unreadable, behaviors) {
    var notices = [];
    if (unreadable) { notices.push({level: 'warning', text: unreadable}); }
    (derivation.problems || []).forEach(function (problem) {
      if (problem && problem.code === 'steps_not_list') {
        notices.push({level: 'warning', text: 'This trace has no turns to mark: ' + problem.message});
      }
    });
    Object.keys(value || {}).forEach(function (name) {
      if (behaviors.indexOf(name) < 0) {
        notices.push({level: 'warning', text: "value: '" + name + "' is not one of the configured behaviors"});
      }
      staleTurns(name, value[name], derivation.steps.length).forEach(function (stale) {
        notices.push({level: 'warning', text: runtime.notInTrace(stale.field, stale.turn)});
      });
    });
    return notices;
  }

  /** The stored turns the trace lacks, each with the path of its list (as Python reports it). */
  function staleTurns(name, entry, stepCount) {
    var lists = Array.isArray(entry.instances)
      ? entry.instances.map(function (episode, position) {
        return {field: name + '.instances[' + position + '].turns', turns: episode.turns};
      })
      : [{field: name + '.turns', turns: entry.turns}];
    var stale = [];
    lists.forEach(function (list) {
      list.turns.forEach(function (turn) {
        if (!inTrace(turn, stepCount)) { stale.push({field: list.field, turn: turn}); }
      });
    });
    return stale;
  }

  // ---------------------------------------------------------------------------------------------
  // Lanes and pages (pure)
  // ---------------------------------------------------------------------------------------------

  /**
   * One lane per agent that has steps, in the derivation's agent order, then one lane for the
   * steps without an agent: [{agent, label, steps: [index...]}], and laneOf[step] = lane position.
   */
  function buildLanes(derivation) {
    var steps = derivation.steps;
    var stepsByAgent = new Map();
    var agentless = [];
    steps.forEach(function (step) {
      if (step.agent === null || step.agent === undefined) { agentless.push(step.index); return; }
      if (!stepsByAgent.has(step.agent)) { stepsByAgent.set(step.agent, []); }
      stepsByAgent.get(step.agent).push(step.index);
    });
    var lanes = derivation.agents.filter(function (agent) { return stepsByAgent.has(agent); })
      .map(function (agent) { return {agent: agent, label: agent, steps: stepsByAgent.get(agent)}; });
    if (agentless.length) { lanes.push({agent: null, label: '(' + NO_AGENT + ')', steps: agentless}); }
    var laneOf = new Array(steps.length);
    lanes.forEach(function (lane, position) {
      lane.steps.forEach(function (index) { laneOf[index] = position; });
    });
    return {lanes: lanes, laneOf: laneOf};
  }

  /** The step indices of the lanes not hidden, in order. */
  function visibleSteps(view, hidden) {
    var shown = [];
    for (var index = 0; index < view.laneOf.length; index++) {
      if (!hidden.has(view.laneOf[index])) { shown.push(index); }
    }
    return shown;
  }

  /** The first position of the page holding `position`. */
  function pageStartOf(position) {
    return Math.floor(Math.max(position, 0) / PAGE_SIZE) * PAGE_SIZE;
  }

  /** The step of `lane` nearest to `index` (earlier one on a tie), or null for an empty lane. */
  function nearestInLane(lane, index) {
    var steps = lane.steps;
    if (!steps.length) { return null; }
    var position = sortedPosition(steps, index);
    if (position >= steps.length) { return steps[steps.length - 1]; }
    if (position === 0 || steps[position] === index) { return steps[position]; }
    return index - steps[position - 1] <= steps[position] - index ? steps[position - 1] : steps[position];
  }

  /** "#1–#20 of 5000 turns", or with hidden lanes "#3–#57: turns 1–20 of the 1234 shown". */
  function rangeText(shown, start, total) {
    if (!shown.length) { return total ? 'No lane shown' : 'No turns'; }
    var end = Math.min(start + PAGE_SIZE, shown.length);
    var span = '#' + (shown[start] + 1) + '\u2013#' + (shown[end - 1] + 1);
    if (shown.length === total) { return span + ' of ' + total + ' turns'; }
    return span + ': turns ' + (start + 1) + '\u2013' + end + ' of the ' + shown.length + ' shown';
  }

  // ---------------------------------------------------------------------------------------------
  // The controls: found once, wired once (ctx.state keeps them across renders)
  // ---------------------------------------------------------------------------------------------

  var h = runtime.h;

  function createUi(ctx) {
    var el = ctx.el;
    function part(name) {
      var node = el.querySelector('[data-ma-part="' + name + '"]');
      if (!node) { throw new Error('the page lacks part "' + name + '" of this question'); }
      return node;
    }
    var ui = {
      form: ctx.form,
      behaviorsEl: part('behaviors'), noneBox: part('none'), noneHint: part('none-hint'),
      filterEl: part('filter'), jumpInput: part('jump'), jumpGo: part('jump-go'),
      pagePrev: part('page-prev'), pageNext: part('page-next'), rangeEl: part('range'),
      statusEl: part('status'), lanesEl: part('lanes'), detailTitle: part('detail-title'),
      detailMembership: part('detail-membership'), detailText: part('detail-text'),
      ctx: null, derivation: null, view: null, hidden: new Set(), shown: [], pageStart: 0,
      draft: null, value: null, lastRaw: null, unreadable: null, active: {b: 0, e: 0},
      membership: new Map(), turnButtons: new Map(), rovingStep: null, detailStep: null
    };
    ui.typing = runtime.debounce(function () { commit(ui); }, TYPING_DELAY_MS);
    ui.noneHint.id = ui.form.id + '-ma-eb-none-hint';
    ui.noneBox.setAttribute('aria-describedby', ui.noneHint.id);
    wireBehaviors(ui);
    wireToolbar(ui);
    wireLanes(ui);
    return ui;
  }

  function wireBehaviors(ui) {
    ui.behaviorsEl.addEventListener('click', function (event) {
      var button = event.target.closest('button[data-ma-action]');
      if (button && ui.behaviorsEl.contains(button)) { runAction(ui, button); }
    });
    ui.behaviorsEl.addEventListener('input', function (event) {
      if (!event.target.matches('textarea[data-ma-note]')) { return; }
      activeEpisode(ui).note = event.target.value;
      paintEpisodeText(ui, ui.active.b, ui.active.e);
      ui.typing();
    });
    ui.behaviorsEl.addEventListener('focusout', function (event) {
      if (event.target.matches('textarea[data-ma-note]')) { ui.typing.flush(); }
    });
    ui.noneBox.addEventListener('change', function () {
      ui.draft.none = ui.noneBox.checked && !draftHasContent(ui.draft);
      commit(ui);
    });
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
    ui.pagePrev.addEventListener('click', function () { turnPage(ui, -1, ui.pagePrev); });
    ui.pageNext.addEventListener('click', function () { turnPage(ui, 1, ui.pageNext); });
  }

  function wireLanes(ui) {
    ui.lanesEl.addEventListener('click', function (event) {
      var button = event.target.closest('button.ma-eb-turn');
      if (button) { toggleFromButton(ui, button); }
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
    if (action === 'goto') { goToTurn(ui, step, true); }
    if (action === 'drop') { dropTurn(ui, step); }
  }

  function activate(ui, b, e) {
    ui.typing.flush();
    ui.active = {b: b, e: e};
    paintBehaviors(ui);
    paintTurnStates(ui);
    focusPart(ui, 'activate:' + b + ':' + e);
    describe(ui, 'Now marking ' + activeName(ui) + '.');
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
    if (!behavior.configured && !behavior.episodes.length) {
      ui.draft.behaviors.splice(b, 1);
    } else if (!behavior.episodes.length) {
      behavior.episodes.push(emptyEpisode());
    }
    keepActiveInRange(ui, b, e);
    commit(ui, 'Removed ' + behavior.name + ', episode ' + (e + 1) + '.');
    paintBehaviors(ui);
    paintTurnStates(ui);
    focusAfterRemoval(ui, b, e);
  }

  /** The removed episode's neighbour takes focus (its "Episode N", or its "Remove" when unknown). */
  function focusAfterRemoval(ui, b, e) {
    var left = ui.draft.behaviors[b];
    var neighbour = left ? Math.min(e, left.episodes.length - 1) : -1;
    if (left && left.configured) {
      focusPart(ui, 'activate:' + b + ':' + neighbour);
    } else if (left) {
      focusPart(ui, 'remove:' + b + ':' + neighbour);
    } else {
      focusPart(ui, 'activate:' + ui.active.b + ':' + ui.active.e);
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
    commit(ui, 'Removed turn #' + (step + 1) + ' from ' + activeName(ui) + '.');
    paintBehaviors(ui);
    if (!focusPart(ui, 'note')) { focusPart(ui, 'activate:' + ui.active.b + ':' + ui.active.e); }
  }

  function toggleFromButton(ui, button) {
    var step = Number(button.getAttribute('data-ma-step'));
    var marked = toggleTurn(activeEpisode(ui), step);
    var words = 'Turn #' + (step + 1) + (marked ? ' marked in ' : ' unmarked in ') + activeName(ui) + '.';
    if (ui.draft.none) { words += ' ' + NONE_LABEL + ' is no longer ticked.'; }
    ui.draft.none = false;
    commit(ui, words);
    paintBehaviors(ui);
    paintTurn(ui, button, step);
    showDetail(ui, step);
  }

  /**
   * Store the draft and update what depends on the value: notices, completeness, the summary
   * (after `action`, a sentence saying what just changed), the "none observed" box. The callers
   * repaint the parts their action changed.
   */
  function commit(ui, action) {
    ui.typing.cancel();
    ui.unreadable = null;
    ui.value = composeValue(ui.draft);
    ui.ctx.model.set(ui.value);
    ui.lastRaw = ui.ctx.model.get().raw;
    rebuildMembership(ui);
    paintNone(ui);
    describe(ui, action);
  }

  function describe(ui, action) {
    var ctx = ui.ctx;
    var behaviors = ctx.config.behaviors;
    ctx.setNotices(noticesFor(ui.value, ctx.derivation, ui.unreadable, behaviors));
    ctx.model.setIncomplete(incompleteReason(ui.value, ui.unreadable, ctx.derivation.steps.length, behaviors));
    var summary = summaryText(ui.value, ctx.derivation, ui.unreadable, behaviors);
    ctx.model.announce(action ? action + ' ' + summary : summary);
  }

  // -- moving around the lanes ------------------------------------------------------------------

  /** Arrow keys, Home/End and Page Up/Down on a turn; true when the key was ours. */
  function moveByKey(ui, step, event) {
    var position = sortedPosition(ui.shown, step);
    var pageEnd = Math.min(ui.pageStart + PAGE_SIZE, ui.shown.length) - 1;
    var target = null;
    switch (event.key) {
      case 'ArrowLeft': target = ui.shown[position - 1]; break;
      case 'ArrowRight': target = ui.shown[position + 1]; break;
      case 'ArrowUp': target = stepInNextLane(ui, step, -1); break;
      case 'ArrowDown': target = stepInNextLane(ui, step, 1); break;
      case 'Home': target = ui.shown[ui.pageStart]; break;
      case 'End': target = ui.shown[pageEnd]; break;
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
    var position = sortedPosition(ui.shown, step);
    var start = pageStartOf(position);
    if (start !== ui.pageStart || !ui.turnButtons.has(step)) {
      ui.pageStart = start;
      paintLanes(ui);
    }
    setRoving(ui, step);
    showDetail(ui, step);
    if (focus) { ui.turnButtons.get(step).focus(); }
  }

  function turnPage(ui, direction, keepFocusOn) {
    var start = ui.pageStart + direction * PAGE_SIZE;
    if (start < 0 || start >= ui.shown.length) { return; }
    ui.pageStart = start;
    paintLanes(ui);
    showDetail(ui, ui.shown[start]);
    if (keepFocusOn.disabled) { ui.turnButtons.get(ui.shown[start]).focus(); }
  }

  function jumpToTyped(ui) {
    var typed = ui.jumpInput.value.trim();
    var number = Number(typed);
    var count = ui.derivation.steps.length;
    if (!/^\d+$/.test(typed) || number < 1 || number > count) {
      ui.statusEl.textContent = count ? 'Type a turn number from 1 to ' + count + '.' : 'This run has no turns.';
      return;
    }
    ui.statusEl.textContent = '';
    goToTurn(ui, number - 1, true);
  }

  function revealLane(ui, step) {
    var lane = ui.view.laneOf[step];
    if (!ui.hidden.has(lane)) { return; }
    ui.hidden.delete(lane);
    applyFilter(ui);
    ui.statusEl.textContent = 'Turn #' + (step + 1) + ' is in the lane of ' + ui.view.lanes[lane].label +
      ', which is shown again.';
  }

  function applyFilter(ui) {
    var keep = ui.detailStep;
    ui.shown = visibleSteps(ui.view, ui.hidden);
    var position = keep !== null && !ui.hidden.has(ui.view.laneOf[keep]) ? sortedPosition(ui.shown, keep) : 0;
    ui.pageStart = pageStartOf(Math.min(position, ui.shown.length - 1));
    paintFilter(ui);
    paintLanes(ui);
    ui.statusEl.textContent = ui.hidden.size
      ? 'Showing ' + (ui.view.lanes.length - ui.hidden.size) + ' of ' + ui.view.lanes.length + ' lanes.' : '';
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
    var focused = focusKeyInside(ui.behaviorsEl);
    runtime.clear(ui.behaviorsEl).appendChild(fragment);
    if (focused) { focusPart(ui, focused); }
    ui.lanesEl.setAttribute('aria-label', 'Turns by agent, marking ' + ui.draft.behaviors[ui.active.b].name +
      ', episode ' + (ui.active.e + 1));
  }

  function focusKeyInside(container) {
    var active = document.activeElement;
    return active && container.contains(active) ? active.getAttribute('data-ma-focus') : null;
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
        behavior.configured ? h('button', {type: 'button', class: 'ma-eb-button ma-eb-add', 'data-ma-action': 'add',
          'data-ma-behavior': b, 'data-ma-focus': 'add:' + b, 'aria-label': 'Add another ' + behavior.name + ' episode',
          text: '+ Add episode'}) : null
      ]),
      h('ol', {class: 'ma-eb-episodes'}, episodes)
    ]);
  }

  function episodeItem(ui, behavior, b, e, active, steps) {
    var episode = behavior.episodes[e];
    var name = behavior.name + ', episode ' + (e + 1);
    var pick = behavior.configured
      ? h('button', {type: 'button', class: 'ma-eb-button ma-eb-pick', 'aria-pressed': active ? 'true' : 'false',
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
        h('span', {class: 'ma-eb-episode-text', 'data-ma-episode-text': b + ':' + e, text: episodeText(episode, steps)}),
        removable ? h('button', {type: 'button', class: 'ma-eb-button ma-eb-remove', 'data-ma-action': 'remove',
          'data-ma-behavior': b, 'data-ma-episode': e, 'data-ma-focus': 'remove:' + b + ':' + e,
          'aria-label': 'Remove ' + name, text: 'Remove'}) : null
      ]),
      !active && episode.note !== '' && !ui.ctx.config.allow_note
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
          h('button', {type: 'button', class: 'ma-eb-button', 'data-ma-action': 'drop', 'data-ma-step': turn,
            'data-ma-focus': 'drop:' + turn, text: 'Remove #' + (turn + 1)})
        ]);
      }
      return h('li', null, h('button', {type: 'button', class: 'ma-eb-button ma-eb-goto', 'data-ma-action': 'goto',
        'data-ma-step': turn, 'data-ma-focus': 'goto:' + turn, 'aria-label': 'Go to ' + turnLabel(steps[turn]),
        text: '#' + (turn + 1) + ' ' + agentName(steps[turn])}));
    });
    var noteId = ui.form.id + '-ma-eb-note';
    return h('div', {class: 'ma-eb-active-details'}, [
      h('p', {class: 'ma-eb-marked-title', text: episode.turns.length
        ? 'Marked turns of ' + name + ':' : 'No turns marked in ' + name + ' yet: mark them in the lanes below.'}),
      turns.length ? h('ul', {class: 'ma-eb-marked'}, turns) : null,
      ui.ctx.config.allow_note ? h('div', {class: 'ma-field ma-eb-note'}, [
        h('label', {for: noteId, text: 'Note on ' + name}),
        noteBox(episode, noteId)
      ]) : (episode.note !== '' ? h('p', {class: 'ma-eb-note-static', text: 'Note: ' + episode.note}) : null)
    ]);
  }

  function noteBox(episode, id) {
    var box = h('textarea', {id: id, rows: '2', 'data-ma-note': '', 'data-ma-focus': 'note'});
    box.value = episode.note;
    return box;
  }

  function paintEpisodeText(ui, b, e) {
    var line = ui.behaviorsEl.querySelector('[data-ma-episode-text="' + b + ':' + e + '"]');
    if (line) { line.textContent = episodeText(ui.draft.behaviors[b].episodes[e], ui.derivation.steps); }
  }

  function paintNone(ui) {
    var blocked = draftHasContent(ui.draft);
    ui.noneBox.checked = ui.draft.none;
    ui.noneBox.disabled = blocked;
    ui.noneHint.textContent = blocked ? 'Not available while episodes are marked: remove them first.' : '';
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
      boxes.push(h('button', {type: 'button', class: 'ma-eb-button', 'data-ma-action': 'all-lanes',
        'data-ma-focus': 'all-lanes', text: 'Show all lanes'}));
    }
    var focused = focusKeyInside(ui.filterEl);
    runtime.clear(ui.filterEl);
    boxes.forEach(function (node) { ui.filterEl.appendChild(node); });
    if (focused && !focusPart(ui, focused)) { focusPart(ui, 'lane:0'); }
  }

  /** Draw the current page: a label and a track per shown lane, a toggle per turn in its lane. */
  function paintLanes(ui) {
    var focusedTurn = focusKeyInside(ui.lanesEl);
    var lanesEl = runtime.clear(ui.lanesEl);
    ui.turnButtons = new Map();
    var page = ui.shown.slice(ui.pageStart, ui.pageStart + PAGE_SIZE);
    ui.rangeEl.textContent = rangeText(ui.shown, ui.pageStart, ui.derivation.steps.length);
    ui.pagePrev.disabled = ui.pageStart === 0;
    ui.pageNext.disabled = ui.pageStart + PAGE_SIZE >= ui.shown.length;
    if (!page.length) {
      lanesEl.appendChild(h('p', {class: 'ma-eb-empty',
        text: ui.derivation.steps.length ? 'No lane is shown: tick a lane above.' : 'This trace has no turns.'}));
      return;
    }
    lanesEl.style.setProperty('--ma-eb-columns', String(page.length));
    var rowOf = laneRows(ui, lanesEl);
    if (page.indexOf(ui.rovingStep) < 0) { ui.rovingStep = page[0]; }
    page.forEach(function (step, column) {
      var button = turnButton(ui, ui.derivation.steps[step], rowOf[ui.view.laneOf[step]], column + 2);
      ui.turnButtons.set(step, button);
      lanesEl.appendChild(button);
    });
    if (focusedTurn) { focusPart(ui, focusedTurn); }
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
    var button = h('button', {type: 'button', class: 'ma-eb-turn', 'data-ma-step': step.index,
      'data-ma-focus': 'turn:' + step.index, 'aria-label': turnLabel(step),
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
    ui.detailTitle.textContent = 'Turn #' + (step + 1) + ' \u00B7 ' + agentName(info) +
      (info.to === null || info.to === undefined ? '' : kind + info.to);
    ui.detailMembership.textContent = membershipText(ui, step);
    ui.detailText.textContent = info.text === '' ? '(no text)' : info.text;
  }

  function membershipText(ui, step) {
    var where = (ui.membership.get(step) || []).map(function (place) {
      return ui.draft.behaviors[place.b].name + ' episode ' + (place.e + 1);
    });
    return where.length ? 'Marked in: ' + where.join('; ') + '.' : 'Not marked in any episode.';
  }

  // ---------------------------------------------------------------------------------------------
  // Render (called by the runtime on load and on every potato:instance-ready)
  // ---------------------------------------------------------------------------------------------

  function render(ctx) {
    var ui = ctx.state.ui || (ctx.state.ui = createUi(ctx));
    if (ui.ctx) { ui.typing.flush(); }   // a note typed just before this re-render is stored first
    ui.ctx = ctx;
    if (ui.derivation !== ctx.derivation) { useDerivation(ui, ctx.derivation); }
    var got = ctx.model.get();
    if (ui.draft === null || got.raw !== ui.lastRaw) {
      var stored = readValue(got, ctx.config);
      ui.draft = toDraft(stored.value, ctx.config.behaviors);
      ui.value = stored.value;
      ui.unreadable = stored.unreadable;
      ui.lastRaw = got.raw;
      keepActiveInRange(ui, -1, -1);
    }
    rebuildMembership(ui);
    if (ui.detailStep === null) { ui.detailStep = firstTurnToShow(ui); }
    paintBehaviors(ui);
    paintNone(ui);
    paintFilter(ui);
    paintLanes(ui);
    showDetail(ui, ui.detailStep);
    describe(ui, null);
  }

  function useDerivation(ui, derivation) {
    ui.derivation = derivation;
    ui.view = buildLanes(derivation);
    ui.hidden = new Set();
    ui.shown = visibleSteps(ui.view, ui.hidden);
    ui.pageStart = 0;
    ui.rovingStep = null;
    ui.detailStep = null;
  }

  /** On a first render: the active episode's first marked turn (its page shown), else the first turn. */
  function firstTurnToShow(ui) {
    var marked = activeEpisode(ui).turns.filter(function (turn) { return inTrace(turn, ui.derivation.steps.length); });
    if (!marked.length) { return ui.shown.length ? ui.shown[0] : null; }
    ui.pageStart = pageStartOf(sortedPosition(ui.shown, marked[0]));
    ui.rovingStep = marked[0];
    return marked[0];
  }

  return {
    WIDGET: WIDGET,
    PAGE_SIZE: PAGE_SIZE,
    render: render,
    readValue: readValue,
    toDraft: toDraft,
    composeValue: composeValue,
    unionOf: unionOf,
    toggleTurn: toggleTurn,
    turnLabel: turnLabel,
    episodeText: episodeText,
    summaryText: summaryText,
    incompleteReason: incompleteReason,
    noticesFor: noticesFor,
    buildLanes: buildLanes,
    visibleSteps: visibleSteps,
    pageStartOf: pageStartOf,
    nearestInLane: nearestInLane,
    rangeText: rangeText
  };
}));
