import { createHash } from 'node:crypto';
import type { ExecuteCommand } from '@rota/contracts';

/** JSON with object keys sorted at every level, so equal requests hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What makes two execute requests "the same" for an idempotency key: the
 * session (or the project context), the tool as called and its input as
 * sent, before any coercion.
 */
export function requestHash(cmd: Pick<ExecuteCommand, 'session_id' | 'tool' | 'input'>): string {
  return createHash('sha256')
    .update(canonical({ session: cmd.session_id, tool: cmd.tool, input: cmd.input }))
    .digest('hex');
}
