import {
  answerClass,
  missingRequirement,
  providerMessage,
  providerRefusal,
  refusalReason,
  scrubMessage,
} from './refusal';

describe('provider refusals', () => {
  it('classes statuses: 401/403 credentials, 408/429/5xx upstream, other 4xx refused', () => {
    expect([200, 201, 400, 401, 403, 404, 408, 409, 422, 429, 500, 503].map(answerClass)).toEqual([
      'ok',
      'ok',
      'refused',
      'credentials',
      'credentials',
      'refused',
      'upstream',
      'refused',
      'refused',
      'upstream',
      'upstream',
      'upstream',
    ]);
  });

  // Error bodies in the shapes the sandbox models answer with (each provider's own).
  it.each([
    [
      'asaas minimum',
      { errors: [{ code: 'invalid_value', description: 'O valor mínimo para cobranças via Pix é R$ 5,00.' }] },
      'amount_below_minimum',
    ],
    [
      'mercadopago document',
      { message: 'Invalid payer identification number', error: 'bad_request', status: 400, cause: [{ code: 4000 }] },
      'invalid_document',
    ],
    [
      'inter balance',
      { title: 'Saldo insuficiente', detail: 'Saldo insuficiente para realizar o pagamento.' },
      'insufficient_funds',
    ],
    [
      'openpay duplicate',
      { category: 'request', error_code: 1008, description: 'The order_id has already been processed' },
      'duplicate',
    ],
    [
      'wompi method',
      {
        error: { type: 'INPUT_VALIDATION_ERROR', messages: { payment_method: ['The payment method is not enabled'] } },
      },
      'unsupported_method',
    ],
    [
      'culqi maximum',
      { object: 'error', type: 'invalid_request_error', user_message: 'El monto es mayor al máximo permitido.' },
      'amount_above_maximum',
    ],
    [
      'stp clabe',
      { resultado: { id: -11, descripcionError: 'Cuenta CLABE del beneficiario inválida' } },
      'invalid_recipient',
    ],
    ['unknown', { message: 'Something odd happened here' }, 'other'],
  ])('%s → %s', (_name, body, reason) => {
    expect(refusalReason(body, providerMessage(body))).toBe(reason);
  });

  it('finds the explanation, not the bare code', () => {
    expect(providerMessage({ error: 'bad_request', message: 'payer.email must be a valid email' })).toBe(
      'payer.email must be a valid email',
    );
    expect(providerMessage({ errors: [{ code: 'x', description: 'O CPF informado é inválido.' }] })).toBe(
      'O CPF informado é inválido.',
    );
    expect(providerMessage({ error: 'bad_request' })).toBeNull();
    expect(providerMessage(null)).toBeNull();
  });

  it('removes provider names, credentials and internal ids, keeping amounts', () => {
    const raw =
      'Mercado Pago: payment 1320000001 for customer cus_000005 (ref 3f2b8c1e-9d4a-4f6b-8e2a-1c3d5e7f9a0b) with key sk_test_abc123 refused by Asaas; minimum is R$ 5,00';
    const out = scrubMessage(raw, ['mercadopago', 'asaas'], ['sk_test_abc123']);
    expect(out).not.toMatch(/mercado|asaas|1320000001|cus_000005|3f2b8c1e|sk_test/i);
    expect(out).toContain('R$ 5,00');
    expect(out).toContain('the provider');
  });

  it('answers provider_refused with status, reason and the scrubbed words', () => {
    const r = providerRefusal(
      400,
      { errors: [{ description: 'Asaas: o valor mínimo é R$ 5,00 (cobrança pay_8f7a6c5d4b)' }] },
      ['asaas'],
      [],
    );
    expect(r).toEqual({
      code: 'provider_refused',
      reason: 'amount_below_minimum',
      upstream_status: 400,
      message: 'The provider refused the request (status 400): the provider: o valor mínimo é R$ 5,00 (cobrança [id])',
    });
    expect(providerRefusal(404, {}, [], []).message).toBe('The provider refused the request (status 404).');
  });

  it('finds the first unmet requirement over its accepted paths', () => {
    const req = [
      {
        field: 'buyer.document',
        any_of: ['buyer.document', 'buyer.cpf', 'buyer.cnpj'],
        description: 'the CPF or CNPJ',
      },
    ];
    expect(missingRequirement(req, { buyer: { name: 'x' } })?.field).toBe('buyer.document');
    expect(missingRequirement(req, { buyer: { document: '  ' } })?.field).toBe('buyer.document');
    expect(missingRequirement(req, { buyer: { cpf: '52998224725' } })).toBeNull();
    expect(missingRequirement(req, {})?.field).toBe('buyer.document');
    expect(missingRequirement([], {})).toBeNull();
  });
});
