import type { Environment, RouterMetricsQuery, RouterMetricsResponse, RouterMetricsRow } from '@rota/contracts';
import { RAILS } from '../rails/rails';
import type { PairKey, TelemetryStore } from './telemetry.store';
import { medianOf } from './window';

/**
 * One row per provider and tool: every pair a seed rail names (so a rail
 * with no traffic shows as zero attempts) plus any other pair that was
 * recorded, over the last 24 hours.
 */
export async function routerMetrics(
  store: TelemetryStore,
  env: Environment,
  query: RouterMetricsQuery,
): Promise<RouterMetricsResponse> {
  const pairs = new Map<string, PairKey>();
  for (const r of RAILS) pairs.set(`${r.provider_id}|${r.tool}`, { provider_id: r.provider_id, tool: r.tool });
  for (const p of await store.recordedPairs(env)) pairs.set(`${p.provider_id}|${p.tool}`, p);
  const wanted = [...pairs.values()]
    .filter(
      (p) =>
        (query.provider_id === undefined || p.provider_id === query.provider_id) &&
        (query.tool === undefined || p.tool === query.tool),
    )
    .sort((a, b) => a.provider_id.localeCompare(b.provider_id) || a.tool.localeCompare(b.tool));
  const stats = await store.read(env, wanted);
  const rows: RouterMetricsRow[] = wanted.map((p, i) => {
    const s = stats[i]!;
    return {
      provider_id: p.provider_id,
      tool: p.tool,
      attempts: s.attempts,
      success_rate: s.attempts > 0 ? Number((s.successes / s.attempts).toFixed(4)) : null,
      latency_p50_ms: medianOf(s.histogram),
      last_error_code: s.last_error_code,
      attempts_24h: s.attempts_by_hour,
      latency_24h: s.p50_by_hour,
    };
  });
  return { window_start: store.windowStart().toISOString(), rows };
}
