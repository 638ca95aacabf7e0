import type { WebhookDelivery } from '@rota/contracts';

type WebhookDeliveryStatus = WebhookDelivery['status'];
import { Prisma, type PrismaClient } from '@rota/db';

/** Whose subscriptions: one project and environment, or the deployment's (operator) ones. */
export interface WebhookOwner {
  orgId: string | null;
  projectId: string | null;
  environment: 'live' | 'test' | null;
}

export interface SubscriptionRow {
  id: string;
  project_id: string | null;
  url: string;
  events: string[];
  description: string | null;
  created_at: Date;
}

export interface AttemptRecord {
  n: number;
  at: string;
  status_code: number | null;
  error: string | null;
  ms: number;
}

export interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: AttemptRecord[];
  created_at: Date;
  delivered_at: Date | null;
}

/** What one attempt needs: the delivery, its subscription's URL and sealed secret, and the event. */
export interface DeliveryWork {
  id: string;
  status: WebhookDeliveryStatus;
  attempts: AttemptRecord[];
  subscription_id: string;
  url: string;
  secret_sealed: Uint8Array;
  deleted: boolean;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  payload: unknown;
}

const ownerSql = (o: WebhookOwner) =>
  o.projectId === null
    ? Prisma.sql`project_id IS NULL`
    : Prisma.sql`project_id = ${o.projectId} AND environment = ${o.environment}::environment`;

/** Webhook subscriptions, deliveries and the outbox fan-out. */
export class WebhooksRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async create(row: {
    id: string;
    owner: WebhookOwner;
    url: string;
    events: string[];
    description: string | null;
    secretSealed: Buffer;
  }): Promise<SubscriptionRow> {
    const { owner } = row;
    const [created] = await this.prisma.$queryRaw<SubscriptionRow[]>(Prisma.sql`
      INSERT INTO webhook_subscriptions (id, org_id, project_id, environment, url, events, description, secret_sealed)
      VALUES (${row.id}, ${owner.orgId}, ${owner.projectId}, ${owner.environment}::environment, ${row.url}, ${row.events}::text[], ${row.description}, ${row.secretSealed})
      RETURNING id, project_id, url, events, description, created_at`);
    return created!;
  }

  list(owner: WebhookOwner): Promise<SubscriptionRow[]> {
    return this.prisma.$queryRaw<SubscriptionRow[]>(Prisma.sql`
      SELECT id, project_id, url, events, description, created_at FROM webhook_subscriptions
      WHERE ${ownerSql(owner)} AND deleted_at IS NULL
      ORDER BY created_at DESC, id DESC`);
  }

  async exists(owner: WebhookOwner, id: string): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<unknown[]>(Prisma.sql`
      SELECT 1 FROM webhook_subscriptions WHERE id = ${id} AND ${ownerSql(owner)} AND deleted_at IS NULL`);
    return rows.length > 0;
  }

  /** Soft-deletes it (its delivery log stays readable to nobody) and drops what was not sent yet. */
  async delete(owner: WebhookOwner, id: string): Promise<boolean> {
    const n = await this.prisma.$executeRaw(Prisma.sql`
      UPDATE webhook_subscriptions SET deleted_at = now() WHERE id = ${id} AND ${ownerSql(owner)} AND deleted_at IS NULL`);
    if (n === 0) return false;
    await this.prisma.$executeRaw(
      Prisma.sql`DELETE FROM webhook_deliveries WHERE subscription_id = ${id} AND status IN ('pending', 'retrying')`,
    );
    return true;
  }

  deliveries(
    subscriptionId: string,
    opts: { status?: WebhookDeliveryStatus; limit: number; id?: string },
  ): Promise<DeliveryRow[]> {
    return this.prisma.$queryRaw<DeliveryRow[]>(Prisma.sql`
      SELECT d.id, d.subscription_id, d.event_id, e.type AS event_type, d.status, d.attempts, d.created_at, d.delivered_at
      FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.subscription_id = ${subscriptionId}
        ${opts.status ? Prisma.sql`AND d.status = ${opts.status}` : Prisma.empty}
        ${opts.id ? Prisma.sql`AND d.id = ${opts.id}` : Prisma.empty}
      ORDER BY d.created_at DESC, d.id DESC
      LIMIT ${opts.limit}`);
  }

  /**
   * Fans up to `limit` undispatched events out to the live subscriptions
   * whose owner and filters match, marks them dispatched, and answers the
   * new delivery ids; all in one statement. Rows are claimed with SKIP
   * LOCKED, so concurrent dispatchers split the work, and the unique
   * (subscription, event) pair makes a repeat create nothing.
   */
  async dispatch(limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ id: string }>>(Prisma.sql`
      WITH ev AS (
        SELECT id, type, project_id, environment FROM events
        WHERE dispatched_at IS NULL ORDER BY created_at LIMIT ${limit}
        FOR UPDATE SKIP LOCKED),
      marked AS (
        UPDATE events SET dispatched_at = now() WHERE id IN (SELECT id FROM ev) RETURNING id),
      ins AS (
        INSERT INTO webhook_deliveries (id, subscription_id, event_id)
        SELECT 'wdl_' || replace(gen_random_uuid()::text, '-', ''), s.id, ev.id
        FROM ev JOIN webhook_subscriptions s
          ON s.deleted_at IS NULL
         AND s.project_id IS NOT DISTINCT FROM ev.project_id
         AND s.environment IS NOT DISTINCT FROM ev.environment
         AND EXISTS (
           SELECT 1 FROM unnest(s.events) f
           WHERE f = '*' OR f = ev.type OR (right(f, 2) = '.*' AND left(ev.type, length(f) - 1) = left(f, length(f) - 1)))
        ON CONFLICT (subscription_id, event_id) DO NOTHING
        RETURNING id)
      SELECT id FROM ins`);
    return rows.map((r) => r.id);
  }

  /** Deliveries still to send whose job may have been lost (created or last tried more than `olderThanS` ago). */
  async stranded(olderThanS: number, limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ id: string }>>(Prisma.sql`
      SELECT id FROM webhook_deliveries
      WHERE status IN ('pending', 'retrying') AND updated_at < now() - make_interval(secs => ${olderThanS})
      ORDER BY updated_at LIMIT ${limit}`);
    return rows.map((r) => r.id);
  }

  async work(id: string): Promise<DeliveryWork | null> {
    const [row] = await this.prisma.$queryRaw<DeliveryWork[]>(Prisma.sql`
      SELECT d.id, d.status, d.attempts, d.subscription_id, s.url, s.secret_sealed, s.deleted_at IS NOT NULL AS deleted,
             e.id AS event_id, e.type AS event_type, e.created_at AS event_created_at, e.payload
      FROM webhook_deliveries d
      JOIN webhook_subscriptions s ON s.id = d.subscription_id
      JOIN events e ON e.id = d.event_id
      WHERE d.id = ${id}`);
    return row ?? null;
  }

  /** Appends an attempt and sets the status, unless the delivery already ended (a duplicate run changes nothing). */
  async recordAttempt(id: string, attempt: AttemptRecord, status: WebhookDeliveryStatus): Promise<boolean> {
    const n = await this.prisma.$executeRaw(Prisma.sql`
      UPDATE webhook_deliveries
      SET attempts = attempts || ${JSON.stringify([attempt])}::jsonb, status = ${status}, updated_at = now(),
          delivered_at = CASE WHEN ${status} = 'delivered' THEN now() ELSE delivered_at END
      WHERE id = ${id} AND status IN ('pending', 'retrying')`);
    return n === 1;
  }

  /** Puts a delivery back to `pending` for a replay; its attempts so far stay in the log. */
  /** Puts a dead delivery back to `pending`; any other state is left alone. */
  async reopenDead(id: string): Promise<void> {
    await this.prisma.$executeRaw(Prisma.sql`
      UPDATE webhook_deliveries SET status = 'pending', updated_at = now() WHERE id = ${id} AND status = 'dead'`);
  }

  async requeue(id: string): Promise<void> {
    await this.prisma.$executeRaw(Prisma.sql`
      UPDATE webhook_deliveries SET status = 'pending', updated_at = now(), delivered_at = NULL WHERE id = ${id}`);
  }
}
