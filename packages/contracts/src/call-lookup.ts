import { z } from 'zod';

/**
 * `session.calls.lookup`: the reconcile sweep asks the session service, which
 * alone holds the credentials key, what the provider made of a call left
 * `pending`, by the idempotency key Rota sent with it. The tenant travels in
 * the envelope like every other request.
 */
export const CallLookupCommand = z.object({ tool_call_id: z.string().min(1).max(100) }).strict();
export type CallLookupCommand = z.infer<typeof CallLookupCommand>;

/**
 * - `found`: the provider answered 2xx with what the request made (its status and body).
 * - `not_found`: it answered 404: it holds nothing under the key. This never
 *   proves the call did not run (a provider may not keep keys long enough), so
 *   the call still becomes `outcome_unknown`.
 * - `not_supported`: the catalog gives the provider no lookup, or the row
 *   cannot be asked about (no key, a rail call, no longer pending).
 * - `failed`: the lookup itself went wrong (no connection, unreachable, another status).
 */
/**
 * `session.calls.settled`: the reconcile sweep hands over the calls it just
 * settled, and the session service appends each to the call log stream
 * (`GET /v1/logs/stream`) as it does for the calls it finishes itself, with
 * the same record and the same masking. Rows still `pending` are skipped.
 */
export const CallsSettledCommand = z
  .object({ tool_call_ids: z.array(z.string().min(1).max(100)).min(1).max(1000) })
  .strict();
export type CallsSettledCommand = z.infer<typeof CallsSettledCommand>;
export const CallsSettledResult = z.object({ published: z.number().int().nonnegative() });
export type CallsSettledResult = z.infer<typeof CallsSettledResult>;

export const CallLookupAnswer = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('found'),
    status: z.number().int(),
    headers: z.record(z.string(), z.string()),
    body: z.unknown(),
  }),
  z.object({ outcome: z.literal('not_found'), status: z.number().int() }),
  z.object({ outcome: z.literal('not_supported'), reason: z.string() }),
  z.object({ outcome: z.literal('failed'), reason: z.string() }),
]);
export type CallLookupAnswer = z.infer<typeof CallLookupAnswer>;
