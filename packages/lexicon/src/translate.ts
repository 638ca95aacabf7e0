import { analyze, conceptDef } from './analyze';
import { STOPWORDS, type LangGuess } from './language';
import { cognate, glossEnglish } from './glossary';
import { tokenize } from './normalize';

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
function englishTerms(concept: string, phrase = false): string[] {
  const def = conceptDef(concept);
  // A phrase of the request ("taxa de câmbio", "tipo de cambio") names one
  // thing: the concept's first English term, which is its own name for it. A
  // broad concept's other terms ("holiday", "inventory") would be other things.
  if (phrase) return (def?.en ?? []).map(plain).filter(Boolean).slice(0, 1);
  const out: string[] = [];
  const heads = new Set<string>();
  const terms = (def?.en ?? []).map(plain);
  const seen = new Set<string>();
  for (const term of [...terms.filter((t) => !t.includes(' ')), ...terms.filter((t) => t.includes(' '))]) {
    const words = term.split(' ');
    const head = words[0]!.slice(0, 4);
    if (!term || heads.has(head)) continue;
    // "bank account, checking account, savings account" says "account" three
    // times and adds two kinds of account the request never named.
    if (words.length > 1 && words.some((w) => seen.has(w))) continue;
    heads.add(head);
    for (const w of words) seen.add(w);
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

/**
 * The language of a request the lexicon could not place: Portuguese or
 * Spanish when its words are in the glossary or are function words of that
 * language only, and none is an English function word; else as guessed.
 */
function settleLanguage(guess: LangGuess, words: string[]): LangGuess {
  if (guess !== 'und') return guess;
  let pt = 0;
  let es = 0;
  for (const w of words) {
    if (STOPWORDS.en.has(w) && !STOPWORDS.pt.has(w) && !STOPWORDS.es.has(w)) return guess;
    const isPt = !!glossEnglish(w, 'pt') || (STOPWORDS.pt.has(w) && !STOPWORDS.es.has(w));
    const isEs = !!glossEnglish(w, 'es') || (STOPWORDS.es.has(w) && !STOPWORDS.pt.has(w));
    if (isPt) pt++;
    if (isEs) es++;
  }
  if (pt === 0 && es === 0) return guess;
  return es > pt ? 'es' : 'pt';
}

/**
 * English words that name both a thing and the act that makes it ("charge",
 * "quote", "invoice"). A Portuguese or Spanish request that opens with the
 * verb ("cobrar", "cotizar", "facturar") asks for the act, which catalogs
 * call creating the thing; rendered as the bare English word, it reads as
 * the noun and ranks the tools that read or list such things just as high.
 */
const ACT_NOUNS = new Set(['charge', 'quote', 'invoice', 'bill', 'ship', 'deposit', 'withdraw', 'order', 'book']);

/** Words that already say the thing is to be made. */
const MAKING = new Set([
  'create',
  'make',
  'generate',
  'issue',
  'register',
  'open',
  'new',
  'add',
  'send',
  'schedule',
  'start',
  'initiate',
  'stamp',
  'emit',
]);

/** An infinitive ("cobrar", "emitir", "vender") of the request's language. */
function isInfinitive(word: string): boolean {
  return /^[a-z]{3,}(ar|er|ir)$/.test(word);
}

/**
 * Whether a word opens a sentence: the request's first word, or the first
 * after a full stop, a question or exclamation mark, a colon or a semicolon
 * (quotes and brackets between them allowed), or after an opening `¿`, `¡`,
 * quote or bracket that itself opens one. Such a word is capitalised because
 * of where it stands, not because it is a name.
 */
export function opensSentence(text: string, start: number): boolean {
  const before = text.slice(0, start).replace(/[\s"'“”‘’«»()[\]¿¡]+$/u, '');
  return before === '' || /[.!?…:;]$/u.test(before);
}

/** A capitalised word that does not open a sentence is a name: "Envia", "Tiny", "Inter". */
function isName(original: string, sentenceStart: boolean): boolean {
  return !sentenceStart && /^\p{Lu}/u.test(original) && original !== original.toUpperCase();
}

export function renderQuery(useCase: string): QueryRendering {
  const a = analyze(useCase);
  const tokens = tokenize(useCase);
  const lang = settleLanguage(
    a.lang,
    tokens.map((t) => t.text),
  );
  if (lang === 'en' || lang === 'und') return { lang, lexicalText: useCase, expansion: '', englishText: useCase };
  // Each word is rendered in order: a word the glossary translates by its
  // English words; a phrase or a word a concept explains (and the glossary
  // does not) by the concept's English terms; names and acronyms (Pix,
  // Mercado Pago, CFDI, a capitalised provider name) stay as written; other
  // function words of the request's language are dropped; any other word is
  // kept as written.
  const byStart = new Map(tokens.map((t, i) => [t.start, i]));
  const conceptAt = new Map<number, { concept: string; phrase: boolean }>();
  const covered = new Set<number>();
  const asWritten = new Set<number>();
  for (const m of a.matches) {
    if (m.via === 'pattern') continue;
    const idx = tokenize(m.text)
      .map((t) => byStart.get(m.start + t.start))
      .filter((i): i is number => i !== undefined);
    if (idx.length === 0) continue;
    // A broad concept's English terms are a poor rendering of one word the
    // glossary knows, and a fuzzy match of one word is only a guess. The
    // glossary also wins over a concept that keeps the word as written:
    // Spanish "boleto" is a ticket, not the Brazilian bank slip.
    if (
      idx.length === 1 &&
      (m.via === 'fuzzy' || (!STOPWORDS[lang].has(tokens[idx[0]!]!.text) && glossEnglish(tokens[idx[0]!]!.text, lang)))
    )
      continue;
    if (alreadyEnglish(m.concept, m.text)) {
      for (const i of idx) asWritten.add(i);
      continue;
    }
    if (idx.some((i) => covered.has(i))) continue;
    for (const i of idx) covered.add(i);
    conceptAt.set(idx[0]!, { concept: m.concept, phrase: idx.length > 1 });
  }
  // Function words of either language are dropped: Spanish "a" and
  // Portuguese "a" differ in meaning but neither is a word a tool is about.
  const stop = { has: (w: string) => STOPWORDS[lang].has(w) || STOPWORDS.pt.has(w) || STOPWORDS.es.has(w) };
  const out: string[] = [];
  const terms: string[] = [];
  const rendered = new Set<string>();
  tokens.forEach((t, i) => {
    const original = useCase.slice(t.start, t.end);
    const at = conceptAt.get(i);
    if (at !== undefined) {
      if (rendered.has(at.concept)) return;
      rendered.add(at.concept);
      const en = englishTerms(at.concept, at.phrase);
      out.push(...en);
      terms.push(...en);
      return;
    }
    if (covered.has(i)) return;
    if (asWritten.has(i) || isName(original, i === 0 || opensSentence(useCase, t.start))) {
      out.push(original);
      return;
    }
    if (stop.has(t.text)) return;
    const gloss = glossEnglish(t.text, lang);
    if (gloss) {
      out.push(...gloss);
      terms.push(...gloss);
      return;
    }
    // A word neither knows may still be a cognate ("transaccional" → "transactional").
    const english = cognate(t.text);
    if (english) {
      out.push(english);
      terms.push(english);
      return;
    }
    out.push(original);
  });
  // A request opening with a verb that renders as a thing-and-act word asks for the act.
  const first = tokens.find((t) => !stop.has(t.text));
  if (
    first &&
    first === tokens[0] &&
    isInfinitive(first.text) &&
    ACT_NOUNS.has(out[0] ?? '') &&
    !out.some((w) => MAKING.has(w))
  ) {
    out.unshift('create');
    terms.unshift('create');
  }
  // The request's own words stay in the lexical query: catalogs name Brazilian
  // and Mexican things in their own words (boleto, nota fiscal, CFDI).
  return {
    lang,
    lexicalText: useCase,
    expansion: [...new Set(terms)].join(' '),
    englishText: out.join(' ') || useCase,
  };
}
