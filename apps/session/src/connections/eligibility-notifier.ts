import type { Tenant } from '@rota/contracts';
import { requestContext, type RpcClient } from '@rota/service-kit';

export interface NotifierLogger {
  warn(meta: Record<string, unknown>, msg: string): void;
}

/** Longest a connection write waits for the router. */
const REFRESH_TIMEOUT_MS = 2000;

/**
 * Tells the router that a tenant's connections changed, so path C and
 * execute-time routing see a new or deleted connection on the very next
 * call instead of after the stored eligibility set expires. Awaited by every
 * connection write before it answers.
 *
 * The write has already happened when this runs, so a router that does not
 * answer does not undo it or fail it: the failure is logged and the router's
 * stored set is then as old as its TTL allows, as it was before this call
 * existed.
 */
export class EligibilityNotifier {
  constructor(
    private readonly rpc: RpcClient,
    private readonly log: NotifierLogger,
  ) {}

  async connectionsChanged(tenant: Tenant): Promise<void> {
    // Leave the caller's own hop some room to answer.
    const deadline = requestContext.getStore()?.deadline;
    const left = deadline ? deadline - Date.now() - 200 : Infinity;
    const timeoutMs = Math.max(50, Math.min(REFRESH_TIMEOUT_MS, left));
    try {
      await this.rpc.send('router.eligibility.refresh', {}, { tenant, timeoutMs });
    } catch (err) {
      this.log.warn(
        {
          org_id: tenant.org_id,
          project_id: tenant.project_id,
          environment: tenant.environment,
          err: err instanceof Error ? err.message : String(err),
        },
        'could not refresh the router eligibility after a connection change; it catches up when its stored set expires',
      );
    }
  }
}
