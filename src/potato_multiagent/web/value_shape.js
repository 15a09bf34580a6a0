/*
 * value_shape.js: checks a stored value against its scheme's JSON Schema.
 *
 * The shape of every stored value is defined once, by the scheme's pydantic model in Python. The
 * server passes that model's JSON Schema to the widget (config.value_schema), and this file checks
 * values against it, so the browser never keeps a second, hand-written copy of a value's shape.
 * It understands the subset of JSON Schema that pydantic emits for our models: type, properties,
 * required, additionalProperties, items, anyOf, enum, const, minimum/maximum (and exclusive),
 * minLength/maxLength, minItems/maxItems, uniqueItems, and $ref into $defs.
 *
 *     checkShape({"decisive_step": -1}, schema)
 *       -> ["decisive_step: should be at least 0, got -1", "reason: is missing", ...]
 */
import * as problemWords from './words.js';

/** A problem in the words of types/_base/words.py (generated into words.js): one wording. */
function say(key, params) {
  return problemWords.words[key].replace(/\{(\w+)\}/g, function (whole, name) {
    return hasOwn(params, name) ? String(params[name]) : whole;
  });
}

var MAX_PROBLEMS = 20;   // a value broken everywhere is reported in brief

function hasOwn(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }

/** The JSON type of a parsed value, as JSON Schema names it ("integer" is also a "number"). */
function jsonType(value) {
  if (value === null) { return 'null'; }
  if (Array.isArray(value)) { return 'array'; }
  if (typeof value === 'number') { return Number.isInteger(value) ? 'integer' : 'number'; }
  return typeof value;   // string, boolean, object
}

function typeMatches(value, wanted) {
  var actual = jsonType(value);
  return actual === wanted || (wanted === 'number' && actual === 'integer');
}

/** A short description of a value for messages: never the whole of a 100 KB string. */
function describe(value) {
  var type = jsonType(value);
  if (type === 'string') { return value.length > problemWords.longText ? 'a text of ' + value.length + ' characters' : JSON.stringify(value); }
  if (type === 'array') { return 'a list'; }
  if (type === 'object') { return 'an object'; }
  return String(value);
}

var ARTICLE = problemWords.typeWords;

function expectation(schema, root) {
  schema = resolve(schema, root);
  if (schema.anyOf) { return schema.anyOf.map(function (s) { return expectation(s, root); }).join(' or '); }
  if (schema.enum) { return 'one of ' + schema.enum.map(function (v) { return JSON.stringify(v); }).join(', '); }
  if (hasOwn(schema, 'const')) { return JSON.stringify(schema['const']); }
  var types = Array.isArray(schema.type) ? schema.type : (schema.type ? [schema.type] : []);
  var words = types.map(function (t) { return ARTICLE[t] || t; }).join(' or ') || 'a value';
  if (typeof schema.minimum === 'number') { words += ' \u2265 ' + schema.minimum; }
  if (typeof schema.maximum === 'number') { words += ' \u2264 ' + schema.maximum; }
  return words;
}

function resolve(schema, root) {
  var seen = 0;
  while (schema && typeof schema.$ref === 'string' && seen++ < 32) {
    var match = /^#\/\$defs\/(.+)$/.exec(schema.$ref);
    schema = match && root.$defs && hasOwn(root.$defs, match[1]) ? root.$defs[match[1]] : {};
  }
  return schema || {};
}

function field(path) { return path === '' ? 'value' : path; }

function childPath(path, key) {
  return typeof key === 'number' ? path + '[' + key + ']' : (path === '' ? key : path + '.' + key);
}

/** Problems of `value` at `path`, appended to `out`. */
function check(value, schema, root, path, out) {
  schema = resolve(schema, root);
  if (out.length >= MAX_PROBLEMS) { return; }
  if (schema.anyOf) {
    var fits = schema.anyOf.some(function (option) {
      var trial = [];
      check(value, option, root, path, trial);
      return trial.length === 0;
    });
    if (!fits) { out.push(say('expected', {field: field(path), expected: expectation(schema, root), got: describe(value)})); }
    return;
  }
  if (schema.type) {
    var types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some(function (t) { return typeMatches(value, t); })) {
      out.push(say('expected', {field: field(path), expected: expectation(schema, root), got: describe(value)}));
      return;
    }
  }
  if (schema.enum && !schema.enum.some(function (v) { return v === value; })) {
    out.push(say('expected', {field: field(path), expected: expectation(schema, root), got: describe(value)}));
    return;
  }
  if (hasOwn(schema, 'const') && schema['const'] !== value) {
    out.push(say('expected', {field: field(path), expected: JSON.stringify(schema['const']), got: describe(value)}));
    return;
  }
  checkBounds(value, schema, path, out);
  if (jsonType(value) === 'array') { checkArray(value, schema, root, path, out); }
  if (jsonType(value) === 'object') { checkObject(value, schema, root, path, out); }
}

function checkBounds(value, schema, path, out) {
  var name = field(path);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) { out.push(say('at_least', {field: name, limit: schema.minimum, got: value})); }
    if (typeof schema.maximum === 'number' && value > schema.maximum) { out.push(say('at_most', {field: name, limit: schema.maximum, got: value})); }
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) { out.push(say('more_than', {field: name, limit: schema.exclusiveMinimum, got: value})); }
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) { out.push(say('less_than', {field: name, limit: schema.exclusiveMaximum, got: value})); }
  }
  if (typeof value === 'string') {
    var length = Array.from(value).length;   // code points, as pydantic counts
    if (typeof schema.minLength === 'number' && length < schema.minLength) { out.push(say('min_characters', {field: name, limit: schema.minLength})); }
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) { out.push(say('max_characters', {field: name, limit: schema.maxLength})); }
  }
}

function checkArray(value, schema, root, path, out) {
  var name = field(path);
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) { out.push(say('min_items', {field: name, limit: schema.minItems})); }
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) { out.push(say('max_items', {field: name, limit: schema.maxItems})); }
  if (schema.uniqueItems) {
    var seen = Object.create(null);
    value.forEach(function (item, index) {
      var key = JSON.stringify(item);
      if (seen[key]) { out.push(say('repeat', {field: childPath(path, index)})); }
      seen[key] = true;
    });
  }
  if (schema.items && typeof schema.items === 'object') {
    value.forEach(function (item, index) { check(item, schema.items, root, childPath(path, index), out); });
  }
}

function checkObject(value, schema, root, path, out) {
  var properties = schema.properties || {};
  (schema.required || []).forEach(function (key) {
    if (!hasOwn(value, key)) { out.push(say('missing', {field: childPath(path, key)})); }
  });
  Object.keys(value).forEach(function (key) {
    if (hasOwn(properties, key)) {
      check(value[key], properties[key], root, childPath(path, key), out);
    } else if (schema.additionalProperties === false) {
      out.push(say('not_a_field', {field: childPath(path, key)}));
    } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      check(value[key], schema.additionalProperties, root, childPath(path, key), out);
    }
  });
}

/** Every problem of a parsed value against a JSON Schema, as "field: what is wrong" lines. */
function checkShape(value, schema) {
  var out = [];
  if (schema && typeof schema === 'object') { check(value, schema, schema, '', out); }
  return out;
}

export {checkShape};
