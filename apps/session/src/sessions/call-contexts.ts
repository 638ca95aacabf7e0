import { Injectable } from '@nestjs/common';
import type { ExecuteCommand, Tenant } from '@rota/contracts';
import { ConnectionsRepository } from '../connections/connections.repository';
import type { CallContext, CallContexts } from '../execute/executors';
import { SessionsService } from './sessions.service';

/**
 * Where an execute call runs: an active session's providers (404 for an
 * unknown session, 409 with its real status for one not active), or, without
 * a session (`POST /mcp`), the providers the project has connected.
 */
@Injectable()
export class SessionCallContexts implements CallContexts {
  constructor(
    private readonly sessions: SessionsService,
    private readonly connections: ConnectionsRepository,
  ) {}

  async context(cmd: ExecuteCommand, tenant: Tenant): Promise<CallContext> {
    if (cmd.session_id !== null) {
      const session = await this.sessions.requireActive(tenant, cmd.session_id);
      return { tenant, sessionId: session.id, userId: session.userId, servers: session.servers };
    }
    const connected = await this.connections.providerStates(tenant.project_id, tenant.environment, null);
    return { tenant, sessionId: null, userId: null, servers: connected.map((p) => p.id) };
  }
}
