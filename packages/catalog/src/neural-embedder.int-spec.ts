import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DIST = join(__dirname, '..', 'dist', 'index.js');

/**
 * Loaded with `node --require` before anything else: every way out of the
 * process to the network throws, and each attempt is recorded, so the model
 * must come from the installed package alone.
 */
const NO_NETWORK = `
  const attempts = (globalThis.__networkAttempts = []);
  const refuse = (what) => (...args) => { attempts.push(what + ' ' + String(args[0]).slice(0, 80)); throw new Error('network is off in this test: ' + what); };
  globalThis.fetch = refuse('fetch');
  for (const m of ['http', 'https']) { const mod = require(m); mod.request = refuse(m + '.request'); mod.get = refuse(m + '.get'); }
  const net = require('net'); net.connect = refuse('net.connect'); net.createConnection = refuse('net.createConnection');
  const tls = require('tls'); tls.connect = refuse('tls.connect');
  const dns = require('dns'); dns.lookup = refuse('dns.lookup');
`;

// Runs the built package in a child process (`pnpm build` first), since the
// pool's threads need the compiled thread script.
(existsSync(DIST) ? describe : describe.skip)('NeuralEmbedder (built package, network off)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rota-neural-'));
    writeFileSync(join(dir, 'no-network.js'), NO_NETWORK);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads the model from the installed package and embeds on the calling thread and on worker threads', () => {
    const script = `
      const c = require(${JSON.stringify(DIST)});
      const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
      (async () => {
        const texts = ['refund a payment to the customer', 'give the buyer their money back', 'tomorrow\\'s weather forecast for Lisbon'];
        const direct = await new c.NeuralEmbedder().embed(texts);
        const pool = new c.LocalEmbedderPool({ kind: 'neural', threads: 2 });
        // Concurrent calls arrive in one turn of the event loop and are batched together.
        const pooled = (await Promise.all(texts.map((t) => pool.embed([t])))).flat();
        await pool.close();
        process.stdout.write(JSON.stringify({
          model: pool.model,
          length: direct[0].length,
          norm: dot(direct[0], direct[0]),
          tail: direct[0].slice(512).every((x) => x === 0),
          related: dot(direct[0], direct[1]),
          unrelated: dot(direct[0], direct[2]),
          poolMatches: pooled.every((v, i) => v.every((x, j) => Math.abs(x - direct[i][j]) < 1e-5)),
          attempts: globalThis.__networkAttempts,
        }));
      })().catch((e) => { process.stdout.write(JSON.stringify({ error: e.message, attempts: globalThis.__networkAttempts })); });`;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--require', join(dir, 'no-network.js'), '-e', script], {
        encoding: 'utf8',
        timeout: 120_000,
      }),
    );
    expect(out.error).toBeUndefined();
    expect(out.attempts).toEqual([]);
    expect(out.model).toBe('use-lite-512-v1');
    expect(out.length).toBe(1536);
    expect(out.norm).toBeCloseTo(1, 5);
    // 512 dimensions of the model, then zeros, which leave cosines unchanged.
    expect(out.tail).toBe(true);
    expect(out.related).toBeGreaterThan(out.unrelated);
    expect(out.poolMatches).toBe(true);
  }, 120_000);

  it('runs the hybrid model (encoder and hashing in one vector) on threads, its cosine the blend of both, a Portuguese request brought into English', () => {
    const script = `
      const c = require(${JSON.stringify(DIST)});
      const lx = require(require.resolve('@rota/lexicon', { paths: [${JSON.stringify(join(__dirname, '..'))}] }));
      const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
      (async () => {
        const texts = ['Mercado Pago: refund payment. Refund an approved payment in full or in part.', 'estornar um pagamento aprovado', "tomorrow's weather forecast for Lisbon"];
        const direct = await new c.HybridEmbedder().embed(texts);
        const pool = new c.LocalEmbedderPool({ kind: 'hybrid', threads: 2 });
        const pooled = (await Promise.all(texts.map((t) => pool.embed([t])))).flat();
        await pool.close();
        // Each half on its own: the encoder over the English rendering, the hashing model into 1,024 buckets.
        const neural = await new c.NeuralEmbedder().embed(texts.map((t) => lx.renderQuery(t).englishText));
        const hash = await new c.LocalEmbedder(1024).embed(texts);
        const expected = c.NEURAL_SHARE * dot(neural[0], neural[1]) + (1 - c.NEURAL_SHARE) * dot(hash[0], hash[1]);
        process.stdout.write(JSON.stringify({
          model: pool.model,
          length: direct[0].length,
          norm: dot(direct[0], direct[0]),
          blend: dot(direct[0], direct[1]),
          expected,
          unrelated: dot(direct[2], direct[1]),
          poolMatches: pooled.every((v, i) => v.every((x, j) => Math.abs(x - direct[i][j]) < 1e-5)),
          attempts: globalThis.__networkAttempts,
        }));
      })().catch((e) => { process.stdout.write(JSON.stringify({ error: e.message, attempts: globalThis.__networkAttempts })); });`;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--require', join(dir, 'no-network.js'), '-e', script], {
        encoding: 'utf8',
        timeout: 120_000,
      }),
    );
    expect(out.error).toBeUndefined();
    expect(out.attempts).toEqual([]);
    expect(out.model).toBe('use-lite-512+rota-hash-1024-v1');
    expect(out.length).toBe(1536);
    expect(out.norm).toBeCloseTo(1, 5);
    expect(out.blend).toBeCloseTo(out.expected, 5);
    // The Portuguese request is nearer the English refund tool than the weather text is.
    expect(out.blend).toBeGreaterThan(out.unrelated + 0.1);
    expect(out.poolMatches).toBe(true);
  }, 120_000);

  it("is a real guard: initModel without the package's modelSource tries the network and is stopped", () => {
    const script = `
      const { initModel } = require(require.resolve('@energetic-ai/embeddings', { paths: [${JSON.stringify(join(__dirname, '..'))}] }));
      const report = (loaded, e) => { process.stdout.write(JSON.stringify({ loaded, error: e && e.message, attempts: globalThis.__networkAttempts })); process.exit(0); };
      process.on('uncaughtException', (e) => report(false, e));
      initModel().then(() => report(true), (e) => report(false, e));`;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--require', join(dir, 'no-network.js'), '-e', script], {
        encoding: 'utf8',
        timeout: 60_000,
      }),
    );
    expect(out.loaded).toBe(false);
    expect(out.error).toMatch(/network is off/);
    expect(out.attempts.length).toBeGreaterThan(0);
  }, 60_000);
});
