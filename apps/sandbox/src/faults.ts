import { randomUUID } from 'node:crypto';

export const FAULT_MODES = ['refuse', '5xx', 'slow', 'timeout_after_accept', '429'] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

/**
 * A failure the sandbox plays instead of (or around) a provider's answer.
 * - `refuse`: the connection is reset as soon as the request arrives; nothing ran.
 * - `5xx`: an error status (500 unless `status`) in the provider's shape; nothing ran.
 * - `slow`: the normal answer, `delay_ms` late (2000 by default).
 * - `timeout_after_accept`: the request is accepted and never answered. By
 *   default it still runs (`commit: true`), so a charge exists that the
 *   caller never heard of, the case idempotency keys and reconciliation are
 *   for; `commit: false` hangs before anything runs.
 * - `429`: the provider's rate limit, with `Retry-After` (`retry_after` seconds, 1 by default).
 */
export interface FaultRule {
  /** A configured prefix, or `*` for all of them. */
  provider: string;
  /** A route name (`create_payment`, `oauth_token`…); absent means every route. */
  route?: string;
  mode: FaultMode;
  /** How many requests it applies to before disarming; absent means until cleared. */
  times?: number;
  status?: number;
  delay_ms?: number;
  retry_after?: number;
  commit?: boolean;
}

export interface ArmedFault extends FaultRule {
  id: string;
  /** Requests it has applied to so far. */
  hits: number;
}

/** Checks a rule sent to the control API; the message names the first bad field. */
export function parseFaultRule(input: unknown, knownProviders: string[]): FaultRule | string {
  if (typeof input !== 'object' || input === null) return 'body must be an object';
  const r = input as Record<string, unknown>;
  if (typeof r.provider !== 'string' || (r.provider !== '*' && !knownProviders.includes(r.provider)))
    return `provider must be one of *, ${knownProviders.join(', ')}`;
  if (r.route !== undefined && (typeof r.route !== 'string' || !r.route)) return 'route must be a route name';
  if (!FAULT_MODES.includes(r.mode as FaultMode)) return `mode must be one of ${FAULT_MODES.join(', ')}`;
  const int = (name: string, min: number, max: number): string | undefined => {
    const v = r[name];
    return v === undefined || (Number.isInteger(v) && (v as number) >= min && (v as number) <= max)
      ? undefined
      : `${name} must be an integer in ${min}..${max}`;
  };
  const bad =
    int('times', 1, 1_000_000) ??
    int('status', 500, 599) ??
    int('delay_ms', 0, 600_000) ??
    int('retry_after', 0, 86_400);
  if (bad) return bad;
  if (r.commit !== undefined && typeof r.commit !== 'boolean') return 'commit must be a boolean';
  return {
    provider: r.provider,
    mode: r.mode as FaultMode,
    ...(r.route !== undefined ? { route: r.route as string } : {}),
    ...(r.times !== undefined ? { times: r.times as number } : {}),
    ...(r.status !== undefined ? { status: r.status as number } : {}),
    ...(r.delay_ms !== undefined ? { delay_ms: r.delay_ms as number } : {}),
    ...(r.retry_after !== undefined ? { retry_after: r.retry_after as number } : {}),
    ...(r.commit !== undefined ? { commit: r.commit as boolean } : {}),
  };
}

/** The armed rules, first match wins; a rule with `times` disarms itself when spent. */
export class FaultBook {
  private rules: ArmedFault[] = [];

  add(rule: FaultRule): ArmedFault {
    const armed = { ...rule, id: randomUUID(), hits: 0 };
    this.rules.push(armed);
    return armed;
  }

  list(): ArmedFault[] {
    return this.rules.map((r) => ({ ...r }));
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
  }

  /** The rule that applies to this request, counted as used. */
  take(provider: string, route: string): ArmedFault | undefined {
    const rule = this.rules.find(
      (r) => (r.provider === '*' || r.provider === provider) && (r.route === undefined || r.route === route),
    );
    if (!rule) return undefined;
    rule.hits++;
    if (rule.times !== undefined && rule.hits >= rule.times) this.remove(rule.id);
    return { ...rule };
  }
}
