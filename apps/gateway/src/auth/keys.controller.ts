import { Controller, Inject, Res } from '@nestjs/common';
import { AppError, ROUTES, type KeyCreated, type SessionRecord } from '@rota/contracts';
import { ApiKeyRepository } from '@rota/db';
import { CONFIG, LOGGER, REDIS, RpcClient, type Logger } from '@rota/service-kit';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { GatewayConfig } from '../config';
import { Input, Route, type In } from '../http/route';
import { Auth } from './decorators';
import type { Principal } from './principal';

/**
 * `POST /v1/keys`: short-lived child keys. The checks against the calling key
 * (scopes, binding) run here on the principal the pipeline verified; the
 * insert repeats them against the parent's row, so a parent revoked a moment
 * ago mints nothing.
 */
@Controller()
export class KeysController {
  private readonly limiter: RateLimiterRedis | null;
  private warned = 0;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly rpc: RpcClient,
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(REDIS) redis: Redis,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.limiter =
      config.ROTA_KEYS_MINT_PER_MIN > 0
        ? new RateLimiterRedis({
            storeClient: redis,
            keyPrefix: `${config.ROTA_REDIS_PREFIX}:key-mint`,
            points: config.ROTA_KEYS_MINT_PER_MIN,
            duration: 60,
            rejectIfRedisNotReady: true,
          })
        : null;
  }

  @Route(ROUTES.createKey)
  async create(
    @Auth() p: Principal,
    @Input() { body }: In<typeof ROUTES.createKey>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<KeyCreated> {
    // The pipeline already refuses operator keys here; a child never holds keys:write. Both are checked again all the same.
    if (p.kind !== 'project' || p.parentId !== undefined)
      throw new AppError('forbidden', 'Only a project key made by the CLI may mint keys.');
    const requested = [...new Set(body.scopes)];
    if (requested.includes('keys:write')) throw new AppError('forbidden', 'A child key never carries keys:write.');
    const missing = requested.filter((s) => !p.scopes.includes(s));
    if (missing.length)
      throw new AppError(
        'forbidden',
        `A child key carries at most the calling key's scopes; this key lacks ${missing.join(', ')}.`,
        { missing },
      );
    await this.limit(p.keyId, reply);
    // A key bound to a user or a session never mints a wider one (defence in depth: bound keys are children, which cannot mint).
    const userId = p.userId ?? body.user_id ?? null;
    if (p.userId !== undefined && body.user_id !== undefined && body.user_id !== p.userId)
      throw new AppError('forbidden', 'This key acts for another user.');
    const sessionId = p.sessionId ?? body.session_id ?? null;
    if (p.sessionId !== undefined && body.session_id !== undefined && body.session_id !== p.sessionId)
      throw new AppError('session_not_found', 'No session with this id.');
    if (sessionId !== null) {
      // 404 unless the session is the project's and environment's (and the user's, for a user-bound caller).
      const session: SessionRecord = await this.rpc.send('session.get', { session_id: sessionId });
      if (userId !== null && session.user_id !== userId)
        throw new AppError('invalid_body', 'The session belongs to another user than user_id.');
    }
    const created = await this.keys.createChild({
      parentId: p.keyId,
      scopes: requested,
      expiresInS: body.expires_in,
      sessionId,
      userId,
      name: body.name ?? null,
    });
    // The parent was revoked or expired after the pipeline verified it.
    if (!created) throw new AppError('unauthorized', 'unauthorized');
    return {
      id: created.id,
      key: created.key,
      prefix: created.prefix,
      name: created.name,
      scopes: created.scopes as KeyCreated['scopes'],
      environment: created.environment,
      parent_id: created.parentId,
      session_id: created.sessionId,
      user_id: created.userId,
      created_at: created.createdAt.toISOString(),
      expires_at: created.expiresAt.toISOString(),
    };
  }

  /** Counts one mint for `keyId`; 429 with `Retry-After` past the limit. Redis trouble never blocks minting (it is logged). */
  private async limit(keyId: string, reply: FastifyReply): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.limiter.consume(keyId, 1);
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        void reply.header('retry-after', String(seconds));
        throw new AppError('rate_limited', `This key has minted too many keys; retry in ${seconds} s.`);
      }
      if (Date.now() - this.warned > 10_000) {
        this.warned = Date.now();
        this.log.warn({ err }, 'key-mint limiter unavailable; not limiting');
      }
    }
  }
}
