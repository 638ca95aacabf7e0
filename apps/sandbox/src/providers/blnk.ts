import { randomUUID } from 'node:crypto';
import { isObject, type ProviderModel, type Reply } from './types';

/**
 * Blnk, the open-source double-entry ledger: ledgers, balances holding
 * integers scaled by their precision (`currency_multiplier`), transactions
 * between balances or `@Indicator` balances created on first use (`@World`
 * for money entering the system), refunds, and the search API over
 * transactions (`filter_by`, `sort_by`, `per_page`). A transaction is
 * `QUEUED` and applied on the next read, or `APPLIED` (or `REJECTED` for
 * lack of funds) at once with `skip_queue`. The `reference` is Blnk's own
 * duplicate guard: the same request again replays its answer, another
 * request under a used reference is refused. Errors are `{error}`.
 */

interface Balance {
  balance_id: string;
  ledger_id: string;
  identity_id: string;
  indicator: string;
  currency: string;
  balance: number;
  credit_balance: number;
  debit_balance: number;
  inflight_balance: number;
  inflight_credit_balance: number;
  inflight_debit_balance: number;
  currency_multiplier: number;
  version: number;
  created_at: string;
  meta_data: Record<string, unknown> | null;
}

interface Transaction {
  transaction_id: string;
  parent_transaction: string;
  amount: number;
  precise_amount: number;
  precision: number;
  rate: number;
  currency: string;
  source: string;
  destination: string;
  reference: string;
  description: string;
  status: 'QUEUED' | 'APPLIED' | 'REJECTED';
  allow_overdraft: boolean;
  inflight: boolean;
  created_at: string;
  effective_date: string;
  meta_data: Record<string, unknown> | null;
}

interface BlnkState {
  ledgers: Map<string, Record<string, unknown>>;
  balances: Map<string, Balance>;
  /** `@Indicator|CUR` → balance id. */
  indicators: Map<string, string>;
  transactions: Map<string, Transaction>;
}

/** The ledger Blnk creates for itself, where `@Indicator` balances live. */
export const BLNK_GENERAL_LEDGER = 'general_ledger_id';

function err(status: number, message: string): Reply {
  return { status, body: { error: message } };
}

function newBalance(state: BlnkState, ledgerId: string, currency: string, extra: Partial<Balance> = {}): Balance {
  const b: Balance = {
    balance_id: `bln_${randomUUID()}`,
    ledger_id: ledgerId,
    identity_id: '',
    indicator: '',
    currency,
    balance: 0,
    credit_balance: 0,
    debit_balance: 0,
    inflight_balance: 0,
    inflight_credit_balance: 0,
    inflight_debit_balance: 0,
    currency_multiplier: 100,
    version: 0,
    created_at: new Date().toISOString(),
    meta_data: null,
    ...extra,
  };
  state.balances.set(b.balance_id, b);
  return b;
}

/** A balance by id, or an `@Indicator` balance (created on first use, as Blnk does). */
function resolve(state: BlnkState, ref: string, currency: string, precision: number): Balance | string {
  if (ref.startsWith('@')) {
    const key = `${ref}|${currency}`;
    const existing = state.indicators.get(key);
    if (existing) return state.balances.get(existing)!;
    const b = newBalance(state, BLNK_GENERAL_LEDGER, currency, { indicator: ref, currency_multiplier: precision });
    state.indicators.set(key, b.balance_id);
    return b;
  }
  const b = state.balances.get(ref);
  if (!b) return `balance ${ref} not found`;
  if (b.currency !== currency) return `balance ${ref} holds ${b.currency}, not ${currency}`;
  return b;
}

/** Applies a queued transaction: moves the amount, or rejects it when the source cannot cover it. */
function apply(state: BlnkState, t: Transaction): void {
  if (t.status !== 'QUEUED') return;
  const src = state.balances.get(t.source)!;
  const dst = state.balances.get(t.destination)!;
  if (!t.allow_overdraft && src.balance < t.precise_amount) {
    t.status = 'REJECTED';
    t.meta_data = { ...(t.meta_data ?? {}), blnk_rejection_reason: 'insufficient funds in source balance' };
    return;
  }
  src.balance -= t.precise_amount;
  src.debit_balance += t.precise_amount;
  src.version++;
  dst.balance += t.precise_amount;
  dst.credit_balance += t.precise_amount;
  dst.version++;
  t.status = 'APPLIED';
}

function settleAll(state: BlnkState): void {
  for (const t of state.transactions.values()) apply(state, t);
}

/** The transaction as Blnk shows it: balance ids, with indicator balances named by their indicator. */
function view(state: BlnkState, t: Transaction): Record<string, unknown> {
  const name = (id: string) => state.balances.get(id)?.indicator || id;
  return { ...t, source: name(t.source), destination: name(t.destination), amount_string: String(t.amount) };
}

type Predicate = (doc: Record<string, unknown>) => boolean;

/**
 * A small part of the search API's `filter_by`: `field:=value` clauses (also
 * `field:value` and `field:[a,b]`, values optionally in backticks, fields
 * dotted into objects) joined by `&&` and `||`, with parentheses; `&&` binds
 * tighter. A string says what could not be read.
 */
export function parseFilter(expr: string): Predicate | string {
  const tokens =
    expr
      .match(/\(|\)|&&|\|\||[^()&|]+/g)
      ?.map((t) => t.trim())
      .filter(Boolean) ?? [];
  let at = 0;
  const get = (doc: Record<string, unknown>, path: string): unknown =>
    path.split('.').reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), doc);
  const clause = (text: string): Predicate | string => {
    const m = /^([A-Za-z0-9_.]+)\s*:=?\s*(.+)$/.exec(text);
    if (!m) return `cannot parse filter clause "${text}"`;
    const field = m[1]!;
    const raw = m[2]!.trim();
    const values = (raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1).split(',') : [raw]).map((x) =>
      x.trim().replace(/^`(.*)`$/, '$1'),
    );
    return (doc) => values.includes(String(get(doc, field)));
  };
  const factor = (): Predicate | string => {
    const t = tokens[at++];
    if (t === undefined) return 'filter_by ends too early';
    if (t === '(') {
      const inner = or();
      if (typeof inner === 'string') return inner;
      if (tokens[at++] !== ')') return 'filter_by has an unclosed parenthesis';
      return inner;
    }
    if (t === ')' || t === '&&' || t === '||') return `unexpected "${t}" in filter_by`;
    return clause(t);
  };
  const and = (): Predicate | string => {
    const parts: Predicate[] = [];
    for (;;) {
      const f = factor();
      if (typeof f === 'string') return f;
      parts.push(f);
      if (tokens[at] !== '&&') return (doc) => parts.every((p) => p(doc));
      at++;
    }
  };
  const or = (): Predicate | string => {
    const parts: Predicate[] = [];
    for (;;) {
      const f = and();
      if (typeof f === 'string') return f;
      parts.push(f);
      if (tokens[at] !== '||') return (doc) => parts.some((p) => p(doc));
      at++;
    }
  };
  const result = or();
  if (typeof result !== 'string' && at < tokens.length) return `unexpected "${tokens[at]}" in filter_by`;
  return result;
}

export const blnk: ProviderModel<BlnkState> = {
  idempotencyHeader: 'idempotency-key',
  conflictStatus: 409,
  error: (status, code, message) =>
    err(status, code === 'idempotency_key_reused' ? 'reference has already been used' : message),
  unauthorized: (status) => err(status, status === 401 ? 'unauthorized' : 'forbidden'),
  createState: () => ({
    ledgers: new Map([
      [
        BLNK_GENERAL_LEDGER,
        {
          ledger_id: BLNK_GENERAL_LEDGER,
          name: 'General Ledger',
          created_at: new Date().toISOString(),
          meta_data: null,
        },
      ],
    ]),
    balances: new Map(),
    indicators: new Map(),
    transactions: new Map(),
  }),
  routes: [
    {
      name: 'create_ledger',
      method: 'POST',
      path: '/ledgers',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.name !== 'string' || !b.name) return err(400, 'name is required');
        const ledger = {
          ledger_id: `ldg_${randomUUID()}`,
          name: b.name,
          created_at: new Date().toISOString(),
          meta_data: isObject(b.meta_data) ? b.meta_data : null,
        };
        ctx.state.ledgers.set(ledger.ledger_id, ledger);
        ctx.created('ledgers');
        return { status: 201, body: ledger };
      },
    },
    {
      name: 'create_balance',
      method: 'POST',
      path: '/balances',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.ledger_id !== 'string' || !ctx.state.ledgers.has(b.ledger_id))
          return err(400, `ledger ${String(b.ledger_id ?? '')} not found`);
        if (typeof b.currency !== 'string' || !/^[A-Za-z]{3,5}$/.test(b.currency))
          return err(400, 'currency is required');
        const balance = newBalance(ctx.state, b.ledger_id, b.currency.toUpperCase(), {
          identity_id: typeof b.identity_id === 'string' ? b.identity_id : '',
          meta_data: isObject(b.meta_data) ? b.meta_data : null,
        });
        ctx.created('balances');
        return { status: 201, body: balance };
      },
    },
    {
      name: 'get_balance',
      method: 'GET',
      path: '/balances/:balance_id',
      handle(ctx) {
        settleAll(ctx.state);
        const b = ctx.state.balances.get(ctx.params.balance_id ?? '');
        return b ? { status: 200, body: b } : err(404, `balance ${ctx.params.balance_id} not found`);
      },
    },
    {
      name: 'record_transaction',
      method: 'POST',
      path: '/transactions',
      naturalKey: ({ body }) =>
        isObject(body) && typeof body.reference === 'string' ? `reference:${body.reference}` : undefined,
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.reference !== 'string' || !b.reference) return err(400, 'reference is required');
        if ([...ctx.state.transactions.values()].some((t) => t.reference === b.reference))
          return err(409, 'reference has already been used');
        if (typeof b.currency !== 'string' || !b.currency) return err(400, 'currency is required');
        const precision = b.precision === undefined ? 1 : b.precision;
        if (typeof precision !== 'number' || !Number.isInteger(precision) || precision < 1)
          return err(400, 'precision must be a positive integer');
        let precise: number;
        if (b.precise_amount !== undefined) {
          if (typeof b.precise_amount !== 'number' || !Number.isSafeInteger(b.precise_amount))
            return err(400, 'precise_amount must be an integer');
          precise = b.precise_amount;
        } else {
          if (typeof b.amount !== 'number' || !Number.isFinite(b.amount)) return err(400, 'amount is required');
          precise = Math.round(b.amount * precision);
          if (Math.abs(precise - b.amount * precision) > 1e-6)
            return err(400, 'amount has more decimal places than its precision');
        }
        if (precise <= 0) return err(400, 'amount must be greater than zero');
        if (typeof b.source !== 'string' || typeof b.destination !== 'string')
          return err(400, 'source and destination are required');
        if (b.source === b.destination) return err(400, 'source and destination must differ');
        const currency = b.currency.toUpperCase();
        const src = resolve(ctx.state, b.source, currency, precision);
        if (typeof src === 'string') return err(400, src);
        const dst = resolve(ctx.state, b.destination, currency, precision);
        if (typeof dst === 'string') return err(400, dst);
        // A balance takes the precision of its first movement and keeps it.
        for (const bal of [src, dst])
          if (bal.version > 0 && bal.currency_multiplier !== precision)
            return err(400, `balance ${bal.balance_id} keeps amounts with precision ${bal.currency_multiplier}`);
        for (const bal of [src, dst]) bal.currency_multiplier = precision;
        const now = new Date().toISOString();
        const t: Transaction = {
          transaction_id: `txn_${randomUUID()}`,
          parent_transaction: '',
          amount: precise / precision,
          precise_amount: precise,
          precision,
          rate: 0,
          currency,
          source: src.balance_id,
          destination: dst.balance_id,
          reference: b.reference,
          description: typeof b.description === 'string' ? b.description : '',
          status: 'QUEUED',
          allow_overdraft: b.allow_overdraft === true,
          inflight: false,
          created_at: now,
          effective_date: now,
          meta_data: isObject(b.meta_data) ? b.meta_data : null,
        };
        ctx.state.transactions.set(t.transaction_id, t);
        if (b.skip_queue === true) apply(ctx.state, t);
        ctx.created('transactions');
        return { status: 201, body: view(ctx.state, t) };
      },
    },
    {
      name: 'get_transaction',
      method: 'GET',
      path: '/transactions/:transaction_id',
      handle(ctx) {
        settleAll(ctx.state);
        const t = ctx.state.transactions.get(ctx.params.transaction_id ?? '');
        return t
          ? { status: 200, body: view(ctx.state, t) }
          : err(404, `transaction ${ctx.params.transaction_id} not found`);
      },
    },
    {
      name: 'refund_transaction',
      method: 'POST',
      path: '/refund-transaction/:transaction_id',
      handle(ctx) {
        settleAll(ctx.state);
        const t = ctx.state.transactions.get(ctx.params.transaction_id ?? '');
        if (!t) return err(404, `transaction ${ctx.params.transaction_id} not found`);
        if (t.status !== 'APPLIED')
          return err(400, `only an applied transaction can be refunded; this one is ${t.status}`);
        if ([...ctx.state.transactions.values()].some((x) => x.parent_transaction === t.transaction_id))
          return err(409, 'transaction has already been refunded');
        const now = new Date().toISOString();
        const refund: Transaction = {
          ...t,
          transaction_id: `txn_${randomUUID()}`,
          parent_transaction: t.transaction_id,
          source: t.destination,
          destination: t.source,
          reference: `ref_${randomUUID()}`,
          status: 'QUEUED',
          allow_overdraft: true,
          created_at: now,
          effective_date: now,
        };
        ctx.state.transactions.set(refund.transaction_id, refund);
        apply(ctx.state, refund);
        ctx.created('transactions');
        return { status: 201, body: view(ctx.state, refund) };
      },
    },
    {
      name: 'search_transactions',
      method: 'POST',
      path: '/search/transactions',
      handle(ctx) {
        settleAll(ctx.state);
        const b = isObject(ctx.body) ? ctx.body : {};
        const q = typeof b.q === 'string' && b.q !== '*' ? b.q.toLowerCase() : '';
        const filter = typeof b.filter_by === 'string' && b.filter_by.trim() ? parseFilter(b.filter_by) : () => true;
        if (typeof filter === 'string') return err(400, filter);
        const perPage =
          typeof b.per_page === 'number' && Number.isInteger(b.per_page) ? Math.min(250, Math.max(1, b.per_page)) : 10;
        const page = typeof b.page === 'number' && Number.isInteger(b.page) ? Math.max(1, b.page) : 1;
        const [sortField = 'created_at', sortDir = 'desc'] = (
          typeof b.sort_by === 'string' ? b.sort_by : 'created_at:desc'
        ).split(':');
        const docs = [...ctx.state.transactions.values()]
          .map((t) => view(ctx.state, t))
          .filter(
            (d) => (!q || `${String(d.reference)} ${String(d.description)}`.toLowerCase().includes(q)) && filter(d),
          );
        // Insertion order breaks ties, so equal timestamps keep the order they were written in.
        const ordered = docs.map((d, i) => ({ d, i }));
        ordered.sort((a, z) => {
          const x = String(a.d[sortField] ?? '');
          const y = String(z.d[sortField] ?? '');
          const c = x < y ? -1 : x > y ? 1 : a.i - z.i;
          return sortDir === 'asc' ? c : -c;
        });
        const hits = ordered.slice((page - 1) * perPage, page * perPage).map(({ d }) => ({ document: d }));
        return {
          status: 200,
          body: {
            found: docs.length,
            out_of: ctx.state.transactions.size,
            page,
            request_params: {
              collection_name: 'transactions',
              per_page: perPage,
              q: typeof b.q === 'string' ? b.q : '*',
            },
            search_time_ms: 0,
            hits,
          },
        };
      },
    },
  ],
};
