import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { isPublicAddress } from '@rota/providers';

/** A URL the import will not fetch, or a fetch that failed; always the caller's input at fault. */
export class CatalogUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogUrlError';
  }
}

/**
 * Which addresses a catalog fetch may connect to. Catalog imports and live
 * MCP listings reach public addresses only, whoever asks (the HTTP route and
 * the CLI alike) and whatever the configuration: nothing in any app or
 * environment variable widens it.
 */
export interface UrlPolicy {
  /**
   * Decides each resolved or literal address. Only this repository's own
   * tests pass one, to reach a fake server on loopback; the default admits
   * public addresses only.
   */
  addressAllowed?: (address: string) => boolean;
}

const allowed = (policy: UrlPolicy, address: string): boolean => (policy.addressAllowed ?? isPublicAddress)(address);

/** The documented limits of every catalog fetch: a file by URL, or a live MCP listing. */
export const CATALOG_FETCH_MAX_BYTES = 64 * 1024 * 1024;
export const CATALOG_FETCH_TIMEOUT_MS = 30_000;

// Addresses are classified by the same function provider calls use.
export { isPublicAddress };

/**
 * Whether calls to provider `providerId` may reach non-public addresses: only
 * for the operator's entries (`owner` '') whose ids are listed in
 * `ROTA_PRIVATE_PROVIDERS` (comma-separated), such as a sandbox running
 * beside Rota; a project's own provider never, whatever its id. Catalog
 * imports never consult it; their URLs come from callers.
 */
export function privateAddressAllowed(
  providerId: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  owner = '',
): boolean {
  if (owner !== '') return false;
  const listed = (env.ROTA_PRIVATE_PROVIDERS ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id.length > 0);
  return listed.includes(providerId);
}

function checkUrl(raw: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new CatalogUrlError(`not a URL: ${String(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CatalogUrlError(`only http and https URLs are fetched, not ${url.protocol}`);
  return url;
}

/**
 * DNS lookup that refuses non-public addresses at connect time, so a name
 * cannot pass a check and then resolve elsewhere (DNS rebinding).
 */
function guardedLookup(policy: UrlPolicy) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number },
    cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return cb(err, '');
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !allowed(policy, a.address));
      if (bad)
        return cb(
          new CatalogUrlError(
            `${hostname} resolves to a non-public address (${bad.address}); catalogs are fetched from public addresses only`,
          ),
          '',
        );
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
  if (isIP(host) && !allowed(policy, host)) {
    return Promise.reject(
      new CatalogUrlError(`${host} is not a public address; catalogs are fetched from public addresses only`),
    );
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: init.method ?? 'GET',
        headers: init.headers,
        lookup: guardedLookup(policy) as never,
        signal: init.signal,
      },
      resolve,
    );
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

export interface GuardedFetchOptions extends UrlPolicy {
  /**
   * Bytes of response body this fetch reads in all, over every request it
   * makes (default {@link CATALOG_FETCH_MAX_BYTES}), so a paged listing is
   * held to the same limit as one file.
   */
  maxBytes?: number;
  /** Deadline of each request, its body included (default {@link CATALOG_FETCH_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** Passes chunks through until `budget` runs out, then fails the stream instead of buffering more. */
function metered(
  res: IncomingMessage,
  href: string,
  budget: { left: number; max: number },
): ReadableStream<Uint8Array> {
  return (Readable.toWeb(res) as ReadableStream<Uint8Array>).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        budget.left -= chunk.byteLength;
        if (budget.left < 0) {
          res.destroy();
          controller.error(new CatalogUrlError(`${href} is larger than ${budget.max} bytes`));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * A `fetch` for the MCP client that applies the same address policy and the
 * same size and time limits as a catalog file. It streams the response body,
 * which Server-Sent Events need, and fails it once the byte budget is spent.
 */
export function guardedFetch(
  opts: GuardedFetchOptions,
): (input: string | URL, init?: RequestInit) => Promise<Response> {
  const max = opts.maxBytes ?? CATALOG_FETCH_MAX_BYTES;
  const budget = { left: max, max };
  return async (input, init = {}) => {
    const url = checkUrl(input);
    const body = typeof init.body === 'string' ? init.body : init.body instanceof Uint8Array ? init.body : undefined;
    const deadline = AbortSignal.timeout(opts.timeoutMs ?? CATALOG_FETCH_TIMEOUT_MS);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    let res: IncomingMessage;
    try {
      res = await send(url, opts, { method: init.method, headers: headersOf(init.headers), body, signal });
    } catch (err) {
      if (deadline.aborted) throw new CatalogUrlError(`could not fetch ${url.href}: timed out`);
      throw err;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (Array.isArray(v)) for (const item of v) headers.append(k, item);
      else if (v !== undefined) headers.set(k, v);
    }
    const status = res.statusCode ?? 502;
    const nullBody = status === 204 || status === 304 || (init.method ?? 'GET').toUpperCase() === 'HEAD';
    if (nullBody) {
      res.resume();
      return new Response(null, { status, headers });
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > budget.left) {
      res.destroy();
      throw new CatalogUrlError(`${url.href} is larger than ${max} bytes`);
    }
    return new Response(metered(res, url.href, budget), { status, headers });
  };
}

export interface FetchTextOptions extends UrlPolicy {
  /** Refuse bodies larger than this (default {@link CATALOG_FETCH_MAX_BYTES}). */
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
}

/** GETs a catalog file over http(s) under the address policy, following a few redirects. */
export async function fetchCatalogText(raw: string, opts: FetchTextOptions = {}): Promise<string> {
  const maxBytes = opts.maxBytes ?? CATALOG_FETCH_MAX_BYTES;
  const signal = AbortSignal.timeout(opts.timeoutMs ?? CATALOG_FETCH_TIMEOUT_MS);
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
