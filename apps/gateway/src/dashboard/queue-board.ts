import { createHash, timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BoardAdapter } from '@bull-board/fastify';
import { AppError, QUEUES } from '@rota/contracts';
import { Queue } from 'bullmq';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Redis from 'ioredis';
import type { GatewayConfig } from '../config';
import { toHttpError } from '../http/errors';
import { DASHBOARD_COOKIE, readCookie, type DashboardSessions } from './dashboard-sessions';

/** Where the board is mounted; `/dashboard/queues` (the counts page) links to it. */
export const BOARD_PATH = '/dashboard/queues/board';
/** The header every board action carries, holding the session's CSRF token. */
export const CSRF_HEADER = 'x-rota-csrf';

/** Job names nobody may retry or remove from the board: the reconciliation of calls whose outcome is unknown. */
const READ_ONLY_JOBS: ReadonlySet<string> = new Set(['calls.reconcile']);
/** Queues shown read-only: every job there is scheduled maintenance (sessions.expire, calls.reconcile…). */
const READ_ONLY_QUEUES: ReadonlySet<string> = new Set<string>([QUEUES.maintenance]);

/**
 * The board's write actions that Rota allows, relative to the mount point;
 * every other write (adding jobs, editing data, emptying or obliterating a
 * queue, scheduler changes, pause) is refused. Bulk actions only touch
 * failed or completed jobs, so the next run of a job scheduler (a delayed
 * job) is never removed.
 */
const ACTIONS: { pattern: RegExp; job: boolean }[] = [
  { pattern: /^\/api\/queues\/([^/]+)\/retry\/failed$/, job: false },
  { pattern: /^\/api\/queues\/([^/]+)\/clean\/(?:failed|completed)$/, job: false },
  { pattern: /^\/api\/queues\/([^/]+)\/([^/]+)\/retry(?:\/failed)?$/, job: true },
  { pattern: /^\/api\/queues\/([^/]+)\/([^/]+)\/clean$/, job: true },
];

/**
 * The CSRF token of a dashboard session: derived from the cookie's token,
 * which pages cannot read (HttpOnly) and other sites cannot send
 * (SameSite=Strict), so a forged request can carry neither.
 */
export function csrfToken(sessionToken: string): string {
  return createHash('sha256').update(`rota-dashboard-csrf:${sessionToken}`).digest('base64url');
}

function csrfOk(req: FastifyRequest): boolean {
  const session = readCookie(req.headers.cookie, DASHBOARD_COOKIE);
  const given = req.headers[CSRF_HEADER];
  if (!session || typeof given !== 'string') return false;
  const want = Buffer.from(csrfToken(session));
  const got = Buffer.from(given);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** Sets the CSRF header on every write the board's own scripts send (they use XMLHttpRequest). */
const CSRF_SCRIPT = `(() => {
  const token = document.querySelector('meta[name="rota-csrf"]').content;
  const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, ...rest) { this.rotaMethod = String(method).toUpperCase(); return open.call(this, method, ...rest); };
  XMLHttpRequest.prototype.send = function (...args) { if (this.rotaMethod !== 'GET' && this.rotaMethod !== 'HEAD') this.setRequestHeader('${CSRF_HEADER}', token); return send.apply(this, args); };
})();
`;

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function refuse(req: FastifyRequest, reply: FastifyReply, err: AppError) {
  const { status, body } = toHttpError(err, String(req.id));
  return reply.code(status).header('cache-control', 'no-store').send(body);
}

/**
 * The queue board (`@bull-board`): job lists with detail, retry and clean,
 * for operator keys holding `admin`, through the dashboard cookie. Writes
 * carry the session's CSRF token and pass an allow-list; the maintenance
 * queue, `calls.reconcile` jobs and the jobs of job schedulers stay
 * read-only. Returns a function that closes its Redis connection.
 */
export async function installQueueBoard(
  fastify: FastifyInstance,
  config: GatewayConfig,
  sessions: DashboardSessions,
): Promise<() => Promise<void>> {
  const connection = new Redis(config.REDIS_URL, {
    maxRetriesPerRequest: 1,
    lazyConnect: true,
    enableOfflineQueue: false,
  });
  connection.on('error', () => undefined);
  await connection.connect().catch(() => undefined);
  const prefix = `${config.ROTA_REDIS_PREFIX}:bull`;
  const queues = new Map<string, Queue>(
    Object.values(QUEUES).map((name) => [name, new Queue(name, { connection, prefix })]),
  );
  const board = new BoardAdapter();
  board.setBasePath(BOARD_PATH);
  createBullBoard({
    queues: [...queues.values()].map((q) => new BullMQAdapter(q, { readOnlyMode: READ_ONLY_QUEUES.has(q.name) })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'Rota queues', hideRedisDetails: true } },
  });

  await fastify.register(
    async (scope) => {
      scope.addHook('onRequest', async (req, reply) => {
        const principal = await sessions.principal(req.headers.cookie).catch(() => null);
        const path = req.url.slice(BOARD_PATH.length).split('?', 1)[0]!;
        if (!principal) {
          // A page load without a session goes to the sign-in form of the counts page.
          if (req.method === 'GET' && !path.startsWith('/api/') && !path.startsWith('/static/'))
            return reply.redirect('/dashboard/queues', 303);
          return refuse(req, reply, new AppError('unauthorized', 'unauthorized'));
        }
        if (principal.kind !== 'operator' || !principal.scopes.includes('admin')) {
          return refuse(
            req,
            reply,
            new AppError('forbidden', 'The queue dashboard is for operator keys with the admin scope.'),
          );
        }
        if (req.method === 'GET' || req.method === 'HEAD') return;
        if (!csrfOk(req))
          return refuse(
            req,
            reply,
            new AppError('forbidden', `Board actions need the session's CSRF token in ${CSRF_HEADER}.`),
          );
        const action = ACTIONS.map((a) => ({ a, m: a.pattern.exec(path) })).find((x) => x.m);
        if (!action)
          return refuse(req, reply, new AppError('forbidden', 'This board action is not available on Rota queues.'));
        const queue = queues.get(decode(action.m![1]!));
        if (!queue) return refuse(req, reply, new AppError('not_found', 'No such queue.'));
        if (READ_ONLY_QUEUES.has(queue.name))
          return refuse(req, reply, new AppError('forbidden', `The ${queue.name} queue is read-only here.`));
        if (action.a.job) {
          const job = await queue.getJob(decode(action.m![2]!));
          if (job && (READ_ONLY_JOBS.has(job.name) || job.repeatJobKey)) {
            return refuse(
              req,
              reply,
              new AppError('forbidden', 'Jobs of job schedulers and call reconciliation are read-only here.'),
            );
          }
        }
      });
      // The board's page, with the CSRF token and the script that sends it.
      scope.addHook('onSend', async (req, reply, payload) => {
        if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('text/html'))
          return payload;
        const session = readCookie(req.headers.cookie, DASHBOARD_COOKIE) ?? '';
        void reply.header('cache-control', 'no-store');
        return payload.replace(
          '</head>',
          `<meta name="rota-csrf" content="${csrfToken(session)}"><script src="${BOARD_PATH}/rota-csrf.js"></script></head>`,
        );
      });
      scope.get('/rota-csrf.js', (_req, reply) =>
        reply.header('content-type', 'text/javascript; charset=utf-8').send(CSRF_SCRIPT),
      );
      await scope.register(board.registerPlugin());
    },
    { prefix: BOARD_PATH },
  );
  return async () => {
    for (const q of queues.values()) await q.close().catch(() => undefined);
    connection.disconnect();
  };
}
