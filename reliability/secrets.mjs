// Secrets grep: the API keys of the run and the credential values stored
// through POST /v1/connections must appear nowhere outside the request that
// carried them: not in any response (counted as they arrive), not in any
// process's log, not in any table read as text, not in any Redis key or value.
import { execFileSync } from 'node:child_process';
import { pgClient, readLogs } from './lib/infra.mjs';
import { allSecrets, leaks } from './lib/http.mjs';

const redisHits = { keys: 0, scanned: 0, examples: [] };

/** Every key and value of the private Redis, as text (streams, hashes, lists, sets, strings). */
export function scanRedis(stack) {
  const cli = (...a) =>
    execFileSync('redis-cli', ['-p', String(stack.redis.port), '--no-raw', ...a], {
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
    });
  const secrets = allSecrets();
  const keys = execFileSync('redis-cli', ['-p', String(stack.redis.port), '--scan'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  })
    .split('\n')
    .filter(Boolean);
  for (const k of keys) {
    redisHits.scanned++;
    const type = cli('TYPE', k).trim();
    const dump =
      type === 'string'
        ? cli('GET', k)
        : type === 'hash'
          ? cli('HGETALL', k)
          : type === 'list'
            ? cli('LRANGE', k, '0', '-1')
            : type === 'set'
              ? cli('SMEMBERS', k)
              : type === 'zset'
                ? cli('ZRANGE', k, '0', '-1', 'WITHSCORES')
                : type === 'stream'
                  ? cli('XRANGE', k, '-', '+')
                  : '';
    const text = `${k}\n${dump}`;
    if (secrets.some((s) => text.includes(s))) {
      redisHits.keys++;
      if (redisHits.examples.length < 3) redisHits.examples.push(k);
    }
  }
}

export async function secretsGrep(stack, report) {
  const secrets = allSecrets();
  const S = 'secrets';
  const logHits = readLogs(stack)
    .filter((f) => secrets.some((s) => f.text.includes(s)))
    .map((f) => f.name);
  const db = await pgClient(stack.env.DATABASE_URL);
  const tableHits = [];
  try {
    const { rows } = await db.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    // Every secret starts with one of a few short prefixes (`csk_`, the
    // credential values' own): Postgres keeps only rows holding one of them,
    // and those are checked against every secret here. One pass per table
    // instead of one string search per secret and row.
    const prefixes = [...new Set(secrets.map((x) => x.slice(0, 4)))];
    for (const { table_name: t } of rows) {
      const { rows: candidates } = await db.query(
        `SELECT (to_jsonb(r) - 'embedding')::text AS t FROM "${t}" r WHERE ${prefixes.map((_, i) => `strpos((to_jsonb(r) - 'embedding')::text, $${i + 1}) > 0`).join(' OR ')}`,
        prefixes,
      );
      const n = candidates.filter((c) => secrets.some((x) => c.t.includes(x))).length;
      if (n > 0) tableHits.push(`${t}(${n})`);
    }
  } finally {
    await db.end();
  }
  scanRedis(stack);
  report.add(S, 'secrets looked for', `${secrets.length} (API keys and stored credential values)`);
  report.add(S, 'responses containing one', leaks.responses, {
    target: '0',
    ok: leaks.responses === 0,
    finding: leaks.examples.join('; '),
  });
  report.add(S, 'log files containing one', logHits.length, {
    target: '0',
    ok: logHits.length === 0,
    finding: `#11 (key in a logged URL): ${logHits.join(', ')}`,
  });
  report.add(S, 'table rows containing one', tableHits.length ? tableHits.join(' ') : 0, {
    target: '0',
    ok: tableHits.length === 0,
    finding: 'stored in clear',
  });
  report.add(S, `Redis keys containing one (of ${redisHits.scanned} scanned)`, redisHits.keys, {
    target: '0',
    ok: redisHits.keys === 0,
    finding: redisHits.examples.join(', '),
  });
}
