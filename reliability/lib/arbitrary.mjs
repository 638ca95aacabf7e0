// fast-check arbitraries derived from the JSON Schemas of the OpenAPI
// document: values the schema accepts, and values built to break it. The
// generator covers the keywords the contracts' schemas use; anything it does
// not know becomes an arbitrary JSON value, which the server must refuse
// cleanly as well.
import fc from 'fast-check';

const MAX_STRING = 64;
const MAX_ITEMS = 4;

export function resolver(doc) {
  return (schema) => {
    let s = schema;
    for (let i = 0; s && s.$ref && i < 20; i++) {
      const path = s.$ref
        .replace(/^#\//, '')
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
      s = path.reduce((o, k) => o?.[k], doc);
    }
    return s ?? {};
  };
}

const weird = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '\ud800',
  'a\udc00b',
  '../../etc/passwd',
  "' OR 1=1 --",
  '%00',
  '<script>',
  '🙂',
  'ı',
  '\u202e',
  'x'.repeat(300),
);

/** Values `schema` accepts (as far as the generator understands it). */
export function validArb(doc, schema, depth = 0) {
  const resolve = resolver(doc);
  const s = resolve(schema);
  if (depth > 6) return fc.constant(null);
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return fc.oneof(...alts.map((a) => validArb(doc, a, depth + 1)));
  if (s.allOf) return validArb(doc, Object.assign({}, ...s.allOf.map(resolve)), depth + 1);
  const type = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : [];
  if (type.length > 1) return fc.oneof(...type.map((t) => validArb(doc, { ...s, type: t }, depth + 1)));
  switch (type[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1000);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1000);
      return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) });
    }
    case 'number': {
      const min = s.minimum ?? s.exclusiveMinimum ?? -1000;
      const max = s.maximum ?? s.exclusiveMaximum ?? 1000;
      return fc.double({
        min,
        max,
        noNaN: true,
        noDefaultInfinity: true,
        minExcluded: s.exclusiveMinimum !== undefined,
        maxExcluded: s.exclusiveMaximum !== undefined,
      });
    }
    case 'string': {
      if (s.pattern) {
        try {
          return fc
            .stringMatching(new RegExp(s.pattern))
            .filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity));
        } catch {
          /* a pattern JavaScript cannot read: fall through */
        }
      }
      const minLength = s.minLength ?? 0;
      const maxLength = Math.min(s.maxLength ?? MAX_STRING, Math.max(minLength, MAX_STRING));
      return fc.string({ minLength, maxLength, unit: 'grapheme' }).filter((v) => v.trim() !== '' || minLength === 0);
    }
    case 'array': {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.min(s.maxItems ?? MAX_ITEMS, Math.max(minLength, MAX_ITEMS));
      const item = s.items ? validArb(doc, s.items, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      return s.uniqueItems || minLength > 0
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(item, { maxLength });
    }
    case 'object': {
      const props = s.properties ?? {};
      const required = new Set(s.required ?? []);
      const record = {};
      for (const [k, v] of Object.entries(props)) record[k] = validArb(doc, v, depth + 1);
      let base = fc.record(record, { requiredKeys: [...required].filter((k) => k in props) });
      if (s.additionalProperties && typeof s.additionalProperties === 'object' && Object.keys(props).length === 0) {
        const keys = s.propertyNames
          ? validArb(doc, s.propertyNames, depth + 1)
          : fc.string({ minLength: 1, maxLength: 20 });
        base = fc.dictionary(keys, validArb(doc, s.additionalProperties, depth + 1), { maxKeys: MAX_ITEMS });
      }
      return base;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * Values built to be refused: a valid value with a required key removed, an
 * unknown key added, a field of the wrong type or holding text Postgres
 * cannot store, or something that is not an object at all.
 */
export function invalidArb(doc, schema) {
  const resolve = resolver(doc);
  const s = resolve(schema);
  const valid = validArb(doc, s);
  const wrongType = fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.string({ maxLength: 10 }),
    fc.double(),
  );
  const options = [
    fc
      .tuple(valid, fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }))
      .map(([v, k, x]) => (isObj(v) ? { ...v, [`zz_${k}`]: x } : [v])),
    fc.tuple(valid, wrongType).map(([v, w]) => {
      if (!isObj(v) || Object.keys(v).length === 0) return w;
      const k = Object.keys(v)[0];
      return { ...v, [k]: typeof v[k] === typeof w ? [w] : w };
    }),
    fc.tuple(valid, weird).map(([v, w]) => poison(v, w)),
    fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 })),
  ];
  if (s.required?.length)
    options.push(
      fc
        .tuple(valid, fc.constantFrom(...s.required))
        .map(([v, k]) => (isObj(v) ? Object.fromEntries(Object.entries(v).filter(([x]) => x !== k)) : {})),
    );
  return fc.oneof(...options);
}

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Replaces the first string found in `v` (depth first) with `w`; a value without strings gains a field holding it. */
function poison(v, w) {
  let done = false;
  const walk = (x) => {
    if (done) return x;
    if (typeof x === 'string') {
      done = true;
      return w;
    }
    if (Array.isArray(x)) return x.map(walk);
    if (isObj(x)) return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, walk(y)]));
    return x;
  };
  const out = walk(v);
  return done ? out : isObj(out) ? { ...out, zz_poison: w } : w;
}

/** Raw bodies that are not well-formed JSON, or not JSON at all. */
export const malformedBody = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    '[1,2',
    'null null',
    '{"a":1}}',
    '\u0000',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
  ),
  fc.string({ maxLength: 40 }).map((s) => `{${s}`),
  fc.integer({ min: 129, max: 400 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
);
