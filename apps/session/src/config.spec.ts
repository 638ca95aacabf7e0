import { loadConfig } from '@rota/service-kit';
import { SessionConfig } from './config';

describe('SessionConfig', () => {
  it('takes the test-only pause point outside production, and refuses to start with it when NODE_ENV=production', () => {
    expect(loadConfig(SessionConfig, {}).ROTA_TEST_PAUSE_AFTER_CLAIM_MS).toBe(0);
    expect(
      loadConfig(SessionConfig, { NODE_ENV: 'test', ROTA_TEST_PAUSE_AFTER_CLAIM_MS: '7000' })
        .ROTA_TEST_PAUSE_AFTER_CLAIM_MS,
    ).toBe(7000);
    expect(loadConfig(SessionConfig, { NODE_ENV: 'production' }).ROTA_TEST_PAUSE_AFTER_CLAIM_MS).toBe(0);
    expect(() => loadConfig(SessionConfig, { NODE_ENV: 'production', ROTA_TEST_PAUSE_AFTER_CLAIM_MS: '7000' })).toThrow(
      /ROTA_TEST_PAUSE_AFTER_CLAIM_MS: .*refused when NODE_ENV=production/,
    );
  });
});
