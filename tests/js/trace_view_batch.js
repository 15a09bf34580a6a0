'use strict';
// stdin: a JSON array of {"record", "options"}; stdout: for each, what the trace view's rows show
// ({rows: [rowFacts...], auto: layout}), from derive.js and trace_view.js as the page runs them.
const { derive } = require('../../src/potato_multiagent/web/derive.js');
const trace = require('../../src/potato_multiagent/web/trace_view.js');

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const batch = JSON.parse(input);
  process.stdout.write(JSON.stringify(batch.map((item) => {
    const derivation = derive(item.record, item.options || {});
    const entries = trace.viewModel(derivation, item.record, item.options || {});
    return { rows: entries.map(trace.rowFacts), auto: trace.autoLayout(derivation) };
  })));
});
