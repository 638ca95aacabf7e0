import { randomBytes, randomUUID } from 'node:crypto';
import { pixPayload, PLACEHOLDER_PNG_BASE64, staticPixPayload } from './pix';
import { isObject, round2, today, type ProviderModel, type Reply, type RouteContext } from './types';

/**
 * Asaas v3: customers, charges by Pix, boleto or card, the Pix QR code of a
 * charge and refunds (cobranças); the account side too: its balance, the
 * financial transactions that move it, transfers out to a Pix key or a bank
 * account, and static Pix QR codes to receive on the account's own key.
 * Values are reais as decimals, ids carry `cus_`/`pay_`/`ft_` prefixes
 * (transfers are UUIDs), errors are `{errors: [{code, description}]}`.
 */

interface Payment {
  object: 'payment';
  id: string;
  dateCreated: string;
  customer: string;
  value: number;
  netValue: number;
  billingType: string;
  status: string;
  dueDate: string;
  description: string | null;
  externalReference: string | null;
  invoiceUrl: string;
  bankSlipUrl: string | null;
  deleted: boolean;
  refunds: { dateCreated: string; status: string; value: number; description: string | null }[] | null;
}

interface Transfer {
  object: 'transfer';
  id: string;
  type: 'PIX' | 'TED';
  dateCreated: string;
  value: number;
  netValue: number;
  status: 'PENDING' | 'BANK_PROCESSING' | 'DONE' | 'CANCELLED' | 'FAILED';
  transferFee: number;
  effectiveDate: string | null;
  scheduleDate: string;
  endToEndIdentifier: string | null;
  authorized: boolean;
  failReason: string | null;
  externalReference: string | null;
  transactionReceiptUrl: string | null;
  operationType: 'PIX' | 'TED';
  description: string | null;
  recurring: null;
  bankAccount: Record<string, unknown>;
}

interface FinancialTransaction {
  object: 'financialTransaction';
  id: string;
  value: number;
  balance: number;
  type: string;
  date: string;
  description: string;
  paymentId: string | null;
  transferId: string | null;
}

interface PixQrCode {
  id: string;
  encodedImage: string;
  payload: string;
  allowsMultiplePayments: boolean;
  expirationDate: string | null;
  externalReference: string | null;
  description: string | null;
  value: number | null;
  addressKey: string;
}

interface AsaasState {
  customers: Map<string, Record<string, unknown>>;
  payments: Map<string, Payment>;
  /** The account's available balance in reais. */
  balance: number;
  transfers: Map<string, Transfer>;
  /** Oldest first, as the balance moved. */
  ledger: FinancialTransaction[];
  pixQrCodes: Map<string, PixQrCode>;
}

/** A customer every fresh sandbox already has, so a charge can be the first call. */
export const ASAAS_SANDBOX_CUSTOMER = 'cus_000000000001';

/** The random (EVP) Pix key the sandbox account owns, the one its static QR codes receive on. */
export const ASAAS_SANDBOX_PIX_KEY = '5e0a8c1d-2f47-4b6e-9a3c-7d81e0f4b2a9';

/** What a fresh sandbox account holds, in reais, so a transfer can be the first call. */
export const ASAAS_SANDBOX_OPENING_BALANCE = 10_000;

const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'];
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a Pix key is well formed for its type, as the DICT would check it. */
function pixKeyFits(key: string, type: string): boolean {
  switch (type) {
    case 'CPF':
      return /^\d{11}$/.test(key);
    case 'CNPJ':
      return /^\d{14}$/.test(key);
    case 'EMAIL':
      return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(key) && key.length <= 77;
    case 'PHONE':
      return /^(\+55)?\d{10,11}$/.test(key);
    case 'EVP':
      return EVP.test(key);
    default:
      return false;
  }
}

function mask(doc: string): string {
  return doc.length === 11
    ? `***.${doc.slice(3, 6)}.${doc.slice(6, 9)}-**`
    : doc.length === 14
      ? `**.${doc.slice(2, 5)}.${doc.slice(5, 8)}/****-**`
      : doc;
}

/** Moves the balance and writes the movement down, as the account statement shows it. */
function post(
  state: AsaasState,
  value: number,
  type: string,
  description: string,
  refs: { paymentId?: string; transferId?: string } = {},
): void {
  state.balance = round2(state.balance + value);
  state.ledger.push({
    object: 'financialTransaction',
    id: id('ft'),
    value: round2(value),
    balance: state.balance,
    type,
    date: today(),
    description,
    paymentId: refs.paymentId ?? null,
    transferId: refs.transferId ?? null,
  });
}

/** A Pix transfer settles in seconds: the first read after it was accepted finds it done. */
function settle(t: Transfer, baseUrl: string): void {
  if (t.status !== 'PENDING' || t.scheduleDate > today()) return;
  t.status = 'DONE';
  t.effectiveDate = today();
  if (t.operationType === 'PIX')
    t.endToEndIdentifier = `E19540550${today().replace(/-/g, '')}${randomBytes(6).toString('hex')}`.slice(0, 32);
  t.transactionReceiptUrl = `${baseUrl}/comprovantes/${t.id}`;
}

function page<T>(ctx: RouteContext<AsaasState>, all: T[]): Reply {
  const offset = Math.max(0, Number(ctx.query.get('offset') ?? 0) || 0);
  const limit = Math.min(100, Math.max(1, Number(ctx.query.get('limit') ?? 10) || 10));
  const data = all.slice(offset, offset + limit);
  return {
    status: 200,
    body: { object: 'list', hasMore: offset + data.length < all.length, totalCount: all.length, limit, offset, data },
  };
}

const BILLING_TYPES = ['PIX', 'BOLETO', 'CREDIT_CARD', 'UNDEFINED'];
const PAID = ['RECEIVED', 'CONFIRMED'];

function id(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

function err(status: number, code: string, description: string): Reply {
  return { status, body: { errors: [{ code, description }] } };
}

function getPayment(ctx: RouteContext<AsaasState>): Payment | Reply {
  const payment = ctx.state.payments.get(ctx.params.id ?? '');
  return payment ?? err(404, 'invalid_object', `Cobrança ${ctx.params.id} não encontrada.`);
}

export const asaas: ProviderModel<AsaasState> = {
  // Asaas has no idempotency header of its own; the sandbox honours the common one.
  idempotencyHeader: 'idempotency-key',
  conflictStatus: 409,
  error: err,
  unauthorized: (status) =>
    status === 401
      ? err(401, 'invalid_access_token', 'A chave de API fornecida é inválida')
      : err(403, 'forbidden', 'Acesso negado para este recurso.'),
  createState: () => {
    const state: AsaasState = {
      customers: new Map([
        [
          ASAAS_SANDBOX_CUSTOMER,
          {
            object: 'customer',
            id: ASAAS_SANDBOX_CUSTOMER,
            name: 'Cliente Sandbox',
            cpfCnpj: '24971563792',
            deleted: false,
          },
        ],
      ]),
      payments: new Map(),
      balance: 0,
      transfers: new Map(),
      ledger: [],
      pixQrCodes: new Map(),
    };
    post(state, ASAAS_SANDBOX_OPENING_BALANCE, 'INTERNAL_TRANSFER_CREDIT', 'Crédito inicial da conta sandbox');
    return state;
  },
  markPaid(state, paymentId) {
    const payment = state.payments.get(paymentId);
    if (!payment) return false;
    if (!PAID.includes(payment.status))
      post(state, payment.netValue, 'PAYMENT_RECEIVED', `Cobrança recebida - fatura nr. ${paymentId.slice(4)}`, {
        paymentId,
      });
    payment.status = 'RECEIVED';
    return true;
  },
  routes: [
    {
      name: 'create_customer',
      method: 'POST',
      path: '/v3/customers',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.name !== 'string' || !b.name) return err(400, 'invalid_name', 'O campo name deve ser informado.');
        if (typeof b.cpfCnpj !== 'string' || !/^(\d{11}|\d{14})$/.test(b.cpfCnpj))
          return err(400, 'invalid_cpfCnpj', 'O CPF/CNPJ informado é inválido.');
        const customer = { object: 'customer', id: id('cus'), dateCreated: today(), ...b, deleted: false };
        ctx.state.customers.set(customer.id, customer);
        ctx.created('customers');
        return { status: 200, body: customer };
      },
    },
    {
      name: 'create_payment',
      method: 'POST',
      path: '/v3/payments',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.customer !== 'string' || !ctx.state.customers.has(b.customer))
          return err(400, 'invalid_customer', 'Customer inválido ou não informado.');
        if (typeof b.billingType !== 'string' || !BILLING_TYPES.includes(b.billingType))
          return err(400, 'invalid_billingType', 'Informe uma forma de pagamento válida.');
        if (typeof b.value !== 'number' || !(b.value >= 5))
          return err(400, 'invalid_value', 'O valor da cobrança deve ser de no mínimo R$ 5,00.');
        if (typeof b.dueDate !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(b.dueDate))
          return err(400, 'invalid_dueDate', 'A data de vencimento deve estar no formato AAAA-MM-DD.');
        if (b.dueDate < today())
          return err(400, 'invalid_dueDate', 'A data de vencimento não pode ser anterior à data atual.');
        const paymentId = id('pay');
        const payment: Payment = {
          object: 'payment',
          id: paymentId,
          dateCreated: today(),
          customer: b.customer,
          value: round2(b.value),
          netValue: round2(b.billingType === 'PIX' ? b.value - 0.99 : b.value * 0.9701),
          billingType: b.billingType,
          status: 'PENDING',
          dueDate: b.dueDate,
          description: typeof b.description === 'string' ? b.description : null,
          externalReference: typeof b.externalReference === 'string' ? b.externalReference : null,
          invoiceUrl: `${ctx.baseUrl}/i/${paymentId.slice(4)}`,
          bankSlipUrl: b.billingType === 'BOLETO' ? `${ctx.baseUrl}/b/pdf/${paymentId.slice(4)}` : null,
          deleted: false,
          refunds: null,
        };
        ctx.state.payments.set(paymentId, payment);
        ctx.created('charges');
        return { status: 200, body: payment };
      },
    },
    {
      // The charge a create_payment under this idempotency key made, as it
      // stands now; how Rota reconciles a call whose answer it never saw.
      name: 'find_payment_by_idempotency_key',
      method: 'GET',
      path: '/v3/payments/idempotency/:key',
      handle(ctx) {
        const made = ctx.idempotentReply(ctx.params.key ?? '')?.body;
        const payment =
          isObject(made) && made.object === 'payment' ? ctx.state.payments.get(String(made.id)) : undefined;
        return payment
          ? { status: 200, body: payment }
          : err(404, 'invalid_object', 'Nenhuma cobrança foi criada com esta chave de idempotência.');
      },
    },
    {
      name: 'get_payment',
      method: 'GET',
      path: '/v3/payments/:id',
      handle(ctx) {
        const p = getPayment(ctx);
        return 'object' in p ? { status: 200, body: p } : p;
      },
    },
    {
      // Filters by externalReference and customer: how a caller finds a
      // charge whose creation answer it never saw.
      name: 'list_payments',
      method: 'GET',
      path: '/v3/payments',
      handle(ctx) {
        const ext = ctx.query.get('externalReference');
        const customer = ctx.query.get('customer');
        const status = ctx.query.get('status');
        const offset = Math.max(0, Number(ctx.query.get('offset') ?? 0) || 0);
        const limit = Math.min(100, Math.max(1, Number(ctx.query.get('limit') ?? 10) || 10));
        const all = [...ctx.state.payments.values()].filter(
          (p) =>
            (!ext || p.externalReference === ext) &&
            (!customer || p.customer === customer) &&
            (!status || p.status === status),
        );
        const data = all.slice(offset, offset + limit);
        return {
          status: 200,
          body: {
            object: 'list',
            hasMore: offset + data.length < all.length,
            totalCount: all.length,
            limit,
            offset,
            data,
          },
        };
      },
    },
    {
      name: 'get_pix_qrcode',
      method: 'GET',
      path: '/v3/payments/:id/pixQrCode',
      handle(ctx) {
        const p = getPayment(ctx);
        if (!('object' in p)) return p;
        if (p.billingType !== 'PIX' && p.billingType !== 'UNDEFINED')
          return err(400, 'invalid_billingType', 'A cobrança não permite pagamento via Pix.');
        return {
          status: 200,
          body: {
            encodedImage: PLACEHOLDER_PNG_BASE64,
            payload: pixPayload(p.value),
            expirationDate: `${p.dueDate} 23:59:59`,
            success: true,
          },
        };
      },
    },
    {
      // Asaas refunds only what was received; a partial refund keeps the
      // charge's status and lists the refund, a full one marks it REFUNDED.
      name: 'refund_payment',
      method: 'POST',
      path: '/v3/payments/:id/refund',
      handle(ctx) {
        const p = getPayment(ctx);
        if (!('object' in p)) return p;
        if (!PAID.includes(p.status))
          return err(400, 'invalid_action', `Não é possível estornar uma cobrança com situação ${p.status}.`);
        const b = isObject(ctx.body) ? ctx.body : {};
        const refunded = (p.refunds ?? []).reduce((s, r) => s + r.value, 0);
        const remaining = round2(p.value - refunded);
        const value = b.value === undefined ? remaining : b.value;
        if (typeof value !== 'number' || !(value > 0) || value > remaining)
          return err(400, 'invalid_value', `O valor do estorno deve estar entre R$ 0,01 e R$ ${remaining.toFixed(2)}.`);
        p.refunds = [
          ...(p.refunds ?? []),
          {
            dateCreated: today(),
            status: 'DONE',
            value: round2(value),
            description: typeof b.description === 'string' ? b.description : null,
          },
        ];
        if (round2(remaining - value) === 0) p.status = 'REFUNDED';
        post(ctx.state, -value, 'PAYMENT_REFUND', `Estorno da cobrança - fatura nr. ${p.id.slice(4)}`, {
          paymentId: p.id,
        });
        ctx.created('refunds');
        return { status: 200, body: p };
      },
    },
    {
      // Pix to a key, or Pix/TED to a bank account. The amount leaves the
      // balance when the transfer is accepted; more than the balance is refused.
      name: 'create_transfer',
      method: 'POST',
      path: '/v3/transfers',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.value !== 'number' || !(b.value >= 0.01))
          return err(400, 'invalid_value', 'O valor da transferência deve ser de no mínimo R$ 0,01.');
        const value = round2(b.value);
        const scheduleDate = typeof b.scheduleDate === 'string' ? b.scheduleDate : today();
        if (!/^\d{4}-\d{2}-\d{2}$/.test(scheduleDate) || scheduleDate < today())
          return err(
            400,
            'invalid_scheduleDate',
            'A data de agendamento deve ser hoje ou uma data futura no formato AAAA-MM-DD.',
          );
        let bankAccount: Record<string, unknown>;
        let operationType: 'PIX' | 'TED' = 'PIX';
        if (b.pixAddressKey !== undefined) {
          const type = b.pixAddressKeyType;
          if (typeof type !== 'string' || !PIX_KEY_TYPES.includes(type))
            return err(
              400,
              'invalid_pixAddressKeyType',
              'Informe o tipo da chave Pix: CPF, CNPJ, EMAIL, PHONE ou EVP.',
            );
          if (typeof b.pixAddressKey !== 'string' || !pixKeyFits(b.pixAddressKey, type))
            return err(400, 'invalid_pixAddressKey', `A chave Pix informada não é uma chave ${type} válida.`);
          const owner = type === 'CPF' || type === 'CNPJ' ? b.pixAddressKey : '24971563792';
          bankAccount = {
            bank: { ispb: '00000000', code: '001', name: 'Banco Sandbox' },
            accountName: null,
            ownerName: 'Favorecido Sandbox',
            cpfCnpj: mask(owner),
            agency: null,
            account: null,
            accountDigit: null,
            pixAddressKey: b.pixAddressKey,
          };
        } else if (isObject(b.bankAccount)) {
          const a = b.bankAccount;
          const doc = typeof a.cpfCnpj === 'string' ? a.cpfCnpj.replace(/\D/g, '') : '';
          if (
            typeof a.ownerName !== 'string' ||
            (doc.length !== 11 && doc.length !== 14) ||
            typeof a.agency !== 'string' ||
            typeof a.account !== 'string'
          )
            return err(400, 'invalid_bankAccount', 'Informe ownerName, cpfCnpj, agency e account da conta de destino.');
          operationType = b.operationType === 'TED' ? 'TED' : 'PIX';
          bankAccount = { ...a, cpfCnpj: mask(doc), pixAddressKey: null };
        } else {
          return err(400, 'invalid_action', 'Informe pixAddressKey e pixAddressKeyType, ou bankAccount.');
        }
        if (value > ctx.state.balance)
          return err(400, 'insufficient_balance', 'Saldo insuficiente para realizar a transferência.');
        const transfer: Transfer = {
          object: 'transfer',
          id: randomUUID(),
          type: operationType,
          dateCreated: today(),
          value,
          netValue: value,
          status: 'PENDING',
          transferFee: 0,
          effectiveDate: null,
          scheduleDate,
          endToEndIdentifier: null,
          authorized: true,
          failReason: null,
          externalReference: typeof b.externalReference === 'string' ? b.externalReference : null,
          transactionReceiptUrl: null,
          operationType,
          description: typeof b.description === 'string' ? b.description : null,
          recurring: null,
          bankAccount,
        };
        ctx.state.transfers.set(transfer.id, transfer);
        post(ctx.state, -value, 'TRANSFER', `Transferência para ${String(bankAccount.ownerName)}`, {
          transferId: transfer.id,
        });
        ctx.created('transfers');
        return { status: 200, body: transfer };
      },
    },
    {
      name: 'get_transfer',
      method: 'GET',
      path: '/v3/transfers/:id',
      handle(ctx) {
        const t = ctx.state.transfers.get(ctx.params.id ?? '');
        if (!t) return err(404, 'invalid_object', `Transferência ${ctx.params.id} não encontrada.`);
        settle(t, ctx.baseUrl);
        return { status: 200, body: t };
      },
    },
    {
      name: 'get_balance',
      method: 'GET',
      path: '/v3/finance/balance',
      handle(ctx) {
        return { status: 200, body: { balance: ctx.state.balance } };
      },
    },
    {
      // The account statement: every movement of the balance, with the
      // balance after it. `order=desc` lists the newest first.
      name: 'list_financial_transactions',
      method: 'GET',
      path: '/v3/financialTransactions',
      handle(ctx) {
        const start = ctx.query.get('startDate');
        const finish = ctx.query.get('finishDate');
        const rows = ctx.state.ledger.filter((t) => (!start || t.date >= start) && (!finish || t.date <= finish));
        return page(ctx, ctx.query.get('order') === 'desc' ? [...rows].reverse() : rows);
      },
    },
    {
      // The account's own Pix keys: the sandbox account has one random key.
      name: 'list_pix_address_keys',
      method: 'GET',
      path: '/v3/pix/addressKeys',
      handle(ctx) {
        const status = ctx.query.get('status');
        const keys = [
          {
            id: 'b1e6d1f0-7c1a-4b7e-8d8e-3f2a9c0d4e51',
            key: ASAAS_SANDBOX_PIX_KEY,
            type: 'EVP',
            status: 'ACTIVE',
            dateCreated: '2024-01-02 10:00:00',
            canBeDeleted: true,
            cannotBeDeletedReason: null,
            qrCode: { encodedImage: PLACEHOLDER_PNG_BASE64, payload: staticPixPayload(ASAAS_SANDBOX_PIX_KEY) },
          },
        ];
        return page(
          ctx,
          keys.filter((k) => !status || k.status === status),
        );
      },
    },
    {
      // A QR code on one of the account's own keys, payable many times
      // unless allowsMultiplePayments is false.
      name: 'create_static_pix_qrcode',
      method: 'POST',
      path: '/v3/pix/qrCodes/static',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        const key = b.addressKey;
        if (typeof key !== 'string' || !key)
          return err(400, 'invalid_addressKey', 'Informe a chave Pix que receberá os pagamentos (addressKey).');
        if (key !== ASAAS_SANDBOX_PIX_KEY)
          return err(400, 'invalid_addressKey', 'A chave Pix informada não pertence a esta conta.');
        if (b.value !== undefined && (typeof b.value !== 'number' || !(b.value >= 0.01)))
          return err(400, 'invalid_value', 'O valor do QR Code deve ser de no mínimo R$ 0,01.');
        if (b.format !== undefined && !['ALL', 'IMAGE', 'PAYLOAD'].includes(String(b.format)))
          return err(400, 'invalid_format', 'format deve ser ALL, IMAGE ou PAYLOAD.');
        const multiple = b.allowsMultiplePayments === undefined ? true : b.allowsMultiplePayments === true;
        if (!multiple && b.value === undefined)
          return err(400, 'invalid_value', 'Um QR Code de pagamento único precisa de um valor.');
        const value = typeof b.value === 'number' ? round2(b.value) : null;
        const description = typeof b.description === 'string' ? b.description : null;
        const seconds =
          typeof b.expirationSeconds === 'number' && b.expirationSeconds > 0 ? b.expirationSeconds : undefined;
        const expirationDate =
          typeof b.expirationDate === 'string'
            ? b.expirationDate
            : seconds !== undefined
              ? new Date(Date.now() + seconds * 1000).toISOString().replace('T', ' ').slice(0, 19)
              : null;
        const format = String(b.format ?? 'ALL');
        const payload = staticPixPayload(key, value ?? undefined, description ?? undefined);
        const qr: PixQrCode = {
          id: Buffer.from(`SBX${randomBytes(18).toString('hex').toUpperCase()}`)
            .toString('base64')
            .replace(/=+$/, ''),
          encodedImage: format === 'PAYLOAD' ? '' : PLACEHOLDER_PNG_BASE64,
          payload: format === 'IMAGE' ? '' : payload,
          allowsMultiplePayments: multiple,
          expirationDate,
          externalReference: typeof b.externalReference === 'string' ? b.externalReference : null,
          description,
          value,
          addressKey: key,
        };
        ctx.state.pixQrCodes.set(qr.id, qr);
        ctx.created('pix_qr_codes');
        const { value: _v, addressKey: _k, ...answer } = qr;
        return { status: 200, body: answer };
      },
    },
  ],
};
