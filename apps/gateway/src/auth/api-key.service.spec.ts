import type { ApiKeyPrincipal, ApiKeyRepository } from '@rota/db';
import type { GatewayConfig } from '../config';
import { ApiKeyService } from './api-key.service';

const KEY = `csk_live_${'a'.repeat(32)}`;

/** The repository edge: answers one stored key and counts the lookups. */
function service(found: ApiKeyPrincipal | null, cacheMs = 1000) {
  const calls = { n: 0 };
  const repo = {
    findActiveByKey: () => {
      calls.n++;
      return Promise.resolve(found);
    },
  } as unknown as ApiKeyRepository;
  return { svc: new ApiKeyService(repo, { ROTA_AUTH_CACHE_MS: cacheMs } as GatewayConfig), calls };
}

describe('ApiKeyService', () => {
  afterEach(() => jest.useRealTimers());

  it('carries a child key’s expiry and bindings into the principal', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const { svc } = service({
      id: 'key_c',
      projectId: 'proj_dev',
      orgId: 'org_dev',
      environment: 'live',
      scopes: ['tools:execute'],
      expiresAt,
      sessionId: 'ses_1',
      userId: 'user_1',
      parentId: 'key_p',
    });
    await expect(svc.verify(`Bearer ${KEY}`)).resolves.toEqual({
      kind: 'project',
      keyId: 'key_c',
      orgId: 'org_dev',
      projectId: 'proj_dev',
      environment: 'live',
      scopes: ['tools:execute'],
      expiresAt: expiresAt.getTime(),
      sessionId: 'ses_1',
      userId: 'user_1',
      parentId: 'key_p',
    });
  });

  it('never answers from the cache past a key’s expiry', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { svc, calls } = service({
      id: 'key_c',
      projectId: 'proj_dev',
      orgId: 'org_dev',
      environment: 'live',
      scopes: [],
      expiresAt: new Date(1_000_300),
    });
    expect(await svc.verify(`Bearer ${KEY}`)).not.toBeNull();
    // Within both the cache time and the key's life: the cached answer.
    jest.setSystemTime(1_000_200);
    expect(svc.verify(`Bearer ${KEY}`)).not.toBeNull();
    expect(svc.cachedPrincipal(`Bearer ${KEY}`)).toBeDefined();
    expect(calls.n).toBe(1);
    // Past the key's expiry, well inside the 1 s cache time: not trusted any more.
    jest.setSystemTime(1_000_301);
    expect(svc.cachedPrincipal(`Bearer ${KEY}`)).toBeUndefined();
    // The repository still answering the row (a clock ahead of the database's) is not enough either.
    await expect(svc.verify(`Bearer ${KEY}`)).resolves.toBeNull();
    expect(calls.n).toBe(2);
  });

  it('caps an operator key with an expiry the same way', async () => {
    jest.useFakeTimers({ now: 2_000_000 });
    const { svc } = service({
      id: 'key_o',
      projectId: null,
      orgId: null,
      environment: null,
      scopes: ['admin'],
      expiresAt: new Date(2_000_100),
    });
    expect(await svc.verify(`Bearer ${KEY}`)).toMatchObject({ kind: 'operator', expiresAt: 2_000_100 });
    jest.setSystemTime(2_000_101);
    expect(svc.cachedPrincipal(`Bearer ${KEY}`)).toBeUndefined();
  });
});
