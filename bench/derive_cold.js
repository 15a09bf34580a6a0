/*
 * derive.js timed cold, as the page runs it: once per process, before V8 has optimised anything.
 *
 *   node bench/derive_cold.js [--runs N] [--derive PATH]... FILE...
 *
 * Each run is a fresh node process that parses one record (FILE, one JSON record) and times one
 * `derive(record, {})` and then the first read of its `contentions` (CPU time of the process,
 * process.cpuUsage, which other processes on a busy machine do not inflate; and wall-clock time).
 * With several --derive files (default: this checkout's derive.js) the runs alternate between them,
 * the order reversed every round, so a slow minute of a shared machine falls on each side alike.
 * Prints each run as it ends and then, per file and derive.js, the medians and ranges (ms).
 * bench/derive_timing.js measures the same call warm.
 */
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');

const DEFAULT_DERIVE = path.join(__dirname, '..', 'src', 'potato_multiagent', 'web', 'derive.js');
const DEFAULT_RUNS = 9;

function cpuMs(since) {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e3;
}

/** Child: one cold derivation of FILE with the derive.js at DERIVE; prints {derive, contentions, ...}. */
function measureOnce(derivePath, file) {
  const {derive} = require(path.resolve(derivePath));
  const record = JSON.parse(fs.readFileSync(file, 'utf8'));
  let cpu = process.cpuUsage();
  let wall = process.hrtime.bigint();
  const derivation = derive(record, {});
  const result = {derive: cpuMs(cpu), deriveWall: Number(process.hrtime.bigint() - wall) / 1e6};
  cpu = process.cpuUsage();
  wall = process.hrtime.bigint();
  const regions = derivation.contentions.length;
  result.contentions = cpuMs(cpu);
  result.contentionsWall = Number(process.hrtime.bigint() - wall) / 1e6;
  result.total = result.derive + result.contentions;
  result.totalWall = result.deriveWall + result.contentionsWall;
  result.regions = regions;
  process.stdout.write(JSON.stringify(result) + '\n');
}

function median(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function summary(values) {
  return median(values).toFixed(1) + ' (' + Math.min(...values).toFixed(1) + '-' +
    Math.max(...values).toFixed(1) + ')';
}

function parseArguments(argv) {
  const options = {runs: DEFAULT_RUNS, derives: [], files: []};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') options.runs = Number(argv[++i]);
    else if (argv[i] === '--derive') options.derives.push(argv[++i]);
    else options.files.push(argv[i]);
  }
  if (options.derives.length === 0) options.derives.push(DEFAULT_DERIVE);
  if (!(options.runs > 0) || options.files.length === 0) {
    throw new Error('usage: node bench/derive_cold.js [--runs N] [--derive PATH]... FILE...');
  }
  return options;
}

/** Parent: alternate fresh processes over the derive.js files, per record file. */
function main(argv) {
  const options = parseArguments(argv);
  for (const file of options.files) {
    const times = new Map(options.derives.map((derive) => [derive, []]));
    for (let round = 0; round < options.runs; round++) {
      const order = round % 2 ? options.derives.slice().reverse() : options.derives;
      for (const derive of order) {
        const output = childProcess.execFileSync(process.execPath, [__filename, '--child', derive, file],
          {encoding: 'utf8', maxBuffer: 1 << 20});
        const run = JSON.parse(output);
        times.get(derive).push(run);
        process.stdout.write(path.basename(file) + ' ' + derive + ' ' + output);
      }
    }
    for (const [derive, runs] of times) {
      const column = (key) => summary(runs.map((run) => run[key]));
      process.stdout.write(`${path.basename(file)} ${derive}: derive ${column('derive')} + contentions ` +
        `${column('contentions')} = ${column('total')} ms CPU; wall ${column('deriveWall')} + ` +
        `${column('contentionsWall')} = ${column('totalWall')} ms (median (range) of ${runs.length} cold runs)\n`);
    }
  }
}

if (process.argv[2] === '--child') measureOnce(process.argv[3], process.argv[4]);
else main(process.argv.slice(2));
