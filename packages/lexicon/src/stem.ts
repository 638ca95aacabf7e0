import { newStemmer, type Stemmer } from 'snowball-stemmers';

/** The languages the lexicon knows. */
export type Lang = 'pt' | 'es' | 'en';
export const LANGS: readonly Lang[] = ['pt', 'es', 'en'];

const ALGORITHM: Record<Lang, string> = { pt: 'portuguese', es: 'spanish', en: 'english' };
const stemmers = new Map<Lang, Stemmer>();
// The Snowball port costs ~10 µs a word, so results are memoised per language.
// Vocabulary in intents repeats a lot; the cap only guards against abuse.
const caches = new Map<Lang, Map<string, string>>();
const CACHE_CAP = 50_000;

/** Snowball stem of an already folded word, in one language. */
export function stem(word: string, lang: Lang): string {
  let cache = caches.get(lang);
  if (!cache) {
    cache = new Map();
    caches.set(lang, cache);
  }
  const hit = cache.get(word);
  if (hit !== undefined) return hit;
  let stemmer = stemmers.get(lang);
  if (!stemmer) {
    stemmer = newStemmer(ALGORITHM[lang]);
    stemmers.set(lang, stemmer);
  }
  const out = word.length <= 2 ? word : stemmer.stem(word);
  if (cache.size >= CACHE_CAP) cache.clear();
  cache.set(word, out);
  return out;
}
