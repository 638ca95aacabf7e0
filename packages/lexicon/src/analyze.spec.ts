import { analyze, conceptIds, shadowedTerms, warmUp } from './analyze';
import { CONCEPTS } from './concepts';

const concepts = (text: string) => analyze(text).concepts;

describe('CONCEPTS', () => {
  it('has unique ids, a gloss each, and at least one term', () => {
    const ids = CONCEPTS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of CONCEPTS) {
      expect(c.gloss.length).toBeGreaterThan(3);
      expect((c.en?.length ?? 0) + (c.pt?.length ?? 0) + (c.es?.length ?? 0) + (c.any?.length ?? 0)).toBeGreaterThan(0);
    }
  });

  it('has no single-word term hidden behind a function word', () => {
    expect(shadowedTerms()).toEqual([]);
  });

  it('lists pattern concepts among the ids', () => {
    expect(conceptIds()).toEqual(expect.arrayContaining(['obj.amount', 'obj.tracking_code', 'rail.pix', 'act.charge']));
  });
});

describe('analyze', () => {
  beforeAll(() => warmUp());

  it.each([
    ['Cobra R$ 150 do cliente no Pix', ['act.charge', 'obj.amount', 'party.customer', 'rail.pix']],
    ['Charge the customer 150 reais with pix', ['act.charge', 'party.customer', 'obj.amount', 'rail.pix']],
    ['Cóbrale 500 pesos al cliente', ['act.charge', 'obj.amount', 'party.customer']],
    ['Emite a nota fiscal dessa venda', ['act.issue', 'obj.invoice', 'obj.order']],
    ['Timbra una factura CFDI', ['obj.invoice']],
    ['Rastreia a encomenda OJ123456789BR', ['act.track', 'obj.parcel', 'obj.tracking_code']],
    ['manda mensagem no zap pro cliente', ['act.send', 'obj.message', 'chan.whatsapp', 'party.customer']],
    ['Send 100 USDC on Polygon', ['act.send', 'obj.crypto', 'obj.chain']],
    ['Valida esse CPF: 123.456.789-09', ['act.verify', 'obj.tax_id']],
    ['Congela la tarjeta que termina en 5566', ['act.freeze', 'rail.card', 'obj.card_ending']],
  ])('%s', (text, expected) => {
    expect(concepts(text)).toEqual(expect.arrayContaining(expected));
  });

  it('lets a phrase claim its words', () => {
    const c = concepts('saldo das contas a pagar');
    expect(c).toContain('obj.ledger_account');
    expect(c).not.toContain('act.pay');
    expect(concepts('Paga esse pix copia e cola')).toEqual(expect.arrayContaining(['act.pay', 'rail.pix_copy_paste']));
  });

  it('tolerates one typo on longer words', () => {
    expect(concepts('qto tem na carteria?')).toContain('obj.wallet');
    expect(concepts('gera etiquta de envio')).toContain('obj.label');
    expect(concepts('cobrnaca de 80 reais')).toContain('act.charge');
    const typo = analyze('carteria').matches[0]!;
    expect(typo.via).toBe('fuzzy');
  });

  it('does not stretch five-letter words into other words', () => {
    expect(concepts('the customer wants it')).not.toContain('chan.whatsapp');
  });

  it('reads stems only in the language of the text', () => {
    expect(concepts('a nice poster for the office')).not.toContain('obj.shipping');
    expect(concepts('quero postar a encomenda hoje')).toContain('obj.shipping');
  });

  it('strips Spanish pronouns glued to verbs', () => {
    expect(concepts('muéstrame el saldo')).toEqual(expect.arrayContaining(['act.show', 'obj.balance']));
    expect(concepts('cómprame unos audífonos')).toEqual(expect.arrayContaining(['act.buy', 'obj.goods']));
  });

  it('treats accents, case and punctuation as noise', () => {
    expect(concepts('EMISSÃO DE NOTA FISCAL')).toEqual(concepts('emissao de nota fiscal'));
    expect(concepts('cartão virtual')).toEqual(concepts('cartao virtual'));
  });

  it('quotes the caller words in matches', () => {
    const m = analyze('Quero uma cobrança via Pix').matches.find((x) => x.concept === 'act.charge')!;
    expect(m.text).toBe('cobrança');
  });

  it('finds nothing in small talk', () => {
    for (const text of ['Who won the 2002 World Cup?', 'Me conta uma piada', 'Hola, ¿cómo estás?']) {
      const c = analyze(text).concepts.filter((id) => !id.startsWith('ctx.'));
      expect(c).toEqual([]);
    }
  });

  it('exposes lazy stems in the guessed language and serialises them', () => {
    const a = analyze('Quero cobrar os clientes');
    expect(a.lang).toBe('pt');
    expect(a.stems).toEqual(['quero', 'cobr', 'os', 'client']);
    expect(JSON.parse(JSON.stringify(a))).toMatchObject({ lang: 'pt', stems: a.stems, tokens: a.tokens });
  });

  it('is deterministic', () => {
    const text = 'Gera um QR code pix de cobrança pro cliente';
    expect(JSON.stringify(analyze(text))).toBe(JSON.stringify(analyze(text)));
  });

  // Its cost per intent is a figure, not an assertion here: `pnpm bench`
  // (bench/path-a.mjs) times the in-process classification built on it.
});
