import { createHash } from 'node:crypto';
import type { Reply } from './providers/types';

type Entry = { fingerprint: string; state: 'running' } | { fingerprint: string; state: 'done'; reply: Reply };

export type IdempotencyDecision =
  /** First use: run the request, then `complete` (or `abandon`) it. */
  | { kind: 'new' }
  | { kind: 'replay'; reply: Reply }
  /** Same key, different request. */
  | { kind: 'conflict' }
  /** Same key while the first request is still running. */
  | { kind: 'in_progress' };

/** What makes two requests "the same": method, path, query and the exact body bytes. */
export function fingerprint(method: string, target: string, rawBody: Buffer): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${target}\n`).update(rawBody).digest('hex');
}

/**
 * Keys per prefix, held for the sandbox's lifetime (until a reset). An
 * answer the provider never finished (a 5xx, a refused connection) does not
 * keep its key, so a retry runs again, as it would against a real provider.
 */
export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  begin(provider: string, key: string, print: string): IdempotencyDecision {
    const id = `${provider}\u0000${key}`;
    const entry = this.entries.get(id);
    if (!entry) {
      this.entries.set(id, { fingerprint: print, state: 'running' });
      return { kind: 'new' };
    }
    if (entry.fingerprint !== print) return { kind: 'conflict' };
    return entry.state === 'running' ? { kind: 'in_progress' } : { kind: 'replay', reply: entry.reply };
  }

  complete(provider: string, key: string, print: string, reply: Reply): void {
    this.entries.set(`${provider}\u0000${key}`, { fingerprint: print, state: 'done', reply: structuredClone(reply) });
  }

  /** The answer a finished request under this key got (what a provider's lookup by key finds). */
  find(provider: string, key: string): Reply | undefined {
    const entry = this.entries.get(`${provider}\u0000${key}`);
    return entry?.state === 'done' ? structuredClone(entry.reply) : undefined;
  }

  abandon(provider: string, key: string): void {
    this.entries.delete(`${provider}\u0000${key}`);
  }

  reset(): void {
    this.entries.clear();
  }
}
