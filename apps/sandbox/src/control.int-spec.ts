import { ASAAS_SANDBOX_CUSTOMER, startSandbox, type Sandbox } from './index';

/** Idempotency keys, injected faults and the counters, through the HTTP control API. */

let sandbox: Sandbox;
const auth = () => ({ authorization: `Bearer ${sandbox.controlToken}` });
const ASAAS = { access_token: 'sandbox-asaas-key', 'content-type': 'application/json' };
const charge = (value = 50) =>
  JSON.stringify({ customer: ASAAS_SANDBOX_CUSTOMER, billingType: 'PIX', value, dueDate: '2099-01-01' });

async function post(path: string, body: string, headers: Record<string, string> = ASAAS, signal?: AbortSignal) {
  // The control API has its own listener and token; provider routes are on the main one.
  const control = path.startsWith('/_control');
  const url = `${control ? sandbox.controlUrl : sandbox.url}${path}`;
  const all = control ? { ...headers, authorization: `Bearer ${sandbox.controlToken}` } : headers;
  const res = await fetch(url, { method: 'POST', headers: all, body, ...(signal ? { signal } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : undefined };
}

async function fault(rule: Record<string, unknown>) {
  const res = await post('/_control/faults', JSON.stringify(rule), { 'content-type': 'application/json' });
  expect(res.status).toBe(201);
  return res.body;
}

async function counters() {
  return (await (await fetch(`${sandbox.controlUrl}/_control/counters`, { headers: auth() })).json()) as any;
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  expect((await post('/_control/reset', '', {})).status).toBe(200);
});

describe('idempotency', () => {
  it('started to ignore idempotency keys, runs a repeat again and counts both requests under the key; a lookup finds the last', async () => {
    const own = await startSandbox({ port: 0, ignoreIdempotencyKeys: true });
    try {
      const send = () =>
        fetch(`${own.url}/asaas/v3/payments`, {
          method: 'POST',
          headers: { ...ASAAS, 'idempotency-key': 'twice' },
          body: charge(33.33),
        }).then(async (r) => ({
          status: r.status,
          replayed: r.headers.get('idempotent-replayed'),
          body: (await r.json()) as any,
        }));
      const first = await send();
      const second = await send();
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.replayed).toBeNull();
      expect(second.body.id).not.toBe(first.body.id);
      const c = own.control.counters();
      expect(c.charges_created).toBe(2);
      expect(c.keyed_requests).toEqual({ asaas: { twice: 2 } });
      const found = await fetch(`${own.url}/asaas/v3/payments/idempotency/twice`, { headers: ASAAS });
      expect(found.status).toBe(200);
      expect(((await found.json()) as any).id).toBe(second.body.id);
    } finally {
      await own.close();
    }
  });

  it('replays the first answer for the same key and body, creating nothing more', async () => {
    const headers = { ...ASAAS, 'idempotency-key': 'order-7' };
    const first = await post('/asaas/v3/payments', charge(), headers);
    const second = await post('/asaas/v3/payments', charge(), headers);
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const c = await counters();
    expect(c.charges_created).toBe(1);
    expect(c.idempotent_replays).toBe(1);
    expect(c.requests.asaas.create_payment).toBe(2);
    expect(c.last_idempotency_key).toEqual({ asaas: 'order-7' });
    expect(c.keyed_requests).toEqual({ asaas: { 'order-7': 2 } });
  });

  it('answers 409 for the same key with a different body (Mercado Pago reads X-Idempotency-Key)', async () => {
    const headers = { ...ASAAS, 'idempotency-key': 'order-8' };
    await post('/asaas/v3/payments', charge(50), headers);
    const reused = await post('/asaas/v3/payments', charge(60), headers);
    expect(reused.status).toBe(409);
    expect(reused.body.errors[0].code).toBe('idempotency_key_reused');

    const token = await post(
      '/mercadopago/oauth/token',
      'grant_type=client_credentials&client_id=sandbox-mp-client&client_secret=sandbox-mp-secret',
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    const mp = {
      authorization: `Bearer ${token.body.access_token}`,
      'content-type': 'application/json',
      'x-idempotency-key': 'mp-1',
    };
    const pay = (amount: number) =>
      JSON.stringify({ transaction_amount: amount, payment_method_id: 'pix', payer: { email: 'a@b.co' } });
    const a = await post('/mercadopago/v1/payments', pay(10), mp);
    const b = await post('/mercadopago/v1/payments', pay(10), mp);
    expect(b.body.id).toBe(a.body.id);
    const c = await post('/mercadopago/v1/payments', pay(11), mp);
    expect(c.status).toBe(409);
    expect(c.body).toMatchObject({ error: 'idempotency_key_reused', status: 409 });
    const n = await counters();
    expect(n.charges_created).toBe(2);
    expect(n.idempotency_conflicts).toBe(2);
  });

  it("treats Focus NFe's ref as its key: a repeat replays, a different invoice under it is 422", async () => {
    const nfse = {
      authorization: `Basic ${Buffer.from('sandbox-nfse-token:').toString('base64')}`,
      'content-type': 'application/json',
    };
    const invoice = (valor: number) =>
      JSON.stringify({
        prestador: { cnpj: '12345678000195' },
        tomador: { cnpj: '98765432000110' },
        servico: { valor_servicos: valor, discriminacao: 'Serviço' },
      });
    expect((await post('/nfse/v2/nfse?ref=r1', invoice(100), nfse)).status).toBe(202);
    const again = await post('/nfse/v2/nfse?ref=r1', invoice(100), nfse);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await post('/nfse/v2/nfse?ref=r1', invoice(200), nfse);
    expect(other.status).toBe(422);
    expect((await counters()).created.nfse).toEqual({ invoices: 1 });
  });

  it('does not keep a key whose request was refused, so the corrected request runs', async () => {
    const headers = { ...ASAAS, 'idempotency-key': 'order-9' };
    expect((await post('/asaas/v3/payments', charge(1), headers)).status).toBe(400);
    expect((await post('/asaas/v3/payments', charge(50), headers)).status).toBe(200);
    expect((await counters()).charges_created).toBe(1);
  });
});

describe('faults', () => {
  it('5xx for the given number of requests on one route, in the provider shape', async () => {
    const armed = await fault({ provider: 'asaas', route: 'create_payment', mode: '5xx', status: 503, times: 2 });
    expect(armed).toMatchObject({ id: expect.any(String), mode: '5xx', times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await post('/asaas/v3/payments', charge(), { ...ASAAS, 'idempotency-key': 'k' })).status);
    expect(statuses).toEqual([503, 503, 200]);
    const c = await counters();
    // The failed attempts created nothing and did not hold the key.
    expect(c.charges_created).toBe(1);
    expect(c.faults_applied).toEqual({ asaas: { '5xx': 2 } });
  });

  it('429 with Retry-After', async () => {
    await fault({ provider: 'asaas', mode: '429', retry_after: 7, times: 1 });
    const res = await post('/asaas/v3/payments', charge());
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.body.errors).toHaveLength(1);
  });

  it('refuse resets the connection without an answer', async () => {
    await fault({ provider: 'asaas', mode: 'refuse', times: 1 });
    await expect(post('/asaas/v3/payments', charge())).rejects.toThrow();
    expect((await post('/asaas/v3/payments', charge())).status).toBe(200);
    expect((await counters()).charges_created).toBe(1);
  });

  it('timeout_after_accept runs the request and withholds the answer; the same key then replays it', async () => {
    await fault({ provider: 'asaas', route: 'create_payment', mode: 'timeout_after_accept', times: 1 });
    const headers = { ...ASAAS, 'idempotency-key': 'lost-answer' };
    await expect(post('/asaas/v3/payments', charge(), headers, AbortSignal.timeout(300))).rejects.toThrow();
    expect((await counters()).charges_created).toBe(1);
    const retry = await post('/asaas/v3/payments', charge(), headers);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await counters()).charges_created).toBe(1);
  });

  it('timeout_after_accept with commit false hangs before anything runs', async () => {
    await fault({ provider: 'asaas', mode: 'timeout_after_accept', commit: false, times: 1 });
    await expect(post('/asaas/v3/payments', charge(), ASAAS, AbortSignal.timeout(300))).rejects.toThrow();
    expect((await counters()).charges_created).toBe(0);
  });

  it('slow answers normally after its delay, and outlasts a short client deadline', async () => {
    await fault({ provider: 'asaas', mode: 'slow', delay_ms: 30_000, times: 1 });
    await expect(post('/asaas/v3/payments', charge(), ASAAS, AbortSignal.timeout(300))).rejects.toThrow();
    await fault({ provider: 'asaas', mode: 'slow', delay_ms: 50, times: 1 });
    expect((await post('/asaas/v3/payments', charge())).status).toBe(200);
    expect((await counters()).faults_applied.asaas.slow).toBe(2);
  });

  it('can fail the token endpoint, a whole prefix or every prefix, and be cleared', async () => {
    await fault({ provider: 'mercadopago', route: 'oauth_token', mode: '5xx' });
    const token = await post(
      '/mercadopago/oauth/token',
      'grant_type=client_credentials&client_id=sandbox-mp-client&client_secret=sandbox-mp-secret',
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    expect(token.status).toBe(500);
    await fault({ provider: '*', mode: '5xx', status: 502 });
    expect((await post('/asaas/v3/payments', charge())).status).toBe(502);
    const list = (await (await fetch(`${sandbox.controlUrl}/_control/faults`, { headers: auth() })).json()) as {
      faults: unknown[];
    };
    expect(list.faults).toHaveLength(2);
    expect((await fetch(`${sandbox.controlUrl}/_control/faults`, { method: 'DELETE', headers: auth() })).status).toBe(
      200,
    );
    expect((await post('/asaas/v3/payments', charge())).status).toBe(200);
  });

  it('rejects a malformed rule', async () => {
    const bad = await post('/_control/faults', JSON.stringify({ provider: 'nowhere', mode: '5xx' }), {
      'content-type': 'application/json',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_fault');
    const mode = await post('/_control/faults', JSON.stringify({ provider: 'asaas', mode: 'explode' }), {
      'content-type': 'application/json',
    });
    expect(mode.status).toBe(400);
  });
});

it('reset forgets counters, data, keys and tokens', async () => {
  const created = await post('/asaas/v3/payments', charge(), { ...ASAAS, 'idempotency-key': 'r' });
  await post('/_control/reset', '', {});
  const c = await counters();
  expect(c.requests_total).toBe(0);
  expect(c.charges_created).toBe(0);
  const gone = await fetch(`${sandbox.url}/asaas/v3/payments/${created.body.id}`, { headers: ASAAS });
  expect(gone.status).toBe(404);
  // The key is free again: the same request creates a new charge.
  expect(
    (await post('/asaas/v3/payments', charge(), { ...ASAAS, 'idempotency-key': 'r' })).headers.get(
      'idempotent-replayed',
    ),
  ).toBeNull();
});

describe('control API isolation', () => {
  it("is not served on the providers' port, and asks for its token on its own", async () => {
    for (const path of ['/_control/counters', '/_control/faults', '/_control', '/_control/reset']) {
      const res = await fetch(`${sandbox.url}${path}`, {
        method: path.endsWith('reset') ? 'POST' : 'GET',
        headers: auth(),
      });
      expect(res.status).toBe(404);
    }
    expect(sandbox.controlUrl).not.toBe(sandbox.url);
    const none = await fetch(`${sandbox.controlUrl}/_control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: '*', mode: '5xx' }),
    });
    expect(none.status).toBe(401);
    const wrong = await fetch(`${sandbox.controlUrl}/_control/counters`, {
      headers: { authorization: `Bearer ${sandbox.controlToken}x` },
    });
    expect(wrong.status).toBe(401);
    // Nothing was armed by the refused requests.
    expect((await post('/asaas/v3/payments', charge())).status).toBe(200);
  });
});

describe('tenants', () => {
  const as = (tenant: string, extra: Record<string, string> = {}) => ({
    ...ASAAS,
    'x-rota-sandbox-tenant': tenant,
    ...extra,
  });

  it("keeps each tenant's charges and idempotency keys apart", async () => {
    const a = await post('/asaas/v3/payments', charge(), as('tenant-a', { 'idempotency-key': 'same' }));
    expect(a.status).toBe(200);
    // Another tenant cannot read it, nor does the shared space hold it.
    expect((await fetch(`${sandbox.url}/asaas/v3/payments/${a.body.id}`, { headers: as('tenant-b') })).status).toBe(
      404,
    );
    expect((await fetch(`${sandbox.url}/asaas/v3/payments/${a.body.id}`, { headers: ASAAS })).status).toBe(404);
    expect((await fetch(`${sandbox.url}/asaas/v3/payments/${a.body.id}`, { headers: as('tenant-a') })).status).toBe(
      200,
    );
    // The same key under another tenant is a new request, not a replay of tenant-a's answer.
    const b = await post('/asaas/v3/payments', charge(), as('tenant-b', { 'idempotency-key': 'same' }));
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
    // The operator's control API still reaches every tenant's charge.
    expect((await post(`/_control/providers/asaas/payments/${a.body.id}/pay`, '', {})).status).toBe(200);
  });

  it('refuses a malformed tenant tag', async () => {
    expect((await post('/asaas/v3/payments', charge(), as('a b'))).status).toBe(400);
  });
});
