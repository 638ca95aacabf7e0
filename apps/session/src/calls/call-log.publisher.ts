import { Inject, Injectable } from '@nestjs/common';
import { LOG_EVENT_PARAMETERS_MAX_BYTES, LOG_STREAM_FIELDS as F, logStreamKey, type LogEntry } from '@rota/contracts';
import { CONFIG, LOGGER, REDIS, type Logger } from '@rota/service-kit';
import type Redis from 'ioredis';
import type { SessionConfig } from '../config';
import { toLogEntry, type CallLogRow } from './call-log';

/** The entry as streamed: parameters over the cap become their size, so an event stays small. */
export function streamedEntry(entry: LogEntry): LogEntry {
  const params = JSON.stringify(entry.parameters ?? null);
  const bytes = Buffer.byteLength(params);
  return bytes > LOG_EVENT_PARAMETERS_MAX_BYTES ? { ...entry, parameters: { omitted: true, bytes } } : entry;
}

/**
 * Appends each finished call to the deployment's log stream, a Redis Stream
 * capped at `ROTA_LOG_STREAM_MAXLEN` entries that every gateway replica reads
 * for its `GET /v1/logs/stream` subscribers. The repositories call it right
 * after the write that makes a row final, so no code path that finishes a
 * call can forget it. It never delays or fails the call: the append is not
 * awaited, and when Redis cannot take it the call is still in `GET /v1/logs`.
 */
@Injectable()
export class CallLogPublisher {
  private readonly key: string;
  private readonly maxLen: string;
  private failing = false;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(CONFIG) private readonly config: SessionConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.key = logStreamKey(config.ROTA_REDIS_PREFIX);
    this.maxLen = String(config.ROTA_LOG_STREAM_MAXLEN);
  }

  /** A row that just became final (`done` or `outcome_unknown`). */
  published(row: CallLogRow): void {
    if (!this.config.ROTA_LOG_STREAM || row.state === 'pending') return;
    const entry = streamedEntry(toLogEntry(row));
    this.redis
      .xadd(
        this.key,
        'MAXLEN',
        '~',
        this.maxLen,
        '*',
        F.project,
        entry.project_id,
        F.environment,
        entry.environment,
        F.session,
        entry.session_id ?? '',
        F.data,
        JSON.stringify(entry),
      )
      .then(
        () => {
          if (this.failing) this.log.info('the call log stream takes entries again');
          this.failing = false;
        },
        (err: unknown) => {
          // One line per outage, not one per call.
          if (!this.failing)
            this.log.warn(
              { err },
              'could not append to the call log stream; calls go on and GET /v1/logs still lists them',
            );
          this.failing = true;
        },
      );
  }
}
