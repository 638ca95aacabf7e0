import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import { currentRequestId } from './context';

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'authorization',
  'Authorization',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  'req.headers.authorization',
  'credentials',
  '*.credentials',
  '*.*.credentials',
  'apiKey',
  '*.apiKey',
  'key',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'token',
  '*.token',
];

/**
 * JSON logger for every app. The current request id (from AsyncLocalStorage)
 * is stamped on every line so one request can be followed across services.
 */
export function createLogger(app: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: app,
    level,
    base: { app, pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    mixin() {
      const request_id = currentRequestId();
      return request_id ? { request_id } : {};
    },
  });
}

/** Adapts pino to Nest's LoggerService so framework messages are JSON too. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
