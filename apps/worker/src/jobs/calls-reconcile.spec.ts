import type { CallLookupAnswer } from '@rota/contracts';
import { reconcileCalls, replayAnswer, type CallLookup } from './calls-reconcile';
import type { LookupRecord, SessionsRepository, StaleCall } from './sessions.repository';

const call = (over: Partial<StaleCall> = {}): StaleCall => ({
  id: 'tc_1',
  tool: 'asaas/create_payment',
  state: 'pending',
  server: 'asaas',
  calledAt: new Date('2026-12-01T10:00:00Z'),
  providerIdempotencyKey: 'rota-k1',
  railId: null,
  orgId: 'org_1',
  projectId: 'proj_1',
  environment: 'test',
  ...over,
});

/** The repository edge: what the sweep wrote, and whether each row was still pending. */
function fakeRepo(rows: StaleCall[], stillPending = true, unknownRows: StaleCall[] = []) {
  const found: Array<{ id: string; keyResponse: unknown; record: LookupRecord }> = [];
  const unknown: Array<{ id: string; record: LookupRecord }> = [];
  const recorded: Array<{ id: string; record: LookupRecord }> = [];
  const repo = {
    stalePending: jest.fn(async () => rows),
    unknownNotLookedUp: jest.fn(async () => unknownRows),
    recordLookup: jest.fn(async (c: StaleCall, record: LookupRecord) => {
      recorded.push({ id: c.id, record });
    }),
    markFound: jest.fn(async (c: StaleCall, _f: unknown, keyResponse: unknown, record: LookupRecord) => {
      found.push({ id: c.id, keyResponse, record });
      return stillPending;
    }),
    markUnknown: jest.fn(async (c: StaleCall, record: LookupRecord) => {
      unknown.push({ id: c.id, record });
      return stillPending;
    }),
  };
  return { repo: repo as unknown as SessionsRepository, found, unknown, recorded, mocks: repo };
}

const payment: CallLookupAnswer = {
  outcome: 'found',
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: { id: 'pay_1', value: 80 },
};

describe('reconcileCalls', () => {
  it('asks once per stale call with the call’s own tenant, and completes the ones the provider holds', async () => {
    const { repo, found, unknown } = fakeRepo([call(), call({ id: 'tc_2', providerIdempotencyKey: 'rota-k2' })]);
    const asked: string[] = [];
    const lookup: CallLookup = async (c) => {
      asked.push(`${c.orgId}/${c.projectId}/${c.environment}/${c.id}`);
      return c.id === 'tc_1' ? payment : { outcome: 'not_found', status: 404 };
    };
    expect(await reconcileCalls(repo, lookup, 120)).toEqual({ found: 1, unknown: 1 });
    expect(asked).toEqual(['org_1/proj_1/test/tc_1', 'org_1/proj_1/test/tc_2']);
    expect(found).toEqual([
      {
        id: 'tc_1',
        keyResponse: expect.objectContaining({
          success: true,
          tool_call_id: 'tc_1',
          data: expect.objectContaining({ body: { id: 'pay_1', value: 80 }, reconciled: true }),
        }),
        record: expect.objectContaining({ looked_up: true, outcome: 'found' }),
      },
    ]);
    expect(unknown).toEqual([
      {
        id: 'tc_2',
        record: expect.objectContaining({
          looked_up: true,
          outcome: 'not_found',
          reason: expect.stringMatching(/404/),
        }),
      },
    ]);
  });

  it('records a lookup that failed in transport as asked-and-failed, leaving the outcome unknown', async () => {
    const { repo, unknown, mocks } = fakeRepo([call()]);
    const lookup: CallLookup = () =>
      Promise.reject(Object.assign(new Error('no replica answered'), { code: 'unavailable' }));
    expect(await reconcileCalls(repo, lookup, 120)).toEqual({ found: 0, unknown: 1 });
    expect(mocks.markFound).not.toHaveBeenCalled();
    expect(unknown[0]!.record).toMatchObject({
      looked_up: true,
      outcome: 'failed',
      reason: expect.stringMatching(/unavailable/),
    });
  });

  it('asks nothing for a call that names no project, or when no lookup is wired', async () => {
    const orphan = fakeRepo([call({ projectId: null, orgId: null, environment: null })]);
    const lookup = jest.fn<ReturnType<CallLookup>, Parameters<CallLookup>>();
    expect(await reconcileCalls(orphan.repo, lookup, 120)).toEqual({ found: 0, unknown: 1 });
    expect(lookup).not.toHaveBeenCalled();
    expect(orphan.unknown[0]!.record).toMatchObject({ looked_up: false, outcome: 'not_supported' });

    const unwired = fakeRepo([call()]);
    expect(await reconcileCalls(unwired.repo, undefined, 120)).toEqual({ found: 0, unknown: 1 });
    expect(unwired.unknown[0]!.record).toMatchObject({ looked_up: false, outcome: 'not_supported' });
  });

  it('looks up calls that ended outcome_unknown too: settles the ones the provider holds, and records the others so they are not asked again', async () => {
    const unknownCall = (id: string) => call({ id, state: 'outcome_unknown', providerIdempotencyKey: `rota-${id}` });
    const { repo, found, unknown, recorded } = fakeRepo([], true, [unknownCall('tc_u1'), unknownCall('tc_u2')]);
    const lookup: CallLookup = async (c) => (c.id === 'tc_u1' ? payment : { outcome: 'not_found', status: 404 });
    expect(await reconcileCalls(repo, lookup, 120)).toEqual({ found: 1, unknown: 0 });
    expect(found.map((f) => f.id)).toEqual(['tc_u1']);
    expect(found[0]!.keyResponse).toMatchObject({ data: { reconciled: true } });
    expect(unknown).toEqual([]);
    expect(recorded).toEqual([
      { id: 'tc_u2', record: expect.objectContaining({ looked_up: true, outcome: 'not_found' }) },
    ]);
  });

  it('counts only rows still pending when it writes (another sweep settled the rest)', async () => {
    const { repo } = fakeRepo([call(), call({ id: 'tc_2' })], false);
    expect(await reconcileCalls(repo, async () => payment, 120)).toEqual({ found: 0, unknown: 0 });
  });

  it('answers a retry of a proxy call in the proxy’s shape and a raw tool in execute’s', () => {
    expect(replayAnswer(call({ tool: 'proxy' }), payment as Extract<CallLookupAnswer, { outcome: 'found' }>)).toEqual({
      status: 200,
      data: { id: 'pay_1', value: 80 },
      headers: { 'content-type': 'application/json' },
      duration: 0,
      proxy_call_id: 'tc_1',
      reconciled: true,
    });
    expect(replayAnswer(call(), payment as Extract<CallLookupAnswer, { outcome: 'found' }>)).toMatchObject({
      success: true,
      error: null,
      server: 'asaas',
      tool: 'asaas/create_payment',
      called_at: '2026-12-01T10:00:00.000Z',
    });
  });
});
