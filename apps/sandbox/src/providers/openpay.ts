import { randomBytes } from 'node:crypto';
import { isObject, round2, type ProviderModel, type Reply } from './types';

/**
 * Openpay (Mexico) API v1: charges by SPEI transfer (`bank_account`) and at
 * convenience stores (`store`, OXXO and others), and SPEI payouts. Every
 * path starts with the merchant id; amounts are pesos as decimals; ids are
 * 20 lower-case letters and digits. Openpay reads no idempotency header:
 * `order_id` is unique per merchant, and a second request with one already
 * used is refused (error_code 1006), so a retry never charges twice. Errors
 * are `{category, error_code, description, http_code, request_id}`.
 *
 * The sandbox accepts any merchant id in the path; the live API answers 404
 * for a merchant id that is not the account's.
 */

interface Transaction {
  id: string;
  kind: 'charge' | 'payout';
  method: string;
  amount: number;
  order_id: string | null;
  description: string | null;
  status: 'in_progress' | 'completed' | 'failed';
  creation_date: string;
  payment_method?: Record<string, unknown>;
  bank_account?: Record<string, unknown>;
}

interface OpenpayState {
  balance: number;
  transactions: Map<string, Transaction>;
  orders: Set<string>;
}

/** Amount limits Openpay documents for store payments (MXN). */
const STORE_MAX = 10_000;
/** What a fresh sandbox account holds for payouts, in pesos. */
export const OPENPAY_SANDBOX_BALANCE = 100_000;

function err(status: number, code: number, description: string): Reply {
  const category = status >= 500 ? 'internal' : status === 402 ? 'gateway' : 'request';
  return {
    status,
    body: { category, error_code: code, description, http_code: status, request_id: randomBytes(16).toString('hex') },
  };
}

function id(): string {
  return `tr${randomBytes(9).toString('hex')}`;
}

function clabeValid(clabe: unknown): clabe is string {
  if (typeof clabe !== 'string' || !/^\d{18}$/.test(clabe)) return false;
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(clabe[i]) * weights[i % 3]!) % 10;
  return (10 - (sum % 10)) % 10 === Number(clabe[17]);
}

function view(t: Transaction): Record<string, unknown> {
  return {
    id: t.id,
    authorization: null,
    operation_type: t.kind === 'charge' ? 'in' : 'out',
    transaction_type: t.kind,
    method: t.method,
    status: t.status,
    amount: t.amount,
    currency: 'MXN',
    order_id: t.order_id,
    description: t.description,
    creation_date: t.creation_date,
    error_message: null,
    ...(t.payment_method ? { payment_method: t.payment_method } : {}),
    ...(t.bank_account ? { bank_account: t.bank_account } : {}),
  };
}

function orderTaken(state: OpenpayState, orderId: unknown): Reply | null {
  if (typeof orderId !== 'string' || orderId.length === 0) return null;
  if (state.orders.has(orderId)) return err(409, 1006, 'The order_id has already been processed');
  return null;
}

export const openpay: ProviderModel<OpenpayState> = {
  // Openpay has no idempotency header; the sandbox's generic one is never sent by its catalog entry.
  idempotencyHeader: 'x-sandbox-idempotency-key',
  conflictStatus: 409,
  error: (status, _code, message) => err(status, status === 404 ? 1005 : status === 429 ? 3205 : 1000, message),
  unauthorized: (status) =>
    err(
      status,
      1002,
      status === 401 ? 'The api key or merchant id are invalid' : 'The merchant is not allowed to use this resource',
    ),
  createState: () => ({ balance: OPENPAY_SANDBOX_BALANCE, transactions: new Map(), orders: new Set() }),
  markPaid(state, txId) {
    const t = state.transactions.get(txId);
    if (!t || t.kind !== 'charge') return false;
    t.status = 'completed';
    return true;
  },
  routes: [
    {
      name: 'create_charge',
      method: 'POST',
      path: '/v1/:merchant_id/charges',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.amount !== 'number' || !(b.amount > 0)) return err(400, 1001, 'amount must be greater than 0');
        if (typeof b.description !== 'string' || !b.description) return err(400, 1001, 'description is required');
        const method = b.method;
        if (method === 'card') return err(412, 1001, 'source_id and device_session_id are required for card charges');
        if (method !== 'bank_account' && method !== 'store')
          return err(400, 1001, 'method must be card, store or bank_account');
        if (b.amount < 1) return err(400, 1001, 'The minimum amount is 1.00 MXN');
        if (method === 'store' && b.amount > STORE_MAX)
          return err(400, 1001, `The amount exceeds the maximum of ${STORE_MAX}.00 MXN allowed for store payments`);
        const taken = orderTaken(ctx.state, b.order_id);
        if (taken) return taken;
        const customer = isObject(b.customer) ? b.customer : undefined;
        if (!customer || typeof customer.name !== 'string' || typeof customer.email !== 'string')
          return err(400, 1001, 'customer.name and customer.email are required for store and bank_account charges');
        const t: Transaction = {
          id: id(),
          kind: 'charge',
          method,
          amount: round2(b.amount),
          order_id: typeof b.order_id === 'string' ? b.order_id : null,
          description: b.description,
          status: 'in_progress',
          creation_date: new Date().toISOString(),
          payment_method:
            method === 'bank_account'
              ? {
                  type: 'bank_transfer',
                  bank: 'STP',
                  clabe: '646180109400000000',
                  name: id().toUpperCase().slice(0, 12),
                }
              : {
                  type: 'store',
                  reference: `1010${randomBytes(6).toString('hex').toUpperCase()}`,
                  barcode_url: `${ctx.baseUrl}/barcode/${id()}`,
                },
        };
        ctx.state.transactions.set(t.id, t);
        if (t.order_id) ctx.state.orders.add(t.order_id);
        ctx.created('charges');
        return { status: 200, body: view(t) };
      },
    },
    {
      // The lookup by the merchant's own reference: a charge whose answer was lost is found by its order_id.
      name: 'list_charges',
      method: 'GET',
      path: '/v1/:merchant_id/charges',
      handle(ctx) {
        const orderId = ctx.query.get('order_id');
        const limit = Math.min(Number(ctx.query.get('limit') ?? 10) || 10, 100);
        const list = [...ctx.state.transactions.values()].filter(
          (t) => t.kind === 'charge' && (orderId === null || t.order_id === orderId),
        );
        return { status: 200, body: list.slice(-limit).reverse().map(view) };
      },
    },
    {
      name: 'get_charge',
      method: 'GET',
      path: '/v1/:merchant_id/charges/:transaction_id',
      handle(ctx) {
        const t = ctx.state.transactions.get(ctx.params.transaction_id!);
        return t && t.kind === 'charge'
          ? { status: 200, body: view(t) }
          : err(404, 1005, "The requested resource doesn't exist");
      },
    },
    {
      name: 'create_payout',
      method: 'POST',
      path: '/v1/:merchant_id/payouts',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (b.method !== 'bank_account') return err(400, 1001, 'method must be bank_account');
        if (typeof b.amount !== 'number' || !(b.amount > 0)) return err(400, 1001, 'amount must be greater than 0');
        const account = isObject(b.bank_account) ? b.bank_account : {};
        if (!clabeValid(account.clabe)) return err(400, 1001, 'The CLABE of the bank account is not valid');
        if (typeof account.holder_name !== 'string' || !account.holder_name)
          return err(400, 1001, 'bank_account.holder_name is required');
        const taken = orderTaken(ctx.state, b.order_id);
        if (taken) return taken;
        const amount = round2(b.amount);
        if (amount > ctx.state.balance)
          return err(412, 4001, 'There are not enough funds in the account to make the payout');
        ctx.state.balance = round2(ctx.state.balance - amount);
        const t: Transaction = {
          id: id(),
          kind: 'payout',
          method: 'bank_account',
          amount,
          order_id: typeof b.order_id === 'string' ? b.order_id : null,
          description: typeof b.description === 'string' ? b.description : null,
          status: 'in_progress',
          creation_date: new Date().toISOString(),
          bank_account: { clabe: account.clabe, holder_name: account.holder_name, bank_name: 'BANAMEX' },
        };
        ctx.state.transactions.set(t.id, t);
        if (t.order_id) ctx.state.orders.add(t.order_id);
        ctx.created('transfers');
        return { status: 200, body: view(t) };
      },
    },
  ],
};
