import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Controller, Req, Res } from '@nestjs/common';
import { DOCS_ASSETS, ROUTES } from '@rota/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Input, Route, type In } from '../http/route';
import { publicBaseUrl } from '../sessions/tenant';
import { buildOpenApi } from './document';

// One rendering per public base URL (in practice one per process).
const DOCS = new Map<string, string>();
function documentFor(serverUrl: string): string {
  let doc = DOCS.get(serverUrl);
  if (!doc) DOCS.set(serverUrl, (doc = JSON.stringify(buildOpenApi(serverUrl))));
  return doc;
}

// The reference page is swagger-ui, served from the npm package by the
// gateway itself: no CDN, so it works offline.
const SWAGGER_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Rota API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><noscript>The machine-readable document is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</noscript>
<div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs.js"></script>
</body></html>`;
const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true, tryItOutEnabled: false });\n`;

const TYPES: Record<(typeof DOCS_ASSETS)[number], string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'docs.js': 'text/javascript; charset=utf-8',
};
const ASSETS = new Map<string, Buffer>(
  DOCS_ASSETS.map((f) => [f, f === 'docs.js' ? Buffer.from(INIT) : readFileSync(join(SWAGGER_DIR, f))]),
);

@Controller()
export class OpenApiController {
  @Route(ROUTES.getOpenApi)
  getOpenApi(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('access-control-allow-origin', '*')
      .send(documentFor(publicBaseUrl(req)));
  }

  @Route(ROUTES.getDocs)
  getDocs(@Res() reply: FastifyReply) {
    return reply.header('content-type', 'text/html; charset=utf-8').send(PAGE);
  }

  @Route(ROUTES.getDocsAsset)
  getDocsAsset(@Input() { params }: In<typeof ROUTES.getDocsAsset>, @Res() reply: FastifyReply) {
    return reply
      .header('content-type', TYPES[params.file])
      .header('cache-control', 'public, max-age=86400')
      .send(ASSETS.get(params.file));
  }
}
