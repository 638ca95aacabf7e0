import { createHmac } from 'node:crypto';
import { newWebhookSecret, SecretBox, signWebhook, verifyWebhook } from './signing';

describe('webhook signing', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

  it('signs id.timestamp.body with the secret’s bytes, as Standard Webhooks does', () => {
    const body = '{"type":"system.health.degraded"}';
    const expected = createHmac('sha256', Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'))
      .update(`evt_1.1700000000.${body}`)
      .digest('base64');
    expect(signWebhook(secret, 'evt_1', 1700000000, body)).toBe(`v1,${expected}`);
  });

  it('verifies a signature, refuses a changed body, another secret and an old timestamp', () => {
    const now = 1_700_000_000_000;
    const ts = now / 1000;
    const signature = signWebhook(secret, 'evt_1', ts, 'body');
    const headers = { id: 'evt_1', timestamp: String(ts), signature: `v1,bm9wZQ== ${signature}` };
    expect(verifyWebhook(secret, headers, 'body', { now })).toBe(true);
    expect(verifyWebhook(secret, headers, 'body!', { now })).toBe(false);
    expect(verifyWebhook(newWebhookSecret(), headers, 'body', { now })).toBe(false);
    expect(verifyWebhook(secret, headers, 'body', { now: now + 301_000 })).toBe(false);
  });

  it('seals a secret bound to its subscription', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const sealed = box.seal(secret, 'whk_a');
    expect(sealed.toString('utf8')).not.toContain('MfKQ9r8');
    expect(box.open(sealed, 'whk_a')).toBe(secret);
    expect(() => box.open(sealed, 'whk_b')).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, 'whk_a')).toThrow();
  });
});
