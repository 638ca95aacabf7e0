import { API_KEY_PATTERN } from '@rota/contracts';
import { createHash } from 'node:crypto';
import { API_KEY_PREFIX_LENGTH, generateApiKey, hashApiKey, unknownScopes } from './api-keys';
import { newId, randomBase62 } from './ids';

describe('generateApiKey', () => {
  it.each(['live', 'test'] as const)('makes %s keys that match the contract pattern', (env) => {
    const key = generateApiKey(env);
    expect(key).toMatch(new RegExp(`^csk_${env}_[A-Za-z0-9]{32}$`));
    expect(key).toMatch(API_KEY_PATTERN);
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey('live')));
    expect(keys.size).toBe(2000);
  });

  it('shows 12 characters as the display prefix', () => {
    expect(generateApiKey('test').slice(0, API_KEY_PREFIX_LENGTH)).toMatch(/^csk_test_[A-Za-z0-9]{3}$/);
  });
});

describe('hashApiKey', () => {
  it('is the sha256 hex of the whole key', () => {
    const key = 'csk_live_abcdefghijklmnopqrstuvwxyz012345';
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('unknownScopes', () => {
  it('lists names that are not scopes', () => {
    expect(unknownScopes(['servers:read', 'nope', 'tools:execute', 'x'])).toEqual(['nope', 'x']);
    expect(unknownScopes([])).toEqual([]);
  });
});

describe('randomBase62 / newId', () => {
  it('draws every base62 character and nothing else', () => {
    const s = randomBase62(20_000);
    expect(s).toHaveLength(20_000);
    expect(s).toMatch(/^[A-Za-z0-9]+$/);
    expect(new Set(s).size).toBe(62);
  });

  it('prefixes ids with their type', () => {
    expect(newId('ses')).toMatch(/^ses_[A-Za-z0-9]{24}$/);
    expect(newId('tc', 10)).toMatch(/^tc_[A-Za-z0-9]{10}$/);
  });
});
