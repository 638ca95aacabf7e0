import { ASAAS_SANDBOX_CUSTOMER, startSandbox, type Sandbox } from './index';

/** Each modelled provider's happy path, driven over HTTP with its default test credentials. */

let sandbox: Sandbox;

async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : undefined };
}

async function token(provider: string, clientId: string, secret: string): Promise<string> {
  const res = await fetch(`${sandbox.url}/${provider}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
    }).toString(),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(() => sandbox.control.reset());

describe('Asaas: Pix charge and refund', () => {
  const auth = { access_token: 'sandbox-asaas-key' };

  it('creates a Pix charge, shows its QR code, takes payment and refunds it', async () => {
    const created = await call('/asaas/v3/payments', {
      headers: auth,
      body: {
        customer: ASAAS_SANDBOX_CUSTOMER,
        billingType: 'PIX',
        value: 129.9,
        dueDate: '2099-12-31',
        externalReference: 'order-42',
      },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'payment',
      customer: ASAAS_SANDBOX_CUSTOMER,
      billingType: 'PIX',
      value: 129.9,
      status: 'PENDING',
      dueDate: '2099-12-31',
    });
    const id = created.body.id as string;
    expect(id).toMatch(/^pay_/);

    const qr = await call(`/asaas/v3/payments/${id}/pixQrCode`, { headers: auth });
    expect(qr.status).toBe(200);
    // A BR Code: payload format 01, the Pix GUI, the amount, and a CRC at the end.
    expect(qr.body.payload).toMatch(/^000201.*br\.gov\.bcb\.pix.*5406129\.90.*6304[0-9A-F]{4}$/);
    expect(typeof qr.body.encodedImage).toBe('string');

    const early = await call(`/asaas/v3/payments/${id}/refund`, { headers: auth, body: {} });
    expect(early.status).toBe(400);
    expect(early.body.errors[0].code).toBe('invalid_action');

    const paid = await fetch(`${sandbox.controlUrl}/_control/providers/asaas/payments/${id}/pay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.controlToken}` },
    });
    expect(paid.status).toBe(200);

    const partial = await call(`/asaas/v3/payments/${id}/refund`, {
      headers: auth,
      body: { value: 29.9, description: 'desconto' },
    });
    expect(partial.status).toBe(200);
    expect(partial.body.status).toBe('RECEIVED');
    const full = await call(`/asaas/v3/payments/${id}/refund`, { headers: auth, body: {} });
    expect(full.body.status).toBe('REFUNDED');
    expect(full.body.refunds.map((r: { value: number }) => r.value)).toEqual([29.9, 100]);

    const read = await call(`/asaas/v3/payments/${id}`, { headers: auth });
    expect(read.body.status).toBe('REFUNDED');
    const byRef = await call('/asaas/v3/payments?externalReference=order-42', { headers: auth });
    expect(byRef.body).toMatchObject({ object: 'list', totalCount: 1, data: [{ id }] });

    const counters = sandbox.control.counters();
    expect(counters.created.asaas).toEqual({ charges: 1, refunds: 2 });
    expect(counters.charges_created).toBe(1);
  });

  it('answers validation errors and unknown ids in the Asaas error shape', async () => {
    const bad = await call('/asaas/v3/payments', {
      headers: auth,
      body: { customer: 'cus_nobody', billingType: 'PIX', value: 10, dueDate: '2099-01-01' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: [{ code: 'invalid_customer', description: expect.any(String) }] });
    const missing = await call('/asaas/v3/payments/pay_missing', { headers: auth });
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].code).toBe('invalid_object');
    expect(sandbox.control.counters().charges_created).toBe(0);
  });
});

describe('Mercado Pago: card and Pix payments', () => {
  it('approves a card, leaves a Pix pending with its QR data, and refunds', async () => {
    const bearer = { authorization: `Bearer ${await token('mercadopago', 'sandbox-mp-client', 'sandbox-mp-secret')}` };
    const card = await call('/mercadopago/v1/payments', {
      headers: { ...bearer, 'x-idempotency-key': 'card-1' },
      body: {
        transaction_amount: 100,
        payment_method_id: 'visa',
        token: 'card-token',
        installments: 1,
        payer: { email: 'ana@example.com' },
      },
    });
    expect(card.status).toBe(201);
    expect(card.body).toMatchObject({
      status: 'approved',
      status_detail: 'accredited',
      payment_type_id: 'credit_card',
      transaction_amount: 100,
      currency_id: 'BRL',
    });
    expect(typeof card.body.id).toBe('number');

    const pix = await call('/mercadopago/v1/payments', {
      headers: { ...bearer, 'x-idempotency-key': 'pix-1' },
      body: { transaction_amount: 15.5, payment_method_id: 'pix', payer: { email: 'ana@example.com' } },
    });
    expect(pix.status).toBe(201);
    expect(pix.body).toMatchObject({
      status: 'pending',
      status_detail: 'pending_waiting_transfer',
      payment_type_id: 'bank_transfer',
    });
    expect(pix.body.point_of_interaction.transaction_data.qr_code).toMatch(/^000201.*6304[0-9A-F]{4}$/);

    const rejected = await call('/mercadopago/v1/payments', {
      headers: { ...bearer, 'x-idempotency-key': 'card-2' },
      body: {
        transaction_amount: 10,
        payment_method_id: 'master',
        token: 't',
        payer: { email: 'a@b.co', first_name: 'OTHE' },
      },
    });
    expect(rejected.body.status).toBe('rejected');

    const refund = await call(`/mercadopago/v1/payments/${card.body.id}/refunds`, {
      headers: { ...bearer, 'x-idempotency-key': 'refund-1' },
      body: {},
    });
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({ payment_id: card.body.id, amount: 100, status: 'approved' });
    const read = await call(`/mercadopago/v1/payments/${card.body.id}`, { headers: bearer });
    expect(read.body.status).toBe('refunded');
    expect(sandbox.control.counters().charges_created).toBe(3);
  });

  it('requires X-Idempotency-Key on payment creation, as Mercado Pago does', async () => {
    const bearer = { authorization: `Bearer ${await token('mercadopago', 'sandbox-mp-client', 'sandbox-mp-secret')}` };
    const res = await call('/mercadopago/v1/payments', {
      headers: bearer,
      body: { transaction_amount: 1, payment_method_id: 'pix', payer: { email: 'a@b.co' } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'bad_request',
      status: 400,
      cause: [expect.objectContaining({ code: expect.any(Number) })],
    });
    expect(sandbox.control.counters().charges_created).toBe(0);
  });
});

describe('NFS-e (Focus NFe v2 shape)', () => {
  const auth = { authorization: `Basic ${Buffer.from('sandbox-nfse-token:').toString('base64')}` };
  const invoice = {
    prestador: { cnpj: '12.345.678/0001-95', inscricao_municipal: '12345', codigo_municipio: '3550308' },
    tomador: { cpf: '123.456.789-09', razao_social: 'Ana Souza', email: 'ana@example.com' },
    servico: {
      valor_servicos: 350,
      discriminacao: 'Consultoria em integração de pagamentos',
      item_lista_servico: '0107',
      aliquota: 2,
    },
  };

  it('accepts an issue, then shows the authorised number and verification code', async () => {
    const issued = await call('/nfse/v2/nfse?ref=venda-1001', { headers: auth, body: invoice });
    expect(issued.status).toBe(202);
    expect(issued.body).toMatchObject({
      ref: 'venda-1001',
      cnpj_prestador: '12345678000195',
      status: 'processando_autorizacao',
    });
    const read = await call('/nfse/v2/nfse/venda-1001', { headers: auth });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      ref: 'venda-1001',
      status: 'autorizado',
      numero: '1',
      codigo_verificacao: expect.stringMatching(/^[0-9A-F]{8}$/),
    });
    const again = await call('/nfse/v2/nfse/venda-1001', { headers: auth });
    expect(again.body.numero).toBe('1');
    expect(sandbox.control.counters().created.nfse).toEqual({ invoices: 1 });
  });

  it('refuses an invoice without a service value in its own error shape', async () => {
    const res = await call('/nfse/v2/nfse?ref=venda-1002', {
      headers: auth,
      body: { ...invoice, servico: { discriminacao: 'x' } },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ codigo: 'requisicao_invalida', mensagem: expect.any(String) });
    const missing = await call('/nfse/v2/nfse/venda-1002', { headers: auth });
    expect(missing.status).toBe(404);
  });
});

describe('WhatsApp Cloud API: template message', () => {
  const auth = { authorization: 'Bearer sandbox-whatsapp-token' };

  it('sends a template and answers a wamid', async () => {
    const res = await call('/whatsapp/v21.0/100000000000001/messages', {
      headers: auth,
      body: {
        messaging_product: 'whatsapp',
        to: '+55 11 91234-5678',
        type: 'template',
        template: { name: 'pedido_confirmado', language: { code: 'pt_BR' } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      messaging_product: 'whatsapp',
      contacts: [{ input: '+55 11 91234-5678', wa_id: '5511912345678' }],
      messages: [{ id: expect.stringMatching(/^wamid\./), message_status: 'accepted' }],
    });
    expect(sandbox.control.counters().created.whatsapp).toEqual({ messages: 1 });
  });

  it('answers Graph errors for an unknown phone number id and a missing template name', async () => {
    const unknown = await call('/whatsapp/v21.0/999/messages', {
      headers: auth,
      body: { messaging_product: 'whatsapp', to: '5511912345678', type: 'text', text: { body: 'oi' } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      code: 100,
      type: 'GraphMethodException',
      fbtrace_id: expect.any(String),
    });
    const noName = await call('/whatsapp/v21.0/100000000000001/messages', {
      headers: auth,
      body: {
        messaging_product: 'whatsapp',
        to: '5511912345678',
        type: 'template',
        template: { language: { code: 'pt_BR' } },
      },
    });
    expect(noName.status).toBe(400);
    expect(noName.body.error.code).toBe(100);
  });
});

describe('Melhor Envio: quote and label', () => {
  it('quotes services, then carts, pays, generates and tracks a label', async () => {
    const auth = { authorization: `Bearer ${await token('melhorenvio', 'sandbox-me-client', 'sandbox-me-secret')}` };
    const quote = await call('/melhorenvio/api/v2/me/shipment/calculate', {
      headers: auth,
      body: {
        from: { postal_code: '01310-100' },
        to: { postal_code: '90010-000' },
        package: { height: 10, width: 15, length: 20, weight: 1.2 },
      },
    });
    expect(quote.status).toBe(200);
    const pac = quote.body.find((s: { name: string }) => s.name === 'PAC');
    expect(pac).toMatchObject({ id: 1, currency: 'R$', company: { name: 'Correios' } });
    expect(Number(pac.price)).toBeGreaterThan(0);
    expect(pac.delivery_time).toBeGreaterThan(0);
    // Too heavy for Mini Envios: listed with an error, as Melhor Envio does.
    expect(quote.body.find((s: { id: number }) => s.id === 17).error).toEqual(expect.any(String));

    const order = await call('/melhorenvio/api/v2/me/cart', {
      headers: auth,
      body: {
        service: 1,
        from: { name: 'Loja', postal_code: '01310100' },
        to: { name: 'Ana', postal_code: '90010000' },
        volumes: [{ height: 10, width: 15, length: 20, weight: 1.2 }],
      },
    });
    expect(order.status).toBe(201);
    expect(order.body).toMatchObject({ status: 'pending', service_id: 1, price: Number(pac.price) });
    const id = order.body.id as string;

    const early = await call('/melhorenvio/api/v2/me/shipment/generate', { headers: auth, body: { orders: [id] } });
    expect(early.body[id].status).toBe(false);

    const checkout = await call('/melhorenvio/api/v2/me/shipment/checkout', { headers: auth, body: { orders: [id] } });
    expect(checkout.status).toBe(200);
    expect(checkout.body.purchase).toMatchObject({ status: 'paid', total: Number(pac.price) });

    const generated = await call('/melhorenvio/api/v2/me/shipment/generate', { headers: auth, body: { orders: [id] } });
    expect(generated.body[id]).toEqual({ status: true, message: expect.any(String) });
    const tracking = await call('/melhorenvio/api/v2/me/shipment/tracking', { headers: auth, body: { orders: [id] } });
    expect(tracking.body[id]).toMatchObject({
      status: 'generated',
      tracking: expect.stringMatching(/^ME[0-9A-F]{10}BR$/),
    });
    const print = await call('/melhorenvio/api/v2/me/shipment/print', { headers: auth, body: { orders: [id] } });
    expect(print.body.url).toContain('/melhorenvio/imprimir/');
    expect(sandbox.control.counters().created.melhorenvio).toEqual({ orders: 1, purchases: 1, labels: 1 });
  });

  it('answers Laravel validation errors for a quote without CEPs', async () => {
    const auth = { authorization: `Bearer ${await token('melhorenvio', 'sandbox-me-client', 'sandbox-me-secret')}` };
    const res = await call('/melhorenvio/api/v2/me/shipment/calculate', {
      headers: auth,
      body: { package: { weight: 1 } },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The given data was invalid.',
      errors: { 'from.postal_code': [expect.any(String)], 'to.postal_code': [expect.any(String)] },
    });
  });
});

it('answers 404 for a prefix it does not serve and for an unknown route of a known one', async () => {
  expect((await call('/stripe/v1/charges')).status).toBe(404);
  const res = await call('/asaas/v3/nothing', { headers: { access_token: 'sandbox-asaas-key' } });
  expect(res.status).toBe(404);
  expect(res.body.errors[0].code).toBe('not_found');
  expect(sandbox.control.counters().requests.asaas).toEqual({ unknown_route: 1 });
});
