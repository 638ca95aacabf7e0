/**
 * @rota/lexicon: the multilingual (pt-BR, es, en) commerce vocabulary shared
 * by path A's lexical fallback, path B's keyword table and the local text
 * embedder. Everything here is pure and synchronous.
 */
export {
  analyze,
  conceptDef,
  conceptIds,
  shadowedTerms,
  warmUp,
  type Analysis,
  type ConceptMatch,
  type MatchVia,
} from './analyze';
export { CONCEPTS, type ConceptDef } from './concepts';
export { DeletionIndex, editDistance } from './fuzzy';
export { STOPWORDS, guessLanguage, isStopword, type LangGuess } from './language';
export { fold, normalize, tokenize, type Token } from './normalize';
export { PATTERNS, findPatterns, type PatternDef, type PatternHit } from './patterns';
export { LANGS, stem, type Lang } from './stem';
export { opensSentence, renderQuery, type QueryRendering } from './translate';
