import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { AppError, ConnectionCreateRequest, ExecuteQuery, type ConnectionDeleted, type ConnectionList, type ConnectionView } from '@rota/contracts';
import { RpcClient, ZodPipe } from '@rota/service-kit';
import type { FastifyReply } from 'fastify';
import { Auth, RequireScope } from '../auth/decorators';
import type { Principal } from '../auth/principal';

const scopeOf = (p: Principal) => ({ project_id: p.projectId, environment: p.environment });
const noQuery = new ZodPipe(ExecuteQuery, 'invalid_query');
const ID = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * Provider connections of the key's project and environment. The request
 * body is the only place credentials ever appear; no answer carries them.
 */
@Controller('v1/connections')
export class ConnectionsController {
  constructor(private readonly rpc: RpcClient) {}

  /** 201 for a new connection, 200 when the provider's credentials were replaced. */
  @Post()
  @RequireScope('connections:write')
  async save(
    @Auth() p: Principal,
    @Body(new ZodPipe(ConnectionCreateRequest)) body: ConnectionCreateRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConnectionView> {
    const saved = await this.rpc.send('session.connections.save', { scope: scopeOf(p), body });
    void reply.status(saved.created ? 201 : 200);
    return saved.connection;
  }

  @Get()
  @RequireScope('servers:read')
  list(@Auth() p: Principal, @Query() rawQuery: unknown): Promise<ConnectionList> {
    noQuery.transform({ ...(rawQuery as object) });
    return this.rpc.send('session.connections.list', { scope: scopeOf(p) });
  }

  @Delete(':id')
  @HttpCode(200)
  @RequireScope('connections:write')
  delete(@Auth() p: Principal, @Param('id') id: string): Promise<ConnectionDeleted> {
    if (!ID.test(id)) throw new AppError('connection_not_found', 'No connection with this id.');
    return this.rpc.send('session.connections.delete', { scope: scopeOf(p), connection_id: id });
  }
}
