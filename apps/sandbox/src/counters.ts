import type { FaultMode } from './faults';

type Tally = Record<string, Record<string, number>>;

export interface CountersSnapshot {
  /** Requests per prefix and route name (`unknown_route` for paths no route matches). */
  requests: Tally;
  requests_total: number;
  /** Resources created per prefix (`charges`, `refunds`, `invoices`, `messages`, `labels`…). */
  created: Tally;
  /** Charges (payments) created across every prefix: the figure a double-charge test watches. */
  charges_created: number;
  idempotent_replays: number;
  idempotency_conflicts: number;
  /** Requests refused for their credential, per prefix. */
  auth_failures: Record<string, number>;
  /** Calls to each prefix's OAuth2 token endpoint. */
  token_requests: Record<string, number>;
  faults_applied: Tally;
  /** The credential headers last seen per prefix, masked (scheme and length only). */
  last_credentials: Record<string, Record<string, string>>;
  /** The idempotency key last seen per prefix (keys are not secrets). */
  last_idempotency_key: Record<string, string>;
  /** Requests that carried an idempotency key, per prefix and key, replays included: how often one key reached the provider. */
  keyed_requests: Tally;
}

function bump(t: Tally, a: string, b: string): void {
  const row = (t[a] ??= {});
  row[b] = (row[b] ?? 0) + 1;
}

/** What tests read through `GET /_control/counters`. */
export class Counters {
  private s: CountersSnapshot = Counters.empty();

  private static empty(): CountersSnapshot {
    return {
      requests: {},
      requests_total: 0,
      created: {},
      charges_created: 0,
      idempotent_replays: 0,
      idempotency_conflicts: 0,
      auth_failures: {},
      token_requests: {},
      faults_applied: {},
      last_credentials: {},
      last_idempotency_key: {},
      keyed_requests: {},
    };
  }

  request(provider: string, route: string): void {
    bump(this.s.requests, provider, route);
    this.s.requests_total++;
  }

  created(provider: string, resource: string): void {
    bump(this.s.created, provider, resource);
    if (resource === 'charges') this.s.charges_created++;
  }

  replay(): void {
    this.s.idempotent_replays++;
  }

  conflict(): void {
    this.s.idempotency_conflicts++;
  }

  authFailure(provider: string): void {
    this.s.auth_failures[provider] = (this.s.auth_failures[provider] ?? 0) + 1;
  }

  tokenRequest(provider: string): void {
    this.s.token_requests[provider] = (this.s.token_requests[provider] ?? 0) + 1;
  }

  fault(provider: string, mode: FaultMode): void {
    bump(this.s.faults_applied, provider, mode);
  }

  credentials(provider: string, masked: Record<string, string>): void {
    this.s.last_credentials[provider] = masked;
  }

  idempotencyKey(provider: string, key: string): void {
    this.s.last_idempotency_key[provider] = key;
    bump(this.s.keyed_requests, provider, key);
  }

  snapshot(): CountersSnapshot {
    return structuredClone(this.s);
  }

  reset(): void {
    this.s = Counters.empty();
  }
}
