import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import { AppError, type RouteDef } from '@rota/contracts';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import FindMyWay from 'find-my-way';
import { BOARD_PATH } from '../dashboard/queue-board';
import type { RotaRouteConfig } from './route';

type Policy = FastifyHelmetOptions;

/**
 * Every API answer is JSON that no page should embed, frame or read across
 * origins: nothing may load from it, and other origins may not read it.
 */
const API: Policy = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
  },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  crossOriginOpenerPolicy: { policy: 'same-origin' },
  referrerPolicy: { policy: 'no-referrer' },
  frameguard: { action: 'deny' },
};

/**
 * Documents published for anyone (the meta-tool definitions, the OpenAPI
 * document, the liveness probes): other origins may load them, and their
 * handlers send `Access-Control-Allow-Origin: *`.
 */
const PUBLIC_JSON: Policy = { ...API, crossOriginResourcePolicy: { policy: 'cross-origin' } };

/**
 * The API reference page (swagger-ui, served by the gateway itself): its own
 * scripts and styles (swagger-ui sets inline styles), the document from this
 * origin, nothing else.
 */
const DOCS: Policy = {
  ...API,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
    },
  },
};

/**
 * The dashboard pages send their own Content-Security-Policy, which allows
 * exactly their one inline script by its hash (dashboard/pages.ts); the other
 * headers are the API's.
 */
const DASHBOARD_PAGE: Policy = { ...API, contentSecurityPolicy: false };

/**
 * The queue board (`@bull-board`'s bundled UI): its own scripts and styles
 * (inline styles too), fetches to this origin, and its `<base>` element.
 */
const QUEUE_BOARD: Policy = {
  ...API,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'none'"],
    },
  },
};

const PUBLIC_JSON_ROUTES = new Set(['getMetaTools', 'getMetaToolsV1', 'getOpenApi', 'healthLive', 'healthReady']);

/** The header policy of one documented route. */
export function policyOf(route: RouteDef | undefined): Policy {
  if (!route) return API;
  if (PUBLIC_JSON_ROUTES.has(route.operationId)) return PUBLIC_JSON;
  if (route.operationId === 'getDocs') return DOCS;
  const page = (route.responses as Record<string, { contentType?: string } | undefined>)[String(route.success)];
  if (route.tag === 'dashboards' && page?.contentType === 'text/html') return DASHBOARD_PAGE;
  return API;
}

/**
 * Security headers on every answer, refusals included, through
 * `@fastify/helmet`, with the policy of each route chosen from its definition
 * as the route is registered. Call before any route is registered.
 */
export async function installSecurityHeaders(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (route.helmet !== undefined) return;
    route.helmet = route.url.startsWith(BOARD_PATH)
      ? QUEUE_BOARD
      : policyOf((route.config as RotaRouteConfig | undefined)?.rota);
  });
  await fastify.register(helmet, { ...API, global: true } as FastifyHelmetOptions);
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Tells "no such path" from "no such method on this path": a request no
 * route matches, whose path some route serves with another method, is
 * refused 405 `method_not_allowed` with `Allow` listing the methods the path
 * takes. The table is built from the registered routes on the first miss.
 */
export function methodNotAllowed(registered: readonly { method: string; url: string }[]) {
  let router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1> | undefined;
  const build = () => {
    const r = FindMyWay({ maxParamLength: 100 });
    for (const { method, url } of registered) {
      if (!(METHODS as readonly string[]).includes(method)) continue;
      try {
        r.on(method as FindMyWay.HTTPMethod, url, () => undefined);
      } catch {
        // The same route twice (Fastify's own HEAD next to a declared one).
      }
    }
    return r;
  };
  /** The methods the request's path takes, or `undefined` when no route serves it. */
  return (req: FastifyRequest): string[] | undefined => {
    router ??= build();
    const path = req.url.split('?', 1)[0]!;
    const allowed = METHODS.filter((m) => m !== req.method && router!.find(m, path) !== null);
    return allowed.length > 0 ? allowed : undefined;
  };
}

/** The refusal for a method the path does not take. */
export function methodRefusal(method: string, allowed: string[]): AppError {
  return new AppError('method_not_allowed', `${method} is not allowed on this path; it takes ${allowed.join(', ')}.`);
}
