import { createHash } from 'node:crypto';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { z } from 'zod';
import { coerceArgs, type CoerceIssue } from './coerce';

/**
 * Argument validation at execute: first the coercion pre-pass (`./coerce`),
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
export type ArgsCheck = { ok: true; value: Record<string, unknown>; unchecked?: string } | { ok: false; issues: ArgIssue[] };

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
  return { ok: false, issues: parsed.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message })) };
}

const DRAFT_2020 = /json-schema\.org\/draft\/2020-12\/schema/;

/** A cached compile: the validator, or why there is none; `release` drops it from Ajv too. */
type Compiled = { validate: ValidateFunction; release: () => void } | { validate: null; reason: string; release: () => void };

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
    const options = { strict: false, allErrors: true, coerceTypes: false, useDefaults: false, addUsedSchema: false, logger: false } as const;
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
      return { path: [...path, (e.params as { additionalProperty: string }).additionalProperty], message: 'is not allowed' };
    case 'enum':
      return { path, message: `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}` };
    default:
      return { path, message: e.message ?? `fails ${e.keyword}` };
  }
}
