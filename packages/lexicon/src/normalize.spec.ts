import { DeletionIndex, editDistance } from './fuzzy';
import { guessLanguage, isStopword } from './language';
import { fold, normalize, tokenize } from './normalize';
import { stem } from './stem';

describe('fold', () => {
  it('lowercases and strips accents without changing the length', () => {
    const input = 'Cobrança ÀS Ações ñandú Ç';
    expect(fold(input)).toBe('cobranca as acoes nandu c');
    expect(fold(input)).toHaveLength(input.length);
  });

  it('keeps the length with emoji and odd casing', () => {
    const input = 'pix 🚀 İstanbul';
    expect(fold(input)).toHaveLength(input.length);
  });
});

describe('tokenize', () => {
  it('joins short hyphenated pieces and splits long ones', () => {
    expect(tokenize('NF-e, NFS-e, e-mail, double-entry, check-out').map((t) => t.text)).toEqual([
      'nfe',
      'nfse',
      'email',
      'double',
      'entry',
      'check',
      'out',
    ]);
  });

  it('keeps numbers whole and drops apostrophes', () => {
    expect(tokenize("What's R$ 1.500,00 or 99.90?").map((t) => t.text)).toEqual(['whats', 'r', '150000', 'or', '9990']);
  });

  it('reports offsets into the original text', () => {
    const text = '¿Cuál es el saldo?';
    const saldo = tokenize(text).find((t) => t.text === 'saldo')!;
    expect(text.slice(saldo.start, saldo.end)).toBe('saldo');
    const cual = tokenize(text)[0]!;
    expect(text.slice(cual.start, cual.end)).toBe('Cuál');
  });

  it('normalize joins the folded tokens', () => {
    expect(normalize('  Emitir   NF-e!! ')).toBe('emitir nfe');
  });
});

describe('stem', () => {
  it('uses the Snowball stemmer of each language', () => {
    expect(stem('cobrar', 'pt')).toBe(stem('cobra', 'pt'));
    expect(stem('cobrancas', 'pt')).toBe(stem('cobranca', 'pt'));
    expect(stem('transfiere', 'es')).toBe(stem('transfieren', 'es'));
    expect(stem('charging', 'en')).toBe(stem('charge', 'en'));
  });
});

describe('guessLanguage', () => {
  const guess = (s: string) =>
    guessLanguage(
      tokenize(s).map((t) => t.text),
      s.toLowerCase(),
    );
  it.each([
    ['What is my wallet balance?', 'en'],
    ['Qual o saldo da minha carteira?', 'pt'],
    ['¿Cuál es el saldo de mi billetera?', 'es'],
    ['Emissão de nota pra esse cliente', 'pt'],
    ['Necesito la dirección del cliente', 'es'],
  ])('%s -> %s', (text, lang) => {
    expect(guess(text)).toBe(lang);
  });

  it('says und when there is nothing to go on', () => {
    expect(guess('pix 150')).toBe('und');
  });
});

describe('stopwords', () => {
  it('covers function words of the three languages and no commerce words', () => {
    for (const w of ['the', 'uma', 'pra', 'del', 'nao', 'quiero']) expect(isStopword(w)).toBe(true);
    for (const w of ['saldo', 'pix', 'boleto', 'status', 'conta', 'envio', 'frete']) expect(isStopword(w)).toBe(false);
  });
});

describe('fuzzy', () => {
  it('computes optimal string alignment distance', () => {
    expect(editDistance('cobranca', 'cobranca')).toBe(0);
    expect(editDistance('cobrnaca', 'cobranca')).toBe(1);
    expect(editDistance('carteria', 'carteira')).toBe(1);
    expect(editDistance('etiquta', 'etiqueta')).toBe(1);
    expect(editDistance('boleto', 'pedido', 1)).toBe(2);
  });

  it('finds words one edit away through the deletion index', () => {
    const index = new DeletionIndex();
    for (const w of ['carteira', 'etiqueta', 'whatsapp', 'rastreio']) index.add(w);
    expect(index.near('carteria')).toEqual(['carteira']);
    expect(index.near('etiquta')).toEqual(['etiqueta']);
    expect(index.near('whatsap')).toEqual(['whatsapp']);
    expect(index.near('rastreios')).toEqual(['rastreio']);
    expect(index.near('carteira')).toEqual([]);
    expect(index.near('banana')).toEqual([]);
  });
});
