import { Controller, Res } from '@nestjs/common';
import { ROUTES, type ConnectionDeleted, type ConnectionList, type ConnectionView } from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import type { FastifyReply } from 'fastify';
import { Input, Route, type In } from '../http/route';

/**
 * Provider connections of the key's project and environment. The request
 * body is the only place credentials ever appear; no answer carries them.
 */
@Controller()
export class ConnectionsController {
  constructor(private readonly rpc: RpcClient) {}

  /** 201 for a new connection, 200 when the provider's credentials were replaced. */
  @Route(ROUTES.createConnection)
  async createConnection(
    @Input() { body }: In<typeof ROUTES.createConnection>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConnectionView> {
    const saved = await this.rpc.send('session.connections.save', { body });
    void reply.status(saved.created ? 201 : 200);
    return saved.connection;
  }

  @Route(ROUTES.listConnections)
  listConnections(): Promise<ConnectionList> {
    return this.rpc.send('session.connections.list', {});
  }

  @Route(ROUTES.deleteConnection)
  deleteConnection(@Input() { params }: In<typeof ROUTES.deleteConnection>): Promise<ConnectionDeleted> {
    return this.rpc.send('session.connections.delete', { connection_id: params.id });
  }
}
