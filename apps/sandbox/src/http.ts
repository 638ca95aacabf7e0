import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Reply } from './providers/types';

/** Bodies past this are refused with 413 before any provider logic sees them. */
export const MAX_BODY_BYTES = 1024 * 1024;

export class BodyTooLarge extends Error {}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        req.pause();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** JSON, or form fields for `application/x-www-form-urlencoded` (OAuth2 token requests). */
export function parseBody(raw: Buffer, contentType: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (raw.length === 0) return { ok: true, value: undefined };
  const text = raw.toString('utf8');
  if ((contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    return { ok: true, value: Object.fromEntries(new URLSearchParams(text)) };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | number> = { ...reply.headers };
  let payload: string | undefined;
  if (reply.body !== undefined) {
    payload = JSON.stringify(reply.body);
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = Buffer.byteLength(payload);
  } else {
    headers['content-length'] = 0;
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

export interface CompiledRoute<R> {
  route: R;
  method: string;
  pattern: RegExp;
  names: string[];
}

/** `/v3/payments/:id/refund` → a regex with one group per `:param`; `/*` captures the rest as `*`. */
export function compile<R extends { method: string; path: string }>(route: R): CompiledRoute<R> {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((seg) => {
      if (seg === '*') {
        names.push('*');
        return '(.*)';
      }
      if (seg.startsWith(':')) {
        names.push(seg.slice(1));
        return '([^/]+)';
      }
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { route, method: route.method, pattern: new RegExp(`^${source}$`), names };
}

export function match<R>(
  routes: CompiledRoute<R>[],
  method: string,
  path: string,
): { route: R; params: Record<string, string> } | undefined {
  // A trailing slash names the same resource (`/v3/payments/`).
  const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  for (const r of routes) {
    if (r.method !== method) continue;
    const m = r.pattern.exec(p);
    if (!m) continue;
    const params: Record<string, string> = {};
    r.names.forEach((n, i) => {
      const raw = m[i + 1] ?? '';
      try {
        params[n] = decodeURIComponent(raw);
      } catch {
        params[n] = raw;
      }
    });
    return { route: r.route, params };
  }
  return undefined;
}
