/**
 * Pure helpers for the telemetry window: hours, latency buckets, and the
 * statistics one provider-and-tool hash holds for the last 24 hours.
 */

export const HOUR_MS = 3_600_000;
export const WINDOW_HOURS = 24;

/** Upper bounds (ms) of the latency buckets; one more bucket catches everything slower. */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 1500, 2000, 3000, 5000, 10_000, 30_000, 60_000,
];
export const BUCKETS = LATENCY_BOUNDS_MS.length + 1;

export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS);
}

export function bucketOf(latencyMs: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (latencyMs <= LATENCY_BOUNDS_MS[i]!) return i;
  return LATENCY_BOUNDS_MS.length;
}

/**
 * The median of a bucketed distribution, interpolated linearly inside the
 * bucket that holds it. Null for an empty distribution.
 */
export function medianOf(counts: readonly number[]): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const target = total / 2;
  let before = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i] ?? 0;
    if (c > 0 && before + c >= target) {
      const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
      const upper = i < LATENCY_BOUNDS_MS.length ? LATENCY_BOUNDS_MS[i]! : lower * 2;
      return Math.round(lower + ((target - before) / c) * (upper - lower));
    }
    before += c;
  }
  return null;
}

/** What one provider-and-tool pair did over the window. */
export interface WindowStats {
  attempts: number;
  successes: number;
  latency_sum_ms: number;
  /** Bucket counts over the whole window. */
  histogram: number[];
  /** Per hour, oldest first. */
  attempts_by_hour: number[];
  p50_by_hour: Array<number | null>;
  /** Last failure's code, when it happened inside the window. */
  last_error_code: string | null;
}

export function emptyStats(): WindowStats {
  return {
    attempts: 0,
    successes: 0,
    latency_sum_ms: 0,
    histogram: new Array<number>(BUCKETS).fill(0),
    attempts_by_hour: new Array<number>(WINDOW_HOURS).fill(0),
    p50_by_hour: new Array<number | null>(WINDOW_HOURS).fill(null),
    last_error_code: null,
  };
}

/**
 * Reads the hash written by the record script. Fields per slot `i` (hour
 * modulo 24): `h:i` the hour it holds, `a:i` attempts, `s:i` successes,
 * `t:i` latency sum, `b:i:k` bucket counts; plus `err` and `err_at`.
 */
export function statsFromHash(hash: Record<string, string>, currentHour: number): WindowStats {
  const out = emptyStats();
  const first = currentHour - WINDOW_HOURS + 1;
  for (let idx = 0; idx < WINDOW_HOURS; idx++) {
    const hour = first + idx;
    const slot = ((hour % WINDOW_HOURS) + WINDOW_HOURS) % WINDOW_HOURS;
    if (Number(hash[`h:${slot}`]) !== hour) continue;
    const attempts = Number(hash[`a:${slot}`] ?? 0);
    out.attempts += attempts;
    out.successes += Number(hash[`s:${slot}`] ?? 0);
    out.latency_sum_ms += Number(hash[`t:${slot}`] ?? 0);
    out.attempts_by_hour[idx] = attempts;
    const hourly = new Array<number>(BUCKETS).fill(0);
    for (let k = 0; k < BUCKETS; k++) {
      const n = Number(hash[`b:${slot}:${k}`] ?? 0);
      hourly[k] = n;
      out.histogram[k]! += n;
    }
    out.p50_by_hour[idx] = medianOf(hourly);
  }
  const errAt = Number(hash['err_at'] ?? NaN);
  if (hash['err'] && Number.isFinite(errAt) && hourOf(errAt) >= first) out.last_error_code = hash['err'];
  return out;
}
