/*
 * derive.js timing under node: `node bench/derive_timing.js RUNS WARMUP FILE...`.
 *
 * Each FILE holds one record. derive.js is first run a few dozen times on the first (smallest)
 * record so that V8 has optimised it; then, one file at a time (only one record in memory, as in
 * a page), the record is parsed, derived WARMUP times unmeasured and RUNS times measured. Stdout
 * is {file: {cpu: [ms, ...], wall: [ms, ...]}}: CPU time of the process (process.cpuUsage, which
 * other processes on a busy machine do not inflate) and wall-clock time. Timings exclude
 * JSON.parse: widget.js parses the page's record once and derives from the object.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const {derive} = require(path.join(__dirname, '..', 'src', 'potato_multiagent', 'web', 'derive.js'));

const JIT_WARMUP_RUNS = 30;

function readRecord(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** The whole derivation: derive.js computes the contention regions when first read, Python at once. */
function deriveAll(record) {
  return derive(record, {}).contentions;
}

function timeDerive(record, runs, warmup) {
  for (let i = 0; i < warmup; i++) { deriveAll(record); }
  const times = {cpu: [], wall: []};
  for (let i = 0; i < runs; i++) {
    const cpu = process.cpuUsage();
    const wall = process.hrtime.bigint();
    deriveAll(record);
    const wallNs = process.hrtime.bigint() - wall;
    const used = process.cpuUsage(cpu);
    times.cpu.push((used.user + used.system) / 1e3);
    times.wall.push(Number(wallNs) / 1e6);
  }
  return times;
}

function main(argv) {
  const [runs, warmup, ...files] = argv;
  timeDerive(readRecord(files[0]), 0, JIT_WARMUP_RUNS);
  const result = {};
  for (const file of files) {
    result[file] = timeDerive(readRecord(file), Number(runs), Number(warmup));
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}

main(process.argv.slice(2));
