/**
 * Operations commands over HTTP with a key (docs/health.md): the health
 * rollup, exchange rates (`fx import <file>` for offline installs), webhook
 * subscriptions, and the router candidates report for
 * `/dashboard/router-candidates`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { FxDocumentError, parseFxDocument, FX_FORMATS, type FxFormat } from '@rota/contracts';
import { Option, type Command } from 'commander';
import { candidatesReport, type CatalogTool } from './candidates';
import { rotaClient } from './http';
import { CliError, formatTable, type CliIo } from './io';

const print = (io: CliIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

type Api = ReturnType<typeof rotaClient>['api'];
/** The SDK's typed client, loosely: these commands print bodies as they come. */
const loose = (api: Api) =>
  api as unknown as {
    get(path: string, init?: unknown): Promise<any>;
    post(path: string, init?: unknown): Promise<any>;
    delete(path: string, init?: unknown): Promise<any>;
  };

export function registerOperationsCommands(program: Command, io: CliIo): void {
  const api = () => loose(rotaClient(io).api);

  program
    .command('health')
    .description('The health rollup: six checks and the overall status (GET /v1/health, scope servers:read)')
    .option('--json', "print the API's body")
    .action(async (o: { json?: boolean }) => {
      const report = await api().get('/v1/health');
      if (o.json) return print(io, report);
      io.stdout(`${report.status}\n`);
      io.stdout(
        formatTable(
          ['CHECK', 'STATUS', 'SCOPE', 'MESSAGE'],
          Object.entries(report.checks as Record<string, { status: string; scope: string; message?: string }>).map(
            ([name, c]) => [name, c.status, c.scope, c.message ?? ''],
          ),
        ),
      );
    });

  const fx = program.command('fx').description('Exchange rates (docs/health.md)');
  fx.command('import')
    .description(
      'Store the rates of a JSON file, {"base", "rates": {...}} or {"rates": [{"base", "quote", "rate"}]} (POST /v1/fx/rates, operator key)',
    )
    .argument('<file>', 'a JSON file, or - for standard input')
    .addOption(new Option('--format <format>', 'the file’s format (default: detected)').choices([...FX_FORMATS]))
    .option('--source <label>', 'label stored with each rate', 'import')
    .option('--json', "print the API's body")
    .action(async (file: string, o: { format?: FxFormat; source: string; json?: boolean }) => {
      let rates;
      try {
        rates = parseFxDocument(JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8')), o.format);
      } catch (err) {
        throw new CliError(
          `${file}: ${err instanceof FxDocumentError || err instanceof SyntaxError ? err.message : (err as Error).message}`,
        );
      }
      const result = await api().post('/v1/fx/rates', { body: { source: o.source, rates } });
      if (o.json) print(io, result);
      else io.stdout(`imported ${result.imported} pair(s); ${result.kept_newer} kept a newer stored rate\n`);
    });
  fx.command('list')
    .description('Every stored pair (GET /v1/fx/rates)')
    .option('--json', "print the API's body")
    .action(async (o: { json?: boolean }) => {
      const list = await api().get('/v1/fx/rates');
      if (o.json) return print(io, list);
      io.stdout(
        formatTable(
          ['PAIR', 'RATE', 'SOURCE', 'FETCHED'],
          (list.rates as Array<{ base: string; quote: string; rate: string; source: string; fetched_at: string }>).map(
            (r) => [`${r.base}/${r.quote}`, r.rate, r.source, r.fetched_at],
          ),
        ),
      );
    });

  const hooks = program
    .command('webhooks')
    .description(
      "Webhook subscriptions of the key's project and environment, or the deployment's for an operator key (docs/health.md)",
    );
  hooks
    .command('create')
    .description('Subscribe a URL; prints the signing secret once (POST /v1/webhooks, scope webhooks:write)')
    .requiredOption('--url <url>', 'where events are POSTed')
    .requiredOption('--events <filters>', 'comma-separated event names or prefixes, e.g. system.health.*')
    .option('--description <text>')
    .option('--json', "print the API's body")
    .action(async (o: { url: string; events: string; description?: string; json?: boolean }) => {
      const events = o.events
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean);
      const created = await api().post('/v1/webhooks', {
        body: { url: o.url, events, ...(o.description ? { description: o.description } : {}) },
      });
      if (o.json) return print(io, created);
      io.stdout(`${created.id}\nsecret: ${created.secret}\n(shown once: keep it to verify webhook-signature)\n`);
    });
  hooks
    .command('list')
    .description('The subscriptions, newest first (GET /v1/webhooks)')
    .option('--json', "print the API's body")
    .action(async (o: { json?: boolean }) => {
      const list = await api().get('/v1/webhooks');
      if (o.json) return print(io, list);
      io.stdout(
        formatTable(
          ['ID', 'URL', 'EVENTS', 'SCOPE'],
          (list.webhooks as Array<{ id: string; url: string; events: string[]; scope: string }>).map((w) => [
            w.id,
            w.url,
            w.events.join(','),
            w.scope,
          ]),
        ),
      );
    });
  hooks
    .command('delete')
    .argument('<id>')
    .description('Stop deliveries to a subscription (DELETE /v1/webhooks/{id})')
    .option('--json', "print the API's body")
    .action(async (id: string, o: { json?: boolean }) => {
      const gone = await api().delete('/v1/webhooks/{id}', { params: { path: { id } } });
      if (o.json) return print(io, gone);
      io.stdout(`deleted ${id}\n`);
    });
  hooks
    .command('deliveries')
    .argument('<id>')
    .description('Deliveries with every attempt, newest first (GET /v1/webhooks/{id}/deliveries)')
    .option('--dead', 'only the dead-letter list')
    .option('--json', "print the API's body")
    .action(async (id: string, o: { dead?: boolean; json?: boolean }) => {
      const list = await api().get('/v1/webhooks/{id}/deliveries', {
        params: { path: { id }, query: o.dead ? { status: 'dead' } : {} },
      });
      if (o.json) return print(io, list);
      io.stdout(
        formatTable(
          ['DELIVERY', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST'],
          (
            list.deliveries as Array<{
              id: string;
              event_type: string;
              status: string;
              attempts: Array<{ status_code: number | null; error: string | null }>;
            }>
          ).map((d) => {
            const last = d.attempts[d.attempts.length - 1];
            return [
              d.id,
              d.event_type,
              d.status,
              String(d.attempts.length),
              last ? (last.error ?? String(last.status_code)) : '',
            ];
          }),
        ),
      );
    });
  hooks
    .command('replay')
    .argument('<id>')
    .argument('<delivery_id>')
    .description('Send a delivery again, a dead one included (POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay)')
    .option('--json', "print the API's body")
    .action(async (id: string, deliveryId: string, o: { json?: boolean }) => {
      const d = await api().post('/v1/webhooks/{id}/deliveries/{delivery_id}/replay', {
        params: { path: { id, delivery_id: deliveryId } },
      });
      if (o.json) return print(io, d);
      io.stdout(`${d.id} queued again\n`);
    });

  const router =
    program.commands.find((c) => c.name() === 'router') ?? program.command('router').description('Path C routing');
  router
    .command('candidates')
    .description('Catalog tools that look like rails of a meta-tool, as a report for /dashboard/router-candidates')
    .option('--out <file>', 'write the report here instead of standard output')
    .option(
      '--json',
      'the report is JSON already; with --out, print {out, candidates} as JSON instead of the summary line',
    )
    .action(async (o: { out?: string; json?: boolean }) => {
      const client = api();
      const tools: CatalogTool[] = [];
      let cursor: string | undefined;
      const servers: string[] = [];
      do {
        const page = await client.get('/v1/providers', {
          params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } },
        });
        for (const s of page.servers as Array<{ id: string }>) servers.push(s.id);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      for (const id of servers) {
        let next: string | undefined;
        do {
          const page = await client.get('/v1/servers/{id}/tools', {
            params: { path: { id }, query: { limit: 100, ...(next ? { cursor: next } : {}) } },
          });
          for (const t of page.tools as Array<{ name: string; description: string }>)
            tools.push({ server_id: id, name: t.name, description: t.description });
          next = page.next_cursor ?? undefined;
        } while (next);
      }
      const metrics = await client.get('/v1/router/metrics');
      const railed = new Set(
        (metrics.rows as Array<{ provider_id: string; tool: string }>).map((r) => `${r.provider_id}|${r.tool}`),
      );
      const report = candidatesReport(tools, railed);
      const text = `${JSON.stringify(report, null, 2)}\n`;
      if (!o.out) return io.stdout(text);
      writeFileSync(o.out, text);
      if (o.json) print(io, { out: o.out, candidates: report.candidates.length });
      else io.stderr(`${report.candidates.length} candidate(s) written to ${o.out}\n`);
    });
}
