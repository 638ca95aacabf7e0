import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const DIST = join(__dirname, '..', 'dist', 'index.js');

// Worker threads need the compiled thread script, so this runs the built
// package in a child process (`pnpm build` first; scripts/test.sh does).
(existsSync(DIST) ? describe : describe.skip)('LocalEmbedderPool (built package)', () => {
  it('gives the same bytes on its threads as LocalEmbedder on the calling thread', () => {
    const script = `
      const c = require(${JSON.stringify(DIST)});
      const crypto = require('crypto');
      const texts = Array.from({ length: 1200 }, (_, i) => 'Provider ' + (i % 7) + ': tool ' + i + '. Cria cobrança Pix número ' + i + ' e envia por WhatsApp.');
      const digest = (vs) => crypto.createHash('sha256').update(Buffer.concat(vs.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)))).digest('hex');
      (async () => {
        const pool = new c.LocalEmbedderPool(2);
        const a = await pool.embed(texts);
        const params = await pool.embedParams(texts.slice(0, 50));
        const threads = pool.threads;
        await pool.close();
        const b = await new c.LocalEmbedder().embed(texts);
        const sameParams = params.every((p, i) => p === c.toVectorParam(b[i]));
        process.stdout.write(JSON.stringify({ threads, a: digest(a), b: digest(b), n: a.length, sameParams }));
      })();`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
    expect(out.n).toBe(1200);
    expect(out.threads).toBe(2);
    expect(out.a).toBe(out.b);
    expect(out.sameParams).toBe(true);
  });
});
