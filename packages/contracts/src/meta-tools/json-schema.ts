import { z } from 'zod';

/**
 * How a meta-tool's zod input becomes the JSON Schema clients read in
 * `/meta-tools.json`, MCP `tools/list` and the catalog document.
 *
 * zod writes the schema; this module only tidies what zod adds for its own
 * validation and what no client needs to read, so the published document
 * keeps the shape and key order it has always had:
 * - no `$schema` (the document never carried one; draft-07 is the dialect it is written in);
 * - an open object (`z.record(z.string(), z.unknown())`) is plain `{type: 'object'}`;
 * - `integer` loses the ±2^53 bounds zod adds for safe integers (a JSON number past them is not exact anyway);
 * - a `format: 'date'` string loses the long pattern zod uses to check it (the format names the same rule);
 * - keys follow one order: type, enum, bounds, pattern, format, items, object keywords, default, description, then the rest.
 */

/** A JSON Schema node as published. Loose on purpose: it is generated data, typed for readers. */
export interface JsonSchema {
  type?: 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'array';
  description?: string;
  enum?: readonly string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  pattern?: string;
  format?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  oneOf?: readonly JsonSchema[];
}

/** The input schema of a meta-tool: always a JSON Schema object with its `required` list, empty or not. */
export interface MetaToolInputSchema extends JsonSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required: readonly string[];
}

const KEY_ORDER = [
  'type',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'pattern',
  'format',
  'items',
  'properties',
  'required',
  'additionalProperties',
  'default',
  'description',
];
const rank = (key: string) => {
  const i = KEY_ORDER.indexOf(key);
  return i === -1 ? KEY_ORDER.length : i;
};

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEmptyNode = (v: unknown) => isNode(v) && Object.keys(v).length === 0;

function tidy(node: Node): Node {
  const out: Node = { ...node };
  if (out.type === 'object' && out.properties === undefined && isEmptyNode(out.additionalProperties)) {
    delete out.additionalProperties;
    if (isNode(out.propertyNames) && out.propertyNames.type === 'string' && Object.keys(out.propertyNames).length === 1)
      delete out.propertyNames;
  }
  if (out.type === 'integer') {
    if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
    if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  }
  if (out.type === 'string' && out.format === 'date') delete out.pattern;
  if (isNode(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, isNode(v) ? tidy(v) : v]));
  }
  if (isNode(out.items)) out.items = tidy(out.items);
  for (const key of ['oneOf', 'anyOf'] as const) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((v: unknown) => (isNode(v) ? tidy(v) : v));
  }
  // A stable sort keeps zod's order among keys of equal rank.
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => rank(a) - rank(b)));
}

/**
 * The published JSON Schema of a meta-tool input, from its zod object. Read
 * as input (`io: 'input'`): a field with a default is optional to the caller.
 */
export function publishedInputSchema(input: z.ZodObject): MetaToolInputSchema {
  const { $schema: _dialect, ...generated } = z.toJSONSchema(input, { io: 'input', target: 'draft-7' }) as Node;
  // zod leaves out an empty `required`; the published document always lists it.
  return tidy({ ...generated, required: generated.required ?? [] }) as unknown as MetaToolInputSchema;
}
