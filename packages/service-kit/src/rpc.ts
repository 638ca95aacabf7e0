import { randomUUID } from 'node:crypto';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AppError, type PatternName, type RequestOf, type ResponseOf, type Tenant } from '@rota/contracts';
import { firstValueFrom } from 'rxjs';
import { currentPublicUrl, currentRequestId, maybeTenant } from './context';
import { transportMetrics } from './metrics';
import { recordErrorCode, traceCarrier } from './tracing';
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
  private readonly seconds = transportMetrics.clientSeconds();
  private readonly errors = transportMetrics.clientErrors();

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
    const started = performance.now();
    // The handler's span is a child of this one. With export off the span
    // records nothing and the caller's own context, if any, travels on.
    const active = context.active();
    const span = trace.getTracer('rota.transport').startSpan(pattern, { kind: SpanKind.CLIENT }, active);
    if (span.isRecording())
      span.setAttributes({ 'rpc.system': 'rota', 'rpc.method': pattern, 'rota.request_id': requestId });
    const carrier = traceCarrier(trace.setSpan(active, span));
    return firstValueFrom(
      this.transport.send<ResponseOf<P>>(pattern, {
        payload,
        requestId,
        timeoutMs: opts.timeoutMs,
        tenant,
        trace: carrier,
        publicUrl: currentPublicUrl(),
      }),
    ).then(
      (answer) => {
        this.seconds.observe({ pattern, outcome: 'ok' }, (performance.now() - started) / 1000);
        span.end();
        return answer;
      },
      (err: unknown) => {
        const code = err instanceof AppError ? err.code : 'internal';
        this.seconds.observe({ pattern, outcome: code }, (performance.now() - started) / 1000);
        this.errors.inc({ pattern, code });
        recordErrorCode(span, code);
        span.end();
        throw err;
      },
    );
  }
}
