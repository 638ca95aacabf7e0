import { randomBytes, randomUUID } from 'node:crypto';
import { isObject, round2, type ProviderModel, type Reply } from './types';

/**
 * Melhor Envio's shipping API v2: quotes by CEP and package, then the label
 * flow cart → checkout (paid from the account's wallet) → generate (tracking
 * code) → print. Laravel-style errors: `{message}` and, on validation,
 * `{message, errors: {field: [text]}}` with 422.
 */

interface Order {
  id: string;
  protocol: string;
  service_id: number;
  status: 'pending' | 'released' | 'generated' | 'canceled';
  price: number;
  tracking: string | null;
  self_tracking: string | null;
  created_at: string;
  paid_at: string | null;
  generated_at: string | null;
  posted_at: string | null;
  delivered_at: string | null;
  canceled_at: string | null;
}

interface MeState {
  orders: Map<string, Order>;
  balance: number;
}

interface Service {
  id: number;
  name: string;
  company: { id: number; name: string };
  base: number;
  perKg: number;
  days: number;
}

const SERVICES: Service[] = [
  { id: 1, name: 'PAC', company: { id: 1, name: 'Correios' }, base: 18.9, perKg: 4.2, days: 6 },
  { id: 2, name: 'SEDEX', company: { id: 1, name: 'Correios' }, base: 27.5, perKg: 7.8, days: 2 },
  { id: 3, name: '.Package', company: { id: 2, name: 'Jadlog' }, base: 16.4, perKg: 3.9, days: 5 },
  { id: 17, name: 'Mini Envios', company: { id: 1, name: 'Correios' }, base: 11.2, perKg: 0, days: 8 },
];

function err(status: number, _code: string, message: string): Reply {
  return { status, body: { message } };
}

function invalid(errors: Record<string, string[]>): Reply {
  return { status: 422, body: { message: 'The given data was invalid.', errors } };
}

function cep(v: unknown): string | undefined {
  const d = typeof v === 'string' ? v.replace(/\D/g, '') : typeof v === 'number' ? String(v) : '';
  return d.length === 8 ? d : undefined;
}

/** Weight of the shipment in kg, from `package`, `volumes` or `products`. */
function weightOf(b: Record<string, unknown>): number | undefined {
  const one = (p: unknown): number =>
    isObject(p) && typeof p.weight === 'number' ? p.weight * (typeof p.quantity === 'number' ? p.quantity : 1) : NaN;
  if (isObject(b.package)) return one(b.package);
  const list = Array.isArray(b.volumes) ? b.volumes : Array.isArray(b.products) ? b.products : undefined;
  if (!list || list.length === 0) return undefined;
  return list.reduce((s: number, p) => s + one(p), 0);
}

/** Price grows with weight and with the distance between the CEPs' regions (their first digit). */
function quote(service: Service, from: string, to: string, kg: number): { price: number; days: number } {
  const zones = Math.abs(Number(from[0]) - Number(to[0]));
  return {
    price: round2(service.base + service.perKg * Math.ceil(kg) + zones * 2.35),
    days: service.days + Math.ceil(zones / 3),
  };
}

function ordersOf(body: unknown): string[] | Reply {
  const orders = isObject(body) ? body.orders : undefined;
  if (!Array.isArray(orders) || orders.length === 0 || !orders.every((o) => typeof o === 'string'))
    return invalid({ orders: ['O campo orders é obrigatório.'] });
  return orders as string[];
}

export const melhorenvio: ProviderModel<MeState> = {
  // Melhor Envio has no idempotency header; the sandbox honours the common one.
  idempotencyHeader: 'idempotency-key',
  conflictStatus: 409,
  error: err,
  unauthorized: (status) => err(status, '', status === 401 ? 'Unauthenticated.' : 'This action is unauthorized.'),
  createState: () => ({ orders: new Map(), balance: 1000 }),
  routes: [
    {
      name: 'calculate_shipping',
      method: 'POST',
      path: '/api/v2/me/shipment/calculate',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        const from = cep(isObject(b.from) ? b.from.postal_code : undefined);
        const to = cep(isObject(b.to) ? b.to.postal_code : undefined);
        const kg = weightOf(b);
        const errors: Record<string, string[]> = {};
        if (!from) errors['from.postal_code'] = ['O campo from.postal_code deve ter 8 dígitos.'];
        if (!to) errors['to.postal_code'] = ['O campo to.postal_code deve ter 8 dígitos.'];
        if (kg === undefined || !(kg > 0)) errors.package = ['Informe package, volumes ou products com peso.'];
        if (Object.keys(errors).length > 0) return invalid(errors);
        const wanted = typeof b.services === 'string' ? b.services.split(',').map(Number) : undefined;
        const body = SERVICES.filter((s) => !wanted || wanted.includes(s.id)).map((s) => {
          if (s.id === 17 && kg! > 0.3)
            return {
              id: s.id,
              name: s.name,
              error: 'Peso excede o limite do serviço.',
              company: { ...s.company, picture: '' },
            };
          const q = quote(s, from!, to!, kg!);
          return {
            id: s.id,
            name: s.name,
            price: q.price.toFixed(2),
            custom_price: q.price.toFixed(2),
            discount: '0.00',
            currency: 'R$',
            delivery_time: q.days,
            delivery_range: { min: q.days - 1, max: q.days + 1 },
            custom_delivery_time: q.days,
            custom_delivery_range: { min: q.days - 1, max: q.days + 1 },
            company: { ...s.company, picture: '' },
          };
        });
        return { status: 200, body };
      },
    },
    {
      name: 'add_to_cart',
      method: 'POST',
      path: '/api/v2/me/cart',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        const service = SERVICES.find((s) => s.id === b.service);
        const from = cep(isObject(b.from) ? b.from.postal_code : undefined);
        const to = cep(isObject(b.to) ? b.to.postal_code : undefined);
        const kg = weightOf(b);
        const errors: Record<string, string[]> = {};
        if (!service) errors.service = ['O serviço selecionado é inválido.'];
        if (!from) errors['from.postal_code'] = ['O campo from.postal_code é obrigatório.'];
        if (!to) errors['to.postal_code'] = ['O campo to.postal_code é obrigatório.'];
        if (kg === undefined || !(kg > 0)) errors.volumes = ['O campo volumes é obrigatório.'];
        if (Object.keys(errors).length > 0) return invalid(errors);
        const order: Order = {
          id: randomUUID(),
          protocol: `ORD-${new Date().toISOString().slice(0, 7).replace('-', '')}${randomBytes(4).toString('hex').toUpperCase()}`,
          service_id: service!.id,
          status: 'pending',
          price: quote(service!, from!, to!, kg!).price,
          tracking: null,
          self_tracking: null,
          created_at: new Date().toISOString(),
          paid_at: null,
          generated_at: null,
          posted_at: null,
          delivered_at: null,
          canceled_at: null,
        };
        ctx.state.orders.set(order.id, order);
        ctx.created('orders');
        return { status: 201, body: order };
      },
    },
    {
      // Pays every listed cart item from the wallet, or nothing.
      name: 'checkout_cart',
      method: 'POST',
      path: '/api/v2/me/shipment/checkout',
      handle(ctx) {
        const ids = ordersOf(ctx.body);
        if (!Array.isArray(ids)) return ids;
        const orders = ids.map((id) => ctx.state.orders.get(id));
        if (orders.some((o) => !o || o.status !== 'pending'))
          return invalid({ orders: ['Um ou mais envios não estão no carrinho.'] });
        const total = round2(orders.reduce((s, o) => s + o!.price, 0));
        if (total > ctx.state.balance)
          return err(422, 'insufficient_funds', 'Saldo insuficiente para realizar a compra.');
        ctx.state.balance = round2(ctx.state.balance - total);
        const paidAt = new Date().toISOString();
        for (const o of orders) Object.assign(o!, { status: 'released', paid_at: paidAt });
        ctx.created('purchases');
        return {
          status: 200,
          body: {
            purchase: {
              id: randomUUID(),
              protocol: `PUR-${randomBytes(4).toString('hex').toUpperCase()}`,
              total,
              discount: 0,
              status: 'paid',
              paid_at: paidAt,
              orders,
            },
          },
        };
      },
    },
    {
      // Issues the carrier's tracking code: this is where a label exists.
      name: 'generate_label',
      method: 'POST',
      path: '/api/v2/me/shipment/generate',
      handle(ctx) {
        const ids = ordersOf(ctx.body);
        if (!Array.isArray(ids)) return ids;
        const body: Record<string, { status: boolean; message: string }> = {};
        for (const id of ids) {
          const o = ctx.state.orders.get(id);
          if (!o || o.status === 'pending') {
            body[id] = { status: false, message: 'Envio não foi pago.' };
            continue;
          }
          if (o.status === 'released') {
            Object.assign(o, {
              status: 'generated',
              generated_at: new Date().toISOString(),
              tracking: `ME${randomBytes(5).toString('hex').toUpperCase()}BR`,
              self_tracking: `SB${randomBytes(4).toString('hex').toUpperCase()}`,
            });
            ctx.created('labels');
          }
          body[id] = { status: true, message: 'Envio gerado com sucesso' };
        }
        return { status: 200, body };
      },
    },
    {
      name: 'print_label',
      method: 'POST',
      path: '/api/v2/me/shipment/print',
      handle(ctx) {
        const ids = ordersOf(ctx.body);
        if (!Array.isArray(ids)) return ids;
        if (ids.some((id) => ctx.state.orders.get(id)?.status !== 'generated'))
          return err(422, 'not_generated', 'Etiqueta ainda não gerada.');
        return { status: 200, body: { url: `${ctx.baseUrl}/imprimir/${randomBytes(6).toString('hex')}` } };
      },
    },
    {
      name: 'track_shipment',
      method: 'POST',
      path: '/api/v2/me/shipment/tracking',
      handle(ctx) {
        const ids = ordersOf(ctx.body);
        if (!Array.isArray(ids)) return ids;
        const body: Record<string, unknown> = {};
        for (const id of ids) {
          const o = ctx.state.orders.get(id);
          if (o)
            body[id] = {
              id: o.id,
              protocol: o.protocol,
              status: o.status,
              tracking: o.tracking,
              melhorenvio_tracking: o.self_tracking,
              created_at: o.created_at,
              paid_at: o.paid_at,
              generated_at: o.generated_at,
            };
        }
        return { status: 200, body };
      },
    },
    {
      // Finds labels by id, protocol, carrier tracking code or Melhor Envio's
      // own tracking code: how a caller follows a parcel it knows by its code.
      name: 'search_orders',
      method: 'GET',
      path: '/api/v2/me/orders/search',
      handle(ctx) {
        const q = (ctx.query.get('q') ?? '').trim();
        if (!q) return invalid({ q: ['O campo q é obrigatório.'] });
        const found = [...ctx.state.orders.values()].filter((o) =>
          [o.id, o.protocol, o.tracking, o.self_tracking].includes(q),
        );
        return { status: 200, body: found };
      },
    },
    {
      name: 'get_order',
      method: 'GET',
      path: '/api/v2/me/orders/:id',
      handle(ctx) {
        const o = ctx.state.orders.get(ctx.params.id ?? '');
        return o ? { status: 200, body: o } : err(404, 'not_found', 'Registro não encontrado.');
      },
    },
  ],
};
