import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/decorators';
import { buildOpenApi } from './document';

const DOC = JSON.stringify(buildOpenApi());

// A self-contained page (no CDN: Rota must work offline) listing every
// operation with its scope and schemas, read from /openapi.json.
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Rota API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#222}
h2{margin-top:2rem}code,pre{background:#f4f4f4;border-radius:4px}pre{padding:.75rem;overflow:auto;font-size:12px}
.m{display:inline-block;min-width:4.5em;font-weight:700;text-transform:uppercase}.s{color:#666;font-size:13px}</style></head>
<body><h1>Rota API</h1><p>The machine-readable document is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p><div id="ops">Loading…</div>
<script>
fetch('/openapi.json').then(r=>r.json()).then(doc=>{const el=document.getElementById('ops');el.innerHTML='';
for(const [path,ops] of Object.entries(doc.paths)){for(const [m,op] of Object.entries(ops)){
const d=document.createElement('section');const scope=op['x-required-scope']?'scope '+op['x-required-scope']:'no credential';
d.innerHTML='<h2><span class="m">'+m+'</span> <code>'+path+'</code></h2><p>'+op.summary+' <span class="s">('+scope+')</span></p>';
if(op.requestBody){const p=document.createElement('pre');p.textContent='request: '+JSON.stringify(op.requestBody.content['application/json'].schema,null,2);d.appendChild(p)}
const codes=document.createElement('p');codes.className='s';codes.textContent='responses: '+Object.keys(op.responses).join(', ');d.appendChild(codes);el.appendChild(d)}}});
</script></body></html>`;

@Controller()
@Public()
export class OpenApiController {
  @Get('openapi.json')
  @Header('content-type', 'application/json; charset=utf-8')
  @Header('access-control-allow-origin', '*')
  document() {
    return DOC;
  }

  @Get('docs')
  @Header('content-type', 'text/html; charset=utf-8')
  docs() {
    return PAGE;
  }
}
