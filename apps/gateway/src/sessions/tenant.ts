import { AppError } from '@rota/contracts';
import type { AddressInfo } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** Ids are opaque to clients; anything that cannot be one is simply not found, like any other unknown id. */
const ID = /^[A-Za-z0-9_-]{1,200}$/;
export function sessionIdParam(id: string): string {
  if (!ID.test(id)) throw new AppError('session_not_found', 'No session with this id.');
  return id;
}

/** `ROTA_PUBLIC_URL` of each gateway, keyed by its HTTP server. */
const configured = new WeakMap<object, string>();
/** The address each gateway's HTTP server listens on, once bound. */
const listening = new WeakMap<object, string>();

/** Records the gateway's `ROTA_PUBLIC_URL` (unset: the listening address is used). */
export function setPublicUrl(httpServer: object, url: string | undefined): void {
  if (url) configured.set(httpServer, url.replace(/\/+$/, ''));
}

/**
 * The base of URLs handed to clients: the session's MCP URL, the OpenAPI
 * `servers` entry, and (carried to the session service in the transport
 * envelope) OAuth redirect URIs. Set `ROTA_PUBLIC_URL` behind a proxy or load
 * balancer; otherwise it is the address the gateway actually listens on. Never
 * a request header: a `Host` chosen by the caller would let anyone put their
 * own server into the URL another client is told to connect to with its key.
 */
export function publicBaseUrl(req: FastifyRequest): string {
  const server = req.server.server;
  const url = configured.get(server) ?? listening.get(server);
  if (url) return url;
  const bound = listenerUrl(server.address());
  // Only a bound listener's address is worth keeping.
  if (server.listening) listening.set(server, bound);
  return bound;
}

/** `http://host:port` of a bound listener; a wildcard address becomes loopback. */
export function listenerUrl(address: AddressInfo | string | null): string {
  if (!address || typeof address === 'string') return 'http://127.0.0.1';
  let host = address.address;
  if (host === '0.0.0.0') host = '127.0.0.1';
  else if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}
