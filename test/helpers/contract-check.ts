import Ajv2020 from 'ajv/dist/2020';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RouteDef } from '@rota/contracts';
import { buildOpenApi } from '../../apps/gateway/src/openapi/document';

/**
 * Holds every response the gateway sends during an e2e run to the OpenAPI
 * document: the status must be documented for the route, and a JSON body
 * must validate against the schema documented for that status. Mismatches
 * are collected and reported when the stack closes, so every e2e suite
 * checks the document against what the server really answers.
 */
export class ContractCheck {
  readonly violations: string[] = [];
  checked = 0;
  private readonly doc = buildOpenApi() as unknown as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
  };
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly validators = new Map<string, ReturnType<Ajv2020['compile']>>();

  constructor() {
    this.ajv.addSchema({ ...this.doc, $id: 'rota-openapi' } as object);
  }

  install(fastify: FastifyInstance) {
    fastify.addHook('onSend', (req: FastifyRequest, reply, payload, done) => {
      try {
        this.check(req, reply.statusCode, String(reply.getHeader('content-type') ?? ''), payload);
      } catch (err) {
        this.violations.push(`${req.method} ${req.url}: ${(err as Error).message}`);
      }
      done(null, payload);
    });
  }

  private check(req: FastifyRequest, status: number, contentType: string, payload: unknown) {
    const route = (req.routeOptions.config as { rota?: RouteDef } | undefined)?.rota;
    if (!route) return;
    this.checked++;
    const op = this.doc.paths[route.path]?.[route.method];
    const documented = op?.responses[String(status)];
    if (!documented) {
      this.violations.push(`${route.operationId}: status ${status} is not documented`);
      return;
    }
    if (!contentType.startsWith('application/json') || typeof payload !== 'string' || payload === '') return;
    if (!documented.content?.['application/json']) {
      this.violations.push(`${route.operationId} ${status}: JSON body where none is documented`);
      return;
    }
    const pointer = [
      'paths',
      route.path,
      route.method,
      'responses',
      String(status),
      'content',
      'application/json',
      'schema',
    ]
      .map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `rota-openapi#/${pointer}` });
      this.validators.set(pointer, validate);
    }
    if (!validate(JSON.parse(payload))) {
      this.violations.push(`${route.operationId} ${status}: ${this.ajv.errorsText(validate.errors)}`);
    }
  }
}
