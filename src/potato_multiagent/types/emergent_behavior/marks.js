/*
 * marks.js of `multiagent.emergent_behavior`: the pure rules (no DOM), shared by view.js in the
 * page and by the node tests (tests/js/type_cases.test.js runs cases.json against problems()).
 *
 * For each configured behaviour the annotator marks one or more episodes, each a set of turns
 * (the derivation's steps, 0-based, shown as #N = index + 1) with a note. Stored value (see
 * scheme.py and docs/types/emergent_behavior.md):
 *     {behavior: {"turns": union, "note": notes,
 *                 "instances": [{"turns": [...], "turn_refs": [identity of each turn's step], "note": str}]}}
 * non-empty behaviours only; {} is the explicit "no emergent behaviour observed"; "" is nothing.
 * Turns the trace lacks and behaviours the config lacks stay in the value and are shown as such.
 * Lanes (one per agent, plus one for steps without an agent) and their pages are pure too.
 */
import {marks} from 'potato-multiagent';

marks('emergent_behavior', function (lib) {
  'use strict';

  var PAGE_SIZE = 20;          // turns per page of the lane view: a 5,000-step run is 250 pages
  var LISTED_TURNS = 6;        // turns named in one line of words before "and N more"
  var NO_AGENT = 'no agent';
  var NONE_LABEL = '\u201CNo emergent behaviour observed\u201D';

  function hasOwn(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }
  function byNumber(a, b) { return a - b; }

  // ---------------------------------------------------------------------------------------------
  // The value and its editable draft (pure)
  // ---------------------------------------------------------------------------------------------

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
      return {name: name, configured: true, episodes: episodes.length ? episodes : [emptyEpisode()],
        fromJudgment: hasOwn(stored, name) ? fromJudgmentOf(stored[name]) : null};
    });
    Object.keys(stored).forEach(function (name) {
      if (behaviors.indexOf(name) < 0) {
        entries.push({name: name, configured: false, episodes: episodesOf(stored[name]),
          fromJudgment: fromJudgmentOf(stored[name])});
      }
    });
    return {none: value !== null && Object.keys(stored).length === 0, behaviors: entries};
  }

  /** The source of the judgment a behaviour entry was accepted from, or null. */
  function fromJudgmentOf(entry) {
    return entry && typeof entry.from_judgment === 'string' ? entry.from_judgment : null;
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
      if (typeof behavior.fromJudgment === 'string') { value[behavior.name].from_judgment = behavior.fromJudgment; }
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

  /**
   * "#2 (Planner), #5 (Coder)" for a few turns, "and 4 more" past LISTED_TURNS, as pieces: a number
   * is a turn index (said "#N", shown by the view as a link to the step), a string is words.
   */
  function turnListPieces(turns, steps) {
    var pieces = [];
    turns.slice(0, LISTED_TURNS).forEach(function (turn, position) {
      if (position > 0) { pieces.push(', '); }
      pieces.push(turn, ' (' + (inTrace(turn, steps.length) ? agentName(steps[turn]) : 'not in this trace') + ')');
    });
    if (turns.length > LISTED_TURNS) { pieces.push(', and ' + (turns.length - LISTED_TURNS) + ' more'); }
    return pieces;
  }

  /** Pieces said in words: a turn index is "#N". */
  function piecesText(pieces) {
    return pieces.map(function (piece) { return typeof piece === 'number' ? '#' + (piece + 1) : piece; }).join('');
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

  /** One episode in pieces (see turnListPieces): "3 turns across 2 agents: #2 (Planner), ...; note written". */
  function episodePieces(episode, steps) {
    if (!hasContent(episode)) { return ['no turns yet']; }
    var pieces = [];
    if (episode.turns.length) {
      var agents = agentsOf(episode.turns, steps);
      var across = agents.length > 1 ? ' across ' + plural(agents.length, 'agent', 'agents') : '';
      pieces.push(plural(episode.turns.length, 'turn', 'turns') + across + ': ');
      pieces.push.apply(pieces, turnListPieces(episode.turns, steps));
    } else {
      pieces.push('no turns');
    }
    if (episode.note !== '') { pieces.push('; note written'); }
    return pieces;
  }

  /** One episode in words: "3 turns across 2 agents: #2 (Planner), ...; note written". */
  function episodeText(episode, steps) { return piecesText(episodePieces(episode, steps)); }

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
    valueProblems(value, derivation, behaviors).forEach(function (found) {
      notices.push({level: 'warning', text: lib.words(found)});
    });
    return notices;
  }

  /**
   * What Python's trace_problems finds in a value, as data and in its order: per behaviour, "not configured",
   * then an episode with neither turn nor note and seed fields that disagree with the instances,
   * then each turn the trace lacks.
   */
  function valueProblems(value, derivation, behaviors) {
    var found = [];
    Object.keys(value || {}).forEach(function (name) {
      var entry = value[name];
      if (behaviors.indexOf(name) < 0) {
        found.push(lib.problem('not_configured', {field: 'value', value: name, key: 'behaviors'}));
      }
      consistencyProblems(name, entry).forEach(function (item) { found.push(item); });
      turnReferences(name, entry).forEach(function (turn) {
        lib.stepProblems(turn.field, turn.index, turn.ref, derivation).forEach(function (item) { found.push(item); });
      });
    });
    return found;
  }

  /** The rules a JSON Schema cannot state: nothing empty, and the seed fields match the instances. */
  function consistencyProblems(name, entry) {
    var found = [];
    var seeded = !Array.isArray(entry.instances);
    episodesOf(entry).forEach(function (episode, position) {
      if (!hasContent(episode)) {
        found.push(lib.problem('marked_nothing', {field: seeded ? name : name + '.instances[' + position + ']'}));
      }
    });
    if (!seeded) {
      entry.instances.forEach(function (episode, position) {
        if (Array.isArray(episode.turn_refs) && episode.turn_refs.length !== episode.turns.length) {
          found.push(lib.problem('refs_per_turn', {field: name + '.instances[' + position + '].turn_refs',
            expected: episode.turns.length, got: episode.turn_refs.length}));
        }
      });
      var union = unionOf(entry.instances);
      if (union.join(',') !== entry.turns.join(',')) {
        found.push(lib.problem('not_union', {field: name + '.turns', expected: union}));
      }
    }
    return found;
  }

  /**
   * Every stored turn of a behaviour entry with the path of its list (as Python reports it), its
   * saved identity (turn_refs, beside an episode's turns) and where it is: {field, index, ref,
   * episode, position} (episode null for a seed entry without instances).
   */
  function turnReferences(name, entry) {
    var lists = Array.isArray(entry.instances)
      ? entry.instances.map(function (episode, position) {
        return {field: name + '.instances[' + position + '].turns', episode: position, turns: episode.turns,
          refs: Array.isArray(episode.turn_refs) && episode.turn_refs.length === episode.turns.length ? episode.turn_refs : null};
      })
      : [{field: name + '.turns', episode: null, turns: entry.turns, refs: null}];
    var turns = [];
    lists.forEach(function (list) {
      list.turns.forEach(function (turn, position) {
        turns.push({field: list.field, index: turn, ref: list.refs ? list.refs[position] : null,
          episode: list.episode, position: position});
      });
    });
    return turns;
  }

  /**
   * The value's step references (docs/step-references.md): every turn of every episode, with the
   * identity it was saved with. set writes into `value` (turn_refs kept beside the turns, null for a
   * turn whose identity is not known); remove(copy) is the copy without that turn (an episode left
   * with neither turn nor note, or a behaviour with no episode, goes too).
   */
  function references(value) {
    var found = [];
    Object.keys(value || {}).forEach(function (name) {
      turnReferences(name, value[name]).forEach(function (turn) {
        if (turn.episode === null) { return; }   // a seed entry: its turns are saved without identities
        var episode = value[name].instances[turn.episode];
        found.push({key: name + '\u0000' + turn.episode + '\u0000' + turn.index, field: turn.field, index: turn.index,
          ref: turn.ref,
          set: function (index, ref) {
            if (!Array.isArray(episode.turn_refs) || episode.turn_refs.length !== episode.turns.length) {
              episode.turn_refs = episode.turns.map(function () { return null; });
            }
            var other = episode.turns.indexOf(index);
            var at = turn.position;
            if (other >= 0 && other !== at) {   // re-pointed onto a turn the episode has: one turn
              episode.turns.splice(at, 1);
              episode.turn_refs.splice(at, 1);
              at = other > at ? other - 1 : other;
            }
            episode.turns[at] = index;
            episode.turn_refs[at] = typeof ref === 'string' ? ref : null;
            value[name].turns = unionOf(value[name].instances);
          },
          remove: function (copied) { return withoutTurn(copied, name, turn.episode, turn.position); }});
      });
    });
    return found;
  }

  /** A copy of a stored value without one turn of one episode, tidied as composeValue would. */
  function withoutTurn(value, name, episodeIndex, position) {
    var entry = value[name];
    var episode = entry.instances[episodeIndex];
    episode.turns.splice(position, 1);
    if (Array.isArray(episode.turn_refs)) { episode.turn_refs.splice(position, 1); }
    if (!episode.turns.length && episode.note === '') { entry.instances.splice(episodeIndex, 1); }
    if (!entry.instances.length) {
      delete value[name];
      return value;
    }
    entry.turns = unionOf(entry.instances);
    entry.note = entry.instances.map(function (kept) { return kept.note; }).filter(Boolean).join('\n');
    return value;
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

  /** The step of `lane` nearest to `index` (earlier one on a tie), or null for an empty lane. */
  function nearestInLane(lane, index) {
    var steps = lane.steps;
    if (!steps.length) { return null; }
    var position = sortedPosition(steps, index);
    if (position >= steps.length) { return steps[steps.length - 1]; }
    if (position === 0 || steps[position] === index) { return steps[position]; }
    return index - steps[position - 1] <= steps[position] - index ? steps[position - 1] : steps[position];
  }

  // ---------------------------------------------------------------------------------------------
  // Judgments (pure): a judge's answer per behaviour, beside the behaviour
  // ---------------------------------------------------------------------------------------------

  /**
   * The judgments the record carries for this scheme (record[judgments_key][schemaName]) as
   * [{source, value}], value a stored value ({behaviour: entry}); `readable(value)` (the shape
   * check) leaves out what is not. A value given as the JSON text Potato would store is read too.
   */
  function judgmentsFor(record, config, schemaName, readable) {
    return lib.judgmentsOf(record, config, schemaName, function (value) {
      return typeof value === 'object' && !Array.isArray(value) && readable(value);
    });
  }

  /** The judge's episodes of one behaviour, or null when the judge did not mark it. */
  function judgedEpisodes(judgment, name) {
    return hasOwn(judgment.value, name) ? episodesOf(judgment.value[name]).filter(hasContent) : null;
  }

  var JUDGMENT_NOTE_LENGTH = 120;

  /** "llm-judge: episode 1, 2 turns: #1 (Planner), #2 (Coder) — 'agreed at once'." or "llm-judge: not
   * marked." (the judge's note, shortened, where an annotator's own summary says "note written"). */
  function judgmentWords(judgment, name, steps) {
    var episodes = judgedEpisodes(judgment, name);
    if (!episodes || !episodes.length) { return judgment.source + ': not marked.'; }
    return judgment.source + ': ' + episodes.map(function (episode, position) {
      var note = lib.snippet(episode.note, JUDGMENT_NOTE_LENGTH);
      var words = piecesText(episodePieces({turns: episode.turns, note: ''}, steps));
      return 'episode ' + (position + 1) + ', ' + (episode.turns.length ? words : 'no turns') +
        (/\S/.test(note) ? ' \u2014 \'' + note + '\'' : '');
    }).join('. ') + '.';
  }

  /**
   * Whether judgments show beside behaviour `name`: 'always'; 'never'; 'after_answer' once the
   * annotator has answered that behaviour (an episode with a turn or a note is stored for it) or
   * the widget is complete (a turn marked, or "no emergent behaviour observed" ticked).
   */
  function judgmentsShown(mode, value, name, stepCount, behaviors) {
    var answered = Boolean(value) && (hasOwn(value, name) || incompleteReason(value, null, stepCount, behaviors) === null);
    return lib.judgmentsShown({show_judgments: mode}, answered);
  }

  // ---------------------------------------------------------------------------------------------
  // The referee and the runtime's description (pure)
  // ---------------------------------------------------------------------------------------------

  /** The trace problems of a value as data ({code, ...parameters}), as Python's trace_problems
   * finds them (cases.json); lib.words says them. */
  function problems(value, derivation, config) {
    return valueProblems(value, derivation, config.behaviors);
  }

  /** What the runtime paints for a value (define's describe); stale turns stay in their episodes,
   * and a turn whose step changed since it was saved is listed with Remove and Re-point. */
  function describe(value, ctx) {
    var behaviors = ctx.config.behaviors;
    return {
      summary: summaryText(value, ctx.derivation, ctx.unreadable, behaviors),
      incomplete: incompleteReason(value, ctx.unreadable, ctx.derivation.steps.length, behaviors),
      notices: noticesFor(value, ctx.derivation, ctx.unreadable, behaviors),
      stale: lib.staleReferenceEntries(references, value, ctx.derivation)
    };
  }

  /** What a judgment's value marks in the trace view: [[turn, behaviour]] (hostile input: checked). */
  function judgedSteps(value) {
    if (!lib.isPlainObject(value)) { return []; }
    var found = [];
    Object.keys(value).forEach(function (behaviour) {
      var turns = value[behaviour] && Array.isArray(value[behaviour].turns) ? value[behaviour].turns : [];
      turns.forEach(function (turn) { found.push([turn, behaviour]); });
    });
    return found;
  }

  return {
    judgedSteps: judgedSteps,
    PAGE_SIZE: PAGE_SIZE,
    NO_AGENT: NO_AGENT,
    NONE_LABEL: NONE_LABEL,
    episodesOf: episodesOf,
    emptyEpisode: emptyEpisode,
    hasContent: hasContent,
    toDraft: toDraft,
    composeValue: composeValue,
    unionOf: unionOf,
    sortedPosition: sortedPosition,
    includesTurn: includesTurn,
    toggleTurn: toggleTurn,
    draftHasContent: draftHasContent,
    agentName: agentName,
    inTrace: inTrace,
    turnLabel: turnLabel,
    episodePieces: episodePieces,
    fromJudgmentOf: fromJudgmentOf,
    judgmentsFor: judgmentsFor,
    judgedEpisodes: judgedEpisodes,
    judgmentWords: judgmentWords,
    judgmentsShown: judgmentsShown,
    episodeText: episodeText,
    summaryText: summaryText,
    incompleteReason: incompleteReason,
    noticesFor: noticesFor,
    turnReferences: turnReferences,
    references: references,
    withoutTurn: withoutTurn,
    valueProblems: valueProblems,
    problems: problems,
    describe: describe,
    buildLanes: buildLanes,
    visibleSteps: visibleSteps,
    nearestInLane: nearestInLane
  };
});
