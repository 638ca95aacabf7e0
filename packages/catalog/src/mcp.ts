import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { guardedFetch, CatalogUrlError, CATALOG_FETCH_TIMEOUT_MS, type UrlPolicy } from './url';

export interface McpListOptions extends UrlPolicy {
  /** Deadline of each request to the server, its answer included (default 30 s). */
  timeoutMs?: number;
  /** Bytes of answers read over the whole listing, every page together (default 64 MiB, as for a file). */
  maxBytes?: number;
  /** Extra headers, e.g. an Authorization header the server wants. */
  headers?: Record<string, string>;
  /** Stop after this many pages of `tools/list` (default 100). */
  maxPages?: number;
}

/**
 * Lists a live MCP server's tools over Streamable HTTP with the official
 * client, following `nextCursor` pages. The result has the shape of a
 * `tools/list` result, so it goes through the same parser as a file. The
 * server is held to the limits of a catalog file: every request has a
 * deadline, and answers are counted as they stream in and cut off at the
 * byte limit rather than buffered whole.
 */
export async function listMcpTools(url: string, opts: McpListOptions = {}): Promise<{ tools: unknown[] }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CatalogUrlError(`not a URL: ${url}`);
  }
  const timeout = opts.timeoutMs ?? CATALOG_FETCH_TIMEOUT_MS;
  const transport = new StreamableHTTPClientTransport(parsed, {
    fetch: guardedFetch({ addressAllowed: opts.addressAllowed, maxBytes: opts.maxBytes, timeoutMs: timeout }),
    requestInit: opts.headers ? { headers: opts.headers } : undefined,
  });
  const client = new Client({ name: 'rota-catalog-import', version: '0.1.0' });
  try {
    await client.connect(transport, { timeout });
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < (opts.maxPages ?? 100); page++) {
      const res = await client.listTools(cursor ? { cursor } : undefined, { timeout });
      tools.push(...res.tools);
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    return { tools };
  } catch (err) {
    if (err instanceof CatalogUrlError) throw err;
    const cause = (err as { cause?: unknown })?.cause;
    if (cause instanceof CatalogUrlError) throw cause;
    throw new CatalogUrlError(
      `could not list the tools of MCP server ${url}: ${err instanceof Error ? err.message : String(err)}`,
    );
  } finally {
    await client.close().catch(() => undefined);
  }
}
