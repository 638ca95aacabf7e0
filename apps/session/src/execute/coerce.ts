/**
 * Argument coercion from a tool's JSON Schema: the pre-pass before
 * validation (`./validate`).
 *
 * Agents often send every value as a string ("limit": "5", "dynamic":
 * "true"). Where the schema asks for a number, integer or boolean, a string
 * that clearly is one is converted; anything that cannot be is reported as an
 * issue, and the caller answers `invalid_args` without running the tool.
 * Numbers and booleans given for a string field become strings. `null` for an
 * optional field that does not allow null is dropped, as if it were absent.
 * Only `type`, `properties`, `required` and `items` are read here; every
 * other keyword is the validator's. Unknown fields pass through untouched.
 */

/** The part of a JSON Schema node coercion reads. */
interface SchemaNode {
  type?: string | readonly string[];
  properties?: Record<string, SchemaNode>;
  required?: readonly string[];
  items?: SchemaNode;
}

export interface CoerceIssue {
  path: Array<string | number>;
  message: string;
}

export type CoerceResult = { ok: true; value: Record<string, unknown> } | { ok: false; issues: CoerceIssue[] };

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function typesOf(node: SchemaNode): string[] {
  if (node.type === undefined) return [];
  return typeof node.type === 'string' ? [node.type] : [...node.type];
}

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Converts `value` to one of the node's types, or explains why it cannot. */
function convert(value: unknown, node: SchemaNode, path: Array<string | number>, issues: CoerceIssue[]): unknown {
  const types = typesOf(node);
  let out: unknown = value;
  if (types.length > 0) {
    let converted: { v: unknown } | undefined;
    for (const t of types) {
      converted = toType(value, t);
      if (converted) break;
    }
    if (!converted) {
      issues.push({ path, message: `expected ${types.join(' or ')}, received ${kindOf(value)}${typeof value === 'string' ? ` "${value.slice(0, 40)}"` : ''}` });
      return value;
    }
    out = converted.v;
  }
  if (out !== null && typeof out === 'object' && !Array.isArray(out) && node.properties) {
    return coerceObject(out as Record<string, unknown>, node, path, issues);
  }
  if (Array.isArray(out) && node.items) {
    const items = node.items;
    return out.map((item, i) => convert(item, items, [...path, i], issues));
  }
  return out;
}

function toType(value: unknown, type: string): { v: unknown } | undefined {
  switch (type) {
    case 'number':
    case 'integer': {
      let n: number | undefined;
      if (typeof value === 'number') n = value;
      else if (typeof value === 'string' && NUMBER.test(value.trim())) n = Number(value.trim());
      if (n === undefined || !Number.isFinite(n)) return undefined;
      if (type === 'integer' && !Number.isInteger(n)) return undefined;
      return { v: n };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { v: value };
      if (typeof value === 'string') {
        const s = value.trim().toLowerCase();
        if (s === 'true') return { v: true };
        if (s === 'false') return { v: false };
      }
      return undefined;
    case 'string':
      if (typeof value === 'string') return { v: value };
      if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return { v: String(value) };
      return undefined;
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? { v: value } : undefined;
    case 'array':
      return Array.isArray(value) ? { v: value } : undefined;
    case 'null':
      return value === null ? { v: null } : undefined;
    default:
      // A type we do not know: leave the value to the tool.
      return { v: value };
  }
}

function coerceObject(input: Record<string, unknown>, node: SchemaNode, path: Array<string | number>, issues: CoerceIssue[]): Record<string, unknown> {
  const props = node.properties ?? {};
  const required = new Set(node.required ?? []);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const child = Object.prototype.hasOwnProperty.call(props, key) ? props[key] : undefined;
    if (!child) {
      out[key] = value;
      continue;
    }
    if (value === undefined) continue;
    if (value === null && !typesOf(child).includes('null') && !required.has(key)) continue;
    out[key] = convert(value, child, [...path, key], issues);
  }
  return out;
}

/**
 * Coerces a tool's arguments against its input schema. A missing or
 * non-object schema accepts anything. Required fields are not enforced here
 * but by the validator, which knows `codespar_discover` takes `query` in
 * place of `use_case`.
 */
export function coerceArgs(input: Record<string, unknown>, schema: unknown): CoerceResult {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return { ok: true, value: { ...input } };
  const issues: CoerceIssue[] = [];
  const value = coerceObject(input, schema as SchemaNode, [], issues);
  return issues.length ? { ok: false, issues } : { ok: true, value };
}
