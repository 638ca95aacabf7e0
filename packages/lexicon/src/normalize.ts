/**
 * Text normalisation shared by everything that reads an intent: lowercase,
 * accent folding and tokenising, done so that character offsets survive (the
 * folded string has the same length as the input) and rationales can quote
 * the caller's own words.
 */

/** A word of the input after normalisation. */
export interface Token {
  /** Folded lowercase form: no accents, only [a-z0-9]. */
  text: string;
  /** Offset of the token in the original string. */
  start: number;
  /** Offset one past the token's last character in the original string. */
  end: number;
  /** True when the token is only digits. */
  numeric: boolean;
}

const COMBINING = /[\u0300-\u036f]/g;
const foldCache = new Map<string, string>();

/** Folds one character to its unaccented lowercase form, keeping length 1. */
function foldChar(ch: string): string {
  const cached = foldCache.get(ch);
  if (cached !== undefined) return cached;
  let out = ch.toLowerCase().normalize('NFD').replace(COMBINING, '');
  if (out.length !== 1) out = out.length === 0 ? ' ' : out[0]!;
  foldCache.set(ch, out);
  return out;
}

/**
 * Lowercases and strips diacritics while keeping the string length, so an
 * offset in the result is an offset in the input. `ç` becomes `c`, `ñ` `n`.
 */
export function fold(text: string): string {
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) {
      ascii = false;
      break;
    }
  }
  if (ascii) return text.toLowerCase();
  let out = '';
  for (const ch of text) {
    // Astral characters (emoji) take two UTF-16 units; keep the length.
    out += ch.length === 1 ? foldChar(ch) : ' '.repeat(ch.length);
  }
  return out;
}

/** Folded text with punctuation collapsed to single spaces. Handy for keys and logs. */
export function normalize(text: string): string {
  return tokenize(text)
    .map((t) => t.text)
    .join(' ');
}

const isWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Splits text into folded word tokens.
 *
 * Apostrophes inside a word are dropped ("what's" -> "whats"). Hyphenated
 * words are joined when one side is a one- or two-letter piece, so "NF-e",
 * "NFS-e" and "e-mail" become "nfe", "nfse" and "email"; longer pieces stay
 * apart ("double-entry" -> "double", "entry"). A dot or slash between letters
 * splits ("pagar.me" -> "pagar", "me"); digits with dots or commas stay one
 * number ("1.500" -> "1500").
 */
export function tokenize(text: string): Token[] {
  const folded = fold(text);
  const raw: Token[] = [];
  let i = 0;
  const n = folded.length;
  while (i < n) {
    const c = folded.charCodeAt(i);
    if (!isWordChar(c)) {
      i++;
      continue;
    }
    const start = i;
    let word = '';
    while (i < n) {
      const cc = folded.charCodeAt(i);
      if (isWordChar(cc)) {
        word += folded[i];
        i++;
        continue;
      }
      const next = i + 1 < n ? folded.charCodeAt(i + 1) : 0;
      // Apostrophes inside a word: drop them and keep going.
      if ((cc === 39 || cc === 0x2019) && isWordChar(next) && !isDigit(next)) {
        i++;
        continue;
      }
      // Thousands separators and decimal marks inside a number.
      if ((cc === 46 || cc === 44) && isDigit(next) && word.length > 0 && isDigit(word.charCodeAt(word.length - 1))) {
        i++;
        continue;
      }
      break;
    }
    raw.push({ text: word, start, end: i, numeric: /^[0-9]+$/.test(word) });
    // Hyphen handling happens on the next pass; remember the separator.
    if (i < n && folded.charCodeAt(i) === 45 && i + 1 < n && isWordChar(folded.charCodeAt(i + 1))) {
      (raw[raw.length - 1] as Token & { hyphenNext?: boolean }).hyphenNext = true;
    }
  }
  return joinHyphenated(raw);
}

function joinHyphenated(raw: Array<Token & { hyphenNext?: boolean }>): Token[] {
  const out: Token[] = [];
  for (let k = 0; k < raw.length; k++) {
    let tok: Token & { hyphenNext?: boolean } = raw[k]!;
    while (tok.hyphenNext && k + 1 < raw.length) {
      const next = raw[k + 1]!;
      const shortPiece = (t: Token) => t.text.length <= 2 && !t.numeric;
      if (!(shortPiece(tok) || shortPiece(next))) break;
      tok = {
        text: tok.text + next.text,
        start: tok.start,
        end: next.end,
        numeric: tok.numeric && next.numeric,
        hyphenNext: next.hyphenNext,
      };
      k++;
    }
    out.push({ text: tok.text, start: tok.start, end: tok.end, numeric: tok.numeric });
  }
  return out;
}
