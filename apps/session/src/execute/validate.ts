import { createHash } from 'node:crypto';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { z } from 'zod';

/**
 * Argument validation at execute: first the coercion pre-pass (`coerceArgs`, below),
 * then every keyword of the tool's schema.
 *
 * A meta-tool is validated with its zod input from contracts, the schema its
 * published JSON Schema is generated from. A catalog tool carries arbitrary
 * JSON Schema (draft-07 or 2020-12) and is validated with Ajv. Ajv never
 * coerces (`coerceTypes: false`): the pre-pass does the only conversions
 * the spec allows, so `null` never turns into `0` or `""`.
 */

/** One reason the arguments were refused: where, and what is wrong there. */
export type ArgIssue = CoerceIssue;

/** `unchecked` says why a catalog schema's keywords could not be checked (it does not compile). */
export type ArgsCheck =
  { ok: true; value: Record<string, unknown>; unchecked?: string } | { ok: false; issues: ArgIssue[] };

/** The published JSON Schema (for coercion) and the zod schema (for validation) of a meta-tool. */
export interface MetaToolArgs {
  inputSchema: unknown;
  accepts: z.ZodType;
}

/** Coerces and validates a meta-tool's arguments. */
export function checkMetaArgs(input: Record<string, unknown>, tool: MetaToolArgs): ArgsCheck {
  const coerced = coerceArgs(input, tool.inputSchema);
  if (!coerced.ok) return coerced;
  // Only the verdict is used: the call carries the coerced arguments as sent,
  // so defaults stay the tool's to apply and the recorded input is the caller's.
  const parsed = tool.accepts.safeParse(coerced.value, {
    error: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined),
  });
  if (parsed.success) return { ok: true, value: coerced.value };
  return {
    ok: false,
    issues: parsed.error.issues.map((i) => ({
      path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
      message: i.message,
    })),
  };
}

const DRAFT_2020 = /json-schema\.org\/draft\/2020-12\/schema/;

/** A cached compile: the validator, or why there is none; `release` drops it from Ajv too. */
type Compiled =
  { validate: ValidateFunction; release: () => void } | { validate: null; reason: string; release: () => void };

/**
 * Compiled catalog schemas, cached by a hash of their JSON in a bounded LRU.
 * The same schema arrives as a fresh object on every call (it is read from
 * the database), so the cache is keyed by content, and an evicted entry is
 * also removed from Ajv, which otherwise keeps every schema it compiled.
 */
export class CatalogSchemas {
  private readonly draft07: Ajv;
  private readonly draft2020: Ajv2020;
  private readonly cache = new Map<string, Compiled>();

  constructor(private readonly maxEntries = 500) {
    // strict: false lets third-party catalogs carry keywords and formats Ajv does not know;
    // they are ignored rather than failing the compile. addUsedSchema: false keeps a catalog's
    // `$id` out of the instance, so two tools reusing one id do not collide.
    const options = {
      strict: false,
      allErrors: true,
      coerceTypes: false,
      useDefaults: false,
      addUsedSchema: false,
      logger: false,
    } as const;
    this.draft07 = addFormats(new Ajv(options));
    this.draft2020 = addFormats(new Ajv2020(options));
  }

  /** How many compiled schemas are held. */
  get size(): number {
    return this.cache.size;
  }

  /**
   * Coerces and validates a catalog tool's arguments. A missing or non-object
   * schema accepts anything, as it always has.
   *
   * A schema Ajv cannot compile (an invalid keyword value, a pattern
   * JavaScript cannot read, a `$ref` to a document it does not have) leaves
   * the arguments coerced but otherwise unchecked, and says so in
   * `unchecked`: the caller cannot repair the catalog, and refusing every
   * call would make the tool unusable over a defect the provider may not
   * share. The provider remains the judge of such arguments.
   */
  check(input: Record<string, unknown>, schema: unknown): ArgsCheck {
    const coerced = coerceArgs(input, schema);
    if (!coerced.ok) return coerced;
    if (!isObject(schema)) return coerced;
    const compiled = this.compiled(schema);
    if (!compiled.validate) return { ok: true, value: coerced.value, unchecked: compiled.reason };
    if (compiled.validate(coerced.value)) return coerced;
    return { ok: false, issues: (compiled.validate.errors ?? []).map((e) => ajvIssue(e, coerced.value)) };
  }

  private compiled(schema: Record<string, unknown>): Compiled {
    const key = createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
    const hit = this.cache.get(key);
    if (hit) {
      // Re-inserting moves the entry to the young end of the map's order.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const entry = this.compile(schema);
    this.cache.set(key, entry);
    if (this.cache.size > this.maxEntries) {
      const [oldestKey, oldest] = this.cache.entries().next().value as [string, Compiled];
      this.cache.delete(oldestKey);
      oldest.release();
    }
    return entry;
  }

  private compile(schema: Record<string, unknown>): Compiled {
    // The dialect is chosen by `$schema`: 2020-12 when named, draft-07 otherwise.
    // Ajv then reads the copy without `$schema` and `$id`, so an older or unknown
    // dialect is read as draft-07 instead of failing on a meta-schema it lacks.
    const { $schema, $id: _id, ...body } = schema;
    const ajv: Ajv = typeof $schema === 'string' && DRAFT_2020.test($schema) ? this.draft2020 : this.draft07;
    try {
      const validate = ajv.compile(body);
      return { validate, release: () => ajv.removeSchema(body) };
    } catch (err) {
      // A failed compile still leaves its entry in Ajv's own cache.
      ajv.removeSchema(body);
      return { validate: null, reason: err instanceof Error ? err.message : String(err), release: () => undefined };
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads a JSON Pointer against the data it points into, so array indexes come out as numbers. */
function pointerPath(pointer: string, data: unknown): Array<string | number> {
  if (pointer === '') return [];
  const path: Array<string | number> = [];
  let at: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const step = Array.isArray(at) && /^\d+$/.test(segment) ? Number(segment) : segment;
    path.push(step);
    at = isObject(at) || Array.isArray(at) ? (at as Record<string | number, unknown>)[step] : undefined;
  }
  return path;
}

/** An Ajv error as an issue that names the field itself, also for `required` and unexpected fields. */
function ajvIssue(e: ErrorObject, data: unknown): ArgIssue {
  const path = pointerPath(e.instancePath, data);
  switch (e.keyword) {
    case 'required':
      return { path: [...path, (e.params as { missingProperty: string }).missingProperty], message: 'is required' };
    case 'additionalProperties':
      return {
        path: [...path, (e.params as { additionalProperty: string }).additionalProperty],
        message: 'is not allowed',
      };
    case 'enum':
      return {
        path,
        message: `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`,
      };
    default:
      return { path, message: e.message ?? `fails ${e.keyword}` };
  }
}

/**
 * Argument coercion from a tool's JSON Schema: the pre-pass before
 * validation (`checkMetaArgs`, `CatalogSchemas`).
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
      issues.push({
        path,
        message: `expected ${types.join(' or ')}, received ${kindOf(value)}${typeof value === 'string' ? ` "${value.slice(0, 40)}"` : ''}`,
      });
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
      if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean')
        return { v: String(value) };
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

function coerceObject(
  input: Record<string, unknown>,
  node: SchemaNode,
  path: Array<string | number>,
  issues: CoerceIssue[],
): Record<string, unknown> {
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
