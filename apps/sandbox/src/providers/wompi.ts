import { randomBytes } from 'node:crypto';
import { isObject, type ProviderModel, type Reply } from './types';

/**
 * Wompi (Colombia) payment links: `POST /v1/payment_links` creates a hosted
 * page at `https://checkout.wompi.co/l/{id}` where the buyer pays by card,
 * PSE, Nequi or Bancolombia; amounts are COP cents (`amount_in_cents`).
 * Answers wrap the object in `data`; errors are
 * `{error: {type, reason}}` or `{error: {type: 'INPUT_VALIDATION_ERROR', messages: {field: [..]}}}`.
 * Wompi reads no idempotency header; a link moves no money until the
 * buyer pays it.
 */

interface Link {
  id: string;
  name: string;
  description: string;
  single_use: boolean;
  collect_shipping: boolean;
  currency: string;
  amount_in_cents: number | null;
  expires_at: string | null;
  active: boolean;
  created_at: string;
  sku: string | null;
}

interface WompiState {
  links: Map<string, Link>;
}

/** Wompi's documented minimum: COP 1,500.00. */
const MIN_CENTS = 150_000;

function invalid(messages: Record<string, string[]>): Reply {
  return { status: 422, body: { error: { type: 'INPUT_VALIDATION_ERROR', messages } } };
}

export const wompi: ProviderModel<WompiState> = {
  idempotencyHeader: 'x-sandbox-idempotency-key',
  conflictStatus: 409,
  error: (status, code, message) => ({ status, body: { error: { type: code.toUpperCase(), reason: message } } }),
  unauthorized: (status) => ({
    status,
    body: { error: { type: 'INVALID_ACCESS_TOKEN', reason: 'Se esperaba una llave privada válida' } },
  }),
  createState: () => ({ links: new Map() }),
  routes: [
    {
      name: 'create_payment_link',
      method: 'POST',
      path: '/v1/payment_links',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        const problems: Record<string, string[]> = {};
        if (typeof b.name !== 'string' || !b.name) problems.name = ['El nombre es requerido'];
        if (typeof b.description !== 'string' || !b.description) problems.description = ['La descripción es requerida'];
        if (typeof b.single_use !== 'boolean') problems.single_use = ['Debe ser un booleano'];
        if (typeof b.collect_shipping !== 'boolean') problems.collect_shipping = ['Debe ser un booleano'];
        if (b.currency !== undefined && b.currency !== 'COP') problems.currency = ['La moneda debe ser COP'];
        if (
          b.amount_in_cents !== undefined &&
          (typeof b.amount_in_cents !== 'number' || !Number.isInteger(b.amount_in_cents))
        )
          problems.amount_in_cents = ['Debe ser un entero'];
        else if (typeof b.amount_in_cents === 'number' && b.amount_in_cents < MIN_CENTS)
          problems.amount_in_cents = ['El monto mínimo es de 1500 pesos (amount minimum 150000 cents)'];
        if (Object.keys(problems).length > 0) return invalid(problems);
        const link: Link = {
          id: randomBytes(4).toString('base64url').replace(/[-_]/g, 'x').slice(0, 6),
          name: b.name as string,
          description: b.description as string,
          single_use: b.single_use as boolean,
          collect_shipping: b.collect_shipping as boolean,
          currency: 'COP',
          amount_in_cents: typeof b.amount_in_cents === 'number' ? b.amount_in_cents : null,
          expires_at: typeof b.expires_at === 'string' ? b.expires_at : null,
          active: true,
          created_at: new Date().toISOString(),
          sku: typeof b.sku === 'string' ? b.sku : null,
        };
        ctx.state.links.set(link.id, link);
        ctx.created('charges');
        return { status: 201, body: { data: link } };
      },
    },
  ],
};
