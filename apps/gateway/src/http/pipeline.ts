import { AppError, USER_KEY_ROUTES, zodIssues, type RouteDef, type Scope } from '@rota/contracts';
import { requestContext } from '@rota/service-kit';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { ApiKeyService } from '../auth/api-key.service';
import type { AuthFailureLimiter } from '../auth/auth-failures';
import type { Principal } from '../auth/principal';
import { bodyProblem, MAX_BODY_DEPTH, urlContainsNul } from './body-guard';
import type { RotaRouteConfig } from './route';

type RotaRequest = FastifyRequest & { principal?: Principal; rotaInput?: unknown };

const configOf = (req: FastifyRequest) => req.routeOptions.config as RotaRouteConfig | undefined;

/**
 * Installs the request pipeline every route goes through, in this order:
 *
 * 1. `onRoute` (at boot): a route must carry a definition (`@Route`) or an
 *    explicit `@Public()` / `@RequireScope()`; otherwise the gateway refuses
 *    to start, so no route can be mounted without deciding its
 *    authentication. A definition's body limit becomes the route's limit.
 * 2. `onRequest`: a path no route matches is answered 404 at once; then
 *    authentication and the scope check, before a single byte
 *    of the body is read, so an unknown caller gets its 401 whatever it
 *    sends and cannot make the gateway parse anything. An address over the
 *    failed-authentication limit gets 429, except that a well-formed key
 *    from it is still looked up (within a global budget of failed lookups)
 *    and served when valid.
 * 3. `preValidation` (after Fastify parsed the JSON): the body guard (NUL,
 *    nesting), then the definition's body, query and path parameters.
 */
export function installPipeline(fastify: FastifyInstance, keys: ApiKeyService, failures: AuthFailureLimiter): void {
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const config = route.config as RotaRouteConfig | undefined;
    const methods = ([] as string[]).concat(route.method);
    if (methods.every((m) => m === 'HEAD' || m === 'OPTIONS')) return;
    if (!config || (config.rota === undefined && config.rotaAuth === undefined)) {
      throw new Error(
        `Route ${methods.join(',')} ${route.url} has no route definition: use @Route(ROUTES.…), or @Public()/@RequireScope() for a probe.`,
      );
    }
    if (config.rota?.bodyLimit) route.bodyLimit = config.rota.bodyLimit;
  });

  fastify.addHook('onRequest', (req: RotaRequest, reply, done) => {
    const config = configOf(req);
    const scope: Scope | null | undefined = config?.rota ? config.rota.scope : config?.rotaAuth;
    const checkUrl = () =>
      urlContainsNul(req.url)
        ? done(new AppError('invalid_query', 'The URL must not contain the NUL character (U+0000).'))
        : done();
    // A path no route matches is a 404 whatever the body: refused here, its
    // body is never parsed, so a missing or odd media type cannot turn the
    // answer into a 415 (or a bad-JSON 400) for a route that does not exist.
    if (req.is404 && !urlContainsNul(req.url))
      return done(new AppError('not_found', 'No route matches this method and path.'));
    // No scope: a public route.
    if (!scope) return checkUrl();
    const admit = (principal: Principal) => {
      // An operator key has no tenant: a route that acts for a project must not run without one.
      if (
        principal.kind === 'operator' &&
        !(config?.rota ? config.rota.operators === true || config.rota.scope === 'admin' : scope === 'admin')
      ) {
        return done(
          new AppError(
            'forbidden',
            'Operator keys act on the deployment, not on a project: use a project key for this route.',
          ),
        );
      }
      if (!principal.scopes.includes(scope))
        return done(new AppError('forbidden', `API key does not have the '${scope}' scope.`));
      if (principal.kind === 'project' && principal.sessionId !== undefined) {
        const refusal = sessionBindingRefusal(config?.rota, req.params, principal.sessionId);
        if (refusal) return done(refusal);
      }
      if (
        principal.kind === 'project' &&
        principal.userId !== undefined &&
        !(config?.rota && USER_KEY_ROUTES.has(config.rota.operationId))
      ) {
        return done(
          new AppError(
            'forbidden',
            'This key is bound to one end user: it may not call a route that shows or changes the whole project.',
          ),
        );
      }
      req.principal = principal;
      const tenant =
        principal.kind === 'project'
          ? {
              org_id: principal.orgId,
              project_id: principal.projectId,
              environment: principal.environment,
              ...(principal.userId !== undefined ? { user_id: principal.userId } : {}),
            }
          : undefined;
      const store = requestContext.getStore();
      if (store) store.tenant = tenant;
      else requestContext.enterWith({ requestId: String(req.id), tenant });
      checkUrl();
    };
    // A key this replica verified a moment ago is not a guess: it skips the
    // failure limit and stays on the synchronous path.
    const cached = keys.cachedPrincipal(req.headers.authorization);
    if (cached) return admit(cached);
    const backOff = (seconds: number) => {
      void reply.header('retry-after', String(seconds));
      done(new AppError('rate_limited', `Too many failed authentications from this address; retry in ${seconds} s.`));
    };
    // A failure is counted before the answer goes out, so the next attempt,
    // on any replica, already sees it. `lookedUp`: the key was well formed
    // and the database was asked, which the global budget counts too.
    const refuse = (lookedUp: boolean, inBackOff: number) => {
      const counted = Promise.all([failures.fail(req.ip), lookedUp ? failures.failedLookup() : undefined]);
      counted.then(
        () => (inBackOff > 0 ? backOff(inBackOff) : done(new AppError('unauthorized', 'unauthorized'))),
        () => done(new AppError('unauthorized', 'unauthorized')),
      );
    };
    const authenticate = (inBackOff: number) => {
      let found: ReturnType<ApiKeyService['verify']>;
      try {
        found = keys.verify(req.headers.authorization);
      } catch (err) {
        return done(err as Error);
      }
      // A promise is a database lookup; a plain answer came from the cache (or the key was malformed).
      const lookedUp = found instanceof Promise;
      const decide = (principal: Principal | null) => (principal ? admit(principal) : refuse(lookedUp, inBackOff));
      if (found instanceof Promise) found.then(decide, (err: Error) => done(err));
      else decide(found);
    };
    // The back-off is per address, and never stands between a valid key and
    // its request: a well-formed key from an address in back-off is still
    // looked up (one lookup per cache period for a key tried again and again)
    // while the global failed-lookup budget has room, and served when valid.
    // A malformed key, a key known to be invalid, or an exhausted budget is
    // answered 429 with that address's Retry-After.
    failures.retryAfter(req.ip).then(
      (seconds) => {
        if (seconds === 0) return authenticate(0);
        if (!keys.wellFormed(req.headers.authorization) || keys.knownInvalid(req.headers.authorization))
          return backOff(seconds);
        failures.lookupAllowed().then(
          (room) => (room ? authenticate(seconds) : backOff(seconds)),
          (err: Error) => done(err),
        );
      },
      (err: Error) => done(err),
    );
  });

  fastify.addHook('preValidation', (req: RotaRequest, _reply, done) => {
    const problem = bodyProblem(req.body);
    if (problem === 'nul')
      return done(
        new AppError('invalid_body', 'Text in the request body must not contain the NUL character (U+0000).'),
      );
    if (problem === 'lone_surrogate')
      return done(
        new AppError(
          'invalid_body',
          'Text in the request body must be valid Unicode: it contains a lone UTF-16 surrogate (U+D800 to U+DFFF).',
        ),
      );
    if (problem === 'too_deep')
      return done(
        new AppError(
          'invalid_body',
          `The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep.`,
        ),
      );
    const def = configOf(req)?.rota;
    if (!def) return done();
    try {
      req.rotaInput = parseInput(def, req);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
}

/**
 * Why a session-bound key may not call this route, or null when it may: only
 * the routes of one session (those whose path names a session) and only for
 * its own session. Another session's id gets the very 404 an unknown session
 * gets, so the key learns nothing about the project's other sessions.
 */
export function sessionBindingRefusal(def: RouteDef | undefined, params: unknown, sessionId: string): AppError | null {
  if (!def || def.notFound?.code !== 'session_not_found') {
    return new AppError('forbidden', 'This key is bound to one session: it may call only that session’s routes.');
  }
  const id = (params as { id?: unknown } | undefined)?.id;
  return id === sessionId ? null : new AppError(def.notFound.code, def.notFound.message);
}

/**
 * Validates a request against its definition. The documented order: body,
 * then query string, then path parameters (an id that cannot exist is a
 * plain not-found, like any unknown id).
 */
function parseInput(def: RouteDef, req: FastifyRequest) {
  let body: unknown = undefined;
  if (def.body && (def.bodyValidation ?? 'gateway') === 'gateway') {
    const parsed = def.body.safeParse(req.body);
    if (!parsed.success)
      throw new AppError('invalid_body', 'The request body is invalid.', { issues: zodIssues(parsed.error) });
    body = parsed.data;
  } else if (def.body) {
    body = req.body;
  }
  let query: unknown = {};
  if (def.query) {
    // Fastify's query object has a null prototype; Zod wants a plain one.
    const parsed = def.query.safeParse({ ...(req.query as object) });
    if (!parsed.success)
      throw new AppError('invalid_query', 'The query string is invalid.', { issues: zodIssues(parsed.error) });
    query = parsed.data;
  }
  let headers: unknown = {};
  if (def.headers) {
    const picked = Object.fromEntries(Object.keys(def.headers.shape).map((h) => [h, req.headers[h]]));
    const parsed = def.headers.safeParse(picked);
    if (!parsed.success) {
      const code = def.headersInvalid ?? 'invalid_body';
      throw new AppError(
        code,
        `A request header is invalid: ${zodIssues(parsed.error)
          .map((i) => i.path.join('.'))
          .join(', ')}.`,
        { issues: zodIssues(parsed.error) },
      );
    }
    headers = parsed.data;
  }
  let params: unknown = {};
  if (def.params) {
    const parsed = def.params.safeParse({ ...(req.params as object) });
    if (!parsed.success) {
      const nf = def.notFound ?? { code: 'not_found' as const, message: 'Nothing matches this path.' };
      throw new AppError(nf.code, nf.message);
    }
    params = parsed.data;
  }
  return { params, query, headers, body };
}
