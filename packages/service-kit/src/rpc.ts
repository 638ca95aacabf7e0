import { randomUUID } from 'node:crypto';
import type { PatternName, RequestOf, ResponseOf, Tenant } from '@rota/contracts';
import { firstValueFrom } from 'rxjs';
import { currentRequestId, maybeTenant } from './context';
import { RedisStreamsClient, type RedisStreamsClientOptions } from './transport/client';

export interface SendOptions {
  timeoutMs?: number;
  requestId?: string;
  /** Who the request acts for; defaults to the tenant of the request being handled. */
  tenant?: Tenant;
}

/**
 * Typed front of the transport client: `rpc.send('search.tools', body)`
 * checks the payload type and infers the answer from the contract catalog.
 * Rejects with an AppError: whatever code the service raised, or the
 * transport's own (see `unansweredCode` in contracts): on acting patterns
 * `unavailable` only when the request never started and `outcome_unknown`
 * when it may have; elsewhere `upstream_timeout` for a missed deadline and
 * `unavailable` for a transport failure.
 */
export class RpcClient {
  readonly transport: RedisStreamsClient;

  constructor(options: RedisStreamsClientOptions) {
    this.transport = new RedisStreamsClient(options);
  }

  connect() {
    return this.transport.connect();
  }

  close() {
    return this.transport.close();
  }

  send<P extends PatternName>(pattern: P, payload: RequestOf<P>, opts: SendOptions = {}): Promise<ResponseOf<P>> {
    const requestId = opts.requestId ?? currentRequestId() ?? randomUUID();
    const tenant = opts.tenant ?? maybeTenant();
    return firstValueFrom(this.transport.send<ResponseOf<P>>(pattern, { payload, requestId, timeoutMs: opts.timeoutMs, tenant }));
  }
}
