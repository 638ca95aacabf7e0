/**
 * Governance commands over HTTP with a key (docs/governance.md): `policy`,
 * `rate-limits`, `approvals` and `usage` of the key's project and
 * environment. Each prints a short human answer, or with `--json` the API's
 * body as is.
 */
import { readFileSync } from 'node:fs';
import type { components } from '@rota/sdk';
import type { Command } from 'commander';
import { rotaClient } from './http';
import { CliError, formatTable, type CliIo } from './io';

type Schemas = components['schemas'];
type PolicyView = { environment: string; rules: Array<Record<string, unknown>>; updated_at: string | null };
type RateLimitsView = Schemas['RateLimits'];
type ApprovalView = Schemas['ApprovalList']['approvals'][number];
type UsageView = {
  period: { from: string; to: string };
  environment: string;
  calls: Array<{ tool: string; calls: number }>;
  total: number;
  quota: Record<string, unknown>;
};

const print = (io: CliIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

/** A JSON file (or `-` for standard input), parsed; a list is wrapped as `{[key]: list}`. */
function readJsonBody(file: string, key: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (err) {
    throw new CliError(`${file}: ${(err as Error).message}`);
  }
  return Array.isArray(parsed) ? { [key]: parsed } : parsed;
}

export function registerGovernanceCommands(program: Command, io: CliIo): void {
  const client = () => rotaClient(io);

  const policy = program
    .command('policy')
    .description("Policy rules of the key's project and environment (docs/governance.md)");
  const printRules = (view: PolicyView) => {
    if (view.rules.length === 0) return io.stdout(`no policy rules in ${view.environment}\n`);
    io.stdout(
      formatTable(
        ['ID', 'TYPE', 'RULE'],
        view.rules.map(({ id, type, ...rest }) => [String(id), String(type), JSON.stringify(rest)]),
      ),
    );
  };
  policy
    .command('get')
    .description('Print the rules (GET /v1/policy, scope servers:read)')
    .option('--json', "print the API's body")
    .action(async (o: { json?: boolean }) => {
      const view = (await client().api.get('/v1/policy')) as PolicyView;
      if (o.json) print(io, view);
      else printRules(view);
    });
  policy
    .command('set')
    .description(
      'Replace every rule with those of a JSON file: {"rules": [...]} or an array of rules (PUT /v1/policy, scope policy:write)',
    )
    .argument('<file>', 'a JSON file, or - for standard input')
    .option('--json', "print the API's body")
    .action(async (file: string, o: { json?: boolean }) => {
      const view = (await client().api.put('/v1/policy', { body: readJsonBody(file, 'rules') as never })) as PolicyView;
      if (o.json) print(io, view);
      else printRules(view);
    });

  const limits = program
    .command('rate-limits')
    .description("Rate limits of the key's project and environment (docs/governance.md)");
  const printLimits = (view: RateLimitsView) => {
    if (view.limits.length === 0) io.stdout(`no rate limits in ${view.environment}\n`);
    else
      io.stdout(
        formatTable(
          ['SCOPE', 'TARGET', 'PER SECOND', 'PER MINUTE'],
          view.limits.map((l) => [l.scope, l.target ?? '*', String(l.per_second ?? '-'), String(l.per_minute ?? '-')]),
        ),
      );
  };
  limits
    .command('get')
    .description('Print the limits (GET /v1/rate-limits, scope servers:read)')
    .option('--json', "print the API's body")
    .action(async (o: { json?: boolean }) => {
      const view = await client().api.get('/v1/rate-limits');
      if (o.json) print(io, view);
      else printLimits(view);
    });
  limits
    .command('set')
    .description(
      'Replace the limits with those of a JSON file: {"limits": [...]} or an array (PUT /v1/rate-limits, scope policy:write)',
    )
    .argument('<file>', 'a JSON file, or - for standard input')
    .option('--json', "print the API's body")
    .action(async (file: string, o: { json?: boolean }) => {
      const view = await client().api.put('/v1/rate-limits', { body: readJsonBody(file, 'limits') as never });
      if (o.json) print(io, view);
      else printLimits(view);
    });

  const approvals = program
    .command('approvals')
    .description('Approvals opened by approval_above rules (docs/governance.md)');
  const approvalRow = (a: ApprovalView) => [
    a.id,
    a.status,
    a.action ? `${a.tool} ${a.action}` : a.tool,
    a.amount_minor === null ? '-' : `${a.amount_minor} ${a.currency ?? ''}`.trim(),
    a.user_id ?? '-',
    a.expires_at,
  ];
  const APPROVAL_COLUMNS = ['ID', 'STATUS', 'CALL', 'AMOUNT (MINOR)', 'USER', 'EXPIRES'];
  approvals
    .command('list')
    .description('List approvals, newest first (GET /v1/approvals, scope servers:read)')
    .option('--status <status>', 'only pending, approved, denied, used or expired ones')
    .option('--json', "print the API's body")
    .action(async (o: { status?: string; json?: boolean }) => {
      const query = o.status ? { status: o.status } : {};
      const list = await client().api.get('/v1/approvals', { params: { query: query as never } });
      if (o.json) print(io, list);
      else if (list.approvals.length === 0) io.stdout('no approvals\n');
      else io.stdout(formatTable(APPROVAL_COLUMNS, list.approvals.map(approvalRow)));
    });
  for (const decision of ['approve', 'deny'] as const) {
    approvals
      .command(decision)
      .description(
        `${decision === 'approve' ? 'Approve' : 'Deny'} a pending approval (POST /v1/approvals/{id}/${decision}, scope approvals:write; not with the key that made the call)`,
      )
      .argument('<id>', 'approval id (apr_...)')
      .option('--json', "print the API's body")
      .action(async (id: string, o: { json?: boolean }) => {
        const path = decision === 'approve' ? '/v1/approvals/{id}/approve' : '/v1/approvals/{id}/deny';
        const a = (await client().api.post(path, { params: { path: { id } } } as never)) as ApprovalView;
        if (o.json) print(io, a);
        else io.stdout(`${a.id} ${a.status}${a.action ? ` (${a.tool} ${a.action})` : ` (${a.tool})`}\n`);
      });
  }

  program
    .command('usage')
    .description("This month's calls by tool for the key's project and environment, and the org quota (GET /v1/usage)")
    .option('--json', "print the API's body")
    .action(async (o: { json?: boolean }) => {
      const u = (await client().api.get('/v1/usage')) as UsageView;
      if (o.json) return print(io, u);
      const q = u.quota;
      io.stdout(`${u.environment} ${u.period.from.slice(0, 10)} to ${u.period.to.slice(0, 10)}: ${u.total} calls\n`);
      if (u.calls.length > 0)
        io.stdout(
          formatTable(
            ['TOOL', 'CALLS'],
            u.calls.map((c) => [c.tool, String(c.calls)]),
          ),
        );
      io.stdout(
        `org quota: ${String(q.used)} of ${String(q.limit)} (${String(q.plan)}${q.enforced ? '' : ', not enforced'})\n`,
      );
    });
}
