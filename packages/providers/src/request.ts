import type { ToolParameterMap } from '@rota/contracts';
import { RequestBuildError } from './errors';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A request ready for auth injection and sending. Header names are lowercase. */
export interface ProviderRequest {
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  /** JSON text, absent when the request has no body. */
  body?: string;
}

export interface BuildRequestArgs {
  /** The provider's base URL for the session's environment; may carry a path prefix (`https://api.example.com/v3`). */
  baseUrl: string;
  method: string;
  /** Path relative to the base URL, with `{input}` placeholders, optionally with a fixed query. */
  endpointTemplate: string;
  /** Where inputs go; omitted fields take the catalog's defaults. */
  parameters?: Partial<ToolParameterMap>;
  input: Record<string, unknown>;
}

const PLACEHOLDER = /\{([A-Za-z0-9_.-]+)\}/g;
const WITHOUT_BODY: ReadonlySet<HttpMethod> = new Set(['GET', 'HEAD']);
// Control characters would split a header or a request line.
const CONTROL = /[\u0000-\u001f\u007f]/;

function unsafe(message: string, details: Record<string, string> = {}): never {
  throw new RequestBuildError('unsafe_request', message, details);
}

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

/** Decodes percent-escapes until nothing changes, so `%252F` is seen as the `/` a lenient server would end up with. */
function fullyDecoded(value: string): string {
  let current = value;
  for (let i = 0; i < 5; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

/**
 * A path placeholder value must stay one segment of the provider's path
 * however many times a server decodes it: no separators, no dot segments,
 * in plain or encoded form.
 */
function pathSegment(name: string, raw: unknown): string {
  if (raw === undefined || raw === null || raw === '') {
    throw new RequestBuildError('missing_path_parameter', `the input "${name}" is required to build the request path`, {
      parameter: name,
    });
  }
  const value = scalar(raw);
  if (value === undefined)
    unsafe(`the input "${name}" must be a string or a number to go in the request path`, { parameter: name });
  const decoded = fullyDecoded(value);
  if (
    /[/\\]/.test(decoded) ||
    CONTROL.test(decoded) ||
    decoded === '.' ||
    decoded === '..' ||
    /%(2e|2f|5c)/i.test(value)
  ) {
    unsafe(`the input "${name}" would leave its path segment`, { parameter: name });
  }
  return encodeURIComponent(value);
}

function checkTemplatePath(path: string) {
  if (
    /^[a-z][a-z0-9+.-]*:/i.test(path) ||
    path.startsWith('//') ||
    path.includes('\\') ||
    path.includes('#') ||
    CONTROL.test(path)
  ) {
    unsafe('the endpoint template is not a path relative to the base URL');
  }
  for (const segment of path.split('/')) {
    const decoded = fullyDecoded(segment);
    if (decoded === '.' || decoded === '..' || /[/\\]/.test(decoded))
      unsafe('the endpoint template would leave the base URL');
  }
}

function appendQuery(params: URLSearchParams, name: string, value: unknown) {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) appendQuery(params, name, item);
    return;
  }
  params.append(name, scalar(value) ?? JSON.stringify(value));
}

/**
 * Builds a provider request from a catalog tool and its input. Inputs named
 * by `{placeholders}` fill the path (one encoded segment each), `query` and
 * `headers` inputs go there, and the body is `rest` (every other input),
 * `none`, or the listed inputs, as JSON. GET and HEAD carry no body: what the
 * body would have held goes to the query string instead.
 *
 * Anything that could make the request leave the base URL (separators or dot
 * segments in a placeholder value, in any encoding, or a template that is not
 * a relative path) is refused before a request exists.
 */
export function buildRequest(args: BuildRequestArgs): ProviderRequest {
  const method = args.method.toUpperCase() as HttpMethod;
  if (!HTTP_METHODS.includes(method)) unsafe(`the method "${args.method.slice(0, 20)}" is not supported`);

  let base: URL;
  try {
    base = new URL(args.baseUrl);
  } catch {
    return unsafe('the provider base URL is not a URL');
  }
  if (
    (base.protocol !== 'https:' && base.protocol !== 'http:') ||
    base.username ||
    base.password ||
    base.search ||
    base.hash
  ) {
    unsafe('the provider base URL must be a plain http(s) URL without query, fragment or credentials');
  }

  const input = args.input;
  const used = new Set<string>();
  const [templatePath = '', templateQuery = ''] = args.endpointTemplate.split('?', 2);
  checkTemplatePath(templatePath);
  const filledPath = templatePath.replace(PLACEHOLDER, (_, name: string) => {
    used.add(name);
    return pathSegment(name, input[name]);
  });
  if (/[{}]/.test(filledPath)) unsafe('the endpoint template has a malformed placeholder');

  const basePath = base.pathname.replace(/\/+$/, '');
  const relative = filledPath === '' || filledPath.startsWith('/') ? filledPath : `/${filledPath}`;
  const expectedPath = `${basePath}${relative}` || '/';
  const url = new URL(`${base.origin}${expectedPath}`);
  // The URL parser resolves dot segments and some encodings; any rewrite means the path was not what it looked like.
  if (url.origin !== base.origin || url.pathname !== expectedPath || !url.pathname.startsWith(basePath)) {
    unsafe('the request would leave the provider base URL');
  }

  const query = new URLSearchParams(templateQuery);
  const parameters = args.parameters ?? {};
  for (const name of parameters.query ?? []) {
    used.add(name);
    appendQuery(query, name, input[name]);
  }

  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, header] of Object.entries(parameters.headers ?? {})) {
    used.add(name);
    const raw = input[name];
    if (raw === undefined || raw === null) continue;
    const value = scalar(raw);
    if (value === undefined || CONTROL.test(value))
      unsafe(`the input "${name}" cannot be sent as a header`, { parameter: name });
    headers[header.toLowerCase()] = value;
  }

  const bodyRule = parameters.body ?? 'rest';
  let bodyFields: Record<string, unknown> | undefined;
  if (bodyRule === 'rest') {
    bodyFields = {};
    for (const [name, value] of Object.entries(input))
      if (!used.has(name) && value !== undefined) bodyFields[name] = value;
  } else if (Array.isArray(bodyRule)) {
    bodyFields = {};
    for (const name of bodyRule) if (input[name] !== undefined) bodyFields[name] = input[name];
  }

  let body: string | undefined;
  if (bodyFields) {
    if (WITHOUT_BODY.has(method)) {
      for (const [name, value] of Object.entries(bodyFields)) appendQuery(query, name, value);
    } else if (bodyRule !== 'rest' || Object.keys(bodyFields).length > 0 || method !== 'DELETE') {
      body = JSON.stringify(bodyFields);
      headers['content-type'] = 'application/json';
    }
  }

  const search = query.toString();
  if (search) url.search = search;
  return { url: url.toString(), method, headers, ...(body !== undefined ? { body } : {}) };
}
