import { Controller, Req, Res } from '@nestjs/common';
import { AppError, ROUTES, type LogList } from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { Input, Route, type In } from '../http/route';
import { LogStreamHub } from './log-stream';

/** Call records of the key's project and environment: listed by the session service, streamed from Redis here. */
@Controller()
export class LogsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly hub: LogStreamHub,
  ) {}

  @Route(ROUTES.listLogs)
  listLogs(@Input() { query }: In<typeof ROUTES.listLogs>): Promise<LogList> {
    return this.rpc.send('session.logs.list', { query });
  }

  @Route(ROUTES.streamLogs)
  async streamLogs(
    @Auth() p: Principal,
    @Input() { query, headers }: In<typeof ROUTES.streamLogs>,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // The pipeline refuses operator keys here already; this narrows the type.
    if (p.kind !== 'project')
      throw new AppError(
        'forbidden',
        'Operator keys act on the deployment, not on a project: use a project key for this route.',
      );
    await this.hub.open(req, reply, {
      projectId: p.projectId,
      environment: p.environment,
      sessionId: query.session_id ?? null,
      lastEventId: headers['last-event-id'] ?? null,
    });
  }
}
