import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapPropagator,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { ERROR_STATUS, isErrorCode } from '@rota/contracts';
import type { Logger } from 'pino';
import { z } from 'zod';

export { SpanKind, SpanStatusCode, type Attributes, type Context, type Span };

const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional());

/**
 * The tracing settings every app reads (part of `BaseConfig`). They are the
 * standard OpenTelemetry variables: a collector address turns export on,
 * nothing else does. The exporter and the batch processor also read their
 * other standard variables themselves (`OTEL_EXPORTER_OTLP_HEADERS`,
 * `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_BSP_*`, `OTEL_TRACES_SAMPLER`, ...).
 */
export const TracingConfig = z.object({
  /** Base address of an OTLP/HTTP collector; spans go to `<this>/v1/traces`. Unset or empty: no export. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  /** Full address for spans only; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  /** `service.name` of every span; defaults to `rota-<app>`. */
  OTEL_SERVICE_NAME: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  /** `true` turns export off whatever the endpoints say. */
  OTEL_SDK_DISABLED: z.preprocess(
    (v) => (v === '' || v === undefined ? 'false' : String(v).toLowerCase()),
    z.enum(['true', 'false']),
  ),
});
export type TracingConfig = z.infer<typeof TracingConfig>;

/** W3C trace context as carried in a message or a job: `traceparent` and, when present, `tracestate`. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** What `startTracing` hands back: whether spans leave the process, and how to let go of the exporter. */
export interface TracingHandle {
  readonly exporting: boolean;
  /** Flushes what is buffered (bounded by the exporter's timeout) once the last app of the process lets go. */
  close(): Promise<void>;
}

/** The address spans are posted to, or undefined when export is off. */
export function tracesUrl(config: TracingConfig): string | undefined {
  if (config.OTEL_SDK_DISABLED === 'true') return undefined;
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  // The specification's rule for the shared endpoint: the signal's path is appended.
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

let propagationInstalled = false;
let exporter: { provider: BasicTracerProvider; url: string; users: number } | undefined;
let exportFailures = { last: 0, suppressed: 0 };

/** Only the W3C trace context: a caller's baggage is not forwarded to providers. */
const PROPAGATOR: TextMapPropagator = new W3CTraceContextPropagator();

/**
 * Sets up tracing for one app of this process. Idempotent: the context
 * manager and the W3C propagator are installed once, whatever happens after,
 * so an incoming `traceparent` is always continued and passed on (even with
 * export off, when no span is recorded and the caller's context travels
 * through unchanged). With a collector address, the first app to ask
 * installs one exporter for the process (its name becomes `service.name`
 * unless `OTEL_SERVICE_NAME` says otherwise; the in-process test stack runs
 * every app in one process and so under one name) and later apps share it;
 * the exporter is shut down when the last of them closes.
 *
 * Spans are batched and posted in the background under the exporter's
 * timeout; a collector that is slow or down costs dropped spans, never a
 * slower or failed request.
 */
export function startTracing(app: string, config: TracingConfig, log?: Logger, instanceId?: string): TracingHandle {
  if (!propagationInstalled) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(PROPAGATOR);
    propagationInstalled = true;
  }
  const url = tracesUrl(config);
  if (!url) return { exporting: false, close: async () => undefined };
  if (exporter && exporter.url !== url) {
    log?.warn({ url: exporter.url }, 'spans of this process already go to another collector; keeping it');
  }
  if (!exporter) {
    const resource = defaultResource()
      .merge(
        resourceFromAttributes({
          [ATTR_SERVICE_NAME]: `rota-${app}`,
          'service.namespace': 'rota',
          ...(instanceId ? { 'service.instance.id': instanceId } : {}),
        }),
      )
      // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME from the process environment.
      .merge(detectResources({ detectors: [envDetector] }))
      .merge(resourceFromAttributes(config.OTEL_SERVICE_NAME ? { [ATTR_SERVICE_NAME]: config.OTEL_SERVICE_NAME } : {}));
    const provider = new BasicTracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
    });
    trace.setGlobalTracerProvider(provider);
    exportFailures = { last: 0, suppressed: 0 };
    // A failed export is retried by nobody: say so now and then, not once per batch.
    setGlobalErrorHandler((err) => {
      const now = Date.now();
      if (now - exportFailures.last < 60_000) {
        exportFailures.suppressed++;
        return;
      }
      log?.warn(
        { err: err instanceof Error ? err.message : String(err), suppressed: exportFailures.suppressed },
        'could not export spans; they are dropped',
      );
      exportFailures = { last: now, suppressed: 0 };
    });
    exporter = { provider, url, users: 0 };
    log?.info({ url }, 'exporting spans over OTLP/HTTP');
  }
  const held = exporter;
  held.users++;
  let closed = false;
  return {
    exporting: true,
    close: async () => {
      if (closed) return;
      closed = true;
      held.users--;
      if (held.users > 0 || exporter !== held) return;
      exporter = undefined;
      // Later apps of this process (a new test stack) start from a clean slate.
      trace.disable();
      await held.provider.shutdown().catch(() => undefined);
    },
  };
}

/** Sends what the exporter holds now, for tests and for shutdown; a no-op with export off. */
export async function flushTraces(): Promise<void> {
  await exporter?.provider.forceFlush().catch(() => undefined);
}

/** The trace context to send with a message or job, or undefined when there is none to continue. */
export function traceCarrier(ctx: Context = context.active()): TraceCarrier | undefined {
  const sc = trace.getSpanContext(ctx);
  if (!sc || !trace.isSpanContextValid(sc)) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** The context a received message or job continues: its sender's, or a fresh root when it carries none. */
export function contextFromCarrier(carrier: TraceCarrier | undefined): Context {
  return carrier?.traceparent ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}

/** The trace id of the active span, for log lines; undefined outside any trace. */
export function currentTraceId(): string | undefined {
  const sc = trace.getSpanContext(context.active());
  return sc && trace.isSpanContextValid(sc) ? sc.traceId : undefined;
}

/**
 * Marks a span failed for an error code of ours when the code is a server
 * fault (5xx); a refusal of the caller (4xx) is not the server failing.
 * Only the code is recorded: messages may quote what the caller sent.
 */
export function recordErrorCode(span: Span, code: string): void {
  if (!span.isRecording()) return;
  span.setAttribute('rota.error_code', code);
  if (!isErrorCode(code) || ERROR_STATUS[code] >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Runs `fn` inside a new span under `parent` (the active context unless
 * given), ends it when `fn` settles, and marks it failed when `fn` throws.
 * The error's name (or its code) is recorded, never its message.
 */
export async function inSpan<T>(
  scope: string,
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = trace
    .getTracer(scope)
    .startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    if (span.isRecording()) {
      const code = (err as { code?: unknown }).code;
      span.setAttribute('error.type', typeof code === 'string' ? code : err instanceof Error ? err.name : 'error');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    throw err;
  } finally {
    span.end();
  }
}
