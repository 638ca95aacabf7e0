/**
 * Injection tokens of what `InfraModule` provides. The transport client is
 * injected by its class, `RpcClient`; everything else by one of these.
 */

/** The app's validated configuration (the object `loadConfig` returned). */
export const CONFIG = Symbol('CONFIG');
/** The app's Prisma client (`PrismaClient` from `@rota/db`). */
export const PRISMA = Symbol('PRISMA');
/** A plain `pg` pool for named statements on hot paths (`SqlPool` from `@rota/db`). */
export const SQL_POOL = Symbol('SQL_POOL');
/** An ioredis client for the app's own keys (caches, telemetry, health). */
export const REDIS = Symbol('REDIS');
/** The app's pino logger. */
export const LOGGER = Symbol('LOGGER');

/** What `LOGGER` injects, so apps need no direct dependency on pino. */
export type { Logger } from 'pino';
