import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AUTH_TYPES,
  CatalogFormatError,
  parseCatalogText,
  parseRotaCatalog,
  SANDBOX_URL_PLACEHOLDER,
  templatePlaceholders,
} from './format';
import { DEFAULT_SANDBOX_URL, substituteSandboxUrl } from './seed';

/**
 * Checks the shipped demo catalog (`packages/catalog/data/demo-catalog.json`):
 * it must load through the import parser, cover the providers the product
 * promises, and describe every tool in words of its own.
 */

interface DemoTool {
  name: string;
  description: string;
  http_method?: string;
  endpoint_template?: string;
  input_schema?: { type?: string; properties?: Record<string, unknown>; required?: string[] };
  parameters?: { query?: string[]; headers?: Record<string, string>; body?: string | string[] };
}
interface DemoServer {
  id: string;
  name: string;
  description: string;
  category: string;
  country: string;
  countries?: string[];
  auth_type: string;
  base_urls: { live?: string; test?: string };
  http: { auth: { type: string }; idempotency_header?: string } | null;
  status: string;
  sandbox_available: boolean;
  tools: DemoTool[];
}
interface DemoCatalog {
  format: string;
  version: number;
  servers: DemoServer[];
}

const catalogPath = join(__dirname, '../data/demo-catalog.json');
const text = readFileSync(catalogPath, 'utf8');
/** As the seed reads it: the sandbox address written in. */
const raw: unknown = JSON.parse(substituteSandboxUrl(text, DEFAULT_SANDBOX_URL));
const catalog = raw as DemoCatalog;
const servers = catalog.servers;
const tools = servers.flatMap((s) => s.tools.map((t) => ({ server: s.id, ...t })));

/** Third-party test data: its text must never appear in ours. Absent on some machines. */
const sharedPath = join(__dirname, '../../../../shared/data/provider_catalog.json');

const CATEGORIES = [
  'payments',
  'fiscal',
  'logistics',
  'communication',
  'banking',
  'identity',
  'crypto',
  'erp',
  'ecommerce',
  'ledger',
];
/** Providers the sandbox provider server imitates: id → its prefix there. */
const SANDBOXED: Record<string, string> = {
  asaas: 'asaas',
  mercadopago: 'mercadopago',
  focusnfe: 'nfse',
  melhorenvio: 'melhorenvio',
  inter: 'inter',
  whatsapp: 'whatsapp',
  vtex: 'vtex',
  circle: 'circle',
  idwall: 'idwall',
  blnk: 'blnk',
  pomelo: 'pomelo',
  openpay: 'openpay',
  wise: 'wise',
  wompi: 'wompi',
  transbank: 'transbank',
  culqi: 'culqi',
  facturapi: 'facturapi',
  envia: 'envia',
  zenvia: 'zenvia',
};
/**
 * The header each sandbox model reads as the idempotency key (the
 * `idempotencyHeader` of apps/sandbox/src/providers/*.ts): a provider the
 * sandbox imitates is sent a key in exactly that header, so a retry there
 * replays instead of acting twice. `undefined`: the real API reads no
 * idempotency header (Openpay's `order_id`, Wise's `customerTransactionId`
 * and Culqi's `order_number` keep a request single instead; the others
 * move no money or are settled by a lookup), so none is sent.
 */
const SANDBOX_IDEMPOTENCY_HEADERS: Record<string, string | undefined> = {
  asaas: 'idempotency-key',
  mercadopago: 'x-idempotency-key',
  focusnfe: 'idempotency-key',
  melhorenvio: 'idempotency-key',
  inter: 'x-id-idempotente',
  whatsapp: 'idempotency-key',
  vtex: 'idempotency-key',
  circle: 'x-idempotency-key',
  idwall: 'idempotency-key',
  blnk: 'idempotency-key',
  pomelo: 'x-idempotency-key',
  openpay: undefined,
  wise: undefined,
  wompi: undefined,
  transbank: undefined,
  culqi: undefined,
  facturapi: undefined,
  envia: undefined,
  zenvia: undefined,
};
/**
 * Providers whose credentials the format cannot place yet (in the body,
 * signed into the parameters, or a session token from a login call): listed
 * with `http: null`, found by discover but not called.
 */
const UNDESCRIBED = ['andreani', 'bitso', 'ebanx', 'epayco', 'flow', 'niubiz', 'omie', 'payu', 'unico'];
const STATUSES = ['stable', 'beta', 'deprecated'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const LATAM = ['BR', 'MX', 'CO', 'AR', 'CL', 'PE'];

/** Providers the demo catalog must contain: id → [category, main country]. */
const REQUIRED: Record<string, [string, string]> = {
  asaas: ['payments', 'BR'],
  mercadopago: ['payments', 'BR'],
  pagarme: ['payments', 'BR'],
  efi: ['payments', 'BR'],
  pagseguro: ['payments', 'BR'],
  iugu: ['payments', 'BR'],
  stripe: ['payments', '*'],
  adyen: ['payments', '*'],
  ebanx: ['payments', 'BR'],
  conekta: ['payments', 'MX'],
  openpay: ['payments', 'MX'],
  stp: ['payments', 'MX'],
  wompi: ['payments', 'CO'],
  epayco: ['payments', 'CO'],
  payu: ['payments', 'CO'],
  kushki: ['payments', 'EC'],
  transbank: ['payments', 'CL'],
  flow: ['payments', 'CL'],
  khipu: ['payments', 'CL'],
  culqi: ['payments', 'PE'],
  niubiz: ['payments', 'PE'],
  focusnfe: ['fiscal', 'BR'],
  nuvemfiscal: ['fiscal', 'BR'],
  enotas: ['fiscal', 'BR'],
  facturama: ['fiscal', 'MX'],
  facturapi: ['fiscal', 'MX'],
  alegra: ['fiscal', 'CO'],
  melhorenvio: ['logistics', 'BR'],
  correios: ['logistics', 'BR'],
  loggi: ['logistics', 'BR'],
  skydropx: ['logistics', 'MX'],
  envia: ['logistics', 'MX'],
  chilexpress: ['logistics', 'CL'],
  zapi: ['communication', 'BR'],
  twilio: ['communication', '*'],
  sendgrid: ['communication', '*'],
  zenvia: ['communication', 'BR'],
  gupshup: ['communication', '*'],
  belvo: ['banking', 'MX'],
  pluggy: ['banking', 'BR'],
  inter: ['banking', 'BR'],
  wise: ['banking', '*'],
  idwall: ['identity', 'BR'],
  unico: ['identity', 'BR'],
  truora: ['identity', 'CO'],
  metamap: ['identity', '*'],
  bitso: ['crypto', 'MX'],
  circle: ['crypto', '*'],
  mercadobitcoin: ['crypto', 'BR'],
  bling: ['erp', 'BR'],
  omie: ['erp', 'BR'],
  tiny: ['erp', 'BR'],
  vtex: ['ecommerce', 'BR'],
  nuvemshop: ['ecommerce', 'BR'],
  shopify: ['ecommerce', '*'],
  mercadolivre: ['ecommerce', 'BR'],
  blnk: ['ledger', '*'],
};

/** Equal after case and whitespace are ignored. */
const normalize = (text: string): string => text.trim().toLowerCase().replace(/\s+/g, ' ');

describe('demo catalog', () => {
  it('is a Rota catalog, version 2, that the import parser accepts', () => {
    expect(catalog.format).toBe('rota-catalog');
    expect(catalog.version).toBe(2);
    const parsed = parseRotaCatalog(raw);
    expect(parsed.servers).toHaveLength(servers.length);
    expect(parsed.servers.reduce((n, s) => n + s.tools.length, 0)).toBe(tools.length);
  });

  it('says where the inputs of every tool go, in the file itself', () => {
    const parsed = parseRotaCatalog(raw);
    for (const tool of tools)
      expect({ tool: `${tool.server}.${tool.name}`, parameters: typeof tool.parameters }).toEqual({
        tool: `${tool.server}.${tool.name}`,
        parameters: 'object',
      });
    for (const server of parsed.servers) for (const tool of server.tools) expect(tool.parameters).not.toBeNull();
  });

  it('says how every provider is called, except the few whose scheme the format cannot express', () => {
    const parsed = new Map(parseRotaCatalog(raw).servers.map((s) => [s.id, s.provider!]));
    expect(
      servers
        .filter((s) => s.http === null)
        .map((s) => s.id)
        .sort(),
    ).toEqual(UNDESCRIBED);
    for (const server of servers) {
      expect(server).toHaveProperty('http');
      const provider = parsed.get(server.id)!;
      expect(provider.authType).toBe(server.http?.auth.type ?? server.auth_type);
    }
    // Calls that move money carry the provider's own idempotency header.
    expect(servers.find((s) => s.id === 'mercadopago')!.http?.idempotency_header).toBe('X-Idempotency-Key');
    expect(servers.find((s) => s.id === 'stripe')!.http).toEqual({
      auth: { type: 'bearer', credential: 'secret_key' },
      idempotency_header: 'Idempotency-Key',
    });
  });

  it('points the test environment of the providers the sandbox imitates at the sandbox, through the placeholder', () => {
    const inFile = (JSON.parse(text) as DemoCatalog).servers;
    for (const [id, prefix] of Object.entries(SANDBOXED)) {
      expect(inFile.find((s) => s.id === id)!.base_urls.test).toBe(`${SANDBOX_URL_PLACEHOLDER}/${prefix}`);
      expect(servers.find((s) => s.id === id)!.base_urls.test).toBe(`${DEFAULT_SANDBOX_URL}/${prefix}`);
    }
    const elsewhere = inFile.filter((s) => JSON.stringify(s).includes(SANDBOX_URL_PLACEHOLDER)).map((s) => s.id);
    expect(elsewhere.sort()).toEqual(Object.keys(SANDBOXED).sort());
  });

  it('sends every provider the sandbox imitates an idempotency key in the header its model honours', () => {
    expect(Object.keys(SANDBOX_IDEMPOTENCY_HEADERS).sort()).toEqual(Object.keys(SANDBOXED).sort());
    const sent = Object.fromEntries(
      Object.keys(SANDBOXED).map((id) => [
        id,
        servers.find((s) => s.id === id)!.http?.idempotency_header?.toLowerCase(),
      ]),
    );
    expect(sent).toEqual(SANDBOX_IDEMPOTENCY_HEADERS);
  });

  it('resolves the placeholder to any sandbox address, and refuses to import it unresolved', () => {
    const moved = parseRotaCatalog(JSON.parse(substituteSandboxUrl(text, 'http://sandbox:4010/')));
    expect(moved.servers.find((s) => s.id === 'asaas')!.provider!.baseUrls.test).toBe('http://sandbox:4010/asaas');
    expect(() => substituteSandboxUrl(text, 'ftp://sandbox')).toThrow(/ROTA_SANDBOX_URL/);
    let error: unknown;
    try {
      parseCatalogText(text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CatalogFormatError);
    const issues = (error as CatalogFormatError).issues;
    const inFile = (JSON.parse(text) as DemoCatalog).servers;
    expect(issues.map((i) => i.path).sort()).toEqual(
      Object.keys(SANDBOXED)
        .map((id) => `servers[${inFile.findIndex((s) => s.id === id)}].base_urls.test`)
        .sort(),
    );
    expect(issues[0]!.message).toContain(SANDBOX_URL_PLACEHOLDER);
    expect(issues[0]!.line).toBeGreaterThan(1);
  });

  it('has at least 40 providers and 300 tools', () => {
    expect(servers.length).toBeGreaterThanOrEqual(40);
    expect(tools.length).toBeGreaterThanOrEqual(300);
  });

  it.each(Object.entries(REQUIRED))('contains %s with its category and main country', (id, [category, country]) => {
    const server = servers.find((s) => s.id === id);
    expect(server).toBeDefined();
    expect(server!.category).toBe(category);
    expect(server!.country).toBe(country);
    expect(server!.tools.length).toBeGreaterThan(0);
  });

  it('has unique server ids and unique tool names within each server', () => {
    const ids = servers.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const server of servers) {
      const names = server.tools.map((t) => t.name);
      expect({ server: server.id, duplicates: names.filter((n, k) => names.indexOf(n) !== k) }).toEqual({
        server: server.id,
        duplicates: [],
      });
    }
  });

  it('uses slugs for server ids and snake_case for tool names', () => {
    for (const server of servers) expect(server.id).toMatch(/^[a-z0-9][a-z0-9_-]*$/);
    for (const tool of tools) expect(`${tool.server}.${tool.name}`).toMatch(/\.[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  it('uses only known categories, auth types and statuses, and every category at least once', () => {
    for (const server of servers) {
      expect(CATEGORIES).toContain(server.category);
      expect(AUTH_TYPES).toContain(server.auth_type);
      expect(STATUSES).toContain(server.status);
      expect(typeof server.sandbox_available).toBe('boolean');
    }
    expect(new Set(servers.map((s) => s.category))).toEqual(new Set(CATEGORIES));
  });

  it('writes countries as ISO alpha-2 codes and lists the main country among them', () => {
    for (const server of servers) {
      expect(server.country).toMatch(/^([A-Z]{2}|\*)$/);
      for (const c of server.countries ?? []) expect(c).toMatch(/^[A-Z]{2}$/);
      if (server.country === '*') expect(server.countries ?? []).toEqual([]);
      else expect(server.countries).toContain(server.country);
    }
  });

  it('covers at least six of the Latin American markets as a main country', () => {
    const present = LATAM.filter((c) => servers.some((s) => s.country === c));
    expect(present.length).toBeGreaterThanOrEqual(6);
  });

  it('includes providers that need no connection', () => {
    const open = servers.filter((s) => s.auth_type === 'none').map((s) => s.id);
    expect(open).toEqual(expect.arrayContaining(['viacep', 'bcb_ptax']));
  });

  it('gives every provider a description and HTTP(S) base URLs', () => {
    for (const server of servers) {
      expect(server.name.trim()).not.toBe('');
      expect(server.description.length).toBeGreaterThanOrEqual(40);
      expect(server.base_urls.live).toMatch(/^https:\/\//);
      expect(server.base_urls.test).toMatch(/^https?:\/\//);
    }
  });

  it('gives every tool a description of at least 40 characters, none repeated', () => {
    for (const tool of tools)
      expect({ tool: `${tool.server}.${tool.name}`, long: tool.description.trim().length >= 40 }).toEqual({
        tool: `${tool.server}.${tool.name}`,
        long: true,
      });
    const seen = tools.map((t) => normalize(t.description));
    expect(seen.filter((d, k) => seen.indexOf(d) !== k)).toEqual([]);
  });

  it('names the local terms people search for somewhere in the tool descriptions', () => {
    const text = tools.map((t) => t.description).join('\n');
    for (const term of [
      'Pix',
      'boleto',
      'NF-e',
      'NFS-e',
      'NFC-e',
      'CFDI',
      'SPEI',
      'PSE',
      'OXXO',
      'CEP',
      'CPF',
      'CNPJ',
      'RFC',
      'CLABE',
      'WhatsApp',
      'SMS',
      'USDC',
    ]) {
      expect({ term, found: text.includes(term) }).toEqual({ term, found: true });
    }
  });

  it('gives every tool a method, an endpoint and an object schema that declares its path parameters', () => {
    for (const tool of tools) {
      const id = `${tool.server}.${tool.name}`;
      expect({ id, method: METHODS.includes(tool.http_method ?? '') }).toEqual({ id, method: true });
      expect(tool.endpoint_template).toMatch(/^\//);
      const schema = tool.input_schema!;
      expect(schema.type).toBe('object');
      const props = Object.keys(schema.properties ?? {});
      const required = schema.required ?? [];
      expect({ id, undeclared: required.filter((r) => !props.includes(r)) }).toEqual({ id, undeclared: [] });
      const params = templatePlaceholders(tool.endpoint_template ?? '');
      expect({ id, missing: params.filter((p) => !required.includes(p)) }).toEqual({ id, missing: [] });
    }
  });

  (existsSync(sharedPath) ? it : it.skip)('shares no description with the third-party test catalog', () => {
    const shared = JSON.parse(readFileSync(sharedPath, 'utf8')) as Array<{
      description?: string;
      tools?: Array<{ description?: string }>;
    }>;
    const theirs = new Set<string>();
    for (const s of shared) {
      if (s.description) theirs.add(normalize(s.description));
      for (const t of s.tools ?? []) if (t.description) theirs.add(normalize(t.description));
    }
    expect(theirs.size).toBeGreaterThan(0);
    const ours = [
      ...servers.map((s) => ({ at: s.id, text: s.description })),
      ...tools.map((t) => ({ at: `${t.server}.${t.name}`, text: t.description })),
    ];
    expect(ours.filter((d) => theirs.has(normalize(d.text))).map((d) => d.at)).toEqual([]);
  });
});
