import { LOG_STREAM_FIELDS as F, logStreamKey } from '@rota/contracts';
import { loadConfig } from '@rota/service-kit';
import { SseParser, type SseEvent } from '@rota/testing';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { ApiKeyService } from '../auth/api-key.service';
import { GatewayConfig } from '../config';
import { compareIds, LogStreamHub } from './log-stream';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/**
 * The fan-out against the machine's Redis: two hubs (two gateway replicas)
 * on one stream, each behind a real HTTP listener, read by a plain SSE
 * parser. Entries are appended the way the session service appends them.
 * Assertions compare event ids with what the stream holds: order and
 * counts, never timings.
 */
describe('LogStreamHub: fan-out over a Redis Stream', () => {
  const prefix = testPrefix('logstream');
  const key = logStreamKey(prefix);
  let redis: Redis;
  const hubs: LogStreamHub[] = [];
  const servers: FastifyInstance[] = [];
  const bases: string[] = [];
  let revoked = false;

  /** The key check of a heartbeat: a principal until the test revokes it. */
  const keys = { verify: () => (revoked ? null : { kind: 'project' }) } as unknown as ApiKeyService;

  async function replica(): Promise<string> {
    const config = loadConfig(GatewayConfig, {
      REDIS_URL,
      ROTA_REDIS_PREFIX: prefix,
      ROTA_SSE_HEARTBEAT_MS: '100',
      LOG_LEVEL: 'silent',
      DATABASE_URL: 'postgresql://unused',
    });
    const hub = new LogStreamHub(redis, config, keys);
    const app = Fastify({ forceCloseConnections: true });
    app.get('/stream', async (req, reply) => {
      const q = req.query as { project?: string; session?: string };
      const last = req.headers['last-event-id'];
      await hub.open(req, reply, {
        projectId: q.project ?? 'p1',
        environment: 'live',
        sessionId: q.session ?? null,
        lastEventId: typeof last === 'string' ? last : null,
      });
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    hubs.push(hub);
    servers.push(app);
    return address;
  }

  /** Appends one entry as the session service does; returns its id. */
  const append = (project: string, session: string, n: number) =>
    redis.xadd(
      key,
      '*',
      F.project,
      project,
      F.environment,
      'live',
      F.session,
      session,
      F.data,
      JSON.stringify({ n, project, session }),
    ) as Promise<string>;

  /** Ids of the stream entries after `after` that a subscriber of `project` (and `session`) should get. */
  async function expected(after: string, project: string, session?: string): Promise<string[]> {
    const all = (await redis.xrange(key, `(${after}`, '+')) as [string, string[]][];
    return all
      .filter(
        ([, raw]) =>
          raw[raw.indexOf(F.project) + 1] === project && (!session || raw[raw.indexOf(F.session) + 1] === session),
      )
      .map(([id]) => id);
  }

  /** An SSE client reading `text/event-stream` line by line. */
  async function subscribe(base: string, q: { project?: string; session?: string; lastEventId?: string } = {}) {
    const url = new URL('/stream', base);
    if (q.project) url.searchParams.set('project', q.project);
    if (q.session) url.searchParams.set('session', q.session);
    const abort = new AbortController();
    const res = await fetch(url, {
      headers: q.lastEventId ? { 'last-event-id': q.lastEventId } : {},
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const events: SseEvent[] = [];
    const comments: string[] = [];
    const parser = new SseParser();
    let ended = false;
    type Chunk = { value?: Uint8Array; done: boolean };
    let pending: Promise<Chunk> | null = null;
    /** Reads until `until` holds, the stream ends, or 10 s pass (a missing event fails the assertion, not the hook). */
    const pump = async (until: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!until() && !ended) {
        pending ??= reader.read().catch(() => ({ value: undefined, done: true }));
        const left = deadline - Date.now();
        if (left <= 0) return;
        let timer: NodeJS.Timeout | undefined;
        const got = await Promise.race([pending, new Promise<null>((r) => (timer = setTimeout(() => r(null), left)))]);
        clearTimeout(timer);
        if (got === null) return;
        pending = null;
        const { value, done } = got;
        if (done) {
          ended = true;
          return;
        }
        const parsed = parser.push(decoder.decode(value, { stream: true }));
        events.push(...parsed.events);
        comments.push(...parsed.comments);
      }
    };
    return {
      status: res.status,
      events,
      comments,
      /** Reads until `n` events arrived (or the stream ended). */
      until: (n: number) => pump(() => events.length >= n),
      ended: async () => {
        await pump(() => false);
        return ended;
      },
      close: () => abort.abort(),
    };
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    bases.push(await replica(), await replica());
  });
  afterAll(async () => {
    for (const hub of hubs) hub.onModuleDestroy();
    for (const s of servers) await s.close();
    await redis.del(key);
    redis.disconnect();
  });

  it('compares stream ids as two numbers', () => {
    expect(compareIds('10-0', '9-5')).toBeGreaterThan(0);
    expect(compareIds('10-2', '10-10')).toBeLessThan(0);
    expect(compareIds('7-3', '7-3')).toBe(0);
  });

  it('hands every entry once, in order, to subscribers resuming while entries keep arriving', async () => {
    const start = await append('p1', 's1', -1);
    // A writer appends for two projects without pause while subscribers open on both replicas.
    let writing = true;
    let n = 0;
    const writer = (async () => {
      while (writing) await append(n % 3 === 0 ? 'p2' : 'p1', n % 2 === 0 ? 's1' : 's2', n++);
    })();
    const subs = [];
    for (let i = 0; i < 6; i++) {
      // Resume from the first entry, or from a later one, while the writer runs.
      const resumeFrom =
        i % 2 === 0 ? start : ((await redis.xrevrange(key, '+', '-', 'COUNT', 1)) as [string, string[]][])[0]![0];
      const q = { project: 'p1', session: i % 3 === 2 ? 's1' : undefined, lastEventId: resumeFrom };
      subs.push({ q, sub: await subscribe(bases[i % 2]!, q) });
    }
    while (n < 300) await new Promise((r) => setTimeout(r, 10));
    writing = false;
    await writer;
    for (const { q, sub } of subs) {
      const want = await expected(q.lastEventId, q.project, q.session);
      expect(want.length).toBeGreaterThan(0);
      await sub.until(want.length);
      expect(sub.status).toBe(200);
      expect(sub.events.map((e) => e.id)).toEqual(want);
      expect(
        sub.events.every((e) => e.event === 'call' && (JSON.parse(e.data) as { project: string }).project === 'p1'),
      ).toBe(true);
    }
    // Nothing more comes: one more entry of p1 is the next event of every p1 subscriber without a session filter.
    const last = await append('p1', 's2', 9999);
    for (const { q, sub } of subs) {
      if (q.session) continue;
      const before = sub.events.length;
      await sub.until(before + 1);
      expect(sub.events.slice(before).map((e) => e.id)).toEqual([last]);
    }
    for (const { sub } of subs) sub.close();
  });

  it('starts at the end of the stream without Last-Event-ID, on either replica', async () => {
    await append('p1', 's1', 1);
    const a = await subscribe(bases[0]!, { project: 'p1' });
    const b = await subscribe(bases[1]!, { project: 'p1' });
    const ids = [await append('p1', 's1', 2), await append('p3', 's1', 3), await append('p1', 's2', 4)];
    await a.until(2);
    await b.until(2);
    expect(a.events.map((e) => e.id)).toEqual([ids[0], ids[2]]);
    expect(b.events.map((e) => e.id)).toEqual([ids[0], ids[2]]);
    a.close();
    b.close();
  });

  it('sends heartbeats, says when a resumed position was trimmed, and ends when the key stops verifying', async () => {
    const old = await append('p1', 's1', 10);
    for (let i = 0; i < 5; i++) await append('p1', 's1', 11 + i);
    await redis.xtrim(key, 'MAXLEN', 2);
    const [oldest] = (await redis.xrange(key, '-', '+', 'COUNT', 1)) as [string, string[]][];
    const s = await subscribe(bases[0]!, { project: 'p1', lastEventId: old });
    await s.until(3);
    expect(s.events[0]).toEqual({
      id: null,
      event: 'gap',
      data: JSON.stringify({ after: old, oldest_id: oldest![0] }),
    });
    expect(s.events.slice(1).map((e) => e.id)).toEqual(await expected(old, 'p1'));
    expect(s.comments).toContain('connected');

    revoked = true;
    try {
      expect(await s.ended()).toBe(true);
      expect(s.comments).toContain('heartbeat');
    } finally {
      revoked = false;
    }
    // No subscriber left on that replica once the stream ended.
    expect(hubs[0]!.size).toBe(0);
  });

  it('drops a subscriber whose stream closes, and reads again for the next one', async () => {
    const s = await subscribe(bases[1]!, { project: 'p1' });
    s.close();
    for (let i = 0; i < 50 && hubs[1]!.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(hubs[1]!.size).toBe(0);
    const again = await subscribe(bases[1]!, { project: 'p1' });
    const id = await append('p1', 's1', 20);
    await again.until(1);
    expect(again.events.map((e) => e.id)).toEqual([id]);
    again.close();
  });
});
