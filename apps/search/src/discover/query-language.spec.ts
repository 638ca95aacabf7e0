import { renderQuery } from './query-language';

describe('renderQuery', () => {
  it('leaves an English request as written, with nothing to expand', () => {
    const r = renderQuery('refund an approved payment');
    expect(r).toMatchObject({
      lang: 'en',
      lexicalText: 'refund an approved payment',
      expansion: '',
      englishText: 'refund an approved payment',
    });
  });

  it('renders the concepts of a Portuguese request by their English terms and keeps its own words for the lexical channel', () => {
    const r = renderQuery('quero estornar um pagamento aprovado no Mercado Pago');
    expect(r.lang).toBe('pt');
    expect(r.lexicalText).toBe('quero estornar um pagamento aprovado no Mercado Pago');
    expect(r.expansion).toMatch(/\brefund\b/);
    expect(r.expansion).toMatch(/\bpayment\b/);
    // Words no concept explains (here the brand) stay in the English text, function words do not.
    expect(r.englishText).toContain('Mercado');
    expect(r.englishText).not.toMatch(/\bum\b|\bno\b/);
    expect(r.englishText).not.toContain('estornar');
  });

  it('does the same for Spanish', () => {
    const r = renderQuery('enviar un mensaje de WhatsApp al cliente');
    expect(r.lang).toBe('es');
    expect(r.expansion).toMatch(/\bsend\b/);
    expect(r.expansion).toMatch(/\bmessage\b/);
    expect(r.expansion).toMatch(/\bcustomer\b/);
    expect(r.englishText).not.toMatch(/\bmensaje\b|\bal\b/);
  });

  it('writes each concept in plain words, without the vocabulary marks', () => {
    for (const text of [
      'cobrar por boleto com vencimento amanhã',
      'emitir nota fiscal eletrônica',
      'consultar el saldo de la cuenta',
    ]) {
      expect(renderQuery(text).expansion).not.toMatch(/[=*+]/);
    }
  });
});
