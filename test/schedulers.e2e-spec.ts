import { QUEUES } from '@rota/contracts';
import { JobRunner, SCHEDULERS } from '../apps/worker/src/jobs/runner';
import { http, startStack, type Stack } from './helpers/stack';

describe('a missing job scheduler shows in readiness and the catalog status', () => {
  let stack: Stack;
  let reader: string;
  let runner: JobRunner;

  beforeAll(async () => {
    stack = await startStack();
    reader = (await stack.key(['servers:read'])).key;
    runner = stack.services.worker.app.get(JobRunner);
  });
  afterAll(() => stack?.close());

  const status = async () => http(`${stack.url}/v1/catalog/status`, { headers: { authorization: `Bearer ${reader}` } });

  it('reports every scheduler present while the worker holds them', async () => {
    const ready = await http(`${stack.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.json.checks.schedulers).toMatchObject({ ok: true, missing: [] });
    const s = await status();
    expect(s.status).toBe(200);
    expect(s.json.schedulers_missing).toEqual([]);
  });

  it('turns readiness 503 and names the scheduler Redis lost, until the worker puts it back', async () => {
    // What a Redis restart without persistence does to one scheduler.
    expect(await runner.queues.get(QUEUES.catalog)!.removeJobScheduler(SCHEDULERS.catalogSweep)).toBe(true);

    const ready = await http(`${stack.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(ready.json.status).toBe('not_ready');
    expect(ready.json.checks.schedulers).toMatchObject({ ok: false, missing: [SCHEDULERS.catalogSweep] });
    expect(ready.json.checks.schedulers.error).toMatch(/catalog-sweep/);
    // Everything else still answers: only the scheduler is at fault.
    expect(ready.json.checks.postgres.ok && ready.json.checks.redis.ok).toBe(true);
    for (const c of Object.values<{ ok: boolean }>(ready.json.checks.services)) expect(c.ok).toBe(true);

    const s = await status();
    expect(s.status).toBe(200);
    expect(s.json.schedulers_missing).toEqual([SCHEDULERS.catalogSweep]);

    await runner.ensureSchedulers();
    expect((await http(`${stack.url}/health/ready`)).status).toBe(200);
    expect((await status()).json.schedulers_missing).toEqual([]);
  });
});
