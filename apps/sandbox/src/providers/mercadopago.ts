import { randomUUID } from 'node:crypto';
import { pixPayload, PLACEHOLDER_PNG_BASE64 } from './pix';
import { isObject, round2, type ProviderModel, type Reply } from './types';

/**
 * Mercado Pago v1 payments: card and Pix payments, refunds and search; and
 * Checkout Pro preferences, the hosted payment page a buyer is sent to.
 * Numeric ids, `X-Idempotency-Key` required on payment creation, errors
 * `{message, error, status, cause: [{code, description}]}`. Card outcomes
 * follow Mercado Pago's test cardholder names: `APRO` approved (the
 * default), `CONT` pending, `OTHE` rejected.
 */

interface Payment {
  id: number;
  date_created: string;
  date_approved: string | null;
  date_last_updated: string;
  status: string;
  status_detail: string;
  payment_method_id: string;
  payment_type_id: string;
  transaction_amount: number;
  transaction_amount_refunded: number;
  currency_id: string;
  description: string | null;
  external_reference: string | null;
  installments: number;
  payer: Record<string, unknown>;
  point_of_interaction?: Record<string, unknown>;
}

interface Refund {
  id: number;
  payment_id: number;
  amount: number;
  status: string;
  date_created: string;
}

interface MpState {
  nextId: number;
  payments: Map<number, Payment>;
  refunds: Refund[];
  preferences: Map<string, Record<string, unknown>>;
}

/** The account's collector id, the first part of every preference id. */
const COLLECTOR_ID = 1_987_654_321;
const PREFERENCE_CURRENCIES = ['BRL', 'ARS', 'MXN', 'CLP', 'COP', 'PEN', 'UYU'];
const PAYMENT_TYPES = ['credit_card', 'debit_card', 'ticket', 'bank_transfer', 'atm', 'account_money', 'prepaid_card'];

const CARD_METHODS = ['visa', 'master', 'amex', 'elo', 'hipercard', 'debvisa', 'debmaster', 'debelo'];
const TICKET_METHODS = ['bolbradesco', 'pec', 'oxxo'];
/** Mexico's cash voucher: paid at OXXO stores, in pesos, up to MXN 10,000. */
const OXXO_MAX = 10_000;

function err(status: number, code: string, message: string): Reply {
  return {
    status,
    body: { message, error: code, status, cause: [{ code: status === 404 ? 2000 : 4000, description: message }] },
  };
}

function now(): string {
  return new Date().toISOString().replace('Z', '-03:00');
}

function paymentTypeOf(method: string): string {
  if (method === 'pix') return 'bank_transfer';
  if (TICKET_METHODS.includes(method)) return 'ticket';
  return method.startsWith('deb') ? 'debit_card' : 'credit_card';
}

export const mercadopago: ProviderModel<MpState> = {
  idempotencyHeader: 'x-idempotency-key',
  conflictStatus: 409,
  error: err,
  unauthorized: (status) =>
    status === 401
      ? err(401, 'unauthorized', 'invalid access token')
      : err(403, 'forbidden', 'At least one policy returned UNAUTHORIZED.'),
  createState: () => ({ nextId: 1_320_000_001, payments: new Map(), refunds: [], preferences: new Map() }),
  markPaid(state, paymentId) {
    const payment = state.payments.get(Number(paymentId));
    if (!payment) return false;
    payment.status = 'approved';
    payment.status_detail = 'accredited';
    payment.date_approved = now();
    return true;
  },
  routes: [
    {
      name: 'create_payment',
      method: 'POST',
      path: '/v1/payments',
      handle(ctx) {
        if (!ctx.headers['x-idempotency-key'])
          return err(400, 'bad_request', 'Header X-Idempotency-Key can not be null');
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.transaction_amount !== 'number' || !(b.transaction_amount > 0))
          return err(400, 'bad_request', 'transaction_amount must be a positive number');
        const method = b.payment_method_id;
        if (typeof method !== 'string' || ![...CARD_METHODS, ...TICKET_METHODS, 'pix'].includes(method))
          return err(400, 'bad_request', 'Invalid payment_method_id');
        const payer = isObject(b.payer) ? b.payer : undefined;
        if (!payer || typeof payer.email !== 'string' || !payer.email.includes('@'))
          return err(400, 'bad_request', 'payer.email must be a valid email');
        const type = paymentTypeOf(method);
        if (type.endsWith('_card') && typeof b.token !== 'string')
          return err(400, 'bad_request', 'Card token is required for card payments');
        if (method === 'oxxo' && b.transaction_amount > OXXO_MAX)
          return err(400, 'bad_request', `transaction_amount exceeds the maximum of ${OXXO_MAX} MXN for oxxo`);

        let status = 'pending';
        let detail = method === 'pix' ? 'pending_waiting_transfer' : 'pending_waiting_payment';
        if (type.endsWith('_card')) {
          const holder = typeof payer.first_name === 'string' ? payer.first_name.toUpperCase() : 'APRO';
          [status, detail] =
            holder === 'OTHE'
              ? ['rejected', 'cc_rejected_other_reason']
              : holder === 'CONT'
                ? ['in_process', 'pending_contingency']
                : ['approved', 'accredited'];
        }
        const created = now();
        const amount = round2(b.transaction_amount);
        const payment: Payment = {
          id: ctx.state.nextId++,
          date_created: created,
          date_approved: status === 'approved' ? created : null,
          date_last_updated: created,
          status,
          status_detail: detail,
          payment_method_id: method,
          payment_type_id: type,
          transaction_amount: amount,
          transaction_amount_refunded: 0,
          currency_id: method === 'oxxo' ? 'MXN' : 'BRL',
          description: typeof b.description === 'string' ? b.description : null,
          external_reference: typeof b.external_reference === 'string' ? b.external_reference : null,
          installments: typeof b.installments === 'number' ? b.installments : 1,
          payer: { id: null, email: payer.email, identification: payer.identification ?? null, type: null },
        };
        if (method === 'pix') {
          payment.point_of_interaction = {
            type: 'PIX',
            transaction_data: {
              qr_code: pixPayload(amount),
              qr_code_base64: PLACEHOLDER_PNG_BASE64,
              ticket_url: `${ctx.baseUrl}/payments/${payment.id}/ticket`,
            },
          };
        }
        if (method === 'oxxo') {
          const reference = String(payment.id).padStart(14, '0');
          Object.assign(payment, {
            transaction_details: {
              external_resource_url: `${ctx.baseUrl}/payments/${payment.id}/ticket`,
              payment_method_reference_id: reference,
            },
            barcode: { content: `9800${reference}` },
          });
        }
        ctx.state.payments.set(payment.id, payment);
        ctx.created('charges');
        return { status: 201, body: payment };
      },
    },
    {
      name: 'search_payments',
      method: 'GET',
      path: '/v1/payments/search',
      handle(ctx) {
        const ext = ctx.query.get('external_reference');
        const status = ctx.query.get('status');
        const offset = Math.max(0, Number(ctx.query.get('offset') ?? 0) || 0);
        const limit = Math.min(1000, Math.max(1, Number(ctx.query.get('limit') ?? 30) || 30));
        const all = [...ctx.state.payments.values()].filter(
          (p) => (!ext || p.external_reference === ext) && (!status || p.status === status),
        );
        return {
          status: 200,
          body: { paging: { total: all.length, limit, offset }, results: all.slice(offset, offset + limit) },
        };
      },
    },
    {
      // The payment a create_payment under this X-Idempotency-Key made, as it
      // stands now; how Rota reconciles a call whose answer it never saw.
      name: 'find_payment_by_idempotency_key',
      method: 'GET',
      path: '/v1/payments/idempotency/:key',
      handle(ctx) {
        const made = ctx.idempotentReply(ctx.params.key ?? '')?.body;
        const payment = isObject(made) ? ctx.state.payments.get(Number(made.id)) : undefined;
        return payment
          ? { status: 200, body: payment }
          : err(404, 'not_found', 'No payment was created with this idempotency key');
      },
    },
    {
      name: 'get_payment',
      method: 'GET',
      path: '/v1/payments/:id',
      handle(ctx) {
        const payment = ctx.state.payments.get(Number(ctx.params.id));
        return payment ? { status: 200, body: payment } : err(404, 'not_found', 'Payment not found');
      },
    },
    {
      // No amount refunds what is left; a refund of everything marks the
      // payment refunded. Only approved payments can be refunded.
      name: 'refund_payment',
      method: 'POST',
      path: '/v1/payments/:id/refunds',
      handle(ctx) {
        const payment = ctx.state.payments.get(Number(ctx.params.id));
        if (!payment) return err(404, 'not_found', 'Payment not found');
        if (payment.status !== 'approved')
          return err(400, 'bad_request', `Payment with status ${payment.status} cannot be refunded`);
        const b = isObject(ctx.body) ? ctx.body : {};
        const remaining = round2(payment.transaction_amount - payment.transaction_amount_refunded);
        const amount = b.amount === undefined ? remaining : b.amount;
        if (typeof amount !== 'number' || !(amount > 0) || amount > remaining)
          return err(400, 'bad_request', 'Invalid refund amount');
        const refund: Refund = {
          id: ctx.state.nextId++,
          payment_id: payment.id,
          amount: round2(amount),
          status: 'approved',
          date_created: now(),
        };
        ctx.state.refunds.push(refund);
        payment.transaction_amount_refunded = round2(payment.transaction_amount_refunded + amount);
        if (payment.transaction_amount_refunded === payment.transaction_amount) {
          payment.status = 'refunded';
          payment.status_detail = 'refunded';
        }
        payment.date_last_updated = refund.date_created;
        ctx.created('refunds');
        return { status: 201, body: refund };
      },
    },
    {
      // Checkout Pro: the items, who pays and which payment types the page
      // leaves out. The answer carries the page's address (`init_point`);
      // nothing is charged until the buyer pays there.
      name: 'create_preference',
      method: 'POST',
      path: '/checkout/preferences',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (!Array.isArray(b.items) || b.items.length === 0)
          return err(400, 'invalid_items', 'items must be a non-empty array');
        const currencies = new Set<string>();
        const items: Record<string, unknown>[] = [];
        for (const [i, raw] of b.items.entries()) {
          const item = isObject(raw) ? raw : {};
          if (typeof item.title !== 'string' || !item.title)
            return err(400, 'invalid_items', `items[${i}].title is required`);
          if (typeof item.quantity !== 'number' || !Number.isInteger(item.quantity) || item.quantity < 1)
            return err(400, 'invalid_items', `items[${i}].quantity must be a positive integer`);
          if (typeof item.unit_price !== 'number' || !(item.unit_price > 0))
            return err(400, 'invalid_items', `items[${i}].unit_price must be a positive number`);
          const currency = typeof item.currency_id === 'string' ? item.currency_id : 'BRL';
          if (!PREFERENCE_CURRENCIES.includes(currency))
            return err(400, 'invalid_items', `items[${i}].currency_id ${currency} is not accepted`);
          currencies.add(currency);
          items.push({
            id: typeof item.id === 'string' ? item.id : '',
            category_id: '',
            description: '',
            picture_url: '',
            ...item,
            currency_id: currency,
          });
        }
        if (currencies.size > 1) return err(400, 'invalid_items', 'all items must have the same currency_id');
        const methods = isObject(b.payment_methods) ? b.payment_methods : {};
        const excluded = Array.isArray(methods.excluded_payment_types) ? methods.excluded_payment_types : [];
        for (const e of excluded)
          if (!isObject(e) || typeof e.id !== 'string' || !PAYMENT_TYPES.includes(e.id))
            return err(400, 'invalid_payment_methods', 'excluded_payment_types has an unknown id');
        if (excluded.length >= PAYMENT_TYPES.length)
          return err(400, 'invalid_payment_methods', 'at least one payment type must remain');
        const id = `${COLLECTOR_ID}-${randomUUID()}`;
        const link = `${ctx.baseUrl}/checkout/v1/redirect?pref_id=${id}`;
        const preference: Record<string, unknown> = {
          additional_info: '',
          auto_return: typeof b.auto_return === 'string' ? b.auto_return : '',
          back_urls: isObject(b.back_urls) ? b.back_urls : { failure: '', pending: '', success: '' },
          client_id: '6295877106812064',
          collector_id: COLLECTOR_ID,
          date_created: now(),
          expiration_date_from: typeof b.expiration_date_from === 'string' ? b.expiration_date_from : null,
          expiration_date_to: typeof b.expiration_date_to === 'string' ? b.expiration_date_to : null,
          expires: b.expires === true,
          external_reference: typeof b.external_reference === 'string' ? b.external_reference : '',
          id,
          init_point: link,
          items,
          marketplace: 'NONE',
          metadata: isObject(b.metadata) ? b.metadata : {},
          notification_url: typeof b.notification_url === 'string' ? b.notification_url : null,
          operation_type: 'regular_payment',
          payer: isObject(b.payer) ? b.payer : null,
          payment_methods: {
            default_payment_method_id: methods.default_payment_method_id ?? null,
            excluded_payment_methods: Array.isArray(methods.excluded_payment_methods)
              ? methods.excluded_payment_methods
              : [],
            excluded_payment_types: excluded,
            installments: typeof methods.installments === 'number' ? methods.installments : null,
          },
          sandbox_init_point: link,
          statement_descriptor: typeof b.statement_descriptor === 'string' ? b.statement_descriptor : null,
        };
        ctx.state.preferences.set(id, preference);
        ctx.created('checkouts');
        return { status: 201, body: preference };
      },
    },
    {
      name: 'get_preference',
      method: 'GET',
      path: '/checkout/preferences/:id',
      handle(ctx) {
        const preference = ctx.state.preferences.get(ctx.params.id ?? '');
        return preference ? { status: 200, body: preference } : err(404, 'not_found', 'Preference not found');
      },
    },
  ],
};
