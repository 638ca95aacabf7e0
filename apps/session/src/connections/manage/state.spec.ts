import { createHash, randomBytes } from 'node:crypto';
import { hashNonce, newNonce, pkcePair, signState, stateTenant, verifyState, type StatePayload } from './state';

describe('OAuth2 connect state', () => {
  const key = randomBytes(32);
  const keys = (id: string) => (id === 'k1' ? key : null);
  const now = 1_800_000_000;
  const payload: StatePayload = {
    v: 1,
    c: 'cfl_1',
    n: newNonce(),
    o: 'org_a',
    p: 'proj_a',
    e: 'test',
    s: 'mercadopago',
    x: now + 900,
    k: 'k1',
  };

  it('verifies what it signed and names the tenant', () => {
    const checked = verifyState(signState(payload, key), keys, now);
    expect(checked).toEqual({ ok: true, payload });
    expect(stateTenant(payload)).toEqual({ org_id: 'org_a', project_id: 'proj_a', environment: 'test' });
  });

  it('refuses a payload rewritten to name another tenant, keeping the signature', () => {
    const [, sig] = signState(payload, key).split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, p: 'proj_b' })).toString('base64url');
    expect(verifyState(`${forged}.${sig}`, keys, now)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses another key, an unknown key id, an expired state and malformed text', () => {
    expect(verifyState(signState(payload, randomBytes(32)), keys, now)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyState(signState({ ...payload, k: 'gone' }, key), keys, now)).toEqual({
      ok: false,
      reason: 'unknown_key',
    });
    expect(verifyState(signState(payload, key), keys, payload.x)).toEqual({ ok: false, reason: 'expired' });
    for (const bad of ['', 'abc', 'a.b.c', 'not base64!.x', `${Buffer.from('[]').toString('base64url')}.AAAA`]) {
      expect(verifyState(bad, keys, now)).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('makes a fresh RFC 7636 S256 pair and distinct nonces, stored only as hashes', () => {
    const a = pkcePair();
    expect(a.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.challenge).toBe(createHash('sha256').update(a.verifier).digest('base64url'));
    expect(pkcePair().verifier).not.toBe(a.verifier);
    const n = newNonce();
    expect(n).not.toBe(newNonce());
    expect(hashNonce(n)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashNonce(n)).not.toContain(n);
  });
});
