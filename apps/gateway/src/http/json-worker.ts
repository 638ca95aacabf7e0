import { Worker } from 'node:worker_threads';
import { AppError } from '@rota/contracts';
import type { FastifyInstance } from 'fastify';
import type { RotaRouteConfig } from './route';
import { bodyProblem, MAX_BODY_DEPTH, type BodyProblem } from './body-guard';

/**
 * A JSON body checked on a worker thread. The calling thread keeps the text
 * and never builds the object: a route that only forwards the document (the
 * catalog import) sends the text on, and the service that uses it parses it.
 *
 * Parsing 15 MiB of small JSON values and walking them with the body guard
 * holds a thread for seconds; on the gateway's main thread that stalls every
 * other request, health checks included.
 */
export class OffThreadJson {
  constructor(
    /** The body as received (UTF-8 decoded). */
    readonly text: string,
    /**
     * The top-level members whose values are short scalars, so a handler
     * can recognise a small body shape (`{"url": …}`) without parsing.
     */
    readonly scalars: Record<string, string | number | boolean | null>,
    /** Every top-level member name. */
    readonly keys: string[],
  ) {}
}

type Verdict =
  | { id: number; ok: true; scalars: Record<string, string | number | boolean | null>; keys: string[] }
  | { id: number; ok: false; reason: 'syntax' | 'not_object' | BodyProblem };

/** The worker's whole program: no imports of ours, so it runs the same from sources and from dist. */
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const MAX_BODY_DEPTH = ${MAX_BODY_DEPTH};
const bodyProblem = ${bodyProblem.toString()};
const SHORT = 4096;
parentPort.on('message', ({ id, text }) => {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return parentPort.postMessage({ id, ok: false, reason: 'syntax' });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return parentPort.postMessage({ id, ok: false, reason: 'not_object' });
  const problem = bodyProblem(value, MAX_BODY_DEPTH);
  if (problem) return parentPort.postMessage({ id, ok: false, reason: problem });
  const scalars = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v.length <= SHORT)) scalars[k] = v;
  }
  parentPort.postMessage({ id, ok: true, scalars, keys: Object.keys(value) });
});
`;

/**
 * One worker thread, started on first use and shared by every request of
 * the process; bodies queue in it one after another, which bounds the CPU
 * large imports take to one core whatever arrives at once. An idle worker
 * does not keep the process alive.
 */
export class JsonWorker {
  private worker?: Worker;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: Verdict) => void; reject: (e: Error) => void }>();

  /** Parses and checks `text` on the worker; refuses what the main-thread parser and body guard would refuse. */
  async parse(text: string): Promise<OffThreadJson> {
    const verdict = await this.send(text);
    if (verdict.ok) return new OffThreadJson(text, verdict.scalars, verdict.keys);
    switch (verdict.reason) {
      case 'syntax':
        throw new AppError('invalid_body', 'The request body is not valid JSON.');
      case 'not_object':
        throw new AppError('invalid_body', 'The request body is invalid.', {
          issues: [{ path: [], message: 'Expected a JSON object.' }],
        });
      case 'nul':
        throw new AppError('invalid_body', 'Text in the request body must not contain the NUL character (U+0000).');
      case 'lone_surrogate':
        throw new AppError(
          'invalid_body',
          'Text in the request body must be valid Unicode: it contains a lone UTF-16 surrogate (U+D800 to U+DFFF).',
        );
      case 'too_deep':
        throw new AppError(
          'invalid_body',
          `The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep.`,
        );
    }
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private send(text: string): Promise<Verdict> {
    const w = this.start();
    const id = ++this.seq;
    return new Promise<Verdict>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) w.ref();
      w.postMessage({ id, text });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(THREAD_SOURCE, { eval: true });
    w.on('message', (v: Verdict) => {
      const p = this.pending.get(v.id);
      if (!p) return;
      this.pending.delete(v.id);
      if (this.pending.size === 0) w.unref();
      p.resolve(v);
    });
    // A dead worker fails what it held; the next body starts a fresh one.
    const fail = (err: Error) => {
      if (this.worker === w) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the JSON worker exited with code ${code}`)));
    w.unref();
    this.worker = w;
    return w;
  }
}

/**
 * Replaces Fastify's JSON parser with one that sends the bodies of routes
 * defined with `bodyOffThread` to `worker`, and parses every other body as
 * before (same parser, same poisoning checks). Route body limits still apply:
 * Fastify reads the body before calling any parser.
 */
export function installOffThreadJson(fastify: FastifyInstance, worker: JsonWorker): void {
  const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig;
  const usual = fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (!(req.routeOptions.config as RotaRouteConfig | undefined)?.rota?.bodyOffThread)
      return usual(req, body as string, done);
    worker.parse(body as string).then(
      (parsed) => done(null, parsed),
      (err: Error) => done(err, undefined),
    );
  });
  fastify.addHook('onClose', (_instance, next) => {
    worker.close().then(() => next(), next);
  });
}
