import type { RouterRecordRequest } from '@rota/contracts';
import { counter, histogram } from '@rota/service-kit';

const attempts = counter({
  name: 'rota_router_attempts_total',
  help: 'Routed provider attempts recorded by this router replica, by provider, tool and outcome (success or failure).',
  labelNames: ['provider', 'tool', 'outcome'],
});
const latency = histogram({
  name: 'rota_router_upstream_latency_seconds',
  help: 'Upstream latency of routed provider attempts, by provider and outcome.',
  labelNames: ['provider', 'outcome'],
});

/** Publishes one `router.record` event as Prometheus series (the 24-hour window in Redis stays the source of `/v1/router/metrics`). */
export function observeAttempt(e: RouterRecordRequest): void {
  const outcome = e.success ? 'success' : 'failure';
  attempts.inc({ provider: e.provider_id, tool: e.tool, outcome });
  latency.observe({ provider: e.provider_id, outcome }, e.latency_ms / 1000);
}
