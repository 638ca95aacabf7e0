import jsonata from 'jsonata';

/**
 * Rail mappings are JSONata expressions that arrive with the router's
 * answer. Each distinct expression is compiled once per process.
 */
const compiled = new Map<string, jsonata.Expression>();

export class MappingError extends Error {}

/** Evaluates one mapping over `context`; a mapping that throws or yields nothing is a MappingError. */
export async function evaluate(expression: string, context: unknown): Promise<unknown> {
  let expr = compiled.get(expression);
  if (!expr) {
    try {
      expr = jsonata(expression);
    } catch (err) {
      throw new MappingError(`the rail mapping does not compile: ${(err as Error).message}`);
    }
    if (compiled.size > 1000) compiled.clear();
    compiled.set(expression, expr);
  }
  let out: unknown;
  try {
    out = await expr.evaluate(context);
  } catch (err) {
    throw new MappingError(`the rail mapping failed: ${(err as Error).message}`);
  }
  if (out === undefined) throw new MappingError('the rail mapping produced nothing');
  return normalise(out);
}

/** JSONata sequences are arrays with extra flags; plain JSON is what the rest of the call handles. */
function normalise(v: unknown): unknown {
  return v === undefined ? null : (JSON.parse(JSON.stringify(v)) as unknown);
}
