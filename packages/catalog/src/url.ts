import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import ipaddr from 'ipaddr.js';

/** A URL the import will not fetch, or a fetch that failed; always the caller's input at fault. */
export class CatalogUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogUrlError';
  }
}

export interface UrlPolicy {
  /** Allow loopback, private, link-local and other non-public addresses (tests, private networks). */
  allowPrivate: boolean;
}

/** True only for ordinary public unicast addresses. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // `::ffff:10.0.0.1` is a private IPv4 address in disguise.
  return ipaddr.process(address).range() === 'unicast';
}

function checkUrl(raw: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new CatalogUrlError(`not a URL: ${String(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CatalogUrlError(`only http and https URLs are fetched, not ${url.protocol}`);
  return url;
}

/**
 * DNS lookup that refuses non-public addresses at connect time, so a name
 * cannot pass a check and then resolve elsewhere (DNS rebinding).
 */
function guardedLookup(policy: UrlPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number }, cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return cb(err, '');
      const list = addresses as LookupAddress[];
      const bad = policy.allowPrivate ? undefined : list.find((a) => !isPublicAddress(a.address));
      if (bad) return cb(new CatalogUrlError(`${hostname} resolves to a non-public address (${bad.address}); set ROTA_CATALOG_ALLOW_PRIVATE_URLS=true to allow it`), '');
      if (list.length === 0) return cb(new CatalogUrlError(`${hostname} does not resolve`), '');
      if (options.all) return cb(null, list);
      return cb(null, list[0]!.address, list[0]!.family);
    });
  };
}

interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

function send(url: URL, policy: UrlPolicy, init: RawRequest): Promise<IncomingMessage> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Literal addresses never go through the lookup; check them here.
  if (isIP(host) && !policy.allowPrivate && !isPublicAddress(host)) {
    return Promise.reject(new CatalogUrlError(`${host} is not a public address; set ROTA_CATALOG_ALLOW_PRIVATE_URLS=true to allow it`));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, lookup: guardedLookup(policy) as never, signal: init.signal }, resolve);
    req.on('error', reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

function headersOf(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(h ?? {}).forEach((v, k) => (out[k] = v));
  return out;
}

/**
 * A `fetch` for the MCP client that applies the same address policy. It
 * streams the response body, which Server-Sent Events need.
 */
export function guardedFetch(policy: UrlPolicy): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const url = checkUrl(input);
    const body = typeof init.body === 'string' ? init.body : init.body instanceof Uint8Array ? init.body : undefined;
    const res = await send(url, policy, { method: init.method, headers: headersOf(init.headers), body, signal: init.signal ?? undefined });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (Array.isArray(v)) for (const item of v) headers.append(k, item);
      else if (v !== undefined) headers.set(k, v);
    }
    const status = res.statusCode ?? 502;
    const nullBody = status === 204 || status === 304 || (init.method ?? 'GET').toUpperCase() === 'HEAD';
    if (nullBody) res.resume();
    return new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream), { status, headers });
  };
}

export interface FetchTextOptions extends UrlPolicy {
  /** Refuse bodies larger than this (default 64 MiB). */
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
}

/** GETs a catalog file over http(s) under the address policy, following a few redirects. */
export async function fetchCatalogText(raw: string, opts: FetchTextOptions): Promise<string> {
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  const signal = AbortSignal.timeout(opts.timeoutMs ?? 30_000);
  let url = checkUrl(raw);
  for (let hop = 0; ; hop++) {
    let res: IncomingMessage;
    try {
      res = await send(url, opts, { headers: { accept: 'application/json' }, signal });
    } catch (err) {
      if (err instanceof CatalogUrlError) throw err;
      const msg = err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
      throw new CatalogUrlError(`could not fetch ${url.href}: ${signal.aborted ? 'timed out' : msg}`);
    }
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      if (hop >= (opts.maxRedirects ?? 3)) throw new CatalogUrlError(`too many redirects fetching ${raw}`);
      url = checkUrl(new URL(res.headers.location, url));
      continue;
    }
    if (status !== 200) {
      res.resume();
      throw new CatalogUrlError(`fetching ${url.href} answered HTTP ${status}`);
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.destroy();
      throw new CatalogUrlError(`${url.href} is larger than ${maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          res.destroy();
          throw new CatalogUrlError(`${url.href} is larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (err) {
      if (err instanceof CatalogUrlError) throw err;
      throw new CatalogUrlError(`could not read ${url.href}: ${signal.aborted ? 'timed out' : (err as Error).message}`);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}
