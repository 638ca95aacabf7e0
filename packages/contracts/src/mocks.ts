import { z } from 'zod';

/**
 * Mocks: in a session of the test environment, fixed answers for raw catalog
 * tools (`server/tool`) and for acting meta-tools (`codespar_charge`…). A
 * session that has any raw-tool mock answers its raw tool calls only from
 * them, never from a provider. An acting meta-tool answers from its mock
 * while one has answers left, then from its rails again: a meta-tool never
 * answers 422. Meta-tools that read or connect are never mocked.
 */

/** Most answers one mock may give. */
export const MOCK_MAX_TIMES = 1000;
/** Largest mock `response`, measured as JSON. */
export const MOCK_RESPONSE_MAX_BYTES = 64 * 1024;
/** Most mocks one session may hold. */
export const SESSION_MAX_MOCKS = 100;

/** `POST /v1/sessions/{id}/mocks` body. */
export const MockCreateRequest = z
  .object({
    /** A raw catalog tool of the session, as execute accepts it (`server/tool`, `server.tool` or `SERVER_TOOL`), or an acting meta-tool. */
    tool: z
      .string()
      .min(1)
      .max(200)
      .describe(
        'A raw catalog tool of the session: `server/tool`, or its aliases `server.tool` and `SERVER_TOOL`; or an acting meta-tool such as `codespar_charge`.',
      ),
    /** What execute answers as `data` (any JSON value), with `success: true`. */
    response: z
      .unknown()
      .refine((v) => v !== undefined, 'response is required (any JSON value, null included).')
      .refine(
        (v) => v === undefined || Buffer.byteLength(JSON.stringify(v)) <= MOCK_RESPONSE_MAX_BYTES,
        `response must be at most ${MOCK_RESPONSE_MAX_BYTES} bytes as JSON.`,
      )
      .describe('Answered as `data` of a successful execute (any JSON value).'),
    /** How many calls it answers. */
    times: z
      .number()
      .int()
      .min(1)
      .max(MOCK_MAX_TIMES)
      .default(1)
      .describe(`How many calls it answers, 1 to ${MOCK_MAX_TIMES} (default 1).`),
  })
  .strict();
export type MockCreateRequest = z.infer<typeof MockCreateRequest>;

/** One mock: the 201 body of `POST /v1/sessions/{id}/mocks`, and an entry of the listing. */
export const MockView = z.object({
  /** `mck_…`. */
  id: z.string(),
  /** The tool's callable name (`server/tool`, whatever spelling the mock was defined with), or the meta-tool's name. */
  tool: z.string(),
  times: z.number().int(),
  /** Answers left; 0 once used up. */
  remaining: z.number().int(),
});
export type MockView = z.infer<typeof MockView>;

/** `GET /v1/sessions/{id}/mocks`: the session's mocks in the order they answer (oldest first). */
export const MockList = z.object({ session_id: z.string(), mocks: z.array(MockView) });
export type MockList = z.infer<typeof MockList>;

/**
 * The 503 body when the mocks store cannot be read: a `code` key, not
 * `error`, so it is told apart from the other 503s of execute.
 */
export const MocksEngineError = z
  .object({
    code: z.literal('mocks_engine_error'),
    message: z.string(),
    request_id: z.string().describe('Echo of X-Request-Id, or the id the gateway minted.'),
  })
  .strict()
  .meta({
    id: 'MocksEngineError',
    description: 'The mocks store could not be read; nothing was sent to any provider.',
  });
export type MocksEngineError = z.infer<typeof MocksEngineError>;

/** `session.mocks.create` payload; the session belongs to the request's tenant. */
export const MockCreateCommand = z.object({ session_id: z.string().min(1).max(200), body: MockCreateRequest }).strict();
export type MockCreateCommand = z.infer<typeof MockCreateCommand>;

/** `session.mocks.list` payload. */
export const MockListCommand = z.object({ session_id: z.string().min(1).max(200) }).strict();
export type MockListCommand = z.infer<typeof MockListCommand>;
