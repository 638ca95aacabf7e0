import { randomUUID } from 'node:crypto';
import { isObject, round2, type ProviderModel, type Reply } from './types';

/**
 * Wise Platform API, the payout path: a quote (`POST /v3/profiles/{id}/quotes`),
 * a recipient account (`POST /v1/accounts`, Mexican recipients by CLABE), a
 * transfer (`POST /v1/transfers`, idempotent by its `customerTransactionId`
 * UUID: the same id answers the transfer already made), and funding from the
 * balance (`POST /v3/profiles/{id}/transfers/{id}/payments`), which is what
 * moves the money and happens once per transfer. Errors are
 * `{errors: [{code, message, path, arguments}]}`.
 *
 * The sandbox accepts any profile id; the live API only the token owner's.
 */

interface Quote {
  id: string;
  sourceCurrency: string;
  targetCurrency: string;
  sourceAmount: number;
  targetAmount: number;
  rate: number;
  fee: number;
  createdTime: string;
}

interface Transfer {
  id: number;
  targetAccount: number;
  quoteUuid: string;
  customerTransactionId: string;
  status: string;
  reference: string;
  sourceCurrency: string;
  sourceValue: number;
  targetCurrency: string;
  targetValue: number;
  created: string;
  funded: boolean;
}

interface WiseState {
  balances: Record<string, number>;
  quotes: Map<string, Quote>;
  accounts: Map<number, Record<string, unknown>>;
  transfers: Map<number, Transfer>;
  byCustomerId: Map<string, number>;
  nextId: number;
}

/** What a fresh sandbox profile holds, per currency. */
export const WISE_SANDBOX_BALANCES: Readonly<Record<string, number>> = { MXN: 200_000, USD: 10_000, BRL: 50_000 };

function err(status: number, code: string, message: string, path?: string): Reply {
  return { status, body: { errors: [{ code, message, path: path ?? null, arguments: [] }] } };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function clabeValid(clabe: unknown): boolean {
  if (typeof clabe !== 'string' || !/^\d{18}$/.test(clabe)) return false;
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(clabe[i]) * weights[i % 3]!) % 10;
  return (10 - (sum % 10)) % 10 === Number(clabe[17]);
}

function transferView(t: Transfer): Record<string, unknown> {
  const { funded: _funded, ...rest } = t;
  return { ...rest, user: 1000, rate: 1, details: { reference: t.reference }, hasActiveIssues: false };
}

export const wise: ProviderModel<WiseState> = {
  // Wise reads no idempotency header: transfers are idempotent by customerTransactionId.
  idempotencyHeader: 'x-sandbox-idempotency-key',
  conflictStatus: 409,
  error: (status, code, message) => err(status, code, message),
  unauthorized: (status) =>
    status === 401
      ? err(401, 'invalid_token', 'Invalid token')
      : err(403, 'forbidden', 'You are not authorized to access this resource'),
  createState: () => ({
    balances: { ...WISE_SANDBOX_BALANCES },
    quotes: new Map(),
    accounts: new Map(),
    transfers: new Map(),
    byCustomerId: new Map(),
    nextId: 50_000_001,
  }),
  routes: [
    {
      name: 'create_quote',
      method: 'POST',
      path: '/v3/profiles/:profileId/quotes',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        const source = b.sourceCurrency;
        const target = b.targetCurrency;
        if (typeof source !== 'string' || typeof target !== 'string')
          return err(400, 'NotNull', 'sourceCurrency and targetCurrency are required');
        if (source !== target)
          return err(
            422,
            'error.route.not.supported',
            `Conversion from ${source} to ${target} is not available in the sandbox`,
          );
        const amount = typeof b.targetAmount === 'number' ? b.targetAmount : b.sourceAmount;
        if (typeof amount !== 'number' || !(amount > 0))
          return err(400, 'NotNull', 'sourceAmount or targetAmount is required', 'targetAmount');
        if (amount < 1)
          return err(422, 'error.amount.too.low', `The minimum amount to send is 1.00 ${target}`, 'targetAmount');
        const fee = round2(Math.max(10, amount * 0.005));
        const q: Quote = {
          id: randomUUID(),
          sourceCurrency: source,
          targetCurrency: target,
          sourceAmount: round2(amount + fee),
          targetAmount: round2(amount),
          rate: 1,
          fee,
          createdTime: new Date().toISOString(),
        };
        ctx.state.quotes.set(q.id, q);
        return {
          status: 200,
          body: {
            ...q,
            profile: Number(ctx.params.profileId) || ctx.params.profileId,
            rateType: 'FIXED',
            payOut: 'BANK_TRANSFER',
          },
        };
      },
    },
    {
      name: 'create_recipient',
      method: 'POST',
      path: '/v1/accounts',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.accountHolderName !== 'string' || b.accountHolderName.trim().split(/\s+/).length < 2)
          return err(422, 'NOT_VALID', "Please enter the recipient's first and last name.", 'accountHolderName');
        const details = isObject(b.details) ? b.details : {};
        if (b.currency === 'MXN' && !clabeValid(details.clabe))
          return err(422, 'NOT_VALID', 'Please specify a valid CLABE.', 'clabe');
        const account = {
          id: ctx.state.nextId++,
          currency: b.currency,
          type: b.type,
          accountHolderName: b.accountHolderName,
          details,
          active: true,
        };
        ctx.state.accounts.set(account.id, account);
        return { status: 200, body: account };
      },
    },
    {
      name: 'create_transfer',
      method: 'POST',
      path: '/v1/transfers',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.customerTransactionId !== 'string' || !UUID.test(b.customerTransactionId))
          return err(422, 'NOT_VALID', 'customerTransactionId must be a UUID', 'customerTransactionId');
        const existing = ctx.state.byCustomerId.get(b.customerTransactionId);
        if (existing !== undefined) return { status: 200, body: transferView(ctx.state.transfers.get(existing)!) };
        const quote = typeof b.quoteUuid === 'string' ? ctx.state.quotes.get(b.quoteUuid) : undefined;
        if (!quote) return err(422, 'NOT_VALID', 'Quote not found', 'quoteUuid');
        const account = typeof b.targetAccount === 'number' ? ctx.state.accounts.get(b.targetAccount) : undefined;
        if (!account) return err(422, 'NOT_VALID', 'Recipient account not found', 'targetAccount');
        const details = isObject(b.details) ? b.details : {};
        const t: Transfer = {
          id: ctx.state.nextId++,
          targetAccount: b.targetAccount as number,
          quoteUuid: quote.id,
          customerTransactionId: b.customerTransactionId,
          status: 'incoming_payment_waiting',
          reference: typeof details.reference === 'string' ? details.reference : '',
          sourceCurrency: quote.sourceCurrency,
          sourceValue: quote.sourceAmount,
          targetCurrency: quote.targetCurrency,
          targetValue: quote.targetAmount,
          created: new Date().toISOString().replace('T', ' ').slice(0, 19),
          funded: false,
        };
        ctx.state.transfers.set(t.id, t);
        ctx.state.byCustomerId.set(t.customerTransactionId, t.id);
        return { status: 200, body: transferView(t) };
      },
    },
    {
      name: 'fund_transfer',
      method: 'POST',
      path: '/v3/profiles/:profileId/transfers/:transferId/payments',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (b.type !== 'BALANCE') return err(422, 'NOT_VALID', 'type must be BALANCE', 'type');
        const t = ctx.state.transfers.get(Number(ctx.params.transferId));
        if (!t) return err(404, 'transfer.not.found', 'Transfer not found');
        if (t.funded) return err(409, 'transfer.already.funded', 'This transfer has already been funded');
        const balance = ctx.state.balances[t.sourceCurrency] ?? 0;
        if (balance < t.sourceValue)
          return {
            status: 200,
            body: {
              type: 'BALANCE',
              status: 'REJECTED',
              errorCode: 'transfer.insufficient_funds',
              balanceTransactionId: null,
            },
          };
        ctx.state.balances[t.sourceCurrency] = round2(balance - t.sourceValue);
        t.funded = true;
        t.status = 'processing';
        ctx.created('transfers');
        return {
          status: 201,
          body: { type: 'BALANCE', status: 'COMPLETED', errorCode: null, balanceTransactionId: ctx.state.nextId++ },
        };
      },
    },
    {
      name: 'get_transfer',
      method: 'GET',
      path: '/v1/transfers/:transferId',
      handle(ctx) {
        const t = ctx.state.transfers.get(Number(ctx.params.transferId));
        return t ? { status: 200, body: transferView(t) } : err(404, 'transfer.not.found', 'Transfer not found');
      },
    },
  ],
};
