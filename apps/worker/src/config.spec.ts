import { loadConfig } from '@rota/service-kit';
import { WorkerConfig } from './config';

describe('WorkerConfig', () => {
  const allowPrivate = (env: Record<string, string>) => loadConfig(WorkerConfig, env).ROTA_WEBHOOK_ALLOW_PRIVATE;

  it('keeps webhooks off private addresses unless ROTA_WEBHOOKS_ALLOW_PRIVATE, or its earlier name, turns it on', () => {
    expect(allowPrivate({})).toBe(false);
    expect(allowPrivate({ ROTA_WEBHOOKS_ALLOW_PRIVATE: '' })).toBe(false);
    expect(allowPrivate({ ROTA_WEBHOOKS_ALLOW_PRIVATE: 'true' })).toBe(true);
    expect(allowPrivate({ ROTA_WEBHOOKS_ALLOW_PRIVATE: '1' })).toBe(true);
    expect(allowPrivate({ ROTA_WEBHOOKS_ALLOW_PRIVATE: 'false' })).toBe(false);
    expect(allowPrivate({ ROTA_WEBHOOK_ALLOW_PRIVATE: 'true' })).toBe(true);
    expect(allowPrivate({ ROTA_WEBHOOKS_ALLOW_PRIVATE: 'true', ROTA_WEBHOOK_ALLOW_PRIVATE: '1' })).toBe(true);
    expect(allowPrivate({ ROTA_WEBHOOKS_ALLOW_PRIVATE: 'false', ROTA_WEBHOOK_ALLOW_PRIVATE: '' })).toBe(false);
  });

  it('refuses to start when the two names disagree, or on a value that is no switch', () => {
    expect(() => allowPrivate({ ROTA_WEBHOOKS_ALLOW_PRIVATE: 'false', ROTA_WEBHOOK_ALLOW_PRIVATE: 'true' })).toThrow(
      /ROTA_WEBHOOKS_ALLOW_PRIVATE: disagrees with ROTA_WEBHOOK_ALLOW_PRIVATE/,
    );
    expect(() => allowPrivate({ ROTA_WEBHOOKS_ALLOW_PRIVATE: 'yes' })).toThrow(/ROTA_WEBHOOKS_ALLOW_PRIVATE/);
  });
});
