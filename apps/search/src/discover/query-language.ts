import { analyze, conceptDef, STOPWORDS, tokenize, type LangGuess } from '@rota/lexicon';

/**
 * Brings a request into the catalog's language (English) before either
 * channel reads it. Catalog descriptions are written in English, the English
 * stemmer analyses them, and the neural embedder only knows English, so a
 * Portuguese or Spanish request would otherwise share little more than brand
 * names with the tools it is after.
 *
 * The lexicon maps Portuguese, Spanish and English words and phrases to
 * language-independent concepts; each concept found is rendered by its own
 * English terms. That is query translation by vocabulary, not by grammar: it
 * covers the commerce words the lexicon knows, and everything else (brand
 * names, product codes, numbers, words the lexicon does not know) is kept as
 * written.
 */
export interface QueryRendering {
  lang: LangGuess;
  /** The request's own words, for the lexical channel. */
  lexicalText: string;
  /** English terms of the concepts found in a Portuguese or Spanish request, for the lexical channel's expansion; empty for English. */
  expansion: string;
  /**
   * The request in English for a model that reads only English: as written
   * when it is English, else the English terms of its concepts followed by
   * the words no concept explained (names, codes, words the lexicon does not
   * know).
   */
  englishText: string;
}

/** English terms rendered per concept: enough for the common word forms, few enough not to drown the request. */
const TERMS_PER_CONCEPT = 3;

/** A vocabulary term in plain words (the `=`, `+` and `*` marks removed). */
function plain(term: string): string {
  return term.replace(/^[=+]/, '').replace(/\*$/, '').trim();
}

/**
 * A concept's English terms in plain words, single words first (phrases such
 * as "went through" add more noise than meaning to a bag of words), distinct
 * by their first four letters so that "save" and "saved" count once.
 */
function englishTerms(concept: string): string[] {
  const def = conceptDef(concept);
  const out: string[] = [];
  const heads = new Set<string>();
  const terms = (def?.en ?? []).map(plain);
  for (const term of [...terms.filter((t) => !t.includes(' ')), ...terms.filter((t) => t.includes(' '))]) {
    const head = term.split(' ')[0]!.slice(0, 4);
    if (!term || heads.has(head)) continue;
    heads.add(head);
    out.push(term);
    if (out.length === TERMS_PER_CONCEPT) break;
  }
  return out;
}

/** Whether the words of a match are already what an English text would say: a brand, an acronym, an English term. */
function alreadyEnglish(concept: string, text: string): boolean {
  const def = conceptDef(concept);
  if (!def) return true;
  const words = (t: string) =>
    tokenize(t)
      .map((w) => w.text)
      .join(' ');
  const own = words(text);
  return [...(def.any ?? []), ...(def.en ?? [])].some((t) => words(plain(t)) === own);
}

export function renderQuery(useCase: string): QueryRendering {
  const a = analyze(useCase);
  if (a.lang === 'en' || a.lang === 'und') return { lang: a.lang, lexicalText: useCase, expansion: '', englishText: useCase };
  // Words a concept explained are replaced by its English terms; names and
  // acronyms (Pix, Mercado Pago, CFDI) stay as written, and function words
  // of the request's language are dropped.
  const terms: string[] = [];
  const rendered = new Set<string>();
  const explained = new Set<number>();
  for (const m of a.matches) {
    if (m.via === 'pattern' || alreadyEnglish(m.concept, m.text)) continue;
    for (const t of tokenize(m.text)) explained.add(m.start + t.start);
    if (rendered.has(m.concept)) continue;
    rendered.add(m.concept);
    terms.push(...englishTerms(m.concept));
  }
  const expansion = [...new Set(terms)].join(' ');
  const stop = STOPWORDS[a.lang];
  const kept = tokenize(useCase)
    .filter((t) => !explained.has(t.start) && !stop.has(t.text))
    .map((t) => useCase.slice(t.start, t.end));
  // The request's own words stay in the lexical query: catalogs name Brazilian
  // and Mexican things in their own words (boleto, nota fiscal, CFDI).
  return { lang: a.lang, lexicalText: useCase, expansion, englishText: [expansion, ...kept].filter(Boolean).join(' ') || useCase };
}
