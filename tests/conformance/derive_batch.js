'use strict';
// stdin: a JSON array of {"record": ..., "options": {...}}; stdout: the JSON array of derivations,
// each with the identity of every step beside (step_refs).
const { derive, stepRef } = require('../../src/potato_multiagent/web/derive.js');

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const batch = JSON.parse(input);
  process.stdout.write(JSON.stringify(batch.map((item) => {
    const derivation = derive(item.record, item.options || {});
    return { ...derivation, step_refs: derivation.steps.map((step, index) => stepRef(derivation, index)) };
  })));
});
