/**
 * A Portuguese or Spanish request is brought into the catalog's language
 * (English) before either channel reads it; the rendering lives in
 * `@rota/lexicon` because the catalog's hybrid embedder applies the same one
 * on its worker threads.
 */
export { renderQuery, type QueryRendering } from '@rota/lexicon';
