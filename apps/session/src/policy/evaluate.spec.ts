import type { PolicyRule } from '@rota/contracts';
import { evaluate, proxyCall, PROXY_TOOL, type PolicyCall } from './evaluate';

const call = (over: Partial<PolicyCall> = {}): PolicyCall => ({
  tool: 'codespar_pay',
  action: 'pay',
  args: { action: 'pay', amount: 5000, currency: 'BRL' },
  raw: null,
  userId: 'u1',
  ...over,
});
const max: PolicyRule = { id: 'pr_max', type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 10_000 };

describe('evaluate', () => {
  it('passes everything without rules', () => {
    expect(evaluate([], call())).toMatchObject({ kind: 'pass', approval: null, daily: [], allowedProviders: null });
  });

  it('compares amounts as minor-unit integers against max_amount', () => {
    expect(evaluate([max], call()).kind).toBe('pass');
    expect(evaluate([max], call({ args: { action: 'pay', amount: 10_000, currency: 'BRL' } })).kind).toBe('pass');
    expect(evaluate([max], call({ args: { action: 'pay', amount: 10_001, currency: 'BRL' } }))).toMatchObject({
      kind: 'deny',
      rule: { id: 'pr_max' },
    });
  });

  it('reads major-unit amounts exactly (codespar_charge 100.01 BRL is 10001 minor units)', () => {
    const rule: PolicyRule = {
      id: 'pr_c',
      type: 'max_amount',
      tool: 'codespar_charge',
      currency: 'BRL',
      max_minor: 10_000,
    };
    expect(
      evaluate([rule], call({ tool: 'codespar_charge', action: 'charge', args: { amount: 100, currency: 'BRL' } }))
        .kind,
    ).toBe('pass');
    expect(
      evaluate([rule], call({ tool: 'codespar_charge', action: 'charge', args: { amount: 100.01, currency: 'BRL' } }))
        .kind,
    ).toBe('deny');
  });

  it('refuses a currency no amount rule of the tool covers', () => {
    const v = evaluate([max], call({ args: { action: 'pay', amount: 1, currency: 'USD' } }));
    expect(v).toMatchObject({ kind: 'deny', rule: { id: 'pr_max' } });
    expect((v as { reason: string }).reason).toContain('USD');
  });

  it('ignores calls that carry no amount (a status lookup)', () => {
    expect(evaluate([max], call({ action: 'status', args: { action: 'status', payment_id: 'p' } })).kind).toBe('pass');
  });

  it('denies and allows tools and actions', () => {
    const deny: PolicyRule = { id: 'pr_d', type: 'deny_tools', tools: ['codespar_pay'], actions: ['pay'] };
    expect(evaluate([deny], call()).kind).toBe('deny');
    expect(evaluate([deny], call({ action: 'status', args: { action: 'status' } })).kind).toBe('pass');
    const allow: PolicyRule = { id: 'pr_a', type: 'allow_tools', tools: ['codespar_discover'] };
    expect(evaluate([allow], call())).toMatchObject({ kind: 'deny', rule: { id: 'pr_a' } });
    expect(evaluate([allow], call({ tool: 'codespar_discover', action: null, args: {} })).kind).toBe('pass');
    expect(evaluate([allow], call({ tool: 'codespar_list_tools', action: null, args: {} })).kind).toBe('pass');
  });

  it('opens an approval above the threshold only', () => {
    const above: PolicyRule = {
      id: 'pr_ap',
      type: 'approval_above',
      tool: 'codespar_pay',
      currency: 'BRL',
      above_minor: 1000,
      ttl_seconds: 60,
    };
    expect(evaluate([above], call({ args: { action: 'pay', amount: 1000, currency: 'BRL' } }))).toMatchObject({
      kind: 'pass',
      approval: null,
    });
    expect(evaluate([above], call())).toMatchObject({ kind: 'pass', approval: { id: 'pr_ap' } });
  });

  it('needs a user for a per-user daily limit and asks to reserve the amount', () => {
    const daily: PolicyRule = {
      id: 'pr_u',
      type: 'user_daily_limit',
      tool: 'codespar_pay',
      currency: 'BRL',
      max_minor: 20_000,
    };
    expect(evaluate([daily], call({ userId: null }))).toMatchObject({ kind: 'deny', rule: { id: 'pr_u' } });
    expect(evaluate([daily], call())).toMatchObject({ kind: 'pass', daily: [{ rule: { id: 'pr_u' }, minor: 5000n }] });
    expect(evaluate([daily], call({ args: { action: 'pay', amount: 20_001, currency: 'BRL' } })).kind).toBe('deny');
  });

  it('refuses a raw non-GET call to a money provider under amount rules unless an allow rule names it', () => {
    const raw = { provider: 'zzpay', category: 'payments', method: 'POST' };
    const rawCall = call({ tool: 'zzpay/create_payment', action: null, args: { amount: 1 }, raw });
    expect(evaluate([max], rawCall)).toMatchObject({ kind: 'deny', rule: { id: 'pr_max' } });
    expect(
      evaluate([max, { id: 'pr_a', type: 'allow_tools', tools: ['zzpay/create_payment', 'codespar_pay'] }], rawCall)
        .kind,
    ).toBe('pass');
    expect(evaluate([max], call({ ...rawCall, raw: { ...raw, method: 'GET' } })).kind).toBe('pass');
    expect(evaluate([max], call({ ...rawCall, raw: { ...raw, category: 'logistics' } })).kind).toBe('pass');
  });

  it('refuses a raw call to a provider outside allow_providers and hands meta-tools the allowed rails', () => {
    const providers: PolicyRule = { id: 'pr_p', type: 'allow_providers', providers: ['zzopen'] };
    expect(
      evaluate(
        [providers],
        call({
          tool: 'zzpay/get_payment',
          action: null,
          args: {},
          raw: { provider: 'zzpay', category: 'payments', method: 'GET' },
        }),
      ).kind,
    ).toBe('deny');
    expect(evaluate([providers], call())).toMatchObject({ kind: 'pass', allowedProviders: ['zzopen'] });
  });

  describe('a proxy call', () => {
    const proxy = (method: string, category: string | null = 'payments', provider = 'zzpay') =>
      proxyCall({ provider, category, method, endpoint: '/v1/payments', userId: 'u1' });

    it('is named proxy, with its method (upper case) as the action', () => {
      expect(proxy('post')).toMatchObject({
        tool: PROXY_TOOL,
        action: 'POST',
        raw: { provider: 'zzpay', category: 'payments', method: 'POST' },
      });
    });

    it('a non-GET request to a money provider is refused by any amount rule unless allow_tools names proxy', () => {
      expect(evaluate([max], proxy('POST'))).toMatchObject({ kind: 'deny', rule: { id: 'pr_max' } });
      expect(evaluate([max], proxy('DELETE'))).toMatchObject({ kind: 'deny', rule: { id: 'pr_max' } });
      expect(evaluate([max], proxy('GET')).kind).toBe('pass');
      expect(evaluate([max], proxy('POST', 'logistics')).kind).toBe('pass');
      expect(evaluate([], proxy('POST')).kind).toBe('pass');
      const allow: PolicyRule = { id: 'pr_a', type: 'allow_tools', tools: ['proxy', 'codespar_pay'] };
      expect(evaluate([max, allow], proxy('POST')).kind).toBe('pass');
    });

    it('deny_tools and allow_tools name it with methods as actions; allow_providers names its one rail', () => {
      const noWrites: PolicyRule = {
        id: 'pr_d',
        type: 'deny_tools',
        tools: ['proxy'],
        actions: ['POST', 'PUT', 'PATCH', 'DELETE'],
      };
      expect(evaluate([noWrites], proxy('POST'))).toMatchObject({ kind: 'deny', rule: { id: 'pr_d' } });
      expect(evaluate([noWrites], proxy('GET')).kind).toBe('pass');
      const onlyMeta: PolicyRule = { id: 'pr_o', type: 'allow_tools', tools: ['codespar_pay'] };
      expect(evaluate([onlyMeta], proxy('GET'))).toMatchObject({ kind: 'deny', rule: { id: 'pr_o' } });
      const providers: PolicyRule = { id: 'pr_p', type: 'allow_providers', providers: ['zzopen'] };
      expect(evaluate([providers], proxy('GET'))).toMatchObject({ kind: 'deny', rule: { id: 'pr_p' } });
      expect(evaluate([providers], proxy('GET', 'banking', 'zzopen')).kind).toBe('pass');
    });
  });
});
