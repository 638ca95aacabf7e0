// Mixed load: path A search, codespar_discover and codespar_list_tools through
// execute, session creates and provider listings, from a few concurrent
// clients. Requests that write carry a unique marker (a session's user_id, a
// discover's use_case), so afterwards the database tells which of them ran,
// whatever their caller was told.
import { randomBytes } from 'node:crypto';
import { bearer, send } from './http.mjs';

/** The deadline a caller is promised (ROTA_RPC_TIMEOUT_MS) plus one second: past it a request is hung. */
export const hungAfterMs = (env) => Number(env.ROTA_RPC_TIMEOUT_MS ?? 5000) + 1000;

export const KINDS = ['search', 'discover', 'execute', 'session', 'providers'];

export function startLoad(stack, key, fx, { concurrency = 6 } = {}) {
  const records = [];
  const servers = fx.servers.slice(0, 2);
  const json = { ...bearer(key.key), 'content-type': 'application/json' };
  // Its own session, so nothing else in the run (the fuzzer closes sessions) takes it away.
  let session;
  const opened = send(stack.base, {
    method: 'POST',
    path: '/v1/sessions',
    headers: json,
    body: JSON.stringify({ servers, user_id: 'reliability-load' }),
  }).then((r) => (session = r.json?.id ?? 'ses_missing'));
  const timeoutMs = hungAfterMs(stack.env);
  const run = `r${randomBytes(3).toString('hex')}`;
  let n = 0;
  let stopped = false;
  const one = async (kind) => {
    const marker = `${run}m${n++}`;
    let req;
    switch (kind) {
      case 'search':
        req = {
          method: 'POST',
          path: '/v1/tools/search',
          headers: json,
          body: JSON.stringify({ intent: 'cobrar um cliente via pix', limit: 3 }),
        };
        break;
      case 'discover':
        req = {
          method: 'POST',
          path: `/v1/sessions/${session}/execute`,
          headers: json,
          body: JSON.stringify({ tool: 'codespar_discover', input: { use_case: `emitir boleto ${marker}` } }),
        };
        break;
      case 'execute':
        req = {
          method: 'POST',
          path: `/v1/sessions/${session}/execute`,
          headers: json,
          body: JSON.stringify({ tool: 'codespar_list_tools', input: {} }),
        };
        break;
      case 'session':
        req = {
          method: 'POST',
          path: '/v1/sessions',
          headers: json,
          body: JSON.stringify({ servers, user_id: marker }),
        };
        break;
      default:
        req = { path: '/v1/providers?limit=5', headers: bearer(key.key) };
    }
    const t = Date.now();
    const r = await send(stack.base, { ...req, timeoutMs });
    records.push({
      kind,
      marker: kind === 'session' || kind === 'discover' ? marker : null,
      t,
      ms: r.ms,
      status: r.status,
      // A policy refusal has no `error` key: its `ruleType` says what it is.
      code: r.json?.error ?? r.json?.data?.code ?? (r.json?.ruleType ? 'policy_denied' : null) ?? r.error ?? null,
      success: r.json?.success,
    });
  };
  const loops = Array.from({ length: concurrency }, async (_, i) => {
    await opened;
    let k = i;
    while (!stopped) await one(KINDS[k++ % KINDS.length]);
  });
  return {
    records,
    mark: () => records.length,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return records;
    },
  };
}

const ok = (r) => r.status >= 200 && r.status < 300 && r.success !== false;

/**
 * Which marked requests ran (a sessions row with the marker as user_id, or a
 * tool call whose input holds it) against what their callers were told.
 */
export async function reconcile(db, records) {
  const marked = records.filter((r) => r.marker);
  if (marked.length === 0) return { unavailableButRan: 0, lost: 0, examples: [] };
  const markers = marked.map((r) => r.marker);
  const ran = new Set();
  const s = await db.query('SELECT user_id FROM sessions WHERE user_id = ANY($1)', [markers]);
  for (const row of s.rows) ran.add(row.user_id);
  const c = await db.query(
    "SELECT substring(input::text from '(r[0-9a-f]{6}m[0-9]+)') AS m FROM session_tool_calls WHERE tool = 'codespar_discover' AND input::text ~ 'r[0-9a-f]{6}m[0-9]+'",
  );
  for (const row of c.rows) if (row.m) ran.add(row.m);
  let unavailableButRan = 0;
  let lost = 0;
  const examples = [];
  for (const r of marked) {
    if (r.status === 503 && r.code === 'unavailable' && ran.has(r.marker)) {
      unavailableButRan++;
      if (examples.length < 3) examples.push(`${r.kind} ${r.marker}`);
    }
    if (r.status >= 200 && r.status < 300 && !ran.has(r.marker)) lost++;
  }
  return { unavailableButRan, lost, examples };
}

/**
 * Milliseconds from `since` (the fault lifted) until the end of the last
 * failed answer: from then on every request succeeded. NaN when the window
 * ended on failures, or some kind of request never succeeded after `since`.
 */
export function recoveryMs(records, since) {
  const end = (r) => r.t + r.ms;
  const failed = records.filter((r) => !ok(r) && end(r) >= since);
  const last = failed.length ? Math.max(...failed.map(end)) : since;
  for (const kind of KINDS) if (!records.some((r) => r.kind === kind && ok(r) && r.t >= last)) return NaN;
  return last - since;
}

export { ok as succeeded };
