import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DiscoverInput } from './discover';
import {
  META_TOOL_NAMES,
  META_TOOLS,
  isMetaToolName,
  metaToolsDocument,
  type JsonSchema,
  type MetaToolName,
} from './meta-tools';
import { ToolSearchRequest, ToolSearchResponse } from './tools-search';

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

  it.each(META_TOOLS.map((t) => [t.name, t] as const))(
    '%s has an object schema whose required fields exist',
    (_name, tool) => {
      expect(tool.inputSchema.type).toBe('object');
      for (const field of tool.inputSchema.required) expect(tool.inputSchema.properties).toHaveProperty(field);
      expect(tool.description.length).toBeGreaterThan(120);
    },
  );

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
    expect(enumOf('codespar_manage_connections', 'action')).toEqual([
      'list',
      'status',
      'initiate',
      'connect_start',
      'connect_finish',
      'save_profile',
      'get_profile',
    ]);
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
    expect(enumOf('codespar_kyc', 'check_type')).toEqual([
      'identity',
      'document',
      'risk-score',
      'sanctions',
      'onboarding',
      'onboarding-business',
      'status',
    ]);
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

/** Every leaf where `b` differs from `a`, as `path: before -> after` (`-` when absent). */
function leafDiff(a: unknown, b: unknown, path = ''): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
  if (isObj(a) && isObj(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => leafDiff(a[k], b[k], path ? `${path}.${k}` : k));
  }
  const show = (v: unknown) => (v === undefined ? '-' : JSON.stringify(v));
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [`${path}: ${show(a)} -> ${show(b)}`];
}

describe('the published document, generated from zod', () => {
  // The document as served while the schemas were written by hand as JSON Schema.
  const handWritten = JSON.parse(readFileSync(join(__dirname, 'meta-tools', 'hand-written.json'), 'utf8'));
  // Where the hand-written JSON Schema and discover's zod input disagreed, the stricter rule won.
  // Each line is in CHANGELOG.md.
  const CHANGES = [
    'tools.0.inputSchema.properties.use_case.maxLength: - -> 2000',
    'tools.0.inputSchema.properties.query.maxLength: - -> 2000',
    'tools.0.inputSchema.properties.category.minLength: - -> 1',
    'tools.0.inputSchema.properties.category.maxLength: - -> 64',
    // A Rota addition: where connect_start and connect_finish take secrets.
    'tools.2.inputSchema.properties.credentials: - -> {"type":"object","description":"Secrets for connecting: with connect_finish, the fields connect_start named for a key-based provider; with connect_start, your own OAuth client (client_id, client_secret) when the deployment has none for that provider. Stored sealed, never echoed or recorded."}',
  ];

  it('differs from the hand-written document only by the listed changes', () => {
    expect(leafDiff(handWritten, metaToolsDocument())).toEqual(CHANGES);
  });

  it('keeps the key order and wording of every other byte', () => {
    const generated = structuredClone(metaToolsDocument()) as unknown as typeof handWritten;
    const discover = generated.tools[0].inputSchema.properties;
    delete discover.use_case.maxLength;
    delete discover.query.maxLength;
    delete discover.category.minLength;
    delete discover.category.maxLength;
    delete generated.tools[2].inputSchema.properties.credentials;
    expect(JSON.stringify(generated)).toBe(JSON.stringify(handWritten));
  });

  it('publishes no $schema and no zod-only detail (safe-integer bounds, date pattern, open-object keywords)', () => {
    const text = JSON.stringify(metaToolsDocument());
    for (const word of ['$schema', 'propertyNames', 'additionalProperties', 'anyOf', String(Number.MAX_SAFE_INTEGER)])
      expect(text).not.toContain(word);
    const charge = META_TOOLS.find((t) => t.name === 'codespar_charge')!.inputSchema.properties;
    expect(charge['due_date']).toEqual({
      type: 'string',
      format: 'date',
      description: 'When a boleto or Pix charge expires (YYYY-MM-DD).',
    });
  });
});

describe('what execute accepts', () => {
  const accepts = (name: MetaToolName, input: unknown) =>
    META_TOOLS.find((t) => t.name === name)!.accepts.safeParse(input);
  const paths = (name: MetaToolName, input: unknown) => {
    const r = accepts(name, input);
    return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
  };

  it('is the published zod object for every tool but discover', () => {
    for (const tool of META_TOOLS) {
      if (tool.name === 'codespar_discover') expect(tool.accepts).toBe(DiscoverInput);
      else expect(tool.accepts).toBe(tool.input);
    }
  });

  it('holds the keywords the published schema states', () => {
    expect(paths('codespar_checkout', { items: [] })).toEqual(['items']);
    expect(paths('codespar_checkout', { items: [{ name: 'tv', quantity: 1 }] })).toEqual([]);
    expect(paths('codespar_charge', { amount: 10, currency: 'BRL', method: 'pix', description: 'x' })).toEqual([
      'buyer',
    ]);
    expect(
      paths('codespar_charge', {
        amount: 10,
        currency: 'BRL',
        method: 'pix',
        description: 'x',
        buyer: {},
        due_date: '2025-02-30',
      }),
    ).toEqual(['due_date']);
    expect(paths('codespar_pay', { action: 'pay', amount: 0 })).toEqual(['amount']);
    expect(paths('codespar_pay', { action: 'pay', amount: 1.5 })).toEqual(['amount']);
    expect(paths('codespar_pay', { action: 'pay', recipient: 'key@pix' })).toEqual([]);
    expect(paths('codespar_pay', { action: 'pay', recipient: { bank: '001' } })).toEqual([]);
    expect(paths('codespar_pay', { action: 'pay', recipient: 7 })).toEqual(['recipient']);
    expect(paths('codespar_wallet', { action: 'statement', limit: 101 })).toEqual(['limit']);
    expect(paths('codespar_manage_connections', { action: 'unlink' })).toEqual(['action']);
    expect(paths('codespar_manage_connections', {})).toEqual([]);
    expect(paths('codespar_get_started', { anything: 1 })).toEqual([]);
  });

  it('takes query as the alias of a missing or blank use_case, for discover only', () => {
    expect(paths('codespar_discover', { query: 'send a pix' })).toEqual([]);
    expect(paths('codespar_discover', { use_case: '  ', query: 'send a pix' })).toEqual([]);
    expect(DiscoverInput.parse({ query: 'send a pix' })).toMatchObject({ use_case: 'send a pix', limit: 5 });
    expect(DiscoverInput.parse({ use_case: 'pay', query: 'ship' })).toMatchObject({ use_case: 'pay' });
    // The published schema itself has no alias: use_case is required there.
    expect(META_TOOLS[0]!.input.safeParse({ query: 'send a pix' }).success).toBe(false);
  });

  it('refuses a discover call with no words to search for, naming use_case', () => {
    for (const input of [{}, { use_case: '' }, { query: '   ' }, { use_case: ' ', query: '' }]) {
      const r = accepts('codespar_discover', input);
      expect(r.success).toBe(false);
      if (!r.success)
        expect(r.error.issues).toEqual([
          expect.objectContaining({
            path: ['use_case'],
            message: expect.stringContaining('use_case (or its alias query)'),
          }),
        ]);
    }
    expect(paths('codespar_discover', { use_case: 'x'.repeat(2001) })).toEqual(['use_case']);
    expect(paths('codespar_discover', { use_case: 'pix', category: '' })).toEqual(['category']);
    expect(paths('codespar_discover', { use_case: 'pix', country: 'Brazil', limit: 21 })).toEqual(['country', 'limit']);
  });
});

describe('ToolSearchRequest', () => {
  it('defaults limit to 3', () => {
    expect(ToolSearchRequest.parse({ intent: 'charge a customer with pix' })).toEqual({
      intent: 'charge a customer with pix',
      limit: 3,
    });
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
    const ok = {
      intent: 'x',
      hits: [{ tool_name: 'codespar_ship', confidence: 'medium', rationale: 'r' }],
      elapsed_ms: 1,
      source: 'fallback',
      fallback_reason: 'no_model_key',
    };
    expect(ToolSearchResponse.safeParse(ok).success).toBe(true);
    expect(ToolSearchResponse.safeParse({ ...ok, hits: [{ ...ok.hits[0], tool_name: 'codespar_cart' }] }).success).toBe(
      false,
    );
    expect(ToolSearchResponse.safeParse({ ...ok, fallback_reason: 'other' }).success).toBe(false);
  });
});
