import { randomUUID } from 'node:crypto';
import type { PatternName, RequestOf, ResponseOf } from '@rota/contracts';
import { firstValueFrom } from 'rxjs';
import { currentRequestId } from './context';
import { RedisStreamsClient, type RedisStreamsClientOptions } from './transport/client';

export interface SendOptions {
  timeoutMs?: number;
  requestId?: string;
}

/**
 * Typed front of the transport client: `rpc.send('search.tools', body)`
 * checks the payload type and infers the answer from the contract catalog.
 * Rejects with an AppError (`upstream_timeout`, `unavailable`, or whatever
 * code the service raised).
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
    return firstValueFrom(this.transport.send<ResponseOf<P>>(pattern, { payload, requestId, timeoutMs: opts.timeoutMs }));
  }
}
