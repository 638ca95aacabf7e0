import { AppError, type PolicyRuleInput, type Tenant } from '@rota/contracts';
import { createTestDatabase, seed, type TestDatabase } from '@rota/db';
import { loadConfig } from '@rota/service-kit';
import { SessionConfig } from '../config';
import type { ToolCallsRepository } from '../calls/tool-calls.repository';
import { PolicyRepository } from './policy.repository';
import { PolicyService, type ProxyPolicyInput } from './policy.service';

/**
 * `PolicyService.checkProxy` against Postgres: the provider's category comes
 * from the catalog rows the project sees, a refusal is the policy body and
 * leaves one decision row, and a project without rules is never refused.
 */
describe('PolicyService.checkProxy (Postgres)', () => {
  let db: TestDatabase;
  let repo: PolicyRepository;
  let policy: PolicyService;
  const tenant: Tenant = { org_id: 'org_dev', project_id: 'proj_dev', environment: 'live' };
  const proxy = (over: Partial<ProxyPolicyInput> = {}): ProxyPolicyInput => ({
    tenant,
    sessionId: 'ses_proxy_policy',
    userId: 'user-1',
    keyId: 'key_proxy_policy',
    provider: 'zzpolicypay',
    method: 'POST',
    endpoint: '/v1/payments',
    ...over,
  });
  const rules = (r: PolicyRuleInput[]) => repo.replaceRules(tenant.project_id, tenant.environment, r);
  const refusal = async (input: ProxyPolicyInput) => {
    try {
      await policy.checkProxy(input);
    } catch (err) {
      if (err instanceof AppError) return err;
      throw err;
    }
    return null;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    const provider = (id: string, category: string, projectId?: string) =>
      db.prisma.provider.create({
        data: {
          id,
          name: id,
          description: id,
          category,
          countries: ['BR'],
          authType: 'api_key',
          selfServeAuth: true,
          baseUrls: {},
          ...(projectId ? { projectId } : {}),
        },
      });
    await provider('zzpolicypay', 'payments');
    await provider('zzpolicyship', 'logistics');
    // The project's own import of a provider wins over the global one of the same id.
    await provider('zzpolicyshared', 'logistics');
    await provider('zzpolicyshared', 'banking', 'proj_dev');
    // A project's own provider that calls itself "other": still money-moving, since only an operator says otherwise.
    await provider('zzpolicyown', 'other', 'proj_dev');
    await provider('zzpolicyownok', 'other', 'proj_dev');
    await db.prisma.provider.update({
      where: { id_owner: { id: 'zzpolicyownok', owner: 'proj_dev' } },
      data: { movesMoney: false },
    });
    repo = new PolicyRepository(db.prisma);
    // checkProxy reads no usage: the execute repository is not reached.
    policy = new PolicyService(
      loadConfig(SessionConfig, { ROTA_POLICY_CACHE_MS: '0', LOG_LEVEL: 'silent' }),
      repo,
      {} as ToolCallsRepository,
    );
  });
  afterAll(() => db.drop());

  it('reads the category the project sees', async () => {
    expect(await repo.providerCategory('zzpolicypay', 'proj_dev')).toEqual({ category: 'payments', movesMoney: null });
    expect(await repo.providerCategory('zzpolicyshared', 'proj_dev')).toEqual({
      category: 'banking',
      movesMoney: true,
    });
    expect(await repo.providerCategory('zzpolicyshared', 'proj_other')).toEqual({
      category: 'logistics',
      movesMoney: null,
    });
    expect(await repo.providerCategory('zzpolicyown', 'proj_dev')).toEqual({ category: 'other', movesMoney: true });
    expect(await repo.providerCategory('zzpolicyownok', 'proj_dev')).toEqual({ category: 'other', movesMoney: false });
    expect(await repo.providerCategory('zznowhere', 'proj_dev')).toEqual({ category: null, movesMoney: null });
  });

  it('refuses nothing without rules', async () => {
    await rules([]);
    expect(await refusal(proxy())).toBeNull();
  });

  it('under an amount rule, a POST to a money provider is refused with the policy body and one decision row; GET and logistics pass', async () => {
    await rules([{ type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 10_000 }]);
    const before = await db.prisma.policyDecision.count();
    const err = await refusal(proxy());
    expect(err).toMatchObject({
      code: 'policy_denied',
      details: { ruleType: 'max_amount', ruleId: expect.stringMatching(/^pr_/) },
    });
    expect((err!.details as Record<string, unknown>).error).toBeUndefined();
    expect(String((err!.details as Record<string, unknown>).reason)).toContain('allow_tools');
    const rows = await db.prisma.policyDecision.findMany({ where: { sessionId: 'ses_proxy_policy' } });
    expect(await db.prisma.policyDecision.count()).toBe(before + 1);
    expect(rows[0]).toMatchObject({
      tool: 'proxy',
      action: 'POST',
      decision: 'deny',
      ruleType: 'max_amount',
      keyId: 'key_proxy_policy',
      userId: 'user-1',
    });

    expect(await refusal(proxy({ method: 'GET' }))).toBeNull();
    expect(await refusal(proxy({ provider: 'zzpolicyship' }))).toBeNull();
    // The project's own banking import is a money provider even though the global row is not.
    expect(await refusal(proxy({ provider: 'zzpolicyshared', method: 'put' }))).toMatchObject({
      code: 'policy_denied',
    });
    // Re-categorising its own provider lifts nothing: a project's provider counts as moving money...
    expect(await refusal(proxy({ provider: 'zzpolicyown' }))).toMatchObject({
      code: 'policy_denied',
      details: { ruleType: 'max_amount' },
    });
    // ...unless an operator declared otherwise.
    expect(await refusal(proxy({ provider: 'zzpolicyownok' }))).toBeNull();
  });

  it('an allow_tools rule naming proxy lets it through; deny_tools names methods; allow_providers names the rail', async () => {
    await rules([
      { type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 10_000 },
      { type: 'allow_tools', tools: ['codespar_pay', 'proxy'] },
    ]);
    expect(await refusal(proxy())).toBeNull();

    await rules([{ type: 'deny_tools', tools: ['proxy'], actions: ['DELETE'] }]);
    expect(await refusal(proxy({ method: 'DELETE' }))).toMatchObject({
      code: 'policy_denied',
      details: { ruleType: 'deny_tools' },
    });
    expect(await refusal(proxy({ method: 'POST' }))).toBeNull();

    await rules([{ type: 'allow_providers', providers: ['zzpolicyship'] }]);
    expect(await refusal(proxy())).toMatchObject({ code: 'policy_denied', details: { ruleType: 'allow_providers' } });
    expect(await refusal(proxy({ provider: 'zzpolicyship' }))).toBeNull();
    await rules([]);
  });
});
