import { randomBytes } from 'node:crypto';
import { isObject, type ProviderModel, type Reply } from './types';

/**
 * Culqi API v2 (Peru) orders: `POST /v2/orders` creates a payment order the
 * buyer pays with Yape, Plin, mobile banking or at an agent, by its
 * PagoEfectivo code (CIP) or QR. Amounts are céntimos; `order_number` is
 * unique per merchant and a repeated one is refused, so a retry never
 * creates a second order. Errors are
 * `{object: 'error', type, merchant_message, user_message, param}`.
 */

interface Order {
  object: 'order';
  id: string;
  amount: number;
  currency_code: string;
  description: string;
  order_number: string;
  state: 'pending' | 'paid' | 'expired';
  total_fee: number | null;
  net_amount: number | null;
  fee_details: null;
  creation_date: number;
  expiration_date: number;
  paid_at: number | null;
  payment_code: string;
  qr: string;
  url_pe: string;
  metadata: Record<string, unknown>;
}

interface CulqiState {
  orders: Map<string, Order>;
  numbers: Set<string>;
}

function err(status: number, type: string, message: string, param?: string): Reply {
  return {
    status,
    body: { object: 'error', type, merchant_message: message, user_message: message, ...(param ? { param } : {}) },
  };
}

export const culqi: ProviderModel<CulqiState> = {
  idempotencyHeader: 'x-sandbox-idempotency-key',
  conflictStatus: 409,
  error: (status, _code, message) => err(status, status >= 500 ? 'api_error' : 'invalid_request_error', message),
  unauthorized: (status) => err(status, 'authentication_error', 'La llave secreta no es válida.'),
  createState: () => ({ orders: new Map(), numbers: new Set() }),
  markPaid(state, id) {
    const o = state.orders.get(id);
    if (!o) return false;
    o.state = 'paid';
    o.paid_at = Math.floor(Date.now() / 1000);
    return true;
  },
  routes: [
    {
      name: 'create_order',
      method: 'POST',
      path: '/v2/orders',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.amount !== 'number' || !Number.isInteger(b.amount))
          return err(400, 'invalid_request_error', 'El campo amount debe ser un entero en céntimos.', 'amount');
        if (b.amount < 600) return err(400, 'invalid_request_error', 'El monto mínimo es S/ 6.00.', 'amount');
        if (b.amount > 3_000_000)
          return err(400, 'invalid_request_error', 'El monto es mayor al máximo permitido (S/ 30,000.00).', 'amount');
        if (b.currency_code !== 'PEN' && b.currency_code !== 'USD')
          return err(400, 'invalid_request_error', 'currency_code debe ser PEN o USD.', 'currency_code');
        if (typeof b.description !== 'string' || b.description.length < 5 || b.description.length > 80)
          return err(400, 'invalid_request_error', 'La descripción debe tener entre 5 y 80 caracteres.', 'description');
        if (typeof b.order_number !== 'string' || !b.order_number)
          return err(400, 'invalid_request_error', 'order_number es requerido.', 'order_number');
        if (ctx.state.numbers.has(b.order_number))
          return err(
            400,
            'invalid_request_error',
            'El order_number ya existe: número de orden repetido.',
            'order_number',
          );
        const now = Math.floor(Date.now() / 1000);
        if (typeof b.expiration_date !== 'number' || b.expiration_date <= now)
          return err(
            400,
            'invalid_request_error',
            'expiration_date debe ser una fecha futura en segundos.',
            'expiration_date',
          );
        const client = isObject(b.client_details) ? b.client_details : {};
        for (const field of ['first_name', 'last_name', 'email', 'phone_number'])
          if (typeof client[field] !== 'string' || !client[field])
            return err(
              400,
              'invalid_request_error',
              `client_details.${field} es requerido.`,
              `client_details.${field}`,
            );
        const id = `ord_test_${randomBytes(8).toString('hex')}`;
        const cip = String(10_000_000 + Math.floor(Math.random() * 89_999_999));
        const o: Order = {
          object: 'order',
          id,
          amount: b.amount,
          currency_code: b.currency_code,
          description: b.description,
          order_number: b.order_number,
          state: 'pending',
          total_fee: null,
          net_amount: null,
          fee_details: null,
          creation_date: now,
          expiration_date: b.expiration_date,
          paid_at: null,
          payment_code: cip,
          qr: `https://qr.culqi.com/${cip}`,
          url_pe: `${ctx.baseUrl}/pagoefectivo/${cip}`,
          metadata: isObject(b.metadata) ? b.metadata : {},
        };
        ctx.state.orders.set(id, o);
        ctx.state.numbers.add(b.order_number);
        ctx.created('charges');
        return { status: 201, body: o };
      },
    },
  ],
};
