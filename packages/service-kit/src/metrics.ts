import { createServer, type Server } from 'node:http';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';

/**
 * Prometheus metrics of one process. Every app registers its series on the
 * process's single registry through the get-or-create helpers below, so an
 * app and the libraries it shares (the transport, the job runner) can name
 * the same series without registering it twice: the in-process test stack
 * runs all five apps in one process, and production runs one per process.
 *
 * Series names start with `rota_`; label values are bounded sets (route
 * templates, pattern names, queue and job names, provider and tool ids from
 * the catalog), never ids of requests, sessions or tenants.
 */

let registry: Registry | undefined;

/** The process's registry, with the default process and Node.js series. */
export function metricsRegistry(): Registry {
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: 'rota_' });
  }
  return registry;
}

/** Latency buckets in seconds: sub-millisecond transport hops up to the longest service deadlines. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Config<C> = Omit<C, 'registers'>;

/** The counter `name`, created on first use. */
export function counter<L extends string>(config: Config<CounterConfiguration<L>>): Counter<L> {
  const reg = metricsRegistry();
  return (
    (reg.getSingleMetric(config.name) as Counter<L> | undefined) ?? new Counter<L>({ ...config, registers: [reg] })
  );
}

/** The histogram `name`, created on first use. */
export function histogram<L extends string>(config: Config<HistogramConfiguration<L>>): Histogram<L> {
  const reg = metricsRegistry();
  return (
    (reg.getSingleMetric(config.name) as Histogram<L> | undefined) ??
    new Histogram<L>({ buckets: LATENCY_BUCKETS, ...config, registers: [reg] })
  );
}

/**
 * The gauge `name`, created on first use. A gauge with `collect` is read at
 * scrape time (queue depths, embedding coverage); only the first
 * registration's `collect` runs, so register such a gauge once per process.
 */
export function gauge<L extends string>(config: Config<GaugeConfiguration<L>>): Gauge<L> {
  const reg = metricsRegistry();
  return (reg.getSingleMetric(config.name) as Gauge<L> | undefined) ?? new Gauge<L>({ ...config, registers: [reg] });
}

/** The exposition text of every series of this process, and its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const reg = metricsRegistry();
  return { contentType: reg.contentType, body: await reg.metrics() };
}

/** Transport series, shared by the client (caller side) and the server (handler side). */
export const transportMetrics = {
  clientSeconds: () =>
    histogram({
      name: 'rota_transport_client_duration_seconds',
      help: 'Time from sending a request over the service transport to its answer, by pattern and outcome (ok, or the error code).',
      labelNames: ['pattern', 'outcome'],
    }),
  clientErrors: () =>
    counter({
      name: 'rota_transport_client_errors_total',
      help: 'Requests over the service transport that ended in an error, by pattern and error code (the service’s own, or unavailable, upstream_timeout, outcome_unknown).',
      labelNames: ['pattern', 'code'],
    }),
  serverSeconds: () =>
    histogram({
      name: 'rota_transport_server_duration_seconds',
      help: 'Time a service spent handling a request from the transport, by service, pattern and outcome.',
      labelNames: ['service', 'pattern', 'outcome'],
    }),
  serverErrors: () =>
    counter({
      name: 'rota_transport_server_errors_total',
      help: 'Requests a service answered with an error, by service, pattern and error code.',
      labelNames: ['service', 'pattern', 'code'],
    }),
  serverDropped: () =>
    counter({
      name: 'rota_transport_server_dropped_total',
      help: 'Requests a service never ran: past their deadline when read, or answered by a peer first.',
      labelNames: ['service', 'reason'],
    }),
};

/** HTTP series of the gateway: by method, route template (never the raw URL) and status. */
export const httpMetrics = {
  seconds: () =>
    histogram({
      name: 'rota_http_request_duration_seconds',
      help: 'Time the gateway took to answer, by method, route template (`unmatched` for unknown paths) and status.',
      labelNames: ['method', 'route', 'status'],
    }),
  total: () =>
    counter({
      name: 'rota_http_requests_total',
      help: 'Requests the gateway answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
    }),
};

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

/**
 * A plain HTTP listener answering `GET /metrics` (anything else is 404).
 * Services have no HTTP port of their own; this one is opened only when
 * `ROTA_METRICS_PORT` is set, and should stay on a network Prometheus alone
 * reaches: it has no authentication.
 */
export function startMetricsListener(port: number, host = '127.0.0.1'): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    renderMetrics().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics could not be collected\n'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      // Scrapes alone never keep a process alive that is shutting down.
      server.unref();
      resolve({
        port: (server.address() as { port: number }).port,
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}
