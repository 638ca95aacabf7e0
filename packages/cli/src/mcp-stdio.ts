/**
 * `rota mcp stdio`: serves MCP on stdin/stdout and relays every message to
 * the gateway's Streamable HTTP endpoint, for clients that only start local
 * processes (Claude Desktop). Kept apart from the other commands so that it
 * loads only the relay: a client waits for the handshake of the process it
 * starts.
 *
 * The key comes from `ROTA_API_KEY` or the profile `rota login` saved, never
 * from the client's file. When the gateway offers `POST /v1/keys`, the relay
 * sends a short-lived child of that key instead, and mints the next one
 * before it expires; a gateway without the route (404) gets the saved key.
 */
import { resolveConnection, type Profile } from './http';
import { CliError, processIo, type CliIo } from './io';

/** What a minted key may do: enough for every meta-tool, nothing more. */
const RELAY_SCOPES = ['tools:execute', 'servers:read', 'sessions:create'];
/** Lifetime asked for a minted key, in seconds. */
const RELAY_KEY_TTL_S = 3600;
/** A minted key is replaced when this share of its life has passed. */
const REFRESH_AT = 0.8;
const MINT_DEADLINE_MS = 5000;

interface Minted {
  key: string;
  expiresAt: number;
}

/**
 * A short-lived key from `POST /v1/keys`, or null when the gateway does not
 * mint them (404, 405) or refuses this key (it lacks `keys:write`): the relay
 * then uses the saved key itself. Any other failure is null as well, with a
 * line on stderr, since the saved key still works.
 */
export async function mintRelayKey(c: Profile, io: CliIo, session?: string): Promise<Minted | null> {
  let res: Response;
  try {
    res = await fetch(`${c.url}/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        scopes: RELAY_SCOPES,
        expires_in: RELAY_KEY_TTL_S,
        name: 'rota mcp stdio',
        ...(session ? { session_id: session } : {}),
      }),
      signal: AbortSignal.timeout(MINT_DEADLINE_MS),
    });
  } catch (err) {
    io.stderr(`rota mcp stdio: could not mint a short-lived key (${(err as Error).message}); using the saved key\n`);
    return null;
  }
  const body = (await res.json().catch(() => null)) as { key?: unknown; expires_at?: unknown } | null;
  if (res.status === 404 || res.status === 405) return null;
  if (!res.ok || typeof body?.key !== 'string') {
    io.stderr(`rota mcp stdio: the gateway did not mint a short-lived key (HTTP ${res.status}); using the saved key\n`);
    return null;
  }
  const expiresAt = typeof body.expires_at === 'string' ? Date.parse(body.expires_at) : NaN;
  return { key: body.key, expiresAt: Number.isFinite(expiresAt) ? expiresAt : Date.now() + RELAY_KEY_TTL_S * 1000 };
}

function parseArgs(argv: string[]): { session?: string; profile?: string } {
  const out: { session?: string; profile?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (flag === '--session' || flag === '--profile') {
      const value = inline ?? argv[++i];
      if (!value) throw new CliError(`${flag} needs a value`);
      out[flag === '--session' ? 'session' : 'profile'] = value;
    } else if (flag === '--help' || flag === '-h') {
      throw new CliError('usage: rota mcp stdio [--session <id>] [--profile <name>]', { exitCode: 0 });
    } else throw new CliError(`unknown option ${a} (usage: rota mcp stdio [--session <id>] [--profile <name>])`);
  }
  return out;
}

type Message = { jsonrpc: '2.0'; id?: string | number | null; method?: string; result?: unknown; error?: unknown };

/** The JSON-RPC messages of a Streamable HTTP answer: a JSON body (one message or a batch) or an SSE stream of `data:` events. */
async function* answerMessages(res: Response): AsyncGenerator<unknown> {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/json')) {
    const body = (await res.json()) as unknown;
    yield* Array.isArray(body) ? body : [body];
    return;
  }
  if (!type.includes('text/event-stream') || !res.body) {
    await res.body?.cancel();
    return;
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (line === '') {
        if (data.length) yield JSON.parse(data.join('\n')) as unknown;
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
  }
  if (data.length) yield JSON.parse(data.join('\n')) as unknown;
}

/**
 * Relays JSON-RPC between stdio (one message per line) and the gateway's
 * Streamable HTTP endpoint until stdin closes: each message is POSTed with
 * the session id the gateway gave at `initialize`, and every message of the
 * answer (JSON or SSE) is written to stdout. A message the gateway refuses
 * at the HTTP level (a bad key, a closed session's 404) is answered to the
 * client as a JSON-RPC error for its id, so the client is never left
 * waiting. Written on `fetch` rather than on the MCP SDK's transports, whose
 * schemas take longer to load than a client waits for the handshake.
 */
export async function bridge(url: string, auth: { current: string }): Promise<void> {
  const { createInterface } = await import('node:readline');
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let initialized: Promise<void> = Promise.resolve();
  const inflight = new Set<Promise<void>>();
  const write = (m: unknown) => process.stdout.write(`${JSON.stringify(m)}\n`);
  const refuse = (m: Message, why: string) => {
    if (m.id !== undefined && m.method !== undefined)
      write({
        jsonrpc: '2.0',
        id: m.id,
        error: { code: -32603, message: `Rota at ${url} refused the request: ${why}` },
      });
  };

  const forward = async (m: Message): Promise<void> => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${auth.current}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (sessionId) headers['mcp-session-id'] = sessionId;
    if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(m) });
    } catch (err) {
      return refuse(m, (err as Error).message);
    }
    const given = res.headers.get('mcp-session-id');
    if (given) sessionId = given;
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      return refuse(m, `HTTP ${res.status}${text ? `: ${text.slice(0, 300)}` : ''}`);
    }
    try {
      for await (const answer of answerMessages(res)) {
        const a = answer as Message & { result?: { protocolVersion?: unknown } };
        if (m.method === 'initialize' && a.id === m.id && typeof a.result?.protocolVersion === 'string')
          protocolVersion = a.result.protocolVersion;
        write(answer);
      }
    } catch (err) {
      refuse(m, `unreadable answer (${(err as Error).message})`);
    }
  };

  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let m: Message;
    try {
      m = JSON.parse(line) as Message;
    } catch {
      write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      continue;
    }
    // Nothing overtakes `initialize`: every later message needs the session id it brings.
    const run = m.method === 'initialize' ? forward(m) : initialized.then(() => forward(m));
    if (m.method === 'initialize') initialized = run;
    inflight.add(run);
    void run.finally(() => inflight.delete(run));
  }
  await Promise.allSettled([...inflight]);
  if (sessionId) {
    // Ends the gateway's session; a client that is gone does not wait for it long.
    await fetch(url, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${auth.current}`, 'mcp-session-id': sessionId },
      signal: AbortSignal.timeout(2000),
    }).catch(() => undefined);
  }
}

/** `rota mcp stdio [--session <id>] [--profile <name>]`; resolves to the exit code when stdin closes. */
export async function runStdio(argv: string[], io: CliIo = processIo()): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const o = parseArgs(argv);
    const c = resolveConnection(o.profile ? { ...io, env: { ...io.env, ROTA_PROFILE: o.profile } } : io);
    const url = o.session ? `${c.url}/v1/sessions/${encodeURIComponent(o.session)}/mcp` : `${c.url}/mcp`;
    const auth = { current: c.api_key };
    const refresh = async (): Promise<void> => {
      const minted = await mintRelayKey(c, io, o.session);
      if (!minted) {
        // Never keep sending a minted key that could not be replaced.
        auth.current = c.api_key;
        return;
      }
      auth.current = minted.key;
      const wait = Math.max(30_000, (minted.expiresAt - Date.now()) * REFRESH_AT);
      timer = setTimeout(() => void refresh(), wait);
      timer.unref();
    };
    await refresh();
    await bridge(url, auth);
    return 0;
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr(`${err.exitCode === 0 ? '' : 'error: '}${err.message}\n`);
      return err.exitCode;
    }
    io.stderr(`error: ${(err as Error).message}\n`);
    return 1;
  } finally {
    if (timer) clearTimeout(timer);
  }
}
