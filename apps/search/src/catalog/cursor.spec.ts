import { AppError } from '@rota/contracts';
import { decodeCursor, encodeCursor } from './cursor';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const id = '0b7c9a52-6f3e-4c1d-9a8b-2e5f6d7c8b9a';

function refusal(token: string): AppError {
  try {
    decodeCursor(token, { n: 'text', i: 'uuid' });
  } catch (err) {
    return err as AppError;
  }
  throw new Error(`cursor ${token} was accepted`);
}

describe('paging cursors', () => {
  it('reads back what it wrote, field by field', () => {
    expect(decodeCursor(encodeCursor({ n: 'pay \u{1F4B8}', i: id }), { n: 'text', i: 'uuid' })).toEqual({
      n: 'pay \u{1F4B8}',
      i: id,
    });
    expect(decodeCursor(encodeCursor({ a: 'acme' }), { a: 'text' })).toEqual({ a: 'acme' });
  });

  it('keeps only the declared fields', () => {
    expect(decodeCursor(b64(JSON.stringify({ a: 'acme', extra: { deep: 1 } })), { a: 'text' })).toEqual({ a: 'acme' });
  });

  it.each([
    ['not base64url JSON', '!!!'],
    ['empty', ''],
    ['JSON null', b64('null')],
    ['a JSON string', b64('"abc"')],
    ['a JSON array', b64(JSON.stringify(['x', id]))],
    ['a missing field', b64(JSON.stringify({ n: 'x' }))],
    ['a number where text belongs', b64(JSON.stringify({ n: 1, i: id }))],
    ['an id that is not a uuid', b64(JSON.stringify({ n: 'x', i: "1' OR '1'='1" }))],
    ['an id with a uuid inside it', b64(JSON.stringify({ n: 'x', i: `${id}x` }))],
    ['a NUL in the text', b64(JSON.stringify({ n: 'x\u0000', i: id }))],
    ['a lone surrogate in the text', b64('{"n":"x\\ud800","i":"' + id + '"}')],
    ['truncated JSON', b64('{"n":"x","i":')],
  ])('refuses %s with 400 invalid_query', (_name, token) => {
    const err = refusal(token);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('invalid_query');
    expect(err.details).toEqual({
      issues: [{ path: ['cursor'], message: 'not a cursor returned by this route', code: 'custom' }],
    });
  });
});
