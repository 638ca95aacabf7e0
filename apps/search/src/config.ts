import { BaseConfig } from '@rota/service-kit';
import { z } from 'zod';
import { EmbedderEnv } from '@rota/catalog/config';
import { DISCOVER_CONFIG_SHAPE } from './discover/config';

export const SearchConfig = BaseConfig.extend({
  /** Enables the model classifier of path A; without it the lexical ranking answers. */
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.string().url().optional().or(z.literal('')),
  ROTA_TOOL_SEARCH_MODEL: z.string().default('claude-haiku-4-5-20251001'),
  /** Deadline of one classification by the model; past it the lexical ranking answers. */
  ROTA_TOOL_SEARCH_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
  /** codespar_discover: the catalog's embedder and the ranking settings (apps/search/src/discover/config.ts). */
  ...EmbedderEnv.shape,
  ...DISCOVER_CONFIG_SHAPE,
});
export type SearchConfig = z.infer<typeof SearchConfig>;
