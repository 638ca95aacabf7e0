import { createHash } from 'node:crypto';
import { cosine, EMBEDDING_DIMENSIONS, fromVectorLiteral, toVectorLiteral } from './embedder';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local-embedder';

const e = new LocalEmbedder();
const sim = (a: string, b: string) => cosine(e.embedOne(a), e.embedOne(b));
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('LocalEmbedder', () => {
  it('names its model for what it is and makes 1536-dimension unit vectors', async () => {
    expect(e.model).toBe(LOCAL_EMBEDDING_MODEL);
    expect(e.model).toMatch(/feature-hash/);
    const [a, b, c] = await e.embed(['Cria uma cobrança Pix', '', '!!! ???']);
    for (const v of [a!, b!, c!]) {
      expect(v).toHaveLength(EMBEDDING_DIMENSIONS);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('gives the same bytes for the same text, in any order and any instance', async () => {
    const texts = ['Sends a WhatsApp template', 'Emite NF-e de produto', 'Rastrea un envío'];
    const one = await e.embed(texts);
    const other = await new LocalEmbedder().embed([...texts].reverse());
    expect(Buffer.from(one[0]!.buffer)).toEqual(Buffer.from(other[2]!.buffer));
    expect(Buffer.from(one[2]!.buffer)).toEqual(Buffer.from(other[0]!.buffer));
  });

  // Pinned digests: they only change when the algorithm or the lexicon
  // changes, and then the model name must change too (new name, re-embed).
  it.each([
    ['Cria uma cobrança Pix com QR code', 'ca8c68be9d1b7543f49bf1aa6411bb438b49ca54087899a16695ae4fe7dd57d4'],
    ['Emite una factura electrónica CFDI 4.0', 'cbf83586107941de6324fb0707181b44a54cb46b21be57404faa9fb8e9adab78'],
  ])('is stable across machines and releases for %j', (text, digest) => {
    expect(
      createHash('sha256')
        .update(Buffer.from(e.embedOne(text).buffer))
        .digest('hex'),
    ).toBe(digest);
  });

  it('folds accents and case', () => {
    expect(sim('emissão de cobrança', 'EMISSAO DE COBRANCA')).toBeCloseTo(1, 6);
    expect(sim('guía de envío', 'guia de envio')).toBeCloseTo(1, 6);
  });

  it('brings the same request in Portuguese, Spanish and English together', () => {
    const unrelated = sim('send a whatsapp message', 'issue an electronic invoice');
    for (const [a, b] of [
      ['send a whatsapp message', 'enviar mensagem pelo whatsapp'],
      ['send a whatsapp message', 'enviar un mensaje por whatsapp'],
      ['create a pix charge', 'criar cobrança pix'],
      ['issue an electronic invoice', 'emitir factura electrónica'],
      ['track a parcel', 'rastrear encomenda'],
    ]) {
      expect(sim(a!, b!)).toBeGreaterThan(0.5);
      expect(sim(a!, b!)).toBeGreaterThan(unrelated + 0.4);
    }
  });

  it('ranks the matching tool first for a query in another language', () => {
    const tools = [
      'ZapMsg: send text. Sends a WhatsApp text message to a phone number.',
      'PixPay: create pix charge. Creates a Pix charge with a QR code for a buyer to pay.',
      'FacturaMX: issue cfdi. Issues a CFDI 4.0 electronic invoice and stamps it.',
      'ShipFast: track. Tracks a parcel by its tracking code.',
    ];
    const best = (q: string) => tools.map((t) => [t, sim(q, t)] as const).sort((a, b) => b[1] - a[1])[0]![0];
    expect(best('quero mandar uma mensagem no zap')).toBe(tools[0]);
    expect(best('gerar um qr code pix para o cliente pagar')).toBe(tools[1]);
    expect(best('necesito emitir una factura')).toBe(tools[2]);
    expect(best('onde está minha encomenda')).toBe(tools[3]);
  });

  it('writes vectors in pgvector text form and reads them back bit for bit', () => {
    const v = e.embedOne('Reembolsa um pagamento Pix');
    const back = fromVectorLiteral(toVectorLiteral(v));
    expect(Buffer.from(back.buffer)).toEqual(Buffer.from(v.buffer));
    expect(toVectorLiteral(new Float32Array([0, 0.5, -1]))).toBe('[0,0.5,-1]');
  });
});
