import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ExecuteQuery,
  ExecuteRequest,
  SessionCreateRequest,
  type ExecuteResult,
  type SessionClosed,
  type SessionCreated,
  type SessionRecord,
  type SessionView,
} from '@rota/contracts';
import { RpcClient, ZodPipe } from '@rota/service-kit';
import type { FastifyRequest } from 'fastify';
import { Auth, RequireScope } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { publicBaseUrl, sessionIdParam, tenantOf } from './tenant';

const executeBody = new ZodPipe(ExecuteRequest);
const executeQuery = new ZodPipe(ExecuteQuery, 'invalid_query');

function mcpOf(req: FastifyRequest, id: string) {
  return { url: `${publicBaseUrl(req)}/v1/sessions/${id}/mcp`, transport: 'streamable-http' as const };
}

/** Sessions and execute. Everything past validation happens in the session service. */
@Controller('v1/sessions')
export class SessionsController {
  constructor(private readonly rpc: RpcClient) {}

  @Post()
  @HttpCode(201)
  @RequireScope('sessions:create')
  async create(@Auth() p: Principal, @Body(new ZodPipe(SessionCreateRequest)) body: SessionCreateRequest, @Req() req: FastifyRequest): Promise<SessionCreated> {
    const s = await this.rpc.send('session.create', { tenant: tenantOf(p), body });
    return { id: s.id, user_id: s.user_id, servers: s.servers, status: 'active', environment: s.environment, created_at: s.created_at, mcp: mcpOf(req, s.id) };
  }

  @Get(':id')
  @RequireScope('sessions:create')
  async get(@Auth() p: Principal, @Param('id') id: string, @Req() req: FastifyRequest): Promise<SessionView> {
    const s: SessionRecord = await this.rpc.send('session.get', { tenant: tenantOf(p), session_id: sessionIdParam(id) });
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

  @Delete(':id')
  @RequireScope('sessions:create')
  close(@Auth() p: Principal, @Param('id') id: string): Promise<SessionClosed> {
    return this.rpc.send('session.close', { tenant: tenantOf(p), session_id: sessionIdParam(id) });
  }

  /**
   * The documented order starts here, after the guard: body, then query
   * string, and only then anything that needs the session.
   */
  @Post(':id/execute')
  @HttpCode(200)
  @RequireScope('tools:execute')
  execute(@Auth() p: Principal, @Param('id') id: string, @Body() rawBody: unknown, @Query() rawQuery: unknown): Promise<ExecuteResult> {
    const body = executeBody.transform(rawBody);
    executeQuery.transform({ ...(rawQuery as object) });
    return this.rpc.send('session.execute', { tenant: tenantOf(p), scopes: p.scopes, session_id: sessionIdParam(id), via: 'http', tool: body.tool, input: body.input });
  }
}
