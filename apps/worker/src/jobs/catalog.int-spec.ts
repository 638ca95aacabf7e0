import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import {
  CatalogQueue,
  descriptionHash,
  fromVectorLiteral,
  importAndRequestSweep,
  LOCAL_EMBEDDING_MODEL,
  OPENAI_EMBEDDING_MODEL,
  parseRotaCatalog,
  toolEmbeddingText,
  type RotaCatalogInput,
} from '@rota/catalog';
import { createPrisma, createTestDatabase, seed, type PrismaClient, type TestDatabase } from '@rota/db';
import { loadConfig } from '@rota/service-kit';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import { fakeEmbedding, startFakeOpenAI, type FakeOpenAI, type FakeOpenAIReply } from '@rota/testing';
import { WorkerConfig } from '../config';
import { createJobRunner } from './create-runner';
import type { JobRunner } from './runner';

jest.setTimeout(120_000);

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const ROOT = join(__dirname, '..', '..', '..', '..');

/** `providers` × `perProvider` tools with distinct texts. */
function catalog(providers: number, perProvider: number, edit: Record<string, string> = {}): RotaCatalogInput {
  const verbs = ['Creates', 'Reads', 'Cancels', 'Lists', 'Updates', 'Refunds', 'Sends', 'Tracks'];
  return {
    format: 'rota-catalog',
    version: 1,
    servers: Array.from({ length: providers }, (_, p) => ({
      id: `prov${p}`,
      name: `Provider ${p}`,
      category: 'payments',
      country: 'BR',
      auth_type: 'api_key' as const,
      tools: Array.from({ length: perProvider }, (_, t) => {
        const name = `op_${t}`;
        return {
          name,
          description: edit[`prov${p}/${name}`] ?? `${verbs[t % verbs.length]} record ${t} of provider ${p}.`,
        };
      }),
    })),
  };
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Row {
  id: string;
  text: string;
  hash: string;
  model: string | null;
  vector: string | null;
}

async function rows(prisma: PrismaClient): Promise<Row[]> {
  const raw = await prisma.$queryRawUnsafe<
    Array<{
      id: string;
      tool_name: string;
      description: string;
      pname: string;
      hash: string;
      model: string | null;
      vector: string | null;
    }>
  >(
    `SELECT t.id::text, t.tool_name, t.description, p.name AS pname, t.description_hash AS hash, t.embedding_model AS model, t.embedding::text AS vector
     FROM mcp_tools t JOIN providers p ON p.id = t.server_id ORDER BY t.id`,
  );
  return raw.map((r) => ({
    id: r.id,
    text: toolEmbeddingText({ providerName: r.pname, toolName: r.tool_name, description: r.description }),
    hash: r.hash,
    model: r.model,
    vector: r.vector,
  }));
}

const embeddedWith = async (prisma: PrismaClient, model: string) =>
  (await rows(prisma)).filter((r) => r.model === model && r.vector !== null).length;

/** Every row carries the fake server's vector for its own text and the hash of that text. */
function expectRightVectors(all: Row[], model: string) {
  for (const r of all) {
    expect(r.model).toBe(model);
    expect(r.hash).toBe(descriptionHash(model, r.text));
    const got = fromVectorLiteral(r.vector!);
    const want = fakeEmbedding(r.text);
    let maxDiff = 0;
    for (let i = 0; i < want.length; i++) maxDiff = Math.max(maxDiff, Math.abs(got[i]! - want[i]!));
    expect(maxDiff).toBeLessThan(1e-6);
  }
}

describe('catalog re-embedding worker', () => {
  let db: TestDatabase;
  let fake: FakeOpenAI;
  let prefix: string;
  let queue: CatalogQueue;
  const runners: Array<{ runner: JobRunner; prisma: PrismaClient }> = [];

  function config(extra: Record<string, string> = {}) {
    return loadConfig(WorkerConfig, {
      DATABASE_URL: db.url,
      REDIS_URL,
      ROTA_REDIS_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: fake.baseURL,
      ROTA_EMBED_SWEEP_EVERY_MS: '600000',
      ROTA_EMBED_BACKOFF_MS: '50',
      ROTA_EMBED_TIMEOUT_MS: '400',
      // `ROTA_EMBEDDER=local` means the fast hashing model here, not the default sentence encoder.
      ROTA_LOCAL_EMBEDDER: 'hash',
      ...extra,
    });
  }

  async function startRunner(extra: Record<string, string> = {}) {
    const prisma = createPrisma(db.url, { poolMax: 4 });
    const runner = createJobRunner(config(extra), prisma);
    await runner.start();
    runners.push({ runner, prisma });
    return runner;
  }

  async function stopRunners() {
    for (const { runner, prisma } of runners.splice(0)) {
      await runner.close();
      await prisma.$disconnect();
    }
  }

  async function importDoc(doc: RotaCatalogInput, model = OPENAI_EMBEDDING_MODEL) {
    return importAndRequestSweep(db.prisma, queue, parseRotaCatalog(doc), { model });
  }

  beforeEach(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    fake = await startFakeOpenAI();
    prefix = testPrefix('worker');
    queue = CatalogQueue.connect(REDIS_URL, prefix);
  });

  afterEach(async () => {
    await stopRunners();
    await queue.queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await fake.close();
    await db.drop();
  });

  it('re-embeds exactly the one edited row, in exactly one API call', async () => {
    await importDoc(catalog(2, 20));
    await startRunner();
    await waitFor('first embedding', async () => (await embeddedWith(db.prisma, OPENAI_EMBEDDING_MODEL)) === 40);
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.inputs).toHaveLength(40);

    const callsBefore = fake.calls.length;
    const before = await rows(db.prisma);
    const res = await importDoc(catalog(2, 20, { 'prov1/op_7': 'Sends record seven by e-mail.' }));
    expect(res.result.reembed).toBe(1);
    await waitFor('re-embedding', async () => (await embeddedWith(db.prisma, OPENAI_EMBEDDING_MODEL)) === 40);
    // Let any extra job finish before counting calls.
    await waitFor('idle queue', async () => {
      const c = await queue.counts();
      return c.waiting + c.active + c.delayed === 0;
    });
    const newCalls = fake.calls.slice(callsBefore);
    expect(newCalls).toHaveLength(1);
    expect(newCalls[0]!.inputs).toEqual(['Provider 1: op 7. Sends record seven by e-mail.']);
    const after = await rows(db.prisma);
    const changed = after.filter((r, i) => r.vector !== before[i]!.vector);
    expect(changed).toHaveLength(1);
    expectRightVectors(after, OPENAI_EMBEDDING_MODEL);
  });

  it('two workers on one sweep embed every row exactly once', async () => {
    await importDoc(catalog(4, 50));
    // Small batches, so both workers get several jobs. The suite's 400 ms call deadline is for
    // the retry cases; here a call that outlived it on a busy machine would be sent again and
    // counted twice by the fake, which is a retry, not a row embedded by both workers.
    const two = { ROTA_EMBED_BATCH_SIZE: '7', ROTA_EMBED_TIMEOUT_MS: '10000' };
    await Promise.all([startRunner(two), startRunner(two)]);
    await waitFor('all rows', async () => (await embeddedWith(db.prisma, OPENAI_EMBEDDING_MODEL)) === 200);
    await waitFor('idle queue', async () => {
      const c = await queue.counts();
      return c.waiting + c.active + c.delayed === 0;
    });
    const inputs = fake.calls.flatMap((c) => c.inputs);
    expect(inputs).toHaveLength(200);
    expect(new Set(inputs).size).toBe(200);
    expect(fake.calls.every((c) => c.inputs.length <= 7)).toBe(true);
    expectRightVectors(await rows(db.prisma), OPENAI_EMBEDDING_MODEL);
  });

  it('retries through 500, 429, a hanging server and a short answer without writing anything until a good answer', async () => {
    await importDoc(catalog(1, 12));
    const script: FakeOpenAIReply[] = [
      { kind: 'error', status: 500 },
      { kind: 'error', status: 429 },
      { kind: 'hang' },
      // One vector for twelve inputs: must be refused as a whole.
      {
        kind: 'raw',
        status: 200,
        body: JSON.stringify({
          object: 'list',
          data: [{ object: 'embedding', index: 0, embedding: Array.from(fakeEmbedding('x')) }],
          model: 'm',
          usage: { prompt_tokens: 1, total_tokens: 1 },
        }),
      },
    ];
    let seenDuringFailures = 0;
    fake.setBehaviour((call) => {
      const n = fake.calls.indexOf(call);
      return script[n] ?? { kind: 'ok' };
    });
    await startRunner();
    for (let attempt = 1; attempt <= script.length; attempt++) {
      await waitFor(`attempt ${attempt}`, async () => fake.calls.length >= attempt);
      seenDuringFailures = Math.max(seenDuringFailures, await embeddedWith(db.prisma, OPENAI_EMBEDDING_MODEL));
    }
    await waitFor('recovery', async () => (await embeddedWith(db.prisma, OPENAI_EMBEDDING_MODEL)) === 12);
    expect(seenDuringFailures).toBe(0);
    expect(fake.calls.length).toBe(script.length + 1);
    for (const c of fake.calls) expect(c.inputs).toHaveLength(12);
    expectRightVectors(await rows(db.prisma), OPENAI_EMBEDDING_MODEL);
  });

  it('a model switch re-embeds everything with the new model', async () => {
    await importDoc(catalog(3, 10), LOCAL_EMBEDDING_MODEL);
    await startRunner({ ROTA_EMBEDDER: 'local' });
    await waitFor('local vectors', async () => (await embeddedWith(db.prisma, LOCAL_EMBEDDING_MODEL)) === 30);
    expect(fake.calls).toHaveLength(0);
    await stopRunners();

    // Same rows, same texts: an import under the new model sees nothing to change.
    const again = await importDoc(catalog(3, 10), OPENAI_EMBEDDING_MODEL);
    expect(again.result.reembed).toBe(0);

    await startRunner({ ROTA_EMBED_BATCH_SIZE: '16' });
    await waitFor('openai vectors', async () => (await embeddedWith(db.prisma, OPENAI_EMBEDDING_MODEL)) === 30);
    expect(await embeddedWith(db.prisma, LOCAL_EMBEDDING_MODEL)).toBe(0);
    // Two batches (16 + 14), run in either order, each row once.
    expect(fake.calls.map((c) => c.inputs.length).sort()).toEqual([14, 16]);
    expect(new Set(fake.calls.flatMap((c) => c.inputs)).size).toBe(30);
    expectRightVectors(await rows(db.prisma), OPENAI_EMBEDDING_MODEL);
  });

  it('when most rows are stale, drops the HNSW index, embeds, and builds the index once at the end', async () => {
    const indexed = async () =>
      (
        await db.prisma.$queryRawUnsafe<unknown[]>(
          `SELECT 1 FROM pg_indexes WHERE indexname = 'mcp_tools_embedding_hnsw_idx'`,
        )
      ).length === 1;
    expect(await indexed()).toBe(true);
    await importDoc(catalog(2, 20));
    fake.setBehaviour({ kind: 'hang' });
    await startRunner({ ROTA_EMBED_REINDEX_THRESHOLD: '10', ROTA_EMBED_BATCH_SIZE: '8' });
    await waitFor('the first embedding call', async () => fake.calls.length >= 1);
    expect(await indexed()).toBe(false);
    fake.setBehaviour({ kind: 'ok' });
    await waitFor(
      'all rows and the index',
      async () => (await embeddedWith(db.prisma, OPENAI_EMBEDDING_MODEL)) === 40 && (await indexed()),
    );
    expectRightVectors(await rows(db.prisma), OPENAI_EMBEDDING_MODEL);
    // Each row was sent once more than the hung first batch.
    expect(new Set(fake.calls.flatMap((c) => c.inputs)).size).toBe(40);
  });

  describe('a worker killed mid-batch', () => {
    let child: ChildProcess | undefined;
    afterEach(() => {
      child?.kill('SIGKILL');
    });

    it('leaves nothing half-written, and after a restart every row ends embedded with the right hash', async () => {
      await importDoc(catalog(2, 15));
      fake.setBehaviour({ kind: 'hang' });
      child = spawn(process.execPath, [join(ROOT, 'apps/worker/dist/main.js')], {
        env: {
          ...process.env,
          DATABASE_URL: db.url,
          REDIS_URL,
          ROTA_REDIS_PREFIX: prefix,
          LOG_LEVEL: 'silent',
          OPENAI_API_KEY: 'sk-test',
          OPENAI_BASE_URL: fake.baseURL,
          ROTA_EMBED_TIMEOUT_MS: '60000',
          ROTA_WORKER_LOCK_MS: '1000',
          ROTA_EMBED_SWEEP_EVERY_MS: '600000',
        },
        stdio: 'ignore',
      });
      // The child has sent its batch and is waiting for the answer, rows locked.
      await waitFor('the child to call the embeddings server', async () => fake.calls.length >= 1);
      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
      expect(await embeddedWith(db.prisma, OPENAI_EMBEDDING_MODEL)).toBe(0);

      fake.setBehaviour({ kind: 'ok' });
      await startRunner({ ROTA_WORKER_LOCK_MS: '1000' });
      await waitFor(
        'recovery after restart',
        async () => (await embeddedWith(db.prisma, OPENAI_EMBEDDING_MODEL)) === 30,
      );
      expectRightVectors(await rows(db.prisma), OPENAI_EMBEDDING_MODEL);
    });
  });
});
