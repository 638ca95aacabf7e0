import { Controller, Inject, Req, Res } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AppError, ROUTES } from '@rota/contracts';
import { CONFIG, createLogger, RpcClient } from '@rota/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth } from '../auth/decorators';
import { Input, Route, type In } from '../http/route';
import type { Principal } from '../auth/principal';
import type { GatewayConfig } from '../config';
import { CallRateLimiter } from '../governance/rate-limits';
import { countMcpMessage } from './mcp-metrics';
import { createMcpServer } from './mcp-server';
import { invalidToolCall, originAllowed, parseAllowedOrigins } from './mcp-protocol';

/**
 * A JSON-RPC batch (a body that is an array) is refused whole, before any of
 * it runs: protocol 2025-06-18 removed batching, and a batch would let one
 * HTTP request start any number of tool calls past every per-request limit.
 */
function refuseBatch(reply: FastifyReply) {
  return reply
    .status(400)
    .header('content-type', 'application/json; charset=utf-8')
    .send(
      JSON.stringify({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message: 'Invalid Request: JSON-RPC batches are not supported; send one message per request.',
        },
        id: null,
      }),
    );
}

/**
 * The MCP endpoints, over Streamable HTTP in stateless mode: every POST gets
 * a fresh server and transport, nothing is kept between requests, so any
 * gateway replica can answer any request. There is no server-initiated
 * stream, hence 405 on GET and DELETE.
 *
 * `POST /mcp` runs calls in the project context (no session; the callable
 * providers are the ones the project has connected in the key's
 * environment). `POST /v1/sessions/{id}/mcp` runs them in that session.
 */
@Controller()
export class McpController {
  private readonly log;
  private readonly allowedOrigins;

  constructor(
    private readonly rpc: RpcClient,
    @Inject(CONFIG) config: GatewayConfig,
    private readonly limiter: CallRateLimiter,
  ) {
    this.log = createLogger('gateway', config.LOG_LEVEL);
    this.allowedOrigins = parseAllowedOrigins(config.ROTA_MCP_ALLOWED_ORIGINS);
  }

  /** Refuses a browser origin the deployment did not allow (Streamable HTTP's DNS-rebinding rule). */
  private checkOrigin(req: FastifyRequest) {
    const origin = req.headers.origin;
    if (!originAllowed(origin, this.allowedOrigins)) {
      throw new AppError(
        'forbidden',
        `Origin ${origin} may not call this MCP endpoint; the operator allows origins with ROTA_MCP_ALLOWED_ORIGINS.`,
      );
    }
  }

  @Route(ROUTES.mcpProject)
  mcpProject(@Auth() p: Principal, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    this.checkOrigin(req);
    if (Array.isArray(req.body)) return refuseBatch(reply);
    return this.serve(p, null, req, reply);
  }

  @Route(ROUTES.mcpSession)
  async mcpSession(
    @Auth() p: Principal,
    @Input() { params }: In<typeof ROUTES.mcpSession>,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    this.checkOrigin(req);
    if (Array.isArray(req.body)) return refuseBatch(reply);
    // The route's params come from a helper shared with the project route, so their type is widened there.
    const { id } = params as unknown as { id: string };
    // An unknown or foreign session is a plain 404 before any MCP exchange.
    await this.rpc.send('session.get', { session_id: id });
    return this.serve(p, id, req, reply);
  }

  @Route(ROUTES.mcpProjectStream)
  mcpProjectStream(@Res() reply: FastifyReply) {
    return this.noStream(reply);
  }

  @Route(ROUTES.mcpSessionStream)
  mcpSessionStream(@Res() reply: FastifyReply) {
    return this.noStream(reply);
  }

  @Route(ROUTES.mcpProjectEnd)
  mcpProjectEnd(@Res() reply: FastifyReply) {
    return this.noSession(reply);
  }

  @Route(ROUTES.mcpSessionEnd)
  mcpSessionEnd(@Res() reply: FastifyReply) {
    return this.noSession(reply);
  }

  private noStream(reply: FastifyReply): never {
    void reply.header('allow', 'POST');
    throw new AppError(
      'method_not_allowed',
      'This MCP endpoint is stateless: send JSON-RPC messages with POST; there is no event stream to open.',
    );
  }

  private noSession(reply: FastifyReply): never {
    void reply.header('allow', 'POST');
    throw new AppError('method_not_allowed', 'This MCP endpoint is stateless: there is no MCP session to end.');
  }

  private async serve(p: Principal, sessionId: string | null, req: FastifyRequest, reply: FastifyReply) {
    countMcpMessage(req.body);
    const invalid = invalidToolCall(req.body);
    if (invalid) return reply.status(200).header('content-type', 'application/json; charset=utf-8').send(invalid);
    const server = createMcpServer(async (tool, input, idempotencyKey, approvalId) => {
      if (p.kind === 'project') {
        // The same counters as execute (a repeat of a held key counts toward none); over MCP a limited call is an isError tool result.
        const rate = await this.limiter.consume(p, { tool, provider: null, idempotencyKey: idempotencyKey ?? null });
        if (rate.limited) throw CallRateLimiter.refusal(rate);
      }
      const reply = await this.rpc.send('session.execute', {
        scopes: p.scopes,
        session_id: sessionId,
        via: 'mcp',
        tool,
        input,
        key_id: p.keyId,
        ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}),
        ...(approvalId ? { approval_id: approvalId } : {}),
      });
      return { result: reply.result, replayed: reply.replayed };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    // From here the SDK writes the response itself.
    reply.hijack();
    reply.raw.setHeader('x-request-id', String(req.id));
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      this.log.error({ err, request_id: req.id }, 'MCP request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      }
    }
  }
}
