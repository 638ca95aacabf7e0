import { META_TOOL_NAMES } from '@rota/contracts';
import { metaToolHints } from './meta-tool-hints';

/** One use case per language (pt, es, en) for each meta-tool discover may point to. */
const CASES: ReadonlyArray<readonly [string, string, string, string]> = [
  [
    'codespar_get_started',
    'como eu começo a usar a plataforma?',
    '¿por dónde empiezo para integrar?',
    'how do I get started with this workspace?',
  ],
  [
    'codespar_manage_connections',
    'conectar minha conta do Mercado Pago',
    'conectar mi cuenta de Stripe',
    'connect my Shopify account',
  ],
  [
    'codespar_checkout',
    'criar um checkout para os itens do carrinho',
    'crear un checkout para el carrito',
    'create a checkout for the cart items',
  ],
  [
    'codespar_pay',
    'pagar um fornecedor via Pix',
    'pagarle a un proveedor por transferencia',
    'pay a supplier by wire transfer',
  ],
  [
    'codespar_wallet',
    'qual o saldo da minha carteira?',
    '¿cuál es el saldo de mi billetera?',
    'what is my wallet balance?',
  ],
  ['codespar_shop', 'quero comprar uma televisão barata', 'quiero comprar un televisor barato', 'buy a cheap TV'],
  [
    'codespar_charge',
    'cobrar um cliente com boleto',
    'cobrarle a un cliente con tarjeta',
    'charge a customer by credit card',
  ],
  [
    'codespar_invoice',
    'emitir nota fiscal eletrônica',
    'emitir una factura electrónica',
    'issue an electronic invoice',
  ],
  ['codespar_ship', 'rastrear a encomenda', 'rastrear mi paquete', 'track my parcel'],
  ['codespar_notify', 'enviar uma mensagem no WhatsApp', 'enviar un mensaje por WhatsApp', 'send an SMS to the buyer'],
  ['codespar_crypto_pay', 'enviar USDC para um endereço', 'enviar bitcoin a una dirección', 'send USDC on Polygon'],
  [
    'codespar_kyc',
    'verificar a identidade de um cliente',
    'verificar la identidad de un usuario',
    "verify a customer's identity",
  ],
  [
    'codespar_ledger',
    'registrar um lançamento no livro razão',
    'registrar un asiento en el libro mayor',
    'record a ledger entry',
  ],
  [
    'codespar_issue',
    'emitir um cartão virtual corporativo',
    'emitir una tarjeta virtual para un empleado',
    'issue a virtual card for an employee',
  ],
];

describe('discover keyword table', () => {
  it('covers every published meta-tool except discover itself', () => {
    const covered = new Set(CASES.map(([tool]) => tool));
    expect([...covered].sort()).toEqual(META_TOOL_NAMES.filter((n) => n !== 'codespar_discover').sort());
  });

  describe.each(CASES)('%s', (tool, pt, es, en) => {
    it.each([
      ['pt', pt],
      ['es', es],
      ['en', en],
    ])('is the first hint for a %s use case: %s', (_lang, useCase) => {
      expect(metaToolHints(useCase)[0]?.tool).toBe(tool);
    });
  });

  it('never points at codespar_discover, even for catalog questions', () => {
    for (const useCase of [
      'is there a tool for Colombian payroll?',
      'existe alguma integração para consultar placas?',
      'qué herramientas tienen para facturar?',
    ]) {
      expect(metaToolHints(useCase).map((h) => h.tool)).not.toContain('codespar_discover');
    }
  });

  it('stays silent when a request names a raw provider operation and no meta-tool job', () => {
    expect(metaToolHints('list the customers registered in Asaas')).toEqual([]);
    expect(metaToolHints('get exchange rate USD BRL')).toEqual([]);
    expect(metaToolHints('xyzzy plugh')).toEqual([]);
  });

  it('does not send a refund to a meta-tool that cannot refund', () => {
    for (const useCase of [
      'estornar uma cobrança recebida no Asaas',
      'reembolsar el cobro con tarjeta del cliente',
      'refund the charge of order 42',
    ]) {
      const tools = metaToolHints(useCase).map((h) => h.tool);
      expect(tools).not.toContain('codespar_charge');
      expect(tools).not.toContain('codespar_pay');
    }
  });

  it('lists runners-up only when they score close to the best', () => {
    const hints = metaToolHints('cobrar o cliente por Pix e mandar o comprovante por WhatsApp');
    expect(hints.length).toBeGreaterThanOrEqual(1);
    for (const h of hints) expect(h.score).toBeGreaterThanOrEqual(hints[0]!.score * 0.75);
  });
});
