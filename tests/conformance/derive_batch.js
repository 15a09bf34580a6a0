'use strict';
// stdin: a JSON array of {"record": ..., "options": {...}}; stdout: the JSON array of derivations.
const { derive } = require('../../src/potato_multiagent/web/derive.js');

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const batch = JSON.parse(input);
  process.stdout.write(JSON.stringify(batch.map((item) => derive(item.record, item.options || {}))));
});
