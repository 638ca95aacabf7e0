import { z } from 'zod';
import { ToolSearchRequest, ToolSearchResponse } from './tool-search';

/** Services reachable over the transport. Each owns the patterns prefixed with its name. */
export const SERVICES = ['search', 'session', 'router', 'worker'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Every service answers `<service>.ping`; readiness and the benchmarks use it. */
export const PingRequest = z.object({}).strict();
export type PingRequest = z.infer<typeof PingRequest>;
export const PingResponse = z.object({ service: z.string(), replica: z.string(), at: z.string() });
export type PingResponse = z.infer<typeof PingResponse>;

/**
 * The message catalog: pattern name → request and response schema.
 * `rpc.send(pattern, payload)` infers both types from here.
 */
export const PATTERNS = {
  'search.ping': { request: PingRequest, response: PingResponse },
  /** Path A: rank the 15 published meta-tools for a sentence. */
  'search.tools': { request: ToolSearchRequest, response: ToolSearchResponse },
  'session.ping': { request: PingRequest, response: PingResponse },
  'router.ping': { request: PingRequest, response: PingResponse },
  'worker.ping': { request: PingRequest, response: PingResponse },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type PatternName = keyof typeof PATTERNS;
export type RequestOf<P extends PatternName> = z.input<(typeof PATTERNS)[P]['request']>;
export type ResponseOf<P extends PatternName> = z.output<(typeof PATTERNS)[P]['response']>;
