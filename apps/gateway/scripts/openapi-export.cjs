// Writes the gateway's OpenAPI document to a file (default: stdout), from
// the built gateway, without starting anything. A running gateway names its
// own public URL in `servers`; the exported copy names ROTA_PUBLIC_URL, or the
// quick start's default address.
const { writeFileSync } = require('node:fs');
const { buildOpenApi } = require('../dist/openapi/document');

const json = JSON.stringify(buildOpenApi(process.env.ROTA_PUBLIC_URL || 'http://127.0.0.1:3000'), null, 2) + '\n';
const out = process.argv[2];
if (out) writeFileSync(out, json);
else process.stdout.write(json);
