import { AnthropicExtractor, DEFAULT_NL_MODEL } from './anthropic-extractor';
import { extractLocal, type Extraction } from './local-extractor';

/** Reads a description into an intent; never throws. */
export interface IntentExtractor {
  readonly name: 'anthropic' | 'local';
  extract(description: string): Promise<Extraction>;
}

export class LocalExtractor implements IntentExtractor {
  readonly name = 'local' as const;
  extract(description: string): Promise<Extraction> {
    return Promise.resolve(extractLocal(description));
  }
}

export type NlExtractorMode = 'anthropic' | 'local' | 'off';

export interface ExtractorSettings {
  NL_EXTRACTOR?: NlExtractorMode;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  ROTA_NL_MODEL?: string;
  ROTA_NL_TIMEOUT_MS: number;
}

/** `anthropic` when a key is set, else `local`, unless NL_EXTRACTOR says otherwise. */
export function extractorMode(s: ExtractorSettings): NlExtractorMode {
  return s.NL_EXTRACTOR ?? (s.ANTHROPIC_API_KEY?.trim() ? 'anthropic' : 'local');
}

/** The configured extractor, or null when descriptions are switched off. */
export function createExtractor(s: ExtractorSettings): IntentExtractor | null {
  const mode = extractorMode(s);
  if (mode === 'off') return null;
  if (mode === 'local') return new LocalExtractor();
  const apiKey = s.ANTHROPIC_API_KEY?.trim();
  if (!apiKey) throw new Error('NL_EXTRACTOR=anthropic needs ANTHROPIC_API_KEY');
  return new AnthropicExtractor({
    apiKey,
    ...(s.ANTHROPIC_BASE_URL?.trim() ? { baseURL: s.ANTHROPIC_BASE_URL.trim() } : {}),
    model: s.ROTA_NL_MODEL || DEFAULT_NL_MODEL,
    timeoutMs: s.ROTA_NL_TIMEOUT_MS,
  });
}
