/*
 * derive.js: the browser/node twin of potato_multiagent.trace.
 *
 * derive(record, options) turns one instance record into steps, agents, edges, handoffs, tool
 * calls, timed calls, contention regions and problems, exactly as docs/derivation.md says. The
 * conformance corpus (tests/conformance/*.json) referees this file against the Python side, so
 * every choice below follows that page, not what JS would do by default.
 *
 * Dependency-free: imported by the runtime in the page and by the node tests.
 */
// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

var AGENT_FIELDS = ['agent', 'sender', 'source', 'speaker', 'name', 'role'];

var DEFAULTS = {
  steps_key: 'steps',
  agent_key: 'agent',
  calls_key: 'calls',
  resource_key: 'resource',
  agents: null,
  agent_qualifiers: true
};

// Missing, undefined and null options take their defaults (never a thrown error).
function readOptions(options) {
  var given = isPlainObject(options) ? options : {};
  function pick(key) {
    var value = ownValue(given, key);
    return value === undefined || value === null ? DEFAULTS[key] : value;
  }
  // Key options are strings; anything else falls back to the default rather than throwing.
  function pickKey(key) {
    var value = pick(key);
    return typeof value === 'string' ? value : DEFAULTS[key];
  }
  var agentKey = pickKey('agent_key');
  // The configured key first, not asked twice (a step without an agent reads every field).
  var agentFields = [agentKey].concat(AGENT_FIELDS.filter(function (field) { return field !== agentKey; }));
  return {
    stepsPath: pickKey('steps_key').split('.'),
    callsPath: pickKey('calls_key').split('.'),
    agentKey: agentKey,
    resourceKey: pickKey('resource_key'),
    roster: pick('agents'),
    qualifiers: Boolean(pick('agent_qualifiers')),
    agentFields: agentFields,
    callAgentFields: agentKey === 'agent' ? ['agent'] : [agentKey, 'agent'],
    handoffSourceFields: ['from_agent', 'source', 'from'].concat(agentFields)
  };
}

// ---------------------------------------------------------------------------------------------
// JSON helpers: own properties only, so "constructor" or "__proto__" never reach the prototype.
// ---------------------------------------------------------------------------------------------

var hasOwn = Object.prototype.hasOwnProperty;

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function ownValue(object, key) {
  return hasOwn.call(object, key) ? object[key] : undefined;
}

// A dotted path is always a path, followed through objects only (lists are not objects here).
// Returns undefined when any segment is missing or a value on the way is not an object.
function followPath(record, segments) {
  var value = record;
  for (var i = 0; i < segments.length; i++) {
    if (!isPlainObject(value) || !hasOwn.call(value, segments[i])) return undefined;
    value = value[segments[i]];
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Names and text
// ---------------------------------------------------------------------------------------------

// Exactly JS's \s, written out so the Python twin can use the same class.
var WHITESPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
var NON_WHITESPACE_RE = new RegExp('[^' + WHITESPACE + ']');

function isWhitespaceCode(code) {
  return (code >= 0x09 && code <= 0x0d) || code === 0x20 || code === 0xa0 || code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 ||
    code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

// Strip the class above from both ends (never String#trim, whose set is not ours by contract).
function stripWhitespace(text) {
  var start = 0;
  var end = text.length;
  while (start < end && isWhitespaceCode(text.charCodeAt(start))) start++;
  while (end > start && isWhitespaceCode(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

// A name is a non-empty string that is not only whitespace, taken as it is.
function isName(value) {
  if (typeof value !== 'string' || value.length === 0) return false;
  var first = value.charCodeAt(0);
  // Fast paths: most names start with a visible ASCII character, or another non-space one.
  if (first > 0x20 && first < 0x7f) return true;
  return !isWhitespaceCode(first) || NON_WHITESPACE_RE.test(value);
}

// A string name, or an object's `name`, else its `id` (not recursive); otherwise null.
function nameOf(value) {
  if (isName(value)) return value;
  if (!isPlainObject(value)) return null;
  var name = ownValue(value, 'name');
  if (isName(name)) return name;
  var id = ownValue(value, 'id');
  return isName(id) ? id : null;
}

// The first of `fields` whose value is a name (objects count by name/id). Absent fields are
// skipped before any call: this runs for several fields of every step, cold, in the page.
function firstName(object, fields) {
  for (var i = 0; i < fields.length; i++) {
    if (!hasOwn.call(object, fields[i])) continue;
    var value = object[fields[i]];
    // Most values are strings, which are names or nothing (nameOf's object rule not asked).
    var name = typeof value === 'string' ? (isName(value) ? value : null) : nameOf(value);
    if (name !== null) return name;
  }
  return null;
}

// The first of `fields` whose value is a string name (tool names: objects do not count).
function firstStringName(object, fields) {
  for (var i = 0; i < fields.length; i++) {
    var value = ownValue(object, fields[i]);
    if (isName(value)) return value;
  }
  return null;
}

// The first of `fields` that is present and not null, else null.
function firstPresent(object, fields) {
  for (var i = 0; i < fields.length; i++) {
    if (!hasOwn.call(object, fields[i])) continue;
    var value = object[fields[i]];
    if (value !== undefined && value !== null) return value;
  }
  return null;
}

function isHighSurrogate(code) { return code >= 0xd800 && code <= 0xdbff; }
function isLowSurrogate(code) { return code >= 0xdc00 && code <= 0xdfff; }

// String order by Unicode code point (UTF-16 unit order puts U+10000.. below U+E000..U+FFFF).
function compareCodePoints(a, b) {
  if (a === b) return 0;
  var shared = Math.min(a.length, b.length);
  var i = 0;
  while (i < shared && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === shared) return a.length < b.length ? -1 : 1;
  // When the difference is inside a surrogate pair, compare the whole code points.
  var splitsPair = i > 0 && isHighSurrogate(a.charCodeAt(i - 1)) &&
    (isLowSurrogate(a.charCodeAt(i)) || isLowSurrogate(b.charCodeAt(i)));
  var at = splitsPair ? i - 1 : i;
  return a.codePointAt(at) < b.codePointAt(at) ? -1 : 1;
}

// JS's own JSON.stringify is the contract's compact JSON; guard only against absurd nesting.
function compactJson(value) {
  try {
    var text = JSON.stringify(value);
    return typeof text === 'string' ? text : '';
  } catch (error) {
    return '';
  }
}

var TEXT_FIELDS = ['content', 'text', 'message', 'thought', 'action', 'result'];

// A value shown as text: a string as it is; a list of strings and objects as their strings
// (objects by their string `text`) joined with \n; anything else as compact JSON.
function textOfValue(value) {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    var parts = [];
    for (var i = 0; i < value.length; i++) {
      var item = value[i];
      if (typeof item === 'string') {
        parts.push(item);
      } else if (isPlainObject(item)) {
        var text = blockText(item);
        if (text !== null) parts.push(text);
      } else {
        return compactJson(value);
      }
    }
    return parts.join('\n');
  }
  return compactJson(value);
}

// A content block's text; an Anthropic tool_result block lends its content's text.
function blockText(block) {
  var text = ownValue(block, 'text');
  if (typeof text === 'string') return text;
  if (ownValue(block, 'type') !== 'tool_result') return null;
  var content = ownValue(block, 'content');
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  var texts = [];
  for (var i = 0; i < content.length; i++) {
    var inner = isPlainObject(content[i]) ? ownValue(content[i], 'text') : undefined;
    if (typeof inner === 'string') texts.push(inner);
  }
  return texts.length ? texts.join('\n') : null;
}

// An object step shows its first non-null text field; any other step is its own text.
function textOfStep(step) {
  if (step === null || step === undefined) return '';
  if (!isPlainObject(step)) return textOfValue(step);
  var value = firstPresent(step, TEXT_FIELDS);
  return value === null ? '' : textOfValue(value);
}

// ---------------------------------------------------------------------------------------------
// Steps: agent, qualifier, addressee, explicit handoff events
// ---------------------------------------------------------------------------------------------

// ^([\s\S]*\S)\s+\(([^()]*)\)$ with \s the explicit class; `$` without /m is end of string.
var QUALIFIER_RE = new RegExp(
  '^([\\s\\S]*[^' + WHITESPACE + '])[' + WHITESPACE + ']+\\(([^()]*)\\)$');
var ADDRESSEE_FIELDS = ['receiver', 'recipient', 'to', 'target', 'addressee'];
var HANDOFF_TARGET_FIELDS = ['to_agent', 'target', 'to'];

// `Orchestrator (-> WebSurfer)` -> {agent: "Orchestrator", qualifier: "-> WebSurfer",
// target: "WebSurfer"}; null when the name carries no qualifier.
function splitQualifier(name) {
  if (typeof name !== 'string' || name.charCodeAt(name.length - 1) !== 0x29) return null; // ")"
  var match = QUALIFIER_RE.exec(name);
  if (match === null) return null;
  var qualifier = match[2];
  var body = stripLeading(qualifier);
  var target = null;
  if (body.slice(0, 2) === '->') target = stripWhitespace(body.slice(2));
  else if (body.charAt(0) === '\u2192') target = stripWhitespace(body.slice(1));
  return { agent: match[1], qualifier: qualifier, target: isName(target) ? target : null };
}

function stripLeading(text) {
  var start = 0;
  while (start < text.length && isWhitespaceCode(text.charCodeAt(start))) start++;
  return text.slice(start);
}

// Lower-case ASCII letters only ("HANDOFF" matches; no Unicode case folding).
function asciiLower(text) {
  return text.replace(/[A-Z]+/g, function (letters) { return letters.toLowerCase(); });
}

// An explicit handoff event with a distinct source and target, or null.
function readHandoffEvent(step, options) {
  var type = ownValue(step, 'type');
  var typed = typeof type === 'string' &&
    (asciiLower(type) === 'handoff' || asciiLower(type) === 'handoffmessage');
  if (!typed && !hasOwn.call(step, 'to_agent')) return null; // most steps: read no further
  if (!typed && nameOf(step.to_agent) === null) return null;
  var source = firstName(step, options.handoffSourceFields);
  var target = firstName(step, HANDOFF_TARGET_FIELDS);
  if (source === null || target === null || source === target) return null;
  return { from: source, to: target };
}

// What failed, as the record says it: a name, or an object's `message` when that is one.
function errorText(value) {
  if (isName(value)) return value;
  if (isPlainObject(value) && isName(ownValue(value, 'message'))) return ownValue(value, 'message');
  return null;
}

var SOURCE_ID_FIELDS = ['span_id', 'message_id', 'id'];

// The step's own id in its source: the first of SOURCE_ID_FIELDS that is a (string) name.
function sourceId(raw) {
  for (var i = 0; i < SOURCE_ID_FIELDS.length; i++) {
    if (hasOwn.call(raw, SOURCE_ID_FIELDS[i])) {
      var value = raw[SOURCE_ID_FIELDS[i]];
      if (typeof value === 'string' && isName(value)) return value;
    }
  }
  return null;
}

// One output step {index, agent, qualifier, to, kind, text, thread, parent_thread, error,
// source_id}; parent_thread is settled later, from all the steps of the thread (resolveParents).
function readStep(raw, index, options) {
  var step = { index: index, agent: null, qualifier: null, to: null, kind: 'turn',
    text: textOfStep(raw), thread: null, parent_thread: null, error: null, source_id: null };
  if (!isPlainObject(raw)) return step;
  // Absent fields (most steps have no thread and no error) cost no call.
  if (hasOwn.call(raw, 'thread') && isName(raw.thread)) step.thread = raw.thread;
  if (hasOwn.call(raw, 'error')) step.error = errorText(raw.error);
  step.source_id = sourceId(raw);

  var handoff = readHandoffEvent(raw, options);
  if (handoff !== null) {
    step.agent = handoff.from;
    step.to = handoff.to;
    step.kind = 'handoff';
    return step;
  }

  var qualifierTarget = null;
  var speaker = firstName(raw, options.agentFields);
  var split = speaker !== null && options.qualifiers ? splitQualifier(speaker) : null;
  if (split !== null) {
    step.agent = split.agent;
    step.qualifier = split.qualifier;
    qualifierTarget = split.target;
  } else {
    step.agent = speaker;
  }

  var addressee = firstName(raw, ADDRESSEE_FIELDS);
  if (addressee === null) addressee = qualifierTarget;
  // Addressing oneself is dropped, with no fall-through to the next field.
  step.to = addressee !== null && addressee === step.agent ? null : addressee;
  return step;
}

// ---------------------------------------------------------------------------------------------
// Flow: edges and handoffs (one pass over the steps that have an agent)
// ---------------------------------------------------------------------------------------------

// Agent-bearing: steps with no agent, and tools answering their caller, are transparent.
function acts(step) {
  return step.agent !== null && step.kind !== 'tool_result';
}

// One pass per thread of work: "previous" is kept per thread (the root thread is the key
// null), so agents running in parallel never hand off to each other. A thread's first
// agent-bearing step is a delegation from its parent's previous step; the parent's first
// agent-bearing step after a child's last one is a return (docs/derivation.md#threads).
function deriveFlow(allSteps) {
  var steps = allSteps.filter(acts);
  var edges = [];
  var edgesByPair = new Map(); // from -> Map(to -> edge); names may hold any character
  var handoffs = [];

  function addEdge(from, to, stepIndex) {
    var byTarget = edgesByPair.get(from);
    if (byTarget === undefined) {
      byTarget = new Map();
      edgesByPair.set(from, byTarget);
    }
    var edge = byTarget.get(to);
    if (edge === undefined) {
      edge = { from: from, to: to, count: 0, steps: [] };
      byTarget.set(to, edge);
      edges.push(edge);
    }
    // A step adds a given edge at most once.
    if (edge.steps.length === 0 || edge.steps[edge.steps.length - 1] !== stepIndex) {
      edge.steps.push(stepIndex);
      edge.count += 1;
    }
  }

  // previous: {agent, addressed, index} of a thread's previous agent-bearing step, or undefined.
  function handOver(previous, agent, stepIndex, kind) {
    if (previous === undefined || previous.agent === agent) return;
    if (!previous.addressed) addEdge(previous.agent, agent, stepIndex);
    handoffs.push({ index: handoffs.length, step: stepIndex, from_step: previous.index,
      from: previous.agent, to: agent, explicit: false, kind: kind });
  }

  var lastOfThread = lastStepOfThreads(steps);
  var previousByThread = new Map();
  var runningChildren = new Map(); // parent thread -> child threads that have started
  function byLastStep(a, b) { return lastOfThread.get(a) - lastOfThread.get(b); }

  for (var i = 0; i < steps.length; i++) {
    var step = steps[i];
    var agent = step.agent;
    var thread = step.thread;
    var children = runningChildren.get(thread);
    if (children !== undefined && children.length) {
      var ended = children.filter(function (child) { return lastOfThread.get(child) < step.index; });
      ended.sort(byLastStep);
      for (var e = 0; e < ended.length; e++) {
        children.splice(children.indexOf(ended[e]), 1);
        handOver(previousByThread.get(ended[e]), agent, step.index, 'return');
      }
    }
    // The thread's previous turn {agent, addressed, index}: one record per thread, overwritten
    // below (it is read only before the thread's next step), so a step needs no object of its own.
    var turn = previousByThread.get(thread);
    if (turn !== undefined) {
      handOver(turn, agent, step.index, 'implicit');
    } else {
      if (thread !== null) {
        if (!runningChildren.has(step.parent_thread)) runningChildren.set(step.parent_thread, []);
        runningChildren.get(step.parent_thread).push(thread);
        handOver(previousByThread.get(step.parent_thread), agent, step.index, 'delegation');
      }
      // Made with a name and a step index (not null placeholders): its fields keep one type.
      previousByThread.set(thread, turn = { agent: agent, addressed: false, index: step.index });
    }
    if (step.to !== null) addEdge(agent, step.to, step.index);
    if (step.kind === 'handoff') {
      handoffs.push({ index: handoffs.length, step: step.index, from_step: step.index, from: agent,
        to: step.to, explicit: true, kind: 'explicit' });
      // Control is with the target: the next step reads as following an unaddressed turn by it.
      turn.agent = step.to;
      turn.addressed = false;
    } else {
      turn.agent = agent;
      turn.addressed = step.to !== null;
    }
    turn.index = step.index;
  }
  return { edges: edges, handoffs: handoffs };
}

// The index of each thread's last step, for the threads other than the root (only they end as
// children). A loop of its own: V8 compiles a long loop with the rest of its function while it
// runs, and code after the loop that has not run yet is then thrown away when reached.
function lastStepOfThreads(steps) {
  var lastOfThread = new Map();
  for (var s = 0; s < steps.length; s++) {
    if (steps[s].thread !== null) lastOfThread.set(steps[s].thread, steps[s].index);
  }
  return lastOfThread;
}

// Every step of a thread gets the thread's parent: the first parent_thread among its steps that
// is a name other than the thread itself (none: the thread was started from the root).
function resolveParents(steps, rawSteps) {
  var parents = new Map();
  for (var i = 0; i < steps.length; i++) {
    var thread = steps[i].thread;
    if (thread === null || parents.has(thread)) continue;
    var declared = ownValue(rawSteps[i], 'parent_thread');
    if (isName(declared) && declared !== thread) parents.set(thread, declared);
  }
  if (parents.size === 0) return;
  for (var k = 0; k < steps.length; k++) {
    if (parents.has(steps[k].thread)) steps[k].parent_thread = parents.get(steps[k].thread);
  }
}

// For each step, the index of the next step of the same thread (the root is one thread), or null.
function nextInThread(steps) {
  var following = new Map();
  var result = new Array(steps.length);
  for (var i = steps.length - 1; i >= 0; i--) {
    var next = following.get(steps[i].thread);
    result[i] = next === undefined ? null : next;
    following.set(steps[i].thread, i);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Tool calls
// ---------------------------------------------------------------------------------------------

var TOOL_NAME_FIELDS = ['name', 'tool'];
var CALL_ID_FIELDS = ['id', 'call_id'];
var ARGUMENT_FIELDS = ['arguments', 'args', 'input', 'tool_input'];
var ACTION_CALL_RE = new RegExp(
  '^[' + WHITESPACE + ']*([A-Za-z_][A-Za-z0-9_.\\-]*)[' + WHITESPACE + ']*[(\\[]([\\s\\S]*)[)\\]][' +
  WHITESPACE + ']*$');
var BARE_TOOL_RE = /^[A-Za-z_][A-Za-z0-9_.\-]*$/;
var RESULT_ID_FIELDS = ['tool_call_id', 'call_id'];
var RESULT_ROLES = ['tool', 'function'];
var RESULT_AGENTS = ['tool', 'function', 'Computer_terminal'];

var INVALID_JSON = {}; // parseStrictJson's answer for text that is not strict JSON
// Only a number with an exponent or of 300 digits can overflow; text without one needs no reviver.
var MAY_OVERFLOW_RE = /[0-9][eE]|[0-9]{300}/;
// JSON whitespace, then { or [: only such text can parse to an object or a list.
var OPENS_CONTAINER_RE = /^[ \t\n\r]*[{[]/;

function rejectOverflow(key, item) {
  if (typeof item === 'number' && !isFinite(item)) throw new SyntaxError('number out of range');
  return item;
}

// Strict JSON parse: the value, or INVALID_JSON (numbers that overflow to +-Infinity make the
// text invalid). No wrapper object: a long run has a call on every few steps.
function parseStrictJson(text) {
  try {
    return MAY_OVERFLOW_RE.test(text) ? JSON.parse(text, rejectOverflow) : JSON.parse(text);
  } catch (error) {
    return INVALID_JSON;
  }
}

// A string argument becomes its parse when that is an object or a list; all else is kept.
function parsedArguments(value) {
  if (typeof value !== 'string' || !OPENS_CONTAINER_RE.test(value)) return value;
  var parsed = parseStrictJson(value);
  return parsed !== INVALID_JSON && parsed !== null && typeof parsed === 'object' ? parsed : value;
}

// A string that looks like JSON ({ or [ first) but does not parse stays, flagged invalid. Such
// text parses to an object or a list when it parses at all, so `kept` (the string still there
// after parsedArguments) means it did not.
function argumentsInvalid(value, kept) {
  if (kept !== value || typeof value !== 'string') return false;
  var first = value.charAt(0);
  return first === '{' || first === '[';
}

// A call's problem path (steps[i].tool_calls[k], steps[i].action, ...), built only for a problem.
function toolCallPath(stepIndex, field, position) {
  return 'steps[' + stepIndex + '].' + field + (position === null ? '' : '[' + position + ']');
}

// Record one call of `step`; problems in the contract's order (name first, then arguments).
function addToolCall(calls, problems, step, field, position, id, tool, rawArguments, error) {
  var args = parsedArguments(rawArguments);
  var invalid = argumentsInvalid(rawArguments, args);
  calls.push({ index: calls.length, step: step.index, id: id, agent: step.agent,
    tool: tool, arguments: args, arguments_invalid: invalid, result_step: null,
    error: error === undefined ? null : error });
  if (tool === null) {
    var unnamed = toolCallPath(step.index, field, position);
    problems.push(problem(unnamed, 'tool_name_missing', unnamed + ' has no tool name (name/tool)'));
  }
  if (invalid) {
    var broken = toolCallPath(step.index, field, position);
    problems.push(problem(broken, 'arguments_invalid', broken + ' arguments are not valid JSON'));
  }
}

// An object call: the OpenAI shape reads name and arguments from `function`; id from the call.
function addObjectCall(calls, problems, step, field, position, call) {
  if (!isPlainObject(call)) {
    addToolCall(calls, problems, step, field, position, null, null, null); // keeps positions stable
    return;
  }
  var fn = ownValue(call, 'function');
  var source = isPlainObject(fn) ? fn : call;
  addToolCall(calls, problems, step, field, position, firstName(call, CALL_ID_FIELDS),
    firstStringName(source, TOOL_NAME_FIELDS), firstPresent(source, ARGUMENT_FIELDS),
    errorText(ownValue(call, 'error')));
}

// `search("x")` or `search[...]` is a call; a bare identifier is a call without arguments.
function addActionString(calls, problems, step, action) {
  var match = ACTION_CALL_RE.exec(action);
  if (match !== null) {
    addToolCall(calls, problems, step, 'action', null, null, match[1], match[2] === '' ? null : match[2]);
  } else if (BARE_TOOL_RE.test(action)) {
    addToolCall(calls, problems, step, 'action', null, null, action, null);
  }
}

// Whether a step has a field a call can be in (Python's tool_calls asks the same first). Asked
// before collectToolCalls, not in it: most steps carry no call, and a function run for every
// step of a long run is compiled by V8 mid-run, which costs more CPU than the run itself saves.
function mayCarryToolCalls(raw) {
  return isPlainObject(raw) && (hasOwn.call(raw, 'tool_calls') || hasOwn.call(raw, 'tool_call') ||
    Array.isArray(ownValue(raw, 'content')) || hasOwn.call(raw, 'action'));
}

// All four shapes, in the contract's order: tool_calls, tool_call, content blocks, action.
function collectToolCalls(raw, step, calls, problems) {
  if (!isPlainObject(raw)) return;
  var toolCalls = ownValue(raw, 'tool_calls');
  if (Array.isArray(toolCalls)) {
    for (var k = 0; k < toolCalls.length; k++) {
      addObjectCall(calls, problems, step, 'tool_calls', k, toolCalls[k]);
    }
  }
  var toolCall = ownValue(raw, 'tool_call');
  if (isPlainObject(toolCall)) addObjectCall(calls, problems, step, 'tool_call', null, toolCall);

  var content = ownValue(raw, 'content');
  if (Array.isArray(content)) {
    for (var c = 0; c < content.length; c++) {
      var block = content[c];
      if (isPlainObject(block) && ownValue(block, 'type') === 'tool_use') {
        addObjectCall(calls, problems, step, 'content', c, block);
      }
    }
  }
  var action = ownValue(raw, 'action');
  if (isPlainObject(action)) addObjectCall(calls, problems, step, 'action', null, action);
  else if (typeof action === 'string') addActionString(calls, problems, step, action);
}

var NO_CALL_IDS = Object.freeze([]); // shared: most steps name no call id

// The call ids a step says it answers: its tool_call_id and call_id, and the tool_use_id of
// each tool_result block in its content (string names only).
function namedCallIds(raw) {
  if (!isPlainObject(raw)) return NO_CALL_IDS;
  var ids = NO_CALL_IDS;
  for (var f = 0; f < RESULT_ID_FIELDS.length; f++) {
    var field = RESULT_ID_FIELDS[f];
    if (hasOwn.call(raw, field) && isName(raw[field])) ids = ids.concat([raw[field]]);
  }
  var content = ownValue(raw, 'content');
  if (Array.isArray(content)) {
    for (var c = 0; c < content.length; c++) {
      var block = content[c];
      if (isPlainObject(block) && ownValue(block, 'type') === 'tool_result') {
        var useId = ownValue(block, 'tool_use_id');
        if (isName(useId)) ids = ids.concat([useId]);
      }
    }
  }
  return ids;
}

// A step that answers the call before it: role tool/function, or a tool-like agent.
function isResultStep(raw, agent) {
  if (!isPlainObject(raw)) return false;
  return RESULT_ROLES.indexOf(ownValue(raw, 'role')) >= 0 || RESULT_AGENTS.indexOf(agent) >= 0;
}

// The first entry of an ascending list greater than `step`, or null (binary search).
function firstAfter(ascending, step) {
  var low = 0;
  var high = ascending.length;
  while (low < high) {
    var middle = (low + high) >>> 1;
    if (ascending[middle] <= step) low = middle + 1;
    else high = middle;
  }
  return low < ascending.length ? ascending[low] : null;
}

// Which steps name which call ids (a loop of its own, as lastStepOfThreads).
function indexNamedCallIds(rawSteps, naming, namingSteps) {
  for (var i = 0; i < rawSteps.length; i++) {
    var ids = namedCallIds(rawSteps[i]);
    for (var k = 0; k < ids.length; k++) {
      if (!naming.has(ids[k])) naming.set(ids[k], []);
      naming.get(ids[k]).push(i);
      namingSteps.add(i);
    }
  }
}

// Each call's result_step: the first later step naming its id, else the next step of its
// thread (`following`) when that is a result step naming no id; and each call's error: its
// result step's, else its own (docs/derivation.md#call-results).
function linkResults(calls, rawSteps, steps, following) {
  if (calls.length === 0) return;
  var naming = new Map(); // call id -> the steps naming it, ascending
  var namingSteps = new Set();
  indexNamedCallIds(rawSteps, naming, namingSteps);
  for (var c = 0; c < calls.length; c++) {
    var call = calls[c];
    var named = call.id !== null && naming.has(call.id) ? naming.get(call.id) : NO_CALL_IDS;
    call.result_step = firstAfter(named, call.step);
    var next = following[call.step];
    if (call.result_step === null && next !== null && !namingSteps.has(next) &&
        isResultStep(rawSteps[next], steps[next].agent)) {
      call.result_step = next;
    }
    if (call.result_step !== null && steps[call.result_step].error !== null) {
      call.error = steps[call.result_step].error;
    }
  }
}

var AGENTLESS_RESULT_AGENTS = [null, 'tool', 'function'];

// A tool result with no agent of its own belongs to its caller (SPEC §3 "Tool results"): a
// turn that is a call's result_step and whose agent is null, tool or function becomes
// kind "tool_result" with the agent of the first call it answers. Steps are settled in index
// order (a call always precedes its result, so the caller's agent is final when read); each
// call then takes its step's final agent.
function attributeResults(steps, calls) {
  var answered = new Map();
  for (var c = 0; c < calls.length; c++) {
    var resultStep = calls[c].result_step;
    if (resultStep !== null && !answered.has(resultStep)) answered.set(resultStep, calls[c]);
  }
  if (answered.size === 0) return;
  for (var i = 0; i < steps.length; i++) {
    var call = answered.get(i);
    var step = steps[i];
    if (call !== undefined && step.kind === 'turn' && AGENTLESS_RESULT_AGENTS.indexOf(step.agent) >= 0) {
      step.agent = steps[call.step].agent;
      step.qualifier = null;
      step.to = null;
      step.kind = 'tool_result';
    }
  }
  for (var k = 0; k < calls.length; k++) calls[k].agent = steps[calls[k].step].agent;
}

// ---------------------------------------------------------------------------------------------
// Times: JSON numbers, or ISO strings parsed by our own calendar arithmetic (Date.parse reads
// zone-less times as local time and Date.UTC maps years 0-99 to 19xx).
// ---------------------------------------------------------------------------------------------

var ISO_RE = new RegExp(
  '^([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2})' +
  '(?::([0-9]{2})(?:\\.([0-9]{1,9}))?)?' +
  '(?:([Zz])|([+-])([0-9]{2}):?([0-9]{2}))?$');
var MAX_SAFE = 9007199254740991; // 2^53 - 1

function isLeapYear(year) {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysInMonth(year, month) {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
function daysFromCivil(year, month, day) {
  var y = month <= 2 ? year - 1 : year;
  var era = Math.floor(y / 400);
  var yearOfEra = y - era * 400;
  var dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  var dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) +
    dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

// Integer microseconds since the epoch of an ISO string, or null when outside the grammar.
function isoMicroseconds(text) {
  var m = ISO_RE.exec(text);
  if (m === null) return null;
  var year = +m[1], month = +m[2], day = +m[3];
  var hour = +m[4], minute = +m[5], second = m[6] === undefined ? 0 : +m[6];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  var offsetSeconds = 0;
  if (m[9] !== undefined) {
    var offsetHours = +m[10], offsetMinutes = +m[11];
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    offsetSeconds = (m[9] === '-' ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
  }
  // Truncate the fraction to microseconds (".1234567" -> 123456).
  var micros = m[7] === undefined ? 0 : +(m[7] + '00000').slice(0, 6);
  var seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second -
    offsetSeconds;
  // |seconds| < 3.2e11, so seconds * 1e6 is a multiple of 64 below 2^59: exact. Adding
  // micros rounds only past 2^53, and rounding is monotone, so the range check stays exact.
  var total = seconds * 1e6 + micros;
  return Math.abs(total) > MAX_SAFE ? null : total;
}

// Seconds of a time (a finite number, or an ISO string), or null when the value is not one.
function timeSeconds(value) {
  if (typeof value === 'number') return isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  var micros = isoMicroseconds(value);
  return micros === null ? null : micros / 1e6;
}

// A time's kind, read from the value timeSeconds accepted: a number is one, a string an ISO time.
function timeKind(value) {
  return typeof value === 'number' ? 'number' : 'iso';
}

// {seconds, kind: "number"|"iso"} or null when the value is not a time.
function parseTime(value) {
  var seconds = timeSeconds(value);
  return seconds === null ? null : { seconds: seconds, kind: timeKind(value) };
}

// ---------------------------------------------------------------------------------------------
// Timed calls and contention
// ---------------------------------------------------------------------------------------------

// A resource is a name, or an integral number within 2^53-1 as its decimal integer string.
function resourceOf(value) {
  if (typeof value === 'number') {
    return Number.isInteger(value) && Math.abs(value) <= MAX_SAFE ? String(value) : null;
  }
  return nameOf(value);
}

var CALL_TOOL_FIELDS = ['tool', 'name'];

// The seconds of the time at `field`, or null after adding its problem to `problems` (no
// {seconds, kind} object per time: a long run has tens of thousands of calls).
function readCallTime(call, field, k, problems) {
  var value = hasOwn.call(call, field) ? call[field] : undefined;
  if (value === undefined || value === null) {
    var missing = callPath(k) + '.' + field;
    return reject(problems, problem(missing, 'time_missing', missing + ' is missing'));
  }
  var time = timeSeconds(value);
  if (time === null) {
    var unparseable = callPath(k) + '.' + field;
    return reject(problems, problem(unparseable, 'time_unparseable',
      unparseable + ' is not a number or an ISO time'));
  }
  return time;
}

// A call's problem path, built only for a problem (a long run has tens of thousands of calls).
function callPath(k) {
  return 'calls[' + k + ']';
}

// A rejected call is null; its one problem goes to `problems` (no wrapper object per call:
// a long run has tens of thousands).
function reject(problems, entry) {
  problems.push(entry);
  return null;
}

// Check one call in the contract's order: the call, or null after adding the problem of the
// first check it fails. listKind is the kind set by the first accepted call (null before it).
function readTimedCall(raw, k, listKind, options, problems) {
  if (!isPlainObject(raw)) {
    return reject(problems, problem(callPath(k), 'call_not_object', callPath(k) + ' is not an object'));
  }
  var agent = firstName(raw, options.callAgentFields);
  if (agent === null) {
    return reject(problems, problem(callPath(k) + '.agent', 'call_agent_missing',
      callPath(k) + ' has no agent name'));
  }
  var resource = resourceOf(ownValue(raw, options.resourceKey));
  if (resource === null) {
    return reject(problems, problem(callPath(k) + '.resource', 'call_resource_missing',
      callPath(k) + ' has no resource'));
  }
  var start = readCallTime(raw, 'start', k, problems);
  if (start === null) return null;
  var end = readCallTime(raw, 'end', k, problems);
  if (end === null) return null;
  var kind = timeKind(raw.start);
  if (kind !== timeKind(raw.end)) {
    return reject(problems, problem(callPath(k), 'time_kind_mixed',
      callPath(k) + ' mixes a number and an ISO time'));
  }
  if (end < start) {
    return reject(problems, problem(callPath(k), 'time_reversed', callPath(k) + ' ends before it starts'));
  }
  if (listKind !== null && kind !== listKind) {
    return reject(problems, problem(callPath(k), 'time_kind_mixed', callPath(k) + ' uses ' + kind +
      ' times but the calls use ' + listKind + ' times'));
  }
  return { index: k, agent: agent, tool: firstName(raw, CALL_TOOL_FIELDS), resource: resource,
    start: start, end: end, kind: kind };
}

function readTimedCalls(record, options) {
  var calls = [];
  var problems = [];
  var value = followPath(record, options.callsPath);
  if (value === undefined || value === null) return { calls: calls, problems: problems };
  if (!Array.isArray(value)) {
    problems.push(problem('calls', 'calls_not_list', 'calls_key does not lead to a list'));
    return { calls: calls, problems: problems };
  }
  var listKind = null;
  for (var k = 0; k < value.length; k++) {
    var call = readTimedCall(value[k], k, listKind, options, problems);
    if (call !== null) {
      calls.push(call);
      if (listKind === null) listKind = call.kind;
    }
  }
  return { calls: calls, problems: problems };
}

// The calls of each resource, in index order; an empty interval overlaps nothing.
function callsByResource(calls) {
  var byResource = new Map();
  for (var i = 0; i < calls.length; i++) {
    var call = calls[i];
    if (!(call.end > call.start)) continue;
    var group = byResource.get(call.resource);
    if (group === undefined) byResource.set(call.resource, group = []);
    group.push(call);
  }
  return byResource;
}

// The regions of one resource's calls, sorted by (start, index): a cluster is contiguous.
function sweepResource(regions, resource, group) {
  var first = 0; // the cluster is group[first..j)
  var clusterEnd = group[0].end;
  for (var j = 1; j < group.length; j++) {
    if (group[j].start < clusterEnd) {
      if (group[j].end > clusterEnd) clusterEnd = group[j].end;
    } else {
      addRegion(regions, resource, group, first, j, clusterEnd);
      first = j;
      clusterEnd = group[j].end;
    }
  }
  addRegion(regions, resource, group, first, group.length, clusterEnd);
}

function byStartThenIndex(a, b) {
  return a.start - b.start || a.index - b.index;
}

// A group is built in index order, so with starts that never go down it is in (start, index)
// order already (calls mostly arrive in start order; a comparator call per call costs, cold).
function startsAscending(group) {
  for (var i = 1; i < group.length; i++) {
    if (group[i].start < group[i - 1].start) return false;
  }
  return true;
}

function ascendingNumbers(a, b) {
  return a - b;
}

// Per resource, a sweep over calls sorted by (start, index) groups the transitively
// overlapping half-open intervals; clusters with two or more agents are regions.
// Each step below is a function of its own: V8 compiles a long loop while it runs, together
// with the rest of its function, so short functions keep those compilations small.
function findContentions(calls) {
  var regions = [];
  callsByResource(calls).forEach(function (group, resource) {
    if (!startsAscending(group)) group.sort(byStartThenIndex);
    sweepResource(regions, resource, group);
  });
  regions.sort(byRegionOrder);
  for (var r = 0; r < regions.length; r++) regions[r].index = r;
  return regions;
}

// Regions by (start, resource by code points, first call).
function byRegionOrder(a, b) {
  return a.start - b.start || compareCodePoints(a.resource, b.resource) || a.calls[0] - b.calls[0];
}

// The cluster group[from..to) is in (start, index) order, so first sightings give the agents'
// order. It is read in place: a long run has tens of thousands of clusters, most of one call,
// which contends with no one.
function addRegion(regions, resource, group, from, to, clusterEnd) {
  if (to - from < 2 || oneAgent(group, from, to)) return;
  var agents = [];
  var seen = new Set();
  var indices = [];
  var sorted = true;
  for (var i = from; i < to; i++) {
    if (indices.length && group[i].index < indices[indices.length - 1]) sorted = false;
    indices.push(group[i].index);
    if (!seen.has(group[i].agent)) {
      seen.add(group[i].agent);
      agents.push(group[i].agent);
    }
  }
  if (!sorted) indices.sort(ascendingNumbers);
  regions.push({ index: 0, resource: resource, start: group[from].start, end: clusterEnd,
    calls: indices, agents: agents });
}

// Whether one agent made every call of the cluster (it contends with no one), read without a copy.
function oneAgent(group, from, to) {
  for (var i = from + 1; i < to; i++) {
    if (group[i].agent !== group[from].agent) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Agents, problems, derive
// ---------------------------------------------------------------------------------------------

// Roster first, then step agents and addressees by first appearance, then call agents.
function listAgents(roster, steps, calls) {
  var agents = [];
  var seen = new Set();
  function add(name) {
    if (name !== null && !seen.has(name)) {
      seen.add(name);
      agents.push(name);
    }
  }
  if (Array.isArray(roster)) {
    for (var r = 0; r < roster.length; r++) add(nameOf(roster[r]));
  }
  for (var i = 0; i < steps.length; i++) {
    if (steps[i].kind === 'tool_result') continue; // the caller is listed; a tool adds no agent
    add(steps[i].agent);
    add(steps[i].to);
  }
  for (var c = 0; c < calls.length; c++) add(calls[c].agent);
  return agents;
}

function problem(path, code, message) {
  return { path: path, code: code, message: message };
}

function derive(record, options) {
  var opts = readOptions(options);
  var problems = [];

  var rawSteps = followPath(record, opts.stepsPath);
  if (!Array.isArray(rawSteps)) {
    problems.push(problem('steps', 'steps_not_list', 'steps_key does not lead to a list of steps'));
    rawSteps = [];
  }

  var steps = [];
  var toolCalls = [];
  for (var i = 0; i < rawSteps.length; i++) {
    var step = readStep(rawSteps[i], i, opts);
    steps.push(step);
    if (mayCarryToolCalls(rawSteps[i])) collectToolCalls(rawSteps[i], step, toolCalls, problems);
  }
  resolveParents(steps, rawSteps);
  linkResults(toolCalls, rawSteps, steps, nextInThread(steps));
  attributeResults(steps, toolCalls);

  var flow = deriveFlow(steps);
  var timed = readTimedCalls(record, opts);
  var derivation = {
    steps: steps,
    agents: listAgents(opts.roster, steps, timed.calls),
    edges: flow.edges,
    handoffs: flow.handoffs,
    tool_calls: toolCalls,
    calls: timed.calls
  };
  computedOnRead(derivation, 'contentions', function () { return findContentions(timed.calls); });
  derivation.problems = problems.concat(timed.problems);
  return derivation;
}

/**
 * object[key] is compute()'s value, computed when first read (then a plain property). The
 * contention sweep costs about as much as the rest of a long record's derivation, and a page
 * whose widgets do not read the regions (the trace view alone) should not pay for it.
 * Enumerable, so JSON and deep equality see the value as if it had been set at once.
 */
function computedOnRead(object, key, compute) {
  function settle(value) {
    Object.defineProperty(object, key, {value: value, enumerable: true, configurable: true, writable: true});
    return value;
  }
  Object.defineProperty(object, key, {enumerable: true, configurable: true,
    get: function () { return settle(compute()); }, set: settle});
}


// ---------------------------------------------------------------------------------------------
// Step identity (potato_multiagent/trace/identity.py; tests/conformance/identity.json)
// ---------------------------------------------------------------------------------------------

var FINGERPRINT_DIGITS = 16;
var MAX_SORTED_DEPTH = 200;
var refCache = typeof WeakMap === 'function' ? new WeakMap() : null;   // derivation -> {refs, where}

// "id:<source id>", else "fp:" + the first 16 hex digits of the SHA-256 of the UTF-8 of
// JSON.stringify([agent, qualifier, text]) (a JSON text with its keys sorted first).
function refOfStep(step) {
  if (step.source_id !== null && step.source_id !== undefined) return 'id:' + step.source_id;
  var hashed = JSON.stringify([step.agent, step.qualifier, fingerprintedText(step.text)]);
  return 'fp:' + sha256Hex(utf8(hashed)).slice(0, FINGERPRINT_DIGITS);
}

function cacheOf(derivation) {
  var cache = refCache ? refCache.get(derivation) : null;
  if (!cache) {
    cache = { refs: [], where: null };
    if (refCache) refCache.set(derivation, cache);
  }
  return cache;
}

/** The identity of step `index` of a derivation; null when it has no such step. */
function stepRef(derivation, index) {
  var steps = derivation.steps;
  if (typeof index !== 'number' || index < 0 || index >= steps.length || Math.floor(index) !== index) return null;
  var cache = cacheOf(derivation);
  if (cache.refs[index] === undefined) cache.refs[index] = refOfStep(steps[index]);
  return cache.refs[index];
}

/** Every step index with identity `ref`, in step order. */
function stepsWithRef(derivation, ref) {
  var cache = cacheOf(derivation);
  if (cache.where === null) {
    cache.where = new Map();
    for (var i = 0; i < derivation.steps.length; i++) {
      var own = stepRef(derivation, i);
      if (!cache.where.has(own)) cache.where.set(own, []);
      cache.where.get(own).push(i);
    }
  }
  return cache.where.get(ref) || [];
}

function fingerprintedText(text) {
  if (typeof text !== 'string' || (text.charAt(0) !== '{' && text.charAt(0) !== '[')) return text;
  var value;
  try { value = JSON.parse(text); } catch (error) { return text; }
  var sorted = sortedKeys(value, 1);
  return sorted === TOO_DEEP_OR_NOT_FINITE ? text : JSON.stringify(sorted);
}

var TOO_DEEP_OR_NOT_FINITE = {};

// The value with every object's keys in code-point order; a number JSON.parse read as infinite
// (Python's strict reading refuses it) or a nesting deeper than MAX_SORTED_DEPTH gives the marker.
function sortedKeys(value, depth) {
  if (typeof value === 'number') return isFinite(value) ? value : TOO_DEEP_OR_NOT_FINITE;
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_SORTED_DEPTH) return TOO_DEEP_OR_NOT_FINITE;
  var i, item;
  if (Array.isArray(value)) {
    var list = [];
    for (i = 0; i < value.length; i++) {
      item = sortedKeys(value[i], depth + 1);
      if (item === TOO_DEEP_OR_NOT_FINITE) return item;
      list.push(item);
    }
    return list;
  }
  var keys = Object.keys(value).sort(compareCodePoints);
  var sorted = Object.create(null);   // "__proto__" stays an own key
  for (i = 0; i < keys.length; i++) {
    item = sortedKeys(value[keys[i]], depth + 1);
    if (item === TOO_DEEP_OR_NOT_FINITE) return item;
    sorted[keys[i]] = item;
  }
  return sorted;
}

// UTF-8 bytes of a well-formed string (JSON.stringify escapes lone surrogates).
function utf8(text) {
  var bytes = [];
  for (var i = 0; i < text.length; i++) {
    var code = text.charCodeAt(i);
    if (code >= 0xD800 && code <= 0xDBFF && i + 1 < text.length) {
      var low = text.charCodeAt(i + 1);
      if (low >= 0xDC00 && low <= 0xDFFF) { code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00); i++; }
    }
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xC0 | (code >> 6), 0x80 | (code & 63));
    else if (code < 0x10000) bytes.push(0xE0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    else bytes.push(0xF0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
  }
  return bytes;
}

var SHA256_K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2];

// SHA-256 (FIPS 180-4) of a byte array, as lower-case hex: synchronous, for the page and node alike.
function sha256Hex(bytes) {
  var h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  var length = bytes.length;
  var padded = bytes.slice();
  padded.push(0x80);
  while (padded.length % 64 !== 56) padded.push(0);
  var bits = length * 8;
  for (var shift = 7; shift >= 0; shift--) padded.push(shift >= 4 ? Math.floor(bits / Math.pow(2, 8 * shift)) & 255 : (bits >>> (8 * shift)) & 255);
  var w = new Array(64);
  for (var block = 0; block < padded.length; block += 64) {
    for (var t = 0; t < 16; t++) {
      var at = block + 4 * t;
      w[t] = (padded[at] << 24) | (padded[at + 1] << 16) | (padded[at + 2] << 8) | padded[at + 3];
    }
    for (t = 16; t < 64; t++) {
      var s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3);
      var s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10);
      w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
    }
    var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (t = 0; t < 64; t++) {
      var t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + SHA256_K[t] + w[t]) | 0;
      var t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
    h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + k) | 0;
  }
  return h.map(function (word) { return ('00000000' + (word >>> 0).toString(16)).slice(-8); }).join('');
}

function rotr(x, n) { return (x >>> n) | (x << (32 - n)); }

const WHITESPACE_CLASS = '[' + WHITESPACE + ']';
export {derive, stepRef, stepsWithRef, isName, nameOf, splitQualifier, textOfValue as textOf, parseTime, compareCodePoints, WHITESPACE_CLASS};
