import { isIsoCurrency } from '@rota/contracts';
import { findMoney, parseNumber } from './money';

const isCode = (c: string) => isIsoCurrency(c);

describe('parseNumber', () => {
  it.each([
    ['49,90', 49.9],
    ['49.90', 49.9],
    ['1.200,50', 1200.5],
    ['1,200.50', 1200.5],
    ['1.200', 1200],
    ['1,200', 1200],
    ['15.000', 15000],
    ['1.234.567,89', 1234567.89],
    ['1,5', 1.5],
    ['100', 100],
  ])('%s → %d', (text, n) => {
    expect(parseNumber(text)).toBe(n);
  });
});

describe('findMoney', () => {
  it.each([
    ['cobrar R$ 49,90 via pix', { amount: 49.9, currency: 'BRL' }],
    ['R$49', { amount: 49, currency: 'BRL' }],
    ['pagar $1.200,50', { amount: 1200.5, currency: null, ambiguous: 'dollar_sign' }],
    ['charge 49.90 USD', { amount: 49.9, currency: 'USD' }],
    ['charge USD 49.90', { amount: 49.9, currency: 'USD' }],
    ['2 mil reais', { amount: 2000, currency: 'BRL' }],
    ['S/ 150 con Yape', { amount: 150, currency: 'PEN' }],
    ['€20 to Spain', { amount: 20, currency: 'EUR' }],
    ['15.000 pesos chilenos', { amount: 15000, currency: 'CLP' }],
    ['500 pesos', { amount: 500, currency: null, ambiguous: 'pesos' }],
    ['US$ 10', { amount: 10, currency: 'USD' }],
  ])('%s', (text, expected) => {
    expect(findMoney(text, isCode)).toEqual(expected);
  });

  it('ignores numbers that are not money', () => {
    expect(findMoney('send 3 parcels of 2 kg to 2 customers', isCode)).toBeNull();
    expect(findMoney('CPF 123.456.789-09', isCode)).toBeNull();
  });

  it('reads three letters as a currency only when the caller says they are one', () => {
    expect(findMoney('pay all 3 suppliers', () => false)).toBeNull();
  });
});
