import { Injectable } from '@nestjs/common';
import { AppError, type LogList, type LogsQuery } from '@rota/contracts';
import { currentTenant } from '@rota/service-kit';
import { toLogEntry } from '../calls/call-log';
import { LogsRepository } from './logs.repository';

/** The position after which the next page starts: the last record's time and id. */
interface Cursor {
  at: string;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.at, c.id])).toString('base64url');
}

export function decodeCursor(raw: string): Cursor {
  try {
    const [at, id] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown[];
    if (
      typeof at === 'string' &&
      typeof id === 'string' &&
      id.length > 0 &&
      id.length <= 200 &&
      !Number.isNaN(Date.parse(at))
    )
      return { at, id };
  } catch {
    // Falls through to the refusal.
  }
  throw new AppError('invalid_query', 'The cursor is not one this route gave out; start again without it.', {
    issues: [{ path: ['cursor'], message: 'unknown cursor', code: 'custom' }],
  });
}

/** `GET /v1/logs`: the call records of the request's project and environment. */
@Injectable()
export class LogsService {
  constructor(private readonly repo: LogsRepository) {}

  async list(q: LogsQuery): Promise<LogList> {
    const before = q.cursor ? decodeCursor(q.cursor) : undefined;
    // One more than the page: whether there is a next page, without counting.
    const rows = await this.repo.list(currentTenant(), {
      sessionId: q.session_id,
      tool: q.tool,
      server: q.server,
      outcome: q.outcome,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      before: before && { calledAt: new Date(before.at), id: before.id },
      limit: q.limit + 1,
    });
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    return {
      logs: page.map(toLogEntry),
      next_cursor:
        rows.length > q.limit && last ? encodeCursor({ at: last.called_at.toISOString(), id: last.id }) : null,
    };
  }
}
