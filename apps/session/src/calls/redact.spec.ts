import {
  isCnpj,
  isCpf,
  luhn,
  maskCredentialsInText,
  maskParameters,
  maskPersonalNumbers,
  REDACTED,
  redactSecrets,
} from './redact';

describe('check digits', () => {
  it('tells CPFs, CNPJs and card numbers from other digits', () => {
    expect(isCpf('52998224725')).toBe(true);
    expect(isCpf('12345678909')).toBe(true);
    expect(isCpf('12345678900')).toBe(false);
    expect(isCpf('11111111111')).toBe(false);
    expect(isCnpj('11222333000181')).toBe(true);
    expect(isCnpj('11222333000180')).toBe(false);
    expect(luhn('4111111111111111')).toBe(true);
    expect(luhn('4111111111111112')).toBe(false);
  });
});

describe('maskPersonalNumbers', () => {
  it('keeps the two check digits of formatted and bare CPFs and CNPJs', () => {
    expect(maskPersonalNumbers('cliente 529.982.247-25 pagou')).toBe('cliente ***.***.***-25 pagou');
    expect(maskPersonalNumbers('CNPJ 11.222.333/0001-81')).toBe('CNPJ **.***.***/****-81');
    expect(maskPersonalNumbers('doc 52998224725.')).toBe('doc *********25.');
    expect(maskPersonalNumbers('11222333000181')).toBe('************81');
  });

  it('keeps the last four digits of a card number, contiguous or grouped', () => {
    expect(maskPersonalNumbers('4111111111111111')).toBe('************1111');
    expect(maskPersonalNumbers('card 4111 1111 1111 1111 ok')).toBe('card **** **** **** 1111 ok');
    expect(maskPersonalNumbers('5555-5555-5555-4444')).toBe('****-****-****-4444');
    expect(maskPersonalNumbers('amex 3782 822463 10005')).toBe('amex **** ****** *0005');
  });

  it('leaves ids, amounts, timestamps and numbers that fail their check digits alone', () => {
    for (const text of [
      'pay_080225913252',
      '1733300000000',
      '12345678900',
      '4111111111111112',
      '2026-12-31T10:00:00Z',
      'R$ 15000,00',
      '+55 11 98765-4321',
    ]) {
      expect(maskPersonalNumbers(text)).toBe(text);
    }
  });
});

describe('maskParameters', () => {
  it('redacts credentials, masks document fields and personal numbers anywhere, and is idempotent', () => {
    const input = {
      amount: 15000,
      customer: {
        doc: '12345678900',
        name: 'Maria',
        cpfCnpj: 11222333000181,
        document: { type: 'CPF', number: '529.982.247-25' },
      },
      api_key: 'sk_live_abc',
      headers: { 'x-api-key': 'k', accept: 'application/json' },
      card: { holder: 'Maria', number: '4111 1111 1111 1111', cvv: '123' },
      note: 'cpf 529.982.247-25',
      payer_document: '123.456.789-00',
      list: [{ password: 'p' }, 52998224725],
    };
    const masked = maskParameters(input);
    expect(masked).toEqual({
      amount: 15000,
      customer: {
        doc: '*********00',
        name: 'Maria',
        cpfCnpj: '************81',
        document: { type: 'CPF', number: '***.***.***-25' },
      },
      api_key: REDACTED,
      headers: { 'x-api-key': REDACTED, accept: 'application/json' },
      card: { holder: 'Maria', number: '**** **** **** 1111', cvv: REDACTED },
      note: 'cpf ***.***.***-25',
      payer_document: '***.***.***-00',
      list: [{ password: REDACTED }, '*********25'],
    });
    expect(maskParameters(masked)).toEqual(masked);
    expect(JSON.stringify(masked)).not.toMatch(/12345678|52998224|1122233|41111111/);
  });

  it('honours secret flags in the schema, like redactSecrets', () => {
    const schema = {
      properties: { pin_code: { writeOnly: true }, nested: { properties: { x: { format: 'password' } } } },
    };
    const input = { pin_code: '1234', nested: { x: 'y', z: 'w' } };
    expect(maskParameters(input, schema)).toEqual({ pin_code: REDACTED, nested: { x: REDACTED, z: 'w' } });
    expect(redactSecrets(input, schema)).toEqual(maskParameters(input, schema));
  });
});

describe('maskCredentialsInText', () => {
  it('replaces Rota keys and bearer tokens pasted into text, and nothing else', () => {
    expect(maskCredentialsInText('use csk_live_AbC123_x-y please')).toBe(`use ${REDACTED} please`);
    expect(maskCredentialsInText('header was Authorization: Bearer eyJhbGciOi.J9.abc')).toBe(
      `header was Authorization: Bearer ${REDACTED}`,
    );
    for (const text of ['plano basic mensal', 'the bearer of this note', 'Bearer short', 'csk_other'])
      expect(maskCredentialsInText(text)).toBe(text);
    const once = maskCredentialsInText('k=csk_test_1234567890 Bearer abcdefghij');
    expect(maskCredentialsInText(once)).toBe(once);
  });

  it('applies inside parameters', () => {
    expect(maskParameters({ note: 'token csk_test_abcdef123 here', nested: ['bearer 0123456789abcdef'] })).toEqual({
      note: `token ${REDACTED} here`,
      nested: [`bearer ${REDACTED}`],
    });
  });
});
