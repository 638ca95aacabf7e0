import { randomBytes } from 'node:crypto';
import { pixPayload, PLACEHOLDER_PNG_BASE64 } from './pix';
import { isObject, round2, today, type ProviderModel, type Reply, type RouteContext } from './types';

/**
 * Asaas v3 (cobranças): customers, charges by Pix, boleto or card, the Pix
 * QR code of a charge and refunds. Values are reais as decimals, ids carry
 * `cus_`/`pay_` prefixes, errors are `{errors: [{code, description}]}`.
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

interface AsaasState {
  customers: Map<string, Record<string, unknown>>;
  payments: Map<string, Payment>;
}

/** A customer every fresh sandbox already has, so a charge can be the first call. */
export const ASAAS_SANDBOX_CUSTOMER = 'cus_000000000001';

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
    status === 401 ? err(401, 'invalid_access_token', 'A chave de API fornecida é inválida') : err(403, 'forbidden', 'Acesso negado para este recurso.'),
  createState: () => ({
    customers: new Map([
      [ASAAS_SANDBOX_CUSTOMER, { object: 'customer', id: ASAAS_SANDBOX_CUSTOMER, name: 'Cliente Sandbox', cpfCnpj: '24971563792', deleted: false }],
    ]),
    payments: new Map(),
  }),
  markPaid(state, paymentId) {
    const payment = state.payments.get(paymentId);
    if (!payment) return false;
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
        if (typeof b.cpfCnpj !== 'string' || !/^(\d{11}|\d{14})$/.test(b.cpfCnpj)) return err(400, 'invalid_cpfCnpj', 'O CPF/CNPJ informado é inválido.');
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
        if (typeof b.customer !== 'string' || !ctx.state.customers.has(b.customer)) return err(400, 'invalid_customer', 'Customer inválido ou não informado.');
        if (typeof b.billingType !== 'string' || !BILLING_TYPES.includes(b.billingType))
          return err(400, 'invalid_billingType', 'Informe uma forma de pagamento válida.');
        if (typeof b.value !== 'number' || !(b.value >= 5)) return err(400, 'invalid_value', 'O valor da cobrança deve ser de no mínimo R$ 5,00.');
        if (typeof b.dueDate !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(b.dueDate))
          return err(400, 'invalid_dueDate', 'A data de vencimento deve estar no formato AAAA-MM-DD.');
        if (b.dueDate < today()) return err(400, 'invalid_dueDate', 'A data de vencimento não pode ser anterior à data atual.');
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
          (p) => (!ext || p.externalReference === ext) && (!customer || p.customer === customer) && (!status || p.status === status),
        );
        const data = all.slice(offset, offset + limit);
        return { status: 200, body: { object: 'list', hasMore: offset + data.length < all.length, totalCount: all.length, limit, offset, data } };
      },
    },
    {
      name: 'get_pix_qrcode',
      method: 'GET',
      path: '/v3/payments/:id/pixQrCode',
      handle(ctx) {
        const p = getPayment(ctx);
        if (!('object' in p)) return p;
        if (p.billingType !== 'PIX' && p.billingType !== 'UNDEFINED') return err(400, 'invalid_billingType', 'A cobrança não permite pagamento via Pix.');
        return {
          status: 200,
          body: { encodedImage: PLACEHOLDER_PNG_BASE64, payload: pixPayload(p.value), expirationDate: `${p.dueDate} 23:59:59`, success: true },
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
        if (!PAID.includes(p.status)) return err(400, 'invalid_action', `Não é possível estornar uma cobrança com situação ${p.status}.`);
        const b = isObject(ctx.body) ? ctx.body : {};
        const refunded = (p.refunds ?? []).reduce((s, r) => s + r.value, 0);
        const remaining = round2(p.value - refunded);
        const value = b.value === undefined ? remaining : b.value;
        if (typeof value !== 'number' || !(value > 0) || value > remaining)
          return err(400, 'invalid_value', `O valor do estorno deve estar entre R$ 0,01 e R$ ${remaining.toFixed(2)}.`);
        p.refunds = [
          ...(p.refunds ?? []),
          { dateCreated: today(), status: 'DONE', value: round2(value), description: typeof b.description === 'string' ? b.description : null },
        ];
        if (round2(remaining - value) === 0) p.status = 'REFUNDED';
        ctx.created('refunds');
        return { status: 200, body: p };
      },
    },
  ],
};
