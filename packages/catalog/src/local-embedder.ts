import { analyze, isStopword, tokenize } from '@rota/lexicon';
import { EMBEDDING_DIMENSIONS, type Embedder } from './embedder';

/**
 * The offline embedder: signed feature hashing of three kinds of evidence
 * read by `@rota/lexicon` into 1536 buckets, then scaled to unit length.
 *
 * - concept ids (`rail.pix`, `act.send`, …): the lexicon maps Portuguese,
 *   Spanish and English words to the same ids, so "enviar mensagem" and
 *   "send a message" share these features; they carry the most weight;
 * - Snowball stems of the content words, in the language the lexicon guessed;
 * - character trigrams of the accent-folded words, which keep typos, brand
 *   names and related word forms close.
 *
 * It calls nothing and loads nothing. Hashing works on UTF-16 code units with
 * 32-bit integer arithmetic and every weight is a constant, so the same text
 * gives the same bytes on every machine and Node version. It is a lexical
 * model: it knows the commerce vocabulary of the lexicon, not language at
 * large, which is why its vectors are never mixed with another model's.
 */
export const LOCAL_EMBEDDING_MODEL = 'rota-feature-hash-v1';

const CONCEPT_WEIGHT = 2.5;
const STEM_WEIGHT = 1;
const TRIGRAM_WEIGHT = 0.2;
/** Tokens longer than this (hashes, ids, base64) add nothing useful. */
const MAX_TOKEN = 40;
/** Only the start of very long texts is read, which bounds the cost of one text. */
const MAX_CHARS = 4000;

/** 32-bit FNV-1a over UTF-16 code units, then a murmur3-style finaliser. */
function hash32(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class LocalEmbedder implements Embedder {
  readonly model = LOCAL_EMBEDDING_MODEL;
  readonly dimensions: number;
  private readonly acc: Float64Array;
  private readonly touched: Uint8Array;
  private readonly touchedList: number[] = [];

  /**
   * @param buckets how many buckets features are hashed into, which is the
   * length of the vectors returned: 1536 (the catalog's column) on its own,
   * fewer when it is one part of a longer vector (see `HybridEmbedder`).
   */
  constructor(buckets: number = EMBEDDING_DIMENSIONS) {
    this.dimensions = buckets;
    this.acc = new Float64Array(buckets);
    this.touched = new Uint8Array(buckets);
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    try {
      return Promise.resolve(texts.map((t) => this.embedOne(t)));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Synchronous form, for callers that embed one query at a time. */
  embedOne(text: string): Float32Array {
    const input = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
    const analysis = analyze(input);
    for (const concept of analysis.concepts) this.add(`c:${concept}`, CONCEPT_WEIGHT);
    const stems = analysis.stems;
    for (let i = 0; i < analysis.tokens.length; i++) {
      const tok = analysis.tokens[i]!;
      if (tok.length > MAX_TOKEN || isStopword(tok)) continue;
      this.add(`s:${stems[i]}`, STEM_WEIGHT);
      if (/^[0-9]+$/.test(tok)) continue;
      const padded = `#${tok}#`;
      for (let k = 0; k + 3 <= padded.length; k++) this.add(padded.slice(k, k + 3), TRIGRAM_WEIGHT);
    }
    if (this.touchedList.length === 0) {
      // Nothing readable (empty text, only punctuation or function words):
      // fall back to the raw folded tokens, then to a fixed feature, so the
      // result is still a unit vector.
      for (const t of tokenize(input)) this.add(`w:${t.text}`, STEM_WEIGHT);
      if (this.touchedList.length === 0) this.add('empty', 1);
    }
    return this.flush();
  }

  private add(feature: string, weight: number): void {
    const h = hash32(feature, 0);
    const idx = h % this.dimensions;
    // The sign comes from an independent hash so that collisions cancel out
    // on average instead of piling up.
    const sign = hash32(feature, 0x9e3779b9) & 1 ? -1 : 1;
    if (!this.touched[idx]) {
      this.touched[idx] = 1;
      this.touchedList.push(idx);
    }
    this.acc[idx] = this.acc[idx]! + sign * weight;
  }

  private flush(): Float32Array {
    let sum = 0;
    for (const i of this.touchedList) sum += this.acc[i]! * this.acc[i]!;
    const out = new Float32Array(this.dimensions);
    const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (const i of this.touchedList) {
      out[i] = this.acc[i]! * inv;
      this.acc[i] = 0;
      this.touched[i] = 0;
    }
    this.touchedList.length = 0;
    if (sum === 0) out[0] = 1;
    return out;
  }
}
