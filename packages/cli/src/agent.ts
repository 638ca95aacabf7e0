/**
 * The commands an agent developer runs against a gateway, over HTTP with an
 * API key: `login`, `search` (path A), `discover` (path B), `route` (path C),
 * `tools meta`, `tool`, and `sessions`. Each prints a short human answer, or
 * with `--json` the API's body as is.
 */
import { readFileSync } from 'node:fs';
import {
  metaToolsDocument,
  PATH_C_OPERATIONS,
  RAIL_METHODS,
  RECIPIENT_KINDS,
  SESSION_MAX_SERVERS,
  URGENCIES,
} from '@rota/contracts';
import type { DiscoverResult, ExecuteResponse, RouteRequest, RouteResponse, Session } from '@rota/sdk';
import { Option, type Command } from 'commander';
import { EXIT, resolveConnection, Rota as RotaClient, RotaError, rotaClient, saveProfile } from './http';
import { CliError, formatTable, type CliIo } from './io';

/** Sets the exit code of a command that printed its own answer (a tool's `success: false`). */
export interface ExitCodeSink {
  code: number;
}

const print = (io: CliIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

/** Splits `a,b , c` into distinct non-empty names. */
function list(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (names.length === 0) throw new CliError('--servers needs at least one provider id');
  return names;
}

function positiveInt(name: string) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new CliError(`${name} must be a whole number, got ${raw}`);
    return n;
  };
}

/**
 * `--arg k=v` pairs to an input object. A value that parses as JSON is taken
 * as JSON (`amount=100`, `capture=true`, `items=[1,2]`), anything else as a
 * string; dots in the key build nested objects (`customer.name=Ana`).
 */
export function parseArgs(pairs: string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`--arg expects key=value, got "${pair}"`);
    const path = pair.slice(0, eq).split('.');
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // A plain string.
    }
    let target = input;
    for (const part of path.slice(0, -1)) {
      const next = target[part];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) target[part] = {};
      target = target[part] as Record<string, unknown>;
    }
    target[path[path.length - 1]!] = value;
  }
  return input;
}

/**
 * Providers for a session the caller did not name: the connected ones, else
 * the catalog's first (filtered by country and category when given). Never
 * empty: an empty `servers` is a 400 the caller cannot act on.
 */
export async function pickServers(
  rota: RotaClient,
  filter: { country?: string; category?: string } = {},
): Promise<string[]> {
  const connections = await rota.api.get('/v1/connections');
  const connected = [
    ...new Set(connections.connections.filter((c) => c.status === 'connected').map((c) => c.server_id)),
  ];
  if (connected.length > 0) return connected.slice(0, SESSION_MAX_SERVERS);
  const query: Record<string, string | number> = { limit: SESSION_MAX_SERVERS };
  if (filter.country) query.country = filter.country;
  if (filter.category) query.category = filter.category;
  const page = await rota.api.get('/v1/providers', { params: { query: query as never } });
  const ids = page.servers.map((s) => s.id);
  if (ids.length === 0)
    throw new CliError(
      'no provider to open a session over: connect one (`POST /v1/connections`) or import a catalog, or pass --servers',
    );
  return ids;
}

/** Runs `fn` in a session of its own, closed afterwards whatever happens. */
async function inTemporarySession<T>(rota: RotaClient, servers: string[], fn: (s: Session) => Promise<T>): Promise<T> {
  const session = await rota.sessions.create(null, { servers, metadata: { opened_by: 'rota-cli' } });
  try {
    return await fn(session);
  } finally {
    await session.close().catch(() => undefined);
  }
}

function discoverText(r: DiscoverResult): string {
  const lines: string[] = [];
  if (r.meta_tools.length > 0) lines.push(`meta-tools: ${r.meta_tools.join(', ')}`);
  if (r.recommended)
    lines.push(
      `recommended: ${r.recommended.tool} (${r.recommended.connection_status}) - ${r.recommended.description}`,
    );
  else lines.push(`recommended: none (${r.recommended_reason})`);
  if (r.related.length > 0) {
    lines.push('related:');
    lines.push(
      formatTable(
        ['TOOL', 'CONNECTION', 'DESCRIPTION'],
        r.related.map((m) => [m.tool, m.connection_status, m.description]),
      ).trimEnd(),
    );
  }
  for (const step of r.next_steps) lines.push(`- ${step}`);
  return `${lines.join('\n')}\n`;
}

function routeText(r: RouteResponse): string {
  const rec = r.recommended;
  const lines = [`${rec.tool} via ${rec.provider_id} (${rec.rail})`, ...rec.reasons.map((reason) => `  ${reason}`)];
  if (r.alternatives.length > 0) {
    lines.push('alternatives:');
    lines.push(
      formatTable(
        ['PROVIDER', 'RAIL', 'TOOL'],
        r.alternatives.map((a) => [a.provider_id, a.rail, a.tool]),
      ).trimEnd(),
    );
  }
  const missing = rec.args_template.missing;
  if (missing.length > 0) lines.push(`still needed: ${missing.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function sessionText(s: {
  id: string;
  status: string;
  servers: string[];
  user_id: string | null;
  mcp: { url: string };
  closed_at?: string | null;
  expires_at?: string | null;
}): string {
  const rows: Array<[string, string]> = [
    ['id', s.id],
    ['status', s.status],
    ['servers', s.servers.join(', ')],
    ['user', s.user_id ?? '-'],
    ['mcp', s.mcp.url],
  ];
  if (s.expires_at !== undefined) rows.push(['expires', s.expires_at ?? '-']);
  if (s.closed_at !== undefined) rows.push(['closed', s.closed_at ?? '-']);
  return rows.map(([k, v]) => `${`${k}:`.padEnd(9)}${v}`).join('\n') + '\n';
}

export function registerAgentCommands(program: Command, io: CliIo, exit: ExitCodeSink): void {
  const client = () => rotaClient(io);

  program
    .command('login')
    .description(
      'Save a gateway URL and API key as a profile for the HTTP commands (checked against the gateway first)',
    )
    .option('--url <url>', 'gateway URL (default ROTA_URL or http://127.0.0.1:3000)')
    .option('--api-key <key>', 'API key (default ROTA_API_KEY)')
    .option('--profile <name>', 'profile name', 'default')
    .option('--json', 'print the result as JSON')
    .action(async (o: { url?: string; apiKey?: string; profile: string; json?: boolean }) => {
      const url = (o.url ?? io.env.ROTA_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
      const apiKey = o.apiKey ?? io.env.ROTA_API_KEY;
      if (!apiKey) throw new CliError('no API key: pass --api-key or set ROTA_API_KEY');
      // A wrong key or URL is caught now rather than at the first real command.
      await new RotaClient({ apiKey, baseUrl: url, retries: 0 }).api
        .get('/v1/providers', { params: { query: { limit: 1 } as never } })
        .catch((err: unknown) => {
          if (err instanceof RotaError && err.status === 403) return; // A key without servers:read is still a key.
          throw err;
        });
      const path = saveProfile(io, o.profile, { url, api_key: apiKey });
      if (o.json) print(io, { profile: o.profile, url, config: path });
      else io.stdout(`logged in to ${url} as profile ${o.profile} (saved in ${path})\n`);
    });

  program
    .command('search')
    .description('Path A: which meta-tools fit an intent (POST /v1/tools/search)')
    .argument('<intent>', 'what the agent wants to do, in words')
    .option('--limit <n>', 'at most this many hits (1 to 5)', positiveInt('--limit'))
    .option('--json', "print the API's body")
    .action(async (intent: string, o: { limit?: number; json?: boolean }) => {
      const r = await client().tools.search({ intent, ...(o.limit !== undefined ? { limit: o.limit } : {}) });
      if (o.json) return print(io, r);
      if (r.hits.length === 0)
        io.stdout(`no meta-tool fits (source: ${r.source}); rephrase rather than retry, or read \`rota tools meta\`\n`);
      else
        io.stdout(
          formatTable(
            ['TOOL', 'CONFIDENCE', 'WHY'],
            r.hits.map((h) => [h.tool_name, h.confidence, h.rationale]),
          ),
        );
    });

  program
    .command('discover')
    .description(
      'Path B: the catalog tools and meta-tools that fit a use case, in a session (opened and closed for you unless --session)',
    )
    .argument('<use-case>', 'what the agent wants to do, in words')
    .option('--servers <list>', 'comma-separated providers (default: the connected ones, else the catalog)')
    .option('--session <id>', 'run in this open session instead')
    .option('--limit <n>', 'at most this many matches', positiveInt('--limit'))
    .option('--country <code>', 'ISO country to prefer')
    .option('--category <slug>', 'catalog category to prefer')
    .option('--json', 'print the discover result as JSON')
    .action(
      async (
        useCase: string,
        o: { servers?: string; session?: string; limit?: number; country?: string; category?: string; json?: boolean },
      ) => {
        const rota = client();
        const opts = { limit: o.limit, country: o.country, category: o.category };
        const r = o.session
          ? await (await rota.sessions.get(o.session)).discover(useCase, opts)
          : await inTemporarySession(rota, list(o.servers) ?? (await pickServers(rota, o)), (s) =>
              s.discover(useCase, opts),
            );
        if (o.json) print(io, r);
        else io.stdout(discoverText(r));
      },
    );

  program
    .command('route')
    .description(
      'Path C: the provider rail for an operation (POST /v1/meta-tools/discover), from flags or from a description in words',
    )
    .argument('[description]', 'the operation in words (needs the gateway’s extractor); or use the flags')
    .addOption(new Option('--operation <op>', 'operation').choices([...PATH_C_OPERATIONS]))
    .option('--currency <code>', 'ISO 4217 currency, e.g. BRL')
    .option('--country <code>', 'ISO 3166 country, e.g. BR')
    .option('--amount <minor>', 'amount in minor units (4990 is BRL 49.90)', positiveInt('--amount'))
    .addOption(new Option('--method <method>', 'restrict to one rail method').choices([...RAIL_METHODS]))
    .addOption(new Option('--urgency <urgency>', 'how soon it must land').choices([...URGENCIES]))
    .addOption(new Option('--recipient-kind <kind>', 'what identifies the other side').choices([...RECIPIENT_KINDS]))
    .option('--json', "print the API's body")
    .action(
      async (
        description: string | undefined,
        o: {
          operation?: string;
          currency?: string;
          country?: string;
          amount?: number;
          method?: string;
          urgency?: string;
          recipientKind?: string;
          json?: boolean;
        },
      ) => {
        let body: RouteRequest;
        if (description !== undefined) {
          if (o.operation || o.currency || o.country)
            throw new CliError('give either a description or --operation/--currency/--country, not both');
          body = { description };
        } else {
          if (!o.operation || !o.currency || !o.country)
            throw new CliError('route needs a description, or --operation, --currency and --country');
          const intent: Record<string, unknown> = {
            operation: o.operation,
            currency: o.currency.toUpperCase(),
            country: o.country.toUpperCase(),
          };
          if (o.amount !== undefined) intent.amount_minor = o.amount;
          if (o.method) intent.method = o.method;
          if (o.urgency) intent.urgency = o.urgency;
          if (o.recipientKind) intent.recipient_kind = o.recipientKind;
          body = { intent } as RouteRequest;
        }
        const r = await client().metaTools.discover(body);
        if (o.json) print(io, r);
        else io.stdout(routeText(r));
      },
    );

  const tools = program.command('tools').description('The published meta-tools');
  tools
    .command('meta')
    .description(
      'Print the 15 published meta-tools, or one in full, from the definitions bundled with this CLI (no network)',
    )
    .argument('[name]', 'one meta-tool')
    .option('--json', 'print the /meta-tools.json document (or the one tool)')
    .action((name: string | undefined, o: { json?: boolean }) => {
      const doc = metaToolsDocument();
      if (name !== undefined) {
        const tool = doc.tools.find((t) => t.name === name);
        if (!tool) throw new CliError(`no meta-tool named ${name} (run \`rota tools meta\` for the 15 names)`);
        if (o.json) return print(io, tool);
        io.stdout(
          `${tool.name}\n\n${tool.description}\n\ninput schema:\n${JSON.stringify(tool.inputSchema, null, 2)}\n`,
        );
        return;
      }
      if (o.json) return print(io, doc);
      const firstSentence = (d: string) => d.split(/(?<=\.)\s/)[0] ?? d;
      io.stdout(
        formatTable(
          ['NAME', 'DESCRIPTION'],
          doc.tools.map((t) => [t.name, firstSentence(t.description)]),
        ),
      );
    });

  program
    .command('tool')
    .description('Run one tool (a meta-tool, codespar_list_tools, or a catalog tool server/tool) in a session')
    .argument('<name>', 'tool name')
    .option(
      '--arg <key=value>',
      'an input field; values are JSON when they parse as JSON (repeatable)',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--input-file <file>', 'the whole input as a JSON file (- for stdin)')
    .option('--session <id>', 'run in this open session (default: a session opened and closed for this call)')
    .option(
      '--servers <list>',
      'providers of the session opened for this call (default: the tool’s provider, else the connected ones)',
    )
    .option('--idempotency-key <key>', 'send this key rather than a fresh one')
    .option('--json', 'print the whole execute result')
    .action(
      async (
        name: string,
        o: {
          arg: string[];
          inputFile?: string;
          session?: string;
          servers?: string;
          idempotencyKey?: string;
          json?: boolean;
        },
      ) => {
        if (o.arg.length > 0 && o.inputFile) throw new CliError('give --arg or --input-file, not both');
        let input: Record<string, unknown> = parseArgs(o.arg);
        if (o.inputFile) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(readFileSync(o.inputFile === '-' ? 0 : o.inputFile, 'utf8'));
          } catch (err) {
            throw new CliError(`${o.inputFile}: ${(err as Error).message}`);
          }
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
            throw new CliError(`${o.inputFile}: the input must be a JSON object`);
          input = parsed as Record<string, unknown>;
        }
        const rota = client();
        const run = (s: Session) =>
          s.execute(name, input, o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {});
        let r: ExecuteResponse;
        if (o.session) r = await run(await rota.sessions.get(o.session));
        else {
          const servers =
            list(o.servers) ?? (name.includes('/') ? [name.slice(0, name.indexOf('/'))] : await pickServers(rota));
          r = await inTemporarySession(rota, servers, run);
        }
        if (o.json) print(io, r);
        else if (r.success) print(io, r.data);
        if (!r.success) {
          // A refusal of the call itself (session closed, policy) or a tool failure: one line, and its class in the exit code.
          const where = r.status === 200 ? '' : ` [HTTP ${r.status}${r.requestId ? `, request ${r.requestId}` : ''}]`;
          const message =
            typeof (r.data as { message?: unknown } | null)?.message === 'string'
              ? (r.data as { message: string }).message
              : (r.error ?? 'failed');
          io.stderr(`error: ${r.code}: ${message}${where}\n`.replace(/\s*\n\s*(?=.)/g, ' '));
          exit.code = r.status >= 500 ? EXIT.serverError : EXIT.refused;
        }
      },
    );

  const sessions = program.command('sessions').description('Open, read and close sessions');
  sessions
    .command('create')
    .description('Open a session over 1 to 20 providers and print its id')
    .option('--servers <list>', 'comma-separated providers (default: the connected ones, else the catalog)')
    .option('--user <id>', 'the end user the agent acts for')
    .option('--metadata <json>', 'a JSON object stored with the session')
    .option('--json', "print the API's body")
    .action(async (o: { servers?: string; user?: string; metadata?: string; json?: boolean }) => {
      let metadata: Record<string, unknown> | undefined;
      if (o.metadata !== undefined) {
        try {
          metadata = JSON.parse(o.metadata) as Record<string, unknown>;
        } catch (err) {
          throw new CliError(`--metadata: ${(err as Error).message}`);
        }
      }
      const rota = client();
      const s = await rota.sessions.create(o.user ?? null, {
        servers: list(o.servers) ?? (await pickServers(rota)),
        metadata,
      });
      if (o.json) print(io, s.data);
      else io.stdout(`${s.id}\n`);
    });
  sessions
    .command('show')
    .description('Print a session')
    .argument('<id>', 'session id (ses_...)')
    .option('--json', "print the API's body")
    .action(async (id: string, o: { json?: boolean }) => {
      const s = await client().sessions.get(id);
      if (o.json) print(io, s.data);
      else io.stdout(sessionText(s.data as Parameters<typeof sessionText>[0]));
    });
  sessions
    .command('close')
    .description('Close a session (closing again answers the first closed_at)')
    .argument('<id>', 'session id (ses_...)')
    .option('--json', "print the API's body")
    .action(async (id: string, o: { json?: boolean }) => {
      const r = await client().sessions.close(id);
      if (o.json) print(io, r);
      else io.stdout(`closed ${r.id} at ${r.closed_at}\n`);
    });

  // Validates the configuration without calling anything: handy in scripts.
  program
    .command('whoami')
    .description('Print the gateway and the key prefix the HTTP commands would use')
    .option('--json', 'print as JSON')
    .action((o: { json?: boolean }) => {
      const c = resolveConnection(io);
      const prefix = c.api_key.slice(0, 12);
      if (o.json) print(io, { url: c.url, key_prefix: prefix });
      else io.stdout(`${c.url} ${prefix}…\n`);
    });
}
