// The durable writes of a money call made under a caller's idempotency key,
// the way the session service wrote them before claims carried a token and
// the way it writes them now, taking turns against the same database:
//
//   before: claim the key; insert the pending row and link the key (one
//           statement, no ownership condition); complete the row; store the
//           answer under the key (a fourth statement);
//   now:    claim the key under a token; link the key only while it holds
//           the token, and insert the row only if it did (one statement);
//           complete the row and finish the key in one statement.
//
// Both flushed (synchronous commit), as a money call's writes are. Returns
// p50 and p95 of each and the difference of the p50s.
import { interleaved } from './common.mjs';

const CLAIM = `
  INSERT INTO idempotency_keys (org_id, project_id, environment, key, request_hash, state, deadline, expires_at, claim)
  VALUES ('org_dev', 'proj_dev', 'test', $1, 'h', 'running', now() + interval '5 seconds', now() + interval '1 day', $2)
  RETURNING (xmax = 0) AS fresh`;

const PENDING_BEFORE = `
  WITH call AS (
    INSERT INTO session_tool_calls (id, project_id, environment, tool, server, input, success, duration_ms, state, attempts, provider_idempotency_key, rail_id, attempt_log)
    VALUES ($1, 'proj_dev', 'test', $3, $4, '{}', false, 0, 'pending', 0, 'rota-k', $5, $6::jsonb) RETURNING id)
  UPDATE idempotency_keys SET tool_call_id = (SELECT id FROM call) WHERE org_id = 'org_dev' AND project_id = 'proj_dev' AND environment = 'test' AND key = $2`;

const PENDING_NOW = `
  WITH owned AS (
    UPDATE idempotency_keys SET tool_call_id = $1
    WHERE org_id = 'org_dev' AND project_id = 'proj_dev' AND environment = 'test' AND key = $2 AND claim = $7 AND state = 'running' AND tool_call_id IS NULL
    RETURNING 1),
  call AS (
    INSERT INTO session_tool_calls (id, project_id, environment, tool, server, input, success, duration_ms, state, attempts, provider_idempotency_key, rail_id, attempt_log)
    SELECT $1, 'proj_dev', 'test', $3, $4, '{}', false, 0, 'pending', 0, 'rota-k', $5, $6::jsonb WHERE EXISTS (SELECT 1 FROM owned) RETURNING id)
  SELECT count(*)::int AS written FROM call`;

const COMPLETE = `UPDATE session_tool_calls SET state = 'done', success = true, upstream_status = 200, attempts = 1, output = $2::jsonb WHERE id = $1 AND state = 'pending'`;

const FINISH_BEFORE = `UPDATE idempotency_keys SET state = 'done', response = $2::jsonb WHERE org_id = 'org_dev' AND project_id = 'proj_dev' AND environment = 'test' AND key = $1`;

const COMPLETE_NOW = `
  WITH done AS (
    UPDATE session_tool_calls SET state = 'done', success = true, upstream_status = 200, attempts = 1, output = $2::jsonb
    WHERE id = $1 AND state = 'pending' RETURNING id, project_id, environment),
  finished AS (
    UPDATE idempotency_keys SET state = 'done', response = $4::jsonb
    WHERE org_id = 'org_dev' AND key = $3 AND claim = $5 AND (project_id, environment) = (SELECT project_id, environment FROM done))
  SELECT * FROM done`;

/**
 * `call`: the tool, server, rail id and first attempt the pending row
 * carries (a raw tool has no rail). Leaves its rows behind in the
 * benchmark's own database.
 */
export async function keyedWrites(client, n, call) {
  const output = JSON.stringify({ status: 200, body: { id: 'pay_bench', value: 10 } });
  const answer = JSON.stringify({
    success: true,
    data: { status: 200, body: { id: 'pay_bench' } },
    tool_call_id: 'tc',
  });
  const attempt = call.attempt ? JSON.stringify([call.attempt]) : null;
  let i = 0;
  const before = async () => {
    const id = `tc_kb_${call.tool}_${i}`;
    const key = `kb-${call.tool}-${i}`;
    await client.query(CLAIM, [key, null]);
    await client.query(PENDING_BEFORE, [id, key, call.tool, call.server, call.railId ?? null, attempt]);
    await client.query(COMPLETE, [id, output]);
    await client.query(FINISH_BEFORE, [key, answer]);
  };
  const now = async () => {
    const id = `tc_kn_${call.tool}_${i}`;
    const key = `kn-${call.tool}-${i}`;
    const token = `claim-${i}`;
    await client.query(CLAIM, [key, token]);
    const w = await client.query(PENDING_NOW, [id, key, call.tool, call.server, call.railId ?? null, attempt, token]);
    if (w.rows[0].written !== 1) throw new Error('the pending row was not written under its own claim');
    await client.query(COMPLETE_NOW, [id, output, key, answer, token]);
    i++;
  };
  await client.query("SET synchronous_commit = 'on'");
  const [b, a] = await interleaved([before, now], n);
  return { before: b, now: a, added: a.p50 - b.p50 };
}
