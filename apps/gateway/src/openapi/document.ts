import { ERROR_STATUS } from '@rota/contracts';
import { z } from 'zod';
import { ROUTES, type RouteDoc } from './routes';

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' });

function codesFor(status: number): string[] {
  return Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([c]) => c);
}

function operation(r: RouteDoc) {
  const success = String(r.success ?? 200);
  const responses: Record<string, unknown> = {
    [success]: {
      description: 'Success',
      ...(r.response ? { content: { [r.contentType ?? 'application/json']: { schema: jsonSchema(r.response, 'output') } } } : {}),
    },
  };
  for (const status of r.errors ?? []) {
    if (status === 304) responses['304'] = { description: 'Not modified (If-None-Match matched the ETag)' };
    else if (status === 401) responses['401'] = { description: 'Missing or unknown key', content: { 'application/json': { schema: { $ref: '#/components/schemas/Unauthorized' } } } };
    else responses[String(status)] = { description: `Error codes: ${codesFor(status).join(', ') || 'not_ready'}`, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } };
  }
  return {
    summary: r.summary,
    tags: [r.tag],
    ...(r.scope ? { security: [{ apiKey: [] }], 'x-required-scope': r.scope } : { security: [] }),
    ...(r.request ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(r.request, 'input') } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, built from the contracts' Zod schemas. */
export function buildOpenApi() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ROUTES) (paths[r.path] ??= {})[r.method] = operation(r);
  return {
    openapi: '3.1.0',
    info: { title: 'Rota API', version: '0.1.0', description: 'Discovery and routing of commerce tools for agents in Latin America.' },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: csk_live_… or csk_test_…' } },
      schemas: {
        ErrorEnvelope: {
          type: 'object',
          required: ['error', 'message', 'request_id'],
          properties: {
            error: { type: 'string', enum: Object.keys(ERROR_STATUS) },
            message: { type: 'string' },
            request_id: { type: 'string' },
            issues: { type: 'array', items: { type: 'object' } },
          },
          additionalProperties: true,
        },
        Unauthorized: { type: 'object', required: ['error'], properties: { error: { const: 'unauthorized' } }, additionalProperties: false },
      },
    },
  };
}
