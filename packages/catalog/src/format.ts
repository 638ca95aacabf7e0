import { ProviderHttp, ToolParameterMap, type ProviderAuthType } from '@rota/contracts';
import { findNodeAtLocation, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';

/**
 * Rota catalog formats: providers ("servers") with their tools, one JSON
 * document. Version 2 adds how each provider is called (where its
 * credentials go, its idempotency header) and where each tool's inputs go;
 * version 1 documents still read, their providers simply cannot be called
 * until a v2 import says how. The parsers below also read an MCP
 * `tools/list` result for one server and turn all of them into the same
 * {@link CatalogDocument} for the import.
 */

export const AUTH_TYPES = [
  'api_key',
  'bearer',
  'basic',
  'oauth2',
  'certificate',
  'hmac',
  'jwt',
  'two_header',
  'none',
] as const;
export type AuthType = (typeof AUTH_TYPES)[number];
// Every auth type the contract describes is one the catalog accepts, and no other.
type _SameAuthTypes = [AuthType] extends [ProviderAuthType]
  ? [ProviderAuthType] extends [AuthType]
    ? true
    : never
  : never;
const _sameAuthTypes: _SameAuthTypes = true;
void _sameAuthTypes;
/** Auth a developer can set up alone, without a contract or a certificate. */
export const SELF_SERVE_AUTH: ReadonlySet<AuthType> = new Set(['api_key', 'bearer', 'basic', 'oauth2', 'none']);
/** Catalog format versions the import reads. */
export const CATALOG_VERSIONS = [1, 2] as const;
/**
 * Written in a base URL of a shipped catalog file where the sandbox provider
 * server's address goes; the seed substitutes it. The import refuses any base
 * URL that still holds it.
 */
export const SANDBOX_URL_PLACEHOLDER = '${ROTA_SANDBOX_URL}';
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const ServerId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be a lowercase slug: a-z, 0-9, ".", "_" or "-", at most 64 characters');
/** MCP tool names: 1..128 characters of A-Z a-z 0-9 _ - . (and / for namespaced tools). */
const ToolName = z
  .string()
  .regex(/^[A-Za-z0-9_.\-/]{1,128}$/, 'must be 1..128 characters of A-Z, a-z, 0-9, "_", "-", "." or "/"');
const Country = z.string().regex(/^([A-Z]{2}|\*)$/, 'must be an ISO 3166-1 alpha-2 code in capitals, or "*"');
const Url = z
  .string()
  .max(2000)
  .refine(
    (s) => !s.includes(SANDBOX_URL_PLACEHOLDER),
    `still holds ${SANDBOX_URL_PLACEHOLDER}: substitute the sandbox address before importing (the demo seed does)`,
  )
  .pipe(z.string().url());
/** Postgres text cannot hold NUL characters; refuse them here rather than fail in the database. */
const Text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');

export const CatalogToolSchema = z.strictObject({
  name: ToolName,
  description: Text(10_000),
  http_method: z.enum(HTTP_METHODS).nullable().optional(),
  endpoint_template: z.string().min(1).max(2000).nullable().optional(),
  input_schema: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type CatalogToolInput = z.input<typeof CatalogToolSchema>;

/** A v2 tool: where its inputs go. Absent, every input not in the path goes to the body (the query for GET). */
export const CatalogToolSchemaV2 = CatalogToolSchema.extend({ parameters: ToolParameterMap.optional() });
export type CatalogToolInputV2 = z.input<typeof CatalogToolSchemaV2>;

/** A provider's own fields (everything but its tools). */
export const ProviderSchema = z.strictObject({
  id: ServerId,
  name: Text(200).refine((s) => s.trim().length > 0, 'must not be empty'),
  description: Text(5000).default(''),
  category: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a lowercase slug'),
  /** Main country, or `*` for a global provider; when absent, the first of `countries`, or `*` if none. */
  country: Country.optional(),
  countries: z
    .array(z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in capitals'))
    .max(250)
    .optional(),
  auth_type: z.enum(AUTH_TYPES),
  base_urls: z.strictObject({ live: Url.nullable().optional(), test: Url.nullable().optional() }).default({}),
  status: z
    .string()
    .regex(/^[a-z][a-z_]{0,31}$/, 'must be a lowercase word such as stable, beta or alpha')
    .default('stable'),
  sandbox_available: z.boolean().default(false),
  /**
   * Whether calls to this provider can move money. Absent: a global provider
   * goes by its category, a project's own provider counts as moving money.
   * Only an operator import is believed when it says `false` for a project's
   * provider; a project's own import cannot lift its amount rules this way.
   */
  moves_money: z.boolean().optional(),
});
export type ProviderInput = z.input<typeof ProviderSchema>;

/**
 * A v2 provider: `http` says how it is called; `auth_type` may be left out
 * (it is `http.auth.type`) and, when given, must say the same. `http: null`
 * states that the catalog cannot describe the provider's scheme yet (its
 * tools are found but not called); `auth_type` is then required.
 */
export const ProviderSchemaV2 = ProviderSchema.extend({
  auth_type: z.enum(AUTH_TYPES).optional(),
  http: ProviderHttp.nullable(),
});
export type ProviderInputV2 = z.input<typeof ProviderSchemaV2>;

export const CatalogServerSchema = ProviderSchema.extend({ tools: z.array(CatalogToolSchema).max(10_000) });
export const CatalogServerSchemaV2 = ProviderSchemaV2.extend({ tools: z.array(CatalogToolSchemaV2).max(10_000) });

export const RotaCatalogSchema = z.strictObject({
  format: z.literal('rota-catalog'),
  version: z.literal(1),
  servers: z.array(CatalogServerSchema).max(20_000),
});
export type RotaCatalogInput = z.input<typeof RotaCatalogSchema>;

export const RotaCatalogSchemaV2 = z.strictObject({
  format: z.literal('rota-catalog'),
  version: z.literal(2),
  servers: z.array(CatalogServerSchemaV2).max(20_000),
});
export type RotaCatalogInputV2 = z.input<typeof RotaCatalogSchemaV2>;

/** One tool, normalised: unknown optional fields are null. */
export interface CatalogTool {
  name: string;
  description: string;
  httpMethod: string | null;
  endpointTemplate: string | null;
  inputSchema: Record<string, unknown> | null;
  /** Where the inputs go (format v2); null: not known, the tool cannot be called over HTTP. */
  parameters: ToolParameterMap | null;
}

/** A provider row as stored. */
export interface CatalogProvider {
  id: string;
  name: string;
  description: string;
  category: string;
  country: string;
  countries: string[];
  authType: AuthType;
  selfServeAuth: boolean;
  baseUrls: { live: string | null; test: string | null };
  status: string;
  sandboxAvailable: boolean;
  /** Whether calls to it can move money, as the import declared it; null: not declared. */
  movesMoney: boolean | null;
  /** How the provider is called (format v2); null: not known, calls to it are refused. */
  http: ProviderHttp | null;
}

/** What the import writes: each server's details (or null: it must already exist) and its tools. */
export interface CatalogServer {
  id: string;
  provider: CatalogProvider | null;
  tools: CatalogTool[];
}
export interface CatalogDocument {
  servers: CatalogServer[];
}

/** One thing wrong with an input file, located as precisely as the input allows. */
export interface CatalogIssue {
  /** `servers[3].tools[2].name`; empty for the document as a whole. */
  path: string;
  message: string;
  /** 1-based, when the input was text. */
  line?: number;
  column?: number;
}

/** A file or body that is not a valid catalog; nothing was written. */
export class CatalogFormatError extends Error {
  constructor(readonly issues: CatalogIssue[]) {
    super(
      issues.length
        ? describeIssue(issues[0]!) + (issues.length > 1 ? ` (and ${issues.length - 1} more)` : '')
        : 'invalid catalog',
    );
    this.name = 'CatalogFormatError';
  }
}

export function describeIssue(i: CatalogIssue): string {
  const where = [i.line !== undefined ? `line ${i.line}, column ${i.column ?? 1}` : '', i.path ? `at ${i.path}` : '']
    .filter(Boolean)
    .join(' ');
  return where ? `${where}: ${i.message}` : i.message;
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

/** Normalises one provider's fields. */
export function toProvider(p: z.output<typeof ProviderSchema>, http: ProviderHttp | null = null): CatalogProvider {
  const countries = [...(p.countries ?? (p.country && p.country !== '*' ? [p.country] : []))];
  // Without an explicit main country, the first listed one is; none listed means global.
  const country = p.country ?? countries[0] ?? '*';
  if (country !== '*' && !countries.includes(country)) countries.unshift(country);
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    category: p.category,
    country,
    countries: [...new Set(countries)],
    authType: p.auth_type,
    selfServeAuth: SELF_SERVE_AUTH.has(p.auth_type),
    baseUrls: { live: p.base_urls.live ?? null, test: p.base_urls.test ?? null },
    status: p.status,
    sandboxAvailable: p.sandbox_available,
    movesMoney: p.moves_money ?? null,
    http,
  };
}

function toTool(t: z.output<typeof CatalogToolSchema>, parameters: ToolParameterMap | null = null): CatalogTool {
  return {
    name: t.name,
    description: t.description,
    httpMethod: t.http_method ?? null,
    endpointTemplate: t.endpoint_template ?? null,
    inputSchema: t.input_schema ?? null,
    parameters,
  };
}

/** An issue still carrying its path as segments, so a text parser can find its line. */
interface RawIssue {
  segments: (string | number)[];
  message: string;
}
class RawIssues extends Error {
  constructor(readonly raw: RawIssue[]) {
    super('invalid catalog');
  }
}
const toPublic = (r: RawIssue): CatalogIssue => ({ path: formatPath(r.segments), message: r.message });

function zodToIssues(error: z.ZodError, prefix: (string | number)[] = []): RawIssue[] {
  return error.issues.map((i) => ({
    segments: [...prefix, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    message: i.message,
  }));
}

/** Runs an internal parser and turns its raw issues into the public error. */
function publicly<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof RawIssues) throw new CatalogFormatError(err.raw.map(toPublic));
    throw err;
  }
}

/** Duplicates the schema cannot see: a server twice, a tool twice within a server. */
function duplicateIssues(servers: Array<{ id: string; tools: Array<{ name: string }> }>): RawIssue[] {
  const base = ['servers'];
  const issues: RawIssue[] = [];
  const seen = new Map<string, number>();
  servers.forEach((s, i) => {
    const first = seen.get(s.id);
    if (first !== undefined)
      issues.push(
        issueAt([...base, i, 'id'], `server "${s.id}" appears twice (first at ${formatPath([...base, first])})`),
      );
    else seen.set(s.id, i);
    const names = new Map<string, number>();
    s.tools.forEach((t, k) => {
      const prev = names.get(t.name);
      if (prev !== undefined)
        issues.push(
          issueAt(
            [...base, i, 'tools', k, 'name'],
            `tool "${t.name}" appears twice in server "${s.id}" (first at tools[${prev}])`,
          ),
        );
      else names.set(t.name, k);
    });
  });
  return issues;
}

function issueAt(segments: (string | number)[], message: string): RawIssue {
  return { segments, message };
}

/** Validates a Rota catalog document (already parsed JSON). */
export function parseRotaCatalog(value: unknown): CatalogDocument {
  return publicly(() => rotaInternal(value));
}

/** `{name}` path parameters, as the request builder reads them. */
const PLACEHOLDER = /\{([A-Za-z0-9_.-]+)\}/g;

/** The path parameters of an endpoint template, in order (its query part has none). */
export function templatePlaceholders(template: string): string[] {
  const [path = ''] = template.split('?', 1);
  return [...path.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** The inputs a JSON Schema lists, or null when it lists none (no schema, or no `properties`). */
function listedInputs(schema: Record<string, unknown> | null | undefined): Set<string> | null {
  const props = schema?.properties;
  return props && typeof props === 'object' && !Array.isArray(props) ? new Set(Object.keys(props)) : null;
}

/**
 * What the schema cannot see in a v2 tool: every path parameter must be an
 * input, and every input named in `parameters` must exist and go to one
 * place only. Inputs are checked against `input_schema.properties` when the
 * schema lists them; a tool without a schema is trusted.
 */
function parameterIssues(tool: z.output<typeof CatalogToolSchemaV2>, at: (string | number)[]): RawIssue[] {
  const issues: RawIssue[] = [];
  const inputs = listedInputs(tool.input_schema);
  const template = tool.endpoint_template ?? '';
  const [path = '', query = ''] = template.split('?', 2);
  if (/[{}]/.test(path.replace(PLACEHOLDER, ''))) {
    issues.push(
      issueAt(
        [...at, 'endpoint_template'],
        'has a malformed placeholder: write {input} with letters, digits, "_", "-" or "."',
      ),
    );
  }
  if (/[{}]/.test(query))
    issues.push(
      issueAt(
        [...at, 'endpoint_template'],
        'has a placeholder in its query string: name query inputs in parameters.query instead',
      ),
    );
  /** Where each input already goes, to refuse an input sent twice. */
  const placed = new Map<string, string>();
  for (const name of templatePlaceholders(template)) {
    if (inputs && !inputs.has(name))
      issues.push(
        issueAt(
          [...at, 'endpoint_template'],
          `path parameter {${name}} is not an input: add "${name}" to input_schema.properties`,
        ),
      );
    placed.set(name, 'the path');
  }
  const p = tool.parameters;
  if (!p) return issues;
  const place = (name: string, where: string, segments: (string | number)[]) => {
    if (inputs && !inputs.has(name))
      issues.push(issueAt(segments, `"${name}" is not an input: input_schema.properties does not list it`));
    const before = placed.get(name);
    if (before) issues.push(issueAt(segments, `"${name}" already goes in ${before}; an input goes to one place`));
    else placed.set(name, where);
  };
  p.query.forEach((name, i) => place(name, 'the query', [...at, 'parameters', 'query', i]));
  for (const name of Object.keys(p.headers)) place(name, 'a header', [...at, 'parameters', 'headers', name]);
  if (Array.isArray(p.body)) p.body.forEach((name, i) => place(name, 'the body', [...at, 'parameters', 'body', i]));
  return issues;
}

/** What the schema cannot see in a v2 provider: `auth_type` and `http.auth.type` agree, and one of them says the type. */
function authIssue(s: Pick<z.output<typeof ProviderSchemaV2>, 'auth_type' | 'http'>): string | null {
  if (s.http === null) return s.auth_type === undefined ? 'auth_type is required when http is null' : null;
  if (s.auth_type === undefined || s.auth_type === s.http.auth.type) return null;
  return `auth_type is "${s.auth_type}" but http.auth.type is "${s.http.auth.type}"; leave auth_type out or make them agree`;
}

/** The provider's fields with `auth_type` settled (after {@link authIssue} found nothing). */
function v2Provider(s: z.output<typeof ProviderSchemaV2>): CatalogProvider {
  const { http, ...rest } = s;
  return toProvider({ ...rest, auth_type: http?.auth.type ?? s.auth_type! }, http);
}

function rotaInternal(value: unknown): CatalogDocument {
  const version =
    value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>).version
      : undefined;
  if (version !== undefined && !(CATALOG_VERSIONS as readonly unknown[]).includes(version)) {
    throw new RawIssues([
      issueAt(['version'], `must be ${CATALOG_VERSIONS.join(' or ')} (the catalog format versions this import reads)`),
    ]);
  }
  if (version === 2) return rotaV2(value);
  const parsed = RotaCatalogSchema.safeParse(value);
  if (!parsed.success) throw new RawIssues(zodToIssues(parsed.error));
  const dups = duplicateIssues(parsed.data.servers);
  if (dups.length) throw new RawIssues(dups);
  return {
    servers: parsed.data.servers.map((s) => {
      const { tools, ...provider } = s;
      // A v1 provider says nothing of how it is called: stored without it, and calls to it are refused.
      return { id: s.id, provider: toProvider(provider), tools: tools.map((t) => toTool(t)) };
    }),
  };
}

function rotaV2(value: unknown): CatalogDocument {
  const parsed = RotaCatalogSchemaV2.safeParse(value);
  if (!parsed.success) throw new RawIssues(zodToIssues(parsed.error));
  const servers = parsed.data.servers;
  const issues = duplicateIssues(servers);
  servers.forEach((s, i) => {
    const auth = authIssue(s);
    if (auth) issues.push(issueAt(['servers', i, s.http === null ? 'http' : 'auth_type'], auth));
    s.tools.forEach((t, k) => issues.push(...parameterIssues(t, ['servers', i, 'tools', k])));
  });
  if (issues.length) throw new RawIssues(issues);
  return {
    servers: servers.map((s) => {
      const { tools, ...provider } = s;
      return {
        id: s.id,
        provider: v2Provider(provider),
        // A v2 tool without a map still has one: the defaults (path parameters, then the rest in the body).
        tools: tools.map(({ parameters, ...t }) => toTool(t, parameters ?? ToolParameterMap.parse({}))),
      };
    }),
  };
}

const McpTool = z.looseObject({
  name: ToolName,
  title: z.string().optional(),
  description: Text(10_000).optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
});
const McpToolsList = z.looseObject({ tools: z.array(McpTool).max(10_000) });

/** Which server an MCP `tools/list` result belongs to: a known provider's id, or a new provider's details (v1 or v2 fields). */
export type McpServerTarget = string | ProviderInput | ProviderInputV2;

/**
 * Reads an MCP `tools/list` result (`{tools: [...]}`, or the whole JSON-RPC
 * response around it) as the tools of one server. Method and endpoint are
 * unknown for MCP tools and stay null.
 */
export function parseMcpToolsList(value: unknown, server: McpServerTarget): CatalogDocument {
  return publicly(() => mcpInternal(value, server));
}

function mcpInternal(value: unknown, server: McpServerTarget): CatalogDocument {
  let base: (string | number)[] = [];
  let body = value;
  if (body && typeof body === 'object' && !Array.isArray(body) && 'result' in body && !('tools' in body)) {
    body = (body as { result: unknown }).result;
    base = ['result'];
  }
  const parsed = McpToolsList.safeParse(body);
  if (!parsed.success) throw new RawIssues(zodToIssues(parsed.error, base));
  let provider: CatalogProvider | null = null;
  let id: string;
  if (typeof server === 'string') {
    const sid = ServerId.safeParse(server);
    if (!sid.success)
      throw new RawIssues([
        { segments: [], message: `server id "${server}" ${sid.error.issues[0]?.message ?? 'is invalid'}` },
      ]);
    id = server;
  } else {
    const v2 = 'http' in server;
    const p = v2 ? ProviderSchemaV2.safeParse(server) : ProviderSchema.safeParse(server);
    if (!p.success)
      throw new RawIssues(
        p.error.issues.map((i) => ({ segments: [], message: `server.${formatPath(i.path)}: ${i.message}` })),
      );
    if (v2) {
      const data = p.data as z.output<typeof ProviderSchemaV2>;
      const auth = authIssue(data);
      if (auth) throw new RawIssues([{ segments: [], message: `server: ${auth}` }]);
      provider = v2Provider(data);
    } else provider = toProvider(p.data as z.output<typeof ProviderSchema>);
    id = provider.id;
  }
  const names = new Map<string, number>();
  const dups: RawIssue[] = [];
  parsed.data.tools.forEach((t, k) => {
    const prev = names.get(t.name);
    if (prev !== undefined)
      dups.push(issueAt([...base, 'tools', k, 'name'], `tool "${t.name}" appears twice (first at tools[${prev}])`));
    else names.set(t.name, k);
  });
  if (dups.length) throw new RawIssues(dups);
  return {
    servers: [
      {
        id,
        provider,
        tools: parsed.data.tools.map((t) => ({
          name: t.name,
          description: (t.description ?? t.title ?? '').trim(),
          httpMethod: null,
          endpointTemplate: null,
          inputSchema: t.inputSchema ?? null,
          parameters: null,
        })),
      },
    ],
  };
}

/**
 * The kinds of input the import reads: Rota format v1 or v2, an MCP `tools/list`
 * result, or a bare array of `{server_id, server_name, tools}` objects (the
 * layout MCP server collections are often published in; see
 * {@link fromSharedCatalog}).
 */
export type CatalogFormat = 'rota' | 'mcp' | 'server-array';

/** Tells a Rota catalog from an MCP `tools/list` result. */
export function detectFormat(value: unknown): CatalogFormat | undefined {
  if (Array.isArray(value)) {
    const first = value[0] as Record<string, unknown> | undefined;
    return first && typeof first === 'object' && typeof first.server_id === 'string' && Array.isArray(first.tools)
      ? 'server-array'
      : undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (v.format === 'rota-catalog' || 'servers' in v) return 'rota';
  if (Array.isArray(v.tools)) return 'mcp';
  const r = v.result as Record<string, unknown> | undefined;
  if (r && typeof r === 'object' && Array.isArray(r.tools)) return 'mcp';
  return undefined;
}

export interface ParseCatalogOptions {
  /** For MCP `tools/list` input: the server the tools belong to. */
  server?: McpServerTarget;
  /** Forces a format instead of detecting it. */
  format?: CatalogFormat;
}

/** Parses already-decoded JSON (an HTTP body). Issues carry paths but no lines. */
export function parseCatalogValue(value: unknown, opts: ParseCatalogOptions = {}): CatalogDocument {
  return publicly(() => valueInternal(value, opts));
}

function valueInternal(value: unknown, opts: ParseCatalogOptions): CatalogDocument {
  const format = opts.format ?? detectFormat(value);
  if (format === 'rota') return rotaInternal(value);
  if (format === 'server-array') return rotaInternal(fromSharedCatalog(value));
  if (format === 'mcp') {
    if (opts.server === undefined) {
      throw new RawIssues([
        {
          segments: [],
          message:
            "an MCP tools/list result belongs to one server: name it (--server <id>, or the new provider's details)",
        },
      ]);
    }
    return mcpInternal(value, opts.server);
  }
  throw new RawIssues([
    {
      segments: [],
      message:
        'not a catalog: expected {"format":"rota-catalog","version":2,"servers":[...]} (or version 1) or an MCP tools/list result {"tools":[...]}',
    },
  ]);
}

function lineCol(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, column: offset - last };
}

/**
 * Parses a file's text. JSON syntax errors and schema errors alike come back
 * as a {@link CatalogFormatError} naming the line, column and field at fault.
 */
export function parseCatalogText(text: string, opts: ParseCatalogOptions = {}): CatalogDocument {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(src);
  } catch {
    // Locate the syntax error with a parser that reports offsets.
    const errors: ParseError[] = [];
    parseTree(src, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    const at = lineCol(src, first?.offset ?? 0);
    throw new CatalogFormatError([
      { path: '', message: `invalid JSON (${first ? printParseErrorCode(first.error) : 'unreadable'})`, ...at },
    ]);
  }
  try {
    return valueInternal(value, opts);
  } catch (err) {
    if (!(err instanceof RawIssues)) throw err;
    const root = parseTree(src);
    throw new CatalogFormatError(
      err.raw.map((issue) => {
        const out = toPublic(issue);
        if (!root) return out;
        // The deepest node that exists along the path: a missing field points at its parent object.
        for (let n = issue.segments.length; n >= 0; n--) {
          const node = findNodeAtLocation(root, issue.segments.slice(0, n));
          if (node)
            return { ...out, ...lineCol(src, node.parent?.type === 'property' ? node.parent.offset : node.offset) };
        }
        return out;
      }),
    );
  }
}

/**
 * Converts a bare array of `{server_id, server_name, country, category,
 * auth_type, status, description, tools: [{name, description}]}` (the shape
 * of the shared test catalog) to Rota format v1. Unknown auth types become
 * `api_key` and odd countries `*`; the result is then validated as usual.
 */
export function fromSharedCatalog(value: unknown): RotaCatalogInput {
  if (!Array.isArray(value)) throw new CatalogFormatError([{ path: '', message: 'expected an array of servers' }]);
  return {
    format: 'rota-catalog',
    version: 1,
    servers: value.map((s: Record<string, any>) => ({
      id: String(s.server_id),
      name: String(s.server_name ?? s.server_id),
      description: String(s.description ?? ''),
      category: String(s.category ?? 'other'),
      country: s.country === '*' || /^[A-Z]{2}$/.test(String(s.country)) ? String(s.country) : '*',
      auth_type: (AUTH_TYPES as readonly string[]).includes(s.auth_type) ? s.auth_type : 'api_key',
      status: String(s.status ?? 'stable'),
      sandbox_available: false,
      base_urls: {},
      tools: (Array.isArray(s.tools) ? s.tools : []).map((t: Record<string, unknown>) => ({
        name: String(t.name),
        description: String(t.description ?? ''),
      })),
    })),
  };
}
