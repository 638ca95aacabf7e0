import { CONCEPTS, type ConceptDef } from './concepts';
import { DeletionIndex, editDistance } from './fuzzy';

import { fold, tokenize, type Token } from './normalize';
import { PATTERNS, findPatterns } from './patterns';
import { LANGS, stem, type Lang } from './stem';
import { STOPWORDS, guessLanguage, isStopword, type LangGuess } from './language';

/** How a concept was recognised. */
export type MatchVia = 'exact' | 'stem' | 'prefix' | 'phrase' | 'fuzzy' | 'pattern';

/** One piece of evidence for a concept. */
export interface ConceptMatch {
  concept: string;
  /** The caller's own words that matched (original casing and accents). */
  text: string;
  start: number;
  end: number;
  via: MatchVia;
}

/** The result of reading one intent. */
export interface Analysis {
  /** Best guess of the language; `und` when unclear. */
  lang: LangGuess;
  /** Folded word tokens, in order. */
  tokens: string[];
  /**
   * Snowball stems of the tokens in the guessed language (English when the
   * language is unclear); function words and numbers are left as they are.
   * Computed on first read.
   */
  readonly stems: string[];
  /** Concept ids found, each once, in order of first appearance. */
  concepts: string[];
  /** Every match behind `concepts`, for rationales and debugging. */
  matches: ConceptMatch[];
}

type TermLang = Lang | 'any';
type PieceKind = 'normal' | 'exact' | 'prefix';

interface Piece {
  surface: string;
  kind: PieceKind;
  /** Stem in the term's language, for `normal` pieces of a language term. */
  stem?: string;
}

interface Entry {
  concept: string;
  lang: TermLang;
  /** Only matches when the text is in the term's language (or unclear). */
  strict: boolean;
}

interface PhraseEntry extends Entry {
  pieces: Piece[];
  consume: boolean;
}

interface Compiled {
  surface: Map<string, Entry[]>;
  stems: Map<string, Entry[]>;
  prefixes: Array<{ prefix: string; entry: Entry }>;
  phrases: Map<string, PhraseEntry[]>;
  /** For each language, every stem the vocabulary holds and each one minus its last letter. */
  stemHeads: Record<Lang, Set<string>>;
  /** Length of the longest entry in `stemHeads`. */
  longestHead: number;
  fuzzy: DeletionIndex;
  /** First words of phrases, for phrases whose first word has a typo. */
  phraseFuzzy: DeletionIndex;
  concepts: Map<string, ConceptDef>;
}

const FUZZY_MIN_LENGTH = 5;
/** Words of a phrase forgive one typo from this length on. */
const FUZZY_PHRASE_LENGTH = 6;
/** No vocabulary word is longer; longer tokens (hashes, keys, runs of digits) are skipped. */
const MAX_WORD_LENGTH = 40;
const MAX_SKIP = 2;
const ES_CLITICS = ['selo', 'sela', 'les', 'nos', 'me', 'le', 'lo', 'la', 'te'];

let compiled: Compiled | undefined;

function push<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function foldTerm(s: string): string {
  return fold(s)
    .replace(/[^a-z0-9=*+! ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function parsePiece(raw: string, lang: TermLang): Piece {
  if (raw.startsWith('=')) return { surface: raw.slice(1), kind: 'exact' };
  if (raw.endsWith('*') && raw.length > 4) return { surface: raw.slice(0, -1), kind: 'prefix' };
  if (lang === 'any') return { surface: raw, kind: 'exact' };
  return { surface: raw, kind: 'normal', stem: stem(raw, lang) };
}

function compile(): Compiled {
  const c: Compiled = {
    surface: new Map(),
    stems: new Map(),
    prefixes: [],
    phrases: new Map(),
    stemHeads: { pt: new Set(), es: new Set(), en: new Set() },
    longestHead: 0,
    fuzzy: new DeletionIndex(),
    phraseFuzzy: new DeletionIndex(),
    concepts: new Map(),
  };
  const addStemHead = (lang: Lang, s: string) => {
    c.stemHeads[lang].add(s);
    if (s.length > 2) c.stemHeads[lang].add(s.slice(0, -1));
    if (s.length > c.longestHead) c.longestHead = s.length;
  };
  for (const def of CONCEPTS) {
    if (c.concepts.has(def.id)) throw new Error(`duplicate concept id ${def.id}`);
    c.concepts.set(def.id, def);
    for (const lang of ['any', ...LANGS] as TermLang[]) {
      for (const rawTerm of def[lang] ?? []) {
        let term = foldTerm(rawTerm);
        let consume = true;
        let strict = false;
        for (;;) {
          if (term.startsWith('+')) {
            consume = false;
            term = term.slice(1);
          } else if (term.startsWith('!')) {
            strict = true;
            term = term.slice(1);
          } else break;
        }
        const pieces = term
          .split(' ')
          .filter(Boolean)
          .map((p) => parsePiece(p, lang));
        if (pieces.length === 0) continue;
        const entry: Entry = { concept: def.id, lang, strict };
        if (pieces.length === 1) {
          const p = pieces[0]!;
          if (p.kind === 'prefix') {
            c.prefixes.push({ prefix: p.surface, entry });
            continue;
          }
          push(c.surface, p.surface, entry);
          if (lang === 'any' && !p.surface.endsWith('s')) push(c.surface, `${p.surface}s`, entry);
          if (p.kind === 'normal' && p.stem && lang !== 'any') {
            push(c.stems, `${lang}:${p.stem}`, entry);
            addStemHead(lang, p.stem);
          }
          if (p.surface.length >= FUZZY_MIN_LENGTH) c.fuzzy.add(p.surface);
          continue;
        }
        const phrase: PhraseEntry = { ...entry, pieces, consume };
        for (const p of pieces) if (p.stem && lang !== 'any') addStemHead(lang, p.stem);
        const first = pieces[0]!;
        if (first.kind === 'prefix') push(c.phrases, `^${first.surface.slice(0, 4)}`, phrase);
        else {
          push(c.phrases, first.surface, phrase);
          if (first.surface.length >= FUZZY_PHRASE_LENGTH) c.phraseFuzzy.add(first.surface);
          if (first.stem && lang !== 'any') push(c.phrases, `${lang}:${first.stem}`, phrase);
        }
      }
    }
  }
  // Longer phrases first so that "nota fiscal eletronica" wins over "nota fiscal".
  for (const list of c.phrases.values()) list.sort((a, b) => b.pieces.length - a.pieces.length);
  return c;
}

function getCompiled(): Compiled {
  compiled ??= compile();
  return compiled;
}

/** Stem of a token in one language, or undefined when no vocabulary stem can match it. */
function stemIfUseful(c: Compiled, word: string, lang: Lang): string | undefined {
  if (word.length < 3 || word.length > MAX_WORD_LENGTH) return undefined;
  const heads = c.stemHeads[lang];
  let possible = false;
  const upTo = Math.min(word.length, c.longestHead);
  for (let k = 2; k <= upTo; k++) {
    if (heads.has(word.slice(0, k))) {
      possible = true;
      break;
    }
  }
  return possible ? stem(word, lang) : undefined;
}

function nearMiss(word: string, target: string): boolean {
  return (
    word.length >= FUZZY_PHRASE_LENGTH &&
    target.length >= FUZZY_PHRASE_LENGTH &&
    word[0] === target[0] &&
    editDistance(word, target, 1) === 1
  );
}

function pieceMatches(c: Compiled, piece: Piece, lang: TermLang, word: string): boolean {
  if (piece.kind === 'exact') return word === piece.surface || nearMiss(word, piece.surface);
  if (piece.kind === 'prefix') return word.startsWith(piece.surface);
  if (word === piece.surface) return true;
  if (lang !== 'any' && piece.stem !== undefined && stemIfUseful(c, word, lang) === piece.stem) return true;
  return nearMiss(word, piece.surface);
}

/** One vote for a language per word that only that language's vocabulary spells this way. */
function vocabularyVotes(c: Compiled, words: readonly string[]): Partial<Record<Lang, number>> {
  const votes: Partial<Record<Lang, number>> = {};
  for (const w of words) {
    const entries = c.surface.get(w);
    if (!entries) continue;
    let only: Lang | undefined;
    let mixed = false;
    for (const e of entries) {
      if (e.lang === 'any') continue;
      if (only === undefined) only = e.lang;
      else if (only !== e.lang) mixed = true;
    }
    if (only && !mixed) votes[only] = (votes[only] ?? 0) + 0.5;
  }
  return votes;
}

/**
 * Keeps the readings of a word that fit the text's language. Stem matches
 * and near misses count only in the guessed language (an English "poster" is
 * not the Portuguese "postar"); an exact spelling from another language still
 * counts, because intents mix languages ("procura uma tool").
 */
function languageFilter(entries: Entry[], guess: LangGuess, via: MatchVia): Entry[] {
  let allowed = entries.filter((e) => !e.strict || guess === 'und' || e.lang === guess);
  if (guess !== 'und' && (via === 'stem' || via === 'fuzzy'))
    allowed = allowed.filter((e) => e.lang === guess || e.lang === 'any');
  if (guess === 'und') return allowed;
  const native = allowed.filter((e) => e.lang === guess || e.lang === 'any');
  return native.length > 0 ? native : allowed;
}

function unigramEntries(c: Compiled, word: string, guess: LangGuess): { entries: Entry[]; via: MatchVia } {
  const found: Entry[] = [];
  const direct = c.surface.get(word);
  if (direct) found.push(...direct);
  if (found.length > 0) return { entries: found, via: 'exact' };
  for (const lang of LANGS) {
    // Stem matches only count in the text's language (see languageFilter),
    // so there is no point paying for the other two stemmers.
    if (guess !== 'und' && lang !== guess) continue;
    const s = stemIfUseful(c, word, lang);
    if (s === undefined) continue;
    const byStem = c.stems.get(`${lang}:${s}`);
    if (byStem) for (const e of byStem) if (e.lang === lang) found.push(e);
  }
  if (found.length > 0) return { entries: found, via: 'stem' };
  for (const { prefix, entry } of c.prefixes) if (word.startsWith(prefix)) found.push(entry);
  return { entries: found, via: 'prefix' };
}

function isSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

function sliceOriginal(text: string, start: number, end: number): string {
  return text.slice(start, end);
}

class AnalysisResult implements Analysis {
  private cachedStems?: string[];
  constructor(
    readonly lang: LangGuess,
    readonly tokens: string[],
    readonly concepts: string[],
    readonly matches: ConceptMatch[],
  ) {}

  get stems(): string[] {
    if (!this.cachedStems) {
      const lang: Lang = this.lang === 'und' ? 'en' : this.lang;
      this.cachedStems = this.tokens.map((t) => (isStopword(t) || /^[0-9]+$/.test(t) ? t : stem(t, lang)));
    }
    return this.cachedStems;
  }

  toJSON() {
    return { lang: this.lang, tokens: this.tokens, stems: this.stems, concepts: this.concepts, matches: this.matches };
  }
}

/**
 * Reads an intent: tokens, language guess, and the concepts it mentions with
 * the words that gave each one away. Pure and deterministic.
 */
export function analyze(text: string): Analysis {
  const c = getCompiled();
  const toks: Token[] = tokenize(text);
  const words = toks.map((t) => t.text);
  const lower = text.toLowerCase();
  const sameLength = lower.length === text.length;
  const lang = guessLanguage(words, sameLength ? lower : fold(text), vocabularyVotes(c, words));
  const matches: ConceptMatch[] = [];
  const consumed = new Uint8Array(toks.length);
  const stop = words.map((w) => isStopword(w));

  // Phrases first, so they can claim their words.
  interface PhraseHit {
    entry: PhraseEntry;
    start: number;
    end: number;
  }
  const phraseHits: PhraseHit[] = [];
  for (let i = 0; i < toks.length; i++) {
    const word = words[i]!;
    if (word.length > MAX_WORD_LENGTH) continue;
    const candidates = new Set<PhraseEntry>();
    for (const p of c.phrases.get(word) ?? []) candidates.add(p);
    for (const l of LANGS) {
      if (lang !== 'und' && l !== lang) continue;
      const s = stemIfUseful(c, word, l);
      if (s !== undefined) for (const p of c.phrases.get(`${l}:${s}`) ?? []) if (p.lang === l) candidates.add(p);
    }
    if (word.length >= 4) for (const p of c.phrases.get(`^${word.slice(0, 4)}`) ?? []) candidates.add(p);
    if (candidates.size === 0 && word.length >= FUZZY_PHRASE_LENGTH && !stop[i]) {
      for (const near of c.phraseFuzzy.near(word))
        if (near[0] === word[0]) for (const p of c.phrases.get(near) ?? []) candidates.add(p);
    }
    for (const p of candidates) {
      if (p.strict && lang !== 'und' && p.lang !== lang) continue;
      if (!pieceMatches(c, p.pieces[0]!, p.lang, word)) continue;
      let pos = i;
      let ok = true;
      for (let k = 1; k < p.pieces.length && ok; k++) {
        const piece = p.pieces[k]!;
        let next = pos + 1;
        let skipped = 0;
        ok = false;
        while (next < toks.length) {
          if (pieceMatches(c, piece, p.lang, words[next]!)) {
            ok = true;
            pos = next;
            break;
          }
          // Function words may sit between the words of a phrase, but not
          // in front of a piece that is itself a function word ("link the").
          if (!stop[next] || skipped >= MAX_SKIP || isStopword(piece.surface)) break;
          skipped++;
          next++;
        }
      }
      if (ok) phraseHits.push({ entry: p, start: i, end: pos });
    }
  }
  phraseHits.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  for (const h of phraseHits) {
    if (h.entry.consume) {
      let free = true;
      for (let k = h.start; k <= h.end; k++) if (consumed[k]) free = false;
      if (!free) continue;
      for (let k = h.start; k <= h.end; k++) consumed[k] = 1;
    }
    const s = toks[h.start]!.start;
    const e = toks[h.end]!.end;
    matches.push({ concept: h.entry.concept, text: sliceOriginal(text, s, e), start: s, end: e, via: 'phrase' });
  }

  // Then single words that no phrase claimed.
  for (let i = 0; i < toks.length; i++) {
    if (consumed[i] || stop[i]) continue;
    const tok = toks[i]!;
    const word = words[i]!;
    if (word.length < 2 || word.length > MAX_WORD_LENGTH || tok.numeric) continue;
    let { entries, via } = unigramEntries(c, word, lang);
    if (entries.length === 0 && word.length >= 6) {
      // Spanish imperatives carry pronouns: "cobrale", "enviame", "muestrame".
      for (const clitic of ES_CLITICS) {
        if (!word.endsWith(clitic)) continue;
        const base = word.slice(0, -clitic.length);
        if (base.length < 4) continue;
        ({ entries, via } = unigramEntries(c, base, lang));
        if (entries.length > 0) break;
      }
    }
    if (entries.length === 0 && word.length >= FUZZY_MIN_LENGTH) {
      for (const near of c.fuzzy.near(word)) {
        if (near[0] !== word[0]) continue;
        // Five-letter words sit one edit away from too many real words
        // ("wants"/"watts"); only a swap of neighbours counts there.
        if (Math.min(near.length, word.length) < 6 && !isSwap(word, near)) continue;
        const list = c.surface.get(near);
        // A typo never counts as evidence that the text is off-topic.
        if (list) for (const e of list) if (!e.concept.startsWith('ctx.')) entries.push(e);
      }
      via = 'fuzzy';
    }
    if (entries.length === 0) continue;
    const seen = new Set<string>();
    for (const e of languageFilter(entries, lang, via)) {
      if (seen.has(e.concept)) continue;
      seen.add(e.concept);
      matches.push({
        concept: e.concept,
        text: sliceOriginal(text, tok.start, tok.end),
        start: tok.start,
        end: tok.end,
        via,
      });
    }
  }

  if (sameLength) {
    for (const h of findPatterns(lower)) {
      matches.push({
        concept: h.concept,
        text: text.slice(h.start, h.end),
        start: h.start,
        end: h.end,
        via: 'pattern',
      });
    }
  }

  matches.sort((a, b) => a.start - b.start || a.end - b.end);
  const concepts: string[] = [];
  const seenConcepts = new Set<string>();
  for (const m of matches) {
    if (seenConcepts.has(m.concept)) continue;
    seenConcepts.add(m.concept);
    concepts.push(m.concept);
  }
  return new AnalysisResult(lang, words, concepts, matches);
}

/** Every concept id the lexicon can produce, words and patterns alike. */
export function conceptIds(): string[] {
  const ids = new Set(CONCEPTS.map((d) => d.id));
  for (const p of PATTERNS) ids.add(p.concept);
  return [...ids];
}

/** The definition of a word concept, for glosses in rationales. */
export function conceptDef(id: string): ConceptDef | undefined {
  return getCompiled().concepts.get(id);
}

/**
 * Single-word terms that are also function words of their own language: they
 * can never match as single words. Exposed for the lexicon's own tests.
 */
export function shadowedTerms(): string[] {
  const out: string[] = [];
  for (const def of CONCEPTS) {
    for (const lang of LANGS) {
      for (const raw of def[lang] ?? []) {
        const t = foldTerm(raw).replace(/^[+!=]+/, '');
        if (!t.includes(' ') && STOPWORDS[lang].has(t)) out.push(`${def.id}:${lang}:${t}`);
      }
    }
  }
  return out;
}

/** Forces the vocabulary to compile now (it otherwise compiles on first use). */
export function warmUp(): void {
  getCompiled();
}
