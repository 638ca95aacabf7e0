import { cognate, glossEnglish } from './glossary';
import { renderQuery } from './translate';

describe('glossEnglish', () => {
  it('finds a word by its stem in its own language', () => {
    expect(glossEnglish('reembolsos', 'es')?.[0]).toBe('refund');
    expect(glossEnglish('baixar', 'pt')?.[0]).toBe('download');
    expect(glossEnglish('descargar', 'es')?.[0]).toBe('download');
    expect(glossEnglish('plantilla', 'es')?.[0]).toBe('template');
  });

  it('has nothing for English, for unknown words or for one letter', () => {
    expect(glossEnglish('refund', 'en')).toBeUndefined();
    expect(glossEnglish('xyzzy', 'pt')).toBeUndefined();
    expect(glossEnglish('e', 'pt')).toBeUndefined();
  });
});

describe('cognate', () => {
  it('turns Portuguese and Spanish endings into English ones', () => {
    expect(cognate('transaccional')).toBe('transactional');
    expect(cognate('integracao')).toBe('integration');
    expect(cognate('opcoes')).toBe('options');
    expect(cognate('verificacion')).toBe('verification');
    expect(cognate('identidade')).toBe('identity');
    expect(cognate('interactivo')).toBe('interactive');
    expect(cognate('publico')).toBe('public');
  });

  it('leaves short stems and other words alone', () => {
    expect(cognate('acao')).toBeUndefined();
    expect(cognate('pedido')).toBeUndefined();
  });
});

describe('renderQuery', () => {
  it('renders words the concepts do not explain through the glossary, in order', () => {
    const r = renderQuery('enviar una plantilla aprobada de WhatsApp');
    expect(r.lang).toBe('es');
    expect(r.englishText).toMatch(/template approved/);
    expect(r.expansion).toMatch(/\btemplate\b/);
    expect(r.englishText).not.toMatch(/plantilla|\buna\b|\bde\b/);
  });

  it('prefers the glossary over a broad concept for a single word, and ignores fuzzy guesses', () => {
    // "relatório" alone falls under a broad concept whose English terms are unrelated words; "penales" only matches fuzzily.
    expect(renderQuery('ver o resultado do relatório').englishText).toBe('see result report');
    expect(renderQuery('antecedentes penales de una persona').englishText).toMatch(/criminal person/);
  });

  it('keeps names and acronyms as written, a capitalised provider name included', () => {
    const r = renderQuery('programar una recolección de paquetes con Envia');
    expect(r.englishText).toMatch(/\bpickup\b/);
    expect(r.englishText).toMatch(/Envia$/);
    // A word neither the glossary nor a concept knows may still be a cognate.
    expect(renderQuery('enviar un correo transaccional con SendGrid').englishText).toBe(
      'send email transactional SendGrid',
    );
    expect(renderQuery('timbrar una factura CFDI 4.0').englishText).toBe('stamp invoice CFDI 4.0');
  });

  it('renders an opening infinitive that asks for an act as making the thing, and only then', () => {
    expect(renderQuery('cobrar con tarjeta en soles con Culqi').englishText).toBe('create charge card soles Culqi');
    expect(renderQuery('cotizar paquetería en México con Skydropx').englishText).toMatch(/^create quote /);
    // A noun is not an act, paying a bill is not making one, and a request that already says "create" gets it once.
    expect(renderQuery('cobro en tienda de conveniencia con Openpay').englishText).not.toMatch(/create/);
    expect(renderQuery('pagar um boleto').englishText).not.toMatch(/create/);
    expect(renderQuery('crear una orden en Conekta').englishText.match(/create/g)).toHaveLength(1);
  });

  it('keeps one of a concept’s phrases that share a word', () => {
    expect(renderQuery('obtener las transacciones de una cuenta bancaria').englishText).toBe(
      'get transaction bank account',
    );
  });

  it('never glosses a function word ("com" is not "comida")', () => {
    expect(renderQuery('lista de bancos com código').englishText).not.toMatch(/food/);
  });

  it('settles a request the lexicon could not place when its words are Portuguese or Spanish only', () => {
    const r = renderQuery('responder pergunta de comprador no Mercado Livre');
    expect(r.lang).toBe('pt');
    expect(r.englishText).toMatch(/answer question buyer/);
    // An English request stays as written.
    expect(renderQuery('what was this balance at the end of last month')).toMatchObject({ lang: 'en', expansion: '' });
    expect(renderQuery('Pix').englishText).toBe('Pix');
  });

  it('does not take the first word of a later sentence for a name', () => {
    const r = renderQuery('Preciso viajar amanhã. Quero comprar uma passagem de ônibus para Curitiba.');
    expect(r.englishText).not.toMatch(/Quero/);
    expect(r.englishText).toMatch(/Curitiba/);
    expect(renderQuery('¿Dónde puedo comprar boletos de tren? Necesito dos.').englishText).not.toMatch(/Necesito/);
  });

  it('renders everyday travel and booking words, and agenda and disponível in their own sense', () => {
    expect(renderQuery('comprar passagem de ônibus').englishText).toMatch(/ticket.*bus/);
    expect(renderQuery('comprar ingressos para o show').englishText).toMatch(/ticket/);
    expect(renderQuery('reservar quartos de hotel').englishText).toMatch(/reserve.*room.*hotel/);
    expect(renderQuery('comprar boletos de autobús').englishText).toMatch(/ticket.*bus/);
    expect(renderQuery('comprar tiquetes de tren').englishText).toMatch(/ticket.*train/);
    expect(renderQuery('marcar horário com um terapeuta').englishText).toMatch(/therapist/);
    expect(renderQuery('ver a minha agenda de amanhã').englishText).toMatch(/calendar/);
    expect(renderQuery('ver a minha agenda de amanhã').englishText).not.toMatch(/schedule/);
    expect(renderQuery('quais quartos estão disponíveis no hotel').englishText).toMatch(/available/);
    expect(renderQuery('quais quartos estão disponíveis no hotel').englishText).not.toMatch(/balance/);
  });
});
