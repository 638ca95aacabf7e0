import * as contracts from '@rota/contracts';
import {
  ERROR_STATUS,
  ErrorEnvelope,
  ROUTE_TAGS,
  ROUTES,
  routeErrorStatuses,
  Unauthorized,
  type ErrorCode,
  type RouteDef,
} from '@rota/contracts';
import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';

/** Version of the HTTP API described by the document. */
export const API_VERSION = '0.2.0';

const ERROR_DESCRIPTIONS: Partial<Record<number, string>> = {
  400: 'The request is invalid.',
  401: 'Missing, malformed, unknown or revoked API key. The body is exactly `{"error":"unauthorized"}`.',
  403: 'The key may not do this.',
  404: 'Nothing with this id is visible to the key.',
  405: 'Method not allowed.',
  409: 'The resource is not in a state that allows this.',
  413: 'The body is larger than the route accepts.',
  414: 'A path parameter is longer than the gateway reads.',
  415: 'The body is not application/json.',
  424: 'Nothing can carry the operation.',
  429: 'Too many requests.',
  500: 'Something failed on our side; the body carries only the request id.',
  501: 'Not available in this deployment.',
  502: 'A dependency answered something unusable.',
  503: 'A dependency is unreachable.',
  504: 'A service did not answer in time.',
};

/**
 * Named components: every top-level body a route accepts or answers takes
 * the name it has in contracts, so generated clients get readable types. The
 * name is put on a copy of the schema, so the contract schemas themselves
 * stay unregistered.
 */
const CONTRACT_NAMES = new Map<unknown, string>(
  Object.entries(contracts)
    .filter(([name, value]) => value instanceof z.ZodType && /^[A-Z]/.test(name))
    .map(([name, value]) => [value, name] as const),
);
const named = new Map<z.ZodType, z.ZodType>();
function component<T extends z.ZodType>(schema: T): T {
  const name = CONTRACT_NAMES.get(schema);
  if (!name || schema.meta()?.id) return schema;
  let copy = named.get(schema);
  if (!copy) named.set(schema, (copy = schema.meta({ id: name })));
  return copy as T;
}

function codeList(codes: ErrorCode[]) {
  return codes.map((c) => `\`${c}\``).join(', ');
}

function responsesOf(route: RouteDef): ZodOpenApiResponsesObject {
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, res] of Object.entries(route.responses)) {
    responses[status as `${1 | 2 | 3 | 4 | 5}${string}`] = {
      description: res.description,
      ...(res.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(res.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }]),
            ),
          }
        : {}),
      ...(res.schema
        ? { content: { [res.contentType ?? 'application/json']: { schema: component(res.schema) } } }
        : {}),
    };
  }
  for (const [status, codes] of routeErrorStatuses(route)) {
    if (responses[String(status) as `4${string}`]) continue;
    const description = `${ERROR_DESCRIPTIONS[status] ?? 'Refused.'} Codes: ${codeList(codes)}.`;
    if (status === 401) {
      responses['401'] = {
        description,
        headers: { 'www-authenticate': { description: 'Always `Bearer`.', schema: { type: 'string' } } },
        content: { 'application/json': { schema: Unauthorized } },
      };
    } else {
      responses[String(status) as `4${string}`] = {
        description,
        content: { 'application/json': { schema: ErrorEnvelope } },
      };
    }
  }
  // OpenAPI describes operations, not the methods a path lacks: the refusal
  // of another method on this path is listed on each of its operations.
  responses['405'] ??= {
    description:
      'Sent for a method this path does not take (never for the method of this operation), before authentication. `Allow` lists the methods the path takes. Code: `method_not_allowed`.',
    headers: {
      allow: { description: 'The methods this path takes, e.g. `GET, HEAD, POST`.', schema: { type: 'string' } },
    },
    content: { 'application/json': { schema: ErrorEnvelope } },
  };
  return responses;
}

function operationOf(route: RouteDef): ZodOpenApiOperationObject {
  const params =
    route.params || route.query || route.headers
      ? {
          ...(route.params ? { path: route.params } : {}),
          ...(route.query ? { query: route.query } : {}),
          ...(route.headers ? { header: route.headers } : {}),
        }
      : undefined;
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    ...(route.deprecated ? { deprecated: true } : {}),
    security: route.scope ? [{ apiKey: [] }] : [],
    ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    ...(params ? { requestParams: params } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: component(route.body) } } } }
      : {}),
    responses: responsesOf(route),
  };
}

/**
 * The OpenAPI 3.1 document, generated from the route definitions in
 * contracts. `serverUrl` is the gateway's public base URL (`ROTA_PUBLIC_URL`,
 * or the address it listens on); without it the document names no server.
 */
export function buildOpenApi(serverUrl?: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of Object.values(ROUTES) as RouteDef[]) {
    (paths[route.path] ??= {})[route.method] = operationOf(route);
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Rota API',
        version: API_VERSION,
        description:
          'Discovery and routing of commerce tools for agents in Latin America. Every refusal uses the error envelope; a 401 is exactly `{"error":"unauthorized"}`. ' +
          `Error codes and their statuses: ${Object.entries(ERROR_STATUS)
            .map(([c, s]) => `${c} (${s})`)
            .join(', ')}.`,
        contact: { name: 'Rota maintainers' },
      },
      ...(serverUrl ? { servers: [{ url: serverUrl, description: 'This gateway' }] } : {}),
      tags: Object.entries(ROUTE_TAGS).map(([name, description]) => ({ name, description })),
      paths,
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: `csk_live_…` or `csk_test_…`.' },
        },
      },
    },
    { outputIdSuffix: 'Output' },
  );
}
