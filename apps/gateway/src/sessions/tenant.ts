import { AppError } from '@rota/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';

/** Ids are opaque to clients; anything that cannot be one is simply not found, like any other unknown id. */
const ID = /^[A-Za-z0-9_-]{1,200}$/;
export function sessionIdParam(id: string): string {
  if (!ID.test(id)) throw new AppError('session_not_found', 'No session with this id.');
  return id;
}

const PublicUrl = z.object({ ROTA_PUBLIC_URL: z.url().optional().or(z.literal('')) });
let configured: string | undefined | null = null;

/**
 * The base of URLs handed to clients (the session's MCP URL). Set
 * `ROTA_PUBLIC_URL` behind a proxy or load balancer; otherwise the URL the
 * request came in on is used.
 */
export function publicBaseUrl(req: FastifyRequest): string {
  if (configured === null) {
    const parsed = PublicUrl.safeParse({ ROTA_PUBLIC_URL: process.env.ROTA_PUBLIC_URL });
    if (!parsed.success) throw new Error('ROTA_PUBLIC_URL must be an absolute URL such as https://rota.example.com');
    configured = parsed.data.ROTA_PUBLIC_URL ? parsed.data.ROTA_PUBLIC_URL.replace(/\/+$/, '') : undefined;
  }
  return configured ?? `${req.protocol}://${req.host}`;
}
