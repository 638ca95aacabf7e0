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

  it('batches concurrent queries into few inferences, and takes a query abandoned while queued out before it reaches a thread', () => {
    const script = `
      const c = require(${JSON.stringify(DIST)});
      (async () => {
        const pool = new c.LocalEmbedderPool({ threads: 2, batchWindowMs: 20, batchMax: 8 });
        const texts = Array.from({ length: 16 }, (_, i) => 'cobrar o pedido ' + i + ' por Pix');
        const ac = new AbortController();
        const abandoned = pool.embed(['never encoded'], { signal: ac.signal }).then(() => 'resolved', (e) => e.name);
        ac.abort();
        const started = [];
        const vectors = await Promise.all(texts.map((t, i) => pool.embed([t], { onStart: () => started.push(i) }).then(([v]) => v)));
        const stats = pool.stats();
        const direct = await new c.LocalEmbedder().embed(texts);
        const same = vectors.every((v, i) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).equals(Buffer.from(direct[i].buffer, direct[i].byteOffset, direct[i].byteLength)));
        const preAborted = await pool.embed(['x'], { signal: AbortSignal.abort() }).then(() => 'resolved', (e) => e.name);
        await pool.close();
        process.stdout.write(JSON.stringify({ abandoned: await abandoned, preAborted, stats, same, started: started.length }));
      })();`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
    expect(out.abandoned).toBe('EmbeddingNotStartedError');
    expect(out.preAborted).toBe('EmbeddingNotStartedError');
    expect(out.same).toBe(true);
    expect(out.started).toBe(16);
    // Sixteen queries in one turn, eight to an inference: two inferences, and the abandoned one in none.
    expect(out.stats).toMatchObject({ batches: 2, batchedTexts: 16, abandoned: 1, queued: 0, busyThreads: 0 });
  });
});
