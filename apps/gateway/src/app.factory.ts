import { randomUUID } from 'node:crypto';
import { type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@rota/contracts';
import { createLogger, httpMetrics, PinoNestLogger, requestContext, startTracing } from '@rota/service-kit';
import { GatewayModule } from './app.module';
import type { GatewayConfig } from './config';
import { EnvelopeFilter } from './http/envelope.filter';
import { toHttpError } from './http/errors';
import { installOffThreadJson, JsonWorker } from './http/json-worker';
import { DashboardSessions } from './dashboard/dashboard-sessions';
import { BOARD_PATH, installQueueBoard } from './dashboard/queue-board';
import type { RotaRouteConfig } from './http/route';
import { redactUrl } from './http/redact';
import { installSecurityHeaders, methodNotAllowed, methodRefusal } from './http/security-headers';
import { publicBaseUrl, setPublicUrl } from './sessions/tenant';

/** Largest JSON body accepted on ordinary routes. */
export const BODY_LIMIT = 1024 * 1024;

/** Routes registered per app instance (read by the OpenAPI coverage test). */
export const REGISTERED_ROUTES = new WeakMap<object, { method: string; url: string }[]>();

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The server span of one request and the context its work runs in. */
const TRACE = Symbol('rota.trace');
type Traced = FastifyRequest & { [TRACE]?: { span: Span; ctx: Context; ended: boolean } };

/**
 * Starts the request's server span, continuing the caller's `traceparent`
 * when it sends one. Named after the route template, never the URL, whose
 * query may hold credentials.
 */
function startRequestSpan(req: Traced): Context {
  const parent = req.headers.traceparent ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT;
  const route = req.routeOptions.url;
  const span = trace
    .getTracer('rota.gateway')
    .startSpan(route ? `${req.method} ${route}` : req.method, { kind: SpanKind.SERVER }, parent);
  if (span.isRecording()) {
    span.setAttributes({
      'http.request.method': req.method,
      'http.route': route ?? 'unmatched',
      'rota.request_id': String(req.id),
    });
  }
  const ctx = trace.setSpan(parent, span);
  req[TRACE] = { span, ctx, ended: false };
  return ctx;
}

function endRequestSpan(req: Traced, status: number | undefined) {
  const t = req[TRACE];
  if (!t || t.ended) return;
  t.ended = true;
  if (t.span.isRecording()) {
    if (status === undefined) t.span.setAttribute('error.type', 'aborted');
    else t.span.setAttribute('http.response.status_code', status);
    // A 4xx is the caller's mistake, not the server failing.
    if (status === undefined || status >= 500) t.span.setStatus({ code: SpanStatusCode.ERROR });
  }
  t.span.end();
}

/**
 * Answers what Node's HTTP parser refuses before any route exists (an
 * oversized header section, a malformed request line, a client too slow to
 * send its headers), in the standard envelope like every other refusal.
 */
function clientErrorHandler(err: Error & { code?: string }, socket: import('node:stream').Duplex) {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = randomUUID();
  let status: number;
  let body: Record<string, unknown>;
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    ({ status, body } = toHttpError(
      new AppError('headers_too_large', 'The request headers are larger than the gateway accepts.'),
      requestId,
    ));
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // The client never finished sending its request: no body, as Node does.
    if (socket.writable) socket.write('HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    socket.destroy(err);
    return;
  } else {
    ({ status, body } = toHttpError(new AppError('invalid_body', 'The request is not valid HTTP.'), requestId));
  }
  if (socket.writable) {
    const text = JSON.stringify(body);
    const reason = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(err);
}

/**
 * Builds the HTTP gateway: Fastify under Nest, request ids, the envelope for
 * every refusal, auth on every non-public route.
 */
export async function createGateway(
  config: GatewayConfig,
  extra: Type<unknown>[] = [],
): Promise<NestFastifyApplication> {
  const log = createLogger('gateway', config.LOG_LEVEL);
  const tracing = startTracing('gateway', config, log);
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    // The client's address (failed-authentication back-off, rate limits) comes from
    // X-Forwarded-For only when the connection is from a proxy listed in ROTA_TRUSTED_PROXIES.
    trustProxy: config.ROTA_TRUSTED_PROXIES.length > 0 ? config.ROTA_TRUSTED_PROXIES : false,
    // Echo a caller's X-Request-Id when it is sane, else mint one.
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    logger: false,
    // Shutdown refusals go through the onRequest hook below, in the envelope.
    return503OnClosing: false,
    clientErrorHandler,
    // The router's own refusals, before any route runs (a path parameter
    // over 100 characters, a path that does not decode), in the envelope too.
    frameworkErrors: (err: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply) => {
      const refusal =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new AppError('uri_too_long', 'A path parameter is longer than the gateway reads (100 characters).')
          : new AppError('invalid_query', 'The URL is not valid.');
      const { status, body } = toHttpError(refusal, String(req.id));
      void reply.code(status).header('x-request-id', req.id).send(body);
    },
  });
  const fastify = adapter.getInstance();
  setPublicUrl(fastify.server, config.ROTA_PUBLIC_URL || undefined);
  // Every route Fastify registers, so a test can hold the OpenAPI document to it.
  const registered: { method: string; url: string }[] = [];
  fastify.addHook('onRoute', (route) => {
    for (const m of ([] as string[]).concat(route.method)) registered.push({ method: m, url: route.url });
  });
  // The queue board's routes come from @bull-board; they authenticate
  // themselves (dashboard cookie, operator key, CSRF token on writes).
  fastify.addHook('onRoute', (route) => {
    if (route.url.startsWith(BOARD_PATH))
      route.config = { ...(route.config as object | undefined), rotaAuth: null } satisfies RotaRouteConfig;
  });
  // Before anything can answer, so refusals carry the headers too.
  await installSecurityHeaders(fastify);
  const allowedMethods = methodNotAllowed(registered);
  // Set when shutdown begins: requests still arriving on open connections
  // are refused with 503 `unavailable` (safe to repeat on another replica).
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (req, reply, done) => {
    void reply.header('x-request-id', req.id);
    const traced = startRequestSpan(req);
    if (closing) {
      void reply.header('connection', 'close');
      return done(new AppError('unavailable', 'The gateway is shutting down; send the request again.'));
    }
    // Everything this request runs from here on (guards, handlers, service
    // calls, logs) sees its id. Cheaper than a Nest interceptor, which wraps
    // every handler in extra async resources.
    requestContext.enterWith({ requestId: String(req.id), publicUrl: publicBaseUrl(req) });
    // Many clients send `Content-Type: application/json` on every request;
    // a GET or DELETE without a body must not fail as malformed JSON.
    if (
      (req.method === 'DELETE' || req.method === 'GET') &&
      !Number(req.headers['content-length'] ?? 0) &&
      !req.headers['transfer-encoding']
    ) {
      delete req.headers['content-type'];
    }
    // A known path asked with a method it does not take: 405 with `Allow`,
    // before authentication (it says nothing a route list would not).
    const allowed = req.is404 ? allowedMethods(req) : undefined;
    if (allowed) {
      void reply.header('allow', allowed.join(', '));
      return done(methodRefusal(req.method, allowed));
    }
    // The rest of the hooks (authentication) run inside the request's span.
    context.with(traced, done);
  });
  // Reading the body leaves the span's context behind (its chunks arrive on
  // the socket's own), so validation and the handler enter it again. This
  // hook is registered before the pipeline's, so that one runs inside too.
  fastify.addHook('preValidation', (req: Traced, _reply, done) => {
    const t = req[TRACE];
    if (t) context.with(t.ctx, done);
    else done();
  });
  fastify.addHook('onRequestAbort', (req, done) => {
    endRequestSpan(req, undefined);
    done();
  });
  fastify.addHook('onClose', (_instance, next) => {
    tracing.close().then(
      () => next(),
      () => next(),
    );
  });
  // Only JSON bodies are accepted: without this, Fastify's built-in text
  // parser would hand a text/plain body to validation (a 400) instead of
  // refusing the media type (a 415).
  fastify.removeContentTypeParser('text/plain');
  // Large catalog imports are parsed on a worker thread (http/json-worker.ts).
  installOffThreadJson(fastify, new JsonWorker());
  // Authentication, the URL and body guards and validation against the
  // route definitions are installed by HttpPipeline (http/pipeline.ts).
  // One access line per request; headers are not logged, and credentials in
  // the URL are masked, so keys never are.
  const httpSeconds = httpMetrics.seconds();
  const httpTotal = httpMetrics.total();
  fastify.addHook('onResponse', (req, reply, done) => {
    endRequestSpan(req, reply.statusCode);
    // Route templates only, so label values stay a bounded set.
    const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    httpSeconds.observe(labels, reply.elapsedTime / 1000);
    httpTotal.inc(labels);
    log.info(
      {
        request_id: req.id,
        method: req.method,
        url: redactUrl(req.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
    done();
  });
  // Fastify's own refusals (bad JSON, too large, wrong media type) reach
  // Nest's error handler too, so EnvelopeFilter renders every error.
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forConfig(config, extra), adapter, {
    logger: new PinoNestLogger(log),
    // Fastify's own JSON parser (same limits and poisoning checks) instead of
    // Nest's wrapper around it, which rebuilds the parser on every request.
    // Only JSON bodies are accepted; anything else is a 415.
    bodyParser: false,
  });
  app.useGlobalFilters(new EnvelopeFilter(log));
  // The queue board (its own Fastify plugin) signs in through the dashboard cookie.
  const closeBoard = await installQueueBoard(fastify, config, app.get(DashboardSessions));
  fastify.addHook('onClose', (_instance, next) => {
    closeBoard().then(
      () => next(),
      () => next(),
    );
  });
  REGISTERED_ROUTES.set(app, registered);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  return app;
}
