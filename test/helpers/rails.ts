import type { Stack } from './stack';

type Api = (method: string, path: string, json?: unknown) => Promise<{ status: number; json: any }>;

/**
 * Stores a connection. Right after boot the in-process worker embeds the
 * catalog and can hold the event loop past the transport's Redis command
 * timeout, which the gateway answers 503/504; storing a connection is an
 * upsert, so it is sent again (a retried write finds the first one's row: 200).
 */
export async function saveConnection(api: Api, server: string, credentials: Record<string, string>) {
  let r = await api('POST', '/v1/connections', { server_id: server, credentials });
  for (let i = 0; i < 3 && (r.status === 503 || r.status === 504); i++) {
    await new Promise((res) => setTimeout(res, 1000));
    r = await api('POST', '/v1/connections', { server_id: server, credentials });
  }
  return r;
}

/**
 * Points a global provider's test base URL somewhere else (a closed port) or
 * back at the sandbox. Global rows are `owner = ''` (their `project_id` is
 * NULL); returns how many rows changed, which a test expects to be 1.
 *
 * Credentials are bound to the origin they were stored for, so a test that
 * moves the provider (to make it refuse connections, say) also moves its test
 * connections, as if each had been stored again for the new address; without
 * that, the call would stop at the origin check and never dial.
 */
export async function setTestBaseUrl(stack: Stack, provider: string, url: string): Promise<number> {
  const changed = await stack.db.prisma.$executeRawUnsafe(
    `UPDATE providers SET base_urls = jsonb_set(base_urls, '{test}', to_jsonb($1::text)) WHERE id = $2 AND owner = ''`,
    url,
    provider,
  );
  await stack.db.prisma.$executeRawUnsafe(
    `UPDATE connections SET origin = $1 WHERE server_id = $2 AND environment = 'test'`,
    new URL(url).origin,
    provider,
  );
  return changed;
}
