import { randomBytes, randomUUID } from 'node:crypto';
import { isObject, type ProviderModel, type Reply } from './types';

/**
 * Circle's account API for USDC (Circle Mint): balances, deposit addresses
 * per chain, allow-listed recipient addresses, transfers from the business
 * account to a verified address, and transfers from the account's master
 * wallet straight to a blockchain address. Amounts are dollar strings
 * (`"100.50"`, `USD` meaning USDC), every creation carries an
 * `idempotencyKey` in its body (the provider's own key), answers are wrapped
 * in `{data}` and errors are `{code, message}`. A transfer is `pending` when
 * created and `complete`, with its transaction hash, on the next read.
 */

interface Transfer {
  id: string;
  source: { type: 'wallet'; id: string };
  destination: { type: 'blockchain'; address: string; chain: string };
  amount: { amount: string; currency: string };
  transactionHash?: string;
  status: 'pending' | 'complete' | 'failed';
  createDate: string;
}

interface Address {
  id: string;
  address: string;
  chain: string;
  currency: string;
  description?: string;
}

interface CircleState {
  /** Available balance per currency, in cents. */
  available: Map<string, number>;
  deposit: Map<string, Address>;
  recipients: Map<string, Address>;
  transfers: Map<string, Transfer>;
}

/** The account's master wallet, the source of every transfer. */
export const CIRCLE_MASTER_WALLET = '1000000001';

const CHAINS = ['ETH', 'MATIC', 'BASE', 'SOL', 'AVAX', 'ARB'];
const CURRENCIES = ['USD', 'EUR'];
const EVM = /^0x[0-9a-fA-F]{40}$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

function err(status: number, code: number | string, message: string): Reply {
  return { status, body: { code: typeof code === 'number' ? code : status === 404 ? 404 : 2, message } };
}

const invalid = (message: string): Reply => err(400, 2, message);

function addressFor(chain: string): string {
  if (chain === 'SOL') {
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    return [...randomBytes(44)].map((b) => alphabet[b % alphabet.length]).join('');
  }
  return `0x${randomBytes(20).toString('hex')}`;
}

function validAddress(address: string, chain: string): boolean {
  return chain === 'SOL' ? BASE58.test(address) : EVM.test(address);
}

/** `"100.50"` → 10050 cents; undefined when it is not a positive dollar amount with at most two decimals. */
function parseAmount(v: unknown): number | undefined {
  if (typeof v !== 'string' || !/^\d+(\.\d{1,2})?$/.test(v)) return undefined;
  const [units, frac = ''] = v.split('.');
  const value = Number(units) * 100 + Number(frac.padEnd(2, '0'));
  return value > 0 && Number.isSafeInteger(value) ? value : undefined;
}

const dollars = (cents: number): string => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** Reads `{amount: {amount, currency}}` and checks the balance; the amount in cents or an error. */
function debit(state: CircleState, amount: unknown): { cents: number; currency: string } | Reply {
  if (!isObject(amount)) return invalid('amount is required.');
  const cents = parseAmount(amount.amount);
  if (cents === undefined)
    return invalid('amount.amount must be a positive amount with at most two decimal places, as a string.');
  const currency = String(amount.currency ?? '');
  if (!CURRENCIES.includes(currency)) return invalid(`amount.currency must be one of ${CURRENCIES.join(', ')}.`);
  const available = state.available.get(currency) ?? 0;
  if (cents > available) return err(400, 5, `Insufficient funds: ${dollars(available)} ${currency} available.`);
  return { cents, currency };
}

function settle(t: Transfer): Transfer {
  if (t.status === 'pending') {
    t.status = 'complete';
    t.transactionHash = `0x${randomBytes(32).toString('hex')}`;
  }
  return t;
}

function idempotencyKeyOf(ctx: { body: unknown }): string | undefined {
  return isObject(ctx.body) && typeof ctx.body.idempotencyKey === 'string' ? ctx.body.idempotencyKey : undefined;
}

export const circle: ProviderModel<CircleState> = {
  idempotencyHeader: 'x-idempotency-key',
  conflictStatus: 409,
  error: (status, code, message) => err(status, code === 'not_found' ? 404 : status >= 500 ? 1 : 2, message),
  unauthorized: (status) =>
    status === 401
      ? err(401, 401, 'Malformed authorization. Are the credentials properly encoded?')
      : err(403, 403, 'Forbidden.'),
  createState: () => ({
    available: new Map([
      ['USD', 1_000_000],
      ['EUR', 250_000],
    ]),
    deposit: new Map(),
    recipients: new Map(),
    transfers: new Map(),
  }),
  routes: [
    {
      name: 'get_balances',
      method: 'GET',
      path: '/v1/businessAccount/balances',
      handle(ctx) {
        const available = [...ctx.state.available.entries()].map(([currency, cents]) => ({
          amount: dollars(cents),
          currency,
        }));
        return { status: 200, body: { data: { available, unsettled: [] } } };
      },
    },
    {
      // Circle hands out one deposit address per chain and currency: asking
      // again answers the same address.
      name: 'create_deposit_address',
      method: 'POST',
      path: '/v1/businessAccount/wallets/addresses/deposit',
      naturalKey: idempotencyKeyOf,
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.idempotencyKey !== 'string' || !b.idempotencyKey) return invalid('idempotencyKey is required.');
        const currency = String(b.currency ?? '');
        const chain = String(b.chain ?? '');
        if (!CURRENCIES.includes(currency)) return invalid(`currency must be one of ${CURRENCIES.join(', ')}.`);
        if (!CHAINS.includes(chain)) return invalid(`chain ${chain} is not supported for ${currency}.`);
        const key = `${chain}:${currency}`;
        let address = ctx.state.deposit.get(key);
        if (!address) {
          address = { id: randomUUID(), address: addressFor(chain), chain, currency };
          ctx.state.deposit.set(key, address);
          ctx.created('deposit_addresses');
        }
        return { status: 201, body: { data: address } };
      },
    },
    {
      name: 'list_deposit_addresses',
      method: 'GET',
      path: '/v1/businessAccount/wallets/addresses/deposit',
      handle: (ctx) => ({ status: 200, body: { data: [...ctx.state.deposit.values()] } }),
    },
    {
      name: 'add_recipient_address',
      method: 'POST',
      path: '/v1/businessAccount/wallets/addresses/recipient',
      naturalKey: idempotencyKeyOf,
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.idempotencyKey !== 'string' || !b.idempotencyKey) return invalid('idempotencyKey is required.');
        const chain = String(b.chain ?? '');
        const currency = String(b.currency ?? '');
        if (!CHAINS.includes(chain)) return invalid(`chain ${chain} is not supported.`);
        if (!CURRENCIES.includes(currency)) return invalid(`currency must be one of ${CURRENCIES.join(', ')}.`);
        if (typeof b.address !== 'string' || !validAddress(b.address, chain))
          return invalid(`address is not a valid ${chain} address.`);
        if (typeof b.description !== 'string' || !b.description) return invalid('description is required.');
        const address: Address = { id: randomUUID(), address: b.address, chain, currency, description: b.description };
        ctx.state.recipients.set(address.id, address);
        ctx.created('recipient_addresses');
        return { status: 201, body: { data: { ...address, status: 'active' } } };
      },
    },
    {
      name: 'create_transfer',
      method: 'POST',
      path: '/v1/businessAccount/transfers',
      naturalKey: idempotencyKeyOf,
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.idempotencyKey !== 'string' || !b.idempotencyKey) return invalid('idempotencyKey is required.');
        const d = isObject(b.destination) ? b.destination : {};
        if (d.type !== 'verified_blockchain') return invalid('destination.type must be verified_blockchain.');
        const recipient = ctx.state.recipients.get(String(d.addressId ?? ''));
        if (!recipient) return invalid('destination.addressId is not a verified recipient address.');
        const money = debit(ctx.state, b.amount);
        if (!('cents' in money)) return money;
        if (money.currency !== recipient.currency) return invalid(`The recipient address takes ${recipient.currency}.`);
        return createTransfer(ctx, money, recipient.address, recipient.chain);
      },
    },
    {
      name: 'get_transfer',
      method: 'GET',
      path: '/v1/businessAccount/transfers/:id',
      handle(ctx) {
        const t = ctx.state.transfers.get(ctx.params.id ?? '');
        return t ? { status: 200, body: { data: settle(t) } } : err(404, 404, 'Transfer not found.');
      },
    },
    {
      // From a hosted wallet to any blockchain address (no allow-list step).
      name: 'create_wallet_transfer',
      method: 'POST',
      path: '/v1/transfers',
      naturalKey: idempotencyKeyOf,
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.idempotencyKey !== 'string' || !b.idempotencyKey) return invalid('idempotencyKey is required.');
        if (b.source !== undefined) {
          const s = isObject(b.source) ? b.source : {};
          if (s.type !== 'wallet' || s.id !== CIRCLE_MASTER_WALLET)
            return invalid('source must be a wallet of this account.');
        }
        const d = isObject(b.destination) ? b.destination : {};
        if (d.type !== 'blockchain') return invalid('destination.type must be blockchain.');
        const chain = String(d.chain ?? '');
        if (!CHAINS.includes(chain)) return invalid(`chain ${chain} is not supported.`);
        if (typeof d.address !== 'string' || !validAddress(d.address, chain))
          return invalid(`destination.address is not a valid ${chain} address.`);
        const money = debit(ctx.state, b.amount);
        if (!('cents' in money)) return money;
        return createTransfer(ctx, money, d.address, chain);
      },
    },
    {
      name: 'get_wallet_transfer',
      method: 'GET',
      path: '/v1/transfers/:id',
      handle(ctx) {
        const t = ctx.state.transfers.get(ctx.params.id ?? '');
        return t ? { status: 200, body: { data: settle(t) } } : err(404, 404, 'Transfer not found.');
      },
    },
  ],
};

function createTransfer(
  ctx: { state: CircleState; created(resource: string): void },
  money: { cents: number; currency: string },
  address: string,
  chain: string,
): Reply {
  ctx.state.available.set(money.currency, (ctx.state.available.get(money.currency) ?? 0) - money.cents);
  const transfer: Transfer = {
    id: randomUUID(),
    source: { type: 'wallet', id: CIRCLE_MASTER_WALLET },
    destination: { type: 'blockchain', address, chain },
    amount: { amount: dollars(money.cents), currency: money.currency },
    status: 'pending',
    createDate: new Date().toISOString(),
  };
  ctx.state.transfers.set(transfer.id, transfer);
  ctx.created('transfers');
  return { status: 201, body: { data: { ...transfer } } };
}
