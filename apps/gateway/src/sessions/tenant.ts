import { AppError } from '@rota/contracts';
import type { AddressInfo } from 'node:net';
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
 * `ROTA_PUBLIC_URL` behind a proxy or load balancer; otherwise it is the
 * address the gateway listens on. Never a request header: a `Host` chosen by
 * the caller would let anyone put their own server into the URL another
 * client is told to connect to with its key.
 */
export function publicBaseUrl(req: FastifyRequest): string {
  if (configured === null) {
    const parsed = PublicUrl.safeParse({ ROTA_PUBLIC_URL: process.env.ROTA_PUBLIC_URL });
    if (!parsed.success) throw new Error('ROTA_PUBLIC_URL must be an absolute URL such as https://rota.example.com');
    configured = parsed.data.ROTA_PUBLIC_URL ? parsed.data.ROTA_PUBLIC_URL.replace(/\/+$/, '') : undefined;
  }
  return configured ?? listenerUrl(req.server.server.address());
}

/** `http://host:port` of a bound listener; a wildcard address becomes loopback. */
export function listenerUrl(address: AddressInfo | string | null): string {
  if (!address || typeof address === 'string') return 'http://127.0.0.1';
  let host = address.address;
  if (host === '0.0.0.0') host = '127.0.0.1';
  else if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}
