import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import { currentRequestId } from './context';
import { currentTraceId } from './tracing';

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
 * is stamped on every line so one request can be followed across services,
 * and so is the trace id when the line is written inside a trace.
 */
export function createLogger(app: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const options = {
    name: app,
    level,
    base: { app, pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    mixin() {
      const request_id = currentRequestId();
      const trace_id = currentTraceId();
      if (!trace_id) return request_id ? { request_id } : {};
      return request_id ? { request_id, trace_id } : { trace_id };
    },
  };
  // ROTA_LOG_FILE sends the lines to a file instead of stdout (appended,
  // written synchronously); the end-to-end suites read it back to prove no
  // credential is ever logged.
  const file = process.env.ROTA_LOG_FILE;
  return file ? pino(options, pino.destination({ dest: file, append: true, sync: true, mkdir: true })) : pino(options);
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
