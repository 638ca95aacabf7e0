import { startSandbox, type Sandbox } from './index';

/**
 * The account-side routes: Asaas transfers, balance, statement and static
 * Pix QR codes, Banco Inter's Pix payments, Mercado Pago preferences and
 * Melhor Envio's order search. Their refusals, their idempotency and their
 * counters, over HTTP with the default test credentials.
 */

let sandbox: Sandbox;

async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : undefined };
}

async function token(path: string, clientId: string, secret: string) {
  return fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
      scope: 'pagamento-pix.write',
    }).toString(),
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(() => sandbox.control.reset());

describe('Asaas: the account side', () => {
  const auth = { access_token: 'sandbox-asaas-key' };
  const transfer = { value: 100, pixAddressKey: 'ana@example.com', pixAddressKeyType: 'EMAIL' };

  it('refuses a key that does not fit its type, more than the balance, and a transfer without a destination', async () => {
    const bad = await call('/asaas/v3/transfers', { headers: auth, body: { ...transfer, pixAddressKeyType: 'CPF' } });
    expect(bad).toMatchObject({ status: 400, body: { errors: [{ code: 'invalid_pixAddressKey' }] } });
    const broke = await call('/asaas/v3/transfers', { headers: auth, body: { ...transfer, value: 10_000.01 } });
    expect(broke).toMatchObject({ status: 400, body: { errors: [{ code: 'insufficient_balance' }] } });
    const nowhere = await call('/asaas/v3/transfers', { headers: auth, body: { value: 10 } });
    expect(nowhere.status).toBe(400);
    expect(sandbox.control.counters().created.asaas).toBeUndefined();
    expect((await call('/asaas/v3/finance/balance', { headers: auth })).body).toEqual({ balance: 10_000 });
  });

  it('keeps a scheduled transfer pending, debits the balance once per key, and lists every movement', async () => {
    const a = await call('/asaas/v3/transfers', { headers: { ...auth, 'idempotency-key': 't-1' }, body: transfer });
    const b = await call('/asaas/v3/transfers', { headers: { ...auth, 'idempotency-key': 't-1' }, body: transfer });
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const later = await call('/asaas/v3/transfers', {
      headers: auth,
      body: { ...transfer, value: 50, scheduleDate: '2099-01-01' },
    });
    expect((await call(`/asaas/v3/transfers/${later.body.id}`, { headers: auth })).body).toMatchObject({
      status: 'PENDING',
      effectiveDate: null,
    });
    expect((await call(`/asaas/v3/transfers/${a.body.id}`, { headers: auth })).body).toMatchObject({
      status: 'DONE',
      transactionReceiptUrl: expect.any(String),
    });
    expect(sandbox.control.counters().created.asaas).toEqual({ transfers: 2 });
    expect((await call('/asaas/v3/finance/balance', { headers: auth })).body).toEqual({ balance: 9_850 });

    const statement = await call('/asaas/v3/financialTransactions?order=desc&limit=2', { headers: auth });
    expect(statement.body).toMatchObject({ object: 'list', totalCount: 3, hasMore: true, limit: 2 });
    expect(statement.body.data.map((t: { value: number; balance: number }) => [t.value, t.balance])).toEqual([
      [-50, 9_850],
      [-100, 9_900],
    ]);
    expect(statement.body.data[0]).toMatchObject({
      object: 'financialTransaction',
      type: 'TRANSFER',
      transferId: later.body.id,
    });
  });

  it('credits a received charge and debits its refund in the statement', async () => {
    const charge = await call('/asaas/v3/payments', {
      headers: auth,
      body: { customer: 'cus_000000000001', billingType: 'PIX', value: 100, dueDate: '2099-12-31' },
    });
    await fetch(`${sandbox.controlUrl}/_control/providers/asaas/payments/${charge.body.id}/pay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.controlToken}` },
    });
    await call(`/asaas/v3/payments/${charge.body.id}/refund`, { headers: auth, body: { value: 20 } });
    const rows = (await call('/asaas/v3/financialTransactions', { headers: auth })).body.data;
    expect(rows.map((t: { type: string; value: number }) => [t.type, t.value])).toEqual([
      ['INTERNAL_TRANSFER_CREDIT', 10_000],
      ['PAYMENT_RECEIVED', 99.01],
      ['PAYMENT_REFUND', -20],
    ]);
  });

  it('makes static QR codes only on its own key, single-use ones only with a value', async () => {
    const keys = await call('/asaas/v3/pix/addressKeys?status=ACTIVE', { headers: auth });
    const key = keys.body.data[0].key as string;
    expect(keys.body).toMatchObject({ object: 'list', totalCount: 1, data: [{ type: 'EVP', status: 'ACTIVE' }] });
    expect((await call('/asaas/v3/pix/qrCodes/static', { headers: auth, body: {} })).status).toBe(400);
    expect(
      (await call('/asaas/v3/pix/qrCodes/static', { headers: auth, body: { addressKey: 'someone@else.com' } })).status,
    ).toBe(400);
    expect(
      (
        await call('/asaas/v3/pix/qrCodes/static', {
          headers: auth,
          body: { addressKey: key, allowsMultiplePayments: false },
        })
      ).status,
    ).toBe(400);
    const qr = await call('/asaas/v3/pix/qrCodes/static', {
      headers: auth,
      body: { addressKey: key, value: 12.5, format: 'PAYLOAD', expirationSeconds: 600 },
    });
    expect(qr.status).toBe(200);
    expect(qr.body).toMatchObject({
      allowsMultiplePayments: true,
      encodedImage: '',
      expirationDate: expect.any(String),
    });
    expect(qr.body.payload).toContain(key);
    expect(qr.body.payload).toContain('540512.50');
  });

  it('answers injected faults on the new routes in its own error shape, creating nothing', async () => {
    sandbox.control.addFault({ provider: 'asaas', route: 'create_transfer', mode: '5xx', times: 1 });
    const r = await call('/asaas/v3/transfers', { headers: { ...auth, 'idempotency-key': 't-2' }, body: transfer });
    expect(r).toMatchObject({ status: 500, body: { errors: [expect.any(Object)] } });
    const retry = await call('/asaas/v3/transfers', { headers: { ...auth, 'idempotency-key': 't-2' }, body: transfer });
    expect(retry.status).toBe(200);
    expect(sandbox.control.counters().created.asaas).toEqual({ transfers: 1 });
  });
});

describe('Banco Inter: Pix payments', () => {
  it('issues tokens at /oauth/v2/token only, and refuses calls without one', async () => {
    expect((await token('/inter/oauth/token', 'sandbox-inter-client', 'sandbox-inter-secret')).status).toBe(401);
    const ok = await token('/inter/oauth/v2/token', 'sandbox-inter-client', 'sandbox-inter-secret');
    expect(ok.status).toBe(200);
    expect((await call('/inter/banking/v2/saldo')).body).toMatchObject({
      title: expect.any(String),
      detail: expect.any(String),
    });
  });

  it('validates the payment, debits the balance, schedules future dates and filters the statement', async () => {
    const access = (
      (await (await token('/inter/oauth/v2/token', 'sandbox-inter-client', 'sandbox-inter-secret')).json()) as {
        access_token: string;
      }
    ).access_token;
    const auth = { authorization: `Bearer ${access}` };
    const bad = await call('/inter/banking/v2/pix', {
      headers: auth,
      body: { valor: 10, destinatario: { tipo: 'CHAVE', chave: 'not a key' } },
    });
    expect(bad).toMatchObject({ status: 400, body: { violacoes: [{ propriedade: 'destinatario.chave' }] } });
    const broke = await call('/inter/banking/v2/pix', {
      headers: auth,
      body: { valor: 60_000, destinatario: { tipo: 'CHAVE', chave: '12345678909' } },
    });
    expect(broke.status).toBe(422);

    const now = await call('/inter/banking/v2/pix', {
      headers: { ...auth, 'x-id-idempotente': 'p-1' },
      body: { valor: 10.5, destinatario: { tipo: 'CHAVE', chave: '12345678909' } },
    });
    expect(now.body).toMatchObject({ tipoRetorno: 'PROCESSADO', codigoSolicitacao: expect.any(String) });
    const later = await call('/inter/banking/v2/pix', {
      headers: auth,
      body: { valor: 20, dataPagamento: '2099-01-01', destinatario: { tipo: 'CHAVE', chave: 'ana@example.com' } },
    });
    expect(later.body.tipoRetorno).toBe('AGENDADO');
    expect(
      (await call(`/inter/banking/v2/pix/${later.body.codigoSolicitacao}`, { headers: auth })).body.transacaoPix.status,
    ).toBe('AGENDADO');
    expect((await call('/inter/banking/v2/saldo', { headers: auth })).body.disponivel).toBe(49_989.5);

    const today = new Date().toISOString().slice(0, 10);
    const statement = await call(`/inter/banking/v2/extrato?dataInicio=${today}&dataFim=${today}`, { headers: auth });
    expect(
      statement.body.transacoes.map((t: { tipoOperacao: string; valor: string }) => `${t.tipoOperacao} ${t.valor}`),
    ).toEqual(['C 50000.00', 'D 10.50']);
    expect(
      (await call('/inter/banking/v2/extrato?dataInicio=2020-01-02&dataFim=2020-01-01', { headers: auth })).status,
    ).toBe(400);
    expect(sandbox.control.counters().created.inter).toEqual({ transfers: 2 });
  });
});

describe('Mercado Pago: Checkout Pro preferences', () => {
  it('checks items and payment types, and reads a preference back', async () => {
    const access = (
      (await (await token('/mercadopago/oauth/token', 'sandbox-mp-client', 'sandbox-mp-secret')).json()) as {
        access_token: string;
      }
    ).access_token;
    const auth = { authorization: `Bearer ${access}` };
    expect((await call('/mercadopago/checkout/preferences', { headers: auth, body: { items: [] } })).status).toBe(400);
    const mixed = await call('/mercadopago/checkout/preferences', {
      headers: auth,
      body: {
        items: [
          { title: 'a', quantity: 1, unit_price: 1, currency_id: 'BRL' },
          { title: 'b', quantity: 1, unit_price: 1, currency_id: 'ARS' },
        ],
      },
    });
    expect(mixed.status).toBe(400);
    const created = await call('/mercadopago/checkout/preferences', {
      headers: auth,
      body: {
        items: [{ title: 'Camiseta', quantity: 1, unit_price: 59.9 }],
        payment_methods: { excluded_payment_types: [{ id: 'ticket' }] },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      items: [{ currency_id: 'BRL' }],
      payment_methods: { excluded_payment_types: [{ id: 'ticket' }] },
    });
    expect(created.body.init_point).toContain(created.body.id);
    expect((await call(`/mercadopago/checkout/preferences/${created.body.id}`, { headers: auth })).body.id).toBe(
      created.body.id,
    );
    expect(sandbox.control.counters().created.mercadopago).toEqual({ checkouts: 1 });
  });
});

describe('Melhor Envio: order search', () => {
  it('needs q and finds an order by id or protocol', async () => {
    const access = (
      (await (await token('/melhorenvio/oauth/token', 'sandbox-me-client', 'sandbox-me-secret')).json()) as {
        access_token: string;
      }
    ).access_token;
    const auth = { authorization: `Bearer ${access}` };
    expect((await call('/melhorenvio/api/v2/me/orders/search', { headers: auth })).status).toBe(422);
    const order = await call('/melhorenvio/api/v2/me/cart', {
      headers: auth,
      body: {
        service: 1,
        from: { postal_code: '01310100' },
        to: { postal_code: '20040002' },
        volumes: [{ weight: 1, height: 2, width: 11, length: 16 }],
      },
    });
    for (const q of [order.body.id, order.body.protocol]) {
      const found = await call(`/melhorenvio/api/v2/me/orders/search?q=${encodeURIComponent(q)}`, { headers: auth });
      expect(found.body).toEqual([
        expect.objectContaining({ id: order.body.id, status: 'pending', posted_at: null, delivered_at: null }),
      ]);
    }
    expect((await call('/melhorenvio/api/v2/me/orders/search?q=nothing', { headers: auth })).body).toEqual([]);
  });
});
