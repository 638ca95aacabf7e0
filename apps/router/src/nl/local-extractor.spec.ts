import { extractLocal } from './local-extractor';

type Expected = Record<string, unknown>;

/** Sentences written for this suite, with the intent each must read as (fields not listed must be absent). */
const CASES: ReadonlyArray<[string, string, Expected]> = [
  // Portuguese
  [
    'pt',
    'cobrar R$ 49,90 via pix de um cliente no Brasil',
    { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 4990, method: 'pix' },
  ],
  [
    'pt',
    'quero cobrar 150 reais no boleto do cliente, CPF 123.456.789-09',
    {
      operation: 'charge',
      currency: 'BRL',
      country: 'BR',
      amount_minor: 15000,
      method: 'boleto',
      recipient_kind: 'cpf',
    },
  ],
  [
    'pt',
    'gerar um link de pagamento de R$ 1.200,50 no cartão',
    { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 120050, method: 'card' },
  ],
  [
    'pt',
    'o cliente vai pagar R$ 89,00 com pix agora',
    { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 8900, method: 'pix', urgency: 'instant' },
  ],
  [
    'pt',
    'estornar a cobrança de R$ 30,00 feita no pix ontem',
    { operation: 'refund', currency: 'BRL', country: 'BR', amount_minor: 3000, method: 'pix' },
  ],
  [
    'pt',
    'devolver o dinheiro do cliente, foram R$ 75,50 no cartão',
    { operation: 'refund', currency: 'BRL', country: 'BR', amount_minor: 7550, method: 'card' },
  ],
  [
    'pt',
    'pagar o fornecedor R$ 2.500,00 por pix hoje, chave CNPJ',
    {
      operation: 'payout',
      currency: 'BRL',
      country: 'BR',
      amount_minor: 250000,
      method: 'pix',
      urgency: 'same_day',
      recipient_kind: 'cnpj',
    },
  ],
  [
    'pt',
    'fazer uma transferência TED de 10 mil reais para um funcionário',
    { operation: 'payout', currency: 'BRL', country: 'BR', amount_minor: 1000000, method: 'wire' },
  ],
  [
    'pt',
    'emitir nota fiscal de serviço para um cliente em São Paulo',
    { operation: 'issue_invoice', currency: 'BRL', country: 'BR', method: 'nfse' },
  ],
  [
    'pt',
    'emitir NF-e da venda de R$ 320,00',
    { operation: 'issue_invoice', currency: 'BRL', country: 'BR', amount_minor: 32000, method: 'nfe' },
  ],
  [
    'pt',
    'mandar um zap pro cliente avisando que o pedido saiu',
    { operation: 'send_notification', currency: 'BRL', country: 'BR', method: 'whatsapp' },
  ],
  [
    'pt',
    'enviar SMS de lembrete para um cliente no Brasil',
    { operation: 'send_notification', currency: 'BRL', country: 'BR', method: 'sms' },
  ],
  [
    'pt',
    'cotar frete de um pacote de 2 kg para o Rio de Janeiro, sem pressa',
    { operation: 'ship', currency: 'BRL', country: 'BR', urgency: 'no_rush' },
  ],
  // Spanish
  [
    'es',
    'cobrar $1.200,50 con tarjeta a un cliente en México',
    { operation: 'charge', currency: 'MXN', country: 'MX', amount_minor: 120050, method: 'card' },
  ],
  [
    'es',
    'necesito cobrar 500 pesos por OXXO en México',
    { operation: 'charge', currency: 'MXN', country: 'MX', amount_minor: 50000, method: 'oxxo' },
  ],
  [
    'es',
    'cobro de 15.000 pesos chilenos con tarjeta en Chile',
    { operation: 'charge', currency: 'CLP', country: 'CL', amount_minor: 15000, method: 'card' },
  ],
  [
    'es',
    'quiero cobrar por PSE 80.000 pesos colombianos',
    { operation: 'charge', currency: 'COP', country: 'CO', amount_minor: 8000000, method: 'pse' },
  ],
  [
    'es',
    'cobrar S/ 150 con Yape a un cliente en Perú',
    {
      operation: 'charge',
      currency: 'PEN',
      country: 'PE',
      amount_minor: 15000,
      method: 'wallet',
      recipient_kind: 'wallet',
    },
  ],
  [
    'es',
    'reembolsar 250 MXN de una compra con tarjeta',
    { operation: 'refund', currency: 'MXN', country: 'MX', amount_minor: 25000, method: 'card' },
  ],
  [
    'es',
    'pagar a un proveedor en México 3.000 MXN por SPEI de inmediato',
    { operation: 'payout', currency: 'MXN', country: 'MX', amount_minor: 300000, method: 'spei', urgency: 'instant' },
  ],
  [
    'es',
    'transferir 45.000 CLP a un empleado en Chile mañana',
    { operation: 'payout', currency: 'CLP', country: 'CL', amount_minor: 45000, urgency: 'next_day' },
  ],
  [
    'es',
    'emitir una factura electrónica CFDI a un cliente con RFC',
    { operation: 'issue_invoice', currency: 'MXN', country: 'MX', method: 'cfdi', recipient_kind: 'other' },
  ],
  ['es', 'facturar una venta en Colombia', { operation: 'issue_invoice', currency: 'COP', country: 'CO' }],
  [
    'es',
    'enviar un WhatsApp a un cliente en Argentina',
    { operation: 'send_notification', currency: 'ARS', country: 'AR', method: 'whatsapp' },
  ],
  [
    'es',
    'mandar un correo de confirmación a cliente@ejemplo.com en Colombia',
    { operation: 'send_notification', currency: 'COP', country: 'CO', method: 'email', recipient_kind: 'email' },
  ],
  [
    'es',
    'cotizar el envío de un paquete a Monterrey hoy',
    { operation: 'ship', currency: 'MXN', country: 'MX', urgency: 'same_day' },
  ],
  // English
  [
    'en',
    'send a WhatsApp to a customer in Mexico',
    { operation: 'send_notification', currency: 'MXN', country: 'MX', method: 'whatsapp' },
  ],
  [
    'en',
    'charge a customer 49.90 USD by card',
    { operation: 'charge', currency: 'USD', country: 'US', amount_minor: 4990, method: 'card' },
  ],
  [
    'en',
    'collect R$ 200 from a buyer in Brazil via boleto, no rush',
    { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 20000, method: 'boleto', urgency: 'no_rush' },
  ],
  [
    'en',
    'charge 1,200.50 MXN with a card in Mexico',
    { operation: 'charge', currency: 'MXN', country: 'MX', amount_minor: 120050, method: 'card' },
  ],
  [
    'en',
    'refund $35 to a customer in Colombia',
    { operation: 'refund', currency: 'COP', country: 'CO', amount_minor: 3500 },
  ],
  [
    'en',
    'pay our supplier in Brazil R$ 800 by pix right now',
    { operation: 'payout', currency: 'BRL', country: 'BR', amount_minor: 80000, method: 'pix', urgency: 'instant' },
  ],
  [
    'en',
    'send a payout of 5000 CLP to a contractor in Chile',
    { operation: 'payout', currency: 'CLP', country: 'CL', amount_minor: 5000 },
  ],
  [
    'en',
    'issue a tax invoice for a customer in Mexico',
    { operation: 'issue_invoice', currency: 'MXN', country: 'MX' },
  ],
  [
    'en',
    'text the customer by SMS in Peru that the order shipped',
    { operation: 'send_notification', currency: 'PEN', country: 'PE', method: 'sms' },
  ],
  [
    'en',
    'get a shipping quote for a 3 kg parcel in Chile by tomorrow',
    { operation: 'ship', currency: 'CLP', country: 'CL', urgency: 'next_day' },
  ],
  [
    'en',
    'email a payment reminder to a customer in Uruguay',
    { operation: 'send_notification', currency: 'UYU', country: 'UY', method: 'email' },
  ],
];

describe('extractLocal', () => {
  it('covers at least 30 phrasings in each of the three languages together, with each language present', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
    for (const lang of ['pt', 'es', 'en']) expect(CASES.filter(([l]) => l === lang).length).toBeGreaterThanOrEqual(8);
  });

  it.each(CASES)('[%s] %s', (_lang, sentence, expected) => {
    const out = extractLocal(sentence);
    expect(out).toEqual({ kind: 'intent', intent: expected });
  });

  it.each([
    ['book me a flight to Lisbon next friday'],
    ['reservar um hotel em Salvador para o fim de semana'],
    ['¿qué tiempo hará mañana en Bogotá?'],
  ])('answers unmappable for a request no operation covers: %s', (sentence) => {
    expect(extractLocal(sentence).kind).toBe('unmappable');
  });

  it.each([['asdf qwer zxcv'], ['????'], ['12345']])('fails on text it cannot read: %s', (sentence) => {
    expect(extractLocal(sentence).kind).toBe('failed');
  });

  it('fails when nothing says where the operation happens', () => {
    expect(extractLocal('send a reminder message to the customer')).toMatchObject({ kind: 'failed' });
  });
});
