// Writes the gateway's OpenAPI document to a file (default: stdout), from
// the built gateway, without starting anything.
const { writeFileSync } = require('node:fs');
const { buildOpenApi } = require('../dist/openapi/document');

const json = JSON.stringify(buildOpenApi(), null, 2) + '\n';
const out = process.argv[2];
if (out) writeFileSync(out, json);
else process.stdout.write(json);
