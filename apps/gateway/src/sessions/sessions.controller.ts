import { Controller, Req, Res } from '@nestjs/common';
import {
  ROUTES,
  type ExecuteResult,
  type ProxyResult,
  type SessionClosed,
  type SessionCreated,
  type SessionRecord,
  type SessionView,
} from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth } from '../auth/decorators';
import type { Principal, ProjectPrincipal } from '../auth/principal';
import { Input, Route, type In } from '../http/route';
import { CallRateLimiter, type RateLimitedCall } from '../governance/rate-limits';
import { publicBaseUrl } from './tenant';

function mcpOf(req: FastifyRequest, id: string) {
  return { url: `${publicBaseUrl(req)}/v1/sessions/${id}/mcp`, transport: 'streamable-http' as const };
}

/** Sessions and execute. Everything past validation happens in the session service. */
@Controller()
export class SessionsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly limiter: CallRateLimiter,
  ) {}

  @Route(ROUTES.createSession)
  async createSession(
    @Input() { body }: In<typeof ROUTES.createSession>,
    @Req() req: FastifyRequest,
  ): Promise<SessionCreated> {
    const s = await this.rpc.send('session.create', { body });
    return {
      id: s.id,
      user_id: s.user_id,
      servers: s.servers,
      status: 'active',
      environment: s.environment,
      created_at: s.created_at,
      mcp: mcpOf(req, s.id),
    };
  }

  @Route(ROUTES.getSession)
  async getSession(
    @Input() { params }: In<typeof ROUTES.getSession>,
    @Req() req: FastifyRequest,
  ): Promise<SessionView> {
    const s: SessionRecord = await this.rpc.send('session.get', { session_id: params.id });
    return {
      id: s.id,
      user_id: s.user_id,
      servers: s.servers,
      status: s.status,
      environment: s.environment,
      created_at: s.created_at,
      mcp: mcpOf(req, s.id),
      metadata: s.metadata,
      last_active_at: s.last_active_at,
      expires_at: s.expires_at,
      closed_at: s.closed_at,
    };
  }

  @Route(ROUTES.closeSession)
  closeSession(@Input() { params }: In<typeof ROUTES.closeSession>): Promise<SessionClosed> {
    return this.rpc.send('session.close', { session_id: params.id });
  }

  /** `proxyExecute`: Rota's refusals come back as errors; the provider's answer, whatever its status, as a 200. */
  @Route(ROUTES.proxyExecute)
  async proxyExecute(
    @Auth() p: Principal,
    @Input() { params, body, headers }: In<typeof ROUTES.proxyExecute>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProxyResult> {
    const key = headers['idempotency-key'];
    // The proxy calls no tool: key, project and provider limits count it.
    if (p.kind === 'project')
      await this.rateLimit(p, { tool: null, provider: body.server, idempotencyKey: key ?? null }, reply);
    const answer = await this.rpc.send('session.proxy', {
      session_id: params.id,
      request: body,
      ...(key ? { idempotency_key: key } : {}),
      ...(p.keyId ? { key_id: p.keyId } : {}),
    });
    if (answer.replayed) void reply.header('idempotent-replayed', 'true');
    return answer.result;
  }

  /** Validation ran in the documented order (body, query, then the id); the session service does the rest. */
  @Route(ROUTES.executeTool)
  async executeTool(
    @Auth() p: Principal,
    @Input() { params, body, headers }: In<typeof ROUTES.executeTool>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ExecuteResult> {
    const key = headers['idempotency-key'];
    const approval = headers['rota-approval-id'];
    if (p.kind === 'project')
      await this.rateLimit(
        p,
        { tool: body.tool, provider: /^([^/\s]+)\//.exec(body.tool)?.[1] ?? null, idempotencyKey: key ?? null },
        reply,
      );
    const answer = await this.rpc.send('session.execute', {
      scopes: p.scopes,
      session_id: params.id,
      via: 'http',
      tool: body.tool,
      input: body.input,
      key_id: p.keyId,
      ...(key ? { idempotency_key: key } : {}),
      ...(approval ? { approval_id: approval } : {}),
    });
    if (answer.replayed) void reply.header('idempotent-replayed', 'true');
    return answer.result;
  }

  /**
   * Rate limits count before the call is forwarded, so a refused call costs
   * the services nothing; a repeat of an idempotency key the session service
   * already holds is let through uncounted (see CallRateLimiter), so it gets
   * its replay (or its 409) rather than a 429.
   */
  private async rateLimit(p: ProjectPrincipal, call: RateLimitedCall, reply: FastifyReply): Promise<void> {
    const rate = await this.limiter.consume(p, call);
    if (rate.headers) void reply.headers(rate.headers);
    if (rate.limited) {
      void reply.header('retry-after', String(rate.retryAfterS));
      throw CallRateLimiter.refusal(rate);
    }
  }
}
