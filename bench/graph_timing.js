/*
 * The interaction graph's layout timing under node: `node bench/graph_timing.js [--layout FILE]
 * [--warm RUNS] RECORD`.
 *
 * RECORD is one instance record (JSON, e.g. bench/synth.py `scale_record(5000)`); it is derived
 * with web/derive.js, then types/agent_interaction_graph/graph_layout.js (or FILE, to time another version side by side)
 * lays out its agents and edges with the default measure. The first call is "cold", as on a page
 * (V8 has not compiled or optimised anything yet); then RUNS warm calls. Stdout is one JSON line,
 * {cold: {cpu, main, wall}, warm: {cpu: [...], main: [...], wall: [...]}} in ms: CPU time of the
 * process (process.cpuUsage, which other processes on a busy machine do not inflate), of its main
 * thread alone, and wall-clock time.
 * Cold figures mean one fresh `node` process per measurement: run it many times and take medians
 * (docs/performance.md, *Measuring*).
 */
'use strict';

const fs = require('fs');
const path = require('path');
const WEB = path.join(__dirname, '..', 'src', 'potato_multiagent', 'web');
const {derive} = require(path.join(WEB, 'derive.js'));

function options(argv) {
  const parsed = {layout: path.join(WEB, '..', 'types', 'agent_interaction_graph', 'graph_layout.js'), warm: 0, record: null};
  for (let k = 0; k < argv.length; k++) {
    if (argv[k] === '--layout') { parsed.layout = path.resolve(argv[++k]); } else if (argv[k] === '--warm') {
      parsed.warm = Number(argv[++k]);
    } else { parsed.record = argv[k]; }
  }
  if (!parsed.record) { throw new Error('usage: node bench/graph_timing.js [--layout FILE] [--warm RUNS] RECORD'); }
  return parsed;
}

/**
 * CPU time of this process's main thread in ns, from Linux's schedstat (null elsewhere): the part
 * a page's critical path pays. The process figure adds V8's background threads (its optimising
 * compiler and GC helpers), which on a page run beside the main thread.
 */
function mainThreadNs() {
  try {
    return Number(fs.readFileSync('/proc/self/task/' + process.pid + '/schedstat', 'utf8').split(' ')[0]);
  } catch (error) {
    return null;
  }
}

function timed(run) {
  const main = mainThreadNs();
  const cpu = process.cpuUsage();
  const wall = process.hrtime.bigint();
  run();
  const wallNs = process.hrtime.bigint() - wall;
  const used = process.cpuUsage(cpu);
  const mainAfter = mainThreadNs();
  return {cpu: (used.user + used.system) / 1e3, main: main === null ? null : (mainAfter - main) / 1e6,
    wall: Number(wallNs) / 1e6};
}

function main(argv) {
  const settings = options(argv);
  const {layoutGraph} = require(settings.layout);
  const derivation = derive(JSON.parse(fs.readFileSync(settings.record, 'utf8')), {});
  const layOut = () => layoutGraph(derivation.agents, derivation.edges);
  const result = {cold: timed(layOut), warm: {cpu: [], main: [], wall: []}};
  for (let k = 0; k < settings.warm; k++) {
    const one = timed(layOut);
    Object.keys(result.warm).forEach((name) => result.warm[name].push(one[name]));
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}

main(process.argv.slice(2));
