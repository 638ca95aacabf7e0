import { META_TOOL_NAMES, META_TOOLS, isMetaToolName, metaToolsDocument, type JsonSchema } from './meta-tools';
import { ToolSearchRequest, ToolSearchResponse } from './tool-search';

const enumOf = (tool: string, field: string): readonly string[] | undefined => {
  const def = META_TOOLS.find((t) => t.name === tool);
  return def?.inputSchema.properties[field]?.enum;
};

describe('META_TOOLS', () => {
  it('lists the 15 published names in the published order', () => {
    expect(META_TOOL_NAMES).toEqual([
      'codespar_discover',
      'codespar_get_started',
      'codespar_manage_connections',
      'codespar_checkout',
      'codespar_pay',
      'codespar_wallet',
      'codespar_shop',
      'codespar_charge',
      'codespar_invoice',
      'codespar_ship',
      'codespar_notify',
      'codespar_crypto_pay',
      'codespar_kyc',
      'codespar_ledger',
      'codespar_issue',
    ]);
    expect(META_TOOLS.map((t) => t.name)).toEqual([...META_TOOL_NAMES]);
  });

  it.each(META_TOOLS.map((t) => [t.name, t] as const))('%s has an object schema whose required fields exist', (_name, tool) => {
    expect(tool.inputSchema.type).toBe('object');
    for (const field of tool.inputSchema.required) expect(tool.inputSchema.properties).toHaveProperty(field);
    expect(tool.description.length).toBeGreaterThan(120);
  });

  it('names at least one sibling in every description', () => {
    for (const tool of META_TOOLS) {
      const others = META_TOOL_NAMES.filter((n) => n !== tool.name);
      expect(others.some((n) => tool.description.includes(n))).toBe(true);
    }
  });

  it('matches the required fields of the published facts', () => {
    const required = Object.fromEntries(META_TOOLS.map((t) => [t.name, [...t.inputSchema.required].sort()]));
    expect(required).toEqual({
      codespar_discover: ['use_case'],
      codespar_get_started: [],
      codespar_manage_connections: [],
      codespar_checkout: ['items'],
      codespar_pay: ['action'],
      codespar_wallet: ['action'],
      codespar_shop: ['action'],
      codespar_charge: ['amount', 'buyer', 'currency', 'description', 'method'],
      codespar_invoice: ['type'],
      codespar_ship: ['action'],
      codespar_notify: ['channel', 'to'],
      codespar_crypto_pay: ['amount', 'currency', 'direction'],
      codespar_kyc: ['buyer', 'check_type'],
      codespar_ledger: ['action'],
      codespar_issue: ['action'],
    });
  });

  it('matches the published enums exactly', () => {
    expect(enumOf('codespar_manage_connections', 'action')).toEqual(['list', 'status', 'initiate', 'connect_start', 'connect_finish', 'save_profile', 'get_profile']);
    expect(enumOf('codespar_manage_connections', 'environment')).toEqual(['live', 'test']);
    expect(enumOf('codespar_checkout', 'paymentMethod')).toEqual(['pix', 'boleto', 'card']);
    expect(enumOf('codespar_pay', 'action')).toEqual(['pay', 'status']);
    // Published values first, then Rota's Latin American extensions (documented in each description).
    expect(enumOf('codespar_pay', 'method')).toEqual(['pix', 'card', 'boleto', 'wire', 'spei']);
    expect(enumOf('codespar_wallet', 'action')).toEqual(['balance', 'statement', 'receive']);
    expect(enumOf('codespar_shop', 'action')).toEqual(['search', 'checkout', 'checkout_status']);
    expect(enumOf('codespar_shop', 'paymentMethod')).toEqual(['pix']);
    expect(enumOf('codespar_charge', 'method')).toEqual(['pix', 'boleto', 'card', 'wallet', 'spei', 'oxxo', 'pse']);
    expect(enumOf('codespar_charge', 'action')).toEqual(['charge', 'refund']);
    expect(enumOf('codespar_invoice', 'action')).toEqual(['issue', 'status', 'amend']);
    expect(enumOf('codespar_invoice', 'type')).toEqual(['nfe', 'nfse', 'invoice']);
    expect(enumOf('codespar_ship', 'action')).toEqual(['label', 'track', 'quote']);
    expect(enumOf('codespar_ship', 'service_level')).toEqual(['fastest', 'cheapest', 'standard']);
    expect(enumOf('codespar_notify', 'channel')).toEqual(['whatsapp', 'email', 'sms']);
    expect(enumOf('codespar_crypto_pay', 'currency')).toEqual(['USDC', 'USDT', 'BTC', 'ETH', 'MATIC']);
    expect(enumOf('codespar_crypto_pay', 'network')).toEqual(['ethereum', 'polygon', 'base', 'solana', 'bitcoin']);
    expect(enumOf('codespar_crypto_pay', 'direction')).toEqual(['send', 'receive']);
    expect(enumOf('codespar_kyc', 'check_type')).toEqual(['identity', 'document', 'risk-score', 'sanctions', 'onboarding', 'onboarding-business', 'status']);
    expect(enumOf('codespar_ledger', 'action')).toEqual(['entry', 'balance', 'account', 'receipt', 'receipts']);
    expect(enumOf('codespar_ledger', 'type')).toEqual(['deposit', 'savings', 'external']);
    expect(enumOf('codespar_issue', 'action')).toEqual(['card-virtual', 'card-physical', 'card-control', 'card-get']);
    expect(enumOf('codespar_issue', 'control')).toEqual(['freeze', 'unfreeze', 'cancel']);
  });

  it('keeps the numeric bounds of the facts', () => {
    const discoverLimit = META_TOOLS[0]!.inputSchema.properties['limit'] as JsonSchema;
    expect(discoverLimit).toMatchObject({ type: 'integer', minimum: 1, maximum: 20, default: 5 });
    const walletLimit = META_TOOLS.find((t) => t.name === 'codespar_wallet')!.inputSchema.properties['limit'];
    expect(walletLimit).toMatchObject({ minimum: 1, maximum: 100 });
    expect(META_TOOLS.find((t) => t.name === 'codespar_get_started')!.inputSchema.properties).toEqual({});
  });

  it('records the money direction of each tool', () => {
    expect(Object.fromEntries(META_TOOLS.map((t) => [t.name, t.money]))).toEqual({
      codespar_discover: 'none',
      codespar_get_started: 'none',
      codespar_manage_connections: 'none',
      codespar_checkout: 'in',
      codespar_pay: 'out',
      codespar_wallet: 'in_read',
      codespar_shop: 'out',
      codespar_charge: 'in',
      codespar_invoice: 'none',
      codespar_ship: 'none',
      codespar_notify: 'none',
      codespar_crypto_pay: 'both',
      codespar_kyc: 'none',
      codespar_ledger: 'none',
      codespar_issue: 'none',
    });
  });

  it('builds the catalog document without the internal money field', () => {
    const doc = metaToolsDocument();
    expect(doc.generated_from).toBe('tools/list');
    expect(doc.tools).toHaveLength(15);
    for (const tool of doc.tools) expect(Object.keys(tool).sort()).toEqual(['description', 'inputSchema', 'name']);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it('recognises published names only', () => {
    expect(isMetaToolName('codespar_pay')).toBe(true);
    expect(isMetaToolName('codespar_cart')).toBe(false);
    expect(isMetaToolName(42)).toBe(false);
  });
});

describe('ToolSearchRequest', () => {
  it('defaults limit to 3', () => {
    expect(ToolSearchRequest.parse({ intent: 'charge a customer with pix' })).toEqual({ intent: 'charge a customer with pix', limit: 3 });
  });

  it.each([
    [{ intent: '' }],
    [{ intent: 'x'.repeat(2001) }],
    [{ intent: 'ok', limit: 0 }],
    [{ intent: 'ok', limit: 6 }],
    [{ intent: 'ok', limit: 1000 }],
    [{ intent: 'ok', limit: 2.5 }],
    [{ intent: 'ok', extra: true }],
    [{ limit: 3 }],
  ])('refuses %j', (body) => {
    expect(ToolSearchRequest.safeParse(body).success).toBe(false);
  });

  it('accepts the bounds', () => {
    expect(ToolSearchRequest.safeParse({ intent: 'x'.repeat(2000), limit: 5 }).success).toBe(true);
    expect(ToolSearchRequest.safeParse({ intent: 'x', limit: 1 }).success).toBe(true);
  });
});

describe('ToolSearchResponse', () => {
  it('accepts a fallback answer and refuses invented tool names', () => {
    const ok = { intent: 'x', hits: [{ tool_name: 'codespar_ship', confidence: 'medium', rationale: 'r' }], elapsed_ms: 1, source: 'fallback', fallback_reason: 'no_model_key' };
    expect(ToolSearchResponse.safeParse(ok).success).toBe(true);
    expect(ToolSearchResponse.safeParse({ ...ok, hits: [{ ...ok.hits[0], tool_name: 'codespar_cart' }] }).success).toBe(false);
    expect(ToolSearchResponse.safeParse({ ...ok, fallback_reason: 'other' }).success).toBe(false);
  });
});
