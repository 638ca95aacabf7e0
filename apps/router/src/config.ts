import { BaseConfig } from '@rota/service-kit';
import { z } from 'zod';

const weight = (d: number) => z.coerce.number().min(0).max(100).default(d);

export const RouterConfig = BaseConfig.extend({
  /** How descriptions become intents: `anthropic`, `local` (offline) or `off` (501). Default: anthropic with a key, else local. */
  NL_EXTRACTOR: z
    .enum(['anthropic', 'local', 'off'])
    .optional()
    .or(z.literal('').transform(() => undefined)),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.string().url().optional().or(z.literal('')),
  ROTA_NL_MODEL: z.string().default('claude-haiku-4-5-20251001'),
  /** Deadline of one model extraction; past it the answer is 502 nl_extraction_failed. */
  ROTA_NL_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
  /** At most one eligibility repair per org and project within this window. */
  ROTA_ROUTER_REPAIR_COOLDOWN_MS: z.coerce.number().int().positive().default(30_000),
  /** A stored eligibility set older than this is recomputed on its next lookup. */
  ROTA_ROUTER_ELIGIBILITY_TTL_S: z.coerce.number().int().positive().default(300),
  /** How long the router prices rails with the FX rates it last read from `fx_rates` before reading them again. */
  ROTA_ROUTER_FX_CACHE_MS: z.coerce.number().int().min(0).default(60_000),
  /** Scoring weights (relative; they need not add up to 1). */
  ROTA_ROUTER_WEIGHT_SUCCESS: weight(0.4),
  ROTA_ROUTER_WEIGHT_LATENCY: weight(0.15),
  ROTA_ROUTER_WEIGHT_COST: weight(0.25),
  ROTA_ROUTER_WEIGHT_URGENCY: weight(0.15),
  ROTA_ROUTER_WEIGHT_CONNECTION: weight(0.05),
}).superRefine((c, ctx) => {
  if (c.NL_EXTRACTOR === 'anthropic' && !c.ANTHROPIC_API_KEY?.trim()) {
    ctx.addIssue({ code: 'custom', path: ['NL_EXTRACTOR'], message: 'NL_EXTRACTOR=anthropic needs ANTHROPIC_API_KEY' });
  }
  const sum =
    c.ROTA_ROUTER_WEIGHT_SUCCESS +
    c.ROTA_ROUTER_WEIGHT_LATENCY +
    c.ROTA_ROUTER_WEIGHT_COST +
    c.ROTA_ROUTER_WEIGHT_URGENCY +
    c.ROTA_ROUTER_WEIGHT_CONNECTION;
  if (sum <= 0)
    ctx.addIssue({
      code: 'custom',
      path: ['ROTA_ROUTER_WEIGHT_SUCCESS'],
      message: 'at least one scoring weight must be above 0',
    });
});
export type RouterConfig = z.infer<typeof RouterConfig>;
