import { randomBytes } from 'node:crypto';
import { isObject, today, type ProviderModel, type Reply, type RouteContext } from './types';

/**
 * Pomelo's card issuing API (Latin America): users (cardholders), and
 * cards issued to a user under an affinity group (the card programme).
 * Virtual cards are `ACTIVE` at once; physical ones are `CREATED` until the
 * cardholder activates the card they receive. A card is blocked (`BLOCKED`)
 * and unblocked (`ACTIVE`), and disabled (`DISABLED`, final); blocking and
 * disabling name a `status_reason`. Answers are `{data}`, errors
 * `{error: {details: [{detail}]}}`; `x-idempotency-key` guards creations.
 */

interface Card {
  id: string;
  user_id: string;
  affinity_group_id: string;
  card_type: 'VIRTUAL' | 'PHYSICAL';
  status: 'ACTIVE' | 'BLOCKED' | 'DISABLED' | 'CREATED';
  status_reason: string | null;
  shipment_id: string | null;
  start_date: string;
  last_four: string;
  provider: 'MASTERCARD';
  product_type: 'PREPAID';
  name_on_card: string | null;
  address: Record<string, unknown> | null;
}

interface PomeloState {
  users: Map<string, Record<string, unknown>>;
  affinityGroups: Map<string, Record<string, unknown>>;
  cards: Map<string, Card>;
}

/** A cardholder and a card programme every fresh sandbox already has, so a card can be the first call. */
export const POMELO_SANDBOX_USER = 'usr-2aSandboxCardholder00000001';
export const POMELO_SANDBOX_AFFINITY_GROUP = 'afg-2aSandboxProgramme000000001';

const REASONS = ['CLIENT_INTERNAL_REASON', 'USER_INTERNAL_REASON', 'LOST', 'STOLEN', 'BROKEN', 'UPGRADE'];
const ADDRESS_FIELDS = ['street_name', 'street_number', 'zip_code', 'city', 'region', 'country'];
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function id(prefix: string): string {
  return `${prefix}-${[...randomBytes(27)].map((b) => BASE62[b % 62]).join('')}`;
}

function err(status: number, detail: string): Reply {
  return { status, body: { error: { details: [{ detail }] } } };
}

function getCard(ctx: RouteContext<PomeloState>): Card | Reply {
  return ctx.state.cards.get(ctx.params.id ?? '') ?? err(404, `Card ${ctx.params.id} not found.`);
}

export const pomelo: ProviderModel<PomeloState> = {
  idempotencyHeader: 'x-idempotency-key',
  conflictStatus: 409,
  error: (status, _code, message) => err(status, message),
  unauthorized: (status) =>
    err(status, status === 401 ? 'Unauthorized: invalid or expired access token.' : 'Forbidden.'),
  createState: () => ({
    users: new Map([
      [
        POMELO_SANDBOX_USER,
        {
          id: POMELO_SANDBOX_USER,
          name: 'Ana',
          surname: 'Sandbox',
          identification_type: 'CPF',
          identification_value: '52998224725',
          operation_country: 'BRA',
          status: 'ACTIVE',
        },
      ],
    ]),
    affinityGroups: new Map([
      [
        POMELO_SANDBOX_AFFINITY_GROUP,
        { id: POMELO_SANDBOX_AFFINITY_GROUP, name: 'Sandbox Prepaid', card_type_supported: ['VIRTUAL', 'PHYSICAL'] },
      ],
    ]),
    cards: new Map(),
  }),
  routes: [
    {
      name: 'create_user',
      method: 'POST',
      path: '/users/v1',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        for (const f of ['name', 'surname', 'identification_type', 'identification_value', 'operation_country'])
          if (typeof b[f] !== 'string' || !b[f]) return err(400, `${f} is required.`);
        const user = { ...b, id: id('usr'), status: 'ACTIVE' };
        ctx.state.users.set(user.id, user);
        ctx.created('users');
        return { status: 201, body: { data: user } };
      },
    },
    {
      name: 'get_user',
      method: 'GET',
      path: '/users/v1/:id',
      handle(ctx) {
        const user = ctx.state.users.get(ctx.params.id ?? '');
        return user ? { status: 200, body: { data: user } } : err(404, `User ${ctx.params.id} not found.`);
      },
    },
    {
      name: 'create_card',
      method: 'POST',
      path: '/cards/v1',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.user_id !== 'string' || !ctx.state.users.has(b.user_id))
          return err(400, 'user_id does not name a user of this account.');
        if (typeof b.affinity_group_id !== 'string' || !ctx.state.affinityGroups.has(b.affinity_group_id))
          return err(400, 'affinity_group_id does not name an affinity group of this account.');
        if (b.card_type !== 'VIRTUAL' && b.card_type !== 'PHYSICAL')
          return err(400, 'card_type must be VIRTUAL or PHYSICAL.');
        let address: Record<string, unknown> | null = null;
        if (b.card_type === 'PHYSICAL') {
          const given = b.address;
          if (!isObject(given)) return err(400, 'address is required for a physical card.');
          const missing = ADDRESS_FIELDS.filter((f) => typeof given[f] !== 'string' || !given[f]);
          if (missing.length) return err(400, `address.${missing[0]} is required for a physical card.`);
          address = given;
        }
        const card: Card = {
          id: id('crd'),
          user_id: b.user_id,
          affinity_group_id: b.affinity_group_id,
          card_type: b.card_type,
          status: b.card_type === 'VIRTUAL' ? 'ACTIVE' : 'CREATED',
          status_reason: null,
          shipment_id: b.card_type === 'PHYSICAL' ? id('shp') : null,
          start_date: today(),
          last_four: String(randomBytes(2).readUInt16BE(0) % 10000).padStart(4, '0'),
          provider: 'MASTERCARD',
          product_type: 'PREPAID',
          name_on_card: typeof b.name_on_card === 'string' ? b.name_on_card : null,
          address,
        };
        ctx.state.cards.set(card.id, card);
        ctx.created('cards');
        return { status: 201, body: { data: { ...card } } };
      },
    },
    {
      name: 'get_card',
      method: 'GET',
      path: '/cards/v1/:id',
      handle(ctx) {
        const c = getCard(ctx);
        return 'id' in c ? { status: 200, body: { data: c } } : c;
      },
    },
    {
      name: 'list_cards',
      method: 'GET',
      path: '/cards/v1',
      handle(ctx) {
        const user = ctx.query.get('filter[user_id]');
        const status = ctx.query.get('filter[status]');
        const size = Math.min(100, Math.max(1, Number(ctx.query.get('page[size]') ?? 25) || 25));
        const number = Math.max(0, Number(ctx.query.get('page[number]') ?? 0) || 0);
        const all = [...ctx.state.cards.values()].filter(
          (c) => (!user || c.user_id === user) && (!status || c.status === status),
        );
        return {
          status: 200,
          body: {
            data: all.slice(number * size, (number + 1) * size),
            meta: { pagination: { total_pages: Math.ceil(all.length / size), current_page: number } },
          },
        };
      },
    },
    {
      name: 'update_card',
      method: 'PATCH',
      path: '/cards/v1/:id',
      handle(ctx) {
        const c = getCard(ctx);
        if (!('id' in c)) return c;
        const b = isObject(ctx.body) ? ctx.body : {};
        if (b.status !== 'ACTIVE' && b.status !== 'BLOCKED' && b.status !== 'DISABLED')
          return err(400, 'status must be ACTIVE, BLOCKED or DISABLED.');
        if (c.status === 'DISABLED') return err(400, 'A disabled card cannot change status.');
        if (b.status === 'ACTIVE' && c.status === 'CREATED')
          return err(400, 'A physical card is activated by its cardholder when it arrives.');
        if (b.status !== 'ACTIVE' && (typeof b.status_reason !== 'string' || !REASONS.includes(b.status_reason)))
          return err(400, `status_reason must be one of ${REASONS.join(', ')}.`);
        c.status = b.status;
        c.status_reason = b.status === 'ACTIVE' ? null : (b.status_reason as string);
        return { status: 200, body: { data: { ...c } } };
      },
    },
  ],
};
