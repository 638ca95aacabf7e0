import { callableCandidates } from './callable-name';

describe('callableCandidates', () => {
  const servers = ['asaas', 'mercadopago', 'mercado', 'focus-nfe'];

  it('takes server/tool as written, only for a session server', () => {
    expect(callableCandidates('asaas/create_payment', servers)).toEqual([
      { server: 'asaas', tool: 'create_payment', rank: 0 },
    ]);
    expect(callableCandidates('stripe/create_charge', servers)).toEqual([]);
  });

  it('reads server.tool with the longest matching server id first', () => {
    expect(callableCandidates('asaas.get_payment', servers)).toEqual([
      { server: 'asaas', tool: 'get_payment', rank: 5 },
    ]);
  });

  it('reads upper snake case case-insensitively, longest server first, dashes as underscores', () => {
    expect(callableCandidates('MERCADOPAGO_CREATE_PAYMENT', servers)[0]).toEqual({
      server: 'mercadopago',
      tool: 'create_payment',
      rank: 11,
    });
    expect(callableCandidates('MERCADOPAGO_CREATE_PAYMENT', servers).map((c) => c.server)).toEqual(['mercadopago']);
    expect(callableCandidates('MERCADO_GET_THING', servers)).toEqual([
      { server: 'mercado', tool: 'get_thing', rank: 7 },
    ]);
    expect(callableCandidates('FOCUS_NFE_ISSUE_NFSE', servers)).toEqual([
      { server: 'focus-nfe', tool: 'issue_nfse', rank: 9 },
    ]);
  });

  it('matches nothing for names that fit no server', () => {
    expect(callableCandidates('STRIPE_CREATE_CHARGE', servers)).toEqual([]);
    expect(callableCandidates('codespar_pay', servers)).toEqual([]);
  });
});
