import { Webhook } from 'standardwebhooks';
import { signWebhook, verifyWebhook, WebhookVerificationError } from './webhooks';

// The reference library signs and checks; ours must agree on every case.
describe('verifyWebhook against the standardwebhooks package', () => {
  const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const other = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
  const body = '{"type":"call.completed","data":{"amount":"49.90","note":"cobrança ✓"}}';
  const at = new Date('2026-12-06T03:00:00Z');
  const ts = Math.floor(at.getTime() / 1000);
  const signed = new Webhook(secret).sign('msg_1', at, body);
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signed };

  const reference = (b: string, h: Record<string, string>): boolean => {
    const real = Date.now;
    Date.now = () => at.getTime();
    try {
      new Webhook(secret).verify(b, h);
      return true;
    } catch {
      return false;
    } finally {
      Date.now = real;
    }
  };
  const ours = (b: string | Uint8Array, h: Record<string, string> | Headers): boolean => {
    try {
      verifyWebhook(secret, b, h, { now: at });
      return true;
    } catch (err) {
      expect(err).toBeInstanceOf(WebhookVerificationError);
      return false;
    }
  };

  it('writes the same signature', () => {
    expect(signWebhook(secret, 'msg_1', ts, body)).toBe(signed);
  });

  it.each([
    ['valid', body, headers],
    [
      'several signatures, one valid',
      body,
      { ...headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${signed}` },
    ],
    ['body changed', body.replace('49.90', '49.91'), headers],
    ['another secret', body, { ...headers, 'webhook-signature': new Webhook(other).sign('msg_1', at, body) }],
    ['id changed', body, { ...headers, 'webhook-id': 'msg_2' }],
    ['timestamp changed', body, { ...headers, 'webhook-timestamp': String(ts + 1) }],
    [
      'too old',
      body,
      {
        ...headers,
        'webhook-timestamp': String(ts - 301),
        'webhook-signature': new Webhook(secret).sign('msg_1', new Date((ts - 301) * 1000), body),
      },
    ],
  ])('%s: the same verdict as the reference', (_name, b, h) => {
    expect(ours(b, h)).toBe(reference(b, h));
  });

  it('answers the parsed body, from bytes or a Headers object too', () => {
    expect(verifyWebhook(secret, Buffer.from(body), new Headers(headers), { now: at })).toEqual(JSON.parse(body));
    expect(() => verifyWebhook(secret, body, { 'webhook-id': 'msg_1' }, { now: at })).toThrow(
      'missing header webhook-timestamp',
    );
  });
});
